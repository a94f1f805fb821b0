//===- tests/unit/ElementCodecTest.cpp - Host encoding of operand types ---===//
#include "ir/arch/ElementCodec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace tilec {
namespace {

TEST(ElementCodec, HeaderExample) {
  // 0.3 in e4m3: exponent -2 (field 5), mantissa 1.25 -> 0.3125 = 0x2a.
  auto [bits, value] = ElementCodec(DTypeKind::E4M3).encode(0.3);
  EXPECT_EQ(bits, 0x2au);
  EXPECT_EQ(value, 0.3125);
}

TEST(ElementCodec, KnownPatterns) {
  // The formats' published encodings of 1.0 and their largest finite values.
  EXPECT_EQ(ElementCodec(DTypeKind::F16).decode(0x3c00), 1.0);
  EXPECT_EQ(ElementCodec(DTypeKind::F16).decode(0x7bff), 65504.0);
  EXPECT_EQ(ElementCodec(DTypeKind::BF16).decode(0x3f80), 1.0);
  EXPECT_EQ(ElementCodec(DTypeKind::E4M3).decode(0x38), 1.0);
  EXPECT_EQ(ElementCodec(DTypeKind::E4M3).decode(0x7e), 448.0);
  EXPECT_TRUE(std::isnan(ElementCodec(DTypeKind::E4M3).decode(0x7f)));
  EXPECT_EQ(ElementCodec(DTypeKind::E5M2).decode(0x3c), 1.0);
  EXPECT_EQ(ElementCodec(DTypeKind::E5M2).decode(0x7b), 57344.0);
  EXPECT_EQ(ElementCodec(DTypeKind::E5M2).decode(0x7c), INFINITY);
}

TEST(ElementCodec, InfinitiesAndOverflow) {
  // IEEE Inf codes decode to Inf (f16 0x7c00, 0xfc00; bf16 0x7f80), NaN
  // codes (a nonzero mantissa) to NaN.
  ElementCodec f16(DTypeKind::F16), bf16(DTypeKind::BF16);
  EXPECT_EQ(f16.decode(0x7c00), INFINITY);
  EXPECT_EQ(f16.decode(0xfc00), -INFINITY);
  EXPECT_TRUE(std::isnan(f16.decode(0x7e00)));
  EXPECT_TRUE(std::isnan(f16.decode(0xffff))); // tilec run's poison
  EXPECT_EQ(bf16.decode(0x7f80), INFINITY);
  // Rounding to nearest even past the largest finite value gives Inf, as
  // cvt.rn does: f16's 65504 + half an ulp (16) ties to the even 65536.
  EXPECT_EQ(f16.encode(65519.0).second, 65504.0);
  EXPECT_EQ(f16.encode(65520.0), std::make_pair(0x7c00u, double(INFINITY)));
  EXPECT_EQ(f16.encode(-1e6), std::make_pair(0xfc00u, -double(INFINITY)));
  // The largest finite values, from the formats' published tables.
  EXPECT_EQ(f16.largestFinite(), 65504.0);
  EXPECT_EQ(bf16.largestFinite(), 3.3895313892515355e38);
  EXPECT_EQ(ElementCodec(DTypeKind::E4M3).largestFinite(), 448.0);
  EXPECT_EQ(ElementCodec(DTypeKind::E5M2).largestFinite(), 57344.0);
  EXPECT_EQ(ElementCodec(DTypeKind::F32).largestFinite(),
            double(std::numeric_limits<float>::max()));
  // e4m3 has no Inf: out of range stays NaN, bits 0.
  auto [bits, value] = ElementCodec(DTypeKind::E4M3).encode(1000.0);
  EXPECT_EQ(bits, 0u);
  EXPECT_TRUE(std::isnan(value));
}

TEST(ElementCodec, RoundsToNearestEven) {
  // 1 + 2^-8 lies halfway between bf16's 1 and 1 + 2^-7: ties to even (1);
  // 1 + 3 * 2^-8 lies between 1 + 2^-7 and 1 + 2^-6: ties to even (1 + 2^-6).
  ElementCodec bf16(DTypeKind::BF16);
  EXPECT_EQ(bf16.encode(1.0 + std::ldexp(1.0, -8)).second, 1.0);
  EXPECT_EQ(bf16.encode(1.0 + 3 * std::ldexp(1.0, -8)).second,
            1.0 + std::ldexp(1.0, -6));
  // tf32 keeps 10 mantissa bits of an f32 pattern.
  auto [bits, value] = ElementCodec(DTypeKind::TF32).encode(1.0 + 1e-4);
  EXPECT_EQ(value, 1.0);
  EXPECT_EQ(bits, 0x3f800000u);
}

TEST(ElementCodec, EveryEncodedValueDecodesBack) {
  for (DTypeKind t : {DTypeKind::F16, DTypeKind::BF16, DTypeKind::E4M3,
                      DTypeKind::E5M2}) {
    ElementCodec codec(t);
    for (double x = -2.0; x <= 2.0; x += 0.0371) {
      auto [bits, value] = codec.encode(x);
      EXPECT_EQ(codec.decode(bits), value) << x;
      // At most one unit in the last place (plus e4m3's subnormal spacing,
      // 2^-9, near zero).
      double ulp = std::ldexp(std::fabs(x), -int(codec.mantissaBits()));
      EXPECT_LE(std::fabs(value - x), ulp + std::ldexp(1.0, -9)) << x;
    }
  }
}

// Against a brute-force reference that knows nothing of exponents: the
// nearest of all decoded finite values of the 8-bit types, ties to the
// even code (mantissa bit 0 clear), on values drawn across the whole range
// and on every midpoint between neighbours (where ties decide).
TEST(ElementCodec, NearestOfAllValuesTiesToEven) {
  for (DTypeKind t : {DTypeKind::E4M3, DTypeKind::E5M2}) {
    ElementCodec codec(t);
    std::vector<std::pair<double, std::uint32_t>> all;
    for (std::uint32_t c = 0; c < 256; ++c) {
      double v = codec.decode(c);
      if (std::isfinite(v) && !(v == 0 && std::signbit(v)))
        all.emplace_back(v, c);
    }
    std::sort(all.begin(), all.end());
    auto nearest = [&](double x) {
      std::pair<double, std::uint32_t> best = all.front();
      for (const auto &e : all) {
        double d = std::fabs(e.first - x), db = std::fabs(best.first - x);
        if (d < db || (d == db && (e.second & 1) == 0))
          best = e;
      }
      return best;
    };
    std::vector<double> xs;
    for (size_t i = 0; i + 1 < all.size(); ++i)
      xs.push_back((all[i].first + all[i + 1].first) / 2);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int i = 0; i < 4000; ++i)
      xs.push_back(u(rng) * codec.largestFinite());
    for (double x : xs) {
      auto want = nearest(x);
      auto [bits, value] = codec.encode(x);
      EXPECT_EQ(value, want.first) << x;
      EXPECT_EQ(bits, want.second) << x;
    }
  }
}

} // namespace
} // namespace tilec
