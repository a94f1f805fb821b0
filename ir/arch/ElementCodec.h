//===- ir/arch/ElementCodec.h - Host encoding of every operand type ---*- C++
//-*-===//
//
// Test inputs and CPU references need the exact bit pattern of a value in
// each element type, independently of the simulator's and the GPU's
// conversions: values are rounded to nearest even by arithmetic on doubles
// and encoded by looking the rounded value up in a table built by decoding
// every bit pattern of the type from its sign / exponent / mantissa fields
// (tf32 and f32 are f32 patterns).
//
// Example: ElementCodec(DTypeKind::E4M3).encode(0.3) is {0x2a, 0.3125}.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_ARCH_ELEMENTCODEC_H
#define TILEC_IR_ARCH_ELEMENTCODEC_H

#include "ir/arch/DType.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace tilec {

/// Encodes and decodes one floating-point element type on the host.
class ElementCodec {
public:
  explicit ElementCodec(DTypeKind dtype);
  /// \p x rounded to the type (nearest even): {bits, value}; past the
  /// largest finite value ±Inf for the IEEE types, {0, NaN} for e4m3.
  std::pair<std::uint32_t, double> encode(double x) const;
  /// The value of stored \p bits (±Inf and NaN for their codes).
  double decode(std::uint32_t bits) const;
  /// The largest finite value: 65504 for f16, 448 for e4m3.
  double largestFinite() const;
  /// Storage bytes: 1, 2 or 4.
  unsigned bytes() const { return storageBytes; }
  /// Explicit mantissa bits (3 for e4m3, 7 for bf16, 10 for tf32).
  unsigned mantissaBits() const { return man; }

private:
  unsigned storageBytes, exp, man;
  bool ieeeSpecials; ///< All-ones exponent is inf/NaN (not in e4m3).
  /// Every non-NaN value of a 1- or 2-byte type with its code (+0 once),
  /// sorted by value: encode's lookup is a binary search.
  std::vector<std::pair<double, std::uint32_t>> table;
  double largest = 0; ///< largestFinite()
  double decodeFields(std::uint32_t code) const;
  double roundTo(double x) const;
  /// The code of \p v in the table, or null.
  const std::pair<double, std::uint32_t> *find(double v) const;
};

} // namespace tilec

#endif // TILEC_IR_ARCH_ELEMENTCODEC_H
