//===- compiler/Compilation.h - One run of the compiler ----------*- C++
//-*-===//
//
// The whole path from text to the requested output, shared by `tilec
// compile` and the embedding API (compiler/Compiler.h): read a .tile program
// (or Tile IR), parse, sema, run the pass pipeline, execute `print`
// statements, and produce the AST, IR, lowered IR, LLVM IR or PTX.
// Diagnostics go to the caller's engine.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_COMPILATION_H
#define TILEC_COMPILER_COMPILATION_H

#include "codegen/GemmCodegen.h"
#include "compiler/Diagnostics.h"
#include "compiler/Pipeline.h"
#include "ir/arch/Arch.h"

#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// What to produce.
enum class EmitKind { AST, IR, Lowered, LLVM, PTX };

/// Parses "ast", "ir", "lowered", "llvm", "ptx".
std::optional<EmitKind> parseEmitKind(llvm::StringRef name);

/// Everything that changes the output of a compilation.
struct CompilationOptions {
  std::optional<ArchKind> arch;
  EmitKind emit = EmitKind::PTX;
  /// The passes to run; empty means the default: `verify` for --emit=ir,
  /// every pass for --emit=lowered, llvm and ptx.
  std::vector<const PassInfo *> passes;
  bool printAfterAll = false;
  bool timePasses = false;
  bool annotate = false;
  /// For --emit=llvm and ptx: PTX line directives (.file/.loc) naming the
  /// .tile line of each part of the kernel (--lineinfo).
  bool lineInfo = false;
  /// For --emit=llvm and ptx: the kernel to generate code for. Empty: the
  /// source must hold exactly one kernel (one LLVM/PTX module per kernel).
  std::string kernel;
  /// Where --print-after-all and --time-passes write.
  llvm::raw_ostream *log = &llvm::errs();
};

/// What a compilation produced.
struct CompilationResult {
  bool ok = false;
  /// The requested output (AST, IR, PTX...), after what `print` statements
  /// printed.
  std::string output;
  /// One per kernel for --emit=lowered, llvm and ptx.
  std::vector<GemmSpec> specs;
  /// One per kernel for --emit=ptx.
  std::vector<GemmKernelBinary> binaries;
};

/// Compiles buffer \p bufferId of the engine's SourceMgr.
CompilationResult compileBuffer(unsigned bufferId,
                                const CompilationOptions &options,
                                DiagnosticEngine &diags);

} // namespace tilec

#endif // TILEC_COMPILER_COMPILATION_H
