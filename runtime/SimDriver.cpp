//===- runtime/SimDriver.cpp - The simulator behind the driver's table -----===//
//
// Each function has the signature of its CUDA Driver API counterpart (the
// PFN typedefs of <cudaTypedefs.h> check that), so DriverApi holds them as it
// holds the real driver's. Handles are pointers to the structs below.
//
//===----------------------------------------------------------------------===//
#include "runtime/SimDriver.h"

#include "runtime/sim/SimMemory.h"
#include "runtime/sim/TmaUnit.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace tilec::rt {

namespace {

using sim::GlobalMemory;

struct SimContext {
  int device = 0;
};

struct SimFunctionHandle;

struct SimModuleHandle {
  std::string ptx;
  std::unique_ptr<sim::SimModule> module;
  std::map<std::string, std::unique_ptr<SimFunctionHandle>> functions;
  /// Merged per-line profile of this module's profiled launches.
  std::map<unsigned, sim::SimLineProfile> profile;
};

struct SimFunctionHandle {
  SimModuleHandle *owner = nullptr;
  const sim::SimFunction *function = nullptr;
  int maxDynamicSharedBytes = 48 * 1024;
};

/// One recorded launch: the function, its dimensions, a copy of every
/// parameter's bytes.
struct RecordedLaunch {
  SimFunctionHandle *function = nullptr;
  sim::SimLaunchConfig config;
  std::vector<std::vector<std::uint8_t>> params;
};

struct SimStream {
  bool capturing = false;
  std::vector<RecordedLaunch> captured;
};

struct SimGraph {
  std::vector<RecordedLaunch> launches;
};

struct SimEvent {
  std::chrono::steady_clock::time_point when{};
  bool recorded = false;
};

/// Process-wide state of the simulated device.
struct SimState {
  std::mutex mutex;
  SimContext context;
  SimStream defaultStream;
  std::uint64_t seed = 0;
  bool profiling = false;
  SimCounters counters;
  std::vector<SimModuleHandle *> profiledModules;
  /// Profiles of modules unloaded before takeSimProfile().
  std::vector<SimModuleProfile> unloadedProfiles;
};

SimState &state() {
  static SimState *s = [] {
    auto *st = new SimState;
    if (const char *env = std::getenv("TILEC_SIM_SEED"); env && *env)
      st->seed = std::strtoull(env, nullptr, 0);
    return st;
  }();
  return *s;
}

/// The last error's text on this thread, for cuGetErrorString.
thread_local std::string lastErrorText;
thread_local CUresult lastErrorCode = CUDA_SUCCESS;

CUresult fail(CUresult code, std::string text) {
  lastErrorCode = code;
  lastErrorText = std::move(text);
  return code;
}

int envInt(const char *name, int fallback) {
  if (const char *env = std::getenv(name); env && *env)
    return std::atoi(env);
  return fallback;
}

int simComputeCapability() { return envInt("TILEC_SIM_CC", 90); }

// --- errors, init, version --------------------------------------------------

CUresult simGetErrorName(CUresult error, const char **str) {
  switch (error) {
  case CUDA_SUCCESS:
    *str = "CUDA_SUCCESS";
    break;
  case CUDA_ERROR_INVALID_VALUE:
    *str = "CUDA_ERROR_INVALID_VALUE";
    break;
  case CUDA_ERROR_OUT_OF_MEMORY:
    *str = "CUDA_ERROR_OUT_OF_MEMORY";
    break;
  case CUDA_ERROR_INVALID_PTX:
    *str = "CUDA_ERROR_INVALID_PTX";
    break;
  case CUDA_ERROR_NOT_FOUND:
    *str = "CUDA_ERROR_NOT_FOUND";
    break;
  case CUDA_ERROR_LAUNCH_FAILED:
    *str = "CUDA_ERROR_LAUNCH_FAILED";
    break;
  case CUDA_ERROR_NOT_SUPPORTED:
    *str = "CUDA_ERROR_NOT_SUPPORTED";
    break;
  case CUDA_ERROR_INVALID_HANDLE:
    *str = "CUDA_ERROR_INVALID_HANDLE";
    break;
  default:
    *str = "CUDA_ERROR_UNKNOWN";
    break;
  }
  return CUDA_SUCCESS;
}

CUresult simGetErrorString(CUresult error, const char **str) {
  if (error == lastErrorCode && !lastErrorText.empty()) {
    *str = lastErrorText.c_str();
    return CUDA_SUCCESS;
  }
  return simGetErrorName(error, str);
}

CUresult simInit(unsigned) { return CUDA_SUCCESS; }
CUresult simDriverGetVersion(int *version) {
  *version = 13000;
  return CUDA_SUCCESS;
}

// --- device and context -----------------------------------------------------

CUresult simDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal != 0)
    return fail(CUDA_ERROR_INVALID_VALUE,
                fmt::format("the simulator has one device (0), not {}",
                            ordinal));
  *device = 0;
  return CUDA_SUCCESS;
}
CUresult simDeviceGetCount(int *count) {
  *count = 1;
  return CUDA_SUCCESS;
}
CUresult simDeviceGetName(char *name, int len, CUdevice) {
  std::string text = fmt::format("tilec PTX simulator (reports sm_{})",
                                 simComputeCapability());
  std::snprintf(name, static_cast<std::size_t>(len), "%s", text.c_str());
  return CUDA_SUCCESS;
}
CUresult simDeviceGetAttribute(int *value, CUdevice_attribute attribute,
                               CUdevice) {
  int cc = simComputeCapability();
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = cc / 10;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = cc % 10;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = envInt("TILEC_SIM_SMS", 16);
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *value = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
    *value = 48 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *value = cc >= 90 ? 232448 : 166912;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
    *value = cc >= 90 ? 233472 : 167936;
    break;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
    *value = 50 * 1024 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
    *value = 1000000;
    break;
  default:
    *value = 0;
    break;
  }
  return CUDA_SUCCESS;
}
CUresult simDeviceTotalMem(std::size_t *bytes, CUdevice) {
  *bytes = std::size_t(16) << 30;
  return CUDA_SUCCESS;
}
CUresult simDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice) {
  *ctx = reinterpret_cast<CUcontext>(&state().context);
  return CUDA_SUCCESS;
}
CUresult simDevicePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }
CUresult simCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult simCtxGetCurrent(CUcontext *ctx) {
  *ctx = reinterpret_cast<CUcontext>(&state().context);
  return CUDA_SUCCESS;
}
CUresult simCtxGetDevice(CUdevice *device) {
  *device = 0;
  return CUDA_SUCCESS;
}
/// Launches run to completion before they return, so there is never
/// anything to wait for.
CUresult simCtxSynchronize() { return CUDA_SUCCESS; }

