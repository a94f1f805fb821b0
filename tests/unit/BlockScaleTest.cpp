//===- tests/unit/BlockScaleTest.cpp - Block-scaled fp8 GEMM pieces -------===//
//
// The B-scale slots a BN tile needs (against a brute-force walk over every
// tile start), the kernel's sfa/sfb parameters, the lowered spec, and the
// launcher's checks of sfa and sfb.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90BlockScale.h"
#include "codegen/Sm90Gemm.h"
#include "codegen/Sm90GemmSpec.h"
#include "compiler/Compiler.h"
#include "host/GemmLauncher.h"

#include <gtest/gtest.h>

#include <set>

using namespace tilec;

namespace {

// The distinct 128-column B-scale blocks any tile of BN columns touches:
// tiles start at t * BN, and t * BN mod 128 repeats after 128 tiles.
unsigned bruteForceSlots(unsigned bn) {
  unsigned most = 0;
  for (unsigned t = 0; t < 128; ++t) {
    std::set<unsigned> blocks;
    for (unsigned col = t * bn; col < (t + 1) * bn; ++col)
      blocks.insert(col / 128);
    most = std::max(most, unsigned(blocks.size()));
  }
  return most;
}

TEST(BlockScale, SlotsMatchEveryTileStart) {
  for (unsigned bn = 8; bn <= 256; bn += 8)
    EXPECT_EQ(sm90BlockScaleSlots(bn), bruteForceSlots(bn)) << "BN = " << bn;
  // The header's examples.
  EXPECT_EQ(sm90BlockScaleSlots(128), 1u);
  EXPECT_EQ(sm90BlockScaleSlots(64), 1u);
  EXPECT_EQ(sm90BlockScaleSlots(256), 2u);
  EXPECT_EQ(sm90BlockScaleSlots(96), 2u);
  EXPECT_EQ(sm90BlockScaleSlots(192), 2u);
  EXPECT_EQ(sm90BlockScaleSlots(240), 3u);
}

TEST(BlockScale, ParamsAppendSfaAndSfb) {
  std::vector<KernelParam> plain = sm90KernelParams(true, {});
  std::vector<KernelParam> scaled = sm90KernelParams(true, {}, true);
  ASSERT_EQ(scaled.size(), plain.size() + 2);
  EXPECT_EQ(scaled[plain.size()].name, "sfa");
  EXPECT_EQ(scaled[plain.size() + 1].name, "sfb");
  EXPECT_EQ(scaled[plain.size()].kind, KernelParam::Pointer);
}

const char *Program = R"(
kernel fp8_block {
  arch     sm_90a
  a        : e4m3[M, K] major(K)
  b        : e4m3[N, K] major(K)
  c        : bf16[M, N] major(N)
  acc      f32
  scale a  f32 block(1, 128)
  scale b  f32 block(128, 128)
  tile     (BM = 128, BN = 96, BK = 128)
  stages   4
}
)";

TEST(BlockScale, CompilesWithScaleParamsAndSpec) {
  Compiler compiler;
  auto kernel = compiler.compile(Program);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  const GemmSpec &spec = (*kernel)->lowered.spec;
  ASSERT_TRUE(spec.blockScale.has_value());
  EXPECT_EQ(spec.blockScale->aRows, 1u);
  EXPECT_EQ(spec.blockScale->bRows, 128u);
  EXPECT_EQ(spec.blockScale->kBlock, 128u);
  const std::vector<KernelParam> &params = (*kernel)->params;
  ASSERT_GE(params.size(), 2u);
  EXPECT_EQ(params[params.size() - 2].name, "sfa");
  EXPECT_EQ(params.back().name, "sfb");
  // The promotion: one fma per accumulator register per K block, 48 for
  // m64n96 (and the plain unscaled kernel has none).
  EXPECT_NE((*kernel)->ptx.find("fma.rn.f32"), std::string::npos);
}

GemmProblem problem(int64_t m, int64_t n, int64_t k) {
  GemmProblem p;
  p.a = 0x10000;
  p.b = 0x20000;
  p.c = 0x30000;
  p.m = m;
  p.n = n;
  p.k = k;
  p.lda = p.ldb = (k + 15) / 16 * 16;
  p.ldc = (n + 7) / 8 * 8;
  p.sfa = 0x40000;
  p.sfb = 0x50000;
  return p;
}

