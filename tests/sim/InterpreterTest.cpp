//===- tests/sim/InterpreterTest.cpp - Small PTX kernels in the simulator -===//
//
// Hand-written kernels run through simLaunch, each result checked against a
// reference computed here from the PTX ISA's definition of the instruction.
//
//===----------------------------------------------------------------------===//
#include "InterpreterTestUtil.h"

#include <fmt/format.h>

#include <bit>
#include <random>

using namespace tilec::sim;
using namespace tilec::sim::test;

namespace {

/// f32 -> bf16 round to nearest even, from the bit pattern (not NaN).
std::uint16_t bf16Rne(float f) {
  std::uint32_t b = std::bit_cast<std::uint32_t>(f);
  return static_cast<std::uint16_t>((b + 0x7fff + ((b >> 16) & 1)) >> 16);
}

TEST(InterpreterTest, ArithmeticAndBf16Rounding) {
  std::string ptx =
      kernelPtx(".param .u64 pin, .param .u64 pout, .param .u64 pint",
                R"(
  .reg .pred %p<2>;
  .reg .b16 %rs<2>;
  .reg .b32 %r<10>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  ld.param.u64 %rd3, [pint];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.f32 %f1, [%rd5];
  cvt.rn.bf16.f32 %rs1, %f1;
  mul.wide.u32 %rd6, %r1, 2;
  add.s64 %rd7, %rd2, %rd6;
  st.global.b16 [%rd7], %rs1;
  mul.lo.s32 %r2, %r1, 3;
  sub.s32 %r3, %r2, 50;
  shr.s32 %r4, %r3, 1;
  div.s32 %r5, %r4, 3;
  rem.u32 %r6, %r1, 7;
  add.s32 %r7, %r5, %r6;
  bfe.u32 %r8, %r1, 2, 3;
  shl.b32 %r8, %r8, 16;
  xor.b32 %r7, %r7, %r8;
  add.s64 %rd8, %rd3, %rd4;
  st.global.b32 [%rd8], %r7;
  ret;)");
  auto m = loadOrFail(ptx);
  ASSERT_TRUE(m);
  const unsigned n = 64;
  DeviceBuffer in(n * 4), out(n * 2), ints(n * 4);
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  for (unsigned i = 0; i < n; ++i) {
    float f = dist(rng);
    if (i % 4 == 0) {
      // An exact tie: the low 16 bits are 0x8000 (odd and even upper halves).
      std::uint32_t b =
          (std::bit_cast<std::uint32_t>(f) & 0xffff0000u) | 0x8000u;
      f = std::bit_cast<float>(b);
    }
    in.as<float>()[i] = f;
  }
  std::uint64_t a = in.address, b = out.address, c = ints.address;
  SimLaunchResult r = launch(*m, 1, n, {&a, &b, &c});
  ASSERT_FALSE(r.error) << *r.error;
  for (unsigned i = 0; i < n; ++i) {
    EXPECT_EQ(out.as<std::uint16_t>()[i], bf16Rne(in.as<float>()[i]))
        << "element " << i;
    std::int32_t t = static_cast<std::int32_t>(i);
    std::int32_t want = (((t * 3 - 50) >> 1) / 3 + t % 7) ^
                        static_cast<std::int32_t>(((i >> 2) & 7) << 16);
    EXPECT_EQ(ints.as<std::int32_t>()[i], want) << "thread " << i;
  }
  EXPECT_GT(r.warpInstructions, 0u);
}

TEST(InterpreterTest, Lop3EvaluatesItsTruthTable) {
  // d = F(a, b, c) bit by bit for three tables: (a & b) | c (0xEA), a ^ b ^
  // c (0x96) and the majority (0xE8), a per thread, b and c immediates.
  std::string ptx = kernelPtx(".param .u64 pin, .param .u64 pout", R"(
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.b32 %r2, [%rd4];
  lop3.b32 %r3, %r2, 983055, 1124090624, 0xEA;
  lop3.b32 %r4, %r2, -1431655766, 1515870810, 150;
  lop3.b32 %r5, %r2, 16711935, 252645135, 232;
  mul.wide.u32 %rd5, %r1, 12;
  add.s64 %rd6, %rd2, %rd5;
  st.global.b32 [%rd6], %r3;
  st.global.b32 [%rd6+4], %r4;
  st.global.b32 [%rd6+8], %r5;
  ret;)");
  auto m = loadOrFail(ptx);
  ASSERT_TRUE(m);
  const unsigned n = 64;
  DeviceBuffer in(n * 4), out(n * 12);
  std::mt19937 rng(77);
  for (unsigned i = 0; i < n; ++i)
    in.as<std::uint32_t>()[i] = static_cast<std::uint32_t>(rng());
  std::uint64_t a = in.address, b = out.address;
  SimLaunchResult r = launch(*m, 1, n, {&a, &b});
  ASSERT_FALSE(r.error) << *r.error;
  for (unsigned i = 0; i < n; ++i) {
    std::uint32_t x = in.as<std::uint32_t>()[i];
    const std::uint32_t *d = out.as<std::uint32_t>() + 3 * i;
    EXPECT_EQ(d[0], (x & 0x000F000Fu) | 0x43004300u) << i;
    EXPECT_EQ(d[1], x ^ 0xAAAAAAAAu ^ 0x5A5A5A5Au) << i;
    std::uint32_t p = 0x00FF00FFu, q = 0x0F0F0F0Fu;
    EXPECT_EQ(d[2], (x & p) | (x & q) | (p & q)) << i;
  }
}

TEST(InterpreterTest, DivergentLoopsAndNestedIfsReconverge) {
  std::string ptx = kernelPtx(".param .u64 pout", R"(
  .reg .pred %p<4>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 5;
  add.s32 %r2, %r2, 1;
  mov.u32 %r3, 0;
  mov.u32 %r4, 0;
$L_loop:
  add.s32 %r3, %r3, %r4;
  add.s32 %r4, %r4, 1;
  setp.lt.u32 %p1, %r4, %r2;
  @%p1 bra $L_loop;
  and.b32 %r5, %r1, 1;
  setp.eq.u32 %p2, %r5, 0;
  @%p2 bra $L_skip;
  add.s32 %r3, %r3, 100;
  and.b32 %r6, %r1, 3;
  setp.ne.u32 %p3, %r6, 3;
  @%p3 bra $L_skip;
  add.s32 %r3, %r3, 1000;
$L_skip:
  activemask.b32 %r7;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.b32 [%rd3], {%r3, %r7};
  ret;)");
  auto m = loadOrFail(ptx);
  ASSERT_TRUE(m);
  const unsigned n = 64;
  DeviceBuffer out(n * 8);
  std::uint64_t a = out.address;
  for (std::uint64_t seed : {0ull, 3ull}) {
    SimLaunchResult r = launch(*m, 1, n, {&a}, 0, 1, seed);
    ASSERT_FALSE(r.error) << *r.error;
    for (unsigned t = 0; t < n; ++t) {
      unsigned trips = t % 5 + 1;
      unsigned want = trips * (trips - 1) / 2;
      if (t & 1)
        want += 100;
      if ((t & 3) == 3)
        want += 1000;
      EXPECT_EQ(out.as<std::uint32_t>()[2 * t], want) << "thread " << t;
      EXPECT_EQ(out.as<std::uint32_t>()[2 * t + 1], 0xffffffffu)
          << "thread " << t << " did not reconverge";
    }
  }
}

TEST(InterpreterTest, NamedBarriersWithThreadCounts) {
  std::string ptx = kernelPtx(".param .u64 pout", R"(
  .reg .b32 %r<10>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  mov.u32 %r9, smem;
  shl.b32 %r2, %r1, 2;
  add.s32 %r3, %r9, %r2;
  mul.lo.s32 %r4, %r1, 7;
  st.shared.b32 [%r3], %r4;
  shr.u32 %r5, %r1, 6;
  add.s32 %r5, %r5, 1;
  bar.sync %r5, 64;
  xor.b32 %r6, %r1, 32;
  shl.b32 %r6, %r6, 2;
  add.s32 %r6, %r9, %r6;
  ld.shared.b32 %r7, [%r6];
  bar.sync 0;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.b32 [%rd3], %r7;
  ret;)");
  auto m = loadOrFail(ptx);
  ASSERT_TRUE(m);
  DeviceBuffer out(128 * 4);
  std::uint64_t a = out.address;
  for (std::uint64_t seed : {0ull, 1ull, 99ull}) {
    std::memset(out.as<void>(), 0, out.bytes);
    SimLaunchResult r = launch(*m, 1, 128, {&a}, 512, 1, seed);
    ASSERT_FALSE(r.error) << *r.error;
    for (unsigned t = 0; t < 128; ++t)
      EXPECT_EQ(out.as<std::uint32_t>()[t], (t ^ 32) * 7) << "thread " << t;
  }
}

/// A producer warp and a consumer warp through a 2-slot ring guarded by
/// full / empty mbarriers (the pattern of tilec's sm_90a pipelines).
std::string ringPtx(bool producerArrives) {
  std::string arrive =
      producerArrives ? "mbarrier.arrive.shared::cta.b64 _, [%r20];" : "";
  return kernelPtx(".param .u64 pout, .param .u32 pn", R"(
  .reg .pred %p<6>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [pout];
  ld.param.u32 %r30, [pn];
  mov.u32 %r1, %tid.x;
  mov.u32 %r9, smem;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_init_done;
  mbarrier.init.shared::cta.b64 [%r9], 1;
  add.s32 %r2, %r9, 8;
  mbarrier.init.shared::cta.b64 [%r2], 1;
  add.s32 %r2, %r9, 16;
  mbarrier.init.shared::cta.b64 [%r2], 1;
  add.s32 %r2, %r9, 24;
  mbarrier.init.shared::cta.b64 [%r2], 1;
  fence.mbarrier_init.release.cluster;
$L_init_done:
  bar.sync 0;
  and.b32 %r3, %r1, 31;
  setp.ne.u32 %p2, %r3, 0;
  @%p2 bra $L_end;
  mov.u32 %r10, 0;
  mov.u32 %r11, 0;
  setp.ne.u32 %p3, %r1, 0;
  @%p3 bra $L_consumer;
$L_produce:
  and.b32 %r12, %r10, 1;
  shr.u32 %r13, %r10, 1;
  and.b32 %r13, %r13, 1;
  xor.b32 %r14, %r13, 1;
  shl.b32 %r15, %r12, 3;
  add.s32 %r16, %r9, %r15;
  add.s32 %r17, %r16, 16;
$L_wait_empty:
  {
  .reg .pred p;
  mbarrier.try_wait.parity.shared::cta.b64 p, [%r17], %r14;
  @!p bra $L_wait_empty;
  }
  mul.lo.s32 %r18, %r10, %r10;
  add.s32 %r18, %r18, 1;
  shl.b32 %r19, %r12, 2;
  add.s32 %r19, %r19, %r9;
  add.s32 %r19, %r19, 64;
  st.shared.b32 [%r19], %r18;
  mov.u32 %r20, %r16;
  )" + arrive + R"(
  add.s32 %r10, %r10, 1;
  setp.lt.u32 %p4, %r10, %r30;
  @%p4 bra $L_produce;
  bra.uni $L_end;
$L_consumer:
  and.b32 %r12, %r10, 1;
  shr.u32 %r13, %r10, 1;
  and.b32 %r13, %r13, 1;
  shl.b32 %r15, %r12, 3;
  add.s32 %r16, %r9, %r15;
$L_wait_full:
  mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r16], %r13;
  @!%p5 bra $L_wait_full;
  shl.b32 %r19, %r12, 2;
  add.s32 %r19, %r19, %r9;
  add.s32 %r19, %r19, 64;
  ld.shared.b32 %r18, [%r19];
  add.s32 %r11, %r11, %r18;
  add.s32 %r17, %r16, 16;
  mbarrier.arrive.shared::cta.b64 _, [%r17];
  add.s32 %r10, %r10, 1;
  setp.lt.u32 %p4, %r10, %r30;
  @%p4 bra $L_consumer;
  st.global.b32 [%rd1], %r11;
$L_end:
  ret;)");
}

