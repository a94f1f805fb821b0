//===- examples/saxpy.cpp - Compile, load and launch a kernel from C++ ----===//
//
// The smallest host program that embeds tilec: build the saxpy kernel's PTX
// in-process for the GPU found, JIT-load it through the runtime, launch it on
// n elements, time it with events and check every element against fmaf.
//
//   saxpy [N]      (default N = 16777216)
//
//===----------------------------------------------------------------------===//
#include "codegen/SaxpyKernel.h"
#include "ir/arch/Arch.h"
#include "runtime/Device.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Event.h"
#include "runtime/Launch.h"
#include "runtime/Module.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace tilec;

namespace {
int fail(const std::string &message) {
  std::fprintf(stderr, "saxpy: %s\n", message.c_str());
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  unsigned long long requested = 1ull << 24;
  if (argc > 2 ||
      (argc == 2 && (std::sscanf(argv[1], "%llu", &requested) != 1 ||
                     requested == 0 || requested > 0xffffffffull))) {
    std::fprintf(stderr, "usage: saxpy [N]   (1 <= N < 2^32)\n");
    return 2;
  }
  auto n = static_cast<std::uint32_t>(requested);

  auto ctx = rt::Context::create(0);
  if (!ctx)
    return fail(ctx.error().getMessage());
  const rt::DeviceInfo &device = ctx->device();
  ArchKind arch =
      device.computeCapability() == 90 ? ArchKind::SM90a : ArchKind::SM80;
  std::printf("device: %s (sm_%u, %d SMs); emitting %s PTX\n",
              device.name.c_str(), device.computeCapability(), device.smCount,
              archInfo(arch).name.str().c_str());

  llvm::Expected<std::string> ptx = emitSaxpyPtx(arch);
  if (!ptx)
    return fail(llvm::toString(ptx.takeError()));
  auto module = rt::Module::loadPtx(*ptx);
  if (!module)
    return fail(module.error().getMessage());
  auto kernel = module->function(SaxpyKernelName);
  if (!kernel)
    return fail(kernel.error().getMessage());
  std::printf("loaded %s: %zu bytes of PTX, JIT %.1f ms\n", SaxpyKernelName,
              ptx->size(), module->jitMilliseconds());

  std::vector<float> x(n), y(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 1000) * 0.001f;
    y[i] = static_cast<float>(i % 7) - 3.0f;
  }
  const float a = 2.5f;
  auto xBuf = rt::DeviceBuffer::allocate(std::size_t(n) * sizeof(float));
  auto yBuf = rt::DeviceBuffer::allocate(std::size_t(n) * sizeof(float));
  if (!xBuf || !yBuf)
    return fail((!xBuf ? xBuf.error() : yBuf.error()).getMessage());
  if (rt::Status s = xBuf->upload(std::span<const float>(x)); !s)
    return fail(s.error().getMessage());
  if (rt::Status s = yBuf->upload(std::span<const float>(y)); !s)
    return fail(s.error().getMessage());

  rt::LaunchConfig config;
  config.grid = {(n + 255) / 256};
  config.block = {256};
  if (rt::Status s =
          rt::launch(*kernel, config, a, xBuf->ptr(), yBuf->ptr(), n);
      !s)
    return fail(s.error().getMessage());
  auto result = yBuf->download<float>();
  if (!result)
    return fail(result.error().getMessage());
  std::size_t wrong = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    float expected = std::fmaf(a, x[i], y[i]);
    wrong += std::memcmp(&(*result)[i], &expected, sizeof(float)) != 0;
  }
  std::printf("checked %u elements against fmaf: %zu mismatches\n", n, wrong);

  // Timing: 20 launches, each between two events, after the one above.
  std::vector<float> times;
  auto start = rt::Event::create();
  auto end = rt::Event::create();
  if (!start || !end)
    return fail((!start ? start.error() : end.error()).getMessage());
  for (int rep = 0; rep < 20; ++rep) {
    if (rt::Status s = start->record(); !s)
      return fail(s.error().getMessage());
    if (rt::Status s =
            rt::launch(*kernel, config, a, xBuf->ptr(), yBuf->ptr(), n);
        !s)
      return fail(s.error().getMessage());
    if (rt::Status s = end->record(); !s)
      return fail(s.error().getMessage());
    if (rt::Status s = end->synchronize(); !s)
      return fail(s.error().getMessage());
    auto ms = rt::Event::elapsedMs(*start, *end);
    if (!ms)
      return fail(ms.error().getMessage());
    times.push_back(*ms);
  }
  std::sort(times.begin(), times.end());
  float median = times[times.size() / 2];
  std::printf("median of 20 launches: %.4f ms, %.0f GB/s (12 bytes per "
              "element)\n",
              median, 12.0 * n / (median * 1e6));
  return wrong == 0 ? 0 : 1;
}
