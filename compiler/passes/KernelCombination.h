//===- compiler/passes/KernelCombination.h - Written combos -*- C++ -*-===//
//
// The verify passes' side of codegen/GemmCombinationRules.h: what a
// tile.kernel combines, read from its Tile IR, and each broken rule
// reported at the `.tile` item it names.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_PASSES_KERNELCOMBINATION_H
#define TILEC_COMPILER_PASSES_KERNELCOMBINATION_H

#include "codegen/GemmCombinationRules.h"
#include "compiler/Diagnostics.h"
#include "compiler/passes/KernelView.h"
#include "ir/tile/TileIR.h"

#include <optional>
#include <vector>

namespace tilec {

/// What \p kernel combines on \p arch: its schedule line, group line,
/// block-scale line and epilogue ops; with \p view also the operands'
/// types and majorness, the batch, the group and the quantized weight.
GemmCombination writtenCombination(const tir::Op &kernel,
                                   std::optional<ArchKind> arch,
                                   const KernelView *view);

/// \p facts' schedule fields read from \p schedule (null: none).
void readScheduleCombination(const tir::Op *schedule, GemmCombination &facts);

/// Reports each of \p breaks at its item of \p kernel; a Batch break at
/// \p batchLoc. A GroupBatch break is not reported: the group's shape rules
/// (VerifyGroup.cpp) say it at the operands.
void reportCombinationBreaks(const tir::Op &kernel,
                             const std::vector<GemmCombinationBreak> &breaks,
                             DiagnosticEngine &diags,
                             llvm::SMLoc batchLoc = {});

} // namespace tilec

#endif // TILEC_COMPILER_PASSES_KERNELCOMBINATION_H