TEST(InterpreterTest, MbarrierProducerConsumerRing) {
  auto m = loadOrFail(ringPtx(true));
  ASSERT_TRUE(m);
  DeviceBuffer out(4);
  std::uint64_t a = out.address;
  std::uint32_t n = 13;
  std::uint32_t want = 0;
  for (std::uint32_t i = 0; i < n; ++i)
    want += i * i + 1;
  for (std::uint64_t seed : {0ull, 5ull, 77ull}) {
    out.as<std::uint32_t>()[0] = 0;
    SimLaunchResult r = launch(*m, 1, 64, {&a, &n}, 256, 1, seed);
    ASSERT_FALSE(r.error) << *r.error;
    EXPECT_EQ(out.as<std::uint32_t>()[0], want) << "seed " << seed;
  }
}

TEST(InterpreterTest, DeadlockListsWarpsAndMbarriers) {
  auto m = loadOrFail(ringPtx(false));
  ASSERT_TRUE(m);
  DeviceBuffer out(4);
  std::uint64_t a = out.address;
  std::uint32_t n = 4;
  SimLaunchResult r = launch(*m, 1, 64, {&a, &n}, 256);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("deadlock"), std::string::npos) << *r.error;
  EXPECT_NE(r.error->find("mbarrier.try_wait.parity.shared::cta.b64 %p5"),
            std::string::npos)
      << *r.error;
  EXPECT_NE(r.error->find("mbarrier at shared 0x0: phase 0, 1 of 1 arrivals "
                          "pending"),
            std::string::npos)
      << *r.error;
  EXPECT_NE(r.error->find("warp 1: ptx:"), std::string::npos) << *r.error;
}

