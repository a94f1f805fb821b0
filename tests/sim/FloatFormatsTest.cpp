//===- tests/sim/FloatFormatsTest.cpp - f16/bf16/tf32/e4m3/e5m2 conversions
//-===//
//
// Every code of each narrow format is decoded against the format's definition
// ((-1)^s 2^(e - bias) 1.m, subnormals 2^(1 - bias) 0.m), and encoding is
// checked against a brute-force nearest search over all finite codes (ties to
// the even mantissa), on random inputs and on the boundary values of the
// PTX ISA / OCP FP8 tables.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/FloatFormats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace tilec::sim;

namespace {

struct Fmt {
  ElemKind kind;
  int e, m;
  bool ieeeSpecials; // exponent all ones = inf/NaN
};

const Fmt Formats[] = {{ElemKind::F16, 5, 10, true},
                       {ElemKind::BF16, 8, 7, true},
                       {ElemKind::E4M3, 4, 3, false},
                       {ElemKind::E5M2, 5, 2, true}};

/// The value of \p code by the format definition; NaN for NaN codes.
double reference(const Fmt &f, unsigned code) {
  int bias = (1 << (f.e - 1)) - 1;
  unsigned s = code >> (f.e + f.m), e = (code >> f.m) & ((1u << f.e) - 1),
           m = code & ((1u << f.m) - 1);
  double v;
  if (f.ieeeSpecials && e == (1u << f.e) - 1)
    v = m ? NAN : INFINITY;
  else if (!f.ieeeSpecials && e == (1u << f.e) - 1 && m == (1u << f.m) - 1)
    v = NAN;
  else if (e == 0)
    v = std::pow(2.0, 1 - bias) * (double(m) / (1 << f.m));
  else
    v = std::pow(2.0, int(e) - bias) * (1 + double(m) / (1 << f.m));
  return s ? -v : v;
}

float bitsToFloat(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

} // namespace

TEST(FloatFormats, DecodeEveryCode) {
  for (const Fmt &f : Formats) {
    unsigned n = 1u << (1 + f.e + f.m);
    for (unsigned code = 0; code < n; ++code) {
      double want = reference(f, code);
      float got = decodeElem(f.kind, code);
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(got)) << elemName(f.kind) << " " << code;
      else
        EXPECT_EQ(double(got), want) << elemName(f.kind) << " " << code;
    }
  }
}

