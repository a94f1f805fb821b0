//===- tests/sim/TmaPairMulticastTest.cpp - Multicast TMA with pairs ------===//
//
// cp.async.bulk.tensor with .cta_group::2 and .multicast::cluster, as
// `schedule cluster(4)` on sm_100a issues it (runtime/sim/InterpreterAsync
// .cpp, ClusterRun::tmaBarrierCta): the box lands at the same offset in
// every CTA of the mask, and for each destination the bytes complete on
// the mbarrier at the operand's offset in that destination's own pair, in
// the pair's even or odd CTA as the operand names (PTX ISA,
// cp.async.bulk.tensor: the signal is multicast to the same CTA-relative
// offset; .cta_group::2 lets it be the destination's peer). The expected
// byte counts below are derived by hand from that rule for a 4x1 cluster.
//
//===----------------------------------------------------------------------===//
#include "InterpreterTestUtil.h"

#include "runtime/sim/TmaUnit.h"

using namespace tilec::sim;
using namespace tilec::sim::test;

namespace {

/// A 16 x 4 u32 tensor map over \p in, the box the whole tensor (256
/// bytes).
CUtensorMap boxMap(const DeviceBuffer &in) {
  CUtensorMap map;
  std::uint64_t dims[2] = {16, 4}, strides[1] = {64};
  std::uint32_t box[2] = {16, 4}, es[2] = {1, 1};
  auto e = encodeSimTensorMap(
      &map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2,
      reinterpret_cast<void *>(in.address), dims, strides, box, es,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  EXPECT_FALSE(e) << *e;
  return map;
}

/// Thread 0 of every CTA initializes the mbarrier at shared 1024 (count
/// 1); after a cluster barrier each even CTA (a pair's leader) arms it
/// with \p expect bytes, then \p issue runs in thread 0 (%r2: the cluster
/// rank, %r3: the barrier's offset, %rd2: the tensor map, %r6: 0), the
/// leaders wait for phase 0, and after a second cluster barrier thread 0
/// of CTA r stores its shared word 7 to out[r].
std::string multicastPtx(unsigned expect, const std::string &issue) {
  return kernelPtx(".param .align 64 .b8 tmap[128], .param .u64 pout",
                   R"(
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .b16 %rs<2>;
  mov.b64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [pout];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, 1024;
  mov.u32 %r6, 0;
  and.b32 %r4, %r2, 1;
  setp.ne.u32 %p1, %r1, 0;
  setp.ne.u32 %p2, %r4, 0;
  @%p1 bra $L_inited;
  mbarrier.init.shared::cta.b64 [%r3], 1;
  fence.mbarrier_init.release.cluster;
$L_inited:
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  @%p1 bra $L_waited;
  @%p2 bra $L_armed;
  mov.u32 %r5, )" + std::to_string(expect) +
                       R"(;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], %r5;
$L_armed:
)" + issue + R"(
  @%p2 bra $L_waited;
$L_wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;
  @!%p3 bra $L_wait;
$L_waited:
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  @%p1 bra $L_end;
  ld.shared.u32 %r8, [28];
  mul.wide.u32 %rd4, %r2, 4;
  add.s64 %rd5, %rd3, %rd4;
  st.global.b32 [%rd5], %r8;
$L_end:
  ret;)",
                   "sm_100a");
}

/// CTA 1 multicasts the box to CTAs 1 and 3 (mask 0b1010) naming the even
/// CTA's barrier (mapa to rank 0); CTA 2 to CTAs 0 and 2 (0b0101) naming
/// its own, even, barrier. By the rule: CTA 0's barrier gets the bytes for
/// destinations 0 and 1 (256 + 256), CTA 2's those for 2 and 3 (256 +
/// 256), the odd CTAs' barriers none.
const char *TwoPairIssue = R"(  setp.ne.u32 %p3, %r2, 1;
  @%p3 bra $L_two;
  mapa.shared::cluster.u32 %r7, %r3, %r6;
  mov.b16 %rs1, 10;
  cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r6], [%rd2, {%r6, %r6}], [%r7], %rs1;
