//===- examples/run_tile.cpp - Embed the compiler and run a .tile ---------===//
//
// A small embedding demo: compile every kernel of a .tile file in-process
// (tilec::Compiler), then run each on random inputs against a CPU reference
// through the runtime (host/KernelCheck.h, what `tilec run` does), on
// the GPU or, with TILEC_DEVICE=sim, in the PTX simulator.
//
//   run_tile FILE.tile [M N K]
//
// Prints one line per kernel and exits non-zero if any fails. `tilec run`
// is the full command (JSON, --ptx, --profile, fixed extents, SKIP lines).
//
//===----------------------------------------------------------------------===//
#include "compiler/Compiler.h"
#include "host/KernelCheck.h"
#include "runtime/Device.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstdio>
#include <cstdlib>
#include <random>

using namespace tilec;

int main(int argc, char **argv) {
  if (argc != 2 && argc != 5) {
    std::fprintf(stderr, "usage: run_tile FILE.tile [M N K]\n");
    return 2;
  }
  auto buffer = llvm::MemoryBuffer::getFile(argv[1], /*IsText=*/true);
  if (!buffer) {
    std::fprintf(stderr, "run_tile: cannot read %s: %s\n", argv[1],
                 buffer.getError().message().c_str());
    return 1;
  }
  Compiler compiler;
  auto names = compiler.kernelNames((*buffer)->getBuffer());
  if (!names) {
    std::fprintf(stderr, "%s", llvm::toString(names.takeError()).c_str());
    return 1;
  }
  if (names->empty()) {
    std::fprintf(stderr, "run_tile: %s declares no kernel\n", argv[1]);
    return 1;
  }
  auto ctx = rt::Context::create(0);
  if (!ctx) {
    std::printf("SKIP: %s: no usable device: %s\n", argv[1],
                ctx.error().getMessage().c_str());
    return 0;
  }
  bool ok = true;
  for (const std::string &name : *names) {
    CompileOptions options;
    options.kernel = name;
    auto kernel = compiler.compile((*buffer)->getBuffer(), options);
    if (!kernel) {
      std::printf("FAIL %s: %s", name.c_str(),
                  llvm::toString(kernel.takeError()).c_str());
      ok = false;
      continue;
    }
    unsigned cc = ctx->device().computeCapability();
    unsigned needs = archInfo((*kernel)->arch).computeCapability;
    bool exact = archInfo((*kernel)->arch).archSpecific;
    if (exact ? cc != needs : cc < needs) {
      std::printf("SKIP %s: %s code needs compute capability %u.%u, the "
                  "device is %u.%u\n",
                  name.c_str(), archInfo((*kernel)->arch).name.str().c_str(),
                  needs / 10, needs % 10, cc / 10, cc % 10);
      continue;
    }
    RunShape shape = argc == 5
                         ? RunShape{std::atoll(argv[2]), std::atoll(argv[3]),
                                    std::atoll(argv[4])}
                     : (*kernel)->swapAB ? RunShape{64, 2112, 7168}
                     // A 4-bit weight: decode-shaped, whole packed blocks.
                     : (*kernel)->weightQuant ? WeightQuantGpuShape
                                              : RunShape{1000, 1304, 1024};
    KernelCheckOptions check;
    check.seed = std::random_device{}();
    check.smCount = ctx->device().smCount;
    KernelCheckResult r = checkKernel(**kernel, shape, check);
    std::printf("%s %s %lld x %lld x %lld: %zu/%zu wrong%s%s\n",
                r.pass ? "PASS" : "FAIL", name.c_str(), (long long)shape.m,
                (long long)shape.n, (long long)shape.k, r.wrong, r.checked,
                r.detail.empty() ? "" : ": ", r.detail.c_str());
    ok &= r.pass;
  }
  return ok ? 0 : 1;
}
