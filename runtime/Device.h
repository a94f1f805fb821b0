//===- runtime/Device.h - GPU query and the primary context ------*- C++
//-*-===//
//
// What a kernel launcher needs to know about a GPU (compute capability, SM
// count, shared-memory limits, L2 size) and the context everything else runs
// in. The runtime uses the device's primary context, the one the CUDA runtime
// and PyTorch share: Context retains it and makes it current on the calling
// thread; modules, buffers, streams and launches then use the current context.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_DEVICE_H
#define TILEC_RUNTIME_DEVICE_H

#include "runtime/Status.h"

#include <cstddef>
#include <string>
#include <utility>

struct CUctx_st;

namespace tilec::rt {

/// Facts about one GPU, read through cuDeviceGetAttribute.
struct DeviceInfo {
  int ordinal = 0;
  std::string name; ///< "NVIDIA H200".
  int ccMajor = 0;  ///< Compute capability major (9 for sm_90).
  int ccMinor = 0;  ///< Compute capability minor.
  int smCount = 0;  ///< Multiprocessors.
  int maxThreadsPerBlock = 0;
  /// Shared memory a block gets without opting in (48 KB).
  std::size_t sharedMemPerBlock = 0;
  /// Shared memory a block may opt in to (227 KB on sm_90).
  std::size_t sharedMemPerBlockOptin = 0;
  /// Shared memory per multiprocessor.
  std::size_t sharedMemPerSm = 0;
  std::size_t l2CacheBytes = 0;
  std::size_t totalMemBytes = 0;
  int clockRateKHz = 0;  ///< Peak SM clock.
  int driverVersion = 0; ///< cuDriverGetVersion, e.g. 13000.

  /// 80, 90, 100: major * 10 + minor, as ArchInfo::computeCapability.
  unsigned computeCapability() const { return ccMajor * 10 + ccMinor; }
};

/// Number of CUDA devices; an Error when the driver is missing or fails.
Result<int> deviceCount();

/// Queries device \p ordinal.
Result<DeviceInfo> queryDevice(int ordinal = 0);

/// The retained primary context of one device, current on the thread that
/// created it. Released when destroyed; movable, not copyable.
class Context {
public:
  /// Retains device \p ordinal's primary context and makes it current.
  static Result<Context> create(int ordinal = 0);

  Context(Context &&other) noexcept;
  Context &operator=(Context &&other) noexcept;
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context();

  /// Makes this context current on the calling thread (for other threads).
  Status makeCurrent() const;
  /// Waits for all work in the context (cuCtxSynchronize); a kernel fault
  /// shows up here.
  Status synchronize() const;
  /// The device the context belongs to.
  const DeviceInfo &device() const { return info; }
  /// The CUcontext.
  CUctx_st *handle() const { return ctx; }

private:
  Context(CUctx_st *ctx, int cuDevice, DeviceInfo info)
      : ctx(ctx), cuDevice(cuDevice), info(std::move(info)) {}
  void release();

  CUctx_st *ctx = nullptr;
  int cuDevice = -1;
  DeviceInfo info;
};

} // namespace tilec::rt

#endif // TILEC_RUNTIME_DEVICE_H
