//===- runtime/SimDriver.h - The simulator behind the driver's table -*- C++ -*-===//
//
// The CUDA Driver API entry points the runtime uses (DriverFunctions.def),
// implemented over the PTX simulator (runtime/sim/): memory is host memory
// whose address is the device pointer, a module is parsed PTX, a launch
// executes the kernel to completion on the CPU before it returns, tensor maps
// are encoded in the simulator's format, streams and graphs record and
// replay launches, events read the host clock. A fault the simulator finds
// fails the launch with CUDA_ERROR_LAUNCH_FAILED, and cuGetErrorString
// returns the simulator's report (CTA, warp, lane, PTX line, the numbers).
//
// The simulated device reports compute capability 9.0 (TILEC_SIM_CC=80, 90
// or 100 changes it) and 16 multiprocessors (TILEC_SIM_SMS); it runs PTX of
// every target. TILEC_SIM_SEED=S interleaves warps randomly from seed S,
// TILEC_SIM_THREADS bounds the host threads.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIMDRIVER_H
#define TILEC_RUNTIME_SIMDRIVER_H

#include "runtime/DriverApi.h"
#include "runtime/sim/SimModule.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tilec::rt {

/// A driver table whose every entry is the simulator's.
Result<std::unique_ptr<DriverApi>> loadSimDriverApi();

/// What the simulator counted over the launches since the last call (and
/// clears): warp-instructions executed, launches, and with profiling on
/// (setSimProfiling) the per-PTX-line profile of the last launch.
struct SimCounters {
  std::uint64_t launches = 0;
  std::uint64_t warpInstructions = 0;
};
SimCounters takeSimCounters();

/// Random warp interleaving from \p seed for later launches (0: the
/// deterministic order).
void setSimSeed(std::uint64_t seed);

/// Collect a per-PTX-line profile in later launches (slower).
void setSimProfiling(bool on);
/// The profile of the launches since the last call, merged per PTX line of
/// each module: (the module's PTX, its lines' counts). Clears it.
struct SimModuleProfile {
  std::string ptx;
  std::vector<sim::SimLineProfile> lines;
};
std::vector<SimModuleProfile> takeSimProfile();

} // namespace tilec::rt

#endif // TILEC_RUNTIME_SIMDRIVER_H