// --- modules and functions --------------------------------------------------

CUresult simModuleLoadDataEx(CUmodule *module, const void *image,
                             unsigned numOptions, CUjit_option *options,
                             void **values) {
  auto handle = std::make_unique<SimModuleHandle>();
  handle->ptx = static_cast<const char *>(image);
  std::string error;
  handle->module = sim::SimModule::load(handle->ptx, error);
  // Report into the caller's JIT log buffers, as the driver does.
  char *errorLog = nullptr;
  std::size_t errorLogBytes = 0;
  for (unsigned i = 0; i < numOptions; ++i) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
      errorLog = static_cast<char *>(values[i]);
    else if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      errorLogBytes = reinterpret_cast<std::uintptr_t>(values[i]);
  }
  for (unsigned i = 0; i < numOptions; ++i) {
    if (options[i] == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES)
      values[i] = nullptr;
    else if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      values[i] = reinterpret_cast<void *>(
          handle->module ? 0 : std::min(error.size() + 1, errorLogBytes));
  }
  if (!handle->module) {
    if (errorLog && errorLogBytes)
      std::snprintf(errorLog, errorLogBytes, "%s", error.c_str());
    return fail(CUDA_ERROR_INVALID_PTX,
                "the simulator cannot execute this PTX: " + error);
  }
  *module = reinterpret_cast<CUmodule>(handle.release());
  return CUDA_SUCCESS;
}

