//===- tests/sim/InterpreterTmaTest.cpp - TMA stores and bulk groups ------===//
//
// A TMA store of shared bytes written by st.shared is legal only after the
// writing thread's fence.proxy.async; without it the simulator reports the
// missing fence, with it the box lands in global memory. The store is
// asynchronous: overwriting its source before cp.async.bulk.wait_group.read
// is a reported race, global memory holds the box after
// cp.async.bulk.wait_group (and only then without a seed), stores no wait
// retires complete when the grid ends, and a seed moves the write to random
// points between the issue and the wait.
//
//===----------------------------------------------------------------------===//
#include "InterpreterTestUtil.h"

#include "runtime/sim/TmaUnit.h"

#include <set>

using namespace tilec::sim;
using namespace tilec::sim::test;

namespace {

/// A 16 x 4 u32 tensor map over \p out, the box the whole tensor.
CUtensorMap boxMap(const DeviceBuffer &out) {
  CUtensorMap map;
  std::uint64_t dims[2] = {16, 4}, strides[1] = {64};
  std::uint32_t box[2] = {16, 4}, es[2] = {1, 1};
  auto e = encodeSimTensorMap(
      &map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2,
      reinterpret_cast<void *>(out.address), dims, strides, box, es,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  EXPECT_FALSE(e) << *e;
  return map;
}

/// 64 threads write 3 t + 11 to shared word t (and fence the proxies if
/// \p fence); thread 0 stores the box, commits, and runs \p wait; after a
/// barrier every thread runs \p after (%p1: not thread 0, %r2: its shared
/// word's address, %rd3: the tensor, %rd4: the copy buffer).
std::string bulkPtx(const std::string &wait, const std::string &after,
                    bool fence = true) {
  return kernelPtx(".param .align 64 .b8 tmap[128], .param .u64 pout, "
                   ".param .u64 pcopy",
                   std::string(R"(
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  mov.b64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [pout];
  ld.param.u64 %rd4, [pcopy];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mul.lo.s32 %r3, %r1, 3;
  add.s32 %r3, %r3, 11;
  st.shared.b32 [%r2], %r3;
  )") + (fence ? "fence.proxy.async.shared::cta;" : "") +
                       R"(
  bar.sync 0;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_issued;
  mov.u32 %r4, 0;
  cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd2, {%r4, %r4}], [%r4];
  cp.async.bulk.commit_group;
  )" + wait + R"(
$L_issued:
  bar.sync 0;
  )" + after + R"(
  ret;)");
}

/// Every thread overwrites its shared word.
const char *Overwrite = "mov.u32 %r5, 999;\n  st.shared.b32 [%r2], %r5;";
/// Thread 0 copies the tensor's first element to the copy buffer.
const char *ReadBack = "@%p1 bra $L_end;\n  ld.global.u32 %r6, [%rd3];\n"
                       "  st.global.u32 [%rd4], %r6;\n$L_end:";
constexpr std::uint32_t Sentinel = 0xdeadbeef;

/// Runs \p ptx with the tensor and the copy set to Sentinel.
SimLaunchResult runBulk(const std::string &ptx, DeviceBuffer &out,
                        DeviceBuffer &copy, std::uint64_t seed) {
  for (unsigned i = 0; i < 64; ++i)
    out.as<std::uint32_t>()[i] = Sentinel;
  copy.as<std::uint32_t>()[0] = Sentinel;
  CUtensorMap map = boxMap(out);
  auto m = loadOrFail(ptx);
  if (!m)
    return {std::string("the kernel did not load"), 0, {}};
  return launch(*m, 1, 64, {&map, &out.address, &copy.address}, 1024, 1, seed);
}

void expectBox(DeviceBuffer &out, std::uint64_t seed) {
  for (unsigned t = 0; t < 64; ++t)
    EXPECT_EQ(out.as<std::uint32_t>()[t], t * 3 + 11)
        << "element " << t << " seed " << seed;
}

TEST(InterpreterTmaTest, StoreNeedsProxyFence) {
  DeviceBuffer out(64 * 4), copy(4);
  const char *wait = "cp.async.bulk.wait_group.read 0;";
  SimLaunchResult r = runBulk(bulkPtx(wait, "", false), out, copy, 0);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("missing fence.proxy.async before the TMA store"),
            std::string::npos)
      << *r.error;
  EXPECT_NE(r.error->find("warp 0 lane 0, ptx:"), std::string::npos)
      << *r.error;
  r = runBulk(bulkPtx(wait, ""), out, copy, 31);
  ASSERT_FALSE(r.error) << *r.error;
  expectBox(out, 31);
}

