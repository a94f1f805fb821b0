//===- tests/gpu/SaxpyGpuTest.cpp - The saxpy slice on the GPU ------------===//
//
// The vertical slice end to end: IRBuilder -> NVPTX -> PTX -> driver JIT ->
// launch, for every target the GPU can run. Inputs are fresh random numbers
// (the seed is printed), y's buffer has a NaN-poisoned tail past n that must
// survive, and every element is compared bit for bit with a CPU fmaf: the
// kernel's fma.rn.f32 rounds once, exactly as fmaf does.
//
//===----------------------------------------------------------------------===//
#include "GpuTest.h"

#include "codegen/SaxpyKernel.h"
#include "ir/arch/Arch.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Event.h"
#include "runtime/Graph.h"
#include "runtime/Launch.h"
#include "runtime/Module.h"
#include "runtime/Stream.h"

#include "llvm/Support/Error.h"

#include <cmath>
#include <cstring>
#include <random>

namespace tilec {
namespace {

/// Bits of the quiet NaN used to poison output buffers.
constexpr std::uint32_t PoisonBits = 0x7fc00000u;
/// Poisoned floats after the last element, which the kernel must not touch.
constexpr std::size_t GuardElements = 1024;

std::uint32_t bitsOf(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

/// Whether a GPU of compute capability \p cc runs code for \p arch: sm_80 PTX
/// JITs for any newer GPU, an `a` target only for its own.
bool gpuRuns(const rt::DeviceInfo &device, ArchKind arch) {
  const ArchInfo &info = archInfo(arch);
  bool archSpecific = info.name.ends_with("a");
  return archSpecific ? device.computeCapability() == info.computeCapability
                      : device.computeCapability() >= info.computeCapability;
}

/// Loads the saxpy PTX of \p arch, or explains why not.
struct LoadedSaxpy {
  rt::Module module;
  rt::Function kernel;
};
rt::Result<LoadedSaxpy> loadSaxpy(ArchKind arch) {
  llvm::Expected<std::string> ptx = emitSaxpyPtx(arch);
  if (!ptx)
    return rt::Error("emitSaxpyPtx: " + llvm::toString(ptx.takeError()));
  rt::Result<rt::Module> module = rt::Module::loadPtx(*ptx);
  if (!module)
    return module.error();
  rt::Result<rt::Function> kernel = module->function(SaxpyKernelName);
  if (!kernel)
    return kernel.error();
  return LoadedSaxpy{module.take(), kernel.take()};
}

/// Runs saxpy on \p n fresh random elements and checks all of them and the
/// guard; \p cluster > 1 launches in thread-block clusters.
void runAndCheck(const rt::Function &kernel, std::uint32_t n,
                 unsigned cluster = 1, std::size_t dynamicSharedBytes = 0) {
  std::random_device device;
  unsigned seed = device();
  SCOPED_TRACE("n = " + std::to_string(n) + ", seed = " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  float a = dist(rng);
  std::vector<float> x(n), y(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    x[i] = dist(rng);
    y[i] = dist(rng);
  }

  auto xBuf = rt::DeviceBuffer::allocate(n * sizeof(float));
  ASSERT_TRUE(xBuf.ok()) << xBuf.error().getMessage();
  auto yBuf = rt::DeviceBuffer::allocate((n + GuardElements) * sizeof(float));
  ASSERT_TRUE(yBuf.ok()) << yBuf.error().getMessage();
  rt::Status s = yBuf->fillWords(PoisonBits);
  ASSERT_TRUE(s.ok()) << s.error().getMessage();
  s = xBuf->upload(x.data(), n * sizeof(float));
  ASSERT_TRUE(s.ok()) << s.error().getMessage();
  s = yBuf->upload(y.data(), n * sizeof(float));
  ASSERT_TRUE(s.ok()) << s.error().getMessage();

  rt::LaunchConfig config;
  config.block = {256};
  unsigned blocks = (n + 255) / 256;
  config.grid = {(blocks + cluster - 1) / cluster * cluster};
  config.cluster = {cluster};
  config.dynamicSharedBytes = dynamicSharedBytes;
  auto start = rt::Event::create();
  auto end = rt::Event::create();
  ASSERT_TRUE(start.ok() && end.ok());
  ASSERT_TRUE(start->record().ok());
  s = rt::launch(kernel, config, a, xBuf->ptr(), yBuf->ptr(), n);
  ASSERT_TRUE(s.ok()) << s.error().getMessage();
  ASSERT_TRUE(end->record().ok());
  s = end->synchronize();
  ASSERT_TRUE(s.ok()) << s.error().getMessage();
  auto ms = rt::Event::elapsedMs(*start, *end);
  ASSERT_TRUE(ms.ok()) << ms.error().getMessage();

  auto result = yBuf->download<float>();
  ASSERT_TRUE(result.ok()) << result.error().getMessage();
  ASSERT_EQ(result->size(), n + GuardElements);
  std::size_t wrong = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    float expected = std::fmaf(a, x[i], y[i]);
    if (bitsOf((*result)[i]) != bitsOf(expected) && ++wrong <= 5)
      ADD_FAILURE() << "y[" << i << "] = " << (*result)[i] << ", expected "
                    << expected << " (a = " << a << ", x = " << x[i]
                    << ", y = " << y[i] << ")";
  }
  EXPECT_EQ(wrong, 0u) << "of " << n << " elements";
  std::size_t touched = 0;
  for (std::size_t i = n; i < n + GuardElements; ++i)
    touched += bitsOf((*result)[i]) != PoisonBits;
  EXPECT_EQ(touched, 0u) << "elements past n were written";
  std::printf("saxpy n=%u grid=%u block=256 cluster=%u smem=%zu: %zu "
              "mismatches, %.3f ms (%.1f GB/s)\n",
              n, config.grid.x, cluster, dynamicSharedBytes, wrong, *ms,
              *ms > 0 ? 12.0 * n / (*ms * 1e6) : 0.0);
}

class SaxpyGpu : public ::testing::TestWithParam<ArchKind> {};

TEST_P(SaxpyGpu, MatchesCpuFmaOnRaggedSizes) {
  TILEC_GPU_CONTEXT(ctx);
  ArchKind arch = GetParam();
  if (!gpuRuns(ctx.device(), arch))
    GTEST_SKIP() << "SKIP: " << ctx.device().name << " (sm_"
                 << ctx.device().computeCapability() << ") cannot run "
                 << archInfo(arch).name.str();
  auto saxpy = loadSaxpy(arch);
  ASSERT_TRUE(saxpy.ok()) << saxpy.error().getMessage();
  for (std::uint32_t n : {1u, 255u, 257u, 1000003u})
    runAndCheck(saxpy->kernel, n);
}

INSTANTIATE_TEST_SUITE_P(Archs, SaxpyGpu,
                         ::testing::Values(ArchKind::SM80, ArchKind::SM90a),
                         [](const auto &info) {
                           return archInfo(info.param).name.str();
                         });

TEST(SaxpyGpuLaunch, ClusterLaunchOnSm90) {
  TILEC_GPU_CONTEXT(ctx);
  if (!gpuRuns(ctx.device(), ArchKind::SM90a))
    GTEST_SKIP() << "SKIP: clusters need sm_90; the GPU is sm_"
                 << ctx.device().computeCapability();
  auto saxpy = loadSaxpy(ArchKind::SM90a);
  ASSERT_TRUE(saxpy.ok()) << saxpy.error().getMessage();
  runAndCheck(saxpy->kernel, 1000003u, /*cluster=*/2);
}

TEST(SaxpyGpuLaunch, DynamicSharedMemoryAbove48KB) {
  TILEC_GPU_CONTEXT(ctx);
  auto saxpy = loadSaxpy(ArchKind::SM80);
  ASSERT_TRUE(saxpy.ok()) << saxpy.error().getMessage();
  std::size_t optin = ctx.device().sharedMemPerBlockOptin;
  ASSERT_GT(optin, 48u * 1024) << "every sm_80+ GPU allows more than 48 KB";
  // The whole opt-in amount: needs the attribute raised.
  runAndCheck(saxpy->kernel, 4099u, 1, optin);
  // One byte more is refused before the driver sees it.
  rt::LaunchConfig config;
  config.block = {256};
  config.dynamicSharedBytes = optin + 1;
  rt::Status s = rt::launch(saxpy->kernel, config, 1.0f, std::uint64_t(0),
                            std::uint64_t(0), std::uint32_t(0));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().getMessage().find(
                std::to_string(optin + 1) +
                " bytes of dynamic shared memory plus 0 static exceed the "
                "device's opt-in limit of " +
                std::to_string(optin) + " bytes per block"),
            std::string::npos)
      << s.error().getMessage();
}

// A graph of two captured launches (y = 2x + y twice), replayed three
// times: y ends at y0 + 12x, checked bit for bit against fmaf applied the
// same six times; nothing runs during the capture itself.
TEST(SaxpyGpuLaunch, CapturedGraphReplays) {
  TILEC_GPU_CONTEXT(ctx);
  auto saxpy = loadSaxpy(ArchKind::SM80);
  ASSERT_TRUE(saxpy.ok()) << saxpy.error().getMessage();
  const std::uint32_t n = 100003;
  std::mt19937 rng(20261122);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(n), y(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    x[i] = dist(rng);
    y[i] = dist(rng);
  }
  auto xBuf = rt::DeviceBuffer::allocate(n * 4);
  auto yBuf = rt::DeviceBuffer::allocate(n * 4);
  ASSERT_TRUE(xBuf && yBuf);
  ASSERT_TRUE(xBuf->upload(x.data(), n * 4));
  ASSERT_TRUE(yBuf->upload(y.data(), n * 4));
  auto stream = rt::Stream::create();
  ASSERT_TRUE(stream) << stream.error().getMessage();
  rt::LaunchConfig config;
  config.grid = {(n + 255) / 256};
  config.block = {256};
  config.stream = stream->handle();
  auto graph = rt::Graph::capture(*stream, [&]() -> rt::Status {
    for (int i = 0; i < 2; ++i)
      if (rt::Status s = rt::launch(saxpy->kernel, config, 2.0f, xBuf->ptr(),
                                    yBuf->ptr(), n);
          !s)
        return s;
    return rt::success();
  });
  ASSERT_TRUE(graph) << graph.error().getMessage();
  ASSERT_TRUE(stream->synchronize());
  auto untouched = yBuf->download<float>();
  ASSERT_TRUE(untouched);
  EXPECT_EQ(std::memcmp(untouched->data(), y.data(), n * 4), 0)
      << "a captured launch ran during the capture";
  for (int replay = 0; replay < 3; ++replay)
    ASSERT_TRUE(graph->launch(*stream));
  ASSERT_TRUE(stream->synchronize());
  auto out = yBuf->download<float>();
  ASSERT_TRUE(out);
  std::uint32_t wrong = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    float expect = y[i];
    for (int k = 0; k < 6; ++k)
      expect = std::fmaf(2.0f, x[i], expect);
    wrong += std::memcmp(&expect, &(*out)[i], 4) != 0;
  }
  EXPECT_EQ(wrong, 0u) << "of " << n;
}

TEST(SaxpyGpuLaunch, ParameterMismatchIsRefused) {
  TILEC_GPU_CONTEXT(ctx);
  if (ctx.device().driverVersion < 12040)
    GTEST_SKIP() << "SKIP: parameter checks need cuFuncGetParamInfo (CUDA "
                    "12.4+); the driver is "
                 << ctx.device().driverVersion;
  auto saxpy = loadSaxpy(ArchKind::SM80);
  ASSERT_TRUE(saxpy.ok()) << saxpy.error().getMessage();
  rt::LaunchConfig config;
  config.block = {32};
  std::uint64_t null = 0;
  rt::Status wide = rt::launch(saxpy->kernel, config, 1.0f, null, null,
                               std::uint64_t(1)); // n is a u32.
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.error().getMessage(),
            "launching 'tilec_saxpy' with grid (1, 1, 1) block (32, 1, 1): "
            "parameter 3 of the kernel is 4 bytes but the value given is 8 "
            "bytes (kernel [4, 8, 8, 4], given [4, 8, 8, 8])");
  rt::Status missing = rt::launch(saxpy->kernel, config, 1.0f, null, null);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().getMessage(),
            "launching 'tilec_saxpy' with grid (1, 1, 1) block (32, 1, 1): "
            "the kernel takes 4 parameters of [4, 8, 8, 4] bytes but 3 of "
            "[4, 8, 8] bytes were given");
  EXPECT_TRUE(ctx.synchronize().ok()) << "nothing was launched";
}

} // namespace
} // namespace tilec
