//===- tests/gpu/Sm90DriverShim.h - Just enough CUDA driver for sm_90a -*- C++
//-*-===//
//
// The sm_90a GEMM's GPU test and benchmark need a context, a module with its
// JIT log, >48 KB dynamic shared memory, a launch, buffers, events and two
// tiled tensor maps. This header loads exactly those driver entry points with
// dlopen (no CUDA headers, so it builds where no toolkit is installed) and
// encodes the kernel's tensor maps through runtime/TensorMap (validated). It
// was written before runtime/ landed; the remaining calls map one to one
// onto runtime/Module, Launch, DeviceBuffer and Event.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TESTS_GPU_SM90DRIVERSHIM_H
#define TILEC_TESTS_GPU_SM90DRIVERSHIM_H

#include "codegen/Sm90Gemm.h"
#include "runtime/TensorMap.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace tilec {
namespace sm90shim {

using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUevent = void *;
using CUdeviceptr = unsigned long long;

/// 128-byte opaque tensor map, 64-byte aligned as the kernel parameter is.
struct alignas(64) TensorMap {
  uint64_t words[16];
};

/// The driver entry points, or an empty error() when all loaded.
/// cuda.h's CUlaunchAttribute and CUlaunchConfig, for cluster launches.
struct LaunchAttribute {
  int id; ///< 4: CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
  char pad[4];
  union {
    char raw[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
      sharedMemBytes;
  CUstream hStream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};

struct Driver {
  std::string failure;
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuLaunchKernelEx)(const LaunchConfig *, CUfunction, void **,
                               void **);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemsetD16)(CUdeviceptr, unsigned short, size_t);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuTensorMapEncodeTiled)(TensorMap *, int, unsigned, void *,
                                     const uint64_t *, const uint64_t *,
                                     const unsigned *, const unsigned *, int,
                                     int, int, int);
  CUcontext context = nullptr;
  CUdevice device = 0;

  template <typename F> bool load(void *lib, F &fn, const char *name) {
    fn = reinterpret_cast<F>(dlsym(lib, name));
    if (!fn)
      failure = std::string("missing driver symbol ") + name;
    return fn != nullptr;
  }

