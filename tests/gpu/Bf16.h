//===- tests/gpu/Bf16.h - bf16 on the host, for GPU test data -----*- C++ -*-===//
//
// Conversions between float and bf16 bits (round to nearest even) for
// inputs and references; independent of the GPU's own conversion.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TESTS_GPU_BF16_H
#define TILEC_TESTS_GPU_BF16_H

#include <cstdint>
#include <cstring>

namespace tilec {

/// bf16 bits of \p f, rounded to nearest even; NaN stays a quiet NaN.
inline uint16_t floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffff) > 0x7f800000)
    return 0x7fc0;
  uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
  return uint16_t((bits + rounding) >> 16);
}

/// The float that bf16 bits \p h encode.
inline float bf16ToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// A NaN bf16 pattern used to poison outputs before a run.
constexpr uint16_t Bf16Poison = 0x7fc1;

} // namespace tilec

#endif // TILEC_TESTS_GPU_BF16_H
