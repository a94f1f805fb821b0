//===- runtime/DriverApi.cpp - dlopen libcuda and resolve entry points ----===//
//
// Opens the driver library, finds cuGetProcAddress (the _v2 form of CUDA 12+,
// else the CUDA 11 one) with dlsym, and asks it for every function of
// DriverFunctions.def at that row's ABI version. Then cuInit(0).
//
//===----------------------------------------------------------------------===//
#include "runtime/DriverApi.h"

#include "runtime/BackendState.h"
#include "runtime/SimDriver.h"

#include <fmt/format.h>

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace tilec::rt {

namespace {
using GetProcAddressV2 = CUresult (*)(const char *, void **, int, cuuint64_t,
                                      CUdriverProcAddressQueryResult *);
using GetProcAddressV1 = CUresult (*)(const char *, void **, int, cuuint64_t);

/// Resolves one symbol through whichever cuGetProcAddress the driver has.
struct ProcResolver {
  GetProcAddressV2 v2 = nullptr;
  GetProcAddressV1 v1 = nullptr;

  void *resolve(const char *name, int version) const {
    void *fn = nullptr;
    CUresult result;
    if (v2) {
      CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
      result = v2(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status);
      if (status != CU_GET_PROC_ADDRESS_SUCCESS)
        return nullptr;
    } else {
      result = v1(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT);
    }
    return result == CUDA_SUCCESS ? fn : nullptr;
  }
};
} // namespace

DriverApi::~DriverApi() {
  if (libraryHandle)
    dlclose(libraryHandle);
}

std::string driverLibraryPath() {
  if (const char *env = std::getenv("TILEC_CUDA_DRIVER"); env && *env)
    return env;
  return "libcuda.so.1";
}

Result<std::unique_ptr<DriverApi>>
loadDriverApi(const std::string &libraryPath) {
  auto api = std::make_unique<DriverApi>();
  api->libraryPath = libraryPath;
  dlerror();
  api->libraryHandle = dlopen(libraryPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!api->libraryHandle) {
    const char *why = dlerror();
    return Error(fmt::format("CUDA driver not found: dlopen({}) failed: {}",
                             libraryPath, why ? why : "unknown reason"));
  }
  ProcResolver resolver;
  resolver.v2 = reinterpret_cast<GetProcAddressV2>(
      dlsym(api->libraryHandle, "cuGetProcAddress_v2"));
  if (!resolver.v2)
    resolver.v1 = reinterpret_cast<GetProcAddressV1>(
        dlsym(api->libraryHandle, "cuGetProcAddress"));
  if (!resolver.v2 && !resolver.v1)
    return Error(fmt::format(
        "CUDA driver {} is too old: it has no cuGetProcAddress (CUDA 11.3+ "
        "is needed, 12.0+ for tensor maps)",
        libraryPath));

#define TILEC_DRIVER_FUNCTION(Member, cuName, Version, Required)               \
  api->Member = reinterpret_cast<PFN_##cuName##_v##Version>(                   \
      resolver.resolve(#cuName, Version));                                     \
  if (Required && !api->Member)                                                \
    return Error(fmt::format("CUDA driver {} lacks {} (ABI of CUDA {}.{})",    \
                             libraryPath, #cuName, Version / 1000,             \
                             Version % 1000 / 10));
#include "runtime/DriverFunctions.def"

  if (Status s = checkCuda(*api, api->init(0), "cuInit"); !s)
    return s.error();
  if (Status s = checkCuda(*api, api->driverGetVersion(&api->driverVersion),
                           "cuDriverGetVersion");
      !s)
    return s.error();
  return api;
}

Result<const DriverApi *> driverApi() {
  static std::once_flag once;
  // Never closed: objects destroyed at exit (a static Module, a buffer)
  // may still call into the driver.
  static DriverApi *loaded = nullptr;
  static std::optional<Error> failure;
  std::call_once(once, [] {
    BackendState &state = backendState();
    BackendKind kind;
    {
      std::lock_guard<std::mutex> lock(state.mutex);
      state.fixed = true;
      kind = state.kind;
    }
    Result<std::unique_ptr<DriverApi>> api =
        kind == BackendKind::Sim ? loadSimDriverApi()
                                 : loadDriverApi(driverLibraryPath());
    if (api)
      loaded = api.take().release();
    else
      failure = api.error();
  });
  if (failure)
    return *failure;
  return static_cast<const DriverApi *>(loaded);
}

std::string describeCudaResult(const DriverApi &api, CUresult result) {
  const char *name = nullptr;
  const char *text = nullptr;
  if (api.getErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = "CUDA_ERROR_UNKNOWN_CODE";
  if (api.getErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = "no description from the driver";
  return fmt::format("{} ({}): {}", name, static_cast<int>(result), text);
}

Status checkCuda(const DriverApi &api, CUresult result, std::string_view what) {
  if (result == CUDA_SUCCESS)
    return success();
  return Error(
      fmt::format("{} failed: {}", what, describeCudaResult(api, result)),
      static_cast<int>(result));
}

} // namespace tilec::rt
