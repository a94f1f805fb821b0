//===- tests/sim/InterpreterAsyncOrderTest.cpp - When async MMAs complete -===//
//
// wgmma.mma_async and tcgen05.mma complete at some point between the issue
// and the wait that orders them (wgmma.wait_group; the mbarrier a
// tcgen05.commit arrives on). Without a seed the simulator completes a wgmma
// at its wait_group and the tensor pipe at the end of the issuing warp's
// slice; a seed picks random points in between, so a kernel that races
// against an unfinished MMA is caught under some seed. The operands are
// all ones, so every element of D is K (or K times the overwritten value).
//
//===----------------------------------------------------------------------===//
#include "InterpreterTestUtil.h"

#include <cstring>
#include <set>

using namespace tilec::sim;
using namespace tilec::sim::test;

namespace {

/// A K-major, unswizzled descriptor (LBO 128, SBO 256) at \p start: sm_90a
/// wgmma, or tcgen05 with \p umma (version bit 46).
std::uint64_t onesDesc(std::uint32_t start, bool umma) {
  return std::uint64_t(start >> 4) | (std::uint64_t(128 >> 4) << 16) |
         (std::uint64_t(256 >> 4) << 32) | (std::uint64_t(umma) << 46);
}

float asFloat(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// What both kernels start with: %rd1 = pout, %rd2 = pa, %rd3 = pb,
/// %r1 = the thread, %r2 = 16 times it, %r3 = two bf16 ones, %r4 = the warp.
const char *Prologue = R"(
  .reg .pred %p<3>;
  .reg .b32 %r<20>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pout];
  ld.param.u64 %rd2, [pa];
  ld.param.u64 %rd3, [pb];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 4;
  mov.u32 %r3, 0x3f803f80;
  shr.u32 %r4, %r1, 5;
)";

