//===- tests/gpu/Sm90GemmGpuTest.cpp - sm_90a GEMM against a CPU reference ===//
//
// Every case draws fresh random bf16 inputs, poisons C with NaN (beta = 0)
// or fills it with random values (beta != 0), runs the kernel and compares
// with a double-precision CPU reference: every element for small and
// medium shapes, a random sample for the large ones. Failures print the
// first mismatches with their coordinates.
//
//===----------------------------------------------------------------------===//
#include "GpuTest.h"

#include "codegen/Sm90GemmSpec.h"
#include "ir/arch/Float16Bits.h"
#include "host/GemmLauncher.h"
#include "runtime/DeviceBuffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

namespace tilec {
namespace {

struct Problem {
  unsigned m, n, k;
  float alpha = 1, beta = 0;
  size_t samples = 0; ///< 0: check every element
  unsigned splits = 1;
  /// ldc = N + ldcPad. The TMA-store epilogue runs when ldc * 2 bytes is a
  /// multiple of 16 (and so is N); the pad columns must stay untouched.
  unsigned ldcPad = 0;
};

/// \p config with split-K reduced in a cluster (Sm90Gemm.h).
Sm90GemmConfig clusterSplitK(Sm90GemmConfig config) {
  config.splitK = config.splitKCluster = true;
  return config;
}

Sm90GemmConfig configOf(unsigned bm, unsigned bn, unsigned stages, bool swap,
                        bool splitK = false, unsigned ctasPerSm = 1,
                        bool persistent = false, unsigned clusterM = 1) {
  Sm90GemmConfig config;
  config.clusterM = clusterM;
  config.persistent = persistent;
  config.bm = bm;
  config.bn = bn;
  config.stages = stages;
  config.swapAB = swap;
  config.splitK = splitK;
  config.ctasPerSm = ctasPerSm;
  return config;
}

/// "what: message" of a failed runtime call.
std::string failed(const char *what, const rt::Error &error) {
  return std::string(what) + ": " + error.getMessage();
}

/// Runs one problem; returns a failure description or "".
std::string runProblem(const rt::Context &ctx, const Sm90GemmConfig &config,
                       const Problem &p, uint64_t seed) {
  auto kernel = emitSm90Gemm(config);
  if (!kernel)
    return "emit: " + llvm::toString(kernel.takeError());
  // The embedding API's launcher: tensor maps, grid, split-K workspace.
  auto binary = sm90GemmBinary(std::move(*kernel), p.splits);
  if (!binary)
    return "binary: " + llvm::toString(binary.takeError());
  auto launcher =
      GemmLauncher::create(std::move(*binary), ctx.device().smCount);
  if (!launcher)
    return failed("load", launcher.error());
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const unsigned ldc = p.n + p.ldcPad;
  // C has 8 guard rows past M, poisoned like the pad columns: no store may
  // reach them.
  const unsigned guardRows = 8;
  std::vector<uint16_t> a(size_t(p.m) * p.k), b(size_t(p.n) * p.k),
      c(size_t(p.m + guardRows) * ldc);
  for (auto &x : a)
    x = floatToBf16(dist(rng));
  for (auto &x : b)
    x = floatToBf16(dist(rng));
  for (size_t i = 0; i < c.size(); ++i)
    c[i] = p.beta == 0 || i >= size_t(p.m) * ldc ? Bf16Poison
                                                 : floatToBf16(dist(rng));
  auto da = rt::DeviceBuffer::allocate(a.size() * 2);
  auto db = rt::DeviceBuffer::allocate(b.size() * 2);
  auto dc = rt::DeviceBuffer::allocate(c.size() * 2);
  if (!da || !db || !dc)
    return failed("alloc", !da ? da.error() : !db ? db.error() : dc.error());
  if (rt::Status s = da->upload(a.data(), a.size() * 2); !s)
    return failed("copy A", s.error());
  if (rt::Status s = db->upload(b.data(), b.size() * 2); !s)
    return failed("copy B", s.error());
  if (rt::Status s = dc->upload(c.data(), c.size() * 2); !s)
    return failed("copy C", s.error());
  {
    GemmProblem problem{da->ptr(), db->ptr(), dc->ptr(), p.m,     p.n,   p.k,
                        p.k,       p.k,       ldc,       p.alpha, p.beta};
    if (rt::Status s = launcher->launch(problem); !s)
      return failed("launch", s.error());
    if (rt::Status s = ctx.synchronize(); !s)
      return failed("kernel", s.error());
    if (config.splitK && p.beta == 0) {
      // The second launch only works if the first left every counter at 0.
      std::vector<uint16_t> poison(c.size(), Bf16Poison);
      if (rt::Status s = dc->upload(poison.data(), poison.size() * 2); !s)
        return failed("poison", s.error());
      if (rt::Status s = launcher->launch(problem); !s)
        return failed("second launch", s.error());
      if (rt::Status s = ctx.synchronize(); !s)
        return failed("second kernel", s.error());
    }
  }
  std::vector<uint16_t> out(c.size());
  if (rt::Status s = dc->download(out.data(), out.size() * 2); !s)
    return failed("copy back", s.error());

  std::vector<std::pair<unsigned, unsigned>> points;
  if (p.samples == 0) {
    for (unsigned i = 0; i < p.m; ++i)
      for (unsigned j = 0; j < p.n; ++j)
        points.push_back({i, j});
  } else {
    std::uniform_int_distribution<unsigned> ri(0, p.m - 1), rj(0, p.n - 1);
    for (size_t s = 0; s < p.samples; ++s)
      points.push_back({ri(rng), rj(rng)});
    points.push_back({p.m - 1, p.n - 1});
    points.push_back({0, 0});
  }
  std::ostringstream bad;
  size_t mismatches = 0;
  double errNorm = 0, refNorm = 0;
  for (auto [i, j] : points) {
    double sum = 0;
    for (unsigned kk = 0; kk < p.k; ++kk)
      sum += double(bf16ToFloat(a[size_t(i) * p.k + kk])) *
             double(bf16ToFloat(b[size_t(j) * p.k + kk]));
    double ref = p.alpha * sum;
    if (p.beta != 0)
      ref += p.beta * double(bf16ToFloat(c[size_t(i) * ldc + j]));
    double got = bf16ToFloat(out[size_t(i) * ldc + j]);
    double tol = 1e-2 * std::fabs(ref) + 2e-3 * std::sqrt(double(p.k)) + 1e-3;
    errNorm += (got - ref) * (got - ref);
    refNorm += ref * ref;
    if (!(std::fabs(got - ref) <= tol)) {
      if (mismatches < 8)
        bad << "  C(" << i << ", " << j << ") = " << got << ", reference "
            << ref << "\n";
      ++mismatches;
    }
  }
  // Nothing may be written past column N or row M (the TMA store clips
  // its boxes there; the direct stores are predicated).
  size_t padWrites = 0;
  for (unsigned i = 0; i < p.m + guardRows; ++i)
    for (unsigned j = i < p.m ? p.n : 0; j < ldc; ++j)
      if (out[size_t(i) * ldc + j] != c[size_t(i) * ldc + j]) {
        if (mismatches < 8)
          bad << "  pad C(" << i << ", " << j << ") was written\n";
        ++mismatches;
        ++padWrites;
      }
  double rel = std::sqrt(errNorm / (refNorm > 0 ? refNorm : 1));
  std::printf(
      "sm90 %s%s%s%s bm%u bn%u s%u split%u cta%u  M=%u N=%u K=%u alpha=%g "
      "beta=%g ldc=%u: %zu/%zu checked elements wrong (%zu pad writes), "
      "rel. error %.3g\n",
      config.persistent ? "persistent " : "",
      config.clusterM > 1 ? "cluster2x1 " : "",
      config.splitKCluster ? "dsmem-splitk " : "", config.swapAB ? "swapAB" : "      ", config.bm, config.bn, config.stages,
      p.splits, config.ctasPerSm, p.m, p.n, p.k, p.alpha, p.beta, ldc,
      mismatches - padWrites, points.size(), padWrites, rel);
  if (mismatches || !(rel < 1e-2))
    return std::to_string(mismatches) + " of " + std::to_string(points.size()) +
           " elements wrong (rel. error " + std::to_string(rel) +
           "); first:\n" + bad.str();
  return "";
}

struct GpuCase {
  const char *label;
  Sm90GemmConfig config;
  Problem problem;
};

class Sm90GemmGpu : public ::testing::TestWithParam<GpuCase> {};

TEST_P(Sm90GemmGpu, MatchesCpuReference) {
  TILEC_GPU_CONTEXT(ctx);
  if (ctx.device().ccMajor != 9)
    GTEST_SKIP() << "SKIP: device is not sm_90 (compute capability major "
                 << ctx.device().ccMajor << ")";
  std::string failure = runProblem(ctx, GetParam().config, GetParam().problem,
                                   std::random_device{}());
  EXPECT_EQ(failure, "");
}

// K must be a multiple of 8: the tensor map's row stride (2 K bytes) must be
// a multiple of 16, so 127 x 253 x 61 is not encodable; 127 x 253 x 64 keeps
// M and N ragged and 72 / 200 make K ragged against BK = 64.
INSTANTIATE_TEST_SUITE_P(
    Shapes, Sm90GemmGpu,
    ::testing::Values(
        GpuCase{
            "ragged_127x253x64", configOf(128, 256, 4, false), {127, 253, 64}},
        // TMA-store epilogue (ldc and N multiples of 8): ragged M and N
        // clip at C's extents, the pad columns and guard rows stay
        // poisoned. N = 253 ends inside a 16-byte unit: direct stores.
        GpuCase{"tma_store_ragged_127x264x64_ldc272",
                configOf(128, 256, 4, false),
                {127, 264, 64, 1, 0, 0, 1, 8}},
        GpuCase{"direct_ragged_n_127x253x64_ldc256",
                configOf(128, 256, 4, false),
                {127, 253, 64, 1, 0, 0, 1, 3}},
        GpuCase{"tma_store_alpha_300x520x136",
                configOf(128, 256, 4, false),
                {300, 520, 136, -1.5f, 0}},
        GpuCase{"tma_store_n200_bm64_200x200x72_ldc208",
                configOf(64, 200, 6, false),
                {200, 200, 72, 1, 0, 0, 1, 8}},
        GpuCase{"tma_store_n24_100x24x64",
                configOf(128, 24, 8, false), {100, 24, 64}},
        GpuCase{"tma_store_swap_m37_n1000_k256_ldc1008",
                configOf(64, 64, 8, true),
                {37, 1000, 256, 1, 0, 0, 1, 8}},
        GpuCase{"tma_store_swap_m128_n2112_k512",
                configOf(128, 128, 6, true), {128, 2112, 512}},
        GpuCase{"tma_store_swap_bn24_m20_n1000_k128_ldc1008",
                configOf(64, 24, 8, true), {20, 1000, 128, 1, 0, 0, 1, 8}},
        GpuCase{"ragged_k_129x264x200",
                configOf(128, 256, 4, false),
                {129, 264, 200}},
        GpuCase{"exact_256x512x1024",
                configOf(128, 256, 4, false),
                {256, 512, 1024}},
        GpuCase{"beta_300x520x136",
                configOf(128, 256, 4, false),
                {300, 520, 136, 1.5f, -0.5f}},
        GpuCase{
            "n128_200x136x72", configOf(128, 128, 6, false), {200, 136, 72}},
        GpuCase{
            "n64_bm64_100x72x256", configOf(64, 64, 8, false), {100, 72, 256}},
        GpuCase{
            "swap_m64_n2112_k512", configOf(128, 64, 8, true), {64, 2112, 512}},
        GpuCase{"swap_m37_n300_k136_beta",
                configOf(128, 64, 8, true),
                {37, 300, 136, 0.75f, 2.0f}},
        GpuCase{"swap_m128_n1000_k1024",
                configOf(128, 128, 6, true),
                {128, 1000, 1024}},
        GpuCase{"large_4096_sampled",
                configOf(128, 256, 4, false),
                {4096, 4096, 4096, 1, 0, 4000}},
        GpuCase{"large_2048x8192x1536_sampled",
                configOf(128, 256, 4, false),
                {2048, 8192, 1536, 1, 0, 4000}},
        GpuCase{"decode_m64_n2112_k7168",
                configOf(128, 64, 8, true),
                {64, 2112, 7168, 1, 0, 4000}},
        GpuCase{"splitk4_swap_m64_n2112_k7168",
                configOf(64, 64, 8, true, true),
                {64, 2112, 7168, 1, 0, 0, 4}},
        GpuCase{"splitk3_swap_m100_n300_k1000_beta",
                configOf(64, 128, 8, true, true),
                {100, 300, 1000, 0.5f, 1.0f, 0, 3}},
        GpuCase{"splitk5_ragged_200x264x520",
                configOf(128, 256, 4, false, true),
                {200, 264, 520, 1, 0, 0, 5}},
        GpuCase{"splitk16_more_splits_than_tiles_130x136x256",
                configOf(128, 128, 6, false, true),
                {130, 136, 256, 1, 0, 0, 16}},
        GpuCase{"cta2_swap_m128_n1000_k1536",
                configOf(64, 128, 3, true, false, 2),
                {128, 1000, 1536}},
        GpuCase{"persistent_ragged_1000x1300x520",
                configOf(128, 256, 4, false, false, 1, true),
                {1000, 1300, 520}},
        GpuCase{"persistent_beta_4096x4096x512_sampled",
                configOf(128, 256, 4, false, false, 1, true),
                {4096, 4096, 512, 1.0f, 0.25f, 4000}},
        GpuCase{"persistent_k_smaller_than_ring_3000x2000x64",
                configOf(128, 256, 4, false, false, 1, true),
                {3000, 2000, 64, 1, 0, 4000}},
        GpuCase{"persistent_swap_m64_n24576_k1536_sampled",
                configOf(64, 64, 8, true, false, 1, true),
                {64, 24576, 1536, 1, 0, 4000}},
        GpuCase{"cta2_splitk2_swap_m128_n2112_k7168",
                configOf(64, 128, 3, true, true, 2),
                {128, 2112, 7168, 1, 0, 4000, 2}},
        // 2x1 clusters multicasting B. Odd row-tile counts leave the second
        // CTA of the last cluster with no rows: it must load (zeros), keep
        // the barrier protocol with its peer, and store nothing.
        GpuCase{"cluster2_exact_256x512x1024",
                configOf(128, 256, 4, false, false, 1, false, 2),
                {256, 512, 1024}},
        GpuCase{"cluster2_odd_tiles_beta_300x520x136",
                configOf(128, 256, 4, false, false, 1, false, 2),
                {300, 520, 136, 1.5f, -0.5f}},
        GpuCase{"cluster2_one_tile_127x253x64",
                configOf(128, 256, 4, false, false, 1, false, 2),
                {127, 253, 64}},
        GpuCase{"cluster2_persistent_odd_tiles_1100x1300x520",
                configOf(128, 256, 4, false, false, 1, true, 2),
                {1100, 1300, 520}},
        // Persistent tiles through the staged epilogue (N = 1304: whole
        // 16-byte units), with and without clusters: buffers reused across
        // tiles, odd row-tile counts.
        GpuCase{"tma_store_persistent_ragged_1000x1304x520",
                configOf(128, 256, 4, false, false, 1, true),
                {1000, 1304, 520}},
        GpuCase{"tma_store_cluster2_persistent_odd_tiles_1100x1304x520",
                configOf(128, 256, 4, false, false, 1, true, 2),
                {1100, 1304, 520}},
        GpuCase{"tma_store_cluster2_persistent_swap_m128_n1000_k1536_alpha",
                configOf(128, 128, 6, true, false, 1, true, 2),
                {128, 1000, 1536, -0.5f, 0}},
        GpuCase{"cluster2_persistent_beta_4096x4096x4096_sampled",
                configOf(128, 256, 4, false, false, 1, true, 2),
                {4096, 4096, 4096, 1.0f, 0.25f, 4000}},
        GpuCase{"cluster2_bm64_n64_ragged_k_100x72x200",
                configOf(64, 64, 8, false, false, 1, false, 2),
                {100, 72, 200}},
        GpuCase{"cluster2_splitk3_swap_m64_n2112_k7168",
                configOf(64, 64, 12, true, true, 1, false, 2),
                {64, 2112, 7168, 1, 0, 0, 3}},
        GpuCase{"cluster2_persistent_swap_m128_n1000_k1536_beta",
                configOf(128, 128, 6, true, false, 1, true, 2),
                {128, 1000, 1536, 0.5f, 1.0f}},
        GpuCase{"cluster2_cta2_swap_m37_n300_k136",
                configOf(64, 64, 6, true, false, 2, false, 2),
                {37, 300, 136}},
        // Split-K reduced through distributed shared memory: the splits of
        // a tile are one 1x1xS cluster. The workspace cases' shapes, and
        // splits with no K tiles (zeros, but both barrier rounds).
        GpuCase{"dsmem_splitk4_swap_m64_n2112_k7168",
                clusterSplitK(configOf(64, 64, 13, true)),
                {64, 2112, 7168, 1, 0, 0, 4}},
        GpuCase{"dsmem_splitk2_swap_m64_n2112_k7168_ldc2120",
                clusterSplitK(configOf(64, 64, 13, true)),
                {64, 2112, 7168, 1, 0, 0, 2, 8}},
        GpuCase{"dsmem_splitk3_swap_m100_n300_k1000_beta",
                clusterSplitK(configOf(64, 128, 8, true)),
                {100, 300, 1000, 0.5f, 1.0f, 0, 3}},
        GpuCase{"dsmem_splitk5_ragged_200x264x520",
                clusterSplitK(configOf(128, 256, 4, false)),
                {200, 264, 520, 1, 0, 0, 5}},
        GpuCase{"dsmem_splitk8_swap_m128_n1000_k4096",
                clusterSplitK(configOf(64, 128, 8, true)),
                {128, 1000, 4096, 1, 0, 0, 8}},
        GpuCase{"dsmem_splitk8_more_splits_than_k_tiles_130x136x256",
                clusterSplitK(configOf(128, 128, 6, false)),
                {130, 136, 256, 1, 0, 0, 8}},
        GpuCase{"dsmem_splitk7_beta_direct_ragged_n_127x253x192",
                clusterSplitK(configOf(128, 256, 4, false)),
                {127, 253, 192, -1.0f, 0.5f, 0, 7, 3}},
        GpuCase{"dsmem_cta2_splitk3_swap_m128_n2112_k7168",
                clusterSplitK(configOf(64, 128, 3, true, false, 2)),
                {128, 2112, 7168, 1, 0, 4000, 3}}),
    [](const auto &info) { return std::string(info.param.label); });

} // namespace
} // namespace tilec
