//===- tests/gpu/RuntimeGpuTest.cpp - The runtime against a real driver ---===//
//
// Device query, a failed PTX load (its error must carry the JIT log), kernel
// lookup, buffer bounds and round trips, events, and tensor-map encoding on
// sm_90+. The numeric kernel checks are in SaxpyGpuTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "GpuTest.h"

#include "runtime/DeviceBuffer.h"
#include "runtime/DriverApi.h"
#include "runtime/Event.h"
#include "runtime/Module.h"
#include "runtime/Stream.h"
#include "runtime/TensorMap.h"

#include <algorithm>
#include <numeric>

namespace tilec::rt {
namespace {

TEST(RuntimeGpu, DeviceQuery) {
  TILEC_GPU_CONTEXT(ctx);
  const DeviceInfo &d = ctx.device();
  std::printf("device 0: %s, sm_%u, %d SMs, %zu MiB, L2 %zu KiB, smem per "
              "block %zu / opt-in %zu / per SM %zu bytes, driver %d\n",
              d.name.c_str(), d.computeCapability(), d.smCount,
              d.totalMemBytes >> 20, d.l2CacheBytes >> 10, d.sharedMemPerBlock,
              d.sharedMemPerBlockOptin, d.sharedMemPerSm, d.driverVersion);
  EXPECT_FALSE(d.name.empty());
  EXPECT_GE(d.ccMajor, 7);
  EXPECT_GT(d.smCount, 0);
  EXPECT_EQ(d.sharedMemPerBlock, 48u * 1024);
  EXPECT_GT(d.sharedMemPerBlockOptin, d.sharedMemPerBlock);
  EXPECT_GE(d.sharedMemPerSm, d.sharedMemPerBlockOptin);
  EXPECT_GT(d.l2CacheBytes, 0u);
  EXPECT_GE(d.driverVersion, 12000);
  auto count = deviceCount();
  ASSERT_TRUE(count.ok());
  EXPECT_GE(*count, 1);
  auto outOfRange = queryDevice(*count);
  ASSERT_FALSE(outOfRange.ok());
  EXPECT_NE(outOfRange.error().getMessage().find("device ordinal " +
                                                 std::to_string(*count) +
                                                 " is out of range"),
            std::string::npos)
      << outOfRange.error().getMessage();
}

TEST(RuntimeGpu, BrokenPtxLoadReturnsTheJitLog) {
  TILEC_GPU_CONTEXT(ctx);
  const char *broken = ".version 8.0\n"
                       ".target sm_80\n"
                       ".address_size 64\n"
                       ".visible .entry broken()\n"
                       "{\n"
                       "  .reg .b32 %r<2>;\n"
                       "  mov.b32 %r1, %undefined_register;\n"
                       "  ret;\n"
                       "}\n";
  auto module = Module::loadPtx(broken);
  ASSERT_FALSE(module.ok());
  const Error &error = module.error();
  std::printf("broken PTX load: %s\n", error.getMessage().c_str());
  EXPECT_EQ(error.getCudaResult(), CUDA_ERROR_INVALID_PTX);
  EXPECT_NE(error.getMessage().find("cuModuleLoadDataEx failed: "
                                    "CUDA_ERROR_INVALID_PTX (218)"),
            std::string::npos);
  ASSERT_FALSE(error.getJitLog().empty());
  EXPECT_NE(error.getJitLog().find("undefined_register"), std::string::npos)
      << error.getJitLog();
  EXPECT_NE(error.getMessage().find("JIT error log:\n" + error.getJitLog()),
            std::string::npos);
}

TEST(RuntimeGpu, LoadsPtxAndFindsKernels) {
  TILEC_GPU_CONTEXT(ctx);
  const char *ptx = ".version 8.0\n"
                    ".target sm_80\n"
                    ".address_size 64\n"
                    ".visible .global .align 4 .u32 counter = 7;\n"
                    ".visible .entry empty()\n"
                    "{\n"
                    "  ret;\n"
                    "}\n";
  ModuleLoadOptions options;
  options.verbose = true;
  auto module = Module::loadPtx(ptx, options);
  ASSERT_TRUE(module.ok()) << module.error().getMessage();
  std::printf("JIT %.3f ms, info log: %s\n", module->jitMilliseconds(),
              module->infoLog().c_str());
  auto fn = module->function("empty");
  ASSERT_TRUE(fn.ok()) << fn.error().getMessage();
  auto regs = fn->numRegisters();
  ASSERT_TRUE(regs.ok());
  EXPECT_GE(*regs, 0);
  auto missing = module->function("absent");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().getMessage(),
            "the module has no kernel named 'absent' (the name must match a "
            ".entry in the PTX)");
  auto global = module->global("counter");
  ASSERT_TRUE(global.ok()) << global.error().getMessage();
  EXPECT_EQ(global->second, 4u);
}

TEST(RuntimeGpu, BufferRoundTripAndBounds) {
  TILEC_GPU_CONTEXT(ctx);
  auto buffer = DeviceBuffer::allocate(4096);
  ASSERT_TRUE(buffer.ok()) << buffer.error().getMessage();
  EXPECT_NE(buffer->ptr(), 0u);
  EXPECT_EQ(buffer->ptr() % 256, 0u);
  std::vector<std::uint32_t> host(1024);
  std::iota(host.begin(), host.end(), 1000u);
  ASSERT_TRUE(buffer->upload(std::span<const std::uint32_t>(host)).ok());
  auto back = buffer->download<std::uint32_t>();
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, host);
  ASSERT_TRUE(buffer->fillBytes(0xab).ok());
  back = buffer->download<std::uint32_t>();
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(std::all_of(back->begin(), back->end(),
                          [](std::uint32_t v) { return v == 0xababababu; }));
  Status s = buffer->upload(host.data(), 16, 4088);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().getMessage(), "upload of 16 bytes at offset 4088 is out "
                                    "of bounds of a 4096-byte device buffer");
  auto zero = DeviceBuffer::allocate(0);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().getMessage(),
            "cannot allocate a 0-byte device buffer");
  DeviceBuffer moved = buffer.take();
  EXPECT_EQ(moved.size(), 4096u);
}

