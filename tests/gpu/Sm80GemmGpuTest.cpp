//===- tests/gpu/Sm80GemmGpuTest.cpp - The sm_80 GEMM against a CPU reference
//===//
//
// Every majorness (TN, NT, NN, TT) in f16 and bf16, ragged sizes checked
// element by element against fp64 dot products of the same rounded inputs,
// fresh random data per case (the seed is printed), C poisoned with NaN before
// each launch (beta = 0 must never read it), and 4096^3 checked on a random
// sample of 2000 elements. The tolerance is the output rounding plus the
// worst-case f32 accumulation bound K * 2^-23 * sum |a||b| (2^-23: the
// tensor core may truncate).
//
//===----------------------------------------------------------------------===//
#include "GpuTest.h"

#include "codegen/GemmCodegen.h"
#include "ir/arch/Float16Bits.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Event.h"
#include "runtime/Launch.h"
#include "runtime/Module.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

namespace tilec {
namespace {

unsigned roundUp8(unsigned x) { return (x + 7) / 8 * 8; }

struct Case {
  DTypeKind type;
  MajorKind aMajor, bMajor;
  unsigned m, n, k;
  bool sampled; ///< Check 2000 random elements instead of all.
  float alpha = 1.0f, beta = 0.0f;
};

std::string majorName(MajorKind a, MajorKind b) {
  return std::string(a == MajorKind::K ? "T" : "N") +
         (b == MajorKind::K ? "N" : "T");
}

/// A CTA tile configuration: the default (bk = 32, fragments prefetched
/// within a k-tile) and the fastest measured one (bk = 64, fragments
/// prefetched across k-tiles).
struct Tile {
  unsigned bm, bn, bk, stages;
};
constexpr Tile Tiles[] = {{128, 128, 32, 4}, {128, 256, 64, 3}};

/// Compiles, launches and checks one case.
void runCase(const Case &c, const Tile &tile) {
  GemmSpec spec;
  spec.name = "gemm_gpu_test";
  spec.bm = tile.bm;
  spec.bn = tile.bn;
  spec.bk = tile.bk;
  spec.stages = tile.stages;
  spec.aType = spec.bType = spec.cType = c.type;
  spec.aMajor = c.aMajor;
  spec.bMajor = c.bMajor;
  auto binary = emitGemm(spec);
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  auto module = rt::Module::loadPtx(binary->ptx);
  ASSERT_TRUE(module.ok()) << module.error().getMessage();
  auto fn = module->function(binary->entryName);
  ASSERT_TRUE(fn.ok()) << fn.error().getMessage();

  std::random_device device;
  unsigned seed = device();
  std::string label =
      llvm::formatv("{0} {1} {2}x{3}x{4} tile {6}x{7}x{8} seed {5}",
                    dtypeInfo(c.type).name, majorName(c.aMajor, c.bMajor), c.m,
                    c.n, c.k, seed, tile.bm, tile.bn, tile.bk)
          .str();
  SCOPED_TRACE(label);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);

