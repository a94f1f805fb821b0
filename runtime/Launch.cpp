//===- runtime/Launch.cpp - Kernel launches
//--------------------------------===//
//
// Checks the configuration against the hardware limits and the kernel's own
// attributes, raises the dynamic shared-memory limit when a launch needs more
// than the default 48 KB, and launches with cuLaunchKernel, or with
// cuLaunchKernelEx and a cluster-dimension attribute for cluster launches.
//
//===----------------------------------------------------------------------===//
#include "runtime/Launch.h"

#include "runtime/DriverApi.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

namespace tilec::rt {

namespace {
/// The default dynamic shared memory limit of every kernel.
constexpr std::size_t DefaultDynamicSharedBytes = 48 * 1024;
/// The largest cluster every sm_90 GPU supports.
constexpr unsigned PortableClusterBlocks = 8;

std::string str(const Dim3 &d) {
  return fmt::format("({}, {}, {})", d.x, d.y, d.z);
}

Status checkShape(const LaunchConfig &config) {
  const Dim3 &g = config.grid, &b = config.block, &c = config.cluster;
  if (!g.x || !g.y || !g.z)
    return Error(fmt::format("grid {} has a zero extent", str(g)));
  if (!b.x || !b.y || !b.z)
    return Error(fmt::format("block {} has a zero extent", str(b)));
  if (!c.x || !c.y || !c.z)
    return Error(fmt::format("cluster {} has a zero extent (use (1, 1, 1) "
                             "for no clusters)",
                             str(c)));
  if (g.x > 0x7fffffffu || g.y > 65535 || g.z > 65535)
    return Error(fmt::format("grid {} exceeds the limits (2^31-1, 65535, "
                             "65535)",
                             str(g)));
  if (b.x > 1024 || b.y > 1024 || b.z > 64)
    return Error(
        fmt::format("block {} exceeds the limits (1024, 1024, 64)", str(b)));
  if (g.x % c.x || g.y % c.y || g.z % c.z)
    return Error(fmt::format("grid {} is not a multiple of cluster {} in "
                             "every dimension",
                             str(g), str(c)));
  unsigned clusterBlocks = c.x * c.y * c.z;
  if (clusterBlocks > PortableClusterBlocks)
    return Error(fmt::format("cluster {} has {} blocks; at most {} are "
                             "supported (the portable cluster size)",
                             str(c), clusterBlocks, PortableClusterBlocks));
  return success();
}

/// Compares the parameters given with the kernel's, as far as the driver can
/// tell (cuFuncGetParamInfo); a mismatch would otherwise read garbage.
Status checkParameters(const DriverApi &api, const Function &fn,
                       const KernelArgs &args) {
  if (!api.funcGetParamInfo)
    return success();
  // No parameter count query in CUDA 12: a kernel loaded from PTX knows
  // its count (Function::parameterCount), and the driver is asked about
  // exactly those; otherwise probe until the index fails (an error the
  // driver reports, which compute-sanitizer's memcheck then lists).
  constexpr std::size_t MaxParameters = 4096;
  std::size_t probe = fn.parameterCount().value_or(MaxParameters);
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < probe; ++i) {
    size_t offset = 0, size = 0;
    if (api.funcGetParamInfo(fn.handle(), i, &offset, &size) != CUDA_SUCCESS)
      break;
    sizes.push_back(size);
  }
  auto list = [](const std::vector<std::size_t> &values) {
    return fmt::format("[{}]", fmt::join(values, ", "));
  };
  std::vector<std::size_t> given;
  for (std::size_t i = 0; i < args.size(); ++i)
    given.push_back(args.sizeOf(i));
  if (sizes.size() != given.size())
    return Error(fmt::format("the kernel takes {} parameter{} of {} bytes but "
                             "{} of {} bytes were given",
                             sizes.size(), sizes.size() == 1 ? "" : "s",
                             list(sizes), given.size(), list(given)));
  for (std::size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] != given[i])
      return Error(fmt::format("parameter {} of the kernel is {} bytes but "
                               "the value given is {} bytes (kernel {}, "
                               "given {})",
                               i, sizes[i], given[i], list(sizes),
                               list(given)));
  return success();
}
} // namespace

std::string describe(const Function &fn, const LaunchConfig &config) {
  return fmt::format("launching '{}' with grid {} block {}", fn.getName(),
                     str(config.grid), str(config.block));
}

