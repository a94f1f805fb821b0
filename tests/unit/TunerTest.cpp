//===- tests/unit/TunerTest.cpp - `tilec tune` without a GPU --------------===//
#include "compiler/Tuner.h"
#include "codegen/GemmTarget.h"
#include "compiler/TuneCache.h"
#include "compiler/TuneSession.h"
#include "runtime/Backend.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <set>

namespace tilec {
namespace {

/// A decode-shaped sm_90a kernel that leaves the schedule and the store to
/// the compiler.
const char *const DecodeAuto = R"(kernel decode {
  arch     sm_90a
  a        : bf16[M, K] major(K)
  b        : bf16[N, K] major(K)
  c        : bf16[M, N] major(N)
  acc      f32
  tile     (BM = 64, BN = 64, BK = 64)
  stages   8
}
)";

/// The same with the schedule and the store written.
const char *const DecodeWritten = R"(kernel decode {
  arch     sm_90a
  a        : bf16[M, K] major(K)
  b        : bf16[N, K] major(K)
  c        : bf16[M, N] major(N)
  acc      f32
  tile     (BM = 64, BN = 64, BK = 64)
  stages   8
  schedule swap_ab split_k(2)
  epilogue store
}
)";

std::shared_ptr<Compiler> freshCompiler() {
  auto compiler = std::make_shared<Compiler>();
  compiler->setDiskCache(nullptr);
  return compiler;
}

TEST(TuneShapes, ParsesListsAndTrailingSemicolon) {
  auto shapes = parseTuneShapes("64,2112,7168; 128 , 4096,7168;");
  ASSERT_TRUE(bool(shapes)) << llvm::toString(shapes.takeError());
  ASSERT_EQ(shapes->size(), 2u);
  EXPECT_EQ((*shapes)[0], (TuneShape{64, 2112, 7168}));
  EXPECT_EQ((*shapes)[1], (TuneShape{128, 4096, 7168}));
}

TEST(TuneShapes, ErrorsSayWhatIsWrong) {
  auto message = [](const char *text) {
    auto shapes = parseTuneShapes(text);
    EXPECT_FALSE(bool(shapes)) << text;
    return shapes ? std::string() : llvm::toString(shapes.takeError());
  };
  EXPECT_EQ(message("64,2112"),
            "--shapes: '64,2112' has 2 sizes; each shape is M,N,K (three "
            "positive integers), shapes separated by ';'");
  EXPECT_EQ(message("64,x,7168"), "--shapes: N = 'x' in '64,x,7168' is not "
                                  "an integer from 1 to 2147483647");
  EXPECT_EQ(message("0,1,1"), "--shapes: M = '0' in '0,1,1' is not an "
                              "integer from 1 to 2147483647");
  EXPECT_NE(message(""), "");
  EXPECT_NE(message("1,1,1;;2,2,2"), "");
}

TEST(TuneBucket, RoundsMUpToAPowerOfTwo) {
  EXPECT_EQ(tuneBucket({100, 4096, 7168}), (TuneShape{128, 4096, 7168}));
  EXPECT_EQ(tuneBucket({64, 5, 7}), (TuneShape{64, 5, 7}));
  EXPECT_EQ(tuneBucket({65, 5, 7}), (TuneShape{128, 5, 7}));
  EXPECT_EQ(tuneBucket({1, 5, 7}), (TuneShape{1, 5, 7}));
}

TEST(TuneItems, ParsesAndDescribes) {
  auto items = parseTuneItems("tile, stages");
  ASSERT_TRUE(bool(items));
  EXPECT_EQ(*items, unsigned(TuneTile | TuneStages));
  EXPECT_EQ(describeTuneItems(*items), "tile, stages");
  auto all = parseTuneItems("all");
  ASSERT_TRUE(bool(all));
  EXPECT_EQ(describeTuneItems(*all), "tile, stages, schedule, store");
  auto bad = parseTuneItems("tile,warps");
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "--vary: unknown item 'warps'; legal: tile, stages, schedule, "
            "store, all (comma-separated)");
}

TEST(TuneVariant, DescribesAndRoundTripsThroughJson) {
  TuneVariant v{128, 64, 64, 6, true, 2, 0, 1, 1, false};
  EXPECT_EQ(v.describe(), "128x64x64 s6 swap_ab split_k(2) store");
  TuneVariant p{128, 256, 64, 4, false, 1, 8, 2, 1, true};
  EXPECT_EQ(p.describe(), "128x256x64 s4 persistent(8) cluster(2) tma_store");
  std::optional<TuneVariant> back = TuneVariant::fromJson(p.toJson());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, p);
  TuneVariant n{256, 128, 128, 3, false, 1, 8, 1, 2, false};
  EXPECT_EQ(n.describe(), "256x128x128 s3 persistent(8) cluster_n(2) store");
  back = TuneVariant::fromJson(n.toJson());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, n);
}