  // Logical A (m x k) and B (n x k), stored per majorness.
  bool aK = c.aMajor == MajorKind::K, bK = c.bMajor == MajorKind::K;
  unsigned lda = aK ? roundUp8(c.k) : roundUp8(c.m);
  unsigned ldb = bK ? roundUp8(c.k) : roundUp8(c.n);
  unsigned ldc = roundUp8(c.n);
  if (llvm::Error err = checkGemmArguments(spec, c.m, c.n, c.k, lda, ldb, ldc))
    FAIL() << llvm::toString(std::move(err));
  std::size_t aElems = std::size_t(lda) * (aK ? c.m : c.k);
  std::size_t bElems = std::size_t(ldb) * (bK ? c.n : c.k);
  std::size_t cElems = std::size_t(ldc) * c.m;
  std::vector<std::uint16_t> aHost(aElems, 0), bHost(bElems, 0), cHost;
  std::vector<float> aVal(std::size_t(c.m) * c.k), bVal(std::size_t(c.n) * c.k);
  for (unsigned i = 0; i < c.m; ++i)
    for (unsigned kk = 0; kk < c.k; ++kk) {
      std::uint16_t bits = floatToBits16(dist(rng), c.type);
      aVal[std::size_t(i) * c.k + kk] = bits16ToFloat(bits, c.type);
      aHost[aK ? std::size_t(i) * lda + kk : std::size_t(kk) * lda + i] = bits;
    }
  for (unsigned j = 0; j < c.n; ++j)
    for (unsigned kk = 0; kk < c.k; ++kk) {
      std::uint16_t bits = floatToBits16(dist(rng), c.type);
      bVal[std::size_t(j) * c.k + kk] = bits16ToFloat(bits, c.type);
      bHost[bK ? std::size_t(j) * ldb + kk : std::size_t(kk) * ldb + j] = bits;
    }
  bool readsC = c.beta != 0.0f;
  if (readsC) {
    cHost.resize(cElems);
    for (auto &bits : cHost)
      bits = floatToBits16(dist(rng), c.type);
  }

  auto aBuf = rt::DeviceBuffer::allocate(aElems * 2);
  auto bBuf = rt::DeviceBuffer::allocate(bElems * 2);
  auto cBuf = rt::DeviceBuffer::allocate(cElems * 2);
  ASSERT_TRUE(aBuf.ok() && bBuf.ok() && cBuf.ok());
  ASSERT_TRUE(aBuf->upload(aHost.data(), aElems * 2).ok());
  ASSERT_TRUE(bBuf->upload(bHost.data(), bElems * 2).ok());
  // 0xffff is a NaN in f16 and bf16.
  ASSERT_TRUE(cBuf->fillBytes(0xff).ok());
  if (readsC) {
    ASSERT_TRUE(cBuf->upload(cHost.data(), cElems * 2).ok());
  }

  rt::LaunchConfig config;
  config.grid = {binary->gridBlocks(c.m, c.n)};
  config.block = {binary->blockThreads};
  config.dynamicSharedBytes = binary->sharedBytes;
  auto start = rt::Event::create();
  auto end = rt::Event::create();
  ASSERT_TRUE(start.ok() && end.ok());
  ASSERT_TRUE(start->record().ok());
  rt::Status s = rt::launch(
      *fn, config, aBuf->ptr(), bBuf->ptr(), cBuf->ptr(), std::int32_t(c.m),
      std::int32_t(c.n), std::int32_t(c.k), std::int32_t(lda),
      std::int32_t(ldb), std::int32_t(ldc), c.alpha, c.beta);
  ASSERT_TRUE(s.ok()) << s.error().getMessage();
  ASSERT_TRUE(end->record().ok());
  s = end->synchronize();
  ASSERT_TRUE(s.ok()) << s.error().getMessage();
  auto ms = rt::Event::elapsedMs(*start, *end);
  auto out = cBuf->download<std::uint16_t>();
  ASSERT_TRUE(out.ok()) << out.error().getMessage();