Status checkLaunch(const Function &fn, const LaunchConfig &config,
                   const KernelArgs &args) {
  std::string what = describe(fn, config);
  if (Status s = checkShape(config); !s)
    return s.error().withContext(what);
  if (!fn.handle())
    return Error(what + ": the function is null (look it up with "
                        "Module::function first)");
  Result<const DriverApi *> apiOrError = driverApi();
  if (!apiOrError)
    return apiOrError.error();
  const DriverApi &api = **apiOrError;

  Result<int> maxThreads =
      fn.attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  if (!maxThreads)
    return maxThreads.error().withContext(what);
  unsigned threads = config.block.x * config.block.y * config.block.z;
  if (threads > static_cast<unsigned>(*maxThreads))
    return Error(fmt::format("{}: block of {} threads exceeds the kernel's "
                             "limit of {} (its register use or "
                             ".maxntid bounds it)",
                             what, threads, *maxThreads));

  if (Status s = checkParameters(api, fn, args); !s)
    return s.error().withContext(what);

  if (config.dynamicSharedBytes > DefaultDynamicSharedBytes) {
    CUdevice device = 0;
    if (Status s = checkCuda(api, api.ctxGetDevice(&device), "cuCtxGetDevice");
        !s)
      return s.error().withContext(what);
    int optin = 0;
    if (Status s = checkCuda(
            api,
            api.deviceGetAttribute(
                &optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                device),
            "cuDeviceGetAttribute(max shared memory per block, opt-in)");
        !s)
      return s.error().withContext(what);
    Result<int> staticBytes = fn.staticSharedBytes();
    if (!staticBytes)
      return staticBytes.error().withContext(what);
    if (config.dynamicSharedBytes + *staticBytes >
        static_cast<std::size_t>(optin))
      return Error(fmt::format(
          "{}: {} bytes of dynamic shared memory plus {} static exceed the "
          "device's opt-in limit of {} bytes per block (at most {} dynamic)",
          what, config.dynamicSharedBytes, *staticBytes, optin,
          optin - std::min(optin, *staticBytes)));
    if (Status s = fn.setMaxDynamicSharedBytes(config.dynamicSharedBytes); !s)
      return s.error().withContext(what);
  }
  if ((config.cluster.x * config.cluster.y * config.cluster.z != 1 ||
       config.programmaticSerialization) &&
      !api.launchKernelEx)
    return Error(fmt::format("{}: cluster and programmatic dependent launches "
                             "need cuLaunchKernelEx (CUDA 11.8+ driver); {} "
                             "lacks it",
                             what, api.libraryPath));
  return success();
}

Status launchChecked(const Function &fn, const LaunchConfig &config,
                     const KernelArgs &args) {
  Result<const DriverApi *> apiOrError = driverApi();
  if (!apiOrError)
    return apiOrError.error();
  const DriverApi &api = **apiOrError;
  const Dim3 &g = config.grid, &b = config.block, &c = config.cluster;
  unsigned smem = static_cast<unsigned>(config.dynamicSharedBytes);
  bool clustered = c.x * c.y * c.z != 1;
  if (!clustered && !config.programmaticSerialization)
    return checkCuda(api,
                     api.launchKernel(fn.handle(), g.x, g.y, g.z, b.x, b.y, b.z,
                                      smem, config.stream, args.data(),
                                      nullptr),
                     describe(fn, config) + " (cuLaunchKernel)");

  CUlaunchAttribute attributes[2] = {};
  unsigned count = 0;
  if (clustered) {
    CUlaunchAttribute &cluster = attributes[count++];
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = c.x;
    cluster.value.clusterDim.y = c.y;
    cluster.value.clusterDim.z = c.z;
  }
  if (config.programmaticSerialization) {
    CUlaunchAttribute &dependent = attributes[count++];
    dependent.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    dependent.value.programmaticStreamSerializationAllowed = 1;
  }
  CUlaunchConfig launchConfig = {};
  launchConfig.gridDimX = g.x;
  launchConfig.gridDimY = g.y;
  launchConfig.gridDimZ = g.z;
  launchConfig.blockDimX = b.x;
  launchConfig.blockDimY = b.y;
  launchConfig.blockDimZ = b.z;
  launchConfig.sharedMemBytes = smem;
  launchConfig.hStream = config.stream;
  launchConfig.attrs = attributes;
  launchConfig.numAttrs = count;
  return checkCuda(
      api, api.launchKernelEx(&launchConfig, fn.handle(), args.data(), nullptr),
      fmt::format("{} cluster {}{} (cuLaunchKernelEx)", describe(fn, config),
                  str(c),
                  config.programmaticSerialization ? ", dependent launch"
                                                   : ""));
}

Status launch(const Function &fn, const LaunchConfig &config,
              const KernelArgs &args) {
  if (Status s = checkLaunch(fn, config, args); !s)
    return s;
  return launchChecked(fn, config, args);
}

} // namespace tilec::rt