/// Warps 0-3 issue one m64n8k16 wgmma over all-ones bf16 A (shared 0) and B
/// (shared 2048) and commit it; warp 4 overwrites B with 2.0 between two
/// barriers; then warps 0-3 wait and store D[0] of each lane (16 when the
/// wgmma ran before the overwrite, 32 after).
std::string wgmmaPtx() {
  return kernelPtx(".param .u64 pout, .param .u64 pa, .param .u64 pb",
                   Prologue + std::string(R"(
  st.shared.v4.b32 [%r2], {%r3, %r3, %r3, %r3};
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.eq.u32 %p1, %r4, 4;
  @%p1 bra $L_overwrite;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, %rd2, %rd3, 0, 1, 1, 0, 0;
  wgmma.commit_group.sync.aligned;
  bar.sync 1, 160;
  bar.sync 2, 160;
  wgmma.wait_group.sync.aligned 0;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  st.global.f32 [%rd5], %f1;
  bra.uni $L_end;
$L_overwrite:
  bar.sync 1, 160;
  and.b32 %r5, %r1, 31;
  shl.b32 %r6, %r5, 4;
  add.s32 %r6, %r6, 2048;
  mov.u32 %r7, 0x40004000;
  st.shared.v4.b32 [%r6], {%r7, %r7, %r7, %r7};
  fence.proxy.async.shared::cta;
  bar.sync 2, 160;
$L_end:
  ret;)"));
}

TEST(InterpreterAsyncOrderTest, SeedsCompleteWgmmaBeforeItsWaitGroup) {
  auto m = loadOrFail(wgmmaPtx());
  ASSERT_TRUE(m);
  DeviceBuffer out(128 * 4);
  std::uint64_t a = onesDesc(0, false), b = onesDesc(2048, false);
  std::set<float> seen;
  for (std::uint64_t seed = 0; seed <= 8; ++seed) {
    SimLaunchResult r =
        launch(*m, 1, 160, {&out.address, &a, &b}, 4096, 1, seed);
    ASSERT_FALSE(r.error) << *r.error;
    for (unsigned t = 0; t < 128; ++t) {
      float d = out.as<float>()[t];
      ASSERT_TRUE(d == 16.0f || d == 32.0f) << d << " thread " << t;
      // Without a seed the wgmma runs at its wait_group, after the
      // overwrite.
      if (seed == 0)
        EXPECT_EQ(d, 32.0f) << "thread " << t;
      seen.insert(d);
    }
  }
  EXPECT_EQ(seen, (std::set<float>{16.0f, 32.0f}));
}

/// One warpgroup issues an m64n8k16 wgmma over all-ones bf16 A (shared 0)
/// and B (shared 2048); warps 1-3 first do some busy work, so warp 0
/// reaches its wait_group before they issue. Warp 0 then overwrites B with
/// 2.0. A wgmma-group is the warpgroup's (PTX ISA, wgmma.commit_group):
/// warp 0's wait_group returns only once the whole MMA, every warp's part,
/// is complete, so every D[0] is 16. CUTLASS's Hopper mainloops release a
/// stage from one thread per warpgroup right after its own warp's wait.
std::string wgmmaWarpgroupPtx() {
  return kernelPtx(".param .u64 pout, .param .u64 pa, .param .u64 pb",
                   Prologue + std::string(R"(
  st.shared.v4.b32 [%r2], {%r3, %r3, %r3, %r3};
  add.s32 %r5, %r2, 2048;
  st.shared.v4.b32 [%r5], {%r3, %r3, %r3, %r3};
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.eq.u32 %p1, %r4, 0;
  @%p1 bra $L_issue;
  mov.u32 %r8, 0;
$L_busy:
  add.u32 %r8, %r8, 1;
  setp.lt.u32 %p2, %r8, 200;
  @%p2 bra $L_busy;
$L_issue:
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, %rd2, %rd3, 0, 1, 1, 0, 0;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  @!%p1 bra $L_store;
  and.b32 %r5, %r1, 31;
  shl.b32 %r6, %r5, 4;
  add.s32 %r6, %r6, 2048;
  mov.u32 %r7, 0x40004000;
  st.shared.v4.b32 [%r6], {%r7, %r7, %r7, %r7};
$L_store:
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  st.global.f32 [%rd5], %f1;
  ret;)"));
}

TEST(InterpreterAsyncOrderTest, OneWarpsWaitGroupCoversTheWholeWarpgroup) {
  auto m = loadOrFail(wgmmaWarpgroupPtx());
  ASSERT_TRUE(m);
  DeviceBuffer out(128 * 4);
  std::uint64_t a = onesDesc(0, false), b = onesDesc(2048, false);
  for (std::uint64_t seed = 0; seed <= 8; ++seed) {
    SimLaunchResult r =
        launch(*m, 1, 128, {&out.address, &a, &b}, 4096, 1, seed);
    ASSERT_FALSE(r.error) << *r.error;
    for (unsigned t = 0; t < 128; ++t)
      ASSERT_EQ(out.as<float>()[t], 16.0f)
          << "thread " << t << " seed " << seed;
  }
}

/// How the tcgen05 kernel below issues its MMA, and what warps 1-3 do
/// after their tcgen05.ld (%r16 holds the value) and warp 0 before its
/// tcgen05.dealloc.
const char *IssueMma =
    "tcgen05.mma.cta_group::1.kind::f16 [%r13], %rd2, %rd3, %r10, 0;";
const char *WaitThenStore = R"(tcgen05.wait::ld.sync.aligned;
  st.global.b32 [%rd5], %r16;)";

/// Thread 0 issues one tcgen05.mma (\p mma: M = 128, N = 16, K = 16,
/// all-ones bf16 A at shared 0 and B at 4096) into freshly allocated tensor
/// memory and commits it to the mbarrier at 8192; after a barrier every
/// warp runs \p wait, then warps 1-3 (not the issuer's warp, whose slice
/// may run on past the barrier) read their 32 lanes of column 0 and run
/// \p afterLd (by default: wait, then store them at thread's word of
/// pout); after a barrier warp 0 runs \p beforeDealloc and deallocates.
std::string tcgen05Ptx(const std::string &wait,
                       const std::string &mma = IssueMma,
                       const std::string &afterLd = WaitThenStore,
                       const std::string &beforeDealloc = "") {
  return kernelPtx(".param .u64 pout, .param .u64 pa, .param .u64 pb, "
                   ".param .u32 pidesc",
                   Prologue + std::string(R"(
  ld.param.u32 %r10, [pidesc];
  mov.u32 %r11, 8192;
  mov.u32 %r12, 8200;
  setp.ne.u32 %p1, %r4, 0;
  @%p1 bra $L_allocated;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r12], 32;
  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
$L_allocated:
  st.shared.v4.b32 [%r2], {%r3, %r3, %r3, %r3};
  add.s32 %r5, %r2, 2048;
  st.shared.v4.b32 [%r5], {%r3, %r3, %r3, %r3};
  add.s32 %r5, %r2, 4096;
  st.shared.v4.b32 [%r5], {%r3, %r3, %r3, %r3};
  fence.proxy.async.shared::cta;
  setp.ne.u32 %p2, %r1, 0;
  @%p2 bra $L_init;
  mbarrier.init.shared::cta.b64 [%r11], 1;
$L_init:
  bar.sync 0;
  ld.shared.u32 %r13, [%r12];
  @%p2 bra $L_issued;
  )") + mma + R"(
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r11];
$L_issued:
  bar.sync 0;
  )" + wait + R"(
  @!%p1 bra $L_read;
  shl.b32 %r14, %r4, 21;
  add.s32 %r15, %r13, %r14;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r16}, [%r15];
  )" + afterLd + R"(
$L_read:
  bar.sync 0;
  @%p1 bra $L_end;
  )" + beforeDealloc + R"(
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r13, 32;
$L_end:
  ret;)",
                   "sm_100a");
}

