//===- tests/sim/EpilogueInstructionsTest.cpp - tanh.approx, max.NaN ------===//
//
// The instructions the epilogue ops select (codegen/EpilogueMath.cpp):
// gelu_tanh's tanh.approx.f32 (sm_75+, modelled by the host's tanh, as the
// other .approx functions are), relu's and clamp's max.NaN.f32 and
// min.NaN.f32 (sm_80+: a NaN input gives NaN, where plain max gives the
// other input).
//
//===----------------------------------------------------------------------===//
#include "InterpreterTestUtil.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <string>

using namespace tilec::sim;
using namespace tilec::sim::test;

namespace {

/// "0fXXXXXXXX", \p v as a PTX f32 immediate.
std::string immediate(float v) {
  char text[16];
  std::snprintf(text, sizeof text, "0f%08X", std::bit_cast<std::uint32_t>(v));
  return text;
}

TEST(EpilogueInstructionsTest, TanhApproxAndNanMinMax) {
  const float in[] = {-3.0f, -0.25f, 0.0f, 0.375f, 2.0f, 9.0f, std::nanf("")};
  const unsigned n = sizeof(in) / sizeof(in[0]);
  // One thread; input i is an immediate, its four results at out + 16 i.
  std::string body = R"(
  .reg .f32 %f<6>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [pout];
)";
  for (unsigned i = 0; i < n; ++i) {
    auto at = [&](unsigned k) {
      return "[%rd1+" + std::to_string(16 * i + 4 * k) + "]";
    };
    body += "  mov.b32 %f1, " + immediate(in[i]) + ";\n" +
            "  tanh.approx.f32 %f2, %f1;\n"
            "  max.NaN.f32 %f3, %f1, 0f00000000;\n"
            "  min.NaN.f32 %f4, %f1, 0f3F000000;\n"
            "  max.f32 %f5, %f1, 0f00000000;\n";
    for (unsigned k = 0; k < 4; ++k)
      body +=
          "  st.global.f32 " + at(k) + ", %f" + std::to_string(k + 2) + ";\n";
  }
  body += "  ret;";
  auto m = loadOrFail(kernelPtx(".param .u64 pout", body));
  ASSERT_TRUE(m);
  DeviceBuffer out(n * 16);
  std::uint64_t po = out.address;
  SimLaunchResult r = launch(*m, 1, 1, {&po});
  ASSERT_FALSE(r.error) << *r.error;
  for (unsigned i = 0; i + 1 < n; ++i) {
    const float *got = out.as<float>() + 4 * i;
    EXPECT_EQ(got[0], std::tanh(in[i])) << in[i];
    EXPECT_EQ(got[1], std::fmax(in[i], 0.0f)) << in[i];
    EXPECT_EQ(got[2], std::fmin(in[i], 0.5f)) << in[i];
    EXPECT_EQ(got[3], std::fmax(in[i], 0.0f)) << in[i];
  }
  // NaN: tanh and the .NaN forms give NaN, plain max the other input.
  const float *nan = out.as<float>() + 4 * (n - 1);
  EXPECT_TRUE(std::isnan(nan[0]));
  EXPECT_TRUE(std::isnan(nan[1]));
  EXPECT_TRUE(std::isnan(nan[2]));
  EXPECT_EQ(nan[3], 0.0f);
}

// Packed halves (the 4-bit weight dequantization, codegen/Sm80WeightDequant):
// each half of fma.rn.{bf16x2,f16x2} is rounded once. Expected bits are
// worked out by hand from the formats (bf16: 8 significant bits, f16: 11).
TEST(EpilogueInstructionsTest, PackedHalfFmaRoundsOnce) {
  struct Case {
    const char *type;
    std::uint32_t a, b, c, want;
    const char *why;
  };
  const Case cases[] = {
      // The magic-number step: (128 + 5, 128 + 9) * 1 - (128 + 3) = (2, 6).
      {"bf16x2", 0x43094305, 0x3F803F80, 0xC303C303, 0x40C04000,
       "bf16 (133, 137) - 131 = (2, 6)"},
      // 3 * 0.1 (bf16 0x3DCD = 0.10009765625): 0.30029296875 rounds to
      // bf16 0x3E9A (0.30078125), once, in both halves; -0 added.
      {"bf16x2", 0x40404040, 0x3DCD3DCD, 0x80008000, 0x3E9A3E9A,
       "bf16 3 * 0.1"},
      // 1 * 1 + 2^-8 (0x3B80) is exactly bf16's tie between 1 and
      // 1 + 2^-7: ties to even, 1.0.
      {"bf16x2", 0x3F803F80, 0x3F803F80, 0x3B803B80, 0x3F803F80,
       "bf16 1 + 2^-8 ties to even"},
      // f16: (1024 + 15) * 1 - (1024 + 8) = 7; then 7 * 0.5 = 3.5.
      {"f16x2", 0x640F640F, 0x3C003C00, 0xE408E408, 0x47004700,
       "f16 1039 - 1032 = 7"},
      {"f16x2", 0x47003C00, 0x38003800, 0x80008000, 0x43003800,
       "f16 (1, 7) * 0.5 = (0.5, 3.5)"},
  };
  std::string body = R"(
  .reg .b32 %r<5>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [pout];
)";
  unsigned i = 0;
  for (const Case &c : cases) {
    body += "  mov.b32 %r1, " + std::to_string(c.a) + ";\n" +
            "  mov.b32 %r2, " + std::to_string(c.b) + ";\n" +
            "  mov.b32 %r3, " + std::to_string(c.c) + ";\n" + "  fma.rn." +
            c.type + " %r4, %r1, %r2, %r3;\n" + "  st.global.b32 [%rd1+" +
            std::to_string(4 * i++) + "], %r4;\n";
  }
  body += "  ret;";
  auto m = loadOrFail(kernelPtx(".param .u64 pout", body));
  ASSERT_TRUE(m);
  DeviceBuffer out(4 * i);
  std::uint64_t po = out.address;
  SimLaunchResult r = launch(*m, 1, 1, {&po});
  ASSERT_FALSE(r.error) << *r.error;
  i = 0;
  for (const Case &c : cases)
    EXPECT_EQ(out.as<std::uint32_t>()[i++], c.want) << c.why;
}

} // namespace