CUresult simModuleUnload(CUmodule module) {
  auto *handle = reinterpret_cast<SimModuleHandle *>(module);
  SimState &s = state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (std::erase(s.profiledModules, handle) && !handle->profile.empty()) {
      SimModuleProfile kept;
      kept.ptx = handle->ptx;
      for (auto &[line, counts] : handle->profile)
        kept.lines.push_back(counts);
      s.unloadedProfiles.push_back(std::move(kept));
    }
  }
  delete handle;
  return CUDA_SUCCESS;
}

CUresult simModuleGetFunction(CUfunction *function, CUmodule module,
                              const char *name) {
  auto *handle = reinterpret_cast<SimModuleHandle *>(module);
  auto it = handle->functions.find(name);
  if (it == handle->functions.end()) {
    const sim::SimFunction *fn = handle->module->function(name);
    if (!fn)
      return fail(CUDA_ERROR_NOT_FOUND,
                  fmt::format("the module has no kernel named '{}'", name));
    auto entry = std::make_unique<SimFunctionHandle>();
    entry->owner = handle;
    entry->function = fn;
    it = handle->functions.emplace(name, std::move(entry)).first;
  }
  *function = reinterpret_cast<CUfunction>(it->second.get());
  return CUDA_SUCCESS;
}

CUresult simModuleGetGlobal(CUdeviceptr *address, std::size_t *bytes,
                            CUmodule module, const char *name) {
  auto *handle = reinterpret_cast<SimModuleHandle *>(module);
  auto global = handle->module->global(name);
  if (!global)
    return fail(CUDA_ERROR_NOT_FOUND,
                fmt::format("the module has no global variable '{}'", name));
  if (address)
    *address = global->first;
  if (bytes)
    *bytes = global->second;
  return CUDA_SUCCESS;
}

CUresult simFuncGetAttribute(int *value, CUfunction_attribute attribute,
                             CUfunction function) {
  auto *fn = reinterpret_cast<SimFunctionHandle *>(function);
  switch (attribute) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *value = static_cast<int>(fn->function->maxThreadsPerBlock());
    break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    *value = static_cast<int>(fn->function->staticSharedBytes());
    break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *value = static_cast<int>(fn->function->registersPerThread());
    break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *value = fn->maxDynamicSharedBytes;
    break;
  default:
    *value = 0;
    break;
  }
  return CUDA_SUCCESS;
}

