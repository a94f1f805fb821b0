//===- tests/unit/Sm90DTypeTest.cpp - sm_90a GEMM element types and majorness //
//
// The dtype x majorness matrix of the sm_90a GEMM: wgmma statement text per
// type family, the derived MN-major and 8-bit / 32-bit operand tiles checked
// against numbers worked out by hand from the PTX ISA's canonical layouts,
// the verifier's messages, and every configuration through ptxas.
//
//===----------------------------------------------------------------------===//
#include "codegen/PtxInlineAsm.h"
#include "codegen/Ptxas.h"
#include "codegen/Sm90Gemm.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>

namespace tilec {
namespace {

size_t occurrences(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1))
    ++n;
  return n;
}

std::string errorOf(const Sm90GemmConfig &config) {
  llvm::Error err = verifySm90GemmConfig(config);
  return err ? llvm::toString(std::move(err)) : "";
}

TEST(Sm90DTypeWgmmaText, SixteenBitFormsCarryTheTransposeImmediates) {
  ptx::WgmmaShape shape;
  shape.n = 8;
  shape.abType = "f16";
  shape.transA = true;
  EXPECT_NE(ptx::wgmmaSsText(shape).find(
                "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
                "{$0, $1, $2, $3}, $8, $9, p, 1, 1, 1, 0;"),
            std::string::npos)
      << ptx::wgmmaSsText(shape);
}

TEST(Sm90DTypeWgmmaText, TF32AndFP8FormsHaveNoTransposeImmediates) {
  ptx::WgmmaShape shape;
  shape.n = 8;
  shape.k = 8;
  shape.abType = "tf32";
  EXPECT_NE(ptx::wgmmaSsText(shape).find(
                "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 "
                "{$0, $1, $2, $3}, $8, $9, p, 1, 1;"),
            std::string::npos)
      << ptx::wgmmaSsText(shape);
  shape.k = 32;
  shape.abType = "e4m3";
  shape.bType = "e5m2";
  EXPECT_NE(ptx::wgmmaSsText(shape).find(
                "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2 "
                "{$0, $1, $2, $3}, $8, $9, p, 1, 1;"),
            std::string::npos)
      << ptx::wgmmaSsText(shape);
}

TEST(Sm90DTypeOperandTile, WgmmaKIsThirtyTwoBytes) {
  EXPECT_EQ(sm90WgmmaK(DTypeKind::BF16), 16u);
  EXPECT_EQ(sm90WgmmaK(DTypeKind::F16), 16u);
  EXPECT_EQ(sm90WgmmaK(DTypeKind::TF32), 8u);
  EXPECT_EQ(sm90WgmmaK(DTypeKind::E4M3), 32u);
  EXPECT_EQ(sm90WgmmaK(DTypeKind::E5M2), 32u);
}

TEST(Sm90DTypeOperandTile, MNMajorBf16BOperandOf256Rows) {
  // By hand from the ISA's MN-major SW128 form ((T,8,m),(8,k)):((1,T,LBO),
  // (8T,SBO)) with T = 8 bf16: a swizzle atom is 64 N x 8 K, 1024 bytes.
  // Tiled K first, one 64-wide N slice of BK = 64 is 8 atoms = 8192 bytes,
  // so LBO (the next 64 N) = 8192 and SBO (the next 8 K) = 1024; one k16
  // step is two atoms = 2048 bytes. TMA: four 64 x 64 boxes of 8192 bytes.
  auto tile = tmaOperandTile(256, 64, DTypeKind::BF16, MajorKind::MN, 256);
  ASSERT_TRUE(bool(tile)) << llvm::toString(tile.takeError());
  EXPECT_EQ(tile->layout, "tile_to_shape(MN_SW128<bf16>, (256,64), (1,0))");
  EXPECT_EQ(tile->swizzleBytes, 128u);
  EXPECT_EQ((tile->descriptorHigh >> 16) & 0x3FFF, 8192u >> 4);
  EXPECT_EQ((tile->descriptorHigh >> 32) & 0x3FFF, 1024u >> 4);
  EXPECT_EQ(tile->descriptorHigh >> 62, 1u); // SWIZZLE_128B
  EXPECT_EQ(tile->kStepBytes, 2048u);
  EXPECT_EQ(tile->bytes, 256u * 64 * 2);
  EXPECT_EQ(tile->boxDims[0], 64u);
  EXPECT_EQ(tile->boxDims[1], 64u);
  EXPECT_EQ(tile->boxes, 4u);
  EXPECT_EQ(tile->boxBytes, 8192u);
}

