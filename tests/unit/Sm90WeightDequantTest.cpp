//===- tests/unit/Sm90WeightDequantTest.cpp - Weights on sm_90a -----------===//
//
// The sm_90a W4A16 / W8A16 kernel's plan (codegen/Sm90WeightDequant.h): the RS
// wgmma text, the slot geometry and TMA tiles against hand-computed figures,
// the CTAs per SM, the generator's own refusals, and the emitted kernel through
// ptxas (no wgmma serialization, no spill).
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90WeightDequant.h"
#include "codegen/PtxInlineAsm.h"
#include "codegen/Ptxas.h"
#include "codegen/Sm90Gemm.h"
#include "codegen/Sm90SmemMap.h"

#include <gtest/gtest.h>

using namespace tilec;

namespace {

Sm90GemmConfig int4Config(unsigned bm, unsigned bn, unsigned group,
                          bool zeros) {
  Sm90GemmConfig config;
  config.bm = bm;
  config.bn = bn;
  config.bk = 64;
  config.stages = 8;
  config.swapAB = true;
  config.aType = DTypeKind::BF16;
  config.bType = zeros ? DTypeKind::U4 : DTypeKind::I4;
  config.cType = DTypeKind::BF16;
  config.weightQuant = WeightQuantSpec{group, DTypeKind::BF16, zeros};
  return config;
}

TEST(Sm90WeightDequant, RsWgmmaTextTakesFourARegistersAndTransB) {
  ptx::WgmmaShape shape;
  shape.n = 8;
  // m64n8: 4 accumulators ($0..$3, tied $4..$7), A $8..$11, B $12, d $13.
  EXPECT_NE(ptx::wgmmaRsText(shape).find(
                "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, "
                "$2, $3}, {$8, $9, $10, $11}, $12, p, 1, 1, 0;"),
            std::string::npos)
      << ptx::wgmmaRsText(shape);
  EXPECT_NE(ptx::wgmmaRsText(shape).find("setp.ne.b32 p, $13, 0;"),
            std::string::npos);
}

TEST(Sm90WeightDequant, SlotGeometryByHand) {
  // BM 128, BK 64, group 32: 4096 code bytes, two group rows of 128 bf16
  // scales (512 bytes) and u8 zero points (256).
  Sm90WeightStage stage = sm90WeightStage(int4Config(128, 16, 32, true));
  EXPECT_EQ(stage.codeBytes, 4096u);
  EXPECT_EQ(stage.scaleRows, 2u);
  EXPECT_EQ(stage.scaleBytes, 512u);
  EXPECT_EQ(stage.zeroBytes, 256u);
  // BM 64, group 128 (one row for two slots), no zero points: 64 scales of
  // 2 bytes rounded up to 128.
  stage = sm90WeightStage(int4Config(64, 16, 128, false));
  EXPECT_EQ(stage.codeBytes, 2048u);
  EXPECT_EQ(stage.scaleRows, 1u);
  EXPECT_EQ(stage.scaleBytes, 128u);
  EXPECT_EQ(stage.zeroBytes, 0u);
}

TEST(Sm90WeightDequant, CodesAreOneU64BoxOfBlockRows) {
  Sm90WeightTiles tiles = sm90WeightTiles(int4Config(128, 16, 32, true));
  // Box (BK, BM / 16): 64 u64 of 8 block rows = 4096 bytes, no swizzle.
  EXPECT_EQ(tiles.codes.boxDims[0], 64u);
  EXPECT_EQ(tiles.codes.boxDims[1], 8u);
  EXPECT_EQ(tiles.codes.bytes, 4096u);
  EXPECT_EQ(tiles.codes.swizzleBytes, 0u);
  EXPECT_EQ(tiles.codes.layout, "((8,2,8),(2,4,2,4,1)):((128,2,1024),(4,32,1,"
                                "8,1024))");
  // Scales: box (BM channels, group rows).
  EXPECT_EQ(tiles.scales.boxDims[0], 128u);
  EXPECT_EQ(tiles.scales.boxDims[1], 2u);
  EXPECT_EQ(tiles.scales.bytes, 512u);
  EXPECT_EQ(tiles.zeros.bytes, 256u);
}

TEST(Sm90WeightDequant, EightBitSlotIsTwoU64AK) {
  // u8 with zero points, BM 128, BK 64, group 32: 128 x 64 bytes of codes,
  // the box (2 BK = 128 u64, 8 block rows), two packed 16 x 32 blocks a
  // block row ((8,2,8),(2,4,2,2,2)) with K 64: block row stride 16 K =
  // 1024 bytes, the second block at 512.
  Sm90GemmConfig config = int4Config(128, 16, 32, true);
  config.bType = DTypeKind::U8;
  Sm90WeightStage stage = sm90WeightStage(config);
  EXPECT_EQ(stage.codeBytes, 8192u);
  EXPECT_EQ(stage.scaleRows, 2u);
  EXPECT_EQ(stage.scaleBytes, 512u);
  EXPECT_EQ(stage.zeroBytes, 256u);
  Sm90WeightTiles tiles = sm90WeightTiles(config);
  EXPECT_EQ(tiles.codes.boxDims[0], 128u);
  EXPECT_EQ(tiles.codes.boxDims[1], 8u);
  EXPECT_EQ(tiles.codes.bytes, 8192u);
  EXPECT_EQ(tiles.codes.layout, "((8,2,8),(2,4,2,2,2)):((64,4,1024),(1,16,2,"
                                "8,512))");
  // e4m3 without zero points at BM 64: 4096 code bytes, no zero ring.
  config = int4Config(64, 16, 128, false);
  config.bType = DTypeKind::E4M3;
  stage = sm90WeightStage(config);
  EXPECT_EQ(stage.codeBytes, 4096u);
  EXPECT_EQ(stage.zeroBytes, 0u);
}

TEST(Sm90WeightDequant, TwoCtasWhereTheyFit) {
  // BM 64: 256 threads at 128 registers each, 16 slots of 2048 + 2048 +
  // 256 bytes: two fit.
  Sm90GemmConfig config = int4Config(64, 16, 128, true);
  config.stages = 16;
  EXPECT_EQ(sm90WeightCtasPerSm(config), 2u);
  // BM 128 with BN 64: the two consumers' registers at 80 a thread would
  // not hold m64n64 beside the dequantization.
  config = int4Config(128, 64, 128, true);
  EXPECT_EQ(sm90WeightCtasPerSm(config), 1u);
  // BM 64 with BN 64 in 16 slots: 16 x 10496 bytes do not fit twice.
  config = int4Config(64, 64, 128, true);
  config.stages = 16;
  EXPECT_EQ(sm90WeightCtasPerSm(config), 1u);
  // BM 64 with BN 208 in 3 slots fits twice in shared memory, but 104
  // accumulators and the dequantization do not fit 128 registers.
  config = int4Config(64, 208, 128, true);
  config.stages = 3;
  EXPECT_EQ(sm90WeightCtasPerSm(config), 1u);
  // A split kernel takes two as well (it reduces through the workspace:
  // the cluster reduction wants one CTA per SM).
  config = int4Config(64, 16, 128, true);
  config.splitK = true;
  EXPECT_EQ(sm90WeightCtasPerSm(config), 2u);
  config.ctasPerSm = 2;
  EXPECT_FALSE(sm90SplitKClusterFits(config, 4));
}

TEST(Sm90WeightDequant, GeneratorRefusesWhatTheKernelCannotDo) {
  auto message = [](const Sm90GemmConfig &config) {
    llvm::Error err = verifySm90GemmConfig(config);
    return err ? llvm::toString(std::move(err)) : std::string();
  };
  Sm90GemmConfig config = int4Config(64, 16, 128, true);
  EXPECT_EQ(message(config), "");
  config.swapAB = false;
  // The verify pass's words (GemmCombinationRules.h weightAsMmaABreaks).
  EXPECT_NE(message(config).find("add swap_ab to the schedule"),
            std::string::npos);
  config = int4Config(192, 16, 128, true);
  EXPECT_NE(message(config).find("BM 64 or 128"), std::string::npos);
  config = int4Config(64, 16, 128, true);
  config.clusterM = 2;
  EXPECT_NE(message(config).find("takes no thread-block cluster"),
            std::string::npos);
  config = int4Config(64, 16, 128, true);
  config.bType = DTypeKind::I4; // i4 is symmetric: no zero points
  EXPECT_NE(message(config).find("zero points apply to a u4 or u8 weight"),
            std::string::npos);
}

TEST(Sm90WeightDequant, KernelAssemblesWithoutSerializationOrSpills) {
  if (!findPtxas())
    GTEST_SKIP() << "SKIP: ptxas not found; PTX not assembled";
  for (auto [bm, bn, stages] : {std::tuple{64u, 8u, 8u},
                                {128u, 16u, 8u},
                                {64u, 64u, 8u},
                                {128u, 64u, 8u},
                                {64u, 208u, 3u}}) {
    Sm90GemmConfig config = int4Config(bm, bn, 128, true);
    config.stages = stages;
    config.ctasPerSm = sm90WeightCtasPerSm(config);
    auto kernel = emitSm90Gemm(config);
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    llvm::Expected<PtxasRun> run =
        runPtxas(kernel->ptx, ArchKind::SM90a, {"-v"});
    ASSERT_TRUE(bool(run)) << llvm::toString(run.takeError());
    const std::string &said = run->output;
    ASSERT_EQ(run->exitCode, 0) << said;
    EXPECT_EQ(said.find("warning"), std::string::npos) << said;
    // ptxas reports serialized wgmmas as info C7513.
    EXPECT_EQ(said.find("serialized"), std::string::npos) << said;
    EXPECT_NE(said.find("0 bytes spill stores"), std::string::npos) << said;
  }
}

TEST(Sm90WeightDequant, EightBitKernelsAssembleWithoutSerializationOrSpills) {
  if (!findPtxas())
    GTEST_SKIP() << "SKIP: ptxas not found; PTX not assembled";
  for (DTypeKind b :
       {DTypeKind::I8, DTypeKind::U8, DTypeKind::E4M3, DTypeKind::E5M2})
    for (DTypeKind a : {DTypeKind::BF16, DTypeKind::F16})
      for (auto [bm, bn, stages] : {std::tuple{64u, 8u, 8u},
                                    {128u, 16u, 8u},
                                    {64u, 64u, 8u},
                                    {64u, 160u, 4u}}) {
        Sm90GemmConfig config = int4Config(bm, bn, 128, b == DTypeKind::U8);
        config.aType = config.cType = a;
        config.weightQuant->scaleType = a;
        config.bType = b;
        config.stages = stages;
        config.ctasPerSm = sm90WeightCtasPerSm(config);
        std::string what = dtypeName(b) + " x " + dtypeName(a) + " BM " +
                           std::to_string(bm) + " BN " + std::to_string(bn) +
                           " at " + std::to_string(config.ctasPerSm) +
                           " CTAs/SM";
        auto kernel = emitSm90Gemm(config);
        ASSERT_TRUE(bool(kernel))
            << what << ": " << llvm::toString(kernel.takeError());
        llvm::Expected<PtxasRun> run =
            runPtxas(kernel->ptx, ArchKind::SM90a, {"-v"});
        ASSERT_TRUE(bool(run)) << llvm::toString(run.takeError());
        const std::string &said = run->output;
        ASSERT_EQ(run->exitCode, 0) << what << "\n" << said;
        EXPECT_EQ(said.find("warning"), std::string::npos) << what << said;
        EXPECT_EQ(said.find("serialized"), std::string::npos) << what << said;
        EXPECT_NE(said.find("0 bytes spill stores"), std::string::npos)
            << what << "\n"
            << said;
      }
}

} // namespace
