// Batched GEMM (a leading batch extent): what the compiled kernel tells the
// launcher (the i64 stride parameters, the batch on grid z) and the
// launcher's checks of the batch and its strides, each message with the
// numbers and what is legal.
#include "compiler/Compiler.h"
#include "host/GemmLauncher.h"

#include <gtest/gtest.h>

using namespace tilec;

namespace {

const char *const BatchedSource = R"(
kernel batched {
  arch sm_80
  a : bf16[B, M, K] major(K)
  b : bf16[N, K] major(K)
  c : bf16[B, M, N] major(N)
  acc f32
  tile (BM = 128, BN = 128, BK = 32)
  stages 3
  epilogue store
}
)";

/// The compiled batched kernel (b broadcast), compiled once.
const GemmKernelBinary &batchedKernel() {
  static const GemmKernelBinary kernel = [] {
    Compiler compiler;
    auto compiled = compiler.compile(BatchedSource);
    EXPECT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
    return compiled ? GemmKernelBinary(**compiled) : GemmKernelBinary{};
  }();
  return kernel;
}

/// A good problem for batchedKernel(): 4 batches of 100 x 200 x 64, A's
/// and C's batches one 16-byte unit apart beyond their matrices, B shared.
GemmProblem batchedProblem() {
  GemmProblem p;
  p.a = 0x10000, p.b = 0x20000, p.c = 0x30000;
  p.m = 100, p.n = 200, p.k = 64;
  p.lda = 64, p.ldb = 64, p.ldc = 200;
  p.batch = 4;
  p.strideA = 100 * 64 + 8;
  p.strideB = 0;
  p.strideC = 100 * 200 + 8;
  return p;
}

std::string check(const GemmKernelBinary &kernel, const GemmProblem &p) {
  rt::Status s = checkGemmProblem(kernel, p);
  return s ? "ok" : s.error().getMessage();
}

TEST(GemmBatch, KernelTakesStridesAndGridZ) {
  const GemmKernelBinary &kernel = batchedKernel();
  ASSERT_TRUE(kernel.batch.has_value());
  EXPECT_TRUE(kernel.batch->aBatched);
  EXPECT_FALSE(kernel.batch->bBatched);
  EXPECT_EQ(kernel.batch->fixedCount, 0);
  ASSERT_GE(kernel.params.size(), 3u);
  size_t n = kernel.params.size();
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(kernel.params[n - 3 + i].name,
              std::string("stride") + "ABC"[i]);
    EXPECT_EQ(kernel.params[n - 3 + i].kind, KernelParam::I64);
    EXPECT_EQ(kernel.params[n - 3 + i].bytes(), 8u);
  }
  Dim3 g = kernel.grid(1000, 300, 64, 0, 5);
  EXPECT_EQ(g.x, 8u * 3u);
  EXPECT_EQ(g.y, 1u);
  EXPECT_EQ(g.z, 5u);
  // An unbatched kernel ignores the batch count.
  GemmKernelBinary plain = kernel;
  plain.batch.reset();
  EXPECT_EQ(plain.grid(1000, 300, 64, 0, 5).z, 1u);
}

TEST(GemmBatch, AcceptsAGoodBatchAndBatchOne) {
  const GemmKernelBinary &kernel = batchedKernel();
  EXPECT_EQ(check(kernel, batchedProblem()), "ok");
  GemmProblem one = batchedProblem();
  one.batch = 1;
  one.strideC = 0; // One batch: C cannot overlap itself.
  EXPECT_EQ(check(kernel, one), "ok");
  GemmProblem broadcastA = batchedProblem();
  broadcastA.strideA = 0; // A stride of 0 broadcasts a batched operand.
  EXPECT_EQ(check(kernel, broadcastA), "ok");
}

TEST(GemmBatch, ChecksTheBatchAndStrides) {
  const GemmKernelBinary &kernel = batchedKernel();
  GemmProblem p = batchedProblem();
  p.batch = 0;
  EXPECT_EQ(check(kernel, p),
            "batch = 0 is out of range; 1 to 65535 are legal (the batch is "
            "grid z)");
  p = batchedProblem();
  p.strideA = -8;
  EXPECT_EQ(check(kernel, p),
            "strideA = -8 is negative; a batch stride is 0 (broadcast) or a "
            "positive number of elements");
  p = batchedProblem();
  p.strideA = 6404;
  EXPECT_EQ(check(kernel, p),
            "strideA = 6404 is not a multiple of 8 elements (16 bytes of "
            "bf16): every batch's A must stay 16-byte aligned; e.g. 6408");
  p = batchedProblem();
  p.strideB = 12800;
  EXPECT_EQ(check(kernel, p),
            "strideB = 12800, but operand b has no batch extent (every "
            "batch reads the same B); pass 0 or declare the batch extent on "
            "b");
  p = batchedProblem();
  p.strideC = 100 * 200 - 8;
  EXPECT_EQ(check(kernel, p),
            "strideC = 19992 is less than M * ldc = 100 * 200 = 20000: the "
            "batches of C would overlap; at least 20000 is legal");
  p.strideC = 0; // Every batch writing one C: refused too.
  EXPECT_EQ(check(kernel, p),
            "strideC = 0 is less than M * ldc = 100 * 200 = 20000: the "
            "batches of C would overlap; at least 20000 is legal");
}