$L_two:
  setp.ne.u32 %p3, %r2, 2;
  @%p3 bra $L_issued;
  mov.b16 %rs1, 5;
  cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r6], [%rd2, {%r6, %r6}], [%r3], %rs1;
$L_issued:)";

SimLaunchResult runMulticast(const std::string &ptx, DeviceBuffer &out,
                             unsigned ctas) {
  DeviceBuffer in(64 * 4);
  for (unsigned i = 0; i < 64; ++i)
    in.as<std::uint32_t>()[i] = 100 + i;
  for (unsigned r = 0; r < ctas; ++r)
    out.as<std::uint32_t>()[r] = 0xdeadbeef;
  CUtensorMap map = boxMap(in);
  auto m = loadOrFail(ptx);
  if (!m)
    return {std::string("the kernel did not load"), 0, {}};
  return launch(*m, ctas, 32, {&map, &out.address}, 2048, ctas);
}

TEST(TmaPairMulticast, EachLeaderCountsTheBytesLandingInItsPair) {
  DeviceBuffer out(16);
  SimLaunchResult r = runMulticast(multicastPtx(512, TwoPairIssue), out, 4);
  ASSERT_FALSE(r.error) << *r.error;
  // Every CTA got the box; word 7 is element 7.
  for (unsigned c = 0; c < 4; ++c)
    EXPECT_EQ(out.as<std::uint32_t>()[c], 107u) << "CTA " << c;
}

TEST(TmaPairMulticast, ALeaderArmedForMoreWaitsForTheMissingBytes) {
  // Armed with 768: each leader's barrier still expects 768 - 512 = 256.
  DeviceBuffer out(16);
  SimLaunchResult r = runMulticast(multicastPtx(768, TwoPairIssue), out, 4);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("deadlock"), std::string::npos) << *r.error;
  EXPECT_NE(r.error->find("tx-count 256"), std::string::npos) << *r.error;
  EXPECT_EQ(r.error->find("tx-count 512"), std::string::npos) << *r.error;
}

TEST(TmaPairMulticast, ADestinationWithoutAPairIsReported) {
  // A 3-CTA cluster: CTA 0 multicasts to CTAs 0 and 2 naming its peer's
  // (odd) barrier; destination 2's pair would be CTAs 2 and 3, and there is
  // no CTA 3.
  const char *issue = R"(  setp.ne.u32 %p3, %r2, 0;
  @%p3 bra $L_issued;
  mov.u32 %r9, 1;
  mapa.shared::cluster.u32 %r7, %r3, %r9;
  mov.b16 %rs1, 5;
  cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r6], [%rd2, {%r6, %r6}], [%r7], %rs1;
$L_issued:)";
  DeviceBuffer out(16);
  SimLaunchResult r = runMulticast(multicastPtx(256, issue), out, 3);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("no pair for it"), std::string::npos) << *r.error;
}

TEST(TmaPairMulticast, WithoutCtaGroupEachDestinationSignalsItsOwn) {
  // The sm_90 form: CTA 2 multicasts to CTAs 0 and 2, each completing on
  // its own barrier (256 bytes each); CTA 1 to CTAs 1 and 3 the same way,
  // so the odd CTAs' barriers (never waited on) get theirs.
  const char *issue = R"(  setp.ne.u32 %p3, %r2, 1;
  @%p3 bra $L_two;
  mov.b16 %rs1, 10;
  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r6], [%rd2, {%r6, %r6}], [%r3], %rs1;
$L_two:
  setp.ne.u32 %p3, %r2, 2;
  @%p3 bra $L_issued;
  mov.b16 %rs1, 5;
  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r6], [%rd2, {%r6, %r6}], [%r3], %rs1;
$L_issued:)";
  DeviceBuffer out(16);
  SimLaunchResult r = runMulticast(multicastPtx(256, issue), out, 4);
  ASSERT_FALSE(r.error) << *r.error;
  for (unsigned c = 0; c < 4; ++c)
    EXPECT_EQ(out.as<std::uint32_t>()[c], 107u) << "CTA " << c;
}

} // namespace
