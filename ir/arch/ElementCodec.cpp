//===- ir/arch/ElementCodec.cpp - Host encoding of every operand type ---===//
#include "ir/arch/ElementCodec.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tilec {

ElementCodec::ElementCodec(DTypeKind dtype) {
  switch (dtype) {
  case DTypeKind::F16:
    storageBytes = 2, exp = 5, man = 10, ieeeSpecials = true;
    break;
  case DTypeKind::BF16:
    storageBytes = 2, exp = 8, man = 7, ieeeSpecials = true;
    break;
  case DTypeKind::TF32:
    storageBytes = 4, exp = 8, man = 10, ieeeSpecials = true;
    break;
  case DTypeKind::E4M3:
    storageBytes = 1, exp = 4, man = 3, ieeeSpecials = false;
    break;
  case DTypeKind::E5M2:
    storageBytes = 1, exp = 5, man = 2, ieeeSpecials = true;
    break;
  default: // F32 (and integer types, which no GEMM here takes)
    storageBytes = 4, exp = 8, man = 23, ieeeSpecials = true;
    break;
  }
  if (storageBytes <= 2) {
    table.reserve(1u << (8 * storageBytes));
    for (std::uint32_t c = 0; c < (1u << (8 * storageBytes)); ++c) {
      double v = decodeFields(c);
      if (!std::isnan(v) && !(v == 0 && std::signbit(v)))
        table.emplace_back(v, c);
    }
    std::sort(table.begin(), table.end());
    for (auto it = table.rbegin(); it != table.rend(); ++it)
      if (std::isfinite(it->first)) {
        largest = it->first;
        break;
      }
  } else {
    largest =
        std::ldexp(2.0 - std::ldexp(1.0, -int(man)), (1 << (exp - 1)) - 1);
  }
}

const std::pair<double, std::uint32_t> *ElementCodec::find(double v) const {
  auto it = std::lower_bound(table.begin(), table.end(), v,
                             [](const std::pair<double, std::uint32_t> &e,
                                double x) { return e.first < x; });
  return it != table.end() && it->first == v ? &*it : nullptr;
}

double ElementCodec::decodeFields(std::uint32_t code) const {
  int bias = (1 << (exp - 1)) - 1;
  std::uint32_t sign = (code >> (exp + man)) & 1;
  std::uint32_t e = (code >> man) & ((1u << exp) - 1);
  std::uint32_t m = code & ((1u << man) - 1);
  if (ieeeSpecials && e == (1u << exp) - 1) // Inf, or NaN
    return m ? NAN : (sign ? -INFINITY : INFINITY);
  if (!ieeeSpecials && e == (1u << exp) - 1 && m == (1u << man) - 1)
    return NAN; // e4m3's only NaN pattern
  double v = e == 0 ? std::ldexp(double(m), 1 - bias - int(man))
                    : std::ldexp(1.0 + std::ldexp(double(m), -int(man)),
                                 int(e) - bias);
  return sign ? -v : v;
}

double ElementCodec::roundTo(double x) const {
  if (x == 0)
    return 0;
  int bias = (1 << (exp - 1)) - 1;
  int binade = 0; // |x| = f * 2^binade, f in [0.5, 1): floor(log2 |x|) + 1
  std::frexp(x, &binade);
  int e = std::max(binade - 1, 1 - bias);
  double quantum = std::ldexp(1.0, e - int(man));
  return std::nearbyint(x / quantum) * quantum; // ties to even
}

std::pair<std::uint32_t, double> ElementCodec::encode(double x) const {
  double v = roundTo(x);
  if (storageBytes == 4) {
    float single = float(v);
    std::uint32_t bits;
    std::memcpy(&bits, &single, 4);
    return {bits, v};
  }
  const std::pair<double, std::uint32_t> *it = find(v);
  // Past the largest finite value: IEEE types round to Inf (as cvt.rn
  // does), e4m3 has none.
  if (!it && ieeeSpecials && !std::isnan(v))
    it = find(std::copysign(INFINITY, v));
  if (!it)
    return {0, NAN}; // out of the type's range
  return {it->second, it->first};
}

double ElementCodec::largestFinite() const { return largest; }

double ElementCodec::decode(std::uint32_t bits) const {
  if (storageBytes == 4) {
    float single;
    std::memcpy(&single, &bits, 4);
    return single;
  }
  return decodeFields(bits);
}

} // namespace tilec
