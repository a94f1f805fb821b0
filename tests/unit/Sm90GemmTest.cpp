//===- tests/unit/Sm90GemmTest.cpp - sm_90a GEMM codegen and ptxas --------===//
#include "codegen/Sm90Gemm.h"
#include "codegen/PtxInlineAsm.h"
#include "codegen/Ptxas.h"
#include "codegen/Sm90GemmSpec.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>
#include <regex>

namespace tilec {
namespace {

size_t countOf(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1))
    ++n;
  return n;
}

/// ptxas -arch=sm_90a -v: exit code and output.
std::pair<int, std::string> ptxasVerbose(const std::string &ptx) {
  llvm::Expected<PtxasRun> run = runPtxas(ptx, ArchKind::SM90a, {"-v"});
  if (!run)
    return {-1, llvm::toString(run.takeError())};
  return {run->exitCode, run->output};
}

TEST(Sm90InlineAsm, WgmmaTextExample) {
  ptx::WgmmaShape shape;
  shape.n = 8;
  std::string text = ptx::wgmmaSsText(shape);
  EXPECT_NE(text.find("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
                      "{$0, $1, $2, $3}, $8, $9, p, 1, 1, 0, 0;"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("setp.ne.b32 p, $10, 0;"), std::string::npos) << text;
}

TEST(TmaOperandTile, Sw128KMajorDescriptorFields) {
  // 128 x 64 bf16, K-major SW128: SBO = 1024 B (encoded 64), LBO encoded 1,
  // layout type 1 (128B swizzle) in bits 62-63, base offset 0.
  auto derived = tmaOperandTile(128, 64);
  ASSERT_TRUE(bool(derived)) << llvm::toString(derived.takeError());
  const TmaOperandTile &tile = *derived;
  // The exact high bits validated on the H200 (bench/results/).
  EXPECT_EQ(tile.descriptorHigh, 0x4000004000010000ull);
  EXPECT_EQ(tile.bytes, 16384u);
  EXPECT_EQ((tile.descriptorHigh >> 16) & 0x3FFF, 1u);
  EXPECT_EQ((tile.descriptorHigh >> 32) & 0x3FFF, 64u);
  EXPECT_EQ((tile.descriptorHigh >> 49) & 0x7, 0u);
  EXPECT_EQ(tile.descriptorHigh >> 62, 1u);
  EXPECT_EQ(tile.descriptorHigh & 0x3FFF, 0u);
  EXPECT_EQ(tile.kStepBytes, 32u);
  EXPECT_EQ(tile.mAtomBytes, 8192u);
}

TEST(TmaOperandTile, KStepsFollowTheSwizzledLayout) {
  // Independent check of the k16 advance: in Sw<3,4,3> o (8,64):(64,1) in
  // bf16 elements, element (r, k) sits at byte 2 * (64 r + k) with bits 4-6
  // xor'ed by bits 7-9. Row 0 is unswizzled, so the k16 subtile starts 32 B
  // after the previous one, and row r of a subtile stays 128 r bytes away
  // from row 0 before the swizzle: both are what the descriptor advance of
  // 32 B with base offset 0 asks of the hardware.
  auto derived = tmaOperandTile(64, 64);
  ASSERT_TRUE(bool(derived)) << llvm::toString(derived.takeError());
  const TmaOperandTile &tile = *derived;
  for (unsigned kk = 0; kk < 4; ++kk) {
    unsigned linear = 2 * (0 * 64 + kk * 16);
    unsigned swizzled = linear ^ (((linear >> 7) & 7) << 4);
    EXPECT_EQ(swizzled, kk * tile.kStepBytes);
  }
}

TEST(Sm90GemmConfig, RejectsIllegalTilesWithNumbers) {
  Sm90GemmConfig bad;
  bad.bm = 96;
  llvm::Error err = verifySm90GemmConfig(bad);
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("BM = 96"), std::string::npos);
  bad = {};
  bad.bn = 260;
  err = verifySm90GemmConfig(bad);
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("BN = 260"), std::string::npos);
  bad = {};
  bad.stages = 6;
  err = verifySm90GemmConfig(bad);
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("232448"), std::string::npos);
  auto kernel = emitSm90Gemm(bad);
  ASSERT_FALSE(bool(kernel));
  llvm::consumeError(kernel.takeError());
  bad = {};
  bad.persistent = bad.splitK = true;
  err = verifySm90GemmConfig(bad);
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("persistent"),
            std::string::npos);
}