TEST(InterpreterTest, OutOfBoundsGlobalStoreNamesAddressAndLine) {
  std::string ptx = kernelPtx(".param .u64 pout", R"(
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 64;
  add.s64 %rd3, %rd1, %rd2;
  st.global.b32 [%rd3], %r1;
  ret;)");
  auto m = loadOrFail(ptx);
  ASSERT_TRUE(m);
  DeviceBuffer out(256);
  std::uint64_t a = out.address;
  SimLaunchResult r = launch(*m, 1, 32, {&a});
  ASSERT_TRUE(r.error);
  // Lane 4 is the first whose 4 bytes at 256 are past the allocation.
  EXPECT_NE(r.error->find("CTA (0,0,0) warp 0 lane 4, ptx:14 "
                          "`st.global.b32 [%rd3], %r1;`"),
            std::string::npos)
      << *r.error;
  std::string addr = fmt::format("{:x}", a + 256);
  EXPECT_NE(r.error->find(addr), std::string::npos) << *r.error;
}

TEST(InterpreterTest, PartialWarpCollectiveIsReported) {
  std::string ptx = kernelPtx("", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra $L_skip;
  mov.u32 %r2, 0;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r3, %r4, %r5, %r6}, [%r2];
$L_skip:
  ret;)");
  auto m = loadOrFail(ptx);
  ASSERT_TRUE(m);
  SimLaunchResult r = launch(*m, 1, 32, {}, 1024);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("partial warp (mask 0xffff0000"), std::string::npos)
      << *r.error;
  EXPECT_NE(r.error->find("ptx:14"), std::string::npos) << *r.error;
}

