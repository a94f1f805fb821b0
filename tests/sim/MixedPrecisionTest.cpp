//===- tests/sim/MixedPrecisionTest.cpp - f32 arithmetic on f16/bf16 ------===//
//
// The mixed-precision forms of PTX ISA 8.6 (sm_100+), which LLVM's NVPTX
// backend selects for an f32 add of a widened bf16 (the sm_100a epilogue's
// bias): add.rn.f32.bf16 d, a, c; sub.rn.f32.f16 d, a, c; fma.rn.f32.bf16
// d, a, b, c. The 16-bit sources are widened exactly, then the f32
// operation rounds once. Checked on random inputs against a reference
// computed here from the bit patterns.
//
//===----------------------------------------------------------------------===//
#include "InterpreterTestUtil.h"

#include <bit>
#include <cmath>
#include <random>

using namespace tilec::sim;
using namespace tilec::sim::test;

namespace {

float fromBf16(std::uint16_t h) {
  return std::bit_cast<float>(std::uint32_t(h) << 16);
}

/// IEEE binary16 to f32, exact (no NaN inputs here).
float fromF16(std::uint16_t h) {
  int exponent = (h >> 10) & 0x1f;
  int mantissa = h & 0x3ff;
  float sign = h & 0x8000 ? -1.0f : 1.0f;
  if (exponent == 0)
    return sign * std::ldexp(float(mantissa), -24);
  return sign * std::ldexp(float(mantissa | 0x400), exponent - 25);
}

TEST(MixedPrecisionTest, AddSubFmaWidenTheHalfSources) {
  std::string ptx = kernelPtx(
      ".param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pout",
      R"(
  .reg .b16 %rs<4>;
  .reg .b32 %r<4>;
  .reg .f32 %f<6>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  ld.param.u64 %rd4, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 2;
  mul.wide.u32 %rd6, %r1, 4;
  mul.wide.u32 %rd7, %r1, 12;
  add.s64 %rd8, %rd1, %rd5;
  add.s64 %rd9, %rd2, %rd5;
  add.s64 %rd10, %rd3, %rd6;
  add.s64 %rd11, %rd4, %rd7;
  ld.global.b16 %rs1, [%rd8];
  ld.global.b16 %rs2, [%rd9];
  ld.global.f32 %f1, [%rd10];
  add.rn.f32.bf16 %f2, %rs1, %f1;
  sub.rn.f32.f16 %f3, %rs2, %f1;
  fma.rn.f32.bf16 %f4, %rs1, %rs1, %f1;
  st.global.f32 [%rd11], %f2;
  st.global.f32 [%rd11+4], %f3;
  st.global.f32 [%rd11+8], %f4;
  ret;)");
  auto m = loadOrFail(ptx);
  ASSERT_TRUE(m);
  const unsigned n = 128;
  DeviceBuffer a(n * 2), h(n * 2), c(n * 4), out(n * 12);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-8.0f, 8.0f);
  for (unsigned i = 0; i < n; ++i) {
    a.as<std::uint16_t>()[i] =
        static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(dist(rng)) >> 16);
    // Normal f16 values of both signs and subnormals.
    h.as<std::uint16_t>()[i] = static_cast<std::uint16_t>(rng() & 0xfbff);
    c.as<float>()[i] = dist(rng);
  }
  for (unsigned i = 0; i < n * 3; ++i)
    out.as<float>()[i] = std::nanf("");
  std::uint64_t pa = a.address, pb = h.address, pc = c.address,
                po = out.address;
  SimLaunchResult r = launch(*m, 1, n, {&pa, &pb, &pc, &po});
  ASSERT_FALSE(r.error) << *r.error;
  unsigned wrong = 0;
  for (unsigned i = 0; i < n; ++i) {
    float x = fromBf16(a.as<std::uint16_t>()[i]);
    float y = fromF16(h.as<std::uint16_t>()[i]);
    float z = c.as<float>()[i];
    const float *got = out.as<float>() + 3 * i;
    wrong += got[0] != x + z;
    wrong += got[1] != y - z;
    wrong += got[2] != std::fma(x, x, z);
  }
  EXPECT_EQ(wrong, 0u) << "of " << 3 * n;
}

} // namespace