CUresult simFuncSetAttribute(CUfunction function,
                             CUfunction_attribute attribute, int value) {
  auto *fn = reinterpret_cast<SimFunctionHandle *>(function);
  if (attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
    fn->maxDynamicSharedBytes = value;
  return CUDA_SUCCESS;
}

CUresult simFuncGetParamInfo(CUfunction function, std::size_t index,
                             std::size_t *offset, std::size_t *size) {
  auto *fn = reinterpret_cast<SimFunctionHandle *>(function);
  const auto &params = fn->function->params();
  if (index >= params.size())
    return CUDA_ERROR_INVALID_VALUE; // How the driver ends the count.
  *offset = params[index].offset;
  *size = params[index].size;
  return CUDA_SUCCESS;
}

// --- launches -----------------------------------------------------------------

/// Runs one launch now; a fault becomes the launch's error.
CUresult execute(SimFunctionHandle *fn, const sim::SimLaunchConfig &config,
                 void **params) {
  SimState &s = state();
  sim::SimOptions options;
  options.hostThreads = static_cast<unsigned>(envInt("TILEC_SIM_THREADS", 0));
  bool profiling;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    options.seed = s.seed;
    profiling = options.profile = s.profiling;
  }
  std::size_t shared = config.dynamicSharedBytes;
  if (shared > static_cast<std::size_t>(fn->maxDynamicSharedBytes))
    return fail(CUDA_ERROR_INVALID_VALUE,
                fmt::format("{} bytes of dynamic shared memory exceed the "
                            "kernel's maximum of {} (cuFuncSetAttribute)",
                            shared, fn->maxDynamicSharedBytes));
  sim::SimLaunchResult result =
      sim::simLaunch(*fn->function, config, params, options);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.counters.launches += 1;
  s.counters.warpInstructions += result.warpInstructions;
  if (profiling) {
    for (const sim::SimLineProfile &line : result.profile) {
      sim::SimLineProfile &sum = fn->owner->profile[line.ptxLine];
      sum.ptxLine = line.ptxLine;
      sum.executions += line.executions;
      sum.sharedAccesses += line.sharedAccesses;
      sum.sharedWavefronts += line.sharedWavefronts;
      sum.idealWavefronts += line.idealWavefronts;
    }
    if (std::find(s.profiledModules.begin(), s.profiledModules.end(),
                  fn->owner) == s.profiledModules.end())
      s.profiledModules.push_back(fn->owner);
  }
  if (result.error) {
    // The launch itself reports the fault (the simulator runs it to
    // completion before returning), so no later synchronize repeats it.
    std::string text = fmt::format("the simulator stopped kernel '{}': {}",
                                   fn->function->name(), *result.error);
    return fail(CUDA_ERROR_LAUNCH_FAILED, std::move(text));
  }
  return CUDA_SUCCESS;
}

/// Records or runs a launch on \p stream.
CUresult enqueue(SimFunctionHandle *fn, const sim::SimLaunchConfig &config,
                 void **params, CUstream stream) {
  SimStream *st = stream ? reinterpret_cast<SimStream *>(stream)
                         : &state().defaultStream;
  if (!st->capturing)
    return execute(fn, config, params);
  RecordedLaunch launch;
  launch.function = fn;
  launch.config = config;
  for (std::size_t i = 0; i < fn->function->params().size(); ++i) {
    const auto *bytes = static_cast<const std::uint8_t *>(params[i]);
    launch.params.emplace_back(bytes, bytes + fn->function->params()[i].size);
  }
  st->captured.push_back(std::move(launch));
  return CUDA_SUCCESS;
}

CUresult simLaunchKernel(CUfunction function, unsigned gx, unsigned gy,
                         unsigned gz, unsigned bx, unsigned by, unsigned bz,
                         unsigned sharedBytes, CUstream stream, void **params,
                         void **extra) {
  if (extra)
    return fail(CUDA_ERROR_NOT_SUPPORTED,
                "the simulator takes kernel parameters as kernelParams, not "
                "as `extra`");
  sim::SimLaunchConfig config;
  config.grid[0] = gx, config.grid[1] = gy, config.grid[2] = gz;
  config.block[0] = bx, config.block[1] = by, config.block[2] = bz;
  config.dynamicSharedBytes = sharedBytes;
  return enqueue(reinterpret_cast<SimFunctionHandle *>(function), config,
                 params, stream);
}