TEST(TuneCost, WavesOnTheSmCount) {
  GemmSpec spec;
  spec.arch = ArchKind::SM90a;
  spec.bm = 128;
  spec.bn = 256;
  spec.bk = 64;
  spec.stages = 4;
  TuneDevice h200 = TuneDevice::modelFor(ArchKind::SM90a);
  auto cost = estimateTuneCost(spec, {4096, 4096, 4096}, h200);
  ASSERT_TRUE(bool(cost)) << llvm::toString(cost.takeError());
  // 32 x 16 = 512 tiles on 132 SMs: 4 waves, 512 / 528 busy.
  EXPECT_EQ(cost->ctas, 512);
  EXPECT_EQ(cost->waves, 4);
  EXPECT_NEAR(cost->waveEfficiency, 512.0 / 528.0, 1e-9);
  EXPECT_FALSE(cost->memoryBound);
  // Swapped, M = 64 tiles N: 2112 / 128 = 17 rows of one column; split
  // over 4 K ranges, 68 CTAs in one wave.
  spec.swapAB = true;
  spec.splitK = 4;
  spec.bn = 64;
  auto decode = estimateTuneCost(spec, {64, 2112, 7168}, h200);
  ASSERT_TRUE(bool(decode));
  EXPECT_EQ(decode->ctas, 17 * 4);
  EXPECT_EQ(decode->waves, 1);
  // Too many stages: refused with the numbers.
  spec.stages = 40;
  auto big = estimateTuneCost(spec, {64, 2112, 7168}, h200);
  ASSERT_FALSE(bool(big));
  EXPECT_NE(llvm::toString(big.takeError()).find("bytes of shared memory"),
            std::string::npos);
}

TEST(TuneOpenItems, AutoItemsOnly) {
  auto open = openTuneItems(DecodeAuto, "decode", std::nullopt);
  ASSERT_TRUE(bool(open));
  EXPECT_EQ(*open, unsigned(TuneSchedule | TuneStore));
  auto written = openTuneItems(DecodeWritten, "decode", std::nullopt);
  ASSERT_TRUE(bool(written));
  EXPECT_EQ(*written, 0u);
}

TEST(TunePlan, BaselineFirstThenTheModelsOrder) {
  auto compiler = freshCompiler();
  TuneOptions options;
  options.budgetS = 6; // 12 candidates
  TuneDevice device = TuneDevice::modelFor(ArchKind::SM90a);
  auto plan = planTune(*compiler, DecodeAuto, "decode", {64, 2112, 7168},
                       options, device);
  ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
  EXPECT_EQ(plan->items, unsigned(TuneSchedule | TuneStore));
  ASSERT_GE(plan->candidates.size(), 2u);
  EXPECT_LE(plan->candidates.size(), tuneCandidateCount(6));
  EXPECT_TRUE(plan->candidates[0].baseline);
  // The written items stay: the tile and stages of every candidate.
  std::set<std::string> seen;
  for (size_t i = 0; i < plan->candidates.size(); ++i) {
    const TuneCandidate &c = plan->candidates[i];
    EXPECT_EQ(c.variant.bm, 64u);
    EXPECT_EQ(c.variant.bn, 64u);
    EXPECT_EQ(c.variant.stages, 8u);
    EXPECT_TRUE(seen.insert(c.variant.describe()).second)
        << "twice: " << c.variant.describe();
    if (i >= 2) {
      EXPECT_LE(plan->candidates[i - 1].cost.us, c.cost.us);
    }
    if (i > 0) {
      EXPECT_FALSE(c.source.empty());
    }
  }
  // Some swapped and some split candidates survive the compiler's checks.
  bool swapped = false, split = false;
  for (const TuneCandidate &c : plan->candidates) {
    swapped |= c.variant.swapAB;
    split |= c.variant.splitK > 1;
  }
  EXPECT_TRUE(swapped);
  EXPECT_TRUE(split);
}

