//===- host/WeightQuantDraw.h - Weights for tilec run -------*- C++ -*-===//
//
// What `tilec run` feeds a quantized weight kernel (GemmSpec.h,
// WeightQuantSpec; formats in ir/tile/WeightQuant.h): random codes packed in
// ir/layout/WeightPack.h's order, random group scales in A's type and random u8
// zero points, and the dequantized weight the fp64 reference multiplies:
// (code - z) * scale, or fp8 value * scale, rounded once to A's type, as
// the kernel's fma does. Real inputs: every code (every finite fp8
// pattern, subnormals included), scales uniform in [u, 2u) with u = 1/16
// (4-bit), 1/256 (8-bit integers) or 1 / the fp8 format's largest value,
// so |weights| stay below 2; zero points 0..15 or 0..255. Integer inputs:
// scales 2^e, e in {-1, 0, 1}, fp8 codes of whole values in [-8, 8], so
// every weight is exact.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_HOST_WEIGHTQUANTDRAW_H
#define TILEC_HOST_WEIGHTQUANTDRAW_H

#include "ir/arch/DType.h"
#include "ir/tile/GemmSpec.h"

#include <cstdint>
#include <random>
#include <vector>

namespace tilec {

struct QuantWeight {
  std::vector<uint32_t> packed;   ///< N * K * bits / 32 words.
  std::vector<uint8_t> scaleBits; ///< [ceil(K / group), N] in A's type.
  std::vector<uint8_t> zeros;     ///< [ceil(K / group), N]; empty: none.
  std::vector<double> values;     ///< Dequantized, row-major [N, K].
};

/// Draws an \p n x \p k weight of \p bType (a weight format) with \p
/// quant's groups; n % 16 == 0 and k a multiple of the packed block's K.
QuantWeight drawQuantWeight(const WeightQuantSpec &quant, DTypeKind bType,
                            int64_t n, int64_t k, bool integers,
                            std::mt19937_64 &rng);

} // namespace tilec

#endif // TILEC_HOST_WEIGHTQUANTDRAW_H
