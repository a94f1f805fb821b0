//===- tests/unit/GemmProgramTest.cpp - The programs tilec.gemm compiles --===//
#include "compiler/GemmProgram.h"
#include "compiler/Compiler.h"

#include <gtest/gtest.h>

namespace tilec {
namespace {

/// \p source compiled to its spec, or a test failure.
GemmSpec specOf(const std::string &source) {
  Compiler compiler;
  compiler.setDiskCache(nullptr);
  auto lowered = compiler.lower(source, {});
  EXPECT_TRUE(bool(lowered)) << llvm::toString(lowered.takeError()) << "\n"
                             << source;
  return lowered ? (*lowered)->spec : GemmSpec{};
}

TEST(GemmProgram, DecodeBf16IsTheHeuristicsChoiceWrittenOut) {
  GemmProgramRequest r;
  r.m = 64;
  r.n = 2112;
  r.k = 7168;
  r.sms = 132;
  auto source = gemmProgramSource(r);
  ASSERT_TRUE(bool(source)) << llvm::toString(source.takeError());
  // The header's example, whole.
  EXPECT_EQ(*source, "kernel tilec_gemm_bf16_kk_sm_90a {\n"
                     "  arch     sm_90a\n"
                     "  a        : bf16[M, K] major(K)\n"
                     "  b        : bf16[N, K] major(K)\n"
                     "  c        : bf16[M, N] major(N)\n"
                     "  acc      f32\n"
                     "  tile     (BM = 64, BN = 64, BK = 64)\n"
                     "  stages   13\n"
                     "  mma      wgmma.m64n64k16 warpgroups(1)\n"
                     "  schedule swap_ab split_k(2)\n"
                     "}\n");
  GemmSpec spec = specOf(*source);
  EXPECT_TRUE(spec.swapAB);
  EXPECT_EQ(spec.splitK, 2u);
}

TEST(GemmProgram, NMajorBRoundsANarrowLargeTileUpToWholeAtoms) {
  // 4096 x 2112: the rules' BN 176 (K-major) becomes 192 for an N-major B,
  // whose tile is staged in 64-column atoms; the cluster multicasts B only
  // when B is K-major.
  GemmProgramRequest r;
  r.m = 4096;
  r.n = 2112;
  r.k = 7168;
  auto kk = gemmProgramSource(r);
  r.bMajor = MajorKind::MN;
  auto kn = gemmProgramSource(r);
  ASSERT_TRUE(kk && kn);
  EXPECT_NE(kk->find("BN = 176"), std::string::npos) << *kk;
  EXPECT_NE(kn->find("BN = 192"), std::string::npos) << *kn;
  EXPECT_NE(kk->find("cluster(2)"), std::string::npos);
  EXPECT_EQ(kn->find("cluster(2)"), std::string::npos);
  EXPECT_NE(kn->find("kernel tilec_gemm_bf16_kn_sm_90a"), std::string::npos);
  EXPECT_EQ(specOf(*kn).bn, 192u);
}

TEST(GemmProgram, BlockScaledFixesDecodeExtentsAndPicksTheSfaProgram) {
  GemmProgramRequest r;
  r.type = DTypeKind::E4M3;
  r.blockScaled = true;
  r.sfaMMajor = true;
  r.m = 64;
  r.n = 2112;
  r.k = 7168;
  auto decode = gemmProgramSource(r);
  ASSERT_TRUE(bool(decode));
  EXPECT_NE(decode->find("kernel tilec_gemm_fp8_block_64x2112x7168"),
            std::string::npos);
  EXPECT_NE(decode->find("e4m3[64, 7168]"), std::string::npos);
  EXPECT_NE(decode->find("block(1, 128) major(M)"), std::string::npos);
  r.m = 4096;
  r.n = 4096;
  auto large = gemmProgramSource(r);
  ASSERT_TRUE(bool(large));
  EXPECT_NE(large->find("e4m3[M, K]"), std::string::npos);
  EXPECT_NE(large->find("schedule persistent cluster_n(2)"), std::string::npos);
  EXPECT_EQ(specOf(*large).bm, 256u);
  // One K block: both SFA layouts are the same bytes, the row-major
  // program.
  r.k = 128;
  auto oneBlock = gemmProgramSource(r);
  ASSERT_TRUE(bool(oneBlock));
  EXPECT_EQ(oneBlock->find("major(M)"), std::string::npos);
}

TEST(GemmProgram, BadRequestsNameTheField) {
  auto message = [](GemmProgramRequest r) {
    auto source = gemmProgramSource(r);
    return source ? std::string() : llvm::toString(source.takeError());
  };
  GemmProgramRequest r;
  r.m = 0;
  r.n = r.k = 64;
  EXPECT_EQ(message(r),
            "M = 0, N = 64, K = 64: each must be from 1 to 2^31 - 1");
  r.m = 64;
  r.type = DTypeKind::I8;
  EXPECT_EQ(message(r), "type i8 (legal: bf16, f16, tf32, e4m3, e5m2)");
  r.type = DTypeKind::BF16;
  r.blockScaled = true;
  EXPECT_EQ(message(r), "a block-scaled program is e4m3 with A and B K-major "
                        "on sm_90a; got bf16 with A K-major, B K-major on "
                        "sm_90a");
  r.blockScaled = false;
  r.arch = ArchKind::SM100a;
  EXPECT_EQ(message(r), "arch sm_100a (legal: sm_80, sm_90a)");
}

} // namespace
} // namespace tilec
