//===- ir/tile/WeightQuant.h - Quantizing GEMM weights ----------*- C++ -*-===//
//
// The offline half of a W4A16 / W8A16 GEMM: float weights W[N, K] (output
// channel n, reduction index k) become 4-bit or 8-bit values with one scale
// (and for u4/u8 one zero point) per group of G consecutive k and per
// channel, and the values are packed in the order of ir/layout/WeightPack.h.
// `tilec pack`, the C API (tilec_quantize_weights, tilec_pack_weights) and
// Python's tilec.quantize_weights / tilec.pack_weights all call these
// functions.
//
// The formats (one row of weightFormatInfo each):
//   format  value q           code stored     dequantized weight
//   i4      -8..7             q + 8           q * scale
//   u4      0..15             q               (q - zero) * scale
//   i8      -128..127         q + 128         q * scale
//   u8      0..255            q               (q - zero) * scale
//   e4m3    an fp8 e4m3 (fn)  its bit pattern value(q) * scale
//   e5m2    an fp8 e5m2       its bit pattern value(q) * scale
// (zero 0 for u4/u8 without zero points.)
//
// The tensors (the contract of the kernels and their launcher):
//   values  [N, K] row-major, one byte per value: q as int8 (i4, i8), as
//           uint8 (u4, u8), the fp8 bit pattern (e4m3, e5m2);
//   packed  N * K * bits / 32 32-bit words (int32 [N, K * bits / 32]) in
//           the packed order;
//   scales  [K/G, N] row-major (N contiguous), f16 or bf16 (f32 offline);
//   zeros   [K/G, N] row-major, one uint8 each, at most the largest q
//           (u4, u8 only; optional).
//
// The rules, per group (channel n, k in [G i, G i + G)), with round() to
// nearest, ties to even (torch.round's):
//   i4, i8 (symmetric): scale = max |w| / qmax (7, 127), q = clamp(round(w
//                     / scale), qmin, qmax)
//   u4, u8 (asymmetric, GPTQ's): lo = min(min w, 0), hi = max(max w, 0),
//                     scale = (hi - lo) / qmax (15, 255), zero =
//                     clamp(round(-lo / scale), 0, qmax), q =
//                     clamp(round(w / scale) + zero, 0, qmax)
//   e4m3, e5m2:       scale = max |w| / largest finite (448, 57344), q =
//                     w / scale rounded to the format (nearest even),
//                     clamped to its largest finite value
// The scale is first rounded to its storage type, and q is computed with
// the rounded scale, so that the kernel's dequantized weight is the value
// the rule chose. A group that is all zeros (or whose scale underflows to
// 0) gets scale 1 and q = 0 (u4/u8: zero 0).
//
// Example: G = 32, i4, a group whose largest |w| is 1.75: scale =
// 1.75 / 7 = 0.25 (exact in bf16), w = -0.6 gives q = round(-2.4) = -2,
// stored as code 6, dequantized to -0.5.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_TILE_WEIGHTQUANT_H
#define TILEC_IR_TILE_WEIGHTQUANT_H

#include "ir/arch/DType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// How a quantized weight's values are read (the table above).
enum class WeightFormatKind { I4, U4, I8, U8, E4M3, E5M2 };

/// One row of the format table.
struct WeightFormatInfo {
  WeightFormatKind kind;
  const char *name;       ///< "i4", "u4", "i8", "u8", "e4m3", "e5m2".
  DTypeKind dtype;        ///< The operand type `b : <dtype>[N, K]` declares.
  unsigned bits;          ///< Code width: 4 or 8.
  int minValue, maxValue; ///< The integer range of q (integer formats).
  /// The code of q = 0: 8 (i4), 128 (i8), 0 otherwise. For i4 and i8 it is
  /// the zero point the kernel subtracts.
  unsigned codeOffset;
  bool takesZeros; ///< Zero points apply (u4, u8).
  bool isFloat;    ///< q is an fp8 value (e4m3, e5m2).
};