TEST(RuntimeGpu, StreamAndEvents) {
  TILEC_GPU_CONTEXT(ctx);
  auto stream = Stream::create();
  ASSERT_TRUE(stream.ok()) << stream.error().getMessage();
  auto start = Event::create();
  auto end = Event::create();
  ASSERT_TRUE(start.ok() && end.ok());
  ASSERT_TRUE(start->record(stream->handle()).ok());
  ASSERT_TRUE(end->record(stream->handle()).ok());
  ASSERT_TRUE(stream->synchronize().ok());
  ASSERT_TRUE(end->synchronize().ok());
  auto ms = Event::elapsedMs(*start, *end);
  ASSERT_TRUE(ms.ok()) << ms.error().getMessage();
  EXPECT_GE(*ms, 0.0f);
  EXPECT_TRUE(ctx.synchronize().ok());
}

TEST(RuntimeGpu, EncodesTensorMapOnSm90) {
  TILEC_GPU_CONTEXT(ctx);
  if (ctx.device().ccMajor < 9)
    GTEST_SKIP() << "SKIP: tensor maps need sm_90+; the GPU is sm_"
                 << ctx.device().computeCapability();
  auto buffer = DeviceBuffer::allocate(128 * 64 * 2);
  ASSERT_TRUE(buffer.ok());
  TensorMapDesc desc =
      TensorMapDesc::matrix2d(TensorMapDTypeKind::BF16, buffer->ptr(), 128, 64,
                              64, 64, 64, TensorMapSwizzleKind::B128);
  auto map = encodeTensorMap(desc);
  ASSERT_TRUE(map.ok()) << map.error().getMessage();
  EXPECT_TRUE(std::any_of(map->bytes.begin(), map->bytes.end(),
                          [](std::uint8_t b) { return b != 0; }));
  // The same description encodes to the same bytes.
  auto again = encodeTensorMap(desc);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(map->bytes, again->bytes);
}

} // namespace
} // namespace tilec::rt
