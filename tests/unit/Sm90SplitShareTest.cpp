//===- tests/unit/Sm90SplitShareTest.cpp - Split-K cluster shares ---------===//
//
// sm90SplitShares: which 8-column blocks of a tile each CTA of a split-K
// cluster sums and stores (whole staging chunks, as evenly as they divide),
// typed by hand from the tile sizes; and a kernel built for S splits
// refusing a launch of another count.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90Epilogue.h"
#include "codegen/Sm90Gemm.h"
#include "codegen/Sm90GemmSpec.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

using namespace tilec;

namespace {

std::vector<std::pair<unsigned, unsigned>>
sharesOf(const Sm90GemmConfig &config, unsigned splits) {
  auto staging = sm90EpilogueTile(config);
  EXPECT_TRUE(bool(staging)) << llvm::toString(staging.takeError());
  std::vector<std::pair<unsigned, unsigned>> out;
  for (Sm90EpilogueBlocks share : sm90SplitShares(config, *staging, splits))
    out.push_back({share.first, share.end});
  return out;
}

Sm90GemmConfig decodeConfig() {
  Sm90GemmConfig config; // the heuristic's 128 x 4096 x 7168 tile
  config.bm = 64;
  config.bn = 128;
  config.stages = 8;
  config.swapAB = true;
  config.splitK = config.splitKCluster = true;
  config.storeSwizzleBytes = 128;
  return config;
}

} // namespace

TEST(Sm90SplitShare, WholeChunksAsEvenlyAsTheyDivide) {
  using Shares = std::vector<std::pair<unsigned, unsigned>>;
  // BN 128 under swap-AB: the transposed staging tile is 64 rows of C per
  // chunk (8 blocks), 2 chunks: one each, or none for rank 0 of 3.
  Sm90GemmConfig config = decodeConfig();
  EXPECT_EQ(sharesOf(config, 2), (Shares{{0, 8}, {8, 16}}));
  EXPECT_EQ(sharesOf(config, 3), (Shares{{0, 0}, {0, 8}, {8, 16}}));
  // BN 256 unswapped: 64-column chunks, 4 of them over 3 CTAs.
  config.swapAB = false;
  config.bm = 128;
  config.bn = 256;
  config.stages = 4;
  EXPECT_EQ(sharesOf(config, 3), (Shares{{0, 8}, {8, 16}, {16, 32}}));
  // Direct stores (f32 C, no staging tile): whole blocks.
  config.cType = DTypeKind::F32;
  config.bn = 128;
  EXPECT_EQ(sharesOf(config, 3), (Shares{{0, 5}, {5, 10}, {10, 16}}));
}

TEST(Sm90SplitShare, AKernelBuiltForItsSplitsRefusesAnotherCount) {
  Sm90GemmConfig config = decodeConfig();
  config.clusterSplits = 2;
  auto kernel = emitSm90Gemm(config);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  Sm90GemmKernel copy = *kernel;
  auto two = sm90GemmBinary(std::move(*kernel), 2);
  ASSERT_TRUE(bool(two)) << llvm::toString(two.takeError());
  EXPECT_EQ(two->cluster.z, 2u);
  auto three = sm90GemmBinary(std::move(copy), 3);
  ASSERT_FALSE(bool(three));
  std::string message = llvm::toString(three.takeError());
  EXPECT_NE(message.find("reduces its 2 K splits in a cluster"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("asks for 3 splits"), std::string::npos) << message;
}
