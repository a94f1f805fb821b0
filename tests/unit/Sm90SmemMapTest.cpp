//===- tests/unit/Sm90SmemMapTest.cpp - The sm_90a shared-memory map ------===//
//
// The map's offsets, typed by hand from the tile sizes (not from the code
// under test), and the kernel builder requesting exactly the map's total.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90SmemMap.h"
#include "codegen/Sm90Gemm.h"

#include <gtest/gtest.h>

using namespace tilec;

namespace {

Sm90GemmConfig exampleConfig() {
  Sm90GemmConfig config; // examples/gemm_sm90.tile's tile
  config.bm = 128;
  config.bn = 256;
  config.bk = 64;
  config.stages = 4;
  config.storeSwizzleBytes = 128;
  return config;
}

} // namespace

TEST(Sm90SmemMapTest, HeaderExample) {
  Sm90SmemMap map = sm90SmemMap(exampleConfig());
  // Two consumer warpgroups x two 64 x 64 bf16 staging buffers (8192 B).
  EXPECT_EQ(map.stagingBytes, 2u * 2 * 8192);
  EXPECT_EQ(map.aRing(), 32768u);
  EXPECT_EQ(map.bRing(), 32768u + 4 * 128 * 64 * 2);    // 98304
  EXPECT_EQ(map.barriers(), 98304u + 4 * 256 * 64 * 2); // 229376
  EXPECT_EQ(map.flag(), 229376u + 4 * 16);              // 229440
  EXPECT_EQ(map.cLoadBarriers(), 229440u + 16);
  EXPECT_EQ(map.end(), 229456u + 16);
  EXPECT_EQ(map.totalBytes(), 229472u + 1024);
  EXPECT_EQ(sm90SharedBytes(exampleConfig()), 230496u);
  // The parts account for every byte.
  EXPECT_EQ(map.stagingBytes + map.ringBytes() +
                map.stages * Sm90SmemMap::BarrierPairBytes + map.fixedBytes(),
            map.totalBytes());
}

TEST(Sm90SmemMapTest, DirectStoresHaveNoStagingOrCLoadBarriers) {
  Sm90GemmConfig config = exampleConfig();
  config.storeTma = false;
  Sm90SmemMap map = sm90SmemMap(config);
  EXPECT_EQ(map.stagingBytes, 0u);
  EXPECT_EQ(map.aRing(), 0u);
  EXPECT_EQ(map.cLoadBarrierBytes(), 0u);
  EXPECT_EQ(map.totalBytes(), 1024u + 4 * (128 + 256) * 64 * 2 + 4 * 16 + 16);
}

TEST(Sm90SmemMapTest, KernelRequestsTheMapsTotal) {
  for (bool storeTma : {true, false}) {
    Sm90GemmConfig config = exampleConfig();
    config.storeTma = storeTma;
    auto kernel = emitSm90Gemm(config);
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    EXPECT_EQ(kernel->sharedBytes, sm90SmemMap(config).totalBytes());
    // The barriers are addressed at the map's offset from the aligned base.
    EXPECT_NE(kernel->ptx.find(std::to_string(sm90SmemMap(config).barriers())),
              std::string::npos);
  }
}

namespace {

EpilogueOp operandOp(EpilogueOpKind kind, EpilogueAxis axis) {
  EpilogueOp op{kind};
  op.axis = axis;
  return op;
}

} // namespace