CUresult simLaunchKernelEx(const CUlaunchConfig *launch, CUfunction function,
                           void **params, void **extra) {
  if (extra)
    return fail(CUDA_ERROR_NOT_SUPPORTED,
                "the simulator takes kernel parameters as kernelParams, not "
                "as `extra`");
  sim::SimLaunchConfig config;
  config.grid[0] = launch->gridDimX, config.grid[1] = launch->gridDimY;
  config.grid[2] = launch->gridDimZ;
  config.block[0] = launch->blockDimX, config.block[1] = launch->blockDimY;
  config.block[2] = launch->blockDimZ;
  config.dynamicSharedBytes = launch->sharedMemBytes;
  for (unsigned i = 0; i < launch->numAttrs; ++i) {
    const CUlaunchAttribute &a = launch->attrs[i];
    if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      config.cluster[0] = a.value.clusterDim.x;
      config.cluster[1] = a.value.clusterDim.y;
      config.cluster[2] = a.value.clusterDim.z;
    } else if (a.id != CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION) {
      return fail(CUDA_ERROR_NOT_SUPPORTED,
                  fmt::format("the simulator does not model launch attribute "
                              "{}",
                              static_cast<int>(a.id)));
    }
  }
  for (int d = 0; d < 3; ++d)
    if (config.cluster[d] == 0 || config.grid[d] % config.cluster[d] != 0)
      return fail(CUDA_ERROR_INVALID_VALUE,
                  fmt::format("grid extent {} is not a multiple of the "
                              "cluster extent {} (dimension {})",
                              config.grid[d], config.cluster[d], d));
  return enqueue(reinterpret_cast<SimFunctionHandle *>(function), config,
                 params, launch->hStream);
}

// --- memory -------------------------------------------------------------------

CUresult simMemAlloc(CUdeviceptr *ptr, std::size_t bytes) {
  std::uint64_t address = GlobalMemory::instance().allocate(bytes);
  if (!address)
    return fail(CUDA_ERROR_OUT_OF_MEMORY,
                fmt::format("host allocation of {} bytes failed", bytes));
  *ptr = address;
  return CUDA_SUCCESS;
}
CUresult simMemFree(CUdeviceptr ptr) {
  if (!GlobalMemory::instance().free(ptr))
    return fail(CUDA_ERROR_INVALID_VALUE,
                fmt::format("0x{:x} is not a live allocation", ptr));
  return CUDA_SUCCESS;
}
CUresult simMemGetInfo(std::size_t *free, std::size_t *total) {
  *free = *total = std::size_t(16) << 30;
  return CUDA_SUCCESS;
}
CUresult checkRange(CUdeviceptr ptr, std::size_t bytes, const char *what) {
  if (bytes == 0 || GlobalMemory::instance().contains(ptr, bytes))
    return CUDA_SUCCESS;
  return fail(CUDA_ERROR_INVALID_VALUE,
              fmt::format("{} of {} bytes at 0x{:x} is outside every "
                          "allocation",
                          what, bytes, ptr));
}
CUresult simMemcpyHtoD(CUdeviceptr dst, const void *src, std::size_t bytes) {
  if (CUresult r = checkRange(dst, bytes, "cuMemcpyHtoD"); r)
    return r;
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}
CUresult simMemcpyDtoH(void *dst, CUdeviceptr src, std::size_t bytes) {
  if (CUresult r = checkRange(src, bytes, "cuMemcpyDtoH"); r)
    return r;
  std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}
