//===- host/WeightQuantDraw.cpp - Weights for tilec run ---------------===//
#include "host/WeightQuantDraw.h"

#include "ir/arch/ElementCodec.h"
#include "ir/layout/WeightPack.h"
#include "ir/tile/WeightQuant.h"

#include <cassert>
#include <cmath>
#include <vector>

namespace tilec {

namespace {

/// The codes drawQuantWeight draws from, uniformly: every integer code,
/// every finite fp8 pattern, or with \p integers the fp8 patterns of the
/// whole values -8..8. Built once per weight (an ElementCodec builds its
/// value table, too slow to make per code: 15M codes took minutes).
std::vector<uint8_t> drawableCodes(const WeightFormatInfo &format,
                                   bool integers) {
  std::vector<uint8_t> codes;
  if (!format.isFloat) {
    for (int c = 0; c < (1 << format.bits); ++c)
      codes.push_back(uint8_t(c));
    return codes;
  }
  ElementCodec codec(format.dtype);
  if (integers) {
    for (int whole = -8; whole <= 8; ++whole)
      codes.push_back(uint8_t(codec.encode(whole).first));
    return codes;
  }
  for (int c = 0; c < 256; ++c)
    if (std::isfinite(codec.decode(uint32_t(c))))
      codes.push_back(uint8_t(c));
  return codes;
}

} // namespace

QuantWeight drawQuantWeight(const WeightQuantSpec &quant, DTypeKind bType,
                            int64_t n, int64_t k, bool integers,
                            std::mt19937_64 &rng) {
  std::optional<WeightFormatKind> kind = weightFormatOf(bType);
  assert(kind && "a quantized weight's type");
  const WeightFormatInfo &format = weightFormatInfo(*kind);
  QuantWeight w;
  ElementCodec codec(quant.scaleType);
  int64_t groups = (k + quant.group - 1) / quant.group;
  std::uniform_int_distribution<int> exponent(-1, 1), zero(0, format.maxValue);
  // |weight| below 2: 16-level codes times [1/16, 1/8), 256-level ones
  // times [1/256, 1/128), fp8 values (up to 448 or 57344) times a scale
  // that maps the largest to 1..2.
  double unit = format.isFloat
                    ? 1.0 / ElementCodec(format.dtype).largestFinite()
                    : 1.0 / (1 << format.bits);
  std::uniform_real_distribution<double> real(unit, 2 * unit);
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
      z = uint8_t(zero(rng));
  }
  std::vector<uint8_t> drawable = drawableCodes(format, integers);
  std::uniform_int_distribution<size_t> pick(0, drawable.size() - 1);
  std::vector<uint8_t> codes(size_t(n * k));
  for (uint8_t &c : codes)
    c = drawable[pick(rng)];
  // The value of each code before the scale: code - z, or the fp8 value.
  std::optional<ElementCodec> fp8;
  if (format.isFloat)
    fp8.emplace(format.dtype);
  w.values.resize(codes.size());
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) {
      size_t g = size_t((c / quant.group) * n + r);
      uint8_t code = codes[size_t(r * k + c)];
      double q;
      if (fp8)
        q = fp8->decode(code);
      else
        q = double(int(code) -
                   (quant.zeros ? int(w.zeros[g]) : int(format.codeOffset)));
      w.values[size_t(r * k + c)] = codec.encode(q * scale[g]).second;
    }
  w.packed.resize(size_t(n * k * format.bits / 32));
  packWeightCodes(format.bits, codes, n, k, w.packed);
  return w;
}

} // namespace tilec
