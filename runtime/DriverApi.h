//===- runtime/DriverApi.h - The CUDA driver, loaded at run time -*- C++
//-*-===//
//
// tilec links no CUDA library: the driver (libcuda.so.1) is opened with
// dlopen the first time the runtime needs it, and its entry points are
// resolved through cuGetProcAddress at the ABI versions listed in
// DriverFunctions.def. So the compiler and every CPU test build and run on
// machines with no GPU and no driver; there the runtime returns
// "CUDA driver not found: dlopen(libcuda.so.1) failed: ..." as an Error.
// $TILEC_CUDA_DRIVER names another library file (tests use it to force the
// no-driver path). <cuda.h> from the toolkit supplies types and enum values
// only.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_DRIVERAPI_H
#define TILEC_RUNTIME_DRIVERAPI_H

#include "runtime/Status.h"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <memory>
#include <string>
#include <string_view>

namespace tilec::rt {

/// The driver's entry points, one field per row of DriverFunctions.def.
/// Optional fields (cuLaunchKernelEx, cuTensorMapEncodeTiled) may be null on
/// old drivers.
struct DriverApi {
#define TILEC_DRIVER_FUNCTION(Member, cuName, Version, Required)               \
  PFN_##cuName##_v##Version Member = nullptr;
#include "runtime/DriverFunctions.def"

  /// The library file that was opened.
  std::string libraryPath;
  /// cuDriverGetVersion: 13000 for CUDA 13.0.
  int driverVersion = 0;
  /// The dlopen handle; closed when the table is destroyed.
  void *libraryHandle = nullptr;

  DriverApi() = default;
  DriverApi(const DriverApi &) = delete;
  DriverApi &operator=(const DriverApi &) = delete;
  ~DriverApi();
};

/// The library the runtime opens: $TILEC_CUDA_DRIVER if set and not empty,
/// else "libcuda.so.1".
std::string driverLibraryPath();

/// Opens \p libraryPath, resolves every function and calls cuInit(0). Not
/// cached: each call opens the library again (tests use this directly).
Result<std::unique_ptr<DriverApi>>
loadDriverApi(const std::string &libraryPath);

/// The process-wide driver, loaded once from driverLibraryPath() on the
/// first call (thread-safe); later calls return the same table or the same
/// error. The library stays open until the process exits.
Result<const DriverApi *> driverApi();

/// "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory" for \p result, through
/// cuGetErrorName/cuGetErrorString of \p api.
std::string describeCudaResult(const DriverApi &api, CUresult result);

/// Success for CUDA_SUCCESS; otherwise an Error "\p what failed:
/// CUDA_ERROR_...: text" carrying \p result.
Status checkCuda(const DriverApi &api, CUresult result, std::string_view what);

} // namespace tilec::rt

#endif // TILEC_RUNTIME_DRIVERAPI_H