  double unitOut =
      c.type == DTypeKind::BF16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
  // Per-add error of the tensor core's f32 accumulation, allowing
  // truncation rather than round-to-nearest (2^-23, not 2^-24).
  double unitAcc = c.k * std::ldexp(1.0, -23);
  std::size_t wrong = 0, checked = 0;
  double worst = 0;
  auto check = [&](unsigned i, unsigned j) {
    double dot = 0, mag = 0;
    const float *ar = &aVal[std::size_t(i) * c.k];
    const float *br = &bVal[std::size_t(j) * c.k];
    for (unsigned kk = 0; kk < c.k; ++kk) {
      dot += double(ar[kk]) * br[kk];
      mag += std::fabs(double(ar[kk]) * br[kk]);
    }
    double old =
        readsC ? bits16ToFloat(cHost[std::size_t(i) * ldc + j], c.type) : 0.0;
    double ref = c.alpha * dot + c.beta * old;
    double tol = unitOut * std::fabs(ref) + std::fabs(c.alpha) * unitAcc * mag +
                 1e-30 + (readsC ? unitAcc * std::fabs(c.beta * old) : 0.0);
    double got = bits16ToFloat((*out)[std::size_t(i) * ldc + j], c.type);
    double err = std::fabs(got - ref);
    ++checked;
    if (!(err <= tol)) {
      if (++wrong <= 5)
        ADD_FAILURE() << "C[" << i << "][" << j << "] = " << got
                      << ", reference " << ref << ", tolerance " << tol;
    } else {
      worst = std::max(worst, err / tol);
    }
  };
  if (c.sampled) {
    std::uniform_int_distribution<unsigned> pickI(0, c.m - 1),
        pickJ(0, c.n - 1);
    for (int t = 0; t < 2000; ++t)
      check(pickI(rng), pickJ(rng));
    check(c.m - 1, c.n - 1);
  } else {
    for (unsigned i = 0; i < c.m; ++i)
      for (unsigned j = 0; j < c.n; ++j)
        check(i, j);
  }
  // Padding columns past N in each row of C must still hold the poison.
  std::size_t touched = 0;
  if (!readsC)
    for (unsigned i = 0; i < c.m; ++i)
      for (unsigned j = c.n; j < ldc; ++j)
        touched += (*out)[std::size_t(i) * ldc + j] != 0xffff;
  EXPECT_EQ(touched, 0u) << "elements past N were written";
  EXPECT_EQ(wrong, 0u) << "of " << checked << " checked";
  double flops = 2.0 * c.m * c.n * c.k;
  std::printf("sm80 gemm %s: %zu/%zu wrong, worst err/tol %.3f, %.3f ms "
              "(%.1f TFLOP/s, first launch)\n",
              label.c_str(), wrong, checked, worst, ms.ok() ? *ms : -1.0f,
              ms.ok() && *ms > 0 ? flops / (*ms * 1e9) : 0.0);
}

class Sm80GemmGpu : public ::testing::TestWithParam<
                        std::tuple<DTypeKind, MajorKind, MajorKind>> {};

TEST_P(Sm80GemmGpu, MatchesCpuReference) {
  TILEC_GPU_CONTEXT(ctx);
  if (ctx.device().computeCapability() < 80)
    GTEST_SKIP() << "SKIP: sm_80 code needs compute capability 8.0, the GPU "
                 << "is sm_" << ctx.device().computeCapability();
  auto [type, a, b] = GetParam();
  for (Case c :
       {Case{type, a, b, 1, 1, 1, false}, Case{type, a, b, 17, 9, 8, false},
        Case{type, a, b, 127, 253, 61, false},
        Case{type, a, b, 1, 4096, 4096, false},
        Case{type, a, b, 256, 384, 512, false},
        Case{type, a, b, 200, 136, 100, false, 0.5f, -2.0f},
        Case{type, a, b, 4096, 4096, 4096, true}})
    for (const Tile &tile : Tiles)
      runCase(c, tile);
}

std::string
paramName(const ::testing::TestParamInfo<Sm80GemmGpu::ParamType> &info) {
  return dtypeInfo(std::get<0>(info.param)).name.str() + "_" +
         majorName(std::get<1>(info.param), std::get<2>(info.param));
}

INSTANTIATE_TEST_SUITE_P(
    AllMajorness, Sm80GemmGpu,
    ::testing::Combine(::testing::Values(DTypeKind::F16, DTypeKind::BF16),
                       ::testing::Values(MajorKind::K, MajorKind::MN),
                       ::testing::Values(MajorKind::K, MajorKind::MN)),
    paramName);

} // namespace
} // namespace tilec
