//===- codegen/PtxEmitter.h - llvm::Module to PTX text -----------*- C++
//-*-===//
//
// The last step of the pipeline: verify the module, run a middle-end pipeline
// tailored to tilec's kernels (hidden option -tilec-middle-end, O3 on
// request), and print PTX through the NVPTX TargetMachine for one target.
// Errors (an invalid module, a missing target) come back as values.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_PTXEMITTER_H
#define TILEC_CODEGEN_PTXEMITTER_H

#include "ir/arch/Arch.h"

#include "llvm/Support/Error.h"

#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace tilec {

/// How hard LLVM works on a kernel. No profile changes the IR's meaning (no
/// fast-math flags, so no FMA contraction in either); they trade compile
/// time against the shape of the PTX that ptxas starts from.
enum class PtxOptProfileKind {
  /// The tailored middle end (see PtxEmitter.cpp) and NVPTX code generation
  /// at O3: the sm_90a kernels and the register-bound sm_80 ones.
  Full,
  /// LICM, then NVPTX code generation at O0: the sm_80 GEMM with 33 to 64
  /// accumulators per thread, whose IR builder already emits its address
  /// arithmetic in final form, gets a k loop of the same SASS size from
  /// ptxas in a fifth of the compile time (bench/CompileLatencyResults.md).
  Light,
};

/// Options for emitPtx.
struct PtxEmitOptions {
  /// Run the middle-end pipeline before instruction selection.
  bool optimize = true;
  /// The hidden options -tilec-middle-end and -tilec-codegen-opt, when
  /// given, override the profile's choices.
  PtxOptProfileKind profile = PtxOptProfileKind::Full;
};

/// Wall-clock milliseconds of the stages of one emitPtx call.
struct PtxEmitTimings {
  double targetMs = 0;   ///< target machine lookup or creation
  double verifyMs = 0;   ///< verifyModule
  double optimizeMs = 0; ///< the middle-end pipeline
  double codegenMs = 0;  ///< NVPTX instruction selection to PTX text
};

/// The stage times of the calling thread's latest emitPtx call (benchmarks
/// read them after a compile that runs emitPtx somewhere inside).
const PtxEmitTimings &lastPtxEmitTimings();

/// Sets \p module's triple and data layout for \p arch, verifies it,
/// optimizes it and returns the PTX text.
llvm::Expected<std::string> emitPtx(llvm::Module &module, ArchKind arch,
                                    const PtxEmitOptions &options = {});

/// Prepares \p module for \p arch (triple, data layout) without emitting:
/// codegen calls this before building IR so the layout is known.
llvm::Error configureModuleForArch(llvm::Module &module, ArchKind arch);

} // namespace tilec

#endif // TILEC_CODEGEN_PTXEMITTER_H
