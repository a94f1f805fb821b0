//===- tests/unit/PtxDescriptorScanTest.cpp - Descriptors found in PTX ----===//
#include "ir/PtxDescriptorScan.h"

#include <gtest/gtest.h>

using namespace tilec;

namespace {

// The header's example: 4611686293305360384 = 0x4000004000010000.
TEST(PtxDescriptorScanTest, HeaderExample) {
  const char *ptx = R"(.version 8.0
.target sm_90a
.address_size 64
  mov.b64 %rd1, 4611686293305360384;
  add.s64 %rd2, %rd1, 2;
  wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%f1, %f2}, %rd1, %rd2, p, 1, 1, 0, 0;
  wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%f1, %f2}, %rd1, %rd9, p, 1, 1, 0, 0;
)";
  std::vector<PtxDescriptorUse> uses = scanPtxDescriptors(ptx);
  ASSERT_EQ(uses.size(), 4u);
  EXPECT_EQ(uses[0].line, 6u);
  EXPECT_EQ(uses[0].role, PtxDescriptorUse::RoleKind::SmemA);
  ASSERT_TRUE(uses[0].value.has_value());
  EXPECT_EQ(*uses[0].value, 0x4000004000010000ull);
  EXPECT_EQ(uses[0].description, "SW128 start=0 LBO=16 SBO=1024 base_offset=0");
  EXPECT_EQ(uses[1].description,
            "SW128 start=32 LBO=16 SBO=1024 base_offset=0");
  EXPECT_EQ(uses[3].operand, "%rd9");
  EXPECT_EQ(uses[3].description, "not known statically");
}

TEST(PtxDescriptorScanTest, Tcgen05) {
  const char *ptx = R"(.target sm_100a
  mov.b64 %rd3, 0x4000404000010000;
  mov.b32 %r5, 138413200;
  tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd3, %rd3, %r5, %p1;
)";
  std::vector<PtxDescriptorUse> uses = scanPtxDescriptors(ptx);
  ASSERT_EQ(uses.size(), 3u);
  EXPECT_EQ(uses[0].description,
            "SW128 start=0 LBO=16 SBO=1024 base_offset=0 version=1 "
            "lbo_mode=0");
  EXPECT_EQ(uses[2].role, PtxDescriptorUse::RoleKind::Instr);
  // 138413200 = 0x08400490.
  EXPECT_EQ(uses[2].description,
            "kind::f16 bf16 x bf16 -> f32 M=128 N=256 A:K B:K");
}

} // namespace
