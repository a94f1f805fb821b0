//===- tests/unit/Sm100StagedEpilogueTest.cpp - sm_100a staged epilogue ---===//
//
// The staged sm_100a epilogue's facts: the staging tile (the sm_90a layout
// with the epilogue warpgroup's 128 or 64 rows), its place in the shared
// memory, what it refuses, the kernel parameters and C's tensor-map plan
// the launcher builds, and that the kernels assemble for sm_100a with the
// PTX shape of docs/sm100.md.
//
//===----------------------------------------------------------------------===//
#include "codegen/warpspec/EpilogueStaging.h"
#include "codegen/Ptxas.h"
#include "codegen/Sm100Gemm.h"
#include "codegen/Sm100GemmSpec.h"

#include <gtest/gtest.h>

#include <set>
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

Sm100GemmConfig stagedConfig() {
  Sm100GemmConfig config; // bf16, 128 x 256 x 64, 4 stages
  config.storeTma = true;
  config.storeSwizzleBytes = 128;
  return config;
}

// The example of Sm100Gemm.h: bf16 C, BN = 256, BM = 128.
TEST(Sm100StagedEpilogue, TileExample) {
  auto tile = sm100EpilogueTile(stagedConfig());
  ASSERT_TRUE(bool(tile)) << llvm::toString(tile.takeError());
  ASSERT_TRUE(tile->has_value());
  const EpilogueStagingTile &t = **tile;
  EXPECT_EQ(t.layout, "tile_to_shape(K_SW128<bf16>, (128,64))");
  EXPECT_EQ(t.rows, 128u);
  EXPECT_EQ(t.cols, 64u);
  EXPECT_EQ(t.chunks, 4u);
  EXPECT_EQ(t.buffers, 2u);
  EXPECT_EQ(t.bytes, 16384u);
  EXPECT_EQ(t.swizzleBytes, 128u);
  EXPECT_FALSE(t.transposed);
  // Direct stores have no staging tile.
  Sm100GemmConfig direct;
  auto none = sm100EpilogueTile(direct);
  ASSERT_TRUE(bool(none));
  EXPECT_FALSE(none->has_value());
}

TEST(Sm100StagedEpilogue, RowsAndColumnsFollowTheKernel) {
  // BM = 64: the 64 rows of data path layout F.
  Sm100GemmConfig config = stagedConfig();
  config.bm = 64;
  config.bn = 128;
  config.storeSwizzleBytes = 0; // the widest row that divides the tile
  auto tile = sm100EpilogueTile(config);
  ASSERT_TRUE(bool(tile) && tile->has_value());
  EXPECT_EQ((*tile)->rows, 64u);
  EXPECT_EQ((*tile)->cols, 64u);
  EXPECT_EQ((*tile)->chunks, 2u);
  // swiglu (halves): C's tile is BN / 2 = 128 wide.
  config = stagedConfig();
  EpilogueOp swiglu;
  swiglu.kind = EpilogueOpKind::Swiglu;
  config.epilogueOps = {swiglu};
  tile = sm100EpilogueTile(config);
  ASSERT_TRUE(bool(tile) && tile->has_value());
  EXPECT_EQ((*tile)->chunks, 2u);
  // BN = 48: 32-byte rows of 16 columns, three chunks, two buffers.
  config = stagedConfig();
  config.bn = 48;
  config.storeSwizzleBytes = 0;
  tile = sm100EpilogueTile(config);
  ASSERT_TRUE(bool(tile) && tile->has_value());
  EXPECT_EQ((*tile)->cols, 16u);
  EXPECT_EQ((*tile)->chunks, 3u);
  EXPECT_EQ((*tile)->buffers, 2u);
}