TEST(TunePlan, VaryTileAndStagesFitsSharedMemory) {
  auto compiler = freshCompiler();
  TuneOptions options;
  options.extraItems = TuneTile | TuneStages;
  options.budgetS = 10;
  TuneDevice device = TuneDevice::modelFor(ArchKind::SM90a);
  auto plan = planTune(*compiler, DecodeWritten, "decode", {4096, 4096, 4096},
                       options, device);
  ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
  EXPECT_EQ(plan->items, unsigned(TuneTile | TuneStages));
  EXPECT_GT(plan->enumerated, 10);
  std::set<unsigned> tilesM;
  for (const TuneCandidate &c : plan->candidates) {
    EXPECT_LE(c.cost.smemBytes,
              int64_t(archInfo(ArchKind::SM90a).maxSharedBytesPerCta));
    // The written schedule is kept.
    EXPECT_TRUE(c.variant.swapAB);
    EXPECT_EQ(c.variant.splitK, 2u);
    tilesM.insert(c.variant.bm);
  }
  EXPECT_GT(tilesM.size(), 1u);
}

TEST(TunePlan, PackedWeightDecodeTriesSmallTilesAndDeepSplits) {
  auto compiler = freshCompiler();
  const char *w4 = R"(kernel w4 {
  arch     sm_80
  a        : bf16[M, K] major(K)
  b        : u4[N, K] major(K)
  c        : bf16[M, N] major(N)
  scale b  bf16 group(128) zero(u8)
  acc      f32
  tile     (BM = 64, BN = 64, BK = 128)
  stages   4
  epilogue store
}
)";
  TuneOptions options;
  options.extraItems = TuneTile | TuneStages | TuneSchedule;
  options.budgetS = 1000; // Every legal variant.
  auto plan = planTune(*compiler, w4, "w4", {16, 4096, 4096}, options,
                       TuneDevice::modelFor(ArchKind::SM80));
  ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
  std::set<unsigned> tilesM, splits;
  for (const TuneCandidate &c : plan->candidates) {
    tilesM.insert(c.variant.bm);
    splits.insert(c.variant.splitK);
  }
  EXPECT_TRUE(tilesM.count(16)) << "decode M = 16 fits a 16-row tile";
  EXPECT_TRUE(splits.count(16));
  // The model ranks a 16-row tile (no wasted rows, the dequantization
  // spread over the SMs) before every 64-row one at M = 16.
  ASSERT_GT(plan->candidates.size(), 2u);
  EXPECT_EQ(plan->candidates[1].variant.bm, 16u)
      << plan->candidates[1].variant.describe();
}

TEST(TunePlan, FixedExtentMismatchIsAnError) {
  auto compiler = freshCompiler();
  const char *fixed = R"(kernel f {
  arch sm_90a
  a : bf16[64, K] major(K)
  b : bf16[N, K] major(K)
  c : bf16[64, N] major(N)
  acc f32
  tile (BM = 64, BN = 64, BK = 64)
  stages 4
}
)";
  auto plan = planTune(*compiler, fixed, "f", {128, 256, 256}, {},
                       TuneDevice::modelFor(ArchKind::SM90a));
  ASSERT_FALSE(bool(plan));
  EXPECT_EQ(llvm::toString(plan.takeError()),
            "kernel 'f': M = 128 in --shapes disagrees with the program's "
            "fixed extent M = 64");
}

TEST(TuneVariantSource, CompilesToTheVariant) {
  auto compiler = freshCompiler();
  TuneVariant v{64, 64, 64, 8, false, 4, 0, 1, true};
  auto text = applyTuneVariant(DecodeAuto, "decode", v,
                               TuneSchedule | TuneStore, std::nullopt);
  ASSERT_TRUE(bool(text)) << llvm::toString(text.takeError());
  CompileOptions options;
  options.kernel = "decode";
  auto lowered = compiler->lower(*text, options);
  ASSERT_TRUE(bool(lowered)) << llvm::toString(lowered.takeError());
  EXPECT_EQ(variantOfSpec((*lowered)->spec), v);
}

TEST(TuneVariantSource, AnotherTileLeavesTheWrittenMmaAndLayoutsToTheCompiler) {
  // tilec.gemm's programs write the wgmma (N = BN) and may write layouts:
  // a variant of another tile must not keep them (wgmma.m64n128 cannot
  // serve BN 64).
  const char *written = R"(kernel w {
  arch     sm_90a
  a        : bf16[M, K] major(K)
  b        : bf16[N, K] major(K)
  c        : bf16[M, N] major(N)
  acc      f32
  tile     (BM = 128, BN = 128, BK = 64)
  stages   4
  smem a   = tile_to_shape(K_SW128<bf16>, (128, 64))
  mma      wgmma.m64n128k16 warpgroups(2)
  schedule cluster(2)
}
)";
  auto compiler = freshCompiler();
  CompileOptions options;
  options.kernel = "w";
  TuneVariant narrow{.bm = 128,
                     .bn = 64,
                     .bk = 64,
                     .stages = 8,
                     .clusterM = 2,
                     .storeTma = true};
  auto text = applyTuneVariant(written, "w", narrow, TuneTile | TuneStages,
                               std::nullopt);
  ASSERT_TRUE(bool(text)) << llvm::toString(text.takeError());
  auto lowered = compiler->lower(*text, options);
  ASSERT_TRUE(bool(lowered)) << llvm::toString(lowered.takeError());
  EXPECT_EQ((*lowered)->spec.bn, 64u);
  // The same tile keeps what was written.
  TuneVariant same{.bm = 128,
                   .bn = 128,
                   .bk = 64,
                   .stages = 3,
                   .clusterM = 2,
                   .storeTma = true};
  text =
      applyTuneVariant(written, "w", same, TuneTile | TuneStages, std::nullopt);
  ASSERT_TRUE(bool(text)) << llvm::toString(text.takeError());
  EXPECT_NE(text->find("wgmma.m64n128k16"), std::string::npos) << *text;
}

