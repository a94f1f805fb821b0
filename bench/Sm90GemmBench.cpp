//===- bench/Sm90GemmBench.cpp - tilec's sm_90a GEMM, timed ---------------===//
//
// For each shape and candidate kernel config: random bf16 inputs (several
// copies of the operands, rotated so that the set exceeds the L2 and no
// launch reads the previous one's cache), warm-up, then the median over
// samples of 10 back-to-back launches between two events, each sample behind
// one untimed launch so that host launch latency never shows as GPU time.
// cublas_rotating_bench.py measures torch.matmul the same way. Prints one line per
// (shape, config):
//   tilec M N K config median_us TFLOP/s floor_fraction
// where floor_fraction = (bytes moved at least / 4.8 TB/s) / median.
// bench/run_sm90_bench.sh runs this next to cublas_rotating_bench.py.
// Mode "vs" times the chosen config and cublasGemmEx (bench/CublasGemm.h) in
// alternating samples in this process and adds a line per shape:
//   cublas M N K cublasGemmEx median_us ... tilec speedup X outputs differ by D
// then the same launches without programmatic dependent launch ("serial"),
// and both sides replayed from CUDA graphs of 10 launches ("graphs").
//
//===----------------------------------------------------------------------===//
#include "bench/CublasGemm.h"
#include "codegen/Sm90GemmSpec.h"
#include "codegen/Sm90Heuristic.h"
#include "host/GemmLauncher.h"
#include "ir/arch/Float16Bits.h"
#include "runtime/Device.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Event.h"
#include "runtime/Graph.h"
#include "runtime/Launch.h"
#include "runtime/Module.h"
#include "runtime/Stream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <functional>
#include <random>
#include <string>

using namespace tilec;