const char *WaitForCommit = R"(mov.u32 %r17, 0;
$L_wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r11], %r17;
  @!%p2 bra $L_wait;
  tcgen05.fence::after_thread_sync;)";

/// idesc: D f32, A and B bf16, K-major, M = 128, N = 16.
constexpr std::uint32_t IdescM128N16 = (1u << 4) | (1u << 7) | (1u << 10) |
                                       ((16u >> 3) << 17) | ((128u >> 4) << 24);

SimLaunchResult runTcgen05(const std::string &wait, DeviceBuffer &out,
                           std::uint64_t seed,
                           const std::string &mma = IssueMma,
                           const std::string &afterLd = WaitThenStore,
                           const std::string &beforeDealloc = "") {
  auto m = loadOrFail(tcgen05Ptx(wait, mma, afterLd, beforeDealloc));
  if (!m)
    return {std::string("the kernel did not load"), 0, {}};
  std::uint64_t a = onesDesc(0, true), b = onesDesc(4096, true);
  std::uint32_t idesc = IdescM128N16;
  for (unsigned t = 0; t < 128; ++t)
    out.as<std::uint32_t>()[t] = 0;
  return launch(*m, 1, 128, {&out.address, &a, &b, &idesc}, 9216, 1, seed);
}

TEST(InterpreterAsyncOrderTest, WaitingForTheCommitSeesTheMma) {
  DeviceBuffer out(128 * 4);
  for (std::uint64_t seed = 0; seed <= 8; ++seed) {
    SimLaunchResult r = runTcgen05(WaitForCommit, out, seed);
    ASSERT_FALSE(r.error) << "seed " << seed << ": " << *r.error;
    for (unsigned t = 32; t < 128; ++t)
      ASSERT_EQ(asFloat(out.as<std::uint32_t>()[t]), 16.0f)
          << "thread " << t << " seed " << seed;
  }
}

TEST(InterpreterAsyncOrderTest, SeedsCatchAReadOfAnUnfinishedTcgen05Mma) {
  DeviceBuffer out(128 * 4);
  // Without a seed the tensor pipe finishes at the end of the issuing
  // warp's slice, before the readers pass the barrier: the race goes
  // unseen.
  SimLaunchResult r0 = runTcgen05("", out, 0);
  ASSERT_FALSE(r0.error) << *r0.error;
  EXPECT_EQ(asFloat(out.as<std::uint32_t>()[32]), 16.0f);
  unsigned caught = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    SimLaunchResult r = runTcgen05("", out, seed);
    if (!r.error)
      continue;
    EXPECT_NE(r.error->find("race on tensor memory: tcgen05."),
              std::string::npos)
        << *r.error;
    EXPECT_NE(r.error->find("while the tcgen05.mma issued at ptx:"),
              std::string::npos)
        << *r.error;
    ++caught;
  }
  EXPECT_GT(caught, 0u);
}

/// The PTX ISA's tcgen05.wait::ld "causes the executing thread to block
/// until all prior tcgen05.ld operations issued by the executing thread
/// have completed": it orders the load's read of tensor memory against
/// later writes. A read of the destination registers before it is ordered
/// by the hardware's scoreboard, and CUTLASS's sm100 epilogue relies on that
/// (it waits once per tile, after its last load): it runs.
TEST(InterpreterAsyncOrderTest, Tcgen05LdRegistersMayBeReadBeforeTheWait) {
  DeviceBuffer out(128 * 4);
  const char *storeThenWait = R"(st.global.b32 [%rd5], %r16;
  tcgen05.wait::ld.sync.aligned;)";
  for (std::uint64_t seed = 0; seed <= 3; ++seed) {
    SimLaunchResult r =
        runTcgen05(WaitForCommit, out, seed, IssueMma, storeThenWait);
    ASSERT_FALSE(r.error) << "seed " << seed << ": " << *r.error;
    for (unsigned t = 32; t < 128; ++t)
      ASSERT_EQ(asFloat(out.as<std::uint32_t>()[t]), 16.0f)
          << "thread " << t << " seed " << seed;
  }
}

