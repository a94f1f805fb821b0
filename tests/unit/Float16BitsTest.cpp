//===- tests/unit/Float16BitsTest.cpp - Host f16/bf16 conversions ---------===//
//
// The examples of ir/arch/Float16Bits.h, with bit patterns worked out by hand
// from the formats (bf16: 1 sign, 8 exponent, 7 mantissa bits; f16: 1, 5,
// 10).
//
//===----------------------------------------------------------------------===//
#include "ir/arch/Float16Bits.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tilec {
namespace {

float fromBits32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

TEST(Float16Bits, Bf16RoundsToNearestEven) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
  // 1 + 2^-8 lies halfway between 0x3f80 (1) and 0x3f81 (1 + 2^-7): even.
  EXPECT_EQ(floatToBf16(1.00390625f), 0x3f80);
  // 1 + 3 * 2^-8 lies halfway between 0x3f81 and 0x3f82: even.
  EXPECT_EQ(floatToBf16(1.01171875f), 0x3f82);
  // Just above a tie rounds up.
  EXPECT_EQ(floatToBf16(fromBits32(0x3f808001)), 0x3f81);
  EXPECT_EQ(floatToBf16(-2.0f), 0xc000);
  EXPECT_EQ(bf16ToFloat(0x3f82), 1.015625f);
}

TEST(Float16Bits, Bf16KeepsNaNs) {
  // A NaN whose low payload bits would carry into the exponent.
  EXPECT_EQ(floatToBf16(fromBits32(0x7fffffff)), 0x7fc0);
  EXPECT_EQ(floatToBf16(fromBits32(0x7f800001)), 0x7fc0);
  EXPECT_TRUE(std::isnan(bf16ToFloat(Bf16Poison)));
  EXPECT_EQ(floatToBf16(INFINITY), 0x7f80);
}

TEST(Float16Bits, SixteenBitTypes) {
  EXPECT_EQ(floatToBits16(1.0f, DTypeKind::F16), 0x3c00);
  EXPECT_EQ(floatToBits16(-0.5f, DTypeKind::F16), 0xb800);
  EXPECT_EQ(floatToBits16(1.0f, DTypeKind::BF16), 0x3f80);
  EXPECT_EQ(bits16ToFloat(0x3c01, DTypeKind::F16), 1.0f + 1.0f / 1024);
  EXPECT_EQ(bits16ToFloat(0x3f80, DTypeKind::BF16), 1.0f);
}

} // namespace
} // namespace tilec
