//===- tests/sim/ClusterAddressTest.cpp - shared::cluster address layout --===//
//
// The simulator's shared::cluster addresses (runtime/sim/Interpreter.h,
// ClusterRankShift): (rank << 24) | offset. A CTA's own shared addresses,
// read from a shared symbol with mov or through cvta, carry its rank; mapa
// gives the same layout for every rank, its own included; clearing bit 24
// of the odd CTA's address of a pair names the even CTA's (what CUTLASS's
// SM100_TMA_2SM_LOAD does to its mbarrier address, issue 31 finding 5);
// shared::cta accesses take the rank-carrying address or the plain offset
// and refuse another CTA's.
//
//===----------------------------------------------------------------------===//
#include "InterpreterTestUtil.h"

using namespace tilec::sim;
using namespace tilec::sim::test;

namespace {

/// out[rank * 8 + i], per CTA of a 2x1 cluster (thread 0):
///   0: mov of `smem`            1: cvta.shared then cvta.to.shared
///   2: mapa to rank 0           3: mapa to rank 1
///   4: mapa to the CTA's own rank
///   5: the address with bit 24 cleared (CUTLASS's peer-bit mask)
///   6: the word stored through the rank-carrying address and loaded back
///      through the plain offset
///   7: the even CTA: its mbarrier's phase after both CTAs arrived on the
///      address with bit 24 cleared (count 2); the odd CTA: its own
///      mbarrier's pending phase (no arrival reached it).
TEST(ClusterAddressTest, OwnAddressCarriesRankAndPeerBitNamesTheLeader) {
  std::string ptx = kernelPtx(".param .u64 pout", R"(
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_end;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, smem;
  cvta.shared.u64 %rd2, smem;
  cvta.to.shared.u64 %rd3, %rd2;
  cvt.u32.u64 %r4, %rd3;
  mapa.shared::cluster.u32 %r5, %r3, 0;
  mapa.shared::cluster.u32 %r6, %r3, 1;
  mapa.shared::cluster.u32 %r7, %r3, %r2;
  and.b32 %r8, %r3, -16777217;
  add.s32 %r9, %r2, 41;
  st.shared.b32 [%r3+64], %r9;
  and.b32 %r10, %r3, 16777215;
  ld.shared.b32 %r11, [%r10+64];
  mov.u32 %r12, 2;
  mbarrier.init.shared::cta.b64 [smem], %r12;
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r8];
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r3], 0;
  selp.u32 %r13, 1, 0, %p2;
  mul.wide.u32 %rd4, %r2, 32;
  add.s64 %rd5, %rd1, %rd4;
  st.global.v4.b32 [%rd5], {%r3, %r4, %r5, %r6};
  st.global.v4.b32 [%rd5+16], {%r7, %r8, %r11, %r13};
$L_end:
  ret;)",
                              "sm_100a");
  auto m = loadOrFail(ptx);
  ASSERT_TRUE(m);
  DeviceBuffer out(16 * 4);
  std::uint64_t a = out.address;
  SimLaunchResult r = launch(*m, 2, 32, {&a}, 256, 2);
  ASSERT_FALSE(r.error) << *r.error;
  const std::uint32_t *o = out.as<std::uint32_t>();
  std::uint32_t base = o[0];
  EXPECT_EQ(base >> 24, 0u) << "rank 0's own address has rank bits 0";
  for (unsigned rank = 0; rank < 2; ++rank) {
    const std::uint32_t *c = o + rank * 8;
    std::uint32_t own = (rank << 24) | base;
    EXPECT_EQ(c[0], own) << "rank " << rank << ": mov of the symbol";
    EXPECT_EQ(c[1], own) << "rank " << rank << ": through cvta";
    EXPECT_EQ(c[2], base) << "rank " << rank << ": mapa to 0";
    EXPECT_EQ(c[3], (1u << 24) | base) << "rank " << rank << ": mapa to 1";
    EXPECT_EQ(c[4], own) << "rank " << rank << ": mapa to itself";
    EXPECT_EQ(c[5], base) << "rank " << rank << ": peer bit cleared";
    EXPECT_EQ(c[6], rank + 41) << "rank " << rank << ": plain offset";
  }
  EXPECT_EQ(o[7], 1u) << "both arrivals completed the even CTA's phase 0";
  EXPECT_EQ(o[15], 0u) << "the odd CTA's own mbarrier saw no arrival";
}

// A shared::cta access through another CTA's address is refused (the ISA
// leaves it undefined); the same address with .shared::cluster reads it.
TEST(ClusterAddressTest, SharedCtaAccessRefusesAnotherCtasAddress) {
  std::string ptx = kernelPtx(".param .u32 pcta", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  ld.param.u32 %r1, [pcta];
  mov.u32 %r2, %cluster_ctarank;
  xor.b32 %r3, %r2, 1;
  mapa.shared::cluster.u32 %r4, smem, %r3;
  st.shared.b32 [smem], %r2;
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 ld.shared.b32 %r5, [%r4];
  @!%p1 ld.shared::cluster.b32 %r5, [%r4];
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  ret;)");
  auto m = loadOrFail(ptx);
  ASSERT_TRUE(m);
  for (std::uint32_t cta : {0u, 1u}) {
    SimLaunchResult r = launch(*m, 2, 32, {&cta}, 256, 2);
    if (!cta) {
      EXPECT_FALSE(r.error) << *r.error;
      continue;
    }
    ASSERT_TRUE(r.error);
    EXPECT_NE(r.error->find("another CTA's shared memory needs a "
                            "shared::cluster access"),
              std::string::npos)
        << *r.error;
  }
}

} // namespace
