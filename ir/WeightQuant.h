//===- ir/WeightQuant.h - Quantizing 4-bit GEMM weights ---------*- C++ -*-===//
//
// The offline half of a W4A16 GEMM: float weights W[N, K] (output channel
// n, reduction index k) become 4-bit values with one scale (and for u4 one
// zero point) per group of G consecutive k and per channel, and the values
// are packed in the order of ir/WeightPack.h. `tilec pack`, the C API
// (tilec_quantize_int4_weights, tilec_pack_int4_weights) and Python's
// tilec.quantize_weights / tilec.pack_weights all call these functions.
//
// The tensors (the contract of the W4A16 kernels and their launcher):
//   values  [N, K] row-major, one per byte: q in -8..7 (i4) or 0..15 (u4);
//   packed  N * K / 8 32-bit words (int32 [N, K/8]) in the packed order;
//   scales  [K/G, N] row-major (N contiguous), f16 or bf16;
//   zeros   [K/G, N] row-major, one uint8 0..15 each (u4 only, optional).
// The dequantized weight is (code - z) * scale: for i4 code = q + 8 and
// z = 8, i.e. q * scale; for u4 (q - zero) * scale, or q * scale without
// zero points.
//
// The rules, per group (channel n, k in [G i, G i + G)), with round() to
// nearest, ties to even (torch.round's):
//   i4 (symmetric):   scale = max |w| / 7, q = clamp(round(w / scale), -8, 7)
//   u4 (asymmetric, GPTQ's): lo = min(min w, 0), hi = max(max w, 0),
//                     scale = (hi - lo) / 15, zero = clamp(round(-lo /
//                     scale), 0, 15), q = clamp(round(w / scale) + zero, 0, 15)
// The scale is first rounded to its storage type, and q is computed with
// the rounded scale, so that the kernel's (code - z) * scale is the value
// the rule chose. A group that is all zeros (or whose scale underflows to
// 0) gets scale 1 and q = 0 (u4: zero 0).
//
// Example: G = 32, i4, a group whose largest |w| is 1.75: scale =
// 1.75 / 7 = 0.25 (exact in bf16), w = -0.6 gives q = round(-2.4) = -2,
// stored as code 6, dequantized to -0.5.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_WEIGHTQUANT_H
#define TILEC_IR_WEIGHTQUANT_H

#include "ir/DType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tilec {

/// How a 4-bit value is read: signed with z = 8 or unsigned.
enum class Int4FormatKind { I4, U4 };

/// "i4" or "u4".
llvm::StringRef int4FormatName(Int4FormatKind format);
/// The format named \p name ("i4", "u4"), or nothing.
std::optional<Int4FormatKind> parseInt4Format(llvm::StringRef name);
/// The smallest and largest value q of \p format: -8..7 or 0..15.
int int4MinValue(Int4FormatKind format);
int int4MaxValue(Int4FormatKind format);

/// The group sizes along K a scale may cover.
inline constexpr int64_t Int4Groups[] = {32, 64, 128};

/// An error with the numbers and the legal choices unless [n, k] can be
/// packed (ir/WeightPack.h) and \p group is one of Int4Groups dividing k.
/// Example: k = 192, group 128 is "K = 192 is not a multiple of the group
/// size 128 (groups of 32 or 64 divide it)".
llvm::Error checkInt4Weight(int64_t n, int64_t k, int64_t group);

/// An error unless \p scaleType can hold the scales (f16, bf16, f32).
llvm::Error checkInt4ScaleType(DTypeKind scaleType);

/// Quantized weights: values [n, k] and scales (zeros) [k / group, n].
struct QuantizedInt4 {
  Int4FormatKind format = Int4FormatKind::I4;
  int64_t n = 0, k = 0, group = 0;
  std::vector<int8_t> values;
  /// The scales as floats, each exactly representable in the scale type.
  std::vector<float> scales;
  /// The zero points (u4 only; empty for i4).
  std::vector<uint8_t> zeros;
};

/// Quantizes \p weights (row-major [n, k]) by the rules above, the scales
/// rounded to \p scaleType (f16, bf16 or f32). An error for a shape or
/// group checkInt4Weight refuses, a scale type it cannot hold, or a weight
/// that is not finite (naming its (n, k)).
llvm::Expected<QuantizedInt4> quantizeInt4(llvm::ArrayRef<float> weights,
                                           int64_t n, int64_t k, int64_t group,
                                           Int4FormatKind format,
                                           DTypeKind scaleType);

/// Packs quantized \p values (row-major [n, k], one per byte, in \p
/// format's range) into n * k / 8 words in the order of ir/WeightPack.h
/// (i4 stored as q + 8). An error naming the first (n, k) out of range or
/// the shape checkPackableInt4 refuses; \p words must hold n * k / 8.
llvm::Error packInt4Values(llvm::ArrayRef<int8_t> values, int64_t n, int64_t k,
                           Int4FormatKind format,
                           llvm::MutableArrayRef<uint32_t> words);

/// The inverse of packInt4Values: the values q of packed \p words.
llvm::Error unpackInt4Values(llvm::ArrayRef<uint32_t> words, int64_t n,
                             int64_t k, Int4FormatKind format,
                             llvm::MutableArrayRef<int8_t> values);

/// The dequantized weights [n, k]: (q - zero) * scale per the format, with
/// \p scales [k / group, n] and \p zeros [k / group, n] (u4, may be empty:
/// zero 0; must be empty for i4).
llvm::Error dequantizeInt4(llvm::ArrayRef<int8_t> values,
                           llvm::ArrayRef<float> scales,
                           llvm::ArrayRef<uint8_t> zeros, int64_t n, int64_t k,
                           int64_t group, Int4FormatKind format,
                           llvm::MutableArrayRef<float> weights);

} // namespace tilec

#endif // TILEC_IR_WEIGHTQUANT_H
