//===- bench/Sm90FP8Bench.cpp - tilec's sm_90a fp8 GEMM, timed ------------===//
//
// e4m3 A (M x K) and B (N x K), K-major, f32 accumulation, bf16 C = A B^T,
// timed exactly as bench/Sm90GemmBench.cpp times bf16: operand copies
// rotated so the set exceeds the L2, warm-up of at least 20 launches and
// 50 ms, then the median over samples of 10 back-to-back launches between
// two events, each sample behind one untimed launch. One line per
// (shape, config):
//   tilec M N K config median_us TFLOP/s floor_fraction
// bench/run_sm90_fp8_bench.sh runs it next to cublas_fp8_bench.py
// (torch._scaled_mm, per-tensor and row-wise scales).
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90GemmSpec.h"
#include "host/GemmLauncher.h"

#include "runtime/Device.h"
#include "runtime/Event.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

using namespace tilec;

namespace {

Sm90GemmConfig fp8Config(unsigned bm, unsigned bn, unsigned bk,
                         unsigned stages) {
  Sm90GemmConfig config;
  config.aType = config.bType = DTypeKind::E4M3;
  config.cType = DTypeKind::BF16;
  config.bm = bm;
  config.bn = bn;
  config.bk = bk;
  config.stages = stages;
  return config;
}

} // namespace

int main(int argc, char **argv) {
  auto ctx = rt::Context::create(0);
  if (!ctx) {
    std::printf("SKIP: %s\n", ctx.error().getMessage().c_str());
    return 0;
  }
  int iters = argc > 1 ? std::atoi(argv[1]) : 50;
  struct Shape {
    unsigned m, n, k;
  };
  std::vector<Shape> shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}};
  std::vector<Sm90GemmConfig> configs = {
      fp8Config(128, 256, 128, 4), fp8Config(128, 256, 128, 3),
      fp8Config(128, 256, 64, 8), fp8Config(128, 192, 128, 5),
      fp8Config(128, 128, 128, 6)};
  std::mt19937 rng(1);
  // e4m3 bit patterns of magnitude <= 1 (exponent field <= 7), random sign.
  std::uniform_int_distribution<int> code(0, 0x3F);
  auto start = rt::Event::create(), stop = rt::Event::create();
  if (!start || !stop) {
    std::printf("error: events\n");
    return 1;
  }
  for (const Shape &s : shapes) {
    size_t bytesA = size_t(s.m) * s.k, bytesB = size_t(s.n) * s.k,
           bytesC = size_t(s.m) * s.n * 2;
    size_t set = bytesA + bytesB + bytesC;
    int copies =
        int(std::min<size_t>(8, std::max<size_t>(1, (256u << 20) / set + 1)));
    std::vector<uint8_t> host(std::max(bytesA, bytesB));
    for (auto &x : host)
      x = uint8_t(code(rng) | (rng() & 1 ? 0x80 : 0));
    std::vector<rt::DeviceBuffer> as, bs, cs;
    for (int i = 0; i < copies; ++i) {
      auto a = rt::DeviceBuffer::allocate(bytesA);
      auto b = rt::DeviceBuffer::allocate(bytesB);
      auto c = rt::DeviceBuffer::allocate(bytesC);
      if (!a || !b || !c) {
        std::printf("error: allocation\n");
        return 1;
      }
      (void)a->upload(host.data(), bytesA);
      (void)b->upload(host.data(), bytesB);
      as.push_back(a.take());
      bs.push_back(b.take());
      cs.push_back(c.take());
    }
    double flops = 2.0 * s.m * s.n * s.k;
    double floorUs = double(set) / 4.8e12 * 1e6;
    for (const Sm90GemmConfig &config : configs) {
      char name[64];
      std::snprintf(name, sizeof name, "e4m3_bm%u_bn%u_bk%u_s%u", config.bm,
                    config.bn, config.bk, config.stages);
      auto kernel = emitSm90Gemm(config);
      if (!kernel) {
        std::printf("skip %s: %s\n", name,
                    llvm::toString(kernel.takeError()).c_str());
        continue;
      }
      // The embedding API's launcher; each copy's launch is prepared once.
      auto binary = sm90GemmBinary(std::move(*kernel));
      if (!binary) {
        std::printf("skip %s: %s\n", name,
                    llvm::toString(binary.takeError()).c_str());
        continue;
      }
      auto launcher = GemmLauncher::create(std::move(*binary));
      if (!launcher) {
        std::printf("skip %s: %s\n", name,
                    launcher.error().getMessage().c_str());
        continue;
      }
      std::vector<PreparedGemm> launches;
      for (int i = 0; i < copies; ++i) {
        GemmProblem problem{as[i].ptr(), bs[i].ptr(), cs[i].ptr(), s.m, s.n,
                            s.k,         s.k,         s.k,         s.n};
        auto launch = launcher->prepare(problem);
        if (!launch) {
          std::printf("error: %s\n", launch.error().getMessage().c_str());
          return 1;
        }
        launches.push_back(launch.take());
      }
      auto run = [&](int i) { return launcher->launch(launches[i % copies]); };
      auto begin = std::chrono::steady_clock::now();
      for (int i = 0; i < 20 || std::chrono::steady_clock::now() - begin <
                                    std::chrono::milliseconds(50);
           ++i) {
        if (auto st = run(i); !st) {
          std::printf("error: %s\n", st.error().getMessage().c_str());
          return 1;
        }
        if (i % 16 == 15)
          (void)ctx->synchronize();
      }
      if (auto st = ctx->synchronize(); !st) {
        std::printf("error: warm-up: %s\n", st.error().getMessage().c_str());
        return 1;
      }
      constexpr int Batch = 10;
      std::vector<float> times;
      for (int i = 0; i < iters; ++i) {
        (void)run(0);
        (void)start->record();
        for (int j = 0; j < Batch; ++j)
          (void)run(i + j);
        (void)stop->record();
        (void)stop->synchronize();
        auto ms = rt::Event::elapsedMs(*start, *stop);
        times.push_back(ms ? *ms / Batch : 0);
      }
      std::sort(times.begin(), times.end());
      double us = times[times.size() / 2] * 1e3;
      std::printf(
          "tilec %5u %5u %5u %-26s %9.2f us %7.1f TFLOP/s  floor %4.0f%%\n",
          s.m, s.n, s.k, name, us, flops / us * 1e-6, 100.0 * floorUs / us);
      std::fflush(stdout);
    }
  }
  return 0;
}
