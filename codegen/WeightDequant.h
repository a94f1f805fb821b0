//===- codegen/WeightDequant.h - 4-bit codes to 16-bit MMA inputs -*- C++ -*-===//
//
// Internal to codegen/: what the sm_80 (mma.sync B fragments,
// Sm80WeightDequant.cpp) and sm_90a (wgmma A fragments, Sm90WeightDequant.cpp)
// kernels share when they turn a packed 4-bit weight (ir/WeightPack.h)
// into 16-bit floats in registers. One 32-bit word of the packed order
// holds eight codes; for i = 0..3
//   x  = (word >> 4 i) & 0x000f000f | magic   (two 16-bit floats m + code)
//   d  = fma(x, 1, -(m + z))                  (exact: code - z)
//   w  = fma(d, scale, -0)                    (one rounding: (code - z) s)
// with m = 128 for bf16 (0x4300) and 1024 for f16 (0x6400): the pair of
// lane register i (n8 tile j = i / 2, k half h = i % 2; ir/WeightPack.h).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_INT4DEQUANT_H
#define TILEC_CODEGEN_INT4DEQUANT_H

#include "ir/DType.h"
#include "ir/GemmSpec.h"
#include "ir/Layout.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/Error.h"

namespace tilec {

/// The facts of a 4-bit weight GEMM the generators check.
struct QuantWeightShape {
  DTypeKind aType, bType;
  MajorKind bMajor;
  WeightQuantSpec quant;
  unsigned bk;
};

/// What a kernel dequantizing a 4-bit weight B asks (bf16/f16 A and scales
/// of A's type, u4/i4 B K-major, a legal group, zero points with u4 only)
/// of its tile: \p rows weight rows per CTA (BN on sm_80, BM under sm_90a's
/// swap-AB: \p rowsName) a multiple of 16, BK of 64, BK and the group
/// nested. The verify pass reports the same at the .tile lines; this is
/// the generators' own check.
llvm::Error checkInt4Weight(const QuantWeightShape &spec,
                            llvm::StringRef rowsName, unsigned rows);

/// A 16-bit value in both halves of a b32 register.
llvm::Value *splat16(llvm::IRBuilderBase &b, llvm::Value *half);

/// The splatted base -(m + z) of zero point \p z (i32, 0..15) for
/// activations of \p type (bf16 or f16).
llvm::Value *int4Base(llvm::IRBuilderBase &b, DTypeKind type, llvm::Value *z);

/// Register \p i (0..3) of packed \p word dequantized: two \p type values
/// (code - z) * scale, from the splatted \p scale and \p base (int4Base).
llvm::Value *dequantInt4Pair(llvm::IRBuilderBase &b, DTypeKind type,
                             llvm::Value *word, unsigned i, llvm::Value *scale,
                             llvm::Value *base);

/// Checks over every lane that \p packed (packedWeightLayout(4, rows, bk) of a
/// stage) is where the fragment loads read: lane l's 16 bytes of block
/// (r, c) at byte 512 (r * bk / 64 + c) + 16 l, nibble 4 e + 2 j + h of
/// word w holding (n, k) = (16 r + 8 j + g, 64 c + 16 w + 2 t + e + 8 h).
llvm::Error checkWeightFragmentReads(const Layout &packed, unsigned rows,
                                   unsigned bk);

} // namespace tilec

#endif // TILEC_CODEGEN_INT4DEQUANT_H