TEST(Sm90DTypeOperandTile, MNMajorF16AOperandAdvancesPer64Rows) {
  // A of BM = 128: the second consumer's 64 rows are the second N slice,
  // 64 x 64 x 2 = 8192 bytes on.
  auto tile = tmaOperandTile(128, 64, DTypeKind::F16, MajorKind::MN, 64);
  ASSERT_TRUE(bool(tile)) << llvm::toString(tile.takeError());
  EXPECT_EQ(tile->mAtomBytes, 8192u);
  EXPECT_EQ(tile->kStepBytes, 2048u);
  EXPECT_EQ((tile->descriptorHigh >> 32) & 0x3FFF, 1024u >> 4);
}

TEST(Sm90DTypeOperandTile, NarrowMNMajorTilesTakeTheLargestAtomThatFits) {
  // 24 rows of bf16 are 48 bytes: only the 16-byte interleaved atom divides
  // them; 32 rows (64 bytes) take SW64; 16 rows (32 bytes) SW32.
  auto t24 = tmaOperandTile(24, 64, DTypeKind::BF16, MajorKind::MN, 24);
  ASSERT_TRUE(bool(t24)) << llvm::toString(t24.takeError());
  EXPECT_EQ(t24->layout, "tile_to_shape(MN_INTER<bf16>, (24,64), (1,0))");
  EXPECT_EQ(t24->boxDims[0], 8u);
  EXPECT_EQ(t24->boxes, 3u);
  auto t32 = tmaOperandTile(32, 64, DTypeKind::BF16, MajorKind::MN, 32);
  ASSERT_TRUE(bool(t32)) << llvm::toString(t32.takeError());
  EXPECT_EQ(t32->swizzleBytes, 64u);
  auto t16 = tmaOperandTile(16, 64, DTypeKind::BF16, MajorKind::MN, 16);
  ASSERT_TRUE(bool(t16)) << llvm::toString(t16.takeError());
  EXPECT_EQ(t16->swizzleBytes, 32u);
}

TEST(Sm90DTypeOperandTile, FP8AndTF32KMajorRowsAre128Bytes) {
  // K_SW128<e4m3> is 8 rows x 128 e4m3; K_SW128<tf32> 8 rows x 32 tf32: the
  // same bytes as bf16's, so the same descriptor (SBO 1024, SW128) and a
  // 32-byte K step, k32 and k8 elements.
  auto fp8 = tmaOperandTile(128, 128, DTypeKind::E4M3, MajorKind::K, 64);
  ASSERT_TRUE(bool(fp8)) << llvm::toString(fp8.takeError());
  EXPECT_EQ(fp8->descriptorHigh, 0x4000004000010000ull);
  EXPECT_EQ(fp8->kStepBytes, 32u);
  EXPECT_EQ(fp8->bytes, 128u * 128);
  auto tf32 = tmaOperandTile(64, 32, DTypeKind::TF32, MajorKind::K, 64);
  ASSERT_TRUE(bool(tf32)) << llvm::toString(tf32.takeError());
  EXPECT_EQ(tf32->descriptorHigh, 0x4000004000010000ull);
  EXPECT_EQ(tf32->kStepBytes, 32u);
  // A 64-byte K row (BK = 64 e4m3) is the SW64 atom.
  auto sw64 = tmaOperandTile(128, 64, DTypeKind::E4M3, MajorKind::K, 64);
  ASSERT_TRUE(bool(sw64)) << llvm::toString(sw64.takeError());
  EXPECT_EQ(sw64->swizzleBytes, 64u);
  EXPECT_EQ(sw64->kStepBytes, 32u);
}

