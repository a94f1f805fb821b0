//===- compiler/passes/VerifyBatch.h - Rules of batched kernels --*- C++ -*-===//
//
// The verify pass's checks of a batched GEMM (`a : bf16[B, M, K]`, `c :
// bf16[B, M, N]`): one batch extent shared by every batched operand, C
// batched whenever A or B is, and what the targets implement with a batch,
// each rule a located error that says what would be legal. Kept apart from
// Verify.cpp, whose other checks do not depend on it.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_PASSES_VERIFYBATCH_H
#define TILEC_COMPILER_PASSES_VERIFYBATCH_H

#include "compiler/Diagnostics.h"
#include "ir/arch/Arch.h"
#include "ir/tile/TileIR.h"

#include <optional>

namespace tilec {

/// Checks the leading batch extents of \p kernel's operands (shapes of
/// three extents): a name other than M, N, K or a positive integer, the
/// same on every batched operand; c batched exactly when a or b is; a
/// target (\p arch) whose row implements batches (GemmTarget::hasBatch); no
/// split_k, persistent or cluster schedule, residual op or block scales
/// with a batch.
void verifyBatch(const tir::Op &kernel, std::optional<ArchKind> arch,
                 DiagnosticEngine &diags);

} // namespace tilec

#endif // TILEC_COMPILER_PASSES_VERIFYBATCH_H
