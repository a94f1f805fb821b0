//===- codegen/Ptxas.h - Assemble PTX with the CUDA toolkit's ptxas -*- C++
//-*-===//
//
// Invariant 5 of docs/invariants.md: every emitted PTX assembles for its target. The
// tests and the main job call this wherever a ptxas exists.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_PTXAS_H
#define TILEC_CODEGEN_PTXAS_H

#include "ir/arch/Arch.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace tilec {

/// The ptxas to use: $PTXAS, then PATH, then /usr/local/cuda/bin.
std::optional<std::string> findPtxas();

/// What one ptxas run said.
struct PtxasRun {
  int exitCode = -1;
  std::string output; ///< stdout and stderr together (with -v: registers).
};

/// Runs `ptxas -arch=<arch> [extraArgs] in.ptx -o out.cubin` and returns its
/// exit code and output; an error only when ptxas cannot be found or run.
llvm::Expected<PtxasRun>
runPtxas(llvm::StringRef ptx, ArchKind arch,
         llvm::ArrayRef<llvm::StringRef> extraArgs = {});

/// Assembles \p ptx with `ptxas -arch=<arch>`; the error carries ptxas's
/// output. Fails if no ptxas is found (callers that may skip check findPtxas
/// first).
llvm::Error assembleWithPtxas(llvm::StringRef ptx, ArchKind arch);

} // namespace tilec

#endif // TILEC_CODEGEN_PTXAS_H