  /// Loads libcuda and makes device 0's primary context current; on any
  /// failure `failure` says why (the callers print SKIP with it).
  bool open() {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      failure = "libcuda.so.1 not loadable (no NVIDIA driver)";
      return false;
    }
    bool ok = load(lib, cuInit, "cuInit") &&
              load(lib, cuDeviceGet, "cuDeviceGet") &&
              load(lib, cuDeviceGetCount, "cuDeviceGetCount") &&
              load(lib, cuDeviceGetAttribute, "cuDeviceGetAttribute") &&
              load(lib, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
              load(lib, cuCtxSetCurrent, "cuCtxSetCurrent") &&
              load(lib, cuCtxSynchronize, "cuCtxSynchronize") &&
              load(lib, cuModuleLoadDataEx, "cuModuleLoadDataEx") &&
              load(lib, cuModuleGetFunction, "cuModuleGetFunction") &&
              load(lib, cuFuncSetAttribute, "cuFuncSetAttribute") &&
              load(lib, cuLaunchKernel, "cuLaunchKernel") &&
              load(lib, cuLaunchKernelEx, "cuLaunchKernelEx") &&
              load(lib, cuMemAlloc, "cuMemAlloc_v2") &&
              load(lib, cuMemFree, "cuMemFree_v2") &&
              load(lib, cuMemcpyHtoD, "cuMemcpyHtoD_v2") &&
              load(lib, cuMemcpyDtoH, "cuMemcpyDtoH_v2") &&
              load(lib, cuMemsetD16, "cuMemsetD16_v2") &&
              load(lib, cuEventCreate, "cuEventCreate") &&
              load(lib, cuEventRecord, "cuEventRecord") &&
              load(lib, cuEventSynchronize, "cuEventSynchronize") &&
              load(lib, cuEventElapsedTime, "cuEventElapsedTime_v2") &&
              load(lib, cuGetErrorName, "cuGetErrorName") &&
              load(lib, cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");
    if (!ok)
      return false;
    int count = 0;
    if (cuInit(0) != 0 || cuDeviceGetCount(&count) != 0 || count == 0) {
      failure = "no CUDA device";
      return false;
    }
    int major = 0;
    cuDeviceGet(&device, 0);
    cuDeviceGetAttribute(&major, 75 /*COMPUTE_CAPABILITY_MAJOR*/, device);
    if (major != 9) {
      failure = "device is not sm_90 (compute capability major " +
                std::to_string(major) + ")";
      return false;
    }
    if (!check(cuDevicePrimaryCtxRetain(&context, device), "ctx retain") ||
        !check(cuCtxSetCurrent(context), "ctx set"))
      return false;
    return true;
  }

  /// Records "what: CUDA_ERROR_..." in failure when \p rc is not success.
  bool check(CUresult rc, const char *what) {
    if (rc == 0)
      return true;
    const char *name = "?";
    if (cuGetErrorName)
      cuGetErrorName(rc, &name);
    failure = std::string(what) + ": " + name + " (" + std::to_string(rc) + ")";
    return false;
  }

  /// Loads \p ptx with the JIT error log captured into failure.
  bool loadFunction(const std::string &ptx, const std::string &entry,
                    unsigned sharedBytes, CUfunction &fn) {
    static char log[16384];
    log[0] = 0;
    int options[] = {5 /*ERROR_LOG_BUFFER*/, 6 /*ERROR_LOG_BUFFER_SIZE_BYTES*/};
    void *values[] = {log, reinterpret_cast<void *>(uintptr_t(sizeof log))};
    CUmodule module = nullptr;
    if (!check(cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values),
               "cuModuleLoadDataEx")) {
      failure += std::string("\nJIT log: ") + log;
      return false;
    }
    return check(cuModuleGetFunction(&fn, module, entry.c_str()),
                 "cuModuleGetFunction") &&
           check(cuFuncSetAttribute(fn, 8 /*MAX_DYNAMIC_SHARED_SIZE_BYTES*/,
                                    int(sharedBytes)),
                 "cuFuncSetAttribute");
  }

  /// A 2-D bf16 K-major tensor map over \p rows x \p k elements (row
  /// stride \p k), box 64 x boxRows, 128-byte swizzle, zero fill.
  bool encodeOperand(TensorMap &map, CUdeviceptr base, unsigned rows,
                     unsigned k, unsigned boxRows, unsigned bk,
                     unsigned swizzleBytes) {
    // The runtime's TensorMap validates every field (16-byte strides, box
    // limits, swizzle span) before it calls cuTensorMapEncodeTiled.
    auto swizzle = swizzleBytes == 128  ? rt::TensorMapSwizzleKind::B128
                   : swizzleBytes == 64 ? rt::TensorMapSwizzleKind::B64
                                        : rt::TensorMapSwizzleKind::B32;
    rt::TensorMapDesc desc = rt::TensorMapDesc::matrix2d(
        rt::TensorMapDTypeKind::BF16, base, rows, k, k, boxRows, bk, swizzle);
    desc.l2Promotion = rt::TensorMapL2PromotionKind::B256;
    desc.oobFill = rt::TensorMapOobFillKind::Zero;
    auto encoded = rt::encodeTensorMap(desc);
    if (!encoded) {
      failure = "tensor map " + rt::describeTensorMap(desc) + ": " +
                encoded.error().getMessage();
      return false;
    }
    static_assert(sizeof(TensorMap) == sizeof(rt::TensorMap));
    std::memcpy(&map, encoded->data(), sizeof map);
    return true;
  }
};

/// Everything one launch of the GEMM needs, built once per problem.
struct GemmLaunch {
  TensorMap mapA, mapB;
  CUdeviceptr c = 0;
  unsigned rowsA = 0, rowsB = 0, k = 0, ldc = 0;
  float alpha = 1, beta = 0;
  CUdeviceptr workspace = 0, counters = 0; ///< split-K only
  unsigned grid[3] = {1, 1, 1};
};

