//===- compiler/passes/VerifyGroup.h - Rules of grouped kernels --*- C++ -*-===//
//
// The verify pass's checks of a grouped GEMM (`group contiguous` or `group
// masked`, the mixture-of-experts GEMM of ir/tile/GemmSpec.h's GroupKind): the
// operand shapes each mode takes, the target, and the schedules and
// layouts the grouped sm_90a kernel implements, each rule a located error
// that says what would be legal. Kept apart from Verify.cpp, whose other
// checks do not depend on it; a grouped kernel's leading extents are group
// counts, so verifyBatch does not see them.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_PASSES_VERIFYGROUP_H
#define TILEC_COMPILER_PASSES_VERIFYGROUP_H

#include "compiler/Diagnostics.h"
#include "compiler/passes/KernelView.h"
#include "ir/arch/Arch.h"
#include "ir/tile/TileIR.h"

#include <optional>

namespace tilec {

/// Whether \p kernel has a `group` line (then verifyBatch is not run: the
/// leading extents are the group count).
bool isGroupedKernel(const tir::Op &kernel);

/// Checks the tile.group op of \p kernel, if any: the mode (contiguous or
/// masked); the shapes (contiguous: a [M, K], b [G, N, K], c [M, N];
/// masked: a [G, M, K], b [G, N, K], c [G, M, N], one G, a name other than
/// M, N, K or a positive count); target sm_90a (\p arch); A and B K-major
/// (\p view, null when the types are unreadable); no swap_ab, split_k or
/// cluster(2) schedule and no residual or swiglu op.
void verifyGroup(const tir::Op &kernel, std::optional<ArchKind> arch,
                 const KernelView *view, DiagnosticEngine &diags);

} // namespace tilec

#endif // TILEC_COMPILER_PASSES_VERIFYGROUP_H
