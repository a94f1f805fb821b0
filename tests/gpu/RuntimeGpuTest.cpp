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
#include "runtime/Launch.h"
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

/// A TMA load through an encoded tensor map: each block copies one 8 x 32
/// box of a ragged 37 x 100 u32 matrix into shared memory and dumps the
/// shared-memory image. The host predicts that image from the PTX ISA's
/// swizzle rule (16-byte chunk c of 128-byte row r lands at chunk c ^ (r % 8)
/// under SW128) and zero fill out of bounds.
const char *TmaBoxDumpPtx = R"PTX(.version 8.0
.target sm_90a
.address_size 64

// One 8 x 32 box of u32 per block through TMA into shared memory, then the
// raw shared-memory image of the box to out (row pitch outCols elements).
.visible .entry tma_box_dump(
  .param .align 64 .b8 tmap[128],
  .param .u64 out,
  .param .u32 outCols)
{
  .reg .pred %p<3>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 1024 .b8 tile[1024];
  .shared .align 8 .b64 bar;

  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ctaid.y;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra ISSUED;
  mbarrier.init.shared::cta.b64 [bar], 1;
  fence.proxy.async.shared::cta;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [bar], 1024;
  shl.b32 %r5, %r2, 5;
  shl.b32 %r6, %r3, 3;
  mov.b64 %rd2, tmap;
  cvta.param.u64 %rd3, %rd2;
  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd3, {%r5, %r6}], [bar];
ISSUED:
  bar.sync 0;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra WAIT;
  mov.u32 %r7, tile;
  shl.b32 %r8, %r1, 2;
  add.u32 %r9, %r7, %r8;
  ld.shared.u32 %r10, [%r9];
  // out[(by*8 + t/32) * outCols + bx*32 + t%32]
  ld.param.u64 %rd4, [out];
  ld.param.u32 %r11, [outCols];
  shr.u32 %r12, %r1, 5;
  shl.b32 %r13, %r3, 3;
  add.u32 %r12, %r12, %r13;
  and.b32 %r14, %r1, 31;
  shl.b32 %r15, %r2, 5;
  add.u32 %r14, %r14, %r15;
  mad.lo.u32 %r16, %r12, %r11, %r14;
  mul.wide.u32 %rd5, %r16, 4;
  cvta.to.global.u64 %rd6, %rd4;
  add.u64 %rd7, %rd6, %rd5;
  st.global.u32 [%rd7], %r10;
  ret;
}
)PTX";

class RuntimeTmaGpu : public ::testing::TestWithParam<TensorMapSwizzleKind> {};

TEST_P(RuntimeTmaGpu, TensorMapDrivesTmaLoad) {
  TILEC_GPU_CONTEXT(ctx);
  if (ctx.device().computeCapability() != 90)
    GTEST_SKIP() << "SKIP: the TMA test kernel is sm_90a; the GPU is sm_"
                 << ctx.device().computeCapability();
  constexpr std::uint32_t Rows = 37, Cols = 100, BoxRows = 8, BoxCols = 32;
  constexpr std::uint32_t GridX = (Cols + BoxCols - 1) / BoxCols; // 4
  constexpr std::uint32_t GridY = (Rows + BoxRows - 1) / BoxRows; // 5
  constexpr std::uint32_t OutCols = GridX * BoxCols;
  constexpr std::uint32_t OutRows = GridY * BoxRows;
  std::vector<std::uint32_t> in(Rows * Cols);
  std::iota(in.begin(), in.end(), 1u); // Never 0, so zero fill shows.

  auto module = Module::loadPtx(TmaBoxDumpPtx);
  ASSERT_TRUE(module.ok()) << module.error().getMessage();
  auto kernel = module->function("tma_box_dump");
  ASSERT_TRUE(kernel.ok()) << kernel.error().getMessage();
  auto input = DeviceBuffer::allocate(in.size() * 4);
  auto output = DeviceBuffer::allocate(OutRows * OutCols * 4);
  ASSERT_TRUE(input.ok() && output.ok());
  ASSERT_TRUE(input->upload(std::span<const std::uint32_t>(in)).ok());
  ASSERT_TRUE(output->fillWords(0xdeadbeefu).ok());

  TensorMapSwizzleKind swizzle = GetParam();
  TensorMapDesc desc =
      TensorMapDesc::matrix2d(TensorMapDTypeKind::U32, input->ptr(), Rows, Cols,
                              Cols, BoxRows, BoxCols, swizzle);
  auto map = encodeTensorMap(desc);
  ASSERT_TRUE(map.ok()) << map.error().getMessage();

  LaunchConfig config;
  config.grid = {GridX, GridY};
  config.block = {BoxRows * BoxCols};
  Status s = launch(*kernel, config, *map, output->ptr(), OutCols);
  ASSERT_TRUE(s.ok()) << s.error().getMessage();
  s = ctx.synchronize();
  ASSERT_TRUE(s.ok()) << s.error().getMessage();
  auto out = output->download<std::uint32_t>();
  ASSERT_TRUE(out.ok()) << out.error().getMessage();

  bool swizzled = swizzle == TensorMapSwizzleKind::B128;
  std::size_t wrong = 0;
  for (std::uint32_t by = 0; by < GridY; ++by)
    for (std::uint32_t bx = 0; bx < GridX; ++bx)
      for (std::uint32_t p = 0; p < BoxRows * BoxCols; ++p) {
        std::uint32_t r = p / BoxCols, chunk = (p % BoxCols) / 4, w = p % 4;
        std::uint32_t srcChunk = swizzled ? chunk ^ (r % 8) : chunk;
        std::uint32_t row = by * BoxRows + r;
        std::uint32_t col = bx * BoxCols + srcChunk * 4 + w;
        std::uint32_t expected =
            row < Rows && col < Cols ? in[row * Cols + col] : 0;
        std::uint32_t got =
            (*out)[(by * BoxRows + r) * OutCols + bx * BoxCols + p % BoxCols];
        if (got != expected && ++wrong <= 5)
          ADD_FAILURE() << "box (" << bx << ", " << by << ") smem word " << p
                        << ": got " << got << ", expected " << expected;
      }
  EXPECT_EQ(wrong, 0u);
  std::printf("TMA %s: %zu of %u words wrong\n",
              describeTensorMap(desc).c_str(), wrong, OutRows * OutCols);
}

INSTANTIATE_TEST_SUITE_P(Swizzles, RuntimeTmaGpu,
                         ::testing::Values(TensorMapSwizzleKind::None,
                                           TensorMapSwizzleKind::B128),
                         [](const auto &info) {
                           return info.param == TensorMapSwizzleKind::None
                                      ? std::string("none")
                                      : std::string("sw128");
                         });

} // namespace
} // namespace tilec::rt
