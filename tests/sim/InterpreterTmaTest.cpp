//===- tests/sim/InterpreterTmaTest.cpp - TMA stores and the proxy fence --===//
//
// A TMA store of shared bytes written by st.shared is legal only after the
// writing thread's fence.proxy.async; without it the simulator reports the
// missing fence, with it the box lands in global memory.
//
//===----------------------------------------------------------------------===//
#include "InterpreterTestUtil.h"

#include "runtime/sim/TmaUnit.h"

using namespace tilec::sim;
using namespace tilec::sim::test;

namespace {

std::string storePtx(bool fence) {
  return kernelPtx(".param .align 64 .b8 tmap[128]", std::string(R"(
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  mov.b64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mul.lo.s32 %r3, %r1, 3;
  add.s32 %r3, %r3, 11;
  st.shared.b32 [%r2], %r3;
  )") + (fence ? "fence.proxy.async.shared::cta;" : "") + R"(
  bar.sync 0;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_end;
  mov.u32 %r4, 0;
  cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd2, {%r4, %r4}], [%r4];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
$L_end:
  ret;)");
}

TEST(InterpreterTmaTest, StoreNeedsProxyFence) {
  DeviceBuffer out(64 * 4);
  CUtensorMap map;
  std::uint64_t dims[2] = {16, 4}, strides[1] = {64};
  std::uint32_t box[2] = {16, 4}, es[2] = {1, 1};
  auto e = encodeSimTensorMap(
      &map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2,
      reinterpret_cast<void *>(out.address), dims, strides, box, es,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  ASSERT_FALSE(e) << *e;
  {
    auto m = loadOrFail(storePtx(false));
    ASSERT_TRUE(m);
    SimLaunchResult r = launch(*m, 1, 64, {&map}, 1024);
    ASSERT_TRUE(r.error);
    EXPECT_NE(r.error->find("missing fence.proxy.async before the TMA store"),
              std::string::npos)
        << *r.error;
    EXPECT_NE(r.error->find("warp 0 lane 0, ptx:"), std::string::npos)
        << *r.error;
  }
  {
    auto m = loadOrFail(storePtx(true));
    ASSERT_TRUE(m);
    SimLaunchResult r = launch(*m, 1, 64, {&map}, 1024, 1, 31);
    ASSERT_FALSE(r.error) << *r.error;
    for (unsigned t = 0; t < 64; ++t)
      EXPECT_EQ(out.as<std::uint32_t>()[t], t * 3 + 11) << "element " << t;
  }
}

} // namespace
