//===- examples/run_tile.cpp - Compile and run every kernel of a .tile ----===//
//
// The end-to-end check a user (and the README's main job) runs on a .tile
// file: every kernel goes through the embedding API (tilec::Compiler), then
//   - with a GPU that can run it: random inputs, C poisoned with NaN,
//     compiler/GemmLauncher launches it, and the result is compared with
//     fp64 dot products of the same rounded inputs on the CPU (every element
//     of small outputs, a random sample of big ones); one line per kernel
//       PASS gemm_tn_bf16 1000 x 1304 x 1024: 0/4002 wrong, 31.2 us
//     and a non-zero exit status if any kernel fails;
//   - without one: each kernel is compiled and, where ptxas exists,
//     assembled for its target (a ptxas failure is a FAIL), and the run
//     prints "SKIP: ..." and why, exiting 0.
//
//   run_tile FILE.tile [M N K]
//
// Without M N K each kernel runs on 1000 x 1304 x 1024 (ragged against every
// tile), or 64 x 2112 x 7168 for a swap-AB (decode) kernel.
//
//===----------------------------------------------------------------------===//
#include "codegen/Ptxas.h"
#include "compiler/Compiler.h"
#include "compiler/GemmLauncher.h"
#include "ir/Float16Bits.h"
#include "runtime/Device.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Event.h"

#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <vector>

using namespace tilec;

namespace {

int64_t roundUp8(int64_t x) { return (x + 7) / 8 * 8; }

struct Shape {
  int64_t m, n, k;
};

/// Runs \p kernel on random data and checks it; returns false on failure.
bool runKernel(const CompiledKernel &kernel, const Shape &s,
               const rt::Context &ctx) {
  const char *name = kernel.entryName.c_str();
  DTypeKind type = kernel.aType;
  if ((type != DTypeKind::F16 && type != DTypeKind::BF16) ||
      kernel.bType != type || kernel.cType != type) {
    std::printf("SKIP: %s: run_tile checks f16 and bf16 kernels only\n", name);
    return true;
  }
  unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  bool aK = kernel.aMajor == MajorKind::K, bK = kernel.bMajor == MajorKind::K;
  int64_t lda = roundUp8(aK ? s.k : s.m), ldb = roundUp8(bK ? s.k : s.n);
  int64_t ldc = roundUp8(s.n);
  size_t aElems = size_t(lda) * (aK ? s.m : s.k);
  size_t bElems = size_t(ldb) * (bK ? s.n : s.k);
  size_t cElems = size_t(ldc) * s.m;
  std::vector<uint16_t> aHost(aElems, 0), bHost(bElems, 0);
  std::vector<float> aVal(size_t(s.m) * s.k), bVal(size_t(s.n) * s.k);
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t kk = 0; kk < s.k; ++kk) {
      uint16_t bits = floatToBits16(dist(rng), type);
      aVal[i * s.k + kk] = bits16ToFloat(bits, type);
      aHost[aK ? i * lda + kk : kk * lda + i] = bits;
    }
  for (int64_t j = 0; j < s.n; ++j)
    for (int64_t kk = 0; kk < s.k; ++kk) {
      uint16_t bits = floatToBits16(dist(rng), type);
      bVal[j * s.k + kk] = bits16ToFloat(bits, type);
      bHost[bK ? j * ldb + kk : kk * ldb + j] = bits;
    }
  auto report = [&](const char *what, const rt::Error &error) {
    std::printf("FAIL %s %lld x %lld x %lld: %s: %s\n", name, (long long)s.m,
                (long long)s.n, (long long)s.k, what,
                error.getMessage().c_str());
    return false;
  };
  auto a = rt::DeviceBuffer::allocate(aElems * 2);
  auto b = rt::DeviceBuffer::allocate(bElems * 2);
  auto c = rt::DeviceBuffer::allocate(cElems * 2);
  if (!a || !b || !c)
    return report("allocation", !a ? a.error() : !b ? b.error() : c.error());
  if (rt::Status st = a->upload(aHost.data(), aElems * 2); !st)
    return report("upload A", st.error());
  if (rt::Status st = b->upload(bHost.data(), bElems * 2); !st)
    return report("upload B", st.error());
  // 0xffff is a NaN in f16 and bf16: beta = 0 must never read it.
  if (rt::Status st = c->fillBytes(0xff); !st)
    return report("poison C", st.error());

  auto launcher = GemmLauncher::create(kernel, ctx.device().smCount);
  if (!launcher)
    return report("load", launcher.error());
  GemmProblem problem{a->ptr(), b->ptr(), c->ptr(), s.m,  s.n, s.k,
                      lda,      ldb,      ldc,      1.0f, 0.0f};
  if (rt::Status st = launcher->launch(problem); !st)
    return report("launch", st.error());
  if (rt::Status st = ctx.synchronize(); !st)
    return report("kernel", st.error());
  auto out = c->download<uint16_t>();
  if (!out)
    return report("download C", out.error());

  // Time: median of 20 launches after 5 warm-up ones, prepared once so that
  // no host work sits between the events (C is rewritten with the same
  // values, so the check below covers these launches too).
  std::vector<float> times;
  auto prepared = launcher->prepare(problem);
  if (!prepared)
    return report("prepare", prepared.error());
  auto start = rt::Event::create(), end = rt::Event::create();
  for (int i = 0; i < 25 && start && end; ++i) {
    (void)start->record();
    (void)launcher->launch(*prepared);
    (void)end->record();
    (void)end->synchronize();
    auto ms = rt::Event::elapsedMs(*start, *end);
    if (i >= 5 && ms)
      times.push_back(*ms);
  }
  std::sort(times.begin(), times.end());
  double us = times.empty() ? 0 : times[times.size() / 2] * 1e3;
  if (rt::Status st = ctx.synchronize(); !st)
    return report("timed launches", st.error());
  auto timedOut = c->download<uint16_t>();
  if (!timedOut)
    return report("download C", timedOut.error());