struct Case {
  const char *label;
  Sm90GemmConfig config;
};

class Sm90GemmPtx : public ::testing::TestWithParam<Case> {};

TEST_P(Sm90GemmPtx, EmitsTheWarpSpecializedPipeline) {
  const Sm90GemmConfig &config = GetParam().config;
  auto kernel = emitSm90Gemm(config);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  const std::string &ptx = kernel->ptx;
  if (const char *dump = std::getenv("TILEC_DUMP_PTX")) {
    std::error_code ec;
    llvm::raw_fd_ostream(std::string(dump) + "/" + GetParam().label + ".ptx",
                         ec)
        << ptx;
  }
  EXPECT_NE(ptx.find(".target sm_90a"), std::string::npos);
  EXPECT_NE(ptx.find(".param .align 64 .b8 " + config.name + "_param_0[128]"),
            std::string::npos);
  EXPECT_NE(ptx.find("cvta.param.u64"), std::string::npos);
  EXPECT_NE(ptx.find(".extern .shared .align 1024 .b8 tilec_smem[]"),
            std::string::npos);
  // Two tile loads per ring slot (LLVM may unroll the producer loop), less
  // the staged epilogue's loads of C for beta != 0: one per chunk, and a
  // bf16 chunk spans gcd(BN, 64) columns of the wgmma N (64 = one 128-byte
  // row, or the largest power of two dividing BN).
  unsigned chunks = config.bn / std::gcd(config.bn, 64u);
  size_t loads = countOf(ptx, "cp.async.bulk.tensor.2d.shared::cluster."
                              "global.mbarrier::complete_tx::bytes") -
                 chunks;
  EXPECT_GE(loads, 2u);
  EXPECT_EQ(loads % 2, 0u);
  std::string mma = "wgmma.mma_async.sync.aligned.m64n" +
                    std::to_string(config.bn) + "k16.f32.bf16.bf16";
  EXPECT_EQ(countOf(ptx, mma), config.bk / 16);
  EXPECT_NE(ptx.find("setmaxnreg.dec.sync.aligned.u32 40"), std::string::npos);
  EXPECT_NE(ptx.find("setmaxnreg.inc.sync.aligned.u32 " +
                     std::to_string(sm90RegisterSplit(config).second) + ";"),
            std::string::npos);
  if (config.splitK && !config.splitKCluster) {
    EXPECT_NE(ptx.find("atom.acq_rel.gpu.global.add.u32"), std::string::npos);
    EXPECT_NE(ptx.find("ld.global.cg.v4.f32"), std::string::npos);
    EXPECT_NE(ptx.find("%nctaid.z"), std::string::npos);
  }
  if (config.splitKCluster) {
    // Partials through distributed shared memory: stored in the own ring,
    // read by rank 0 through mapa, no workspace or counter traffic. Round
    // 1 is taken by the consumers and by the producer's threads, round 2 at
    // the exit.
    EXPECT_EQ(ptx.find("atom."), std::string::npos);
    EXPECT_EQ(ptx.find("ld.global.cg"), std::string::npos);
    EXPECT_EQ(ptx.find("st.global.v4"), std::string::npos);
    EXPECT_NE(ptx.find("st.shared.v4.f32"), std::string::npos);
    EXPECT_NE(ptx.find("mapa.shared::cluster.u32"), std::string::npos);
    EXPECT_NE(ptx.find("ld.shared::cluster.v4.f32"), std::string::npos);
    EXPECT_NE(ptx.find("%cluster_ctarank"), std::string::npos);
    EXPECT_NE(ptx.find("%nctaid.z"), std::string::npos);
    EXPECT_EQ(countOf(ptx, "barrier.cluster.arrive.release"), 3u);
    EXPECT_EQ(countOf(ptx, "barrier.cluster.wait.acquire"), 3u);
  }
  EXPECT_NE(ptx.find(".minnctapersm " + std::to_string(config.ctasPerSm)),
            std::string::npos);
  if (config.persistent) {
    EXPECT_NE(ptx.find("%nctaid.x"), std::string::npos);
  }
  if (config.clusterM > 1) {
    EXPECT_NE(ptx.find(".multicast::cluster"), std::string::npos);
    EXPECT_NE(ptx.find("mapa.shared::cluster.u32"), std::string::npos);
    EXPECT_NE(ptx.find("mbarrier.arrive.shared::cluster.b64"),
              std::string::npos);
    EXPECT_NE(ptx.find("%cluster_ctarank"), std::string::npos);
    EXPECT_GE(countOf(ptx, "barrier.cluster.wait.acquire"), 2u);
    EXPECT_EQ(kernel->clusterX, 2u);
    EXPECT_EQ(kernel->b.boxDims[1], config.bn / 2);
  } else {
    EXPECT_EQ(ptx.find("multicast"), std::string::npos);
    if (!config.splitKCluster) {
      EXPECT_EQ(ptx.find("barrier.cluster"), std::string::npos);
    }
    EXPECT_EQ(kernel->b.boxDims[1], config.bn);
  }
  EXPECT_NE(ptx.find("elect.sync"), std::string::npos);
  EXPECT_NE(ptx.find("mbarrier.arrive.expect_tx.shared::cta.b64"),
            std::string::npos);
  EXPECT_NE(ptx.find("wgmma.wait_group.sync.aligned 1"), std::string::npos);
  EXPECT_NE(ptx.find("wgmma.wait_group.sync.aligned 0"), std::string::npos);
  EXPECT_EQ(kernel->blockThreads, 128 * (1 + config.bm / 64));
  // The derived descriptor's high bits are or'ed into every descriptor.
  EXPECT_NE(ptx.find("or.b64"), std::string::npos);
  EXPECT_NE(ptx.find(std::to_string(kernel->a.descriptorHigh)),
            std::string::npos)
      << kernel->a.layout;
}

