//===- runtime/Device.cpp - GPU query and the primary context -------------===//
//
// Device attributes through cuDeviceGetAttribute; the primary context
// retained with cuDevicePrimaryCtxRetain and made current with
// cuCtxSetCurrent.
//
//===----------------------------------------------------------------------===//
#include "runtime/Device.h"

#include "runtime/DriverApi.h"

#include <fmt/format.h>

namespace tilec::rt {

Result<int> deviceCount() {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  int count = 0;
  if (Status s =
          checkCuda(**api, (*api)->deviceGetCount(&count), "cuDeviceGetCount");
      !s)
    return s.error();
  return count;
}

namespace {
Result<CUdevice> getDevice(const DriverApi &api, int ordinal) {
  int count = 0;
  if (Status s = checkCuda(api, api.deviceGetCount(&count), "cuDeviceGetCount");
      !s)
    return s.error();
  if (ordinal < 0 || ordinal >= count)
    return Error(fmt::format("device ordinal {} is out of range: {} device{} "
                             "present (valid ordinals 0..{})",
                             ordinal, count, count == 1 ? "" : "s", count - 1));
  CUdevice device = 0;
  if (Status s = checkCuda(api, api.deviceGet(&device, ordinal), "cuDeviceGet");
      !s)
    return s.error();
  return device;
}

Result<DeviceInfo> describeDevice(const DriverApi &api, CUdevice device,
                                  int ordinal) {
  DeviceInfo info;
  info.ordinal = ordinal;
  info.driverVersion = api.driverVersion;
  char name[256] = {};
  if (Status s = checkCuda(api, api.deviceGetName(name, sizeof(name), device),
                           "cuDeviceGetName");
      !s)
    return s.error();
  info.name = name;
  size_t total = 0;
  if (Status s = checkCuda(api, api.deviceTotalMem(&total, device),
                           "cuDeviceTotalMem");
      !s)
    return s.error();
  info.totalMemBytes = total;

  struct Query {
    CUdevice_attribute attribute;
    const char *name;
    int value = 0;
  };
  Query queries[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
       "compute capability major"},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
       "compute capability minor"},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "multiprocessor count"},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "max threads per block"},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
       "max shared memory per block"},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       "max shared memory per block (opt-in)"},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
       "max shared memory per multiprocessor"},
      {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2 cache size"},
      {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "clock rate"},
  };
  for (Query &query : queries)
    if (Status s = checkCuda(
            api, api.deviceGetAttribute(&query.value, query.attribute, device),
            fmt::format("cuDeviceGetAttribute({})", query.name));
        !s)
      return s.error();
  info.ccMajor = queries[0].value;
  info.ccMinor = queries[1].value;
  info.smCount = queries[2].value;
  info.maxThreadsPerBlock = queries[3].value;
  info.sharedMemPerBlock = queries[4].value;
  info.sharedMemPerBlockOptin = queries[5].value;
  info.sharedMemPerSm = queries[6].value;
  info.l2CacheBytes = queries[7].value;
  info.clockRateKHz = queries[8].value;
  return info;
}
} // namespace

Result<DeviceInfo> queryDevice(int ordinal) {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  Result<CUdevice> device = getDevice(**api, ordinal);
  if (!device)
    return device.error();
  return describeDevice(**api, *device, ordinal);
}

Result<Context> Context::create(int ordinal) {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  const DriverApi &driver = **api;
  Result<CUdevice> device = getDevice(driver, ordinal);
  if (!device)
    return device.error();
  Result<DeviceInfo> info = describeDevice(driver, *device, ordinal);
  if (!info)
    return info.error();
  CUcontext ctx = nullptr;
  if (Status s = checkCuda(driver, driver.devicePrimaryCtxRetain(&ctx, *device),
                           "cuDevicePrimaryCtxRetain");
      !s)
    return s.error();
  Context context(ctx, *device, info.take());
  if (Status s = context.makeCurrent(); !s)
    return s.error();
  return context;
}

Context::Context(Context &&other) noexcept
    : ctx(other.ctx), cuDevice(other.cuDevice), info(std::move(other.info)) {
  other.ctx = nullptr;
}

Context &Context::operator=(Context &&other) noexcept {
  if (this != &other) {
    release();
    ctx = other.ctx;
    cuDevice = other.cuDevice;
    info = std::move(other.info);
    other.ctx = nullptr;
  }
  return *this;
}

Context::~Context() { release(); }

void Context::release() {
  if (!ctx)
    return;
  if (Result<const DriverApi *> api = driverApi())
    (*api)->devicePrimaryCtxRelease(cuDevice);
  ctx = nullptr;
}

Status Context::makeCurrent() const {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  return checkCuda(**api, (*api)->ctxSetCurrent(ctx), "cuCtxSetCurrent");
}

Status Context::synchronize() const {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  return checkCuda(**api, (*api)->ctxSynchronize(), "cuCtxSynchronize");
}

} // namespace tilec::rt