TEST(Sm90DTypeConfig, RejectsMNMajorForTypesWgmmaCannotTranspose) {
  Sm90GemmConfig config;
  config.aType = config.bType = DTypeKind::TF32;
  config.bk = 32;
  config.aMajor = MajorKind::MN;
  EXPECT_NE(errorOf(config).find("A is MN-major tf32, but wgmma's transpose "
                                 "(imm-trans-a / imm-trans-b) is only for "
                                 "16-bit types"),
            std::string::npos)
      << errorOf(config);
  config = {};
  config.aType = config.bType = DTypeKind::E4M3;
  config.bk = 128;
  config.bMajor = MajorKind::MN;
  EXPECT_NE(errorOf(config).find("B is MN-major e4m3"), std::string::npos)
      << errorOf(config);
  config.bMajor = MajorKind::K;
  EXPECT_EQ(errorOf(config), "");
}

TEST(Sm90DTypeConfig, RejectsBadTypePairsAndTilesWithNumbers) {
  Sm90GemmConfig config;
  config.bType = DTypeKind::F16;
  EXPECT_NE(errorOf(config).find("A bf16 x B f16 is not a wgmma type pair"),
            std::string::npos)
      << errorOf(config);
  config = {};
  config.aType = DTypeKind::E4M3;
  config.bType = DTypeKind::E5M2;
  // BK = 64 e4m3 is 64 bytes: legal (SW64); BK = 96 is not.
  config.bk = 96;
  EXPECT_NE(errorOf(config).find("BK = 96 e4m3 is 96 bytes of K"),
            std::string::npos)
      << errorOf(config);
  EXPECT_NE(errorOf(config).find("BK = 32, 64 or 128 for e4m3"),
            std::string::npos);
  config = {};
  config.bn = 100;
  EXPECT_NE(errorOf(config).find("BN = 100 is not a wgmma N (a multiple of 8 "
                                 "from 8 to 256; nearest 96 or 104)"),
            std::string::npos)
      << errorOf(config);
  config = {};
  config.cType = DTypeKind::E4M3;
  EXPECT_NE(errorOf(config).find("C e4m3 is not implemented"),
            std::string::npos);
  config = {};
  config.aType = config.bType = DTypeKind::I8;
  EXPECT_NE(errorOf(config).find("not a wgmma input type pair"),
            std::string::npos);
}

/// ptxas -arch=sm_90a -v: exit code and output.
std::pair<int, std::string> assemble(const std::string &ptx) {
  llvm::Expected<PtxasRun> run = runPtxas(ptx, ArchKind::SM90a, {"-v"});
  if (!run)
    return {-1, llvm::toString(run.takeError())};
  return {run->exitCode, run->output};
}

struct DTypeCase {
  const char *label;
  Sm90GemmConfig config;
};

Sm90GemmConfig dtypeConfig(DTypeKind a, DTypeKind b, MajorKind aMajor,
                           MajorKind bMajor, DTypeKind c, unsigned bm,
                           unsigned bn, unsigned bk, unsigned stages,
                           bool swap = false) {
  Sm90GemmConfig config;
  config.aType = a;
  config.bType = b;
  config.aMajor = aMajor;
  config.bMajor = bMajor;
  config.cType = c;
  config.bm = bm;
  config.bn = bn;
  config.bk = bk;
  config.stages = stages;
  config.swapAB = swap;
  return config;
}

class Sm90DTypePtx : public ::testing::TestWithParam<DTypeCase> {};