// The staging layout is a bijection of the rows x cols elements onto
// offsets 0 .. rows x cols - 1, for every row width.
TEST(Sm100StagedEpilogue, StagingAddressIsABijection) {
  for (unsigned rowBytes : {16u, 32u, 64u, 128u}) {
    auto tile =
        epilogueStagingTile(DTypeKind::BF16, 256, false, rowBytes, 128, false);
    ASSERT_TRUE(bool(tile)) << llvm::toString(tile.takeError());
    auto smem = epilogueStagingAddress(*tile);
    ASSERT_TRUE(bool(smem)) << llvm::toString(smem.takeError());
    std::set<int64_t> seen;
    for (int64_t r = 0; r < tile->rows; ++r)
      for (int64_t c = 0; c < tile->cols; ++c) {
        int64_t offset = smem->offset(r, c);
        EXPECT_GE(offset, 0);
        EXPECT_LT(offset, int64_t(tile->rows) * tile->cols);
        seen.insert(offset);
      }
    EXPECT_EQ(seen.size(), size_t(tile->rows) * tile->cols) << rowBytes;
  }
}

TEST(Sm100StagedEpilogue, RefusalsSayWhatIsLegal) {
  auto message = [](const Sm100GemmConfig &config) {
    auto tile = sm100EpilogueTile(config);
    return tile ? std::string() : llvm::toString(tile.takeError());
  };
  Sm100GemmConfig config = stagedConfig();
  config.cType = DTypeKind::F32;
  EXPECT_NE(message(config).find("stmatrix moves 16-bit elements"),
            std::string::npos);
  config = stagedConfig();
  config.splitK = 3;
  EXPECT_NE(message(config).find("split_k(3)"), std::string::npos);
  EXPECT_NE(message(config).find("-> store' (direct stores)"),
            std::string::npos);
  config = stagedConfig();
  config.swapAB = true;
  EXPECT_NE(message(config).find("drop swap_ab"), std::string::npos);
  config = stagedConfig();
  EpilogueOp interleaved;
  interleaved.kind = EpilogueOpKind::Swiglu;
  interleaved.pairing = SwigluPairingKind::Interleaved;
  config.epilogueOps = {interleaved};
  EXPECT_NE(message(config).find("swiglu(interleaved)"), std::string::npos);
  // A batched C (its map would be rank 3) and the CTA pair's M = 128
  // (data path layout B: a warp holds half the tile's columns).
  config = stagedConfig();
  config.batch = BatchSpec{};
  EXPECT_NE(message(config).find("drop the batch extent"), std::string::npos);
  config = stagedConfig();
  config.ctaGroup = 2;
  config.bm = 128;
  EXPECT_NE(message(config).find("use BM = 256 for the pair"),
            std::string::npos);
  // Five stages and two staging buffers exceed the shared memory.
  config = stagedConfig();
  config.stages = 5;
  llvm::Error err = verifySm100GemmConfig(config);
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("2 x 16384 bytes of staging"),
            std::string::npos);
}

TEST(Sm100StagedEpilogue, SharedMemoryAndParameters) {
  // 1024 slack, the 4 x 48 KiB ring (1024-aligned), two 16 KiB buffers,
  // 4 + 4 ring and 2 + 2 accumulator mbarriers, the TMEM address word.
  EXPECT_EQ(sm100StagingOffset(stagedConfig()), 4u * 49152);
  EXPECT_EQ(sm100SharedBytes(stagedConfig()),
            1024u + 4 * 49152 + 2 * 16384 + 8 * 12 + 8);
  auto kernel = emitSm100Gemm(stagedConfig());
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  GemmKernelBinary binary = sm100GemmBinary(std::move(*kernel));
  std::vector<std::string> names;
  for (const KernelParam &param : binary.params)
    names.push_back(param.name);
  EXPECT_EQ(names, (std::vector<std::string>{"tmapA", "tmapB", "tmapC", "c",
                                             "rowsA", "rowsB", "k", "ldc",
                                             "alpha", "beta", "storeTma"}));
  ASSERT_EQ(binary.tensorMaps.size(), 3u);
  const TensorMapPlan &c = binary.tensorMaps[2];
  EXPECT_EQ(c.param, "tmapC");
  EXPECT_EQ(c.matrix, 'C');
  EXPECT_EQ(c.boxInner, 64u);
  EXPECT_EQ(c.boxOuter, 128u);
  EXPECT_EQ(c.swizzleBytes, 128u);
  EXPECT_EQ(c.fallbackFlag, "storeTma");
  EXPECT_TRUE(c.store);
  EXPECT_EQ(binary.sharedBytes, sm100SharedBytes(stagedConfig()));
  // The list's order: tmapC after tmapB, storeTma after split-K's
  // workspace and counters, the ops' operands, then a batch's count and
  // C stride; an unbatched, unstaged kernel's list is unchanged.
  names.clear();
  EpilogueOp bias;
  bias.kind = EpilogueOpKind::Bias;
  for (const KernelParam &param : sm100KernelParams({bias}, 2, true, true))
    names.push_back(param.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "tmapA", "tmapB", "tmapC", "c", "rowsA", "rowsB", "k",
                       "ldc", "alpha", "beta", "workspace", "counters",
                       "storeTma", "bias", "batch", "strideC"}));
  names.clear();
  for (const KernelParam &param : sm100KernelParams())
    names.push_back(param.name);
  EXPECT_EQ(names, (std::vector<std::string>{"tmapA", "tmapB", "c", "rowsA",
                                             "rowsB", "k", "ldc", "alpha",
                                             "beta"}));
}