TEST(InterpreterTest, UnwrittenSharedReadIsReported) {
  std::string ptx = kernelPtx(".param .u64 pout", R"(
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  st.shared.b32 [%r2], %r1;
  ld.shared.b32 %r3, [%r2+128];
  st.global.b32 [%rd1], %r3;
  ret;)");
  auto m = loadOrFail(ptx);
  ASSERT_TRUE(m);
  DeviceBuffer out(4);
  std::uint64_t a = out.address;
  SimLaunchResult r = launch(*m, 1, 32, {&a}, 1024);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("ld.shared.b32 %r3, [%r2+128];"), std::string::npos)
      << *r.error;
  EXPECT_NE(r.error->find("lane 0"), std::string::npos) << *r.error;
}

TEST(InterpreterTest, CpAsyncZeroFillsPastSrcSize) {
  std::string ptx = kernelPtx(".param .u64 pin, .param .u64 pout", R"(
  .reg .b32 %r<12>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 17;
  shl.b32 %r3, %r1, 4;
  cvt.u64.u32 %rd3, %r3;
  add.s64 %rd4, %rd1, %rd3;
  cp.async.cg.shared.global [%r3], [%rd4], 16, %r2;
  cp.async.commit_group;
  cp.async.wait_group 0;
  ld.shared.v4.b32 {%r4, %r5, %r6, %r7}, [%r3];
  add.s64 %rd5, %rd2, %rd3;
  st.global.v4.b32 [%rd5], {%r4, %r5, %r6, %r7};
  ret;)");
  auto m = loadOrFail(ptx);
  ASSERT_TRUE(m);
  DeviceBuffer in(512), out(512);
  std::mt19937 rng(7);
  for (unsigned i = 0; i < 512; ++i)
    in.as<std::uint8_t>()[i] = static_cast<std::uint8_t>(rng() | 1);
  std::uint64_t a = in.address, b = out.address;
  for (std::uint64_t seed : {0ull, 9ull}) {
    SimLaunchResult r = launch(*m, 1, 32, {&a, &b}, 512, 1, seed);
    ASSERT_FALSE(r.error) << *r.error;
    for (unsigned t = 0; t < 32; ++t)
      for (unsigned k = 0; k < 16; ++k) {
        std::uint8_t want = k < t % 17 ? in.as<std::uint8_t>()[t * 16 + k] : 0;
        EXPECT_EQ(out.as<std::uint8_t>()[t * 16 + k], want)
            << "thread " << t << " byte " << k;
      }
  }
}

