//===- tests/sim/InterpreterGemmTest.cpp - tilec's GEMM kernels, simulated
//-===//
//
// The PTX tilec emits for examples/gemm_sm80.tile and gemm_sm90.tile
// (checked in under data/), executed by the simulator on random bf16
// matrices and compared with a CPU reference: C = A * B^T, A [M,K] and
// B [N,K] K-major, C [M,N] bf16.
//
//===----------------------------------------------------------------------===//
#include "InterpreterTestUtil.h"

#include "runtime/sim/TmaUnit.h"

#include <bit>
#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

using namespace tilec::sim;
using namespace tilec::sim::test;

namespace {

std::string readData(const std::string &name) {
  std::ifstream in(std::string(TILEC_SIM_TEST_DATA) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

float bf16ToFloat(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

struct Problem {
  unsigned m, n, k;
  DeviceBuffer a, b, c;
  Problem(unsigned m, unsigned n, unsigned k)
      : m(m), n(n), k(k), a(std::size_t(m) * k * 2), b(std::size_t(n) * k * 2),
        c(std::size_t(m) * n * 2) {
    std::mt19937 rng(m * 131 + n * 7 + k);
    std::uniform_int_distribution<int> d(-8, 8);
    // Small integers / 8 are exact in bf16, so the reference is exact.
    for (std::size_t i = 0; i < std::size_t(m) * k; ++i)
      a.as<std::uint16_t>()[i] =
          std::bit_cast<std::uint32_t>(d(rng) / 8.0f) >> 16;
    for (std::size_t i = 0; i < std::size_t(n) * k; ++i)
      b.as<std::uint16_t>()[i] =
          std::bit_cast<std::uint32_t>(d(rng) / 8.0f) >> 16;
    std::memset(c.as<void>(), 0, c.bytes);
  }
  void check() {
    unsigned bad = 0;
    for (unsigned i = 0; i < m; ++i)
      for (unsigned j = 0; j < n; ++j) {
        double ref = 0;
        for (unsigned x = 0; x < k; ++x)
          ref += double(bf16ToFloat(a.as<std::uint16_t>()[i * k + x])) *
                 bf16ToFloat(b.as<std::uint16_t>()[j * k + x]);
        float got = bf16ToFloat(c.as<std::uint16_t>()[i * n + j]);
        if (std::fabs(got - ref) > 1e-2 * std::fabs(ref) + 1e-3 && bad++ < 5)
          ADD_FAILURE() << "C[" << i << "][" << j << "] = " << got
                        << ", reference " << ref;
      }
    EXPECT_EQ(bad, 0u);
  }
};

TEST(InterpreterGemmTest, Sm80GemmMatchesReference) {
  auto m = loadOrFail(readData("gemm_sm80.ptx"));
  ASSERT_TRUE(m);
  Problem p(64, 64, 64);
  std::uint64_t a = p.a.address, b = p.b.address, c = p.c.address;
  std::int32_t mm = 64, nn = 64, kk = 64, lda = 64, ldb = 64, ldc = 64;
  float alpha = 1, beta = 0;
  std::vector<void *> params = {&a,   &b,   &c,   &mm,    &nn,  &kk,
                                &lda, &ldb, &ldc, &alpha, &beta};
  SimLaunchConfig cfg;
  cfg.block[0] = 256;
  cfg.dynamicSharedBytes = 96 * 1024;
  for (std::uint64_t seed : {0ull, 17ull}) {
    SimOptions o;
    o.seed = seed;
    o.profile = seed == 0;
    SimLaunchResult r = simLaunch(*m->functions()[0], cfg, params.data(), o);
    ASSERT_FALSE(r.error) << *r.error;
    p.check();
    if (o.profile) {
      ASSERT_FALSE(r.profile.empty());
      std::uint64_t total = 0, wave = 0, ideal = 0;
      for (const SimLineProfile &l : r.profile) {
        total += l.executions;
        wave += l.sharedWavefronts;
        ideal += l.idealWavefronts;
      }
      EXPECT_EQ(total, r.warpInstructions);
      EXPECT_GE(wave, ideal);
      EXPECT_GT(ideal, 0u);
    }
  }
}

/// Runs gemm_sm90.ptx (BM 128, BN 256, BK 64, TMA-staged epilogue).
SimLaunchResult runSm90(Problem &p, std::uint64_t seed) {
  std::string error;
  auto m = SimModule::load(readData("gemm_sm90.ptx"), error);
  EXPECT_TRUE(m) << error;
  if (!m)
    return {};
  CUtensorMap maps[3];
  auto encode = [&](CUtensorMap *out, std::uint64_t base, std::uint64_t inner,
                    std::uint64_t outer, std::uint32_t boxInner,
                    std::uint32_t boxOuter) {
    std::uint64_t dims[2] = {inner, outer};
    std::uint64_t strides[2] = {2, inner * 2};
    std::uint32_t box[2] = {boxInner, boxOuter};
    std::uint32_t es[2] = {1, 1};
    auto e = encodeSimTensorMap(
        out, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2,
        reinterpret_cast<void *>(base), dims, strides + 1, box, es,
        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    EXPECT_FALSE(e) << *e;
  };
  encode(&maps[0], p.a.address, p.k, p.m, 64, 128);
  encode(&maps[1], p.b.address, p.k, p.n, 64, 256);
  encode(&maps[2], p.c.address, p.n, p.m, 64, 64);
  std::uint64_t c = p.c.address, zero = 0;
  std::int32_t rowsA = p.m, rowsB = p.n, k = p.k, ldc = p.n, storeTma = 1;
  float alpha = 1, beta = 0;
  std::vector<void *> params = {&maps[0], &maps[1], &maps[2], &c,     &rowsA,
                                &rowsB,   &k,       &ldc,     &alpha, &beta,
                                &zero,    &zero,    &storeTma};
  SimLaunchConfig cfg;
  cfg.grid[0] = p.m / 128;
  cfg.grid[1] = p.n / 256;
  cfg.block[0] = 384;
  cfg.dynamicSharedBytes = 229472 + 1024;
  SimOptions o;
  o.seed = seed;
  return simLaunch(*m->functions()[0], cfg, params.data(), o);
}

TEST(InterpreterGemmTest, Sm90GemmMatchesReference) {
  for (std::uint64_t seed : {0ull, 23ull}) {
    Problem p(128, 256, 128);
    SimLaunchResult r = runSm90(p, seed);
    ASSERT_FALSE(r.error) << *r.error;
    p.check();
  }
}

TEST(InterpreterGemmTest, Sm90Gemm256Speed) {
  Problem p(256, 256, 256);
  auto start = std::chrono::steady_clock::now();
  SimLaunchResult r = runSm90(p, 0);
  double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_FALSE(r.error) << *r.error;
  p.check();
  std::printf("sm90 256x256x256: %llu warp-instructions in %.3f s (%.2f M/s)\n",
              static_cast<unsigned long long>(r.warpInstructions), s,
              r.warpInstructions / s / 1e6);
  EXPECT_LT(s, 10.0);
}

} // namespace
