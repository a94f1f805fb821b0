//===- codegen/WeightDequant.h - Codes to 16-bit MMA inputs -----*- C++ -*-===//
//
// Internal to codegen/: what the sm_80 (mma.sync B fragments,
// Sm80WeightDequant.cpp) and sm_90a (wgmma A fragments,
// Sm90WeightDequant.cpp) kernels share when they turn a packed quantized
// weight (ir/layout/WeightPack.h, formats in ir/tile/WeightQuant.h) into 16-bit floats
// in registers. Per k16 step a lane holds one 32-bit word (4-bit codes) or
// two (8-bit codes: one per n8 tile j) and makes the pair of register
// i = 2 j + h (n8 tile j, k half h) from it. With m the magic number of the
// activations' type, z the zero point (the code offset 8/128 for i4/i8)
// and s the group's splatted scale:
//   4-bit:  x = (word >> 4 i) & 0x000f000f | m      (m + code, exact)
//           w = fma(fma(x, 1, -(m + z)), s, -0)     (one rounding)
//           m = 128 (bf16, 0x4300), 1024 (f16, 0x6400)
//   i8/u8, f16:   x = prmt(word_j, 0x64, bytes 2h, 2h+1)   (1024 + code)
//           w = fma(fma(x, 1, -(1024 + z)), s, -0)
//   i8/u8, bf16:  per byte f = f32(2^23 + code) by a prmt into 0x4B000000,
//           f - (2^23 + z) exact in f32, cvt.rn.bf16x2.f32 (exact: at most
//           8 significant bits), then fma(., s, -0)
//   e5m2, f16:    x = prmt(word_j, 0, the bytes into the high halves): an
//           e5m2 byte is the top byte of its f16; w = fma(x, s, -0)
//   e4m3 (f16), e4m3 and e5m2 (bf16): the byte's magnitude shifted into
//           the 16-bit type's exponent and mantissa fields (>> 1, >> 4,
//           >> 3 of the high byte), the sign kept, then one exact fma by
//           2^(bias difference: 8, 120, 112) and fma(., s, -0). Subnormal
//           codes become 16-bit subnormals before the power of two, which
//           fma handles exactly (no .ftz).
// Codes that are not finite (e4m3 0x7f, e5m2 0x7c..) do not decode to NaN
// or Inf here (e4m3 0x7f gives 480 s); the packer refuses them.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_WEIGHTDEQUANT_H
#define TILEC_CODEGEN_WEIGHTDEQUANT_H

#include "ir/arch/DType.h"
#include "ir/layout/Layout.h"
#include "ir/tile/GemmSpec.h"
#include "ir/tile/WeightQuant.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/Error.h"

namespace tilec {

/// The facts of a quantized-weight GEMM the generators check.
struct QuantWeightShape {
  DTypeKind aType, bType;
  MajorKind bMajor;
  WeightQuantSpec quant;
  unsigned bk;
};

/// What a kernel dequantizing a quantized weight B asks (bf16/f16 A and
/// scales of A's type, B of a weight format K-major, a legal group, zero
/// points with u4/u8 only) of its tile: \p rows weight rows per CTA (BN on
/// sm_80, BM under sm_90a's swap-AB: \p rowsName) a multiple of 16, BK a
/// multiple of the packed block's K, BK and the group nested. The verify
/// pass reports the same at the .tile lines; this is the generators' own
/// check.
llvm::Error checkQuantWeight(const QuantWeightShape &spec,
                             llvm::StringRef rowsName, unsigned rows);

/// The format of a quantized weight of type \p bType (asserted to be one).
const WeightFormatInfo &weightFormatOfB(DTypeKind bType);

/// Words of one k16 step a lane dequantizes: 1 (4-bit codes) or 2 (8-bit).
unsigned weightWordsPerStep(const WeightFormatInfo &format);
/// k16 steps in one 16-byte lane load: 4 or 2.
inline unsigned weightStepsPerLoad(const WeightFormatInfo &format) {
  return 4 / weightWordsPerStep(format);
}

/// The bytes a quantized weight's tile of \p rows x \p bk takes in one
/// pipeline stage (sm_80) or ring slot (sm_90a).
struct WeightStageBytes {
  unsigned codeBytes = 0;  ///< rows * bk * bits / 8: the packed codes.
  unsigned scaleRows = 0;  ///< Group rows: max(1, bk / group).
  unsigned scaleBytes = 0; ///< scaleRows * rows * 2, rounded up to 128.
  unsigned zeroBytes = 0;  ///< scaleRows * rows (0 without zero points),
                           ///< rounded up to 128.
};
WeightStageBytes weightStageBytes(const WeightFormatInfo &format,
                                  const WeightQuantSpec &quant, unsigned rows,
                                  unsigned bk);

/// Bytes of one 16-row block row of a stage's packed codes: bk / blockK
/// blocks of 512.
unsigned packedBlockRowBytes(const WeightFormatInfo &format, unsigned bk);

/// The words of k16 step \p ks in \p loaded, a lane's 16-byte load of the
/// step's packed block (weightWordsPerStep of them).
llvm::SmallVector<llvm::Value *, 2> stepWords(llvm::IRBuilderBase &b,
                                              llvm::Value *loaded, unsigned ks,
                                              const WeightFormatInfo &format);

/// A 16-bit value in both halves of a b32 register.
llvm::Value *splat16(llvm::IRBuilderBase &b, llvm::Value *half);

/// The splatted scale and base of one channel's group: \p scale the i16
/// scale of \p type, \p zero the i32 zero point (null: the format's code
/// offset). The base is what dequantWeightPair subtracts; null for the fp8
/// formats.
struct GroupScaleBase {
  llvm::Value *scale = nullptr, *base = nullptr;
};
GroupScaleBase groupScaleBase(llvm::IRBuilderBase &b, DTypeKind type,
                              const WeightFormatInfo &format,
                              llvm::Value *scale, llvm::Value *zero);

/// Register \p i (0..3, = 2 j + h) of one k16 step dequantized: two \p type
/// values of channel j's group, from the step's \p words
/// (weightWordsPerStep of them) and that channel's \p sb.
llvm::Value *dequantWeightPair(llvm::IRBuilderBase &b, DTypeKind type,
                               const WeightFormatInfo &format,
                               llvm::ArrayRef<llvm::Value *> words, unsigned i,
                               const GroupScaleBase &sb);

/// Checks over every lane that \p packed (packedWeightLayout(bits, rows,
/// bk) of a stage) is where the fragment loads read: lane l's 16 bytes of
/// block (r, c) at byte 512 (r * blocks + c) + 16 l, step s of the block in
/// words s * wordsPerStep .., holding (n, k) = (16 r + 8 j + g, K0 + 16 s +
/// 2 t + e + 8 h) where the header of ir/layout/WeightPack.h puts them.
llvm::Error checkWeightFragmentReads(const Layout &packed, unsigned bits,
                                     unsigned rows, unsigned bk);

} // namespace tilec

#endif // TILEC_CODEGEN_WEIGHTDEQUANT_H
