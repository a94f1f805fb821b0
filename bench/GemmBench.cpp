//===- bench/GemmBench.cpp - tilec GEMM kernels timed on the GPU ----------===//
//
// Compiles GemmSpecs to PTX in-process, loads them through the runtime and
// times them with events: warm-up, then the median of 50 timed launches on
// random (not zero) inputs, printed as TFLOP/s. One "RESULT" line per
// (shape, tile config) for bench/run_gemm_bench.sh to tabulate next to
// cuBLAS (bench/cublas_bench.py).
//
//   GemmBench [M N K ...]     default shapes: 4096^3 8192^3 64x2112x7168
//
//===----------------------------------------------------------------------===//
#include "codegen/GemmCodegen.h"
#include "runtime/Device.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Event.h"
#include "runtime/Launch.h"
#include "runtime/Module.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using namespace tilec;

namespace {

struct Config {
  unsigned bm, bn, bk, stages, warpsM, warpsN;
};

constexpr Config Configs[] = {
    {128, 128, 32, 4, 2, 4}, {128, 256, 32, 3, 2, 4}, {128, 256, 32, 4, 2, 4},
    {256, 128, 64, 3, 4, 2}, {128, 128, 64, 3, 2, 4}, {128, 256, 64, 3, 2, 4},
};

constexpr int WarmUp = 10, Timed = 50;

int fail(const std::string &what) {
  std::fprintf(stderr, "GemmBench: %s\n", what.c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::array<unsigned, 3>> shapes;
  for (int i = 1; i + 2 < argc; i += 3)
    shapes.push_back({unsigned(std::atoi(argv[i])),
                      unsigned(std::atoi(argv[i + 1])),
                      unsigned(std::atoi(argv[i + 2]))});
  if (shapes.empty())
    shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}, {64, 2112, 7168}};

  auto ctx = rt::Context::create(0);
  if (!ctx) {
    std::printf("SKIP: no usable CUDA GPU: %s\n",
                ctx.error().getMessage().c_str());
    return 0;
  }
  std::printf("device: %s (sm_%u)\n", ctx->device().name.c_str(),
              ctx->device().computeCapability());

  for (auto [m, n, k] : shapes) {
    // bf16 TN, K-major A and B, leading dimensions padded to 8.
    unsigned lda = (k + 7) / 8 * 8, ldb = lda, ldc = (n + 7) / 8 * 8;
    std::vector<std::uint16_t> host(std::size_t(std::max(m, n)) * lda);
    std::mt19937 rng(1234);
    std::uniform_int_distribution<int> bits(0, 0x3f7f - 0x3c00);
    for (auto &h : host)
      h = std::uint16_t(0x3c00 + bits(rng)) | (rng() & 1 ? 0x8000 : 0);
    auto a = rt::DeviceBuffer::allocate(std::size_t(m) * lda * 2);
    auto b = rt::DeviceBuffer::allocate(std::size_t(n) * ldb * 2);
    auto c = rt::DeviceBuffer::allocate(std::size_t(m) * ldc * 2);
    if (!a || !b || !c)
      return fail("allocation failed");
    if (!a->upload(host.data(), std::size_t(m) * lda * 2) ||
        !b->upload(host.data(), std::size_t(n) * ldb * 2))
      return fail("upload failed");
    double flops = 2.0 * m * n * k;

    for (const Config &cfg : Configs) {
      GemmSpec spec;
      spec.name = "gemm_bench";
      spec.bm = cfg.bm;
      spec.bn = cfg.bn;
      spec.bk = cfg.bk;
      spec.stages = cfg.stages;
      spec.warpsM = cfg.warpsM;
      spec.warpsN = cfg.warpsN;
      if (llvm::Error err = checkGemmArguments(spec, m, n, k, lda, ldb, ldc))
        return fail(llvm::toString(std::move(err)));
      auto binary = emitGemm(spec);
      if (!binary)
        return fail(llvm::toString(binary.takeError()));
      auto module = rt::Module::loadPtx(binary->ptx);
      if (!module)
        return fail(module.error().getMessage());
      auto fn = module->function(binary->entryName);
      if (!fn)
        return fail(fn.error().getMessage());
      int regs = fn->numRegisters().ok() ? *fn->numRegisters() : -1;
      rt::LaunchConfig config;
      config.grid = {binary->gridBlocks(m, n)};
      config.block = {binary->blockThreads};
      config.dynamicSharedBytes = binary->sharedBytes;
      auto launchOnce = [&] {
        return rt::launch(*fn, config, a->ptr(), b->ptr(), c->ptr(),
                          std::int32_t(m), std::int32_t(n), std::int32_t(k),
                          std::int32_t(lda), std::int32_t(ldb),
                          std::int32_t(ldc), 1.0f, 0.0f);
      };
      for (int i = 0; i < WarmUp; ++i)
        if (auto s = launchOnce(); !s)
          return fail(s.error().getMessage());
      std::vector<float> times;
      auto start = rt::Event::create();
      auto end = rt::Event::create();
      if (!start || !end)
        return fail("event creation failed");
      for (int i = 0; i < Timed; ++i) {
        if (auto s = start->record(); !s)
          return fail(s.error().getMessage());
        if (auto s = launchOnce(); !s)
          return fail(s.error().getMessage());
        if (auto s = end->record(); !s)
          return fail(s.error().getMessage());
        if (auto s = end->synchronize(); !s)
          return fail(s.error().getMessage());
        times.push_back(*rt::Event::elapsedMs(*start, *end));
      }
      std::sort(times.begin(), times.end());
      float median = times[times.size() / 2];
      std::printf("RESULT tilec %ux%ux%u %ux%ux%u_s%u_w%ux%u %.4f ms %.1f "
                  "TFLOP/s (regs %d, smem %u)\n",
                  m, n, k, cfg.bm, cfg.bn, cfg.bk, cfg.stages, cfg.warpsM,
                  cfg.warpsN, median, flops / (median * 1e9), regs,
                  binary->sharedBytes);
      std::fflush(stdout);
    }
  }
  return 0;
}