std::string check(const GemmKernelBinary &kernel, const GemmProblem &p) {
  rt::Status s = checkGemmProblem(kernel, p);
  return s ? "ok" : s.error().getMessage();
}

TEST(BlockScale, LauncherChecksTheScales) {
  Compiler compiler;
  auto kernel = compiler.compile(Program);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  const GemmKernelBinary &binary = **kernel;
  EXPECT_EQ(check(binary, problem(200, 300, 384)), "ok");
  GemmProblem p = problem(200, 300, 200);
  p.sfa = 0;
  EXPECT_EQ(check(binary, p),
            "kernel 'fp8_block' is block-scaled: pass sfa, a row-major "
            "f32[M, ceil(K / 128)] = [200, 2] tensor (sfa is null)");
  p = problem(200, 300, 200);
  p.sfb = 0;
  EXPECT_EQ(check(binary, p),
            "kernel 'fp8_block' is block-scaled: pass sfb, a row-major "
            "f32[ceil(N / 128), ceil(K / 128)] = [3, 2] tensor (sfb is null)");
  p = problem(200, 300, 200);
  p.sfb = 0x50002;
  EXPECT_EQ(check(binary, p),
            "sfb = 0x50002 is not 4-byte aligned (offset 2); its elements "
            "are f32; it holds a row-major f32[ceil(N / 128), ceil(K / 128)] "
            "= [3, 2]");
  // An unscaled kernel refuses scales.
  auto plain = compiler.compile(R"(
kernel plain {
  arch     sm_90a
  a        : e4m3[M, K] major(K)
  b        : e4m3[N, K] major(K)
  c        : bf16[M, N] major(N)
  acc      f32
  tile     (BM = 128, BN = 128, BK = 128)
  stages   4
}
)");
  ASSERT_TRUE(bool(plain)) << llvm::toString(plain.takeError());
  GemmProblem q = problem(200, 300, 384);
  q.sfb = 0;
  EXPECT_EQ(check(**plain, q),
            "kernel 'plain' has no block scales, but sfa is set; pass 0 or "
            "add 'scale a f32 block(1, 128)'");
  q.sfa = 0;
  EXPECT_EQ(check(**plain, q), "ok");
}

// Swap-AB (issue 13): the kernel's A role is the user's B, but sfa and sfb
// keep the user's shapes (sfa f32[M, ceil(K / 128)], sfb f32[ceil(N / 128),
// ceil(K / 128)]): the launcher passes and checks them by name, and the
// kernel reads SFB per wgmma row block and SFA per column (shfl.sync).
TEST(BlockScale, SwapABKeepsTheUsersScaleShapes) {
  Compiler compiler;
  auto kernel = compiler.compile(R"(
kernel fp8_swap {
  arch     sm_90a
  a        : e4m3[M, K] major(K)
  b        : e4m3[N, K] major(K)
  c        : bf16[M, N] major(N)
  acc      f32
  scale a  f32 block(1, 128)
  scale b  f32 block(128, 128)
  tile     (BM = 64, BN = 64, BK = 128)
  stages   4
  schedule swap_ab split_k(2)
}
)");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  const GemmKernelBinary &binary = **kernel;
  EXPECT_TRUE(binary.swapAB);
  EXPECT_TRUE((*kernel)->lowered.spec.swapAB);
  ASSERT_GE(binary.params.size(), 2u);
  EXPECT_EQ(binary.params[binary.params.size() - 2].name, "sfa");
  EXPECT_EQ(binary.params.back().name, "sfb");
  EXPECT_NE((*kernel)->ptx.find("shfl.sync.idx.b32"), std::string::npos);
  EXPECT_EQ(check(binary, problem(37, 300, 1000)), "ok");
  GemmProblem p = problem(37, 300, 1000);
  p.sfa = 0;
  EXPECT_EQ(check(binary, p),
            "kernel 'fp8_swap' is block-scaled: pass sfa, a row-major "
            "f32[M, ceil(K / 128)] = [37, 8] tensor (sfa is null)");
  p = problem(37, 300, 1000);
  p.sfb = 0;
  EXPECT_EQ(check(binary, p),
            "kernel 'fp8_swap' is block-scaled: pass sfb, a row-major "
            "f32[ceil(N / 128), ceil(K / 128)] = [3, 8] tensor (sfb is null)");
}

} // namespace