namespace {

struct Shape {
  unsigned m, n, k;
};

struct Candidate {
  Sm90GemmConfig config;
  unsigned splits = 1;
  bool chosen = false; ///< sm90ChooseConfig's pick (printed as auto_...)
};

Candidate candidateOf(unsigned bm, unsigned bn, unsigned stages, bool swap,
                      unsigned ctasPerSm = 1, unsigned splits = 1,
                      bool persistent = false, unsigned groupM = 8,
                      unsigned clusterM = 1) {
  Candidate c;
  c.config.clusterM = clusterM;
  c.config.persistent = persistent;
  c.config.groupM = groupM;
  c.config.bm = bm;
  c.config.bn = bn;
  c.config.stages = stages;
  c.config.swapAB = swap;
  c.config.ctasPerSm = ctasPerSm;
  c.config.splitK = splits > 1;
  c.splits = splits;
  return c;
}

/// The most ring stages of a swapped bf16 BM x BN tile for \p ctasPerSm.
unsigned maxStages(unsigned bm, unsigned bn, unsigned ctasPerSm) {
  Sm90GemmConfig config;
  config.bm = bm;
  config.bn = bn;
  config.swapAB = true;
  config.ctasPerSm = ctasPerSm;
  return sm90MaxStages(config);
}

/// The sweep: for decode shapes (M <= 128, swapped so that N fills the
/// wgmma M) BM 64 and 128, the deepest ring, K splits 1..4 (reduced in the
/// workspace or in a cluster), 2 CTAs per SM,
/// persistence and 2x1 clusters; for the large squares 128 x 256 with and
/// without persistence and clusters.
std::vector<Candidate> candidates(const Shape &s) {
  if (s.m <= 128) {
    unsigned bn = (s.m + 15) / 16 * 16;
    unsigned kTiles = (s.k + 63) / 64;
    std::vector<Candidate> out;
    for (unsigned bm : {64u, 128u}) {
      unsigned st = maxStages(bm, bn, 1);
      for (unsigned splits : {1u, 2u, 3u, 4u})
        if (kTiles / splits >= 4 && (splits <= 4 || bm == 64)) {
          out.push_back(candidateOf(bm, bn, st, true, 1, splits));
          if (splits > 1) {
            // The same splits reduced through distributed shared memory.
            out.push_back(candidateOf(bm, bn, st, true, 1, splits));
            out.back().config.splitKCluster = true;
          }
          if (splits <= 2 || bm == 64)
            out.push_back(candidateOf(bm, bn, st, true, 1, splits, false, 8, 2));
        }
      out.push_back(candidateOf(bm, bn, st, true, 1, 1, true));
      out.push_back(candidateOf(bm, bn, st, true, 1, 1, true, 8, 2));
    }
    unsigned st2 = maxStages(64, bn, 2);
    for (unsigned splits : {1u, 2u})
      if (kTiles / splits >= 4)
        out.push_back(candidateOf(64, bn, st2, true, 2, splits));
    return out;
  }
  // BK = 32 (64-byte SW64 rows): twice the ring slots in the same shared
  // memory, so more of it is in flight while the consumers hold two slots.
  auto bk32 = [](Candidate c) {
    c.config.bk = 32;
    return c;
  };
  return {bk32(candidateOf(128, 256, 8, false, 1, 1, true, 8, 2)),
          bk32(candidateOf(128, 256, 8, false, 1, 1, true, 8)),
          candidateOf(128, 256, 4, false),
          candidateOf(128, 256, 4, false, 1, 1, false, 8, 2),
          candidateOf(128, 256, 4, false, 1, 1, true, 8),
          candidateOf(128, 256, 4, false, 1, 1, true, 16),
          candidateOf(128, 256, 4, false, 1, 1, true, 8, 2),
          candidateOf(128, 256, 4, false, 1, 1, true, 16, 2),
          candidateOf(128, 256, 4, false, 1, 1, true, 4, 2),
          candidateOf(128, 256, 4, false, 1, 1, true, 4),
          candidateOf(128, 256, 4, false, 1, 1, true, 32)};
}

/// C = A * B^T for shape \p s on one copy of the operands (all K-major, C
/// row-major, packed).
GemmProblem problemOf(const Shape &s, const rt::DeviceBuffer &a,
                      const rt::DeviceBuffer &b, const rt::DeviceBuffer &c) {
  return GemmProblem{a.ptr(), b.ptr(), c.ptr(), s.m, s.n,
                     s.k,     s.k,     s.k,     s.n};
}

using IssueFn = std::function<void(int)>;

/// Launches per timed sample.
constexpr int Batch = 10;

/// Launches issue(0), issue(1), ... for at least 20 launches and 50 ms, so
/// the clocks have ramped up before anything is timed.
rt::Status warmUp(rt::Context &ctx, const IssueFn &issue) {
  auto begin = std::chrono::steady_clock::now();
  for (int i = 0; i < 20 || std::chrono::steady_clock::now() - begin <
                                std::chrono::milliseconds(50);
       ++i) {
    issue(i);
    if (i % 16 == 15)
      if (rt::Status st = ctx.synchronize(); !st)
        return st;
  }
  return ctx.synchronize();
}

/// One sample, in microseconds per launch: one untimed launch (so the GPU is
/// busy while the host enqueues), then Batch launches between two events.
float sampleUs(const rt::Event &start, const rt::Event &stop,
               const IssueFn &issue, int i) {
  issue(0);
  (void)start.record();
  for (int j = 0; j < Batch; ++j)
    issue(i + j);
  (void)stop.record();
  (void)stop.synchronize();
  auto ms = rt::Event::elapsedMs(start, stop);
  return ms ? *ms * 1e3f / Batch : 0.0f;
}

/// max |x - y| / max |y| over two bf16 device arrays of equal size (a
/// cross-check of the timed kernels' outputs; the GPU tests are the
/// reference check).
double relativeDifference(const rt::DeviceBuffer &x, const rt::DeviceBuffer &y) {
  auto hx = x.download<uint16_t>();
  auto hy = y.download<uint16_t>();
  if (!hx || !hy)
    return -1;
  auto value = [](uint16_t h) { return double(bf16ToFloat(h)); };
  double diff = 0, scale = 0;
  for (size_t i = 0; i < hx->size(); ++i) {
    if (std::isnan(value((*hx)[i])) || std::isnan(value((*hy)[i])))
      return NAN; // unwritten (poisoned) or broken output
    diff = std::max(diff, std::abs(value((*hx)[i]) - value((*hy)[i])));
    scale = std::max(scale, std::abs(value((*hy)[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

/// One sample of a graph of Batch launches on \p stream, in microseconds per
/// launch, behind one untimed replay.
float graphSampleUs(const rt::Event &start, const rt::Event &stop,
                    const rt::Graph &graph, const rt::Stream &stream) {
  (void)graph.launch(stream);
  (void)start.record(stream.handle());
  (void)graph.launch(stream);
  (void)stop.record(stream.handle());
  (void)stop.synchronize();
  auto ms = rt::Event::elapsedMs(start, stop);
  return ms ? *ms * 1e3f / Batch : 0.0f;
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Both sides replayed from CUDA graphs of Batch launches on one stream, in
/// alternating samples: neither pays the host's launch time. Prints a
/// "graphs" line; returns why it could not, or "".
std::string compareGraphs(rt::Context &ctx, GemmLauncher &launcher,
                          const bench::CublasGemm &cublas, const Shape &s,
                          const std::vector<rt::DeviceBuffer> &as,
                          const std::vector<rt::DeviceBuffer> &bs,
                          const std::vector<rt::DeviceBuffer> &cs,
                          const std::vector<rt::DeviceBuffer> &cublasCs,
                          const char *name, int iters, const rt::Event &start,
                          const rt::Event &stop) {
  auto stream = rt::Stream::create();
  if (!stream)
    return stream.error().getMessage();
  int copies = int(as.size());
  std::vector<PreparedGemm> launches;
  for (int i = 0; i < copies; ++i) {
    auto launch =
        launcher.prepare(problemOf(s, as[i], bs[i], cs[i]), stream->handle());
    if (!launch)
      return launch.error().getMessage();
    launches.push_back(launch.take());
  }
  auto tilec = rt::Graph::capture(*stream, [&]() -> rt::Status {
    for (int j = 0; j < Batch; ++j)
      if (rt::Status st = launcher.launch(launches[j % copies]); !st)
        return st;
    return rt::success();
  });
  if (!tilec)
    return "tilec: " + tilec.error().getMessage();
  if (rt::Status st = cublas.setStream(stream->handle()); !st)
    return st.error().getMessage();
  auto theirs = rt::Graph::capture(*stream, [&]() -> rt::Status {
    for (int j = 0; j < Batch; ++j)
      if (rt::Status st =
              cublas.gemm(as[j % copies].ptr(), bs[j % copies].ptr(),
                          cublasCs[j % copies].ptr(), s.m, s.n, s.k);
          !st)
        return st;
    return rt::success();
  });
  (void)cublas.setStream(nullptr);
  if (!theirs)
    return "cuBLAS: " + theirs.error().getMessage();
  for (int i = 0; i < 10; ++i) {
    (void)tilec->launch(*stream);
    (void)theirs->launch(*stream);
  }
  if (rt::Status st = stream->synchronize(); !st)
    return st.error().getMessage();
  std::vector<float> ours, cublasTimes;
  for (int i = 0; i < iters; ++i) {
    ours.push_back(graphSampleUs(start, stop, *tilec, *stream));
    cublasTimes.push_back(graphSampleUs(start, stop, *theirs, *stream));
  }
  if (rt::Status st = ctx.synchronize(); !st)
    return st.error().getMessage();
  double us = median(ours), cublasUs = median(cublasTimes);
  std::printf("graphs %5u %5u %5u %-26s %9.2f us  cuBLAS %9.2f us  tilec "
              "speedup %.3f (both replayed from CUDA graphs)\n",
              s.m, s.n, s.k, name, us, cublasUs, cublasUs / us);
  return "";
}

} // namespace

int main(int argc, char **argv) {
  auto ctx = rt::Context::create(0);
  if (!ctx) {
    std::printf("SKIP: %s\n", ctx.error().getMessage().c_str());
    return 0;
  }
  if (ctx->device().ccMajor != 9) {
    std::printf("SKIP: device is not sm_90 (compute capability major %d)\n",
                ctx->device().ccMajor);
    return 0;
  }
  std::vector<Shape> shapes = {{4096, 4096, 4096}, {8192, 8192, 8192},
                               {64, 2112, 7168},   {64, 24576, 1536},
                               {64, 7168, 2048},   {64, 4096, 7168},
                               {128, 2112, 7168},  {128, 24576, 1536},
                               {128, 7168, 2048},  {128, 4096, 7168}};
  int iters = argc > 1 ? std::atoi(argv[1]) : 50;
  // "auto": time only the config sm90ChooseConfig picks; "vs": that config
  // and cuBLAS in alternating samples; "large": the two large squares only,
  // the sweep three times over (run-to-run spread); else every shape and the
  // sweep.
  std::string mode = argc > 2 ? argv[2] : "sweep";
  // An optional third argument MxNxK keeps that shape only (for profiling).
  if (argc > 3) {
    Shape only{};
    if (std::sscanf(argv[3], "%ux%ux%u", &only.m, &only.n, &only.k) != 3) {
      std::printf("error: shape '%s' is not MxNxK\n", argv[3]);
      return 1;
    }
    shapes = {only};
  }
  bool versus = mode == "vs";
  bool onlyAuto = mode == "auto" || versus;
  std::unique_ptr<bench::CublasGemm> cublas;
  if (versus) {
    auto loaded = bench::CublasGemm::load();
    if (!loaded) {
      std::printf("error: %s\n", loaded.error().getMessage().c_str());
      return 1;
    }
    cublas = loaded.take();
  }
  int rounds = 1;
  if (mode == "large") {
    shapes.resize(std::min<size_t>(shapes.size(), 2));
    rounds = 3;
  }
  unsigned sms = unsigned(ctx->device().smCount);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  auto start = rt::Event::create();
  auto stop = rt::Event::create();
  if (!start || !stop) {
    std::printf("error: %s\n", (!start ? start : stop).error().getMessage().c_str());
    return 1;
  }
  for (const Shape &s : shapes) {
    size_t bytesA = size_t(s.m) * s.k * 2, bytesB = size_t(s.n) * s.k * 2,
           bytesC = size_t(s.m) * s.n * 2;
    size_t set = bytesA + bytesB + bytesC;
    int copies =
        int(std::min<size_t>(8, std::max<size_t>(1, (256u << 20) / set + 1)));
    std::vector<uint16_t> host(std::max(bytesA, bytesB) / 2);
    for (auto &x : host)
      x = floatToBf16(dist(rng));
    std::vector<rt::DeviceBuffer> as, bs, cs, cublasCs;
    for (int i = 0; i < copies; ++i) {
      auto a = rt::DeviceBuffer::allocate(bytesA);
      auto b = rt::DeviceBuffer::allocate(bytesB);
      auto c = rt::DeviceBuffer::allocate(bytesC);
      auto cublasC = rt::DeviceBuffer::allocate(versus ? bytesC : 2);
      if (!a || !b || !c || !cublasC) {
        std::printf("error: out of device memory\n");
        return 1;
      }
      // NaN poison: an output either side leaves unwritten shows in the
      // cross-check.
      (void)c->fillWords(0xffffffffu);
      (void)cublasC->fillWords(0xffffffffu);
      (void)a->upload(host.data(), bytesA);
      (void)b->upload(host.data(), bytesB);
      as.push_back(a.take());
      bs.push_back(b.take());
      cs.push_back(c.take());
      cublasCs.push_back(cublasC.take());
    }
    double flops = 2.0 * s.m * s.n * s.k;
    double floorUs = double(bytesA + bytesB + bytesC) / 4.8e12 * 1e6;
    std::vector<Candidate> list;
    Sm90Choice choice = sm90ChooseConfig(s.m, s.n, s.k, sms);
    list.push_back({choice.config, choice.splits, true});
    // The same kernel with the direct-store epilogue (no stmatrix / TMA
    // store), to measure what the staged epilogue buys.
    Candidate direct{choice.config, choice.splits, true};
    direct.config.storeTma = false;
    if (!versus)
      list.push_back(direct);
    // A split chosen in a cluster, and the same splits through the global
    // workspace, to measure what the distributed shared memory buys.
    if (!versus && choice.config.splitKCluster) {
      Candidate workspace{choice.config, choice.splits, true};
      workspace.config.splitKCluster = false;
      list.push_back(workspace);
    }
    if (!onlyAuto)
      for (const Candidate &c : candidates(s))
        list.push_back(c);
    std::vector<Candidate> once = list;
    for (int r = 1; r < rounds; ++r)
      list.insert(list.end(), once.begin(), once.end());
    for (const Candidate &candidate : list) {
      const Sm90GemmConfig &config = candidate.config;
      auto kernel = emitSm90Gemm(config);
      if (!kernel) {
        std::printf("skip: %s\n", llvm::toString(kernel.takeError()).c_str());
        continue;
      }
      // The embedding API's launcher; each copy's launch is prepared once
      // (tensor maps encoded, split-K workspace sized) and issued many times.
      auto binary = sm90GemmBinary(std::move(*kernel), candidate.splits);
      if (!binary) {
        std::printf("skip: %s\n", llvm::toString(binary.takeError()).c_str());
        continue;
      }
      auto launcher =
          GemmLauncher::create(std::move(*binary), ctx->device().smCount);
      if (!launcher) {
        std::printf("skip: %s\n", launcher.error().getMessage().c_str());
        continue;
      }
      std::vector<PreparedGemm> launches, serial;
      for (int i = 0; i < copies; ++i) {
        GemmProblem problem = problemOf(s, as[i], bs[i], cs[i]);
        auto launch = launcher->prepare(problem);
        if (!launch) {
          std::printf("error: %s\n", launch.error().getMessage().c_str());
          return 1;
        }
        launches.push_back(launch.take());
        if (!versus)
          continue;
        // The same launch without programmatic dependent launch, to measure
        // what overlapping consecutive launches buys (checked again: its
        // config changed after prepare()).
        auto plain = launcher->prepare(problem);
        if (plain) {
          plain->config.programmaticSerialization = false;
          if (rt::Status st = rt::checkLaunch(launcher->function(),
                                              plain->config, plain->args);
              !st)
            plain = st.error();
        }
        if (!plain) {
          std::printf("error: %s\n", plain.error().getMessage().c_str());
          return 1;
        }
        serial.push_back(plain.take());
      }
      // Split-K copies share the launcher's counters: one stream, in order.
      auto issue = [&](int i) { (void)launcher->launch(launches[i % copies]); };
      if (rt::Status st = warmUp(*ctx, issue); !st) {
        std::printf("error: warm-up: %s\n", st.error().getMessage().c_str());
        return 1;
      }
      auto issueCublas = [&](int i) {
        (void)cublas->gemm(as[i % copies].ptr(), bs[i % copies].ptr(),
                           cublasCs[i % copies].ptr(), s.m, s.n, s.k);
      };
      auto issueSerial = [&](int i) {
        (void)launcher->launch(serial[i % copies]);
      };
      if (versus) {
        if (rt::Status st = warmUp(*ctx, issueCublas); !st) {
          std::printf("error: cuBLAS warm-up: %s\n",
                      st.error().getMessage().c_str());
          return 1;
        }
      }
      // In "vs" mode tilec's and cuBLAS's samples alternate, so both see the
      // same clocks and temperature.
      std::vector<float> times, cublasTimes, serialTimes;
      for (int i = 0; i < iters; ++i) {
        times.push_back(sampleUs(*start, *stop, issue, i));
        if (versus) {
          cublasTimes.push_back(sampleUs(*start, *stop, issueCublas, i));
          serialTimes.push_back(sampleUs(*start, *stop, issueSerial, i));
        }
      }
      double us = median(times);
      char name[128];
      std::snprintf(name, sizeof name,
                    "%s%s%s%s%s%sbm%u_bn%u_bk%u_s%u_c%u_k%u",
                    candidate.chosen ? "auto_" : "",
                    config.storeTma ? "" : "direct_", config.persistent
                        ? ("pers_g" + std::to_string(config.groupM) + "_")
                              .c_str()
                        : "",
                    config.clusterM > 1 ? "cl2_" : "",
                    config.splitKCluster ? "dsm_" : "",
                    config.swapAB ? "swap_" : "", config.bm, config.bn,
                    config.bk, config.stages, config.ctasPerSm, candidate.splits);
      std::printf(
          "tilec %5u %5u %5u %-26s %9.2f us %7.1f TFLOP/s  floor %4.0f%%\n",
          s.m, s.n, s.k, name, us, flops / us * 1e-6, 100.0 * floorUs / us);
      if (versus) {
        double cublasUs = median(cublasTimes);
        std::printf("cublas %5u %5u %5u %-26s %9.2f us %7.1f TFLOP/s  floor "
                    "%4.0f%%  tilec speedup %.3f  outputs differ by %.2e\n",
                    s.m, s.n, s.k, "cublasGemmEx", cublasUs,
                    flops / cublasUs * 1e-6, 100.0 * floorUs / cublasUs,
                    cublasUs / us, relativeDifference(cs[0], cublasCs[0]));
        double serialUs = median(serialTimes);
        std::printf("serial %5u %5u %5u %-26s %9.2f us  (tilec without "
                    "programmatic dependent launch; cuBLAS / this %.3f)\n",
                    s.m, s.n, s.k, name, serialUs, cublasUs / serialUs);
        if (std::string why = compareGraphs(*ctx, *launcher, *cublas, s, as,
                                            bs, cs, cublasCs, name, iters,
                                            *start, *stop);
            !why.empty())
          std::printf("graphs %5u %5u %5u skipped: %s\n", s.m, s.n, s.k,
                      why.c_str());
      }
      std::fflush(stdout);
    }
  }
  return 0;
}