TEST(InterpreterTest, DistributedSharedMemoryThroughMapa) {
  std::string ptx = kernelPtx(".param .u64 pout", R"(
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mul.lo.s32 %r3, %r2, 1000;
  add.s32 %r3, %r3, %r1;
  shl.b32 %r4, %r1, 2;
  st.shared.b32 [%r4], %r3;
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  xor.b32 %r5, %r2, 1;
  mapa.shared::cluster.u32 %r6, %r4, %r5;
  ld.shared::cluster.b32 %r7, [%r6];
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  shl.b32 %r8, %r2, 5;
  add.s32 %r8, %r8, %r1;
  mul.wide.u32 %rd2, %r8, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.b32 [%rd3], %r7;
  ret;)");
  auto m = loadOrFail(ptx);
  ASSERT_TRUE(m);
  DeviceBuffer out(64 * 4);
  std::uint64_t a = out.address;
  for (std::uint64_t seed : {0ull, 4ull}) {
    SimLaunchResult r = launch(*m, 2, 32, {&a}, 256, 2, seed);
    ASSERT_FALSE(r.error) << *r.error;
    for (unsigned rank = 0; rank < 2; ++rank)
      for (unsigned t = 0; t < 32; ++t)
        EXPECT_EQ(out.as<std::uint32_t>()[rank * 32 + t],
                  (rank ^ 1) * 1000 + t);
  }
}

TEST(InterpreterTest, SetmaxnregChecksItsCount) {
  std::string ptx = kernelPtx("", R"(
  setmaxnreg.inc.sync.aligned.u32 100;
  ret;)");
  auto m = loadOrFail(ptx);
  ASSERT_TRUE(m);
  SimLaunchResult r = launch(*m, 1, 128, {});
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("setmaxnreg count 100 is not a multiple of 8"),
            std::string::npos)
      << *r.error;
}

} // namespace

// NVIDIA-generated kernels (CUTLASS's, issue 31) declare __assertfail and
// call it on their failed-assert paths, followed by brkpt, and use
// bar.warp.sync: the module loads, a path that does not take the call runs,
// and one that does stops with the call named.
TEST(InterpreterTest, DeviceAssertPathsLoadAndStopTheKernelIfTaken) {
  std::string ptx =
      ".version 8.0\n.target sm_90a\n.address_size 64\n"
      ".extern .func __assertfail\n(\n\t.param .b64 __assertfail_param_0,\n"
      "\t.param .b32 __assertfail_param_1\n)\n;\n"
      ".visible .entry k(.param .u64 pout, .param .u32 pfail)\n{\n" +
      std::string(R"(
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pout];
  ld.param.u32 %r1, [pfail];
  bar.warp.sync -1;
  setp.ne.u32 %p1, %r1, 0;
  @!%p1 bra $L_ok;
  {
  .reg .b32 temp_param_reg;
  .param .b64 param0;
  st.param.b64 [param0], %rd1;
  .param .b32 param1;
  st.param.b32 [param1], %r1;
  call.uni
  __assertfail,
  (
  param0,
  param1
  );
  }
  brkpt;
$L_ok:
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.b32 [%rd3], %r2;
  ret;
}
)");
  std::unique_ptr<SimModule> m = test::loadOrFail(ptx);
  ASSERT_TRUE(m);
  test::DeviceBuffer out(32 * 4);
  for (std::uint32_t fail : {0u, 1u}) {
    std::memset(out.as<std::uint32_t>(), 0xff, out.bytes);
    std::uint64_t address = out.address;
    std::vector<void *> params = {&address, &fail};
    SimLaunchResult r = test::launch(*m, 1, 32, params);
    if (!fail) {
      ASSERT_FALSE(r.error) << *r.error;
      for (std::uint32_t i = 0; i < 32; ++i)
        EXPECT_EQ(out.as<std::uint32_t>()[i], i);
    } else {
      ASSERT_TRUE(r.error);
      EXPECT_NE(r.error->find("__assertfail"), std::string::npos) << *r.error;
      EXPECT_NE(r.error->find("call.uni"), std::string::npos) << *r.error;
    }
  }
}

