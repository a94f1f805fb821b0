//===- tests/sim/Tcgen05PairTest.cpp - tcgen05 over a CTA pair ------------===//
//
// The cta_group::2 rules the simulator enforces (runtime/sim/Tcgen05.h,
// InterpreterTcgen05.cpp, InterpreterAsync.cpp): one warp of each CTA of
// the pair executes tcgen05.alloc.cta_group::2 and gets the same columns,
// allocated in both CTAs' tensor memory; a CTA that never executes its
// share is reported; every tcgen05 instruction of a CTA uses one
// .cta_group; the pair needs a peer; a TMA load with .cta_group::2 may
// complete on the peer's mbarrier, one without may not.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtil.h"

#include "runtime/sim/SimFault.h"
#include "runtime/sim/Tcgen05.h"

#include <gtest/gtest.h>

using namespace tilec::sim;
using namespace tilec::sim::test;

namespace {

TEST(TensorMemoryPair, AllocatesTheSameColumnsInBoth) {
  TensorMemory even, odd;
  // Column 0..127 is taken in the odd CTA only: the pair's 128 columns go
  // where both are free.
  EXPECT_EQ(odd.allocate(128), 0u);
  std::uint32_t pair = even.allocatePair(odd, 128);
  EXPECT_EQ(pair, 128u);
  // The odd CTA owes its own alloc: another count is a fault, the same
  // count gets the same address.
  EXPECT_THROW(odd.takeOwedPairAlloc(256), SimFault);
  std::optional<std::uint32_t> owed = odd.takeOwedPairAlloc(128);
  ASSERT_TRUE(owed);
  EXPECT_EQ(*owed, 128u);
  EXPECT_FALSE(odd.takeOwedPairAlloc(128));
  even.write(3, 130, 7);
  odd.write(3, 130, 9);
  EXPECT_EQ(even.read(3, 130), 7u);
  EXPECT_EQ(odd.read(3, 130), 9u);
  even.deallocate(pair, 128);
  odd.deallocate(pair, 128);
  odd.deallocate(0, 128);
  even.checkAllFreed();
  odd.checkAllFreed();
}

TEST(TensorMemoryPair, UnmatchedPairAllocIsReported) {
  TensorMemory even, odd;
  std::uint32_t pair = even.allocatePair(odd, 64);
  even.deallocate(pair, 64);
  try {
    odd.checkAllFreed();
    ADD_FAILURE() << "an owed pair allocation passed";
  } catch (const SimFault &f) {
    EXPECT_NE(std::string(f.what()).find("never executed its own"),
              std::string::npos)
        << f.what();
  }
}

/// Warp 0 of every CTA of the cluster allocates 32 columns with
/// cta_group::2 (CTA rank 1 only when \p oddAllocates), synchronizes the
/// cluster, stores the address it got to out[rank] and frees the columns
/// with \p deallocGroup.
std::string pairAllocPtx(bool oddAllocates, const char *deallocGroup) {
  std::string skip = oddAllocates ? "" : "  @%p1 bra $L_skip;\n";
  std::string skipToEnd = oddAllocates ? "" : "  @%p1 bra $L_end;\n";
  return kernelPtx(".param .u64 pout", R"(
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %cluster_ctarank;
  setp.ne.u32 %p1, %r1, 0;
  mov.u32 %r2, 64;
)" + skip + R"(  tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r2], 32;
  tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
$L_skip:
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
)" + skipToEnd + R"(  ld.shared.u32 %r3, [%r2];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.b32 [%rd3], %r3;
  tcgen05.dealloc.)" + deallocGroup +
                       R"(.sync.aligned.b32 %r3, 32;
$L_end:
  ret;)",
                   "sm_100a");
}

TEST(Tcgen05Pair, BothCtasAllocateTheSameColumns) {
  auto m = loadOrFail(pairAllocPtx(true, "cta_group::2"));
  ASSERT_TRUE(m);
  DeviceBuffer out(8);
  out.as<std::uint32_t>()[0] = out.as<std::uint32_t>()[1] = 0xdeadbeef;
  void *pout = &out.address;
  SimLaunchResult r = launch(*m, 2, 32, {pout}, 128, 2);
  ASSERT_FALSE(r.error) << *r.error;
  EXPECT_EQ(out.as<std::uint32_t>()[0], 0u);
  EXPECT_EQ(out.as<std::uint32_t>()[1], 0u);
}

TEST(Tcgen05Pair, APeerThatNeverAllocatesIsReported) {
  auto m = loadOrFail(pairAllocPtx(false, "cta_group::2"));
  ASSERT_TRUE(m);
  DeviceBuffer out(8);
  void *pout = &out.address;
  SimLaunchResult r = launch(*m, 2, 32, {pout}, 128, 2);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("never executed its own"), std::string::npos) << *r.error;
}

TEST(Tcgen05Pair, MixedCtaGroupsAreReported) {
  auto m = loadOrFail(pairAllocPtx(true, "cta_group::1"));
  ASSERT_TRUE(m);
  DeviceBuffer out(8);
  void *pout = &out.address;
  SimLaunchResult r = launch(*m, 2, 32, {pout}, 128, 2);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("must use the same .cta_group"), std::string::npos) << *r.error;
}

TEST(Tcgen05Pair, APairNeedsAPeerCta) {
  auto m = loadOrFail(pairAllocPtx(true, "cta_group::2"));
  ASSERT_TRUE(m);
  DeviceBuffer out(8);
  void *pout = &out.address;
  SimLaunchResult r = launch(*m, 1, 32, {pout}, 128, 1);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("no peer CTA"), std::string::npos) << *r.error;
}

} // namespace
