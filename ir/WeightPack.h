//===- ir/WeightPack.h - The packed order of 4-bit GEMM weights -*- C++ -*-===//
//
// A 4-bit weight B[N, K] (output channel n, reduction index k) is stored in
// the order the sm_80 mma.sync m16n8k16 B fragment wants, so one 16-byte
// shared-memory load gives a thread four k16 steps of two n8 tiles and the
// dequantization (codegen/Sm80WeightDequant.cpp) needs no shuffles.
//
// The weight is cut into 16 x 64 (n x k) blocks, stored block row by block
// row (all K blocks of n 0..15 first). A block is 512 bytes: 32 lanes x 4
// 32-bit words. Lane l = 4 g + t holds, in word w (the k16 step
// 16 w .. 16 w + 15 of the block), the eight codes of
//   n in {g, 8 + g} (n8 tile j = 0, 1), k in {2t, 2t+1, 2t+8, 2t+9} + 16 w,
// the values mma.sync m16n8k16 puts in that lane's two B registers for the
// two n8 tiles. Within the word, the code of (tile j, k = 2t + e + 8 h)
// sits in nibble 4 e + 2 j + h (bits [4 n, 4 n + 4)), so `word >> 4 i` for
// i = 0..3 moves the (e = 0, e = 1) pair of register i into bits 0 and 16:
// one and/or with a magic exponent turns both into 16-bit floats.
//
// As a layout (n, k) -> nibble offset, for N % 16 == 0 and K % 64 == 0:
//   ((8,2,N/16),(2,4,2,4,K/64)) : ((128,2,16K),(4,32,1,8,1024))
// e.g. N = 16, K = 64: (n, k) = (9, 3) is g = 1, j = 1, e = 1, t = 1, so
// nibble 128 + 2 + 4 + 32 = 166: word 20 (lane 5, w = 0), nibble 6.
//
// Codes are unsigned 0..15. A signed i4 value q is stored as the code
// q + 8 (offset binary); a u4 value is its own code. The dequantized
// weight is (code - z) * scale with z = 8 for i4, the group's zero point
// for u4 with zeros, 0 for u4 without.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_WEIGHTPACK_H
#define TILEC_IR_WEIGHTPACK_H

#include "ir/Layout.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace tilec {

/// The n and k extents of one packed block.
inline constexpr int64_t PackedInt4BlockN = 16;
inline constexpr int64_t PackedInt4BlockK = 64;
/// Bytes of one packed block (16 x 64 codes).
inline constexpr int64_t PackedInt4BlockBytes = 512;
/// The largest K the sm_80 kernel takes: a block row is 8 K bytes, and its
/// byte offsets are 32-bit (2^28 leaves the copies' bounds a factor 2).
inline constexpr int64_t MaxPackedInt4K = int64_t(1) << 28;

/// An error naming the extent when a [n, k] weight cannot be packed (n not a
/// multiple of 16, k not a multiple of 64, either not positive).
llvm::Error checkPackableInt4(int64_t n, int64_t k);

/// The packed order as a layout (n, k) -> nibble offset (see the header
/// comment); n % 16 == 0 and k % 64 == 0.
Layout packedInt4Layout(int64_t n, int64_t k);

/// The nibble offset of (\p n, \p k) in a packed weight of K extent \p kExt:
/// packedInt4Layout(N, kExt)((n, k)) without building the layout.
int64_t packedInt4Nibble(int64_t n, int64_t k, int64_t kExt);

/// Packs \p codes (row-major [n, k], one code 0..15 per byte) into
/// n * k / 8 words. The extents must pass checkPackableInt4 and every code
/// must be below 16 (asserted).
void packInt4(llvm::ArrayRef<uint8_t> codes, int64_t n, int64_t k,
              llvm::MutableArrayRef<uint32_t> words);

/// The inverse of packInt4.
void unpackInt4(llvm::ArrayRef<uint32_t> words, int64_t n, int64_t k,
                llvm::MutableArrayRef<uint8_t> codes);

} // namespace tilec

#endif // TILEC_IR_WEIGHTPACK_H
