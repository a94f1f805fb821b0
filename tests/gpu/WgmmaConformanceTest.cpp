//===- tests/gpu/WgmmaConformanceTest.cpp - Descriptors on the H200 -------===//
//
// The ground truth for the descriptor decoder's reading of the PTX ISA: for
// every swizzle mode x majorness pair (bf16), K-major tf32 and e4m3, and
// several N, one 64 x N x K wgmma product from operands placed in shared
// memory by their layouts and addressed by derived descriptors must equal
// the CPU product of the same random data. The output is poisoned with NaN
// first, so a skipped store cannot pass.
//
//===----------------------------------------------------------------------===//
#include "codegen/WgmmaProbeKernel.h"
#include "runtime/Device.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Launch.h"
#include "runtime/Module.h"
#include "tests/common/WgmmaProbeCase.h"
#include "tests/gpu/GpuTest.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

using namespace tilec;
using namespace tilec::testing;

namespace {

/// Runs one case; returns "" on a match, else what went wrong.
std::string runCase(const WgmmaProbeCase &c) {
  auto ptx = emitWgmmaProbePtx(c.spec);
  if (!ptx)
    return "emit: " + llvm::toString(ptx.takeError());
  auto module = rt::Module::loadPtx(*ptx);
  if (!module)
    return "load: " + module.error().getMessage();
  auto fn = module->function(WgmmaProbeKernelName);
  if (!fn)
    return "function: " + fn.error().getMessage();
  auto a = rt::DeviceBuffer::allocate(c.aImage.size());
  auto b = rt::DeviceBuffer::allocate(c.bImage.size());
  auto d = rt::DeviceBuffer::allocate((c.reference.size() + 1) * 4);
  if (!a || !b || !d)
    return "allocate failed";
  if (!a->upload(c.aImage.data(), c.aImage.size()) ||
      !b->upload(c.bImage.data(), c.bImage.size()) ||
      !d->fillWords(0x7FC00000u))
    return "upload failed";
  rt::LaunchConfig config;
  config.block = {128, 1, 1};
  config.dynamicSharedBytes = c.spec.smemBytes();
  if (rt::Status s = rt::launch(*fn, config, a->ptr(), b->ptr(), d->ptr()); !s)
    return "launch: " + s.error().getMessage();
  auto out = d->download<float>();
  if (!out)
    return "download: " + out.error().getMessage();
  float smemBase = (*out)[c.reference.size()];
  if (std::fmod(smemBase, 1024.0f) != 0)
    return "dynamic shared memory starts at " + std::to_string(smemBase) +
           ", not 1024-byte aligned";
  unsigned bad = 0;
  std::string first;
  for (size_t i = 0; i != c.reference.size(); ++i) {
    float want = c.reference[i], got = (*out)[i];
    if (!(std::fabs(got - want) <= 1e-3f * (1 + std::fabs(want)))) {
      if (!bad++)
        first = "D[" + std::to_string(i / c.spec.n) + "][" +
                std::to_string(i % c.spec.n) + "] = " + std::to_string(got) +
                ", CPU " + std::to_string(want);
    }
  }
  if (bad)
    return std::to_string(bad) + " of " + std::to_string(c.reference.size()) +
           " wrong, first " + first;
  return "";
}

TEST(WgmmaConformanceTest, DerivedDescriptorsMatchCpu) {
  TILEC_GPU_CONTEXT(ctx);
  if (ctx.device().computeCapability() != 90)
    GTEST_SKIP() << "SKIP: wgmma needs sm_90, found " << ctx.device().name
                 << " (cc " << ctx.device().computeCapability() << ")";
  std::map<std::string, std::pair<unsigned, unsigned>> byType;
  unsigned passed = 0, total = 0, seed = 1;
  for (auto [dtype, sw, am, bm, n] : wgmmaConformanceMatrix()) {
    auto c = makeWgmmaProbeCase(dtype, sw, am, bm, n, 4, seed++);
    ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
    std::string problem = runCase(*c);
    ++total;
    auto &counts = byType[std::string(dtypeInfo(dtype).name)];
    ++counts.second;
    if (problem.empty()) {
      std::printf("ok   %s\n", c->name.c_str());
      ++passed;
      ++counts.first;
    } else {
      ADD_FAILURE() << c->name << ": " << problem;
      std::printf("FAIL %s: %s\n", c->name.c_str(), problem.c_str());
    }
  }
  std::printf("wgmma conformance on %s: %u/%u cases match the CPU (",
              ctx.device().name.c_str(), passed, total);
  bool firstType = true;
  for (auto &[name, counts] : byType) {
    std::printf("%s%s %u/%u", firstType ? "" : ", ", name.c_str(), counts.first,
                counts.second);
    firstType = false;
  }
  std::printf("; 4 swizzle modes x K/MN-major A and B for bf16, K-major "
              "tf32 and e4m3, N in 8..256, 4 K steps)\n");
  EXPECT_EQ(passed, total);
}

// The check must be able to fail: descriptors with one field wrong (LBO and
// SBO swapped, the neighbouring swizzle mode, SBO halved) must give wrong
// products, so a pass above is not a test that cannot see errors.
TEST(WgmmaConformanceTest, WrongDescriptorsAreCaught) {
  TILEC_GPU_CONTEXT(ctx);
  if (ctx.device().computeCapability() != 90)
    GTEST_SKIP() << "SKIP: wgmma needs sm_90";
  struct Mutation {
    const char *what;
    SwizzleKind swizzle;
    MajorKind major;
    uint64_t (*apply)(uint64_t);
  };
  const Mutation mutations[] = {
      {"MN-major SW64 with LBO and SBO swapped", SwizzleKind::SW64,
       MajorKind::MN,
       [](uint64_t d) -> uint64_t {
         uint64_t lbo = (d >> 16) & 0x3FFF, sbo = (d >> 32) & 0x3FFF;
         d &= ~((0x3FFFull << 16) | (0x3FFFull << 32));
         return d | (sbo << 16) | (lbo << 32);
       }},
      {"K-major SW128 encoded as SW64", SwizzleKind::SW128, MajorKind::K,
       [](uint64_t d) -> uint64_t {
         return (d & ~(3ull << 62)) | (2ull << 62);
       }},
      {"K-major SW32 with SBO halved", SwizzleKind::SW32, MajorKind::K,
       [](uint64_t d) -> uint64_t {
         uint64_t sbo = (d >> 32) & 0x3FFF;
         return (d & ~(0x3FFFull << 32)) | ((sbo / 2) << 32);
       }},
      {"MN-major interleaved with LBO and SBO swapped", SwizzleKind::None,
       MajorKind::MN,
       [](uint64_t d) -> uint64_t {
         uint64_t lbo = (d >> 16) & 0x3FFF, sbo = (d >> 32) & 0x3FFF;
         d &= ~((0x3FFFull << 16) | (0x3FFFull << 32));
         return d | (sbo << 16) | (lbo << 32);
       }},
  };
  unsigned caught = 0;
  for (const Mutation &m : mutations) {
    auto c = makeWgmmaProbeCase(DTypeKind::BF16, m.swizzle, m.major, m.major,
                                128, 4, 99);
    ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
    for (uint64_t &d : c->spec.aDescs)
      d = m.apply(d);
    for (uint64_t &d : c->spec.bDescs)
      d = m.apply(d);
    std::string problem = runCase(*c);
    std::printf("%s %s: %s\n", problem.empty() ? "MISSED" : "caught", m.what,
                problem.empty() ? "products still match" : problem.c_str());
    EXPECT_FALSE(problem.empty()) << m.what;
    caught += !problem.empty();
  }
  std::printf("wgmma negative controls: %u/%zu wrong descriptors caught\n",
              caught, std::size(mutations));
}

} // namespace