TEST(InterpreterTmaTest, OverwritingTheSourceBeforeWaitGroupReadIsARace) {
  DeviceBuffer out(64 * 4), copy(4);
  for (std::uint64_t seed : {0, 1, 2, 3}) {
    SimLaunchResult r = runBulk(bulkPtx("", Overwrite), out, copy, seed);
    ASSERT_TRUE(r.error) << "seed " << seed;
    EXPECT_NE(
        r.error->find("race on a TMA store's source: the store writes shared"),
        std::string::npos)
        << *r.error;
    EXPECT_NE(r.error->find("issued by warp 0 lane 0 at ptx:"),
              std::string::npos)
        << *r.error;
  }
  // With the wait the store has read the source before it is reused.
  for (std::uint64_t seed : {0, 1, 2, 3}) {
    SimLaunchResult r =
        runBulk(bulkPtx("cp.async.bulk.wait_group.read 0;", Overwrite), out,
                copy, seed);
    ASSERT_FALSE(r.error) << *r.error;
    expectBox(out, seed);
  }
}

TEST(InterpreterTmaTest, WaitGroupMakesTheGlobalWritesVisible) {
  DeviceBuffer out(64 * 4), copy(4);
  for (std::uint64_t seed : {0, 1, 2, 3, 4, 5}) {
    SimLaunchResult r = runBulk(
        bulkPtx("cp.async.bulk.wait_group 0;", ReadBack), out, copy, seed);
    ASSERT_FALSE(r.error) << *r.error;
    EXPECT_EQ(copy.as<std::uint32_t>()[0], 11u) << "seed " << seed;
    expectBox(out, seed);
  }
  // wait_group.read retires the read only: without a seed the write
  // happens as late as it may, after thread 0 read the tensor back.
  SimLaunchResult r = runBulk(
      bulkPtx("cp.async.bulk.wait_group.read 0;", ReadBack), out, copy, 0);
  ASSERT_FALSE(r.error) << *r.error;
  EXPECT_EQ(copy.as<std::uint32_t>()[0], Sentinel);
  expectBox(out, 0);
}

TEST(InterpreterTmaTest, SeedsMoveTheStoreBetweenIssueAndWait) {
  DeviceBuffer out(64 * 4), copy(4);
  std::set<std::uint32_t> seen;
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    SimLaunchResult r = runBulk(
        bulkPtx("cp.async.bulk.wait_group.read 0;", ReadBack), out, copy, seed);
    ASSERT_FALSE(r.error) << *r.error;
    seen.insert(copy.as<std::uint32_t>()[0]);
    expectBox(out, seed);
  }
  EXPECT_EQ(seen, (std::set<std::uint32_t>{11u, Sentinel}));
}

TEST(InterpreterTmaTest, StoresNoWaitRetiredCompleteWhenTheGridEnds) {
  DeviceBuffer out(64 * 4), copy(4);
  // Committed, and not even committed.
  std::string committed = bulkPtx("", ""), uncommitted = committed;
  auto at = uncommitted.find("cp.async.bulk.commit_group;");
  ASSERT_NE(at, std::string::npos);
  uncommitted.erase(at, std::string("cp.async.bulk.commit_group;").size());
  for (const std::string &ptx : {committed, uncommitted})
    for (std::uint64_t seed : {0, 1, 2, 3}) {
      SimLaunchResult r = runBulk(ptx, out, copy, seed);
      ASSERT_FALSE(r.error) << *r.error;
      expectBox(out, seed);
    }
}

} // namespace