// cp.async.mbarrier.arrive.noinc (CUTLASS's Hopper blockwise-scaled GEMM
// loads its scales so): each of 32 threads copies 16 bytes into shared
// memory and arrives on an mbarrier expecting 32 arrivals once its copies
// land; after the phase completes every copy is there (under seeds too).
TEST(InterpreterTest, CpAsyncMbarrierArriveNoincWaitsForTheCopies) {
  std::string ptx = kernelPtx(".param .u64 pin, .param .u64 pout", R"(
  .reg .pred %p<3>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mov.u32 %r9, smem;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_init_done;
  mbarrier.init.shared::cta.b64 [%r9], 32;
$L_init_done:
  bar.sync 0;
  shl.b32 %r2, %r1, 4;
  add.s32 %r3, %r9, 64;
  add.s32 %r4, %r3, %r2;
  mul.wide.u32 %rd3, %r2, 1;
  add.s64 %rd4, %rd1, %rd3;
  cp.async.cg.shared.global [%r4], [%rd4], 16;
  cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r9];
  mov.u32 %r5, 0;
$L_wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r9], %r5;
  @!%p2 bra $L_wait;
  xor.b32 %r6, %r1, 1;
  shl.b32 %r7, %r6, 4;
  add.s32 %r8, %r3, %r7;
  ld.shared.b32 %r10, [%r8];
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.b32 [%rd6], %r10;
  ret;
)");
  auto m = loadOrFail(ptx);
  ASSERT_TRUE(m);
  DeviceBuffer in(32 * 16), out(32 * 4);
  for (std::uint32_t i = 0; i < 32 * 4; ++i)
    in.as<std::uint32_t>()[i] = 1000 + i;
  std::uint64_t a = in.address, b = out.address;
  for (std::uint64_t seed : {0ull, 3ull, 11ull}) {
    std::memset(out.as<std::uint32_t>(), 0, out.bytes);
    SimLaunchResult r = launch(*m, 1, 32, {&a, &b}, 64 + 32 * 16, 1, seed);
    ASSERT_FALSE(r.error) << *r.error;
    for (std::uint32_t t = 0; t < 32; ++t)
      EXPECT_EQ(out.as<std::uint32_t>()[t], 1000 + 4 * (t ^ 1))
          << "thread " << t << " seed " << seed;
  }
}

// Independent thread scheduling: a producer warp whose lane 0 branches to
// an extra store placed after the loop's next wait (a higher PC) while the
// other 31 lanes go straight to the arrive, loop and block on the ring's
// empty barrier. On the GPU lane 0 still runs; the simulator parks the 31
// on their wait and runs lane 0 (it used to run only the lowest PC and
// report a deadlock). Warp 1 consumes: 8 rounds through 2 slots, each
// round's 32 arrivals and lane 0's extra word checked.
TEST(InterpreterTest, DivergedLanesProgressPastAWaitingGroup) {
  std::string ptx = kernelPtx(".param .u64 pout", R"(
  .reg .pred %p<6>;
  .reg .b32 %r<30>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  mov.u32 %r9, smem;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_init_done;
  mbarrier.init.shared::cta.b64 [%r9], 32;
  add.s32 %r3, %r9, 8;
  mbarrier.init.shared::cta.b64 [%r3], 32;
  add.s32 %r3, %r9, 16;
  mbarrier.init.shared::cta.b64 [%r3], 1;
  add.s32 %r3, %r9, 24;
  mbarrier.init.shared::cta.b64 [%r3], 1;
$L_init_done:
  bar.sync 0;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra $L_consumer;
  mov.u32 %r10, 0;
  setp.ne.u32 %p2, %r2, 0;
  bra.uni $L_head;
$L_arrive:
  and.b32 %r11, %r10, 1;
  shl.b32 %r12, %r11, 3;
  add.s32 %r13, %r9, %r12;
  mbarrier.arrive.shared::cta.b64 _, [%r13];
  add.s32 %r10, %r10, 1;
  setp.lt.u32 %p3, %r10, 8;
  @%p3 bra $L_head;
  bra.uni $L_done;
$L_head:
  and.b32 %r11, %r10, 1;
  shl.b32 %r12, %r11, 3;
  add.s32 %r14, %r9, 16;
  add.s32 %r14, %r14, %r12;
  shr.u32 %r15, %r10, 1;
  and.b32 %r15, %r15, 1;
  xor.b32 %r15, %r15, 1;
$L_empty:
  mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r14], %r15;
  @!%p4 bra $L_empty;
  @%p2 bra $L_arrive;
  shl.b32 %r16, %r11, 2;
  add.s32 %r16, %r16, %r9;
  add.s32 %r17, %r10, 100;
  st.shared.b32 [%r16+32], %r17;
  bra.uni $L_arrive;
$L_consumer:
  setp.ne.u32 %p5, %r2, 0;
  mov.u32 %r10, 0;
$L_chead:
  and.b32 %r11, %r10, 1;
  shl.b32 %r12, %r11, 3;
  add.s32 %r13, %r9, %r12;
  shr.u32 %r15, %r10, 1;
  and.b32 %r15, %r15, 1;
$L_full:
  mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r13], %r15;
  @!%p4 bra $L_full;
  shl.b32 %r16, %r11, 2;
  add.s32 %r16, %r16, %r9;
  ld.shared.b32 %r17, [%r16+32];
  bar.warp.sync -1;
  @%p5 bra $L_cnext;
  mul.wide.u32 %rd2, %r10, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.b32 [%rd3], %r17;
  add.s32 %r14, %r9, 16;
  add.s32 %r14, %r14, %r12;
  mbarrier.arrive.shared::cta.b64 _, [%r14];
