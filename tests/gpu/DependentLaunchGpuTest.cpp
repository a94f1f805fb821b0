//===- tests/gpu/DependentLaunchGpuTest.cpp - Chained sm_90a GEMMs --------===//
//
// sm_90a GEMMs are launched as programmatic dependents: the next kernel in
// the stream may be scheduled while the previous one runs, and waits with
// griddepcontrol.wait before touching memory. The test chains two GEMMs
// where the second reads the first's output as its A operand, with no
// synchronization between the launches: the first has long K and 2 CTAs, so
// the second's CTAs are resident (and would read the NaN-poisoned C1) long
// before the first finishes, unless the wait holds them. C1 is checked
// against a double-precision CPU reference, C2 against one computed from
// the downloaded C1.
//
//===----------------------------------------------------------------------===//
#include "GpuTest.h"

#include "codegen/Sm90GemmSpec.h"
#include "ir/arch/Float16Bits.h"
#include "host/GemmLauncher.h"
#include "runtime/DeviceBuffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace tilec {
namespace {

/// ||got - ref|| / ||ref|| over row-major M x N, or infinity with a NaN.
double relativeError(const std::vector<uint16_t> &got,
                     const std::vector<double> &ref) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    double g = bf16ToFloat(got[i]);
    if (std::isnan(g))
      return INFINITY;
    diff += (g - ref[i]) * (g - ref[i]);
    norm += ref[i] * ref[i];
  }
  return std::sqrt(diff / norm);
}

/// C = A * B^T in double for bf16 A (M x K) and B (N x K), row-major.
std::vector<double> reference(const std::vector<uint16_t> &a,
                              const std::vector<uint16_t> &b, unsigned m,
                              unsigned n, unsigned k) {
  std::vector<double> c(size_t(m) * n);
  std::vector<double> ad(a.size()), bd(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    ad[i] = bf16ToFloat(a[i]);
  for (size_t i = 0; i < b.size(); ++i)
    bd[i] = bf16ToFloat(b[i]);
  for (unsigned i = 0; i < m; ++i)
    for (unsigned j = 0; j < n; ++j) {
      double sum = 0;
      for (unsigned kk = 0; kk < k; ++kk)
        sum += ad[size_t(i) * k + kk] * bd[size_t(j) * k + kk];
      c[size_t(i) * n + j] = sum;
    }
  return c;
}

rt::Result<GemmLauncher> loader(const rt::Context &ctx, unsigned bm,
                                unsigned bn, unsigned stages) {
  Sm90GemmConfig config;
  config.bm = bm;
  config.bn = bn;
  config.stages = stages;
  auto kernel = emitSm90Gemm(config);
  if (!kernel)
    return rt::Error(llvm::toString(kernel.takeError()));
  auto binary = sm90GemmBinary(std::move(*kernel), 1);
  if (!binary)
    return rt::Error(llvm::toString(binary.takeError()));
  return GemmLauncher::create(std::move(*binary), ctx.device().smCount);
}

TEST(DependentLaunchGpu, SecondGemmWaitsForTheFirstsOutput) {
  TILEC_GPU_CONTEXT(ctx);
  if (ctx.device().ccMajor != 9)
    GTEST_SKIP() << "SKIP: sm_90a kernels need an sm_90 GPU";
  // GEMM 1: C1 (M x H) = A1 (M x K1) B1^T; GEMM 2: C2 (M x N) = C1 B2^T.
  const unsigned m = 256, h = 256, k1 = 8192, n = 2048;
  auto first = loader(ctx, 128, 256, 4);  // 2 CTAs, 128 K tiles each
  auto second = loader(ctx, 128, 256, 4); // 16 CTAs
  ASSERT_TRUE(first) << first.error().getMessage();
  ASSERT_TRUE(second) << second.error().getMessage();

  std::mt19937_64 rng(20261122);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int round = 0; round < 3; ++round) {
    std::vector<uint16_t> a1(size_t(m) * k1), b1(size_t(h) * k1),
        b2(size_t(n) * h);
    for (auto *v : {&a1, &b1, &b2})
      for (auto &x : *v)
        x = floatToBf16(dist(rng));
    std::vector<uint16_t> poison1(size_t(m) * h, Bf16Poison),
        poison2(size_t(m) * n, Bf16Poison);
    auto da1 = rt::DeviceBuffer::allocate(a1.size() * 2);
    auto db1 = rt::DeviceBuffer::allocate(b1.size() * 2);
    auto db2 = rt::DeviceBuffer::allocate(b2.size() * 2);
    auto dc1 = rt::DeviceBuffer::allocate(poison1.size() * 2);
    auto dc2 = rt::DeviceBuffer::allocate(poison2.size() * 2);
    ASSERT_TRUE(da1 && db1 && db2 && dc1 && dc2);
    ASSERT_TRUE(da1->upload(a1.data(), a1.size() * 2));
    ASSERT_TRUE(db1->upload(b1.data(), b1.size() * 2));
    ASSERT_TRUE(db2->upload(b2.data(), b2.size() * 2));
    ASSERT_TRUE(dc1->upload(poison1.data(), poison1.size() * 2));
    ASSERT_TRUE(dc2->upload(poison2.data(), poison2.size() * 2));

    GemmProblem p1{da1->ptr(), db1->ptr(), dc1->ptr(), m, h, k1, k1, k1, h};
    GemmProblem p2{dc1->ptr(), db2->ptr(), dc2->ptr(), m, n, h, h, h, n};
    auto l1 = first->prepare(p1);
    auto l2 = second->prepare(p2);
    ASSERT_TRUE(l1 && l2);
    // The launcher makes sm_90a launches programmatic dependents.
    EXPECT_TRUE(l2->config.programmaticSerialization);
    ASSERT_TRUE(first->launch(*l1));
    ASSERT_TRUE(second->launch(*l2));
    rt::Status done = ctx.synchronize();
    ASSERT_TRUE(done) << done.error().getMessage();

    auto c1 = dc1->download<uint16_t>();
    auto c2 = dc2->download<uint16_t>();
    ASSERT_TRUE(c1 && c2);
    double e1 = relativeError(*c1, reference(a1, b1, m, h, k1));
    double e2 = relativeError(*c2, reference(*c1, b2, m, n, h));
    std::printf("dependent launch round %d: C1 rel. error %.2e, C2 (from the "
                "GPU's C1) %.2e\n",
                round, e1, e2);
    EXPECT_LT(e1, 1e-2) << "round " << round;
    EXPECT_LT(e2, 1e-2) << "round " << round
                        << ": the second GEMM read C1 before it was written";
  }
}

} // namespace
} // namespace tilec
