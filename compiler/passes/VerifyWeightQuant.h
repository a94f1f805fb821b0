//===- compiler/passes/VerifyWeightQuant.h - Rules of 4-bit weights -*- C++
//-*-===//
//
// The verify pass's checks of a 4-bit weight GEMM (`b : u4[N, K]` or `i4`
// with `scale b bf16 group(128) [zero(u8)]`, the tile.group_scale op): the
// pairings codegen/Sm80WeightDequant.cpp implements, one table, each rule a
// located error that says what would be legal.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_PASSES_VERIFYWEIGHTQUANT_H
#define TILEC_COMPILER_PASSES_VERIFYWEIGHTQUANT_H

#include "compiler/Diagnostics.h"
#include "compiler/passes/KernelView.h"
#include "ir/TileIR.h"

#include <optional>

namespace tilec {

/// Checks \p kernel's 4-bit operands and tile.group_scale ops: only b is a
/// 4-bit weight, and a 4-bit b has exactly one `scale b T group(G)` (and a
/// group scale a 4-bit b); T is a's type, bf16 or f16; G is 32, 64 or 128;
/// `zero(u8)` only with u4; b K-major, smem b auto; BN % 16 == 0, BK % 64
/// == 0, BK and G nested (one divides the other); target with
/// GemmTarget::hasWeightQuant (\p arch); no batch, group or block scales.
/// \p view is null when the kernel's types are unreadable.
void verifyWeightQuant(const tir::Op &kernel, std::optional<ArchKind> arch,
                       const KernelView *view, DiagnosticEngine &diags);

} // namespace tilec

#endif // TILEC_COMPILER_PASSES_VERIFYWEIGHTQUANT_H
