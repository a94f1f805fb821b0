//===- compiler/passes/VerifyWeightQuant.h - Quantized weight rules -*- C++
//-*-===//
//
// The verify pass's checks of a quantized weight GEMM (`b : u4[N, K]` or
// `i4`, or `u8`, `i8`, `e4m3`, `e5m2` with group scales; `scale b bf16
// group(128) [zero(u8)]`, the tile.group_scale op): the pairings
// codegen/Sm80WeightDequant.cpp and Sm90WeightDequant.cpp implement, each
// rule a located error that says what would be legal.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_PASSES_VERIFYWEIGHTQUANT_H
#define TILEC_COMPILER_PASSES_VERIFYWEIGHTQUANT_H

#include "compiler/Diagnostics.h"
#include "compiler/passes/KernelView.h"
#include "ir/tile/TileIR.h"

#include <optional>

namespace tilec {

/// Checks \p kernel's quantized operands and tile.group_scale ops: only b
/// is a 4-bit weight, a 4-bit b has exactly one `scale b T group(G)`, an
/// 8-bit b with one is a weight, and a group scale scales such a b; T is
/// a's type, bf16 or f16; G is 32, 64 or 128; `zero(u8)` only with u4 and
/// u8; b K-major, smem b auto; weight rows % 16 == 0, BK a multiple of the
/// packed block's K (64, or 32 for 8-bit codes), BK and G nested (one
/// divides the other); target with
/// GemmTarget::hasWeightQuant (\p arch); no batch, group or block scales.
/// \p view is null when the kernel's types are unreadable.
void verifyWeightQuant(const tir::Op &kernel, std::optional<ArchKind> arch,
                       const KernelView *view, DiagnosticEngine &diags);

} // namespace tilec

#endif // TILEC_COMPILER_PASSES_VERIFYWEIGHTQUANT_H
