//===- tests/unit/GemmLauncherTest.cpp - The launch path without a GPU ----===//
//
// host/GemmLauncher's argument checks and tensor maps, the launch facts
// of GemmKernelBinary (grid, workspace) for sm_80 and sm_90a, and the
// `schedule` line from .tile text to the sm_90a binary. Expected values are
// worked out by hand from the kernel contracts in codegen/GemmCodegen.h.
//
//===----------------------------------------------------------------------===//
#include "host/GemmLauncher.h"

#include "codegen/Sm90GemmSpec.h"
#include "codegen/Sm90Heuristic.h"
#include "compiler/Compiler.h"

#include <gtest/gtest.h>

namespace tilec {
namespace {

/// The sm_90a binary's launch facts without running the generator.
GemmKernelBinary sm90Binary(unsigned bm, unsigned bn, bool swap,
                            unsigned splits = 1) {
  Sm90GemmKernel kernel;
  kernel.entry = "k";
  kernel.blockThreads = 128 * (1 + bm / 64);
  kernel.config.bm = bm;
  kernel.config.bn = bn;
  kernel.config.swapAB = swap;
  kernel.config.splitK = splits > 1;
  kernel.a.rows = bm;
  kernel.b.rows = bn;
  kernel.a.boxDims[0] = kernel.b.boxDims[0] = 64; // BK of bf16: 128 bytes
  kernel.a.boxDims[1] = bm;
  kernel.b.boxDims[1] = bn;
  auto binary = sm90GemmBinary(std::move(kernel), splits);
  EXPECT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  return binary ? std::move(*binary) : GemmKernelBinary{};
}

GemmKernelBinary sm80Binary() {
  GemmKernelBinary binary;
  binary.arch = ArchKind::SM80;
  binary.entryName = "k80";
  binary.tileM = 128;
  binary.tileN = 128;
  binary.params = {{"A", KernelParam::Pointer}, {"B", KernelParam::Pointer},
                   {"C", KernelParam::Pointer}, {"M", KernelParam::I32},
                   {"N", KernelParam::I32},     {"K", KernelParam::I32},
                   {"lda", KernelParam::I32},   {"ldb", KernelParam::I32},
                   {"ldc", KernelParam::I32}};
  return binary;
}

GemmProblem problem(int64_t m, int64_t n, int64_t k) {
  GemmProblem p;
  p.a = 0x10000;
  p.b = 0x20000;
  p.c = 0x30000;
  p.m = m;
  p.n = n;
  p.k = k;
  p.lda = (k + 7) / 8 * 8;
  p.ldb = (k + 7) / 8 * 8;
  p.ldc = (n + 7) / 8 * 8;
  return p;
}

std::string check(const GemmKernelBinary &kernel, const GemmProblem &p) {
  rt::Status s = checkGemmProblem(kernel, p);
  return s ? "ok" : s.error().getMessage();
}

TEST(GemmLauncher, AcceptsAGoodProblem) {
  EXPECT_EQ(check(sm90Binary(128, 256, false), problem(1000, 1304, 1024)),
            "ok");
  EXPECT_EQ(check(sm80Binary(), problem(1, 1, 1)), "ok");
}

TEST(GemmLauncher, ChecksSizes) {
  GemmKernelBinary kernel = sm90Binary(128, 256, false);
  EXPECT_EQ(check(kernel, problem(0, 8, 8)),
            "M = 0 is out of range; 1 to 2147483647 are legal");
  GemmProblem p = problem(8, 8, 8);
  p.k = int64_t(1) << 31;
  p.lda = p.ldb = p.k;
  EXPECT_EQ(check(kernel, p),
            "K = 2147483648 is out of range; 1 to 2147483647 are legal");
}

TEST(GemmLauncher, ChecksLeadingDimensions) {
  GemmKernelBinary kernel = sm90Binary(128, 256, false);
  GemmProblem p = problem(100, 200, 300);
  p.lda = 300; // 600 bytes: not a whole number of 16-byte units.
  EXPECT_EQ(check(kernel, p),
            "lda = 300 must be at least K = 300 and a multiple of 8 elements "
            "(16 bytes of bf16); e.g. 304");
  p = problem(100, 200, 300);
  p.ldb = 296;
  EXPECT_EQ(check(kernel, p), "ldb = 296 must be at least K = 300 and a "
                              "multiple of 8 elements (16 bytes of bf16)");
  // sm_90a's epilogue takes any ldc >= N; sm_80's stores 16-byte vectors.
  p = problem(100, 200, 300);
  p.ldc = 192;
  EXPECT_EQ(check(kernel, p), "ldc = 192 must be at least N = 200");
  p.ldc = 201;
  EXPECT_EQ(check(kernel, p), "ok");
  p = problem(100, 200, 304);
  p.ldc = 201;
  EXPECT_EQ(check(sm80Binary(), p),
            "ldc = 201 must be at least N = 200 and a multiple of 8 elements "
            "(16 bytes of bf16); e.g. 208");
  // An M-major A (sm_80 "NN"/"NT") needs lda >= M.
  GemmKernelBinary mn = sm80Binary();
  mn.aMajor = MajorKind::MN;
  p = problem(100, 200, 304);
  p.lda = 96;
  EXPECT_EQ(check(mn, p), "lda = 96 must be at least M = 100 and a multiple "
                          "of 8 elements (16 bytes of bf16)");
}

TEST(GemmLauncher, ChecksPointers) {
  GemmKernelBinary kernel = sm80Binary();
  GemmProblem p = problem(8, 8, 8);
  p.b = 0;
  EXPECT_EQ(check(kernel, p), "B is a null device pointer");
  p = problem(8, 8, 8);
  p.c = 0x30008;
  EXPECT_EQ(check(kernel, p), "C = 0x30008 is not 16-byte aligned (offset "
                              "8); the epilogue's stores need it");
  EXPECT_EQ(check(sm90Binary(128, 256, false), p), "ok");
  p.c = 0x30002;
  EXPECT_EQ(check(sm90Binary(128, 256, false), p),
            "C = 0x30002 is not 4-byte aligned (offset 2); the epilogue's "
            "stores need it");
  p = problem(8, 8, 8);
  p.a = 0x10008;
  EXPECT_EQ(check(sm90Binary(128, 256, false), p),
            "A = 0x10008 is not 16-byte aligned (offset 8); TMA reads from "
            "16-byte aligned addresses");
}

TEST(GemmLauncher, ChecksScalarsOfAKernelWithoutThem) {
  GemmKernelBinary kernel = sm80Binary(); // No alpha/beta parameters.
  GemmProblem p = problem(8, 8, 8);
  EXPECT_EQ(check(kernel, p), "ok");
  p.beta = 1.0f;
  EXPECT_EQ(check(kernel, p),
            "kernel 'k80' has no alpha/beta parameters (C = A * B^T); alpha = "
            "1.000000, beta = 1.000000 need a kernel with epilogue scalars; 1 "
            "and 0 are legal");
}

/// \p kernel with the epilogue \p ops and their parameters.
GemmKernelBinary withOps(GemmKernelBinary kernel,
                         std::vector<llvm::StringRef> ops) {
  for (llvm::StringRef text : ops) {
    llvm::Expected<EpilogueOp> op = parseEpilogueOp(text);
    EXPECT_TRUE(bool(op)) << text.str();
    if (!op) {
      llvm::consumeError(op.takeError());
      continue;
    }
    kernel.epilogueOps.push_back(*op);
    llvm::StringRef operand = epilogueOpInfo(op->kind).operand;
    if (!operand.empty())
      kernel.params.push_back({operand.str(), KernelParam::Pointer});
    if (op->kind == EpilogueOpKind::Residual)
      kernel.params.push_back({"ldr", KernelParam::I32});
  }
  return kernel;
}

TEST(GemmLauncher, ChecksTheResidual) {
  GemmKernelBinary kernel = withOps(sm80Binary(), {"relu", "residual"});
  GemmProblem p = problem(100, 64, 32);
  EXPECT_EQ(check(kernel, p),
            "kernel 'k80' applies residual: pass residual, an M x N = 100 x "
            "64 bf16 tensor with leading dimension ldr (residual is null)");
  p.operand(EpilogueOpKind::Residual).ptr = 0x40001;
  p.operand(EpilogueOpKind::Residual).ld = 64;
  EXPECT_EQ(check(kernel, p),
            "residual = 0x40001 is not 2-byte aligned (offset 1); its "
            "elements are read one by one");
  p.operand(EpilogueOpKind::Residual).ptr = 0x40002;
  p.operand(EpilogueOpKind::Residual).ld = 63;
  EXPECT_EQ(check(kernel, p), "ldr = 63 must be at least N = 64");
  p.operand(EpilogueOpKind::Residual).ld =
      67; // Any ldr >= N: the residual is read element by element.
  EXPECT_EQ(check(kernel, p), "ok");
  GemmProblem extra = problem(100, 64, 32);
  extra.operand(EpilogueOpKind::Residual).ptr = 0x40000;
  EXPECT_EQ(check(sm80Binary(), extra),
            "kernel 'k80' has no residual op in its epilogue, but residual is "
            "set; pass 0 or add the op (epilogue residual ...)");
}

TEST(GemmLauncher, ChecksSwiglusShapes) {
  GemmKernelBinary kernel =
      withOps(sm90Binary(128, 128, false), {"swiglu", "residual"});
  GemmProblem p = problem(100, 256, 64);
  p.operand(EpilogueOpKind::Residual).ptr = 0x40000;
  p.operand(EpilogueOpKind::Residual).ld =
      128; // C and the residual are M x N/2.
  p.ldc = 128;
  EXPECT_EQ(check(kernel, p), "ok");
  p.operand(EpilogueOpKind::Residual).ld = 127;
  EXPECT_EQ(check(kernel, p), "ldr = 127 must be at least N/2 (swiglu) = 128");
  p.operand(EpilogueOpKind::Residual).ld = 128;
  p.ldc = 120;
  EXPECT_EQ(check(kernel, p), "ldc = 120 must be at least N/2 (swiglu) = 128");
  p.ldc = 128;
  p.beta = 0.5f;
  EXPECT_EQ(check(kernel, p),
            "kernel 'k' applies swiglu: C (M x N/2) is written, not read, so "
            "beta = 0.500000 has nothing to scale; 0 is legal (add a "
            "'residual' op to add a tensor)");
  // The halves of each BN = 128 tile: N a multiple of 128.
  GemmProblem ragged = problem(100, 264, 64);
  ragged.operand(EpilogueOpKind::Residual).ptr = 0x40000;
  ragged.operand(EpilogueOpKind::Residual).ld = ragged.ldc = 136;
  EXPECT_EQ(check(kernel, ragged),
            "kernel 'k' applies swiglu to the halves of each tile of BN = 128 "
            "columns: N = 264 must be a multiple of 128 (e.g. 384), or "
            "compile swiglu(interleaved), which takes any even N");
  GemmKernelBinary interleaved =
      withOps(sm90Binary(128, 128, false), {"swiglu(interleaved)"});
  ragged.operand(EpilogueOpKind::Residual).ptr = 0;
  EXPECT_EQ(check(interleaved, ragged), "ok");
  ragged.n = 265;
  EXPECT_EQ(check(interleaved, ragged),
            "kernel 'k' applies swiglu, which pairs N = 265 accumulator "
            "columns into C's N/2: N must be even");
  // C's tensor map covers N/2 columns.
  GemmProblem mapped = problem(100, 256, 64);
  mapped.ldc = 128;
  kernel.tensorMaps.push_back(kernel.tensorMaps[0]);
  kernel.tensorMaps.back().matrix = 'C';
  kernel.tensorMaps.back().param = "tmapC";
  auto maps = gemmTensorMaps(withOps(kernel, {}), mapped);
  ASSERT_TRUE(maps.ok()) << maps.error().getMessage();
  ASSERT_EQ(maps->size(), 3u);
  ASSERT_TRUE((*maps)[2].has_value());
  EXPECT_EQ((*maps)[2]->globalDims[0], 128u); // K-major plan: {cols, rows}
  EXPECT_EQ((*maps)[2]->globalDims[1], 100u);
}

TEST(GemmLauncher, ChecksABiasOfItsOwnType) {
  GemmKernelBinary kernel = withOps(sm80Binary(), {"bias(row, f32)"});
  GemmProblem p = problem(100, 64, 32);
  p.operand(EpilogueOpKind::Bias).ptr = 0x50002;
  EXPECT_EQ(check(kernel, p),
            "bias = 0x50002 is not 4-byte aligned (offset 2); its elements "
            "are read one by one");
  p.operand(EpilogueOpKind::Bias).ptr = 0;
  EXPECT_EQ(check(kernel, p),
            "kernel 'k80' applies bias(row, f32): pass bias, a vector of M = "
            "100 f32 (bias is null)");
  // A column vector after swiglu has C's N/2 elements.
  GemmKernelBinary half =
      withOps(sm90Binary(128, 128, false), {"swiglu", "bias(col, f16)"});
  GemmProblem q = problem(100, 256, 64);
  q.ldc = 128;
  EXPECT_EQ(check(half, q),
            "kernel 'k' applies bias(col, f16): pass bias, a vector of N/2 = "
            "128 f16 (bias is null)");
}

TEST(GemmLauncher, Sm90TensorMapsFollowTheTiles) {
  GemmProblem p = problem(1000, 1304, 1024);
  p.lda = 1032; // Padded rows: the stride is lda, not K.
  auto maps = gemmTensorMaps(sm90Binary(128, 256, false), p);
  ASSERT_TRUE(maps.ok()) << maps.error().getMessage();
  ASSERT_EQ(maps->size(), 2u);
  EXPECT_EQ((*maps)[0]->globalAddress, 0x10000u);
  EXPECT_EQ((*maps)[0]->globalDims[0], 1024u);
  EXPECT_EQ((*maps)[0]->globalDims[1], 1000u);
  EXPECT_EQ((*maps)[0]->globalStrides[0], 2064u);
  EXPECT_EQ((*maps)[0]->boxDims[0], 64u);
  EXPECT_EQ((*maps)[0]->boxDims[1], 128u);
  EXPECT_EQ((*maps)[0]->swizzle, rt::TensorMapSwizzleKind::B128);
  EXPECT_EQ((*maps)[0]->dtype, rt::TensorMapDTypeKind::BF16);
  EXPECT_EQ((*maps)[1]->globalAddress, 0x20000u);
  EXPECT_EQ((*maps)[1]->globalDims[1], 1304u);
  EXPECT_EQ((*maps)[1]->globalStrides[0], 2048u);
  EXPECT_EQ((*maps)[1]->boxDims[1], 256u);
  EXPECT_EQ((*maps)[1]->oobFill, rt::TensorMapOobFillKind::Zero);
}

TEST(GemmLauncher, SwapAbFeedsBThroughTheFirstMap) {
  GemmProblem p = problem(64, 2112, 7168);
  auto maps = gemmTensorMaps(sm90Binary(64, 64, true, 4), p);
  ASSERT_TRUE(maps.ok()) << maps.error().getMessage();
  ASSERT_EQ(maps->size(), 2u);
  EXPECT_EQ((*maps)[0]->globalAddress, 0x20000u); // B, 2112 rows.
  EXPECT_EQ((*maps)[0]->globalDims[1], 2112u);
  EXPECT_EQ((*maps)[1]->globalAddress, 0x10000u); // A, 64 rows.
  EXPECT_EQ((*maps)[1]->globalDims[1], 64u);
  EXPECT_EQ((*maps)[1]->boxDims[1], 64u);
}

// With a staging tile the kernel takes tmapC: C (M x N, stride ldc) in
// boxes of one chunk, 64 rows of 64 bf16 with the 128-byte swizzle. A C the
// TMA cannot address gets no map (the launcher passes storeTma = 0), not an
// error.
TEST(GemmLauncher, CMapOrFallback) {
  Sm90GemmKernel k;
  k.entry = "k";
  k.a.boxDims[0] = k.b.boxDims[0] = 64;
  k.a.boxDims[1] = 128;
  k.b.boxDims[1] = 256;
  auto staging = sm90EpilogueTile(k.config); // 128 x 256 bf16
  ASSERT_TRUE(staging && *staging);
  k.staging = **staging;
  auto binary = sm90GemmBinary(std::move(k));
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  GemmKernelBinary kernel = std::move(*binary);
  ASSERT_EQ(kernel.tensorMaps.size(), 3u);
  ASSERT_GE(kernel.params.size(), 3u);
  EXPECT_EQ(kernel.params[2].name, "tmapC");
  EXPECT_EQ(kernel.params.back().name, "storeTma");
  GemmProblem p = problem(1000, 1304, 1024);
  p.ldc = 1312;
  auto maps = gemmTensorMaps(kernel, p);
  ASSERT_TRUE(maps.ok()) << maps.error().getMessage();
  ASSERT_EQ(maps->size(), 3u);
  ASSERT_TRUE((*maps)[2].has_value());
  EXPECT_EQ((*maps)[2]->globalAddress, p.c);
  EXPECT_EQ((*maps)[2]->globalDims[0], 1304u);    // N, contiguous
  EXPECT_EQ((*maps)[2]->globalDims[1], 1000u);    // M
  EXPECT_EQ((*maps)[2]->globalStrides[0], 2624u); // 1312 x 2 bytes
  EXPECT_EQ((*maps)[2]->boxDims[0], 64u);
  EXPECT_EQ((*maps)[2]->boxDims[1], 64u);
  EXPECT_EQ((*maps)[2]->swizzle, rt::TensorMapSwizzleKind::B128);
  p.ldc = 1305; // 2610 bytes: not a multiple of 16
  maps = gemmTensorMaps(kernel, p);
  ASSERT_TRUE(maps.ok()) << maps.error().getMessage();
  EXPECT_TRUE((*maps)[0].has_value());
  EXPECT_FALSE((*maps)[2].has_value());
  // ldc is fine but N = 1301 ends inside a 16-byte unit.
  p.n = 1301;
  p.ldc = 1312;
  maps = gemmTensorMaps(kernel, p);
  ASSERT_TRUE(maps.ok()) << maps.error().getMessage();
  EXPECT_FALSE((*maps)[2].has_value());
}

TEST(GemmLauncher, BadTensorMapIsNamed) {
  GemmKernelBinary kernel = sm90Binary(128, 256, false);
  kernel.tensorMaps[0].boxInner = 128; // 256 bytes: over the 128B swizzle.
  auto maps = gemmTensorMaps(kernel, problem(128, 256, 128));
  ASSERT_FALSE(maps.ok());
  EXPECT_NE(maps.error().getMessage().find("tensor map tmapA of A"),
            std::string::npos)
      << maps.error().getMessage();
}

TEST(GemmLaunchFacts, Grids) {
  // sm_80: one row of CTAs, ceil(M/128) * ceil(N/128).
  Dim3 g = sm80Binary().grid(1000, 300, 64);
  EXPECT_EQ(g.x, 8u * 3u);
  EXPECT_EQ(g.y, 1u);
  // sm_90a: x = M tiles, y = N tiles.
  g = sm90Binary(128, 256, false).grid(1000, 1304, 1024);
  EXPECT_EQ(g.x, 8u);
  EXPECT_EQ(g.y, 6u);
  EXPECT_EQ(g.z, 1u);
  // Swap-AB: x walks N in BM = 64 rows, y walks M in BN = 64, z = splits.
  GemmKernelBinary decode = sm90Binary(64, 64, true, 4);
  g = decode.grid(64, 2112, 7168);
  EXPECT_EQ(g.x, 33u);
  EXPECT_EQ(g.y, 1u);
  EXPECT_EQ(g.z, 4u);
  EXPECT_EQ(decode.tileM, 64u);
  EXPECT_EQ(decode.workspaceBytes(64, 2112), 33u * 4 * 64 * 64 * 4);
  EXPECT_EQ(decode.counterBytes(64, 2112), 33u * 4);
  EXPECT_EQ(sm90Binary(128, 256, false).workspaceBytes(4096, 4096), 0u);
  // Persistent: capped at SMs x CTAs per SM.
  GemmKernelBinary persistent = sm90Binary(128, 256, false);
  persistent.persistent = true;
  g = persistent.grid(4096, 4096, 64, 132);
  EXPECT_EQ(g.x, 132u);
  g = persistent.grid(256, 256, 64, 132);
  EXPECT_EQ(g.x, 2u);
}

TEST(GemmLaunchFacts, Sm90ParamsIncludeTensorMaps) {
  GemmKernelBinary kernel = sm90Binary(128, 256, false);
  ASSERT_EQ(kernel.params.size(), 11u);
  EXPECT_EQ(kernel.params[0].kind, KernelParam::TensorMap);
  EXPECT_EQ(kernel.params[0].bytes(), 128u);
  EXPECT_EQ(kernel.params[2].name, "c");
  EXPECT_EQ(kernel.params[2].bytes(), 8u);
}

const char *DecodeSource = R"(
kernel fixed_decode {
  arch     sm_90a
  a        : bf16[64, 7168] major(K)
  b        : bf16[2112, 7168] major(K)
  c        : bf16[64, 2112] major(N)
  acc      f32
  tile     (BM = 64, BN = 64, BK = 64)
  stages   8
  mma      wgmma.m64n64k16 warpgroups(1)
}
kernel written {
  arch     sm_90a
  a        : bf16[M, K] major(K)
  b        : bf16[N, K] major(K)
  c        : bf16[M, N] major(N)
  acc      f32
  tile     (BM = 128, BN = 128, BK = 64)
  stages   4
  schedule split_k(3)
}
kernel runtime_m {
  arch     sm_90a
  a        : bf16[M, K] major(K)
  b        : bf16[N, K] major(K)
  c        : bf16[M, N] major(N)
  acc      f32
  tile     (BM = 128, BN = 256, BK = 64)
  stages   4
}
)";

TEST(Schedule, AutoSwapsAndSplitsAFixedDecodeShape) {
  Compiler compiler;
  auto names = compiler.kernelNames(DecodeSource);
  ASSERT_TRUE(bool(names)) << llvm::toString(names.takeError());
  EXPECT_EQ(*names,
            (std::vector<std::string>{"fixed_decode", "written", "runtime_m"}));
  auto lower = [&](const char *name) {
    CompileOptions options;
    options.kernel = name;
    auto kernel = compiler.lower(DecodeSource, options);
    EXPECT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    return (*kernel)->spec;
  };
  // 2112 / 64 = 33 tiles at BN 64: 132 SMs / 2 / 33 tiles = 2 splits of
  // the 112 k-tiles, as the run-time heuristic picks.
  GemmSpec decode = lower("fixed_decode");
  EXPECT_TRUE(decode.swapAB);
  EXPECT_EQ(decode.splitK, 2u);
  EXPECT_EQ(decode.splitK, sm90ChooseConfig(64, 2112, 7168, 132).splits);
  GemmSpec written = lower("written");
  EXPECT_FALSE(written.swapAB);
  EXPECT_EQ(written.splitK, 3u);
  GemmSpec plain = lower("runtime_m");
  EXPECT_FALSE(plain.swapAB);
  EXPECT_EQ(plain.splitK, 1u);
}

TEST(Schedule, IsRejectedOffSm90) {
  Compiler compiler;
  auto kernel = compiler.lower(R"(
kernel k {
  arch sm_80
  a : bf16[M, K] major(K)
  b : bf16[N, K] major(K)
  c : bf16[M, N] major(N)
  acc f32
  tile (BM = 128, BN = 128, BK = 32)
  stages 3
  schedule swap_ab
}
)");
  ASSERT_FALSE(bool(kernel));
  std::string message = llvm::toString(kernel.takeError());
  EXPECT_NE(
      message.find("schedule swap_ab is implemented for sm_90a, sm_100a only"),
      std::string::npos)
      << message;
}

// A kernel that fixes an extent computes only that extent: the launcher
// refuses another, naming both numbers, instead of computing it.
TEST(GemmLauncher, RefusesAProblemThatDisagreesWithAFixedExtent) {
  Compiler compiler;
  auto kernel = compiler.compile(R"(
kernel fixed_m {
  arch sm_80
  a : f16[32, K] major(K)
  b : f16[N, 64] major(K)
  c : f16[32, N] major(N)
  acc f32
  tile (BM = 32, BN = 128, BK = 32)
  stages 3
}
)");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ((*kernel)->fixedM, 32);
  EXPECT_EQ((*kernel)->fixedN, 0);
  EXPECT_EQ((*kernel)->fixedK, 64);
  EXPECT_EQ(check(**kernel, problem(32, 200, 64)), "ok");
  EXPECT_EQ(check(**kernel, problem(64, 200, 64)),
            "M = 64 disagrees with the program's fixed extent M = 32; launch "
            "with M = 32 or declare the extent as M");
  EXPECT_EQ(check(**kernel, problem(32, 200, 128)),
            "K = 128 disagrees with the program's fixed extent K = 64; launch "
            "with K = 64 or declare the extent as K");
}

} // namespace
} // namespace tilec
