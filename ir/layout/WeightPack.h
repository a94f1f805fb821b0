//===- ir/layout/WeightPack.h - Packed order of quantized weights -*- C++ -*-===//
//
// A quantized weight B[N, K] (output channel n, reduction index k) of 4-bit
// or 8-bit codes is stored in the order the sm_80 mma.sync m16n8k16 B
// fragment wants, so one 16-byte shared-memory load gives a thread the
// codes of two n8 tiles for 4 (4-bit) or 2 (8-bit) k16 steps and the
// dequantization (codegen/WeightDequant.cpp) needs no shuffles. The sm_90a
// kernel reads the same order as wgmma's A fragments.
//
// The weight is cut into blocks of 16 x 256 / bits (n x k: 16 x 64 for
// 4-bit codes, 16 x 32 for 8-bit), stored block row by block row (all K
// blocks of n 0..15 first). A block is 512 bytes: 32 lanes x 4 32-bit
// words. Lane l = 4 g + t holds the codes of
//   n in {g, 8 + g} (n8 tile j = 0, 1), k in {2t, 2t+1, 2t+8, 2t+9} + 16 s,
// the values mma.sync m16n8k16 puts in that lane's two B registers (h =
// 0, 1 for k 2t + e + 8 h) of the two n8 tiles, for the k16 steps s of
// the block:
//   4-bit: word w = s (four steps). The code of (tile j, k = 2t + e + 8h)
//     sits in nibble 4 e + 2 j + h, so `word >> 4 i` for i = 2 j + h moves
//     the (e = 0, e = 1) pair of register i into bits 0 and 16: one and/or
//     with a magic exponent turns both into 16-bit floats.
//   8-bit: word w = 2 s + j (two steps). The code of (k = 2t + e + 8h) sits
//     in byte 2 h + e, so one byte permute puts register h's pair into the
//     two 16-bit halves.
//
// As a layout (n, k) -> code offset (nibbles or bytes), N % 16 == 0:
//   4-bit, K % 64 == 0:
//     ((8,2,N/16),(2,4,2,4,K/64)) : ((128,2,16K),(4,32,1,8,1024))
//   8-bit, K % 32 == 0:
//     ((8,2,N/16),(2,4,2,2,K/32)) : ((64,4,16K),(1,16,2,8,512))
// e.g. 4-bit, N = 16, K = 64: (n, k) = (9, 3) is g = 1, j = 1, e = 1, t = 1,
// so nibble 128 + 2 + 4 + 32 = 166: word 20 (lane 5, w = 0), nibble 6;
// 8-bit, N = 16, K = 32: (9, 3) is byte 64 + 4 + 1 + 16 = 85: lane 5,
// word 1 (s = 0, j = 1), byte 1.
//
// Codes are unsigned bytes or nibbles; ir/tile/WeightQuant.h says what a code
// means for each format.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_LAYOUT_WEIGHTPACK_H
#define TILEC_IR_LAYOUT_WEIGHTPACK_H

#include "ir/layout/Layout.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace tilec {

/// The n extent of one packed block.
inline constexpr int64_t PackedWeightBlockN = 16;
/// Bytes of one packed block (32 lanes x 16 bytes).
inline constexpr int64_t PackedWeightBlockBytes = 512;
/// The k extent of one packed block of \p bits-bit codes: 64 or 32.
inline constexpr int64_t packedWeightBlockK(unsigned bits) {
  return 256 / bits;
}
/// The largest K a packed weight of \p bits-bit codes may have: a block
/// row is 2 bits K bytes, and the kernels' byte offsets are 32-bit (2^31
/// bytes a row leaves the copies' bounds a factor 2): 2^28 (4-bit) or
/// 2^27 (8-bit).
inline constexpr int64_t maxPackedWeightK(unsigned bits) {
  return (int64_t(1) << 30) / bits;
}

/// An error naming the extent when a [n, k] weight of \p bits-bit codes
/// cannot be packed (n not a multiple of 16, k not a multiple of the block
/// K, either not positive).
llvm::Error checkPackableWeight(unsigned bits, int64_t n, int64_t k);

/// The packed order of \p bits-bit codes as a layout (n, k) -> code offset
/// (see the header comment); n % 16 == 0, k a multiple of the block K.
Layout packedWeightLayout(unsigned bits, int64_t n, int64_t k);

/// The code offset of (\p n, \p k) in a packed weight of K extent \p kExt:
/// packedWeightLayout(bits, N, kExt)((n, k)) without building the layout.
int64_t packedWeightCode(unsigned bits, int64_t n, int64_t k, int64_t kExt);

/// Packs \p codes (row-major [n, k], one code per byte, below 2^bits) into
/// n * k * bits / 32 words. The extents must pass checkPackableWeight and
/// every code must fit (asserted).
void packWeightCodes(unsigned bits, llvm::ArrayRef<uint8_t> codes, int64_t n,
                     int64_t k, llvm::MutableArrayRef<uint32_t> words);

/// The inverse of packWeightCodes.
void unpackWeightCodes(unsigned bits, llvm::ArrayRef<uint32_t> words, int64_t n,
                       int64_t k, llvm::MutableArrayRef<uint8_t> codes);

} // namespace tilec

#endif // TILEC_IR_LAYOUT_WEIGHTPACK_H
