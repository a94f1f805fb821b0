//===- tests/sim/InterpreterTestUtil.h - Running small PTX kernels -*- C++
//-*-===//
//
// Helpers for the interpreter tests: load PTX text (failing the test with
// the parser's message), allocate simulated global buffers, and launch.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TESTS_SIM_INTERPRETERTESTUTIL_H
#define TILEC_TESTS_SIM_INTERPRETERTESTUTIL_H

#include "runtime/sim/SimMemory.h"
#include "runtime/sim/SimModule.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace tilec::sim::test {

/// A simulated global allocation freed at scope exit.
class DeviceBuffer {
public:
  explicit DeviceBuffer(std::size_t bytes)
      : address(GlobalMemory::instance().allocate(bytes)), bytes(bytes) {}
  ~DeviceBuffer() { GlobalMemory::instance().free(address); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  template <typename T> T *as() { return reinterpret_cast<T *>(address); }
  std::uint64_t address;
  std::size_t bytes;
};

inline std::unique_ptr<SimModule> loadOrFail(const std::string &ptx) {
  std::string error;
  std::unique_ptr<SimModule> m = SimModule::load(ptx, error);
  EXPECT_TRUE(m) << error;
  return m;
}

/// A PTX module around one kernel body.
inline std::string kernelPtx(const std::string &params, const std::string &body,
                             const std::string &target = "sm_90a") {
  return ".version 8.0\n.target " + target + "\n.address_size 64\n" +
         ".extern .shared .align 1024 .b8 smem[];\n" + ".visible .entry k(" +
         params + ")\n{\n" + body + "\n}\n";
}

inline SimLaunchResult launch(const SimModule &m, unsigned grid, unsigned block,
                              std::vector<void *> params, std::size_t smem = 0,
                              unsigned cluster = 1, std::uint64_t seed = 0) {
  SimLaunchConfig c;
  c.grid[0] = grid;
  c.block[0] = block;
  c.cluster[0] = cluster;
  c.dynamicSharedBytes = smem;
  SimOptions o;
  o.seed = seed;
  o.hostThreads = 2;
  return simLaunch(*m.function("k"), c, params.data(), o);
}

} // namespace tilec::sim::test

#endif // TILEC_TESTS_SIM_INTERPRETERTESTUTIL_H