TEST(TuneCache, StoresListsLooksUpAndClears) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tilec-tune", dir));
  TuneCache cache(std::string(dir) + "/tuned");
  TuneEntry e;
  e.key.sourceHash = tuneSourceHash(DecodeAuto);
  e.key.kernel = "decode";
  e.key.bucket = tuneBucket({60, 2112, 7168});
  e.key.arch = ArchKind::SM90a;
  e.key.deviceName = "NVIDIA H200";
  e.key.smCount = 132;
  e.key.driverVersion = 13000;
  e.variant = {64, 64, 64, 8, false, 4, 0, 1, true};
  e.items = TuneSchedule | TuneStore;
  e.shape = {60, 2112, 7168};
  e.medianUs = 10.5;
  e.baselineUs = 12.25;
  e.timed = 9;
  e.tilecVersion = "test";
  ASSERT_TRUE(cache.store(e));
  std::optional<TuneEntry> back = cache.lookup(e.key);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->variant, e.variant);
  EXPECT_EQ(back->medianUs, 10.5);
  TuneKey other = e.key;
  other.smCount = 114; // another device: a miss
  EXPECT_FALSE(cache.lookup(other).has_value());
  ASSERT_EQ(cache.list().size(), 1u);

  // A later compile at M = 50 (the same bucket, 33..64) finds it.
  TuneKey device = e.key;
  auto tuned = tunedSource(cache, DecodeAuto, "decode", {50, 2112, 7168},
                           device, std::nullopt);
  ASSERT_TRUE(tuned.has_value());
  EXPECT_NE(tuned->note.find("M from 33 to 64"), std::string::npos)
      << tuned->note;
  auto compiler = freshCompiler();
  CompileOptions options;
  options.kernel = "decode";
  auto lowered = compiler->lower(tuned->source, options);
  ASSERT_TRUE(bool(lowered)) << llvm::toString(lowered.takeError());
  EXPECT_EQ(variantOfSpec((*lowered)->spec), e.variant);
  // M = 65 is another bucket.
  EXPECT_FALSE(tunedSource(cache, DecodeAuto, "decode", {65, 2112, 7168},
                           device, std::nullopt)
                   .has_value());

  EXPECT_EQ(cache.clear("0000000000000000", ""), 0u);
  EXPECT_EQ(cache.clear(e.key.sourceHash, "decode"), 1u);
  EXPECT_TRUE(cache.list().empty());
  llvm::sys::fs::remove_directories(dir);
}

TEST(TuneProgram, NoTimingInTheSimulator) {
  // The simulator when this process has not chosen the GPU yet (ctest
  // runs each test alone); without a driver the GPU backend refuses too.
  (void)rt::setBackend(rt::BackendKind::Sim);
  TuneRequest request;
  request.shapes = {{64, 2112, 7168}};
  auto report = tuneProgram(DecodeAuto, request);
  ASSERT_FALSE(bool(report));
  std::string message = llvm::toString(report.takeError());
  EXPECT_NE(message.find(": tilec tune times kernels on the GPU; --dry-run "
                         "lists the candidates"),
            std::string::npos)
      << message;
  // A dry run plans on the model's device.
  request.dryRun = true;
  request.options.budgetS = 2;
  auto dry = tuneProgram(DecodeAuto, request);
  ASSERT_TRUE(bool(dry)) << llvm::toString(dry.takeError());
  ASSERT_EQ(dry->results.size(), 1u);
  EXPECT_EQ(dry->results[0].device.name, "model H200 (no GPU)");
  EXPECT_EQ(dry->results[0].plan.candidates.size(), 4u);
  EXPECT_TRUE(dry->ok());
}

} // namespace
} // namespace tilec
