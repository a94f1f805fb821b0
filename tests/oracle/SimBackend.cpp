//===- tests/oracle/SimBackend.cpp - The simulator behind the CUTLASS oracle =//
//
// See SimBackend.h. The launch refuses a PTX file with other than one kernel
// and a host parameter whose size differs from the PTX's .param (a Params
// struct laid out differently on the two sides would otherwise run on
// garbage).
//
//===----------------------------------------------------------------------===//
#include "tests/oracle/SimBackend.h"

#include "runtime/sim/SimMemory.h"
#include "runtime/sim/SimModule.h"
#include "runtime/sim/TmaUnit.h"

#include <fmt/format.h>

#include <atomic>
#include <fstream>
#include <memory>
#include <sstream>

namespace tilec::oracle {

namespace {
std::atomic<TensorMapEncoder> realEncoder{nullptr};
} // namespace

void *simAllocate(std::size_t bytes) {
  return reinterpret_cast<void *>(
      sim::GlobalMemory::instance().allocate(bytes));
}

void simFree(void *pointer) {
  sim::GlobalMemory::instance().free(reinterpret_cast<std::uint64_t>(pointer));
}

void setRealTensorMapEncoder(TensorMapEncoder encoder) {
  realEncoder = encoder;
}

SimRunResult simRunPtx(const std::string &ptxPath,
                       const SimKernelLaunch &launch) {
  SimRunResult result;
  std::ifstream file(ptxPath);
  if (!file) {
    result.error = ptxPath + ": cannot be read";
    return result;
  }
  std::stringstream text;
  text << file.rdbuf();
  std::string error;
  std::unique_ptr<sim::SimModule> module =
      sim::SimModule::load(text.str(), error);
  if (!module) {
    result.error = ptxPath + ": the simulator refuses it: " + error;
    return result;
  }
  if (module->functions().size() != 1) {
    result.error = fmt::format("{}: {} kernels, expected exactly one", ptxPath,
                               module->functions().size());
    return result;
  }
  const sim::SimFunction &fn = *module->functions().front();
  result.kernelName = fn.name();
  if (fn.params().size() != launch.paramCount) {
    result.error =
        fmt::format("{} takes {} parameters, the host passes {}", fn.name(),
                    fn.params().size(), launch.paramCount);
    return result;
  }
  for (std::size_t i = 0; i < launch.paramCount; ++i)
    if (fn.params()[i].size != launch.paramBytes[i]) {
      result.error = fmt::format(
          "parameter {} of {} is {} bytes in the PTX, {} on the host", i,
          fn.name(), fn.params()[i].size, launch.paramBytes[i]);
      return result;
    }
  sim::SimLaunchConfig config;
  for (int d = 0; d < 3; ++d) {
    config.grid[d] = launch.grid[d];
    config.block[d] = launch.block[d];
    config.cluster[d] = launch.cluster[d];
  }
  config.dynamicSharedBytes = launch.sharedBytes;
  sim::SimOptions options;
  options.seed = launch.seed;
  options.hostThreads = launch.hostThreads;
  sim::SimLaunchResult run =
      sim::simLaunch(fn, config, launch.kernelParams, options);
  result.warpInstructions = run.warpInstructions;
  if (run.error)
    result.error = *run.error;
  return result;
}

} // namespace tilec::oracle

/// The driver entry point CUTLASS's make_tma_copy calls directly.
extern "C" CUresult cuTensorMapEncodeTiled(
    CUtensorMap *map, CUtensorMapDataType dtype, cuuint32_t rank, void *address,
    const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
    const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
    CUtensorMapFloatOOBfill oobFill) {
  if (tilec::oracle::TensorMapEncoder real = tilec::oracle::realEncoder)
    return real(map, dtype, rank, address, dims, strides, box, elementStrides,
                interleave, swizzle, l2, oobFill);
  std::optional<std::string> error = tilec::sim::encodeSimTensorMap(
      map, dtype, rank, address, dims, strides, box, elementStrides, interleave,
      swizzle, l2, oobFill);
  if (error) {
    fmt::print(stderr, "cuTensorMapEncodeTiled (simulator): {}\n", *error);
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}