$L_cnext:
  bar.warp.sync -1;
  add.s32 %r10, %r10, 1;
  setp.lt.u32 %p3, %r10, 8;
  @%p3 bra $L_chead;
$L_done:
  ret;
)");
  auto m = loadOrFail(ptx);
  ASSERT_TRUE(m);
  DeviceBuffer out(8 * 4);
  std::uint64_t a = out.address;
  for (std::uint64_t seed : {0ull, 2ull, 9ull}) {
    std::memset(out.as<std::uint32_t>(), 0, out.bytes);
    SimLaunchResult r = launch(*m, 1, 64, {&a}, 64, 1, seed);
    ASSERT_FALSE(r.error) << *r.error;
    for (std::uint32_t i = 0; i < 8; ++i)
      EXPECT_EQ(out.as<std::uint32_t>()[i], 100 + i)
          << "round " << i << " seed " << seed;
  }
}

// clusterlaunchcontrol (CUTLASS's sm_100a persistent scheduler): every
// cluster of a simulated grid runs, so try_cancel's request fails; its
// response lands with 16 bytes of complete_tx on the mbarrier and reads
// back, through a .b128 register, as "not canceled".
TEST(InterpreterTest, ClusterLaunchControlTryCancelReportsNotCanceled) {
  std::string ptx = kernelPtx(".param .u64 pout", R"(
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  .reg .b128 %clc;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  mov.u32 %r9, smem;
  add.s32 %r10, %r9, 16;
  mov.u32 %r11, 7;
  mov.u32 %r12, 7;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_wait;
  mbarrier.init.shared::cta.b64 [%r9], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r9], 16;
  clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [%r10], [%r9];
$L_wait:
  bar.sync 0;
  mov.u32 %r5, 0;
$L_spin:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r9], %r5;
  @!%p2 bra $L_spin;
  ld.shared.b128 %clc, [%r10];
  clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p3, %clc;
  @%p3 clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r11, %r12, %r13, _}, %clc;
  selp.u32 %r14, 1, 0, %p3;
  add.s32 %r14, %r14, %r11;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.b32 [%rd3], %r14;
  ret;
)",
                              "sm_100a");
  auto m = loadOrFail(ptx);
  ASSERT_TRUE(m);
  DeviceBuffer out(32 * 4);
  std::uint64_t a = out.address;
  std::memset(out.as<std::uint32_t>(), 0xff, out.bytes);
  SimLaunchResult r = launch(*m, 1, 32, {&a}, 64);
  ASSERT_FALSE(r.error) << *r.error;
  for (std::uint32_t t = 0; t < 32; ++t)
    EXPECT_EQ(out.as<std::uint32_t>()[t], 7u) << "thread " << t;
}
