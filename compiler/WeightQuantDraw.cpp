//===- compiler/WeightQuantDraw.cpp - Random 4-bit weights for tilec run --===//
#include "compiler/WeightQuantDraw.h"

#include "ir/ElementCodec.h"
#include "ir/WeightPack.h"

#include <cmath>

namespace tilec {

QuantWeight drawQuantWeight(const WeightQuantSpec &quant, DTypeKind bType,
                            int64_t n, int64_t k, bool integers,
                            std::mt19937_64 &rng) {
  QuantWeight w;
  ElementCodec codec(quant.scaleType);
  int64_t groups = (k + quant.group - 1) / quant.group;
  std::uniform_int_distribution<int> code(0, 15), exponent(-1, 1);
  std::uniform_real_distribution<double> real(1.0 / 16, 1.0 / 8);
  std::vector<double> scale(size_t(groups * n));
  w.scaleBits.assign(size_t(groups * n) * codec.bytes(), 0);
  for (size_t i = 0; i < scale.size(); ++i) {
    auto [bits, value] =
        codec.encode(integers ? std::exp2(exponent(rng)) : real(rng));
    scale[i] = value;
    for (unsigned byte = 0; byte < codec.bytes(); ++byte)
      w.scaleBits[i * codec.bytes() + byte] = uint8_t(bits >> (8 * byte));
  }
  if (quant.zeros) {
    w.zeros.resize(size_t(groups * n));
    for (uint8_t &z : w.zeros)
      z = uint8_t(code(rng));
  }
  std::vector<uint8_t> codes(size_t(n * k));
  for (uint8_t &c : codes)
    c = uint8_t(code(rng));
  w.values.resize(codes.size());
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) {
      size_t g = size_t((c / quant.group) * n + r);
      int zero = bType == DTypeKind::I4 ? 8 : quant.zeros ? w.zeros[g] : 0;
      w.values[size_t(r * k + c)] =
          codec.encode(double(int(codes[size_t(r * k + c)]) - zero) * scale[g])
              .second;
    }
  w.packed.resize(size_t(n * k / 8));
  packWeightCodes(4, codes, n, k, w.packed);
  return w;
}

} // namespace tilec