// The column stage (codegen/Sm90ColumnStage.h): BN floats per per-column
// operand and two mbarriers after the C-load barriers, only where the ring
// and staging leave room under the 232448 bytes a CTA may have.
TEST(Sm90SmemMapTest, ColumnStageTakesOnlyWhatIsLeft) {
  Sm90GemmConfig config = exampleConfig();
  config.epilogueOps = {operandOp(EpilogueOpKind::Bias, EpilogueAxis::Col)};
  Sm90SmemMap map = sm90SmemMap(config);
  EXPECT_EQ(map.columnValueBytes, 256u * 4);
  EXPECT_EQ(map.columnBarriers(), 229472u);
  EXPECT_EQ(map.columnValues(), 229472u + 16);
  EXPECT_EQ(map.totalBytes(), 229488u + 1024 + 1024); // 231536 <= 232448
  auto kernel = emitSm90Gemm(config);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ(kernel->sharedBytes, 231536u);

  // Two column operands need 2048 bytes: 232560 would pass the limit, so
  // the kernel keeps loading them from global memory.
  config.epilogueOps.push_back(
      operandOp(EpilogueOpKind::Scale, EpilogueAxis::Col));
  EXPECT_EQ(sm90SmemMap(config).columnValueBytes, 0u);
  EXPECT_EQ(sm90SmemMap(config).totalBytes(), 230496u);
  // With a stage less (49152 bytes freed) they fit.
  config.stages = 3;
  EXPECT_EQ(sm90SmemMap(config).columnValueBytes, 2u * 256 * 4);

  // A row operand stays in registers; under swap-AB C's rows are the
  // kernel's columns, so bias(row) is staged and bias(col) is not.
  config.epilogueOps = {operandOp(EpilogueOpKind::Bias, EpilogueAxis::Row)};
  EXPECT_EQ(sm90SmemMap(config).columnValueBytes, 0u);
  config.swapAB = true;
  EXPECT_EQ(sm90SmemMap(config).columnValueBytes, 256u * 4);
  config.epilogueOps = {operandOp(EpilogueOpKind::Bias, EpilogueAxis::Col)};
  EXPECT_EQ(sm90SmemMap(config).columnValueBytes, 0u);

  // A decode tile whose column values all preload into registers (64 x 192
  // with one operand) needs no stage.
  config = exampleConfig();
  config.bm = 64;
  config.bn = 192;
  config.epilogueOps = {operandOp(EpilogueOpKind::Bias, EpilogueAxis::Col)};
  EXPECT_EQ(sm90SmemMap(config).columnValueBytes, 0u);
}

// Staged block scales (sm90StagesBlockScales): a lone consumer warpgroup
// of 64 rows, or two of 128 rows without a cluster, promoting the whole BN,
// unswapped, stages them; a
// slot's scale area holds BM A scales and the tile's B scale slots (BN 96
// meets two 128-column scale blocks), rounded to 16 bytes, after the rest.
TEST(Sm90SmemMapTest, StagedBlockScalesFollowTheRest) {
  Sm90GemmConfig config;
  config.aType = config.bType = DTypeKind::E4M3;
  config.bm = 64;
  config.bn = 96;
  config.bk = 128;
  config.stages = 10;
  config.storeTma = false;
  config.blockScale = BlockScaleSpec{};
  EXPECT_TRUE(sm90StagesBlockScales(config));
  EXPECT_EQ(sm90ScaleStageBytes(config), 272u); // 4 x (64 + 2) -> 16 B units
  Sm90SmemMap map = sm90SmemMap(config);
  EXPECT_EQ(map.scaleStageBytes, 272u);
  unsigned ring = 10 * (64 + 96) * 128; // e4m3: one byte an element
  EXPECT_EQ(map.barriers(), ring);
  EXPECT_EQ(map.scaleRing(), ring + 10 * 16 + 16); // after barriers + flag
  EXPECT_EQ(map.totalBytes(), 1024 + ring + 10 * 16 + 16 + 10 * 272);
  auto kernel = emitSm90Gemm(config);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ(kernel->sharedBytes, map.totalBytes());

  Sm90GemmConfig twoWarpgroups = config;
  twoWarpgroups.bm = 128;
  EXPECT_FALSE(sm90StagesBlockScales(twoWarpgroups));
  EXPECT_EQ(sm90ScaleStageBytes(twoWarpgroups), 0u);
  // 256 rows: 256 A scales and one B scale slot, 16-byte units.
  Sm90GemmConfig rows256 = config;
  rows256.bm = 256;
  rows256.bn = 128;
  rows256.stages = 3;
  EXPECT_TRUE(sm90StagesBlockScales(rows256));
  EXPECT_EQ(sm90ScaleStageBytes(rows256), 1040u); // 4 x (256 + 1) -> 1040
  auto wide = emitSm90Gemm(rows256);
  ASSERT_TRUE(bool(wide)) << llvm::toString(wide.takeError());
  EXPECT_EQ(wide->sharedBytes, sm90SmemMap(rows256).totalBytes());
  rows256.clusterM = 2;
  EXPECT_FALSE(sm90StagesBlockScales(rows256));
  Sm90GemmConfig halves = config;
  halves.bn = 256;
  EXPECT_FALSE(sm90StagesBlockScales(halves));
  Sm90GemmConfig swapped = config;
  swapped.swapAB = true;
  EXPECT_FALSE(sm90StagesBlockScales(swapped));
  config.blockScale.reset();
  EXPECT_FALSE(sm90StagesBlockScales(config));
}
