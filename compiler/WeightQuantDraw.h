//===- compiler/WeightQuantDraw.h - Random 4-bit weights for tilec run -*- C++
//-*-===//
//
// What `tilec run` feeds a 4-bit weight kernel (GemmSpec.h,
// WeightQuantSpec): random codes packed in ir/WeightPack.h's order, random
// group scales in A's type and random u8 zero points, and the dequantized
// weight the fp64 reference multiplies: (code - z) * scale rounded once to
// A's type, as the kernel's fma does. Real inputs: codes 0..15, scales
// uniform in [1/16, 1/8) (|weights| below 2), zero points 0..15. Integer
// inputs: scales 2^u, u in {-1, 0, 1}, so every weight is exact and small.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_WEIGHTQUANTDRAW_H
#define TILEC_COMPILER_WEIGHTQUANTDRAW_H

#include "ir/DType.h"
#include "ir/GemmSpec.h"

#include <cstdint>
#include <random>
#include <vector>

namespace tilec {

struct QuantWeight {
  std::vector<uint32_t> packed;   ///< N * K / 8 words.
  std::vector<uint8_t> scaleBits; ///< [ceil(K / group), N] in A's type.
  std::vector<uint8_t> zeros;     ///< [ceil(K / group), N]; empty: none.
  std::vector<double> values;     ///< Dequantized, row-major [N, K].
};

/// Draws an \p n x \p k weight of \p bType (U4 or I4) with \p quant's
/// groups; n % 16 == 0 and k % 64 == 0.
QuantWeight drawQuantWeight(const WeightQuantSpec &quant, DTypeKind bType,
                            int64_t n, int64_t k, bool integers,
                            std::mt19937_64 &rng);

} // namespace tilec

#endif // TILEC_COMPILER_WEIGHTQUANTDRAW_H