TEST(FloatFormats, KnownValues) {
  EXPECT_EQ(encodeElem(ElemKind::F16, 1.0f), 0x3c00u);
  EXPECT_EQ(encodeElem(ElemKind::F16, 65504.0f), 0x7bffu);
  EXPECT_EQ(encodeElem(ElemKind::F16, 65519.0f), 0x7bffu);
  EXPECT_EQ(encodeElem(ElemKind::F16, 65520.0f), 0x7c00u); // tie -> inf
  EXPECT_EQ(encodeElem(ElemKind::F16, 65520.0f, true), 0x7bffu);
  EXPECT_EQ(encodeElem(ElemKind::F16, -INFINITY, true), 0xfbffu);
  EXPECT_EQ(encodeElem(ElemKind::F16, std::ldexp(1.0f, -24)), 0x0001u);
  EXPECT_EQ(encodeElem(ElemKind::F16, std::ldexp(1.0f, -25)), 0x0000u);
  EXPECT_EQ(encodeElem(ElemKind::F16, std::ldexp(3.0f, -26)), 0x0001u);
  EXPECT_EQ(encodeElem(ElemKind::BF16, 1.0f + std::ldexp(1.0f, -8)), 0x3f80u);
  EXPECT_EQ(encodeElem(ElemKind::BF16, 1.0f + std::ldexp(3.0f, -8)), 0x3f82u);
  EXPECT_EQ(encodeElem(ElemKind::BF16, -2.0f), 0xc000u);
  EXPECT_EQ(encodeElem(ElemKind::E4M3, 448.0f), 0x7eu);
  EXPECT_EQ(encodeElem(ElemKind::E4M3, 464.0f, true), 0x7eu); // tie -> even
  EXPECT_EQ(encodeElem(ElemKind::E4M3, 500.0f, true), 0x7eu);
  EXPECT_EQ(encodeElem(ElemKind::E4M3, -1e6f, true), 0xfeu);
  EXPECT_EQ(encodeElem(ElemKind::E4M3, 500.0f), 0x7fu); // no inf: NaN
  EXPECT_EQ(encodeElem(ElemKind::E4M3, std::ldexp(1.0f, -9)), 0x01u);
  EXPECT_EQ(encodeElem(ElemKind::E4M3, 1.0f), 0x38u);
  EXPECT_EQ(encodeElem(ElemKind::E5M2, 57344.0f), 0x7bu);
  EXPECT_EQ(encodeElem(ElemKind::E5M2, 61440.0f), 0x7cu);
  EXPECT_EQ(encodeElem(ElemKind::E5M2, 61440.0f, true), 0x7bu);
  EXPECT_EQ(encodeElem(ElemKind::E5M2, std::ldexp(1.0f, -16)), 0x01u);
  EXPECT_EQ(encodeElem(ElemKind::E5M2, 1.0f), 0x3cu);
  EXPECT_TRUE(
      std::isnan(decodeElem(ElemKind::F16, encodeElem(ElemKind::F16, NAN))));
  EXPECT_TRUE(std::isnan(
      decodeElem(ElemKind::E4M3, encodeElem(ElemKind::E4M3, NAN, true))));
  // tf32: 10 mantissa bits; the tensor core ignores the low 13 bits.
  EXPECT_EQ(decodeElem(ElemKind::TF32, 0x3f801fffu), 1.0f);
  EXPECT_EQ(encodeElem(ElemKind::TF32, bitsToFloat(0x3f801000u)),
            0x3f800000u); // tie -> even
  EXPECT_EQ(encodeElem(ElemKind::TF32, bitsToFloat(0x3f803000u)),
            0x3f804000u); // tie -> even (up)
  EXPECT_EQ(encodeTf32RoundAway(bitsToFloat(0x3f801000u)), 0x3f802000u);
}

TEST(FloatFormats, EncodeMatchesNearestSearch) {
  std::mt19937 rng(12345);
  for (const Fmt &f : Formats) {
    // All finite codes with their values.
    std::vector<std::pair<double, unsigned>> finite;
    unsigned n = 1u << (1 + f.e + f.m);
    double maxFinite = 0;
    for (unsigned code = 0; code < n; ++code) {
      double v = reference(f, code);
      if (std::isfinite(v)) {
        finite.push_back({v, code});
        maxFinite = std::max(maxFinite, v);
      }
    }
    std::uniform_real_distribution<double> logMag(-26, std::log2(maxFinite));
    for (int i = 0; i < 2000; ++i) {
      float x = float(std::exp2(logMag(rng)) * (rng() & 1 ? -1 : 1));
      if (i % 10 == 0) // exact midpoints between neighbours
        x = float((finite[rng() % finite.size()].first +
                   finite[rng() % finite.size()].first) /
                  2);
      // Brute force: the nearest finite value, ties to even mantissa.
      double best = INFINITY;
      unsigned bestCode = 0;
      for (auto [v, code] : finite) {
        double dist = std::fabs(v - double(x));
        bool sameSign = std::signbit(v) == std::signbit(x);
        if (dist < best || (dist == best && sameSign && (code & 1) == 0 &&
                            reference(f, bestCode) != v)) {
          best = dist;
          bestCode = code;
        }
      }
      // Skip values in the overflow region (checked in KnownValues).
      if (std::fabs(double(x)) > maxFinite)
        continue;
      std::uint32_t got = encodeElem(f.kind, x, true);
      EXPECT_EQ(reference(f, got), reference(f, bestCode))
          << elemName(f.kind) << " x=" << x;
    }
  }
}
