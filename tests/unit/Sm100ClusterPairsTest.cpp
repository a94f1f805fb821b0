//===- tests/unit/Sm100ClusterPairsTest.cpp - cluster(4) on sm_100a -------===//
//
// `schedule cluster(4)`: two CTA pairs of tcgen05.mma.cta_group::2 in a 4x1
// cluster multicasting the B tile they share (docs/sm100.md, "Clusters of
// two pairs"). The launch (cluster dims, the grid of cluster tiles), the B
// map's box (a quarter of the pair's BN rows), the PTX's multicast loads,
// commit masks and barrier counts, ptxas, and the rules with what is legal.
//
//===----------------------------------------------------------------------===//
#include "codegen/Ptxas.h"
#include "codegen/Sm100Gemm.h"
#include "codegen/Sm100GemmSpec.h"

#include <gtest/gtest.h>

#include <string>

namespace tilec {
namespace {

size_t countOf(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1))
    ++n;
  return n;
}

Sm100GemmConfig twoPairs(unsigned bn = 256) {
  Sm100GemmConfig config;
  config.bm = 256;
  config.bn = bn;
  config.ctaGroup = 2;
  config.clusterPairs = 2;
  return config;
}

TEST(Sm100ClusterPairs, LaunchesClustersOfFourOverPairsOfTileRows) {
  auto kernel = emitSm100Gemm(twoPairs());
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  GemmKernelBinary binary = sm100GemmBinary(std::move(*kernel));
  EXPECT_EQ(binary.cluster.x, 4u);
  EXPECT_EQ(binary.cluster.y, 1u);
  // 600 x 520: 3 x 3 pair tiles of 256 x 256, 2 rows of two pair tiles:
  // 6 cluster tiles. 8 SMs hold 2 clusters; unknown SMs, one per tile.
  EXPECT_EQ(binary.grid(600, 520, 64, 8).x, 8u);
  EXPECT_EQ(binary.grid(600, 520, 64, 4).x, 4u);
  EXPECT_EQ(binary.grid(600, 520, 64, 0).x, 24u);
  EXPECT_EQ(binary.grid(600, 520, 64, 148).x, 24u);
  // Fewer SMs than a cluster still launches one.
  EXPECT_EQ(binary.grid(600, 520, 64, 2).x, 4u);
  // The B map's box is BN / 4 rows; A's the CTA's 128.
  ASSERT_EQ(binary.tensorMaps.size(), 2u);
  EXPECT_EQ(binary.tensorMaps[0].boxOuter, 128u);
  EXPECT_EQ(binary.tensorMaps[1].boxOuter, 64u);
}

TEST(Sm100ClusterPairs, OnePairKeepsItsLaunch) {
  Sm100GemmConfig config = twoPairs();
  config.clusterPairs = 1;
  auto kernel = emitSm100Gemm(config);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  GemmKernelBinary binary = sm100GemmBinary(std::move(*kernel));
  EXPECT_EQ(binary.cluster.x, 2u);
  // 3 x 3 pair tiles, one pair each.
  EXPECT_EQ(binary.grid(600, 520, 64, 0).x, 18u);
  EXPECT_EQ(binary.tensorMaps[1].boxOuter, 128u);
}

TEST(Sm100ClusterPairs, PtxMulticastsBAndCommitsToBothPairs) {
  for (unsigned bn : {256u, 128u, 32u}) {
    auto kernel = emitSm100Gemm(twoPairs(bn));
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    const std::string &ptx = kernel->ptx;
    // One B load per slot, multicast with .cta_group::2; A's unicast.
    EXPECT_EQ(countOf(ptx, "cp.async.bulk.tensor.2d.cta_group::2.shared::"
                           "cluster.global.mbarrier::complete_tx::bytes."
                           "multicast::cluster"),
              1u);
    EXPECT_EQ(countOf(ptx, "cp.async.bulk.tensor.2d.cta_group::2.shared::"
                           "cluster.global.mbarrier::complete_tx::bytes ["),
              1u);
    // The B mask 0b0101 shifted by the pair rank; slot commits to all four
    // CTAs (15), accumulator-full commits to the pair (3 << leader rank).
    EXPECT_EQ(countOf(ptx, "mov.b16 \t%rs"), 2u) << bn;
    EXPECT_NE(ptx.find(", 5;"), std::string::npos);
    EXPECT_NE(ptx.find(", 15;"), std::string::npos);
    // Four empty barriers count 2 (both pairs' commits).
    EXPECT_EQ(countOf(ptx, "], 2;"), 4u) << bn;
    // The leader arms its full barrier with the pair's 2 x stage bytes.
    unsigned stage = 2 * (128 + bn / 2) * 64 * 2;
    EXPECT_NE(ptx.find(", " + std::to_string(stage) + ";"), std::string::npos)
        << stage;
    EXPECT_EQ(countOf(ptx, "tcgen05.commit.cta_group::2.mbarrier::arrive::"
                           "one.shared::cluster.multicast::cluster.b64"),
              2u);
    if (findPtxas()) {
      llvm::Error err = assembleWithPtxas(ptx, ArchKind::SM100a);
      EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
    }
  }
}

TEST(Sm100ClusterPairs, RulesNameWhatIsLegal) {
  auto message = [](const Sm100GemmConfig &config) {
    llvm::Error err = verifySm100GemmConfig(config);
    return err ? llvm::toString(std::move(err)) : std::string();
  };
  EXPECT_EQ(message(twoPairs()), "");
  EXPECT_EQ(message(twoPairs(32)), "");
  EXPECT_NE(message(twoPairs(48)).find("BN must be a multiple of 32"),
            std::string::npos)
      << message(twoPairs(48));
  Sm100GemmConfig config = twoPairs();
  config.bMajor = MajorKind::MN;
  EXPECT_NE(message(config).find("store it K-major or use cluster(2)"),
            std::string::npos)
      << message(config);
  config = twoPairs();
  config.batch = BatchSpec{};
  EXPECT_NE(message(config).find("cluster(4) with a batch is not implemented"),
            std::string::npos)
      << message(config);
  config = twoPairs();
  config.ctaGroup = 1;
  config.bm = 128;
  EXPECT_NE(message(config).find("cluster(2) is one pair, cluster(4) two"),
            std::string::npos)
      << message(config);
}

} // namespace
} // namespace tilec