CUresult simMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes) {
  if (CUresult r = checkRange(src, bytes, "cuMemcpyDtoD source"); r)
    return r;
  if (CUresult r = checkRange(dst, bytes, "cuMemcpyDtoD destination"); r)
    return r;
  std::memmove(reinterpret_cast<void *>(dst),
               reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}
CUresult simMemsetD8(CUdeviceptr dst, unsigned char value, std::size_t n) {
  if (CUresult r = checkRange(dst, n, "cuMemsetD8"); r)
    return r;
  std::memset(reinterpret_cast<void *>(dst), value, n);
  return CUDA_SUCCESS;
}
CUresult simMemsetD32(CUdeviceptr dst, unsigned value, std::size_t n) {
  if (CUresult r = checkRange(dst, n * 4, "cuMemsetD32"); r)
    return r;
  auto *words = reinterpret_cast<std::uint32_t *>(dst);
  std::fill(words, words + n, value);
  return CUDA_SUCCESS;
}

// --- streams, graphs, events ------------------------------------------------

CUresult simStreamCreate(CUstream *stream, unsigned) {
  *stream = reinterpret_cast<CUstream>(new SimStream);
  return CUDA_SUCCESS;
}
CUresult simStreamDestroy(CUstream stream) {
  delete reinterpret_cast<SimStream *>(stream);
  return CUDA_SUCCESS;
}
CUresult simStreamSynchronize(CUstream) { return CUDA_SUCCESS; }
CUresult simStreamBeginCapture(CUstream stream, CUstreamCaptureMode) {
  if (!stream)
    return fail(CUDA_ERROR_INVALID_VALUE,
                "the default stream cannot be captured");
  auto *st = reinterpret_cast<SimStream *>(stream);
  st->capturing = true;
  st->captured.clear();
  return CUDA_SUCCESS;
}
CUresult simStreamEndCapture(CUstream stream, CUgraph *graph) {
  auto *st = reinterpret_cast<SimStream *>(stream);
  if (!st->capturing)
    return fail(CUDA_ERROR_INVALID_VALUE, "the stream is not capturing");
  st->capturing = false;
  auto *g = new SimGraph;
  g->launches = std::move(st->captured);
  st->captured.clear();
  *graph = reinterpret_cast<CUgraph>(g);
  return CUDA_SUCCESS;
}
CUresult simGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph,
                                      unsigned long long) {
  auto *g = new SimGraph(*reinterpret_cast<SimGraph *>(graph));
  *exec = reinterpret_cast<CUgraphExec>(g);
  return CUDA_SUCCESS;
}
CUresult simGraphLaunch(CUgraphExec exec, CUstream) {
  auto *g = reinterpret_cast<SimGraph *>(exec);
  for (RecordedLaunch &launch : g->launches) {
    std::vector<void *> params;
    for (auto &bytes : launch.params)
      params.push_back(bytes.data());
    if (CUresult r = execute(launch.function, launch.config, params.data()))
      return r;
  }
  return CUDA_SUCCESS;
}
CUresult simGraphExecDestroy(CUgraphExec exec) {
  delete reinterpret_cast<SimGraph *>(exec);
  return CUDA_SUCCESS;
}
CUresult simGraphDestroy(CUgraph graph) {
  delete reinterpret_cast<SimGraph *>(graph);
  return CUDA_SUCCESS;
}
CUresult simEventCreate(CUevent *event, unsigned) {
  *event = reinterpret_cast<CUevent>(new SimEvent);
  return CUDA_SUCCESS;
}
CUresult simEventDestroy(CUevent event) {
  delete reinterpret_cast<SimEvent *>(event);
  return CUDA_SUCCESS;
}
CUresult simEventRecord(CUevent event, CUstream) {
  auto *e = reinterpret_cast<SimEvent *>(event);
  e->when = std::chrono::steady_clock::now();
  e->recorded = true;
  return CUDA_SUCCESS;
}
CUresult simEventSynchronize(CUevent) { return CUDA_SUCCESS; }
CUresult simEventElapsedTime(float *ms, CUevent start, CUevent end) {
  auto *a = reinterpret_cast<SimEvent *>(start);
  auto *b = reinterpret_cast<SimEvent *>(end);
  if (!a->recorded || !b->recorded)
    return fail(CUDA_ERROR_INVALID_HANDLE, "an event was never recorded");
  *ms = std::chrono::duration<float, std::milli>(b->when - a->when).count();
  return CUDA_SUCCESS;
}

// --- tensor maps --------------------------------------------------------------

CUresult simTensorMapEncodeTiled(
    CUtensorMap *map, CUtensorMapDataType dtype, cuuint32_t rank,
    void *address, const cuuint64_t *dims, const cuuint64_t *strides,
    const cuuint32_t *box, const cuuint32_t *elementStrides,
    CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
    CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oobFill) {
  std::optional<std::string> error = sim::encodeSimTensorMap(
      map, dtype, rank, address, dims, strides, box, elementStrides,
      interleave, swizzle, l2, oobFill);
  if (error)
    return fail(CUDA_ERROR_INVALID_VALUE, "cuTensorMapEncodeTiled: " + *error);
  return CUDA_SUCCESS;
}

} // namespace