TEST_P(Sm90DTypePtx, EmitsTheTypedWgmmaAndAssembles) {
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
  DTypeKind roleA = config.swapAB ? config.bType : config.aType;
  DTypeKind roleB = config.swapAB ? config.aType : config.bType;
  MajorKind majorA = config.swapAB ? config.bMajor : config.aMajor;
  MajorKind majorB = config.swapAB ? config.aMajor : config.bMajor;
  unsigned k = 32 * 8 / dtypeBits(roleA);
  std::string mma = "wgmma.mma_async.sync.aligned.m64n" +
                    std::to_string(config.bn) + "k" + std::to_string(k) +
                    ".f32." + dtypeInfo(roleA).ptxName.str() + "." +
                    dtypeInfo(roleB).ptxName.str() + " ";
  // One wgmma per 32 bytes of the ring slot's K (the consumer loop is not
  // unrolled across slots).
  EXPECT_EQ(occurrences(ptx, mma), config.bk / k) << mma;
  bool sixteen = dtypeBits(roleA) == 16;
  std::string tail = sixteen
                         ? std::string(", p, 1, 1, ") +
                               (majorA == MajorKind::MN ? "1" : "0") + ", " +
                               (majorB == MajorKind::MN ? "1" : "0") + ";"
                         : std::string(", p, 1, 1;");
  EXPECT_EQ(occurrences(ptx, tail), config.bk / k) << tail;
  // TMA loads per slot: one box for a K-major operand, one per swizzle atom
  // along MN for an MN-major one (LLVM may unroll the producer loop).
  size_t perSlot = kernel->a.boxes + kernel->b.boxes;
  // Less the staged epilogue's loads of C for beta != 0 (16-bit C only):
  // one per chunk, which spans gcd(BN, 64) columns of the wgmma N.
  bool wide = config.cType == DTypeKind::F32;
  unsigned chunks = wide ? 0 : config.bn / std::gcd(config.bn, 64u);
  size_t loads =
      occurrences(ptx, "cp.async.bulk.tensor.2d.shared::cluster.global") -
      chunks;
  EXPECT_GE(loads, perSlot);
  EXPECT_EQ(loads % perSlot, 0u);
  EXPECT_EQ(kernel->a.boxes,
            majorA == MajorKind::K ? 1u : config.bm / kernel->a.boxDims[0]);
  EXPECT_EQ(kernel->b.boxes,
            majorB == MajorKind::K ? 1u : config.bn / kernel->b.boxDims[0]);
  // C stores in the C type: pairs of f32 as v2.b32 and single f32 as b32;
  // pairs of 16-bit values as b32 and single ones as b16.
  EXPECT_EQ(occurrences(ptx, "st.global.b16") > 0, !wide);
  // 16-bit C also goes out through the staging tile: one stmatrix per
  // thread and pair of 8-column blocks, one TMA store per chunk.
  ASSERT_EQ(kernel->staging.has_value(), !wide);
  if (kernel->staging) {
    const EpilogueStagingTile &tile = *kernel->staging;
    EXPECT_EQ(tile.chunks * (tile.transposed ? tile.rows : tile.cols),
              config.bn);
    EXPECT_EQ(tile.chunks, chunks);
    // Two staged variants: beta == 0, and beta != 0 (which loads C first
    // and reads it back with ldmatrix).
    EXPECT_EQ(occurrences(ptx, "cp.async.bulk.tensor.2d.global.shared::cta"),
              2 * chunks);
    // x4 (two blocks at a time) when a chunk has at least two 8-column
    // blocks, else x2.
    bool x4 = config.bn / chunks >= 16;
    std::string st = std::string("stmatrix.sync.aligned.m8n8.") +
                     (x4 ? "x4" : "x2") +
                     (tile.transposed ? ".trans" : "") + ".shared.b16";
    EXPECT_EQ(occurrences(ptx, st), 2 * config.bn / (x4 ? 16 : 8)) << st;
    std::string ld = std::string("ldmatrix.sync.aligned.m8n8.") +
                     (x4 ? "x4" : "x2") + (tile.transposed ? ".trans" : "") +
                     ".shared.b16";
    EXPECT_EQ(occurrences(ptx, ld), config.bn / (x4 ? 16 : 8)) << ld;
  }
  if (!config.swapAB) {
    EXPECT_EQ(occurrences(ptx, "st.global.v2.b32") > 0, wide);
  }
  if (!findPtxas())
    GTEST_SKIP() << "SKIP: ptxas not found; PTX not assembled";
  auto [rc, said] = assemble(ptx);
  ASSERT_EQ(rc, 0) << said;
  EXPECT_EQ(said.find("warning"), std::string::npos) << said;
  EXPECT_NE(said.find("0 bytes spill stores"), std::string::npos) << said;
}

using D = DTypeKind;
using J = MajorKind;

