//===- runtime/DeviceBuffer.cpp - Owned GPU memory ------------------------===//
//
// cuMemAlloc/cuMemFree with synchronous copies and memsets; ranges are
// checked against the allocation before the driver sees them.
//
//===----------------------------------------------------------------------===//
#include "runtime/DeviceBuffer.h"

#include "runtime/DriverApi.h"

#include <fmt/format.h>

namespace tilec::rt {

namespace {
Status checkRange(std::size_t offset, std::size_t count, std::size_t size,
                  const char *what) {
  if (offset > size || count > size - offset)
    return Error(fmt::format("{} of {} bytes at offset {} is out of bounds of "
                             "a {}-byte device buffer",
                             what, count, offset, size));
  return success();
}
} // namespace

Result<DeviceBuffer> DeviceBuffer::allocate(std::size_t bytes) {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  if (bytes == 0)
    return Error("cannot allocate a 0-byte device buffer");
  CUdeviceptr address = 0;
  if (Status s = checkCuda(**api, (*api)->memAlloc(&address, bytes),
                           fmt::format("cuMemAlloc({} bytes)", bytes));
      !s)
    return s.error();
  return DeviceBuffer(address, bytes);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : address(other.address), bytes(other.bytes) {
  other.address = 0;
  other.bytes = 0;
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    release();
    address = other.address;
    bytes = other.bytes;
    other.address = 0;
    other.bytes = 0;
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() {
  if (!address)
    return;
  if (Result<const DriverApi *> api = driverApi())
    (*api)->memFree(address);
  address = 0;
  bytes = 0;
}

Status DeviceBuffer::upload(const void *src, std::size_t count,
                            std::size_t offset) {
  if (Status s = checkRange(offset, count, bytes, "upload"); !s)
    return s;
  if (count == 0)
    return success();
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  return checkCuda(**api, (*api)->memcpyHtoD(address + offset, src, count),
                   "cuMemcpyHtoD");
}

Status DeviceBuffer::download(void *dst, std::size_t count,
                              std::size_t offset) const {
  if (Status s = checkRange(offset, count, bytes, "download"); !s)
    return s;
  if (count == 0)
    return success();
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  return checkCuda(**api, (*api)->memcpyDtoH(dst, address + offset, count),
                   "cuMemcpyDtoH");
}

Status DeviceBuffer::fillBytes(std::uint8_t value) {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  return checkCuda(**api, (*api)->memsetD8(address, value, bytes),
                   "cuMemsetD8");
}

Status DeviceBuffer::fillWords(std::uint32_t value) {
  if (bytes % 4 != 0)
    return Error(fmt::format("cannot fill a {}-byte device buffer with 32-bit "
                             "words: its size is not a multiple of 4",
                             bytes));
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  return checkCuda(**api, (*api)->memsetD32(address, value, bytes / 4),
                   "cuMemsetD32");
}

} // namespace tilec::rt