TEST(GemmBatch, UnbatchedKernelRefusesABatch) {
  GemmKernelBinary plain = batchedKernel();
  plain.batch.reset();
  GemmProblem p = batchedProblem();
  EXPECT_EQ(check(plain, p),
            "kernel 'batched' is not batched, but batch = 4, strideA = 6408, "
            "strideB = 0, strideC = 20008; pass batch 1 and strides 0, or "
            "declare a batch extent (a : T[B, M, K], c : T[B, M, N])");
  p.batch = 1;
  p.strideA = p.strideC = 0;
  EXPECT_EQ(check(plain, p), "ok");
}

TEST(GemmBatch, FixedBatchMustMatch) {
  GemmKernelBinary kernel = batchedKernel();
  kernel.batch->fixedCount = 2;
  GemmProblem p = batchedProblem();
  EXPECT_EQ(check(kernel, p),
            "batch = 4 disagrees with the program's fixed batch extent 2");
  p.batch = 2;
  EXPECT_EQ(check(kernel, p), "ok");
}

/// A batched sm_100a kernel (b broadcast, BM = 128, BN = 128) or its CTA
/// pair (BM = 256), compiled once each.
const GemmKernelBinary &sm100Kernel(bool pair) {
  auto compile = [](bool pair) {
    std::string source = std::string(R"(
kernel batched100 {
  arch sm_100a
  a : bf16[B, M, K] major(K)
  b : bf16[N, K] major(K)
  c : bf16[B, M, N] major(N)
  acc f32
  tile (BM = )") + (pair ? "256" : "128") +
                         R"(, BN = 128, BK = 64)
  stages 4
  mma auto
)" + (pair ? "  schedule cluster(2)\n" : "") +
                         "  epilogue store\n}\n";
    Compiler compiler;
    auto compiled = compiler.compile(source);
    EXPECT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
    return compiled ? GemmKernelBinary(**compiled) : GemmKernelBinary{};
  };
  static const GemmKernelBinary single = compile(false), paired = compile(true);
  return pair ? paired : single;
}

TEST(GemmBatch, Sm100WalksBatchTimesTiles) {
  const GemmKernelBinary &kernel = sm100Kernel(false);
  ASSERT_TRUE(kernel.batch.has_value());
  // The batch count and C's stride close the parameters; A's stride is in
  // its rank-3 map, B (broadcast) keeps a rank-2 map.
  ASSERT_GE(kernel.params.size(), 2u);
  size_t n = kernel.params.size();
  EXPECT_EQ(kernel.params[n - 2].name, "batch");
  EXPECT_EQ(kernel.params[n - 2].kind, KernelParam::I32);
  EXPECT_EQ(kernel.params[n - 1].name, "strideC");
  EXPECT_EQ(kernel.params[n - 1].kind, KernelParam::I64);
  ASSERT_EQ(kernel.tensorMaps.size(), 2u);
  EXPECT_EQ(kernel.tensorMaps[0].matrix, 'A');
  EXPECT_TRUE(kernel.tensorMaps[0].batched);
  EXPECT_FALSE(kernel.tensorMaps[1].batched);
  // 3 batches of 37 x 300: 3 tiles each, 9 units on grid x (never z),
  // capped by the SMs.
  Dim3 g = kernel.grid(37, 300, 64, 0, 3);
  EXPECT_EQ(g.x, 9u);
  EXPECT_EQ(g.y, 1u);
  EXPECT_EQ(g.z, 1u);
  EXPECT_EQ(kernel.grid(37, 300, 64, 4, 3).x, 4u);
  EXPECT_EQ(kernel.grid(37, 300, 64, 148, 3).x, 9u);
  // The pair: 2 x 3 pair tiles of 256 x 128 per batch of 300 x 300, 18
  // pairs for 3 batches; 8 SMs hold 4 pairs.
  const GemmKernelBinary &pair = sm100Kernel(true);
  EXPECT_EQ(pair.grid(300, 300, 64, 0, 3).x, 36u);
  EXPECT_EQ(pair.grid(300, 300, 64, 8, 3).x, 8u);
  EXPECT_EQ(pair.grid(300, 300, 64, 8, 3).z, 1u);
}

TEST(GemmBatch, Sm100ChecksTheUnitCount) {
  const GemmKernelBinary &kernel = sm100Kernel(false);
  GemmProblem p = batchedProblem();
  EXPECT_EQ(check(kernel, p), "ok");
  p.batch = 0;
  EXPECT_EQ(check(kernel, p),
            "batch = 0 is out of range; 1 to 65535 are legal");
  // 64 batches of 8192 x 8192 tiles: 2^32 units, past the 32-bit index.
  p = batchedProblem();
  p.batch = 64;
  p.m = p.n = 1 << 20;
  p.ldc = p.n;
  p.strideA = p.m * 64;
  p.strideC = p.m * p.ldc;
  EXPECT_EQ(check(kernel, p),
            "batch x tiles = 4294967296 exceeds the kernel's 32-bit unit "
            "index; at most 2147483647 are legal");
}

} // namespace
