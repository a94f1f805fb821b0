//===- compiler/passes/VerifyScale.h - Rules of block-scaled kernels -*- C++
//-*-===//
//
// The verify pass's checks of `scale a f32 block(1, 128)` and `scale b f32
// block(128, 128)` (tile.scale ops): what the block-scaled fp8 GEMM
// (codegen/Sm90BlockScale.h) implements, each rule a located error that
// says what would be legal. Kept apart from Verify.cpp, whose other checks
// do not depend on it.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_PASSES_VERIFYSCALE_H
#define TILEC_COMPILER_PASSES_VERIFYSCALE_H

#include "compiler/Diagnostics.h"
#include "compiler/passes/KernelView.h"
#include "ir/tile/TileIR.h"

#include <optional>

namespace tilec {

/// Checks the tile.scale ops of \p kernel: operand a or b, f32, a's block
/// (1, 128) and b's (128, 128), both present; and what they ask of the
/// kernel (\p view, null when its types are unreadable): target sm_90a
/// (\p arch), e4m3/e5m2 A and B, both K-major, BK = 128 (one promotion per
/// scale block), no swap_ab. BN is free: a tile that two B scale blocks
/// meet in picks each 8-column chunk's scale.
void verifyBlockScales(const tir::Op &kernel, std::optional<ArchKind> arch,
                       const KernelView *view, DiagnosticEngine &diags);

} // namespace tilec

#endif // TILEC_COMPILER_PASSES_VERIFYSCALE_H