Result<std::unique_ptr<DriverApi>> loadSimDriverApi() {
  auto api = std::make_unique<DriverApi>();
  api->libraryPath = "tilec PTX simulator";
  api->driverVersion = 13000;
  api->getErrorName = simGetErrorName;
  api->getErrorString = simGetErrorString;
  api->init = simInit;
  api->driverGetVersion = simDriverGetVersion;
  api->deviceGet = simDeviceGet;
  api->deviceGetCount = simDeviceGetCount;
  api->deviceGetName = simDeviceGetName;
  api->deviceGetAttribute = simDeviceGetAttribute;
  api->deviceTotalMem = simDeviceTotalMem;
  api->devicePrimaryCtxRetain = simDevicePrimaryCtxRetain;
  api->devicePrimaryCtxRelease = simDevicePrimaryCtxRelease;
  api->ctxSetCurrent = simCtxSetCurrent;
  api->ctxGetCurrent = simCtxGetCurrent;
  api->ctxGetDevice = simCtxGetDevice;
  api->ctxSynchronize = simCtxSynchronize;
  api->moduleLoadDataEx = simModuleLoadDataEx;
  api->moduleUnload = simModuleUnload;
  api->moduleGetFunction = simModuleGetFunction;
  api->moduleGetGlobal = simModuleGetGlobal;
  api->funcGetAttribute = simFuncGetAttribute;
  api->funcSetAttribute = simFuncSetAttribute;
  api->funcGetParamInfo = simFuncGetParamInfo;
  api->launchKernel = simLaunchKernel;
  api->launchKernelEx = simLaunchKernelEx;
  api->memAlloc = simMemAlloc;
  api->memFree = simMemFree;
  api->memGetInfo = simMemGetInfo;
  api->memcpyHtoD = simMemcpyHtoD;
  api->memcpyDtoH = simMemcpyDtoH;
  api->memcpyDtoD = simMemcpyDtoD;
  api->memsetD8 = simMemsetD8;
  api->memsetD32 = simMemsetD32;
  api->streamCreate = simStreamCreate;
  api->streamDestroy = simStreamDestroy;
  api->streamSynchronize = simStreamSynchronize;
  api->streamBeginCapture = simStreamBeginCapture;
  api->streamEndCapture = simStreamEndCapture;
  api->graphInstantiateWithFlags = simGraphInstantiateWithFlags;
  api->graphLaunch = simGraphLaunch;
  api->graphExecDestroy = simGraphExecDestroy;
  api->graphDestroy = simGraphDestroy;
  api->eventCreate = simEventCreate;
  api->eventDestroy = simEventDestroy;
  api->eventRecord = simEventRecord;
  api->eventSynchronize = simEventSynchronize;
  api->eventElapsedTime = simEventElapsedTime;
  api->tensorMapEncodeTiled = simTensorMapEncodeTiled;
  return api;
}

SimCounters takeSimCounters() {
  SimState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return std::exchange(s.counters, SimCounters{});
}

void setSimSeed(std::uint64_t seed) {
  SimState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.seed = seed;
}

void setSimProfiling(bool on) {
  SimState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.profiling = on;
}

std::vector<SimModuleProfile> takeSimProfile() {
  SimState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::vector<SimModuleProfile> out = std::move(s.unloadedProfiles);
  s.unloadedProfiles.clear();
  for (SimModuleHandle *module : s.profiledModules) {
    SimModuleProfile p;
    p.ptx = module->ptx;
    for (auto &[line, counts] : module->profile)
      p.lines.push_back(counts);
    module->profile.clear();
    out.push_back(std::move(p));
  }
  s.profiledModules.clear();
  return out;
}

} // namespace tilec::rt