TEST_P(Sm90GemmPtx, AssemblesWithoutSerializationOrSpills) {
  if (!findPtxas())
    GTEST_SKIP() << "SKIP: ptxas not found; PTX not assembled";
  auto kernel = emitSm90Gemm(GetParam().config);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  auto [rc, said] = ptxasVerbose(kernel->ptx);
  ASSERT_EQ(rc, 0) << said;
  // ptxas warns when it must serialize wgmma (an accumulator touched while
  // in flight) or ignores setmaxnreg (no register cap at entry).
  EXPECT_EQ(said.find("warning"), std::string::npos) << said;
  EXPECT_NE(said.find("0 bytes spill stores"), std::string::npos) << said;
  EXPECT_NE(said.find("0 bytes stack frame"), std::string::npos) << said;
}

TEST(Sm90RegisterSplit, ProducerGivesWhatConsumersTake) {
  // 65536 registers per SM; 128 producer threads at 40.
  Sm90GemmConfig config; // BM 128: two consumer warpgroups
  EXPECT_EQ(sm90RegisterSplit(config), std::make_pair(40u, 232u));
  config.bm = 64;
  config.bn = 128;
  config.ctasPerSm = 2; // (32768 - 5120) / 128 = 216
  EXPECT_EQ(sm90RegisterSplit(config), std::make_pair(40u, 216u));
  // BM 128: 384 threads launch at 80 registers each (768 per SM), a pool
  // of 30720, not 32768: (30720 - 5120) / 256 = 100 -> 96 (104 would wait
  // in setmaxnreg.inc forever).
  config.bm = 128;
  EXPECT_EQ(sm90RegisterSplit(config), std::make_pair(40u, 96u));
  // ptxas compiles the whole kernel under the launch cap: 768 threads per
  // SM leave 80 registers, fewer than m64n128's 64 accumulators + 24 (2
  // stages, so that the shared memory of 2 CTAs fits and the register rule
  // is the one that fails).
  config.stages = 2;
  llvm::Error err = verifySm90GemmConfig(config);
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("at 80 registers"),
            std::string::npos);
}

