//===- tests/unit/RuntimeDriverTest.cpp - The runtime without a driver ----===//
#include "runtime/Device.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/DriverApi.h"
#include "runtime/Launch.h"
#include "runtime/Module.h"
#include "runtime/TensorMap.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace tilec::rt {
namespace {

constexpr const char *MissingDriver = "/nonexistent/tilec/libcuda.so.1";

TEST(RuntimeDriver, LibraryPathDefaultsToLibcuda) {
  const char *saved = std::getenv("TILEC_CUDA_DRIVER");
  std::string savedValue = saved ? saved : "";
  unsetenv("TILEC_CUDA_DRIVER");
  EXPECT_EQ(driverLibraryPath(), "libcuda.so.1");
  setenv("TILEC_CUDA_DRIVER", "", 1);
  EXPECT_EQ(driverLibraryPath(), "libcuda.so.1");
  setenv("TILEC_CUDA_DRIVER", MissingDriver, 1);
  EXPECT_EQ(driverLibraryPath(), MissingDriver);
  if (saved)
    setenv("TILEC_CUDA_DRIVER", savedValue.c_str(), 1);
  else
    unsetenv("TILEC_CUDA_DRIVER");
}

TEST(RuntimeDriver, MissingLibraryIsAnErrorValue) {
  Result<std::unique_ptr<DriverApi>> api = loadDriverApi(MissingDriver);
  ASSERT_FALSE(api.ok());
  const std::string &message = api.error().getMessage();
  EXPECT_EQ(message.rfind("CUDA driver not found: dlopen(/nonexistent/tilec/"
                          "libcuda.so.1) failed: ",
                          0),
            0u)
      << message;
  // dlerror's own reason follows.
  EXPECT_NE(message.find("No such file or directory"), std::string::npos)
      << message;
  EXPECT_EQ(api.error().getCudaResult(), 0);
}

TEST(RuntimeDriver, LibraryWithoutCudaEntryPointsIsAnErrorValue) {
  // libm exists everywhere and exports no cuGetProcAddress.
  Result<std::unique_ptr<DriverApi>> api = loadDriverApi("libm.so.6");
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.error().getMessage(),
            "CUDA driver libm.so.6 is too old: it has no cuGetProcAddress "
            "(CUDA 11.3+ is needed, 12.0+ for tensor maps)");
}

/// Runs in a child process (death-test machinery) so that the process-wide
/// driver is loaded from $TILEC_CUDA_DRIVER there and nowhere else; prints
/// each call's message and exits 0 only if every call failed with the
/// no-driver error.
[[noreturn]] void runEveryEntryPointWithoutDriver() {
  setenv("TILEC_CUDA_DRIVER", MissingDriver, 1);
  std::string expected = std::string("CUDA driver not found: dlopen(") +
                         MissingDriver + ") failed: ";
  int wrong = 0;
  auto expectNoDriver = [&](const char *what, const Error &error) {
    std::fprintf(stderr, "%s: %s\n", what, error.getMessage().c_str());
    if (error.getMessage().rfind(expected, 0) != 0)
      ++wrong;
  };
  auto expectFailure = [&](const char *what, const auto &result) {
    if (result.ok()) {
      std::fprintf(stderr, "%s: unexpectedly succeeded\n", what);
      ++wrong;
      return;
    }
    expectNoDriver(what, result.error());
  };
  expectFailure("driverApi", driverApi());
  expectFailure("deviceCount", deviceCount());
  expectFailure("queryDevice", queryDevice(0));
  expectFailure("Context::create", Context::create(0));
  expectFailure("Module::loadPtx", Module::loadPtx(".version 8.0"));
  expectFailure("DeviceBuffer::allocate", DeviceBuffer::allocate(64));
  TensorMapDesc desc =
      TensorMapDesc::matrix2d(TensorMapDTypeKind::BF16, 0x10000, 128, 64, 64,
                              64, 64, TensorMapSwizzleKind::B128);
  expectFailure("encodeTensorMap", encodeTensorMap(desc));
  Function fn(reinterpret_cast<CUfunc_st *>(0x1), "k");
  LaunchConfig config;
  expectFailure("launch", launch(fn, config, 1.0f));
  std::exit(wrong == 0 ? 0 : 1);
}

TEST(RuntimeDriver, EveryEntryPointReportsTheMissingDriver) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(runEveryEntryPointWithoutDriver(), ::testing::ExitedWithCode(0),
              "Context::create: CUDA driver not found: "
              "dlopen\\(/nonexistent/tilec/libcuda.so.1\\) failed: ");
}

TEST(RuntimeDriver, ErrorContextKeepsCodeAndLog) {
  Error error("cuModuleLoadDataEx failed", 218, "line 3; error : bad");
  Error wrapped = error.withContext("loading saxpy");
  EXPECT_EQ(wrapped.getMessage(), "loading saxpy: cuModuleLoadDataEx failed");
  EXPECT_EQ(wrapped.getCudaResult(), 218);
  EXPECT_EQ(wrapped.getJitLog(), "line 3; error : bad");
}

