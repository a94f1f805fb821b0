//===- runtime/sim/SimModule.h - A loaded PTX module and its launches -*- C++
//-*-===//
//
// The simulator's interface to the fake CUDA driver: load PTX text into a
// SimModule (parsed and decoded once; an instruction the simulator does not
// model is a load error naming its line), look up an entry's SimFunction
// (parameters, limits), and execute a launch to completion with simLaunch,
// which returns either success with counts or the first fault found, with
// the CTA, warp, lane and PTX line where it happened.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIM_SIMMODULE_H
#define TILEC_RUNTIME_SIM_SIMMODULE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilec::sim {

struct PtxFunction;
struct PtxModule;

/// One kernel parameter in the packed parameter buffer.
struct SimParam {
  std::string name;
  std::size_t offset = 0, size = 0, align = 1;
};

/// One .entry of a loaded module.
class SimFunction {
public:
  explicit SimFunction(const PtxFunction &fn);
  const std::string &name() const;
  /// In order, offsets in a packed param buffer honoring .align.
  const std::vector<SimParam> &params() const { return paramList; }
  /// .maxntid product, else 1024.
  unsigned maxThreadsPerBlock() const;
  /// Sum of non-extern .shared declarations.
  unsigned staticSharedBytes() const;
  /// An estimate: declared registers, capped to 255.
  unsigned registersPerThread() const;
  /// The decoded program.
  const PtxFunction &program() const { return fn; }

private:
  const PtxFunction &fn;
  std::vector<SimParam> paramList;
};

/// A parsed PTX module.
class SimModule {
public:
  ~SimModule();
  /// Parses PTX text; on an error (unknown instruction, bad syntax) returns
  /// null and sets error to "ptx:LINE: message: `the line`".
  static std::unique_ptr<SimModule> load(std::string_view ptx,
                                         std::string &error);
  /// Null if none.
  const SimFunction *function(std::string_view name) const;
  /// A module-scope .global or .const variable: (device address, bytes).
  std::optional<std::pair<std::uint64_t, std::size_t>>
  global(std::string_view name) const;
  /// Every entry, in order.
  const std::vector<std::unique_ptr<SimFunction>> &functions() const {
    return entries;
  }

private:
  SimModule() = default;
  std::unique_ptr<PtxModule> module;
  std::vector<std::unique_ptr<SimFunction>> entries;
};

/// Grid, block and cluster shape of a launch.
struct SimLaunchConfig {
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, cluster[3] = {1, 1, 1};
  std::size_t dynamicSharedBytes = 0;
};

/// How to execute.
struct SimOptions {
  /// 0: deterministic round-robin; else random interleaving from this seed.
  std::uint64_t seed = 0;
  /// 0: std::thread::hardware_concurrency().
  unsigned hostThreads = 0;
  /// Collect per-PTX-line counts and bank conflicts into the profile.
  bool profile = false;
};

/// Counts of one PTX line.
struct SimLineProfile {
  unsigned ptxLine = 0;
  std::uint64_t executions = 0; ///< Warp-instructions.
  std::uint64_t sharedAccesses = 0, sharedWavefronts = 0, idealWavefronts = 0;
};

/// What a launch did.
struct SimLaunchResult {
  std::optional<std::string> error;
  std::uint64_t warpInstructions = 0;
  /// Nonzero lines only, sorted by line.
  std::vector<SimLineProfile> profile;
};

/// Executes the kernel to completion. kernelParams as cuLaunchKernel's:
/// kernelParams[i] points to the value of parameter i (size from params()).
SimLaunchResult simLaunch(const SimFunction &fn, const SimLaunchConfig &config,
                          void **kernelParams, const SimOptions &options);

} // namespace tilec::sim

#endif // TILEC_RUNTIME_SIM_SIMMODULE_H