// Every staged variant assembles for sm_100a without spills and has the
// chunk protocol: per chunk and beta path 2 (1 for BM = 64) 16x256b loads,
// a stmatrix.x4 per 16 columns and half, a fence.proxy.async and a TMA
// store.
TEST(Sm100StagedEpilogue, PtxShapeAndPtxas) {
  struct Variant {
    unsigned bm, bn, ctaGroup;
    DTypeKind ab, c;
    unsigned swizzle, chunks, cols;
  };
  for (const Variant &variant :
       {Variant{128, 256, 1, DTypeKind::BF16, DTypeKind::BF16, 128, 4, 64},
        Variant{64, 128, 1, DTypeKind::F16, DTypeKind::F16, 64, 4, 32},
        Variant{256, 128, 2, DTypeKind::E4M3, DTypeKind::BF16, 128, 2, 64},
        Variant{128, 48, 1, DTypeKind::BF16, DTypeKind::F16, 0, 3, 16}}) {
    Sm100GemmConfig config = stagedConfig();
    config.bm = variant.bm;
    config.bn = variant.bn;
    config.ctaGroup = variant.ctaGroup;
    config.aType = config.bType = variant.ab;
    config.bk = variant.ab == DTypeKind::E4M3 ? 128 : 64;
    config.cType = variant.c;
    config.storeSwizzleBytes = variant.swizzle;
    std::string what = "BM " + std::to_string(variant.bm) + " BN " +
                       std::to_string(variant.bn);
    auto kernel = emitSm100Gemm(config);
    ASSERT_TRUE(bool(kernel))
        << what << ": " << llvm::toString(kernel.takeError());
    const std::string &ptx = kernel->ptx;
    unsigned halves = variant.bm == 64 ? 1 : 2;
    // BM = 64's direct fallback reads 16x256b too: 2 x 4 chunks of 32.
    EXPECT_EQ(countOf(ptx, "tcgen05.ld.sync.aligned.16x256b"),
              2 * variant.chunks * halves + (variant.bm == 64 ? 8 : 0))
        << what;
    EXPECT_EQ(countOf(ptx, "cp.async.bulk.tensor.2d.global.shared::cta"),
              2 * variant.chunks)
        << what;
    // One stmatrix.x4 per 16 columns of a chunk and 16-row half.
    EXPECT_EQ(countOf(ptx, "stmatrix.sync.aligned.m8n8.x4"),
              2 * variant.chunks * halves * (variant.cols / 16))
        << what;
    EXPECT_EQ(countOf(ptx, "fence.proxy.async.shared::cta;"),
              2 * variant.chunks + 1) // + 1: after the mbarrier inits
        << what;
    if (!findPtxas())
      continue;
    llvm::Expected<PtxasRun> run = runPtxas(ptx, ArchKind::SM100a, {"-v"});
    ASSERT_TRUE(bool(run)) << what << ": " << llvm::toString(run.takeError());
    EXPECT_EQ(run->exitCode, 0) << what << ": " << run->output;
    EXPECT_NE(run->output.find("0 bytes spill stores"), std::string::npos)
        << what << ": " << run->output;
  }
}

} // namespace
} // namespace tilec
