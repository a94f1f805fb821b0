//===- compiler/tilec/CompileCommand.cpp - `tilec compile` ----------------===//
//
//   tilec compile FILE.tile [-o OUT] [--arch sm_80|sm_90a|sm_100a]
//     [--emit=ast|ir|lowered|llvm|ptx] [--passes=a,b] [--print-after-all]
//     [--time-passes] [--verify-diagnostics] [--annotate]
//     [--lineinfo]
//
// FILE may be `-` (stdin) and may hold Tile IR instead of a .tile program.
// Exit codes: 0 success, 1 a diagnostic (or --verify-diagnostics found a
// mismatch), 2 a bad command line.
//
//===----------------------------------------------------------------------===//
#include "compiler/tilec/Command.h"

#include "compiler/Compilation.h"
#include "compiler/TuneSession.h"
#include "compiler/VerifyDiagnostics.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace tilec;
namespace cl = llvm::cl;

namespace {

cl::SubCommand compileCommand("compile",
                              "compile a .tile program (or Tile IR) to PTX");

cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                               cl::desc("<FILE.tile | ->"),
                               cl::sub(compileCommand),
                               cl::cat(tilecCategory()));
cl::opt<std::string> outputFile("o", cl::desc("write the output to FILE"),
                                cl::value_desc("FILE"), cl::init("-"),
                                cl::sub(compileCommand),
                                cl::cat(tilecCategory()));
cl::opt<std::string> archOption(
    "arch",
    cl::desc("target of kernels without an `arch` line: sm_80, sm_90a, "
             "sm_100a"),
    cl::value_desc("sm_XX"), cl::sub(compileCommand), cl::cat(tilecCategory()));
cl::opt<std::string> emitOption(
    "emit",
    cl::desc("what to write: ast, ir (after verify), lowered (after every "
             "pass, with the decisions and why), llvm, ptx (default)"),
    cl::value_desc("kind"), cl::init("ptx"), cl::sub(compileCommand),
    cl::cat(tilecCategory()));
cl::opt<std::string> passesOption(
    "passes",
    cl::desc("comma-separated passes to run instead of the default "
             "pipeline, which is, in order:\n"
#define TILEC_PASS(NAME, ENTRY, DESCRIPTION) "  " NAME ": " DESCRIPTION "\n"
#include "compiler/passes/Passes.def"
             ),
    cl::value_desc("a,b,..."), cl::sub(compileCommand),
    cl::cat(tilecCategory()));
cl::opt<bool> printAfterAll("print-after-all",
                            cl::desc("print the Tile IR after each pass "
                                     "(to stderr)"),
                            cl::sub(compileCommand), cl::cat(tilecCategory()));
cl::opt<bool> timePasses("time-passes", cl::desc("time each pass (to stderr)"),
                         cl::sub(compileCommand), cl::cat(tilecCategory()));
cl::opt<bool> verifyDiagnosticsOption(
    "verify-diagnostics",
    cl::desc("check the diagnostics against `// expected-error {{...}}` "
             "comments; exit 0 iff they match exactly"),
    cl::sub(compileCommand), cl::cat(tilecCategory()));
cl::opt<bool> annotate(
    "annotate",
    cl::desc("IR: end each op's line with its source location; llvm and "
             "ptx: start with the lowered IR (decisions and why) as "
             "comments; sm_90a ptx: a `// tilec:` comment before every "
             "wgmma (its descriptors decoded, the subtile, the .tile "
             "lines)"),
    cl::sub(compileCommand), cl::cat(tilecCategory()));

cl::opt<bool> lineInfo(
    "lineinfo",
    cl::desc("llvm and ptx: line directives (.file/.loc, as nvcc -lineinfo) "
             "naming the .tile line each instruction came from: the smem a/b "
             "line for loads, the mma line, the epilogue line, the kernel "
             "line for the rest"),
    cl::sub(compileCommand), cl::cat(tilecCategory()));

int runCompile() {
  CompilationOptions options;
  if (!archOption.empty()) {
    options.arch = parseArch(archOption);
    if (!options.arch) {
      llvm::errs() << "tilec compile: unknown --arch '" << archOption
                   << "'; legal: " << listArchNames() << "\n";
      return ExitUsage;
    }
  }
  std::optional<EmitKind> emit = parseEmitKind(emitOption);
  if (!emit) {
    llvm::errs() << "tilec compile: unknown --emit '" << emitOption
                 << "'; legal: ast, ir, lowered, llvm, ptx\n";
    return ExitUsage;
  }
  options.emit = *emit;
  if (passesOption.getNumOccurrences()) {
    std::string error;
    auto passes = parsePassList(passesOption, error);
    if (!passes) {
      llvm::errs() << "tilec compile: " << error << "\n";
      return ExitUsage;
    }
    options.passes = std::move(*passes);
  }
  options.printAfterAll = printAfterAll;
  options.timePasses = timePasses;
  options.annotate = annotate;
  options.lineInfo = lineInfo;

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(inputFile, /*IsText=*/true);
  if (!buffer) {
    llvm::errs() << "tilec compile: error: cannot read '" << inputFile
                 << "': " << buffer.getError().message() << "\n";
    return ExitDiagnostic;
  }
  // A program that fixes M, N and K: the winner `tilec tune` remembered
  // for it on this GPU, said in a comment before the output.
  std::string tunedHeader;
  if (!verifyDiagnosticsOption && options.emit != EmitKind::AST &&
      options.emit != EmitKind::IR && options.passes.empty())
    if (std::optional<TunedSource> tuned =
            tunedSourceForGpu((*buffer)->getBuffer(), "", options.arch, {})) {
      tunedHeader =
          (options.emit == EmitKind::LLVM ? "; tilec: " : "// tilec: ") +
          tuned->note + "\n";
      *buffer = llvm::MemoryBuffer::getMemBufferCopy(
          tuned->source, (*buffer)->getBufferIdentifier());
    }
  llvm::SourceMgr sourceMgr;
  unsigned bufferId =
      sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  DiagnosticEngine diags(sourceMgr, llvm::errs());
  diags.setCapture(verifyDiagnosticsOption);
  CompilationResult result = compileBuffer(bufferId, options, diags);

  if (result.ok) {
    std::error_code ec;
    llvm::ToolOutputFile out(outputFile, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      llvm::errs() << "tilec compile: error: cannot write '" << outputFile
                   << "': " << ec.message() << "\n";
      return ExitDiagnostic;
    }
    out.os() << tunedHeader << result.output;
    out.keep();
  }
  if (verifyDiagnosticsOption)
    return verifyDiagnostics(diags, bufferId, llvm::errs()) ? ExitSuccess
                                                            : ExitDiagnostic;
  return result.ok && !diags.hasErrors() ? ExitSuccess : ExitDiagnostic;
}

CommandRegistration registration(compileCommand, runCompile);

} // namespace
