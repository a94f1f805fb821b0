//===- tests/unit/Sm90GemmSpecTest.cpp - GemmSpec to the sm_90a config ----===//
#include "codegen/Sm90GemmSpec.h"
#include "ir/layout/LayoutExpr.h"

#include <gtest/gtest.h>

namespace tilec {
namespace {

TEST(Sm90ConfigFromSpec, CarriesTheTileAndRejectsWhatIsNotImplemented) {
  GemmSpec spec;
  spec.name = "gemm_tn_bf16";
  spec.arch = ArchKind::SM90a;
  spec.bm = 128;
  spec.bn = 256;
  spec.bk = 64;
  spec.stages = 4;
  auto config = sm90ConfigFromSpec(spec);
  ASSERT_TRUE(bool(config)) << llvm::toString(config.takeError());
  EXPECT_EQ(config->name, "gemm_tn_bf16");
  EXPECT_EQ(config->bn, 256u);
  EXPECT_EQ(config->stages, 4u);

  GemmSpec wrongArch = spec;
  wrongArch.arch = ArchKind::SM80;
  auto bad = sm90ConfigFromSpec(wrongArch);
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("sm_80"), std::string::npos);

  // Types and majorness carry over; the generator's verifier judges them
  // (wgmma transposes 16-bit types only).
  GemmSpec mnMajor = spec;
  mnMajor.bMajor = MajorKind::MN;
  mnMajor.cType = DTypeKind::F32;
  config = sm90ConfigFromSpec(mnMajor);
  ASSERT_TRUE(bool(config)) << llvm::toString(config.takeError());
  EXPECT_EQ(config->bMajor, MajorKind::MN);
  EXPECT_EQ(config->cType, DTypeKind::F32);
  GemmSpec tf32MN = mnMajor;
  tf32MN.aType = tf32MN.bType = DTypeKind::TF32;
  tf32MN.bk = 32;
  bad = sm90ConfigFromSpec(tf32MN);
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("MN"), std::string::npos);

  GemmSpec smallK = spec;
  smallK.bk = 48; // 96 bytes of bf16: no swizzle atom row
  bad = sm90ConfigFromSpec(smallK);
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("BK = 48"), std::string::npos);
}

/// The layout value of \p expr.
ComposedLayout layoutOf(const std::string &expr) {
  auto value = evaluateLayoutExpr(expr);
  EXPECT_TRUE(bool(value)) << expr;
  return value->getComposed();
}

/// The lowered kernel of examples/gemm_decode_sm90.tile: swap-AB, BM 64,
/// BN 64, 8 stages, 4 K splits.
GemmSpec decodeSpec() {
  GemmSpec spec;
  spec.arch = ArchKind::SM90a;
  spec.bm = 64;
  spec.bn = 64;
  spec.bk = 64;
  spec.stages = 8;
  spec.swapAB = true;
  spec.splitK = 4;
  return spec;
}

TEST(Sm90ConfigFromSpec, CarriesTheScheduleAndChecksSmemLayouts) {
  GemmSpec spec = decodeSpec();
  spec.smemA = layoutOf("tile_to_shape(K_SW128<bf16>, (64, 64))");
  auto config = sm90ConfigFromSpec(spec);
  ASSERT_TRUE(bool(config)) << llvm::toString(config.takeError());
  EXPECT_TRUE(config->swapAB);
  EXPECT_TRUE(config->splitK);
  // 4 splits fit one cluster: reduced through distributed shared memory.
  EXPECT_TRUE(config->splitKCluster);
  // 9 splits do not (the portable cluster size is 8): the workspace.
  GemmSpec nine = spec;
  nine.splitK = 9;
  auto wide = sm90ConfigFromSpec(nine);
  ASSERT_TRUE(bool(wide)) << llvm::toString(wide.takeError());
  EXPECT_TRUE(wide->splitK);
  EXPECT_FALSE(wide->splitKCluster);
  // No split, no cluster.
  GemmSpec whole = spec;
  whole.splitK = 1;
  auto one = sm90ConfigFromSpec(whole);
  ASSERT_TRUE(bool(one)) << llvm::toString(one.takeError());
  EXPECT_FALSE(one->splitKCluster);

  // A layout the generator does not stage is an error, not ignored.
  GemmSpec sw64 = spec;
  sw64.smemB = layoutOf("tile_to_shape(K_SW64<bf16>, (64, 64))");
  auto bad = sm90ConfigFromSpec(sw64);
  ASSERT_FALSE(bool(bad));
  std::string message = llvm::toString(bad.takeError());
  EXPECT_EQ(message.find("smem b = " + sw64.smemB->str() +
                         " is not what the sm_90a generator stages; it stages "
                         "tile_to_shape(K_SW128<bf16>, (64,64)) = "),
            0u)
      << message;
}

} // namespace
} // namespace tilec

namespace tilec {
namespace {

TEST(Sm90ConfigFromSpec, SplitKLaunchesAsAClusterWhereItFits) {
  // 4 splits are one 1x1x4 cluster and need no workspace; 12 splits use
  // the workspace and no cluster.
  GemmSpec spec = decodeSpec();
  auto binary = emitGemm(spec);
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  EXPECT_EQ(binary->cluster.z, 4u);
  EXPECT_TRUE(binary->splitKCluster);
  EXPECT_EQ(binary->grid(64, 2112, 7168).z, 4u);
  EXPECT_EQ(binary->workspaceBytes(64, 2112), 0u);
  EXPECT_NE(binary->ptx.find("ld.shared::cluster.v4.f32"), std::string::npos);
  spec.splitK = 12;
  binary = emitGemm(spec);
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  EXPECT_EQ(binary->cluster.z, 1u);
  EXPECT_FALSE(binary->splitKCluster);
  EXPECT_EQ(binary->workspaceBytes(64, 2112), 33ull * 12 * 64 * 64 * 4);
  EXPECT_EQ(binary->ptx.find("barrier.cluster"), std::string::npos);
}

} // namespace
} // namespace tilec
