//===- tests/unit/GemmGridRuleTest.cpp - A compiled kernel's grid ---------===//
//
// GemmKernelBinary::grid evaluates the grid rule the generator left on the
// binary (GemmGridRule); the numbers are worked by hand from each target's
// kernel documentation (codegen/Sm90Gemm.h, codegen/Sm100Gemm.h).
//
//===----------------------------------------------------------------------===//
#include "codegen/GemmCodegen.h"

#include <gtest/gtest.h>

namespace tilec {
namespace {

void expectGrid(const GemmKernelBinary &kernel, uint64_t m, uint64_t n,
                unsigned sms, Dim3 want) {
  Dim3 got = kernel.grid(m, n, 64, sms);
  EXPECT_EQ(got.x, want.x) << m << " x " << n << " on " << sms << " SMs";
  EXPECT_EQ(got.y, want.y) << m << " x " << n << " on " << sms << " SMs";
  EXPECT_EQ(got.z, want.z) << m << " x " << n << " on " << sms << " SMs";
}

/// An sm_90a kernel's facts as sm90GemmBinary sets them.
GemmKernelBinary sm90Kernel(unsigned tileM, unsigned tileN, unsigned clusterM) {
  GemmKernelBinary kernel;
  kernel.arch = ArchKind::SM90a;
  kernel.tileM = tileM, kernel.tileN = tileN;
  kernel.cluster = {clusterM, 1, 1};
  kernel.gridRule.linear = false;
  kernel.gridRule.tilesPerCluster = clusterM;
  return kernel;
}

TEST(GemmGridRule, OneCtaPerTileOnSm80) {
  GemmKernelBinary kernel;
  kernel.tileM = 128, kernel.tileN = 128;
  expectGrid(kernel, 300, 520, 132, {3 * 5, 1, 1});
}

TEST(GemmGridRule, Sm90RoundsClustersAndCapsPersistentGrids) {
  // 128 x 256 tiles, 2x1 clusters, 300 x 520: 3 row tiles rounded up to
  // whole clusters.
  GemmKernelBinary kernel = sm90Kernel(128, 256, 2);
  expectGrid(kernel, 300, 520, 132, {4, 3, 1});
  kernel = sm90Kernel(128, 256, 1);
  expectGrid(kernel, 300, 520, 132, {3, 3, 1});
  // Persistent: 32 x 16 tiles of 4096^2 on 132 SMs; clusters of 2 on 131
  // SMs give 65 cluster slots, a whole number of clusters.
  kernel.persistent = true;
  expectGrid(kernel, 4096, 4096, 132, {132, 1, 1});
  expectGrid(kernel, 4096, 4096, 0, {32 * 16, 1, 1});
  kernel = sm90Kernel(128, 256, 2);
  kernel.persistent = true;
  expectGrid(kernel, 4096, 4096, 131, {130, 1, 1});
  expectGrid(kernel, 300, 256, 132, {4, 1, 1}); // 2 cluster tiles of 2 CTAs
  // Split-K goes to z.
  kernel = sm90Kernel(128, 256, 1);
  kernel.splitK = 4;
  expectGrid(kernel, 128, 256, 132, {1, 1, 4});
  // Swap-AB: the A role tiles the user's N (a 64 x 128 user tile is a 128 x
  // 64 kernel tile), and the cluster rounds the role's rows: N = 4096 is
  // 32 role tiles, M = 100 two.
  kernel = sm90Kernel(64, 128, 2);
  kernel.swapAB = true;
  expectGrid(kernel, 100, 4096, 132, {32, 2, 1});
}

TEST(GemmGridRule, Sm90ColumnClustersRoundTheColumnTiles) {
  // 256 x 128 tiles in 1x2 clusters (cluster_n(2)) on the grid: 300 x 520
  // is 2 row tiles by 5 column tiles, rounded up to 6 (3 clusters along y).
  GemmKernelBinary kernel = sm90Kernel(256, 128, 1);
  kernel.cluster = {1, 2, 1};
  kernel.gridRule.columnsPerCluster = 2;
  expectGrid(kernel, 300, 520, 132, {2, 6, 1});
  // Persistent: (2, 1, 1) clusters on a 1-D grid of cluster tiles (one row
  // tile by two column tiles): 4096^2 is 16 x 16 = 256 cluster tiles of
  // 2 CTAs, capped at 132 / 2 = 66 clusters; 300 x 520 has 2 x 3 = 6.
  kernel.cluster = {2, 1, 1};
  kernel.persistent = true;
  expectGrid(kernel, 4096, 4096, 132, {132, 1, 1});
  expectGrid(kernel, 4096, 4096, 131, {130, 1, 1});
  expectGrid(kernel, 300, 520, 132, {12, 1, 1});
}

TEST(GemmGridRule, Sm100WalksTilesAndSplitsOnPersistentCtas) {
  GemmKernelBinary kernel;
  kernel.arch = ArchKind::SM100a;
  kernel.tileM = 128, kernel.tileN = 256;
  kernel.persistent = true;
  kernel.gridRule.splitsInUnits = true;
  kernel.gridRule.batchWalksTiles = true;
  // 3 x 3 tiles x 2 splits = 18 units; capped by 148 SMs only above that.
  kernel.splitK = 2;
  expectGrid(kernel, 300, 520, 148, {18, 1, 1});
  expectGrid(kernel, 300, 520, 7, {7, 1, 1});
  // A CTA pair per 256 x 256 tile: 2 x 3 tiles, two CTAs each; 148 SMs hold
  // 74 pairs.
  kernel.splitK = 1;
  kernel.tileM = 256;
  kernel.cluster = {2, 1, 1};
  expectGrid(kernel, 300, 520, 148, {12, 1, 1});
  expectGrid(kernel, 8192, 8192, 148, {148, 1, 1});
  // Two pairs per 4x1 cluster take neighbouring tile rows: ceil(3 / 2) x
  // 3 clusters of 4 CTAs.
  kernel.cluster = {4, 1, 1};
  kernel.gridRule.tilesPerCluster = 2;
  expectGrid(kernel, 700, 520, 148, {2 * 3 * 4, 1, 1});
  // Batched: batch x M rounded up to tiles is one persistent GEMM.
  kernel = GemmKernelBinary{};
  kernel.tileM = 128, kernel.tileN = 128;
  kernel.persistent = true;
  kernel.gridRule.batchWalksTiles = true;
  kernel.batch = BatchSpec{};
  Dim3 got = kernel.grid(100, 300, 64, 148, 3);
  EXPECT_EQ(got.x, 3u * 3u); // 3 batches of 1 row tile x 3 column tiles
  EXPECT_EQ(got.z, 1u);
}

} // namespace
} // namespace tilec