TEST(RuntimeDriver, ResultHoldsValueOrError) {
  Result<int> value = 42;
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 42);
  Result<int> failed = Error("no");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().getMessage(), "no");
  Status ok = success();
  EXPECT_TRUE(ok.ok());
  Status bad = Error("broken");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().getMessage(), "broken");
}

// The launch check asks the driver about exactly the parameters the PTX
// declares (issue 30: probing past the last one is a driver error that
// compute-sanitizer's memcheck reports on every launch).
TEST(RuntimeModule, PtxEntryParameterCounts) {
  const char *ptx = R"(
.version 8.7
.target sm_90a
.extern .func (.param .b32 r) helper(.param .b64 x);
.visible .entry tilec_gemm(
	.param .align 64 .b8 tilec_gemm_param_0[128],
	.param .u64 tilec_gemm_param_1,
	.param .f32 tilec_gemm_param_2
)
.maxntid 384
{
	ret;
}
.visible .entry no_params()
{
	ret;
}
.entry $weird.name_1 (.param .u32 p)
{
	ret;
}
)";
  auto counts = ptxEntryParameterCounts(ptx);
  ASSERT_EQ(counts.size(), 3u);
  EXPECT_EQ(counts.at("tilec_gemm"), 3u);
  EXPECT_EQ(counts.at("no_params"), 0u);
  EXPECT_EQ(counts.at("$weird.name_1"), 1u);
  EXPECT_FALSE(counts.count("helper")); // a .func, not an .entry
  EXPECT_TRUE(ptxEntryParameterCounts("").empty());
  EXPECT_TRUE(ptxEntryParameterCounts(".entry").empty());
  EXPECT_TRUE(ptxEntryParameterCounts(".entry k {").empty());
}

TEST(RuntimeLaunch, KernelArgsCopyInOrderWithAlignment) {
  KernelArgs args;
  float a = 2.5f;
  std::uint64_t ptr = 0x123456789abcull;
  TensorMap map;
  for (unsigned i = 0; i < 128; ++i)
    map.bytes[i] = static_cast<std::uint8_t>(i * 3);
  args.add(a).add(ptr).add(map).add(std::uint32_t(7));
  a = 0; // Copies, not references.
  ASSERT_EQ(args.size(), 4u);
  void **params = args.data();
  EXPECT_EQ(*static_cast<float *>(params[0]), 2.5f);
  EXPECT_EQ(*static_cast<std::uint64_t *>(params[1]), 0x123456789abcull);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(params[2]) % 64, 0u);
  EXPECT_EQ(std::memcmp(params[2], map.bytes.data(), 128), 0);
  EXPECT_EQ(*static_cast<std::uint32_t *>(params[3]), 7u);
  EXPECT_EQ(args.sizeOf(0), 4u);
  EXPECT_EQ(args.sizeOf(1), 8u);
  EXPECT_EQ(args.sizeOf(2), 128u);
  EXPECT_EQ(args.sizeOf(3), 4u);
}

TEST(RuntimeLaunch, ConfigurationIsCheckedBeforeTheDriver) {
  Function fn(reinterpret_cast<CUfunc_st *>(0x1), "k");
  auto messageOf = [&](const LaunchConfig &config) {
    Status s = launch(fn, config, KernelArgs());
    return s.ok() ? std::string("ok") : s.error().getMessage();
  };
  LaunchConfig zeroGrid;
  zeroGrid.grid = {0, 1, 1};
  zeroGrid.block = {128};
  EXPECT_EQ(messageOf(zeroGrid), "launching 'k' with grid (0, 1, 1) block "
                                 "(128, 1, 1): grid (0, 1, 1) has a zero "
                                 "extent");
  LaunchConfig bigBlock;
  bigBlock.block = {2048};
  EXPECT_EQ(messageOf(bigBlock),
            "launching 'k' with grid (1, 1, 1) block (2048, 1, 1): block "
            "(2048, 1, 1) exceeds the limits (1024, 1024, 64)");
  LaunchConfig ragged;
  ragged.grid = {3, 2, 1};
  ragged.block = {128};
  ragged.cluster = {2, 1, 1};
  EXPECT_EQ(messageOf(ragged),
            "launching 'k' with grid (3, 2, 1) block (128, 1, 1): grid (3, 2, "
            "1) is not a multiple of cluster (2, 1, 1) in every dimension");
  LaunchConfig hugeCluster;
  hugeCluster.grid = {16};
  hugeCluster.block = {128};
  hugeCluster.cluster = {16, 1, 1};
  EXPECT_EQ(messageOf(hugeCluster),
            "launching 'k' with grid (16, 1, 1) block (128, 1, 1): cluster "
            "(16, 1, 1) has 16 blocks; at most 8 are supported (the portable "
            "cluster size)");
  LaunchConfig fine;
  fine.block = {32};
  EXPECT_EQ(Status(launch(Function(), fine, KernelArgs())).error().getMessage(),
            "launching '' with grid (1, 1, 1) block (32, 1, 1): the function "
            "is null (look it up with Module::function first)");
}

} // namespace
} // namespace tilec::rt
