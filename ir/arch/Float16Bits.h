//===- ir/arch/Float16Bits.h - 16-bit float storage on the host -*- C++ -*-===//
//
// float <-> the bits of an f16 or bf16 element, rounded to nearest even, for
// the host side of tests, examples and benchmarks (inputs, references,
// poison). Independent of the GPU's own conversions, which they check.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_ARCH_FLOAT16BITS_H
#define TILEC_IR_ARCH_FLOAT16BITS_H

#include "ir/arch/DType.h"

#include <cstdint>
#include <cstring>

namespace tilec {

/// bf16 bits of \p f, rounded to nearest even; a NaN stays a quiet NaN
/// (rounding its payload could carry into the exponent and give infinity).
/// Example: floatToBf16(1.0f) == 0x3f80, floatToBf16(1.00390625f) == 0x3f80
/// (a tie, to even), floatToBf16(1.01171875f) == 0x3f82.
inline uint16_t floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffff) > 0x7f800000)
    return 0x7fc0;
  uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
  return uint16_t((bits + rounding) >> 16);
}

/// The float that bf16 bits \p h encode (exact).
inline float bf16ToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// The bits of \p value stored as \p type: F16 (the compiler's _Float16
/// conversion, round to nearest even) or BF16.
inline uint16_t floatToBits16(float value, DTypeKind type) {
  if (type == DTypeKind::F16) {
    _Float16 h = static_cast<_Float16>(value);
    uint16_t bits;
    std::memcpy(&bits, &h, 2);
    return bits;
  }
  return floatToBf16(value);
}

/// The float that 16-bit \p bits of \p type (F16 or BF16) encode.
inline float bits16ToFloat(uint16_t bits, DTypeKind type) {
  if (type == DTypeKind::F16) {
    _Float16 h;
    std::memcpy(&h, &bits, 2);
    return static_cast<float>(h);
  }
  return bf16ToFloat(bits);
}

/// A NaN bf16 pattern for poisoning outputs before a run.
constexpr uint16_t Bf16Poison = 0x7fc1;

} // namespace tilec

#endif // TILEC_IR_ARCH_FLOAT16BITS_H