const WeightFormatInfo &weightFormatInfo(WeightFormatKind format);
/// "i4", "u4", "i8", "u8", "e4m3" or "e5m2".
llvm::StringRef weightFormatName(WeightFormatKind format);
/// The format named \p name, or nothing.
std::optional<WeightFormatKind> parseWeightFormat(llvm::StringRef name);
/// The format of a weight operand of type \p dtype, or nothing.
std::optional<WeightFormatKind> weightFormatOf(DTypeKind dtype);
/// "i4, u4, i8, u8, e4m3, e5m2": for diagnostics.
std::string weightFormatNames();

/// The group sizes along K a scale may cover.
inline constexpr int64_t WeightGroups[] = {32, 64, 128};

/// An error with the numbers and the legal choices unless [n, k] can be
/// packed in \p format's code width (ir/layout/WeightPack.h) and \p group is one
/// of WeightGroups dividing k. Example: k = 192, group 128 is "K = 192 is
/// not a multiple of the group size 128 (groups of 32 or 64 divide it)".
llvm::Error checkWeightShape(WeightFormatKind format, int64_t n, int64_t k,
                             int64_t group);

/// An error unless \p scaleType can hold the scales (f16, bf16, f32).
llvm::Error checkWeightScaleType(DTypeKind scaleType);

/// The value q of one stored byte of \p format (sign-extended for i4/i8,
/// the fp8 value for e4m3/e5m2).
double weightValue(WeightFormatKind format, int8_t byte);

/// Quantized weights: values [n, k] and scales (zeros) [k / group, n].
struct QuantizedWeights {
  WeightFormatKind format = WeightFormatKind::I4;
  int64_t n = 0, k = 0, group = 0;
  std::vector<int8_t> values;
  /// The scales as floats, each exactly representable in the scale type.
  std::vector<float> scales;
  /// The zero points (u4, u8; empty for the other formats).
  std::vector<uint8_t> zeros;
};

/// Quantizes \p weights (row-major [n, k]) by the rules above, the scales
/// rounded to \p scaleType (f16, bf16 or f32). An error for a shape or
/// group checkWeightShape refuses, a scale type it cannot hold, or a
/// weight that is not finite (naming its (n, k)).
llvm::Expected<QuantizedWeights>
quantizeWeights(llvm::ArrayRef<float> weights, int64_t n, int64_t k,
                int64_t group, WeightFormatKind format, DTypeKind scaleType);

/// Packs quantized \p values (row-major [n, k], one per byte, in \p
/// format's range) into n * k * bits / 32 words in the order of
/// ir/layout/WeightPack.h. An error naming the first (n, k) out of range (an fp8
/// pattern that is not finite, NaN or e5m2's Inf, is out of range) or the shape checkPackableWeight refuses;
/// \p words must hold n * k * bits / 32.
llvm::Error packWeightValues(llvm::ArrayRef<int8_t> values, int64_t n,
                             int64_t k, WeightFormatKind format,
                             llvm::MutableArrayRef<uint32_t> words);

/// The inverse of packWeightValues: the values of packed \p words.
llvm::Error unpackWeightValues(llvm::ArrayRef<uint32_t> words, int64_t n,
                               int64_t k, WeightFormatKind format,
                               llvm::MutableArrayRef<int8_t> values);

/// The dequantized weights [n, k] per the format, with \p scales [k /
/// group, n] and \p zeros [k / group, n] (u4/u8, may be empty: zero 0; must
/// be empty for the other formats).
llvm::Error dequantizeWeights(llvm::ArrayRef<int8_t> values,
                              llvm::ArrayRef<float> scales,
                              llvm::ArrayRef<uint8_t> zeros, int64_t n,
                              int64_t k, int64_t group, WeightFormatKind format,
                              llvm::MutableArrayRef<float> weights);

} // namespace tilec

#endif // TILEC_IR_TILE_WEIGHTQUANT_H