Sm90GemmConfig makeConfig(unsigned bm, unsigned bn, unsigned stages, bool swap,
                          bool splitK = false, unsigned ctasPerSm = 1,
                          bool persistent = false, unsigned clusterM = 1) {
  Sm90GemmConfig config;
  config.clusterM = clusterM;
  config.persistent = persistent;
  config.splitK = splitK;
  config.ctasPerSm = ctasPerSm;
  config.bm = bm;
  config.bn = bn;
  config.stages = stages;
  config.swapAB = swap;
  return config;
}

/// \p config with split-K reduced in a cluster.
Sm90GemmConfig clusterSplitK(Sm90GemmConfig config) {
  config.splitK = config.splitKCluster = true;
  return config;
}

INSTANTIATE_TEST_SUITE_P(
    Tiles, Sm90GemmPtx,
    ::testing::Values(
        Case{"bm128_bn256_s4", makeConfig(128, 256, 4, false)},
        Case{"bm128_bn128_s6", makeConfig(128, 128, 6, false)},
        Case{"bm64_bn64_s8", makeConfig(64, 64, 8, false)},
        Case{"swap_bm128_bn64_s8", makeConfig(128, 64, 8, true)},
        Case{"swap_bm128_bn128_s6", makeConfig(128, 128, 6, true)},
        Case{"splitk_swap_bm64_bn64_s8", makeConfig(64, 64, 8, true, true)},
        Case{"splitk_bm128_bn256_s4", makeConfig(128, 256, 4, false, true)},
        Case{"cta2_splitk_swap_bm64_bn128_s3",
             makeConfig(64, 128, 3, true, true, 2)},
        Case{"persistent_bm128_bn256_s4",
             makeConfig(128, 256, 4, false, false, 1, true)},
        Case{"persistent_swap_bm64_bn64_s8",
             makeConfig(64, 64, 8, true, false, 1, true)},
        Case{"cluster2_bm128_bn256_s4",
             makeConfig(128, 256, 4, false, false, 1, false, 2)},
        Case{"cluster2_persistent_bm128_bn256_s4",
             makeConfig(128, 256, 4, false, false, 1, true, 2)},
        Case{"cluster2_splitk_swap_bm64_bn64_s12",
             makeConfig(64, 64, 12, true, true, 1, false, 2)},
        Case{"clustersplitk_swap_bm64_bn64_s13",
             clusterSplitK(makeConfig(64, 64, 13, true))},
        Case{"clustersplitk_swap_bm64_bn128_s8",
             clusterSplitK(makeConfig(64, 128, 8, true))},
        Case{"clustersplitk_bm128_bn256_s4",
             clusterSplitK(makeConfig(128, 256, 4, false))},
        Case{"clustersplitk_cta2_swap_bm64_bn128_s3",
             clusterSplitK(makeConfig(64, 128, 3, true, false, 2))}),
    [](const auto &info) { return std::string(info.param.label); });

} // namespace
} // namespace tilec

namespace tilec {
namespace {

TEST(Sm90Gemm, SameConfigGivesByteIdenticalPtx) {
  Sm90GemmConfig config;
  config.persistent = true;
  auto first = emitSm90Gemm(config);
  auto second = emitSm90Gemm(config);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  ASSERT_TRUE(bool(second)) << llvm::toString(second.takeError());
  EXPECT_TRUE(first->ptx == second->ptx);
}

} // namespace
} // namespace tilec