INSTANTIATE_TEST_SUITE_P(Matrix, Sm90DTypePtx,
                         ::testing::Values(DTypeCase{"bf16_KK_bf16_n256",
                                                     dtypeConfig(D::BF16,
                                                                 D::BF16, J::K,
                                                                 J::K, D::BF16,
                                                                 128, 256, 64,
                                                                 4)},
                                           DTypeCase{
                                               "bf16_MNK_f32_n128",
                                               dtypeConfig(D::BF16, D::BF16,
                                                           J::MN, J::K, D::F32,
                                                           128, 128, 64, 4)},
                                           DTypeCase{
                                               "bf16_KMN_bf16_n256",
                                               dtypeConfig(D::BF16, D::BF16,
                                                           J::K, J::MN, D::BF16,
                                                           128, 256, 64, 4)},
                                           DTypeCase{
                                               "bf16_MNMN_f16_n64",
                                               dtypeConfig(D::BF16, D::BF16,
                                                           J::MN, J::MN, D::F16,
                                                           64, 64, 64, 6)},
                                           DTypeCase{"f16_KK_f16_n200",
                                                     dtypeConfig(D::F16, D::F16, J::K, J::K, D::F16, 128, 200, 64, 4)},
                                           DTypeCase{
                                               "f16_MNK_f32_n8",
                                               dtypeConfig(D::F16, D::F16, J::MN, J::K, D::F32, 64, 8, 64, 4)},
                                           DTypeCase{
                                               "f16_KMN_bf16_n24",
                                               dtypeConfig(D::F16, D::F16, J::K, J::MN, D::BF16, 128, 24, 64, 4)},
                                           DTypeCase{"f16_MNMN_f16_n120", dtypeConfig(
                                                                              D::F16,
                                                                              D::F16, J::MN,
                                                                              J::MN, D::F16, 128, 120, 64, 4)},
                                           DTypeCase{
                                               "f16_MNMN_f32_n32_bk32",
                                               dtypeConfig(D::F16, D::F16, J::MN, J::MN, D::F32, 64, 32, 32, 4)},
                                           DTypeCase{
                                               "bf16_swap_MNK_bf16_n64",
                                               dtypeConfig(D::BF16, D::BF16, J::MN, J::K, D::BF16, 128, 64, 64, 8, true)},
                                           DTypeCase{"tf32_KK_f32_n128", dtypeConfig(D::TF32, D::TF32, J::K, J::K, D::F32, 128, 128, 32, 4)}, DTypeCase{"tf32_KK_bf16_n256", dtypeConfig(D::TF32, D::TF32, J::K, J::K, D::BF16, 128, 256, 32, 4)}, DTypeCase{"e4m3_KK_bf16_n256", dtypeConfig(D::E4M3, D::E4M3, J::K, J::K, D::BF16, 128, 256, 128, 4)}, DTypeCase{"e4m3_KK_bf16_n128_bk64", dtypeConfig(D::E4M3, D::E4M3, J::K, J::K, D::BF16, 128, 128, 64, 6)}, DTypeCase{"e5m2_KK_f32_n64", dtypeConfig(D::E5M2, D::E5M2, J::K, J::K, D::F32, 64, 64, 128, 4)},
                                           DTypeCase{
                                               "e4m3_e5m2_KK_f16_n136",
                                               dtypeConfig(D::E4M3, D::E5M2, J::K, J::K, D::F16, 128, 136, 128, 4)},
                                           DTypeCase{
                                               "e4m3_cluster2_KK_bf16_n256",
                                               [] {
                                                 auto c = dtypeConfig(
                                                     D::E4M3, D::E4M3, J::K,
                                                     J::K, D::BF16, 128, 256,
                                                     128, 4);
                                                 c.clusterM =
                                                     2; // B multicast: half a B
                                                        // box per CTA
                                                 return c;
                                               }()},
                                           DTypeCase{"e4m3_swap_KK_bf16_n64",
                                                     dtypeConfig(D::E4M3,
                                                                 D::E4M3, J::K,
                                                                 J::K, D::BF16,
                                                                 128, 64, 128,
                                                                 6, true)}),
                         [](const auto &info) {
                           return std::string(info.param.label);
                         });

} // namespace
} // namespace tilec
