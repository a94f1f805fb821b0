//===- runtime/Launch.h - Kernel arguments and launches ----------*- C++
//-*-===//
//
// A launch is a Function, a LaunchConfig (grid, block, dynamic shared memory,
// optional thread-block cluster, stream) and the kernel's parameters in
// order. Parameters are copied into KernelArgs, so temporaries are fine; a
// 128-byte TensorMap is passed by value as the kernel's `.param .align 64
// .b8 tmap[128]` (a __grid_constant__ CUtensorMap in CUDA C++).
//
// Example:
//   rt::KernelArgs args;
//   args.add(2.0f).add(x.ptr()).add(y.ptr()).add(uint32_t(n));
//   rt::LaunchConfig config;
//   config.grid = {(n + 255) / 256};
//   config.block = {256};
//   if (rt::Status s = rt::launch(kernel, config, args); !s)
//     llvm::errs() << s.error().getMessage() << "\n";
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_LAUNCH_H
#define TILEC_RUNTIME_LAUNCH_H

#include "runtime/Module.h"
#include "runtime/Status.h"

#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

struct CUstream_st;

namespace tilec::rt {

/// Grid, block or cluster extents.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// How to launch.
struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  /// Thread-block cluster extents (sm_90+); {1,1,1} launches without
  /// clusters. Each grid extent must be a multiple of the cluster extent.
  Dim3 cluster;
  /// Programmatic dependent launch (sm_90+): the grid may be scheduled
  /// while the previous kernel in the stream is still running, once every
  /// CTA of that kernel has executed `griddepcontrol.launch_dependents`. The
  /// kernel must execute `griddepcontrol.wait` before it touches memory the
  /// previous kernel may access; that waits for the previous kernel's
  /// completion and the visibility of its writes.
  bool programmaticSerialization = false;
  /// Dynamic shared memory per block in bytes; above 48 KB the kernel's
  /// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES is raised first.
  std::size_t dynamicSharedBytes = 0;
  /// Null: the default stream.
  CUstream_st *stream = nullptr;
};

/// The kernel's parameters, copied, in declaration order.
class KernelArgs {
public:
  /// Appends a copy of \p value (a scalar, a DevicePtr, a TensorMap, or any
  /// trivially copyable struct laid out as the kernel expects).
  template <typename T> KernelArgs &add(const T &value) {
    static_assert(std::is_trivially_copyable_v<T>,
                  "kernel parameters are copied bytewise");
    static_assert(alignof(T) <= alignof(Slot), "over-aligned parameter");
    std::size_t slots = (sizeof(T) + sizeof(Slot) - 1) / sizeof(Slot);
    storage.push_back(std::make_unique<Slot[]>(slots));
    std::memcpy(storage.back().get(), &value, sizeof(T));
    pointers.push_back(storage.back().get());
    sizes.push_back(sizeof(T));
    return *this;
  }

  /// The `void **kernelParams` array cuLaunchKernel takes.
  void **data() const { return const_cast<void **>(pointers.data()); }
  /// Number of parameters.
  std::size_t size() const { return pointers.size(); }
  /// Size in bytes of parameter \p index.
  std::size_t sizeOf(std::size_t index) const { return sizes[index]; }

private:
  struct alignas(64) Slot {
    unsigned char bytes[64];
  };
  std::vector<std::unique_ptr<Slot[]>> storage;
  std::vector<void *> pointers;
  std::vector<std::size_t> sizes;
};

/// Checks a launch of \p fn with \p config and \p args and names the broken
/// rule (the checks launch() makes), and raises the kernel's dynamic shared
/// memory limit when \p config needs more than 48 KB. A launch that passed
/// can be issued any number of times with launchChecked().
Status checkLaunch(const Function &fn, const LaunchConfig &config,
                   const KernelArgs &args);

/// Launches \p fn without the checks: the launch must have passed
/// checkLaunch() (same function, config and argument sizes). One driver call
/// (cuLaunchKernel, or cuLaunchKernelEx for clusters and dependent launches)
/// for launch loops where the host's time per launch matters.
Status launchChecked(const Function &fn, const LaunchConfig &config,
                     const KernelArgs &args);

/// Launches \p fn with \p args. Checks the configuration first and names
/// the broken rule: extents (no zero, within the hardware limits) and
/// cluster divisibility without the driver; then block size against the
/// kernel's limit, the number and byte sizes of the parameters against the
/// kernel's (drivers with cuFuncGetParamInfo, CUDA 12.4+), and shared memory
/// against the device's opt-in limit.
/// Asynchronous: a fault in the kernel shows up at the next synchronize.
Status launch(const Function &fn, const LaunchConfig &config,
              const KernelArgs &args);

/// Launches \p fn with the parameters \p params, copied in order.
template <typename... Ts>
Status launch(const Function &fn, const LaunchConfig &config,
              const Ts &...params) {
  KernelArgs args;
  (args.add(params), ...);
  return launch(fn, config, args);
}

} // namespace tilec::rt

#endif // TILEC_RUNTIME_LAUNCH_H