namespace tilec {
namespace {

TEST(Sm90Cluster, RejectsClusterShapesWithNumbers) {
  Sm90GemmConfig bad;
  bad.clusterM = 4;
  llvm::Error err = verifySm90GemmConfig(bad);
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("clusterM = 4"),
            std::string::npos);
  bad = {};
  bad.clusterM = 2;
  bad.bn = 72; // halves of 36 rows are not whole 8-row atoms
  err = verifySm90GemmConfig(bad);
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("BN = 72"), std::string::npos);
}

} // namespace
} // namespace tilec

namespace tilec {
namespace {

TEST(Sm90Cluster, LaunchMetadataCarriesTheCluster) {
  // What host/GemmLauncher launches with: cluster dims, the half-height
  // B box, a grid of whole clusters and split-K tiles counted on that grid.
  Sm90GemmConfig config;
  config.clusterM = 2;
  auto kernel = emitSm90Gemm(config);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  auto built = sm90GemmBinary(std::move(*kernel));
  ASSERT_TRUE(bool(built)) << llvm::toString(built.takeError());
  GemmKernelBinary binary = std::move(*built);
  EXPECT_EQ(binary.cluster.x, 2u);
  ASSERT_EQ(binary.tensorMaps.size(), 3u);
  EXPECT_EQ(binary.tensorMaps[0].boxOuter, 128u);
  EXPECT_EQ(binary.tensorMaps[1].boxOuter, 128u); // 256 / 2
  // C's box is one staging chunk, 64 rows of 64 bf16, whole per CTA.
  EXPECT_EQ(binary.tensorMaps[2].matrix, 'C');
  EXPECT_EQ(binary.tensorMaps[2].boxOuter, 64u);
  EXPECT_EQ(binary.tensorMaps[2].boxInner, 64u);
  Dim3 grid = binary.grid(300, 520, 136, 132);
  EXPECT_EQ(grid.x, 4u); // 3 row tiles in 2 clusters
  EXPECT_EQ(grid.y, 3u);
  config.persistent = true;
  kernel = emitSm90Gemm(config);
  ASSERT_TRUE(bool(kernel));
  built = sm90GemmBinary(std::move(*kernel));
  ASSERT_TRUE(bool(built)) << llvm::toString(built.takeError());
  binary = std::move(*built);
  grid = binary.grid(4096, 4096, 4096, 131);
  EXPECT_EQ(grid.x, 130u); // 65 clusters of 2
  config.persistent = false;
  config.splitK = true;
  kernel = emitSm90Gemm(config);
  ASSERT_TRUE(bool(kernel));
  built = sm90GemmBinary(std::move(*kernel), 3);
  ASSERT_TRUE(bool(built)) << llvm::toString(built.takeError());
  binary = std::move(*built);
  // Tile ids run over the rounded grid: 4 x 3 tiles, not 3 x 3.
  EXPECT_EQ(binary.counterBytes(300, 520), 4u * 3u * 4u);
  EXPECT_EQ(binary.workspaceBytes(300, 520), 4ull * 3 * 3 * 128 * 256 * 4);
}

TEST(Sm90ClusterSplitK, LaunchesTheSplitsOfATileAsOneCluster) {
  Sm90GemmConfig config;
  config.bm = 64;
  config.bn = 64;
  config.stages = 13;
  config.swapAB = true;
  config.splitK = config.splitKCluster = true;
  auto kernel = emitSm90Gemm(config);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  Sm90GemmKernel copy = *kernel;
  auto built = sm90GemmBinary(std::move(*kernel), 4);
  ASSERT_TRUE(bool(built)) << llvm::toString(built.takeError());
  EXPECT_EQ(built->cluster.x, 1u);
  EXPECT_EQ(built->cluster.y, 1u);
  EXPECT_EQ(built->cluster.z, 4u);
  EXPECT_TRUE(built->splitKCluster);
  // M = 64, N = 2112 swapped: 33 x 1 tiles, z = the 4 splits = one cluster.
  Dim3 grid = built->grid(64, 2112, 7168, 132);
  EXPECT_EQ(grid.x, 33u);
  EXPECT_EQ(grid.y, 1u);
  EXPECT_EQ(grid.z, 4u);
  // No workspace and no counters: the partials stay on chip.
  EXPECT_EQ(built->workspaceBytes(64, 2112), 0u);
  EXPECT_EQ(built->counterBytes(64, 2112), 0u);
  // The parameter list is the workspace kernel's.
  EXPECT_EQ(built->params.size(), 13u);
  // 8 splits are the portable cluster size; 9 are an error naming both.
  auto eight = sm90GemmBinary(copy, 8);
  ASSERT_TRUE(bool(eight)) << llvm::toString(eight.takeError());
  EXPECT_EQ(eight->cluster.z, 8u);
  auto nine = sm90GemmBinary(copy, 9);
  ASSERT_FALSE(bool(nine));
  std::string message = llvm::toString(nine.takeError());
  EXPECT_NE(message.find("split-K over 9 CTAs"), std::string::npos) << message;
  EXPECT_NE(message.find("at most 8"), std::string::npos) << message;
}

TEST(Sm90ClusterSplitK, RejectsIllegalModesWithNumbers) {
  auto errorOf = [](const Sm90GemmConfig &config) {
    llvm::Error err = verifySm90GemmConfig(config);
    return err ? llvm::toString(std::move(err)) : std::string();
  };
  Sm90GemmConfig bad;
  bad.splitKCluster = true; // without splitK
  EXPECT_NE(errorOf(bad).find("it needs splitK"), std::string::npos)
      << errorOf(bad);
  bad.splitK = true;
  bad.clusterM = 2;
  EXPECT_NE(errorOf(bad).find("clusterM = 2"), std::string::npos)
      << errorOf(bad);
  bad.clusterM = 1;
  bad.persistent = true;
  EXPECT_NE(errorOf(bad).find("splitKCluster with a persistent kernel"),
            std::string::npos)
      << errorOf(bad);
  // A ring smaller than one f32 partial: BM 128, BN 256, BK 16 bf16 in 2
  // stages is 2 x 384 x 32 = 24576 bytes against 131072.
  bad = {};
  bad.splitK = bad.splitKCluster = true;
  bad.bk = 16;
  bad.stages = 2;
  EXPECT_NE(errorOf(bad).find("128 x 256 (131072 bytes) in the ring, which "
                              "has 24576 bytes (2 stages)"),
            std::string::npos)
      << errorOf(bad);
  EXPECT_FALSE(sm90SplitKClusterFits(bad, 4));
  auto kernel = emitSm90Gemm(bad);
  ASSERT_FALSE(bool(kernel));
  llvm::consumeError(kernel.takeError());
  // The same tile in the workspace mode is legal.
  bad.splitKCluster = false;
  EXPECT_EQ(errorOf(bad), "");
}

TEST(Sm90ClusterSplitK, FitsTheHeaderExample) {
  Sm90GemmConfig config;
  config.bm = 64;
  config.bn = 64;
  config.stages = 13;
  EXPECT_EQ(sm90RingBytes(config), 212992u);
  EXPECT_TRUE(sm90SplitKClusterFits(config, 4));
  EXPECT_TRUE(sm90SplitKClusterFits(config, 8));
  EXPECT_FALSE(sm90SplitKClusterFits(config, 9));
  EXPECT_FALSE(sm90SplitKClusterFits(config, 1));
  config.clusterM = 2;
  EXPECT_FALSE(sm90SplitKClusterFits(config, 4));
  config.clusterM = 1;
  config.persistent = true;
  EXPECT_FALSE(sm90SplitKClusterFits(config, 4));
}

} // namespace
} // namespace tilec
