//===- codegen/PtxEmitter.h - llvm::Module to PTX text -----------*- C++ -*-===//
//
// The last step of the pipeline: verify the module, run LLVM's optimizing
// pipeline (O3), and print PTX through the NVPTX TargetMachine for one target.
// Errors (an invalid module, a missing target) come back as values.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_PTXEMITTER_H
#define TILEC_CODEGEN_PTXEMITTER_H

#include "ir/Arch.h"

#include "llvm/Support/Error.h"

#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace tilec {

/// Options for emitPtx.
struct PtxEmitOptions {
  /// Run the O3 middle-end pipeline before instruction selection.
  bool optimize = true;
};

/// Sets \p module's triple and data layout for \p arch, verifies it,
/// optimizes it and returns the PTX text.
llvm::Expected<std::string> emitPtx(llvm::Module &module, ArchKind arch,
                                    const PtxEmitOptions &options = {});

/// Prepares \p module for \p arch (triple, data layout) without emitting:
/// codegen calls this before building IR so the layout is known.
llvm::Error configureModuleForArch(llvm::Module &module, ArchKind arch);

} // namespace tilec

#endif // TILEC_CODEGEN_PTXEMITTER_H