/// Prepares C = alpha * A(M x K) * B(N x K)^T + beta * C for \p kernel.
inline bool prepareGemm(Driver &driver, const Sm90GemmKernel &kernel,
                        GemmLaunch &launch, CUdeviceptr a, CUdeviceptr b,
                        CUdeviceptr c, unsigned m, unsigned n, unsigned k,
                        float alpha, float beta, unsigned splits = 1) {
  const Sm90GemmConfig &config = kernel.config;
  CUdeviceptr roleA = config.swapAB ? b : a, roleB = config.swapAB ? a : b;
  launch.rowsA = config.swapAB ? n : m;
  launch.rowsB = config.swapAB ? m : n;
  launch.k = k;
  launch.ldc = n;
  launch.c = c;
  launch.alpha = alpha;
  launch.beta = beta;
  int sms = 0;
  driver.cuDeviceGetAttribute(&sms, 16 /*MULTIPROCESSOR_COUNT*/,
                              driver.device);
  Sm90Grid grid =
      sm90LaunchGrid(config, launch.rowsA, launch.rowsB, splits, unsigned(sms));
  launch.grid[0] = grid.x;
  launch.grid[1] = grid.y;
  launch.grid[2] = grid.z;
  if (config.splitK) {
    uint64_t tiles = uint64_t(launch.grid[0]) * launch.grid[1];
    if (!driver.check(
            driver.cuMemAlloc(&launch.workspace,
                              sm90WorkspaceBytes(config, tiles, splits)),
            "alloc workspace") ||
        !driver.check(driver.cuMemAlloc(&launch.counters, tiles * 4),
                      "alloc counters") ||
        !driver.check(driver.cuMemsetD16(launch.counters, 0, tiles * 2),
                      "zero counters"))
      return false;
  }
  return driver.encodeOperand(launch.mapA, roleA, launch.rowsA, k, config.bm,
                              config.bk, kernel.a.swizzleBytes) &&
         driver.encodeOperand(launch.mapB, roleB, launch.rowsB, k,
                              kernel.b.boxRows, config.bk,
                              kernel.b.swizzleBytes);
}

inline bool launchGemm(Driver &driver, CUfunction fn,
                       const Sm90GemmKernel &kernel, GemmLaunch &launch) {
  void *args[] = {&launch.mapA,      &launch.mapB,    &launch.c,
                  &launch.rowsA,     &launch.rowsB,   &launch.k,
                  &launch.ldc,       &launch.alpha,   &launch.beta,
                  &launch.workspace, &launch.counters};
  if (kernel.clusterX > 1) {
    LaunchAttribute attribute = {};
    attribute.id = 4; // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    attribute.value.clusterDim.x = kernel.clusterX;
    attribute.value.clusterDim.y = 1;
    attribute.value.clusterDim.z = 1;
    LaunchConfig config = {};
    config.gridDimX = launch.grid[0];
    config.gridDimY = launch.grid[1];
    config.gridDimZ = launch.grid[2];
    config.blockDimX = kernel.blockThreads;
    config.blockDimY = config.blockDimZ = 1;
    config.sharedMemBytes = kernel.sharedBytes;
    config.attrs = &attribute;
    config.numAttrs = 1;
    return driver.check(driver.cuLaunchKernelEx(&config, fn, args, nullptr),
                        "cuLaunchKernelEx (cluster)");
  }
  return driver.check(driver.cuLaunchKernel(fn, launch.grid[0], launch.grid[1],
                                            launch.grid[2], kernel.blockThreads,
                                            1, 1, kernel.sharedBytes, nullptr,
                                            args, nullptr),
                      "cuLaunchKernel");
}

/// Frees what prepareGemm allocated.
inline void releaseGemm(Driver &driver, GemmLaunch &launch) {
  if (launch.workspace)
    driver.cuMemFree(launch.workspace);
  if (launch.counters)
    driver.cuMemFree(launch.counters);
  launch.workspace = launch.counters = 0;
}

/// bf16 <-> float on the host (round to nearest even), for inputs and the
/// reference; independent of the GPU's conversion.
inline uint16_t floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffff) > 0x7f800000)
    return 0x7fc0;
  uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
  return uint16_t((bits + rounding) >> 16);
}
inline float bf16ToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

} // namespace sm90shim
} // namespace tilec

#endif // TILEC_TESTS_GPU_SM90DRIVERSHIM_H