  double unitOut =
      type == DTypeKind::BF16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
  // Per-add error of the tensor core's f32 accumulation, allowing truncation
  // (2^-23, not 2^-24), over K products.
  double unitAcc = double(s.k) * std::ldexp(1.0, -23);
  size_t wrong = 0, checked = 0;
  auto check = [&](int64_t i, int64_t j) {
    double dot = 0, mag = 0;
    for (int64_t kk = 0; kk < s.k; ++kk) {
      double p = double(aVal[i * s.k + kk]) * bVal[j * s.k + kk];
      dot += p;
      mag += std::fabs(p);
    }
    double tol = unitOut * std::fabs(dot) + unitAcc * mag + 1e-30;
    for (const std::vector<uint16_t> *result : {&*out, &*timedOut}) {
      double got = bits16ToFloat((*result)[i * ldc + j], type);
      if (!(std::fabs(got - dot) <= tol)) {
        if (++wrong <= 5)
          std::printf("  %s: C[%lld][%lld] = %g, reference %g, tolerance %g\n",
                      name, (long long)i, (long long)j, got, dot, tol);
      }
    }
    ++checked;
  };
  if (s.m * s.n <= (1 << 20)) {
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j)
        check(i, j);
  } else {
    std::uniform_int_distribution<int64_t> pickI(0, s.m - 1), pickJ(0, s.n - 1);
    for (int t = 0; t < 4000; ++t)
      check(pickI(rng), pickJ(rng));
    check(0, 0);
    check(s.m - 1, s.n - 1);
  }
  std::printf("%s %s %lld x %lld x %lld: %zu/%zu wrong, %.1f us (seed %u)\n",
              wrong ? "FAIL" : "PASS", name, (long long)s.m, (long long)s.n,
              (long long)s.k, wrong, checked, us, seed);
  return wrong == 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2 && argc != 5) {
    std::fprintf(stderr, "usage: run_tile FILE.tile [M N K]\n");
    return 2;
  }
  std::optional<Shape> given;
  if (argc == 5) {
    Shape s{std::atoll(argv[2]), std::atoll(argv[3]), std::atoll(argv[4])};
    if (s.m < 1 || s.n < 1 || s.k < 1) {
      std::fprintf(stderr, "run_tile: M, N, K must be positive integers\n");
      return 2;
    }
    given = s;
  }
  auto buffer = llvm::MemoryBuffer::getFile(argv[1], /*IsText=*/true);
  if (!buffer) {
    std::fprintf(stderr, "run_tile: cannot read %s: %s\n", argv[1],
                 buffer.getError().message().c_str());
    return 1;
  }
  llvm::StringRef source = (*buffer)->getBuffer();
  Compiler compiler;
  auto names = compiler.kernelNames(source);
  if (!names) {
    std::fprintf(stderr, "%s", llvm::toString(names.takeError()).c_str());
    return 1;
  }
  if (names->empty()) {
    std::printf("SKIP: %s declares no kernel\n", argv[1]);
    return 0;
  }
  auto ctx = rt::Context::create(0);
  std::optional<std::string> ptxas;
  if (!ctx)
    ptxas = findPtxas();
  bool ok = true;
  for (const std::string &name : *names) {
    CompileOptions options;
    options.kernel = name;
    auto begin = std::chrono::steady_clock::now();
    auto kernel = compiler.compile(source, options);
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - begin)
                    .count();
    if (!kernel) {
      std::printf("FAIL %s: compile: %s", name.c_str(),
                  llvm::toString(kernel.takeError()).c_str());
      ok = false;
      continue;
    }
    const CompiledKernel &k = **kernel;
    std::string arch = archInfo(k.arch).name.str();
    if (!ctx) {
      std::string assembled = "no ptxas";
      if (ptxas) {
        if (llvm::Error err = assembleWithPtxas(k.ptx, k.arch)) {
          std::printf("FAIL %s: ptxas -arch=%s: %s\n", name.c_str(),
                      arch.c_str(), llvm::toString(std::move(err)).c_str());
          ok = false;
          continue;
        }
        assembled = "ptxas ok";
      }
      std::printf("SKIP: %s (%s, compiled in %.1f ms, %s): no usable CUDA "
                  "GPU: %s\n",
                  name.c_str(), arch.c_str(), ms, assembled.c_str(),
                  ctx.error().getMessage().c_str());
      continue;
    }
    unsigned cc = ctx->device().computeCapability();
    unsigned needs = archInfo(k.arch).computeCapability;
    bool exact = k.arch == ArchKind::SM90a || k.arch == ArchKind::SM100a;
    if (exact ? cc != needs : cc < needs) {
      std::printf("SKIP: %s: %s code needs compute capability %u.%u, the "
                  "GPU is %u.%u\n",
                  name.c_str(), arch.c_str(), needs / 10, needs % 10, cc / 10,
                  cc % 10);
      continue;
    }
    Shape shape = given      ? *given
                  : k.swapAB ? Shape{64, 2112, 7168}
                             : Shape{1000, 1304, 1024};
    ok &= runKernel(k, shape, *ctx);
  }
  return ok ? 0 : 1;
}