/// A load no tcgen05.wait::ld has retired may still read its cells: an MMA
/// into them (here thread 0's second MMA into column 0, after the readers
/// passed a barrier without waiting), or their dealloc, is a race, named
/// with the load's instruction, warp, lanes and columns.
TEST(InterpreterAsyncOrderTest, OverwritingAnUnretiredTcgen05LdIsReported) {
  DeviceBuffer out(128 * 4);
  const char *storeNoWait = "st.global.b32 [%rd5], %r16;";
  const char *secondMma = R"(setp.ne.u32 %p2, %r1, 0;
  @!%p2 tcgen05.mma.cta_group::1.kind::f16 [%r13], %rd2, %rd3, %r10, 1;)";
  for (std::uint64_t seed = 0; seed <= 3; ++seed) {
    SimLaunchResult r =
        runTcgen05(WaitForCommit, out, seed, IssueMma, storeNoWait, secondMma);
    ASSERT_TRUE(r.error) << "seed " << seed;
    EXPECT_NE(r.error->find("race on tensor memory: tcgen05.mma of lanes "),
              std::string::npos)
        << *r.error;
    EXPECT_NE(r.error->find("columns 0..0"), std::string::npos) << *r.error;
    EXPECT_NE(r.error->find("while the tcgen05.ld issued at ptx:"),
              std::string::npos)
        << *r.error;
    EXPECT_NE(r.error->find("that warp's tcgen05.wait::ld must retire the "
                            "load first"),
              std::string::npos)
        << *r.error;
  }
  // Without the second MMA the dealloc is the write that races.
  SimLaunchResult r = runTcgen05(WaitForCommit, out, 0, IssueMma, storeNoWait);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("race on tensor memory: tcgen05.dealloc of lanes "),
            std::string::npos)
      << *r.error;
  // With the wait, the same second MMA is legal.
  const char *waitedSecondMma = R"(setp.ne.u32 %p2, %r1, 0;
  @!%p2 tcgen05.mma.cta_group::1.kind::f16 [%r13], %rd2, %rd3, %r10, 1;
  @!%p2 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r11];
  mov.u32 %r17, 1;
$L_wait2:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r11], %r17;
  @!%p2 bra $L_wait2;)";
  r = runTcgen05(WaitForCommit, out, 0, IssueMma, WaitThenStore,
                 waitedSecondMma);
  EXPECT_FALSE(r.error) << *r.error;
}

/// tcgen05.mma's disable-output-lane vector (PTX ISA: "if a bit in the mask
/// is 1, then the corresponding lane in the Tensor Memory for the resultant
/// matrix D will not be updated"; bit 0 of the first element is lane 0):
/// lanes 32..47 and 127 are disabled and keep tensor memory's 0.
TEST(InterpreterAsyncOrderTest, Tcgen05MmaDisableOutputLaneKeepsThoseLanes) {
  DeviceBuffer out(128 * 4);
  const char *masked = R"(mov.u32 %r18, 0;
  mov.u32 %r19, 0xffff;
  mov.u32 %r9, 0x80000000;
  tcgen05.mma.cta_group::1.kind::f16 [%r13], %rd2, %rd3, %r10, {%r18, %r19, %r18, %r9}, 0;)";
  SimLaunchResult r = runTcgen05(WaitForCommit, out, 0, masked);
  ASSERT_FALSE(r.error) << *r.error;
  for (unsigned t = 32; t < 128; ++t)
    EXPECT_EQ(asFloat(out.as<std::uint32_t>()[t]),
              (t < 48 || t == 127) ? 0.0f : 16.0f)
        << "lane " << t;
  // An all-zero vector (what CUTLASS passes) disables nothing; a vector of
  // the wrong size for the CTA group is named.
  const char *zeros = R"(mov.u32 %r18, 0;
  tcgen05.mma.cta_group::1.kind::f16 [%r13], %rd2, %rd3, %r10, {%r18, %r18, %r18, %r18}, 0;)";
  r = runTcgen05(WaitForCommit, out, 0, zeros);
  ASSERT_FALSE(r.error) << *r.error;
  for (unsigned t = 32; t < 128; ++t)
    EXPECT_EQ(asFloat(out.as<std::uint32_t>()[t]), 16.0f) << "lane " << t;
  const char *eight = R"(mov.u32 %r18, 0;
  tcgen05.mma.cta_group::1.kind::f16 [%r13], %rd2, %rd3, %r10, {%r18, %r18, %r18, %r18, %r18, %r18, %r18, %r18}, 0;)";
  r = runTcgen05(WaitForCommit, out, 0, eight);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("disable-output-lane vector of 8 elements; the ISA "
                          "requires 4"),
            std::string::npos)
      << *r.error;
}

} // namespace
