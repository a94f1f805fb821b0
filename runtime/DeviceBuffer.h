//===- runtime/DeviceBuffer.h - Owned GPU memory -----------------*- C++
//-*-===//
//
// cuMemAlloc'd memory freed when its owner goes away, with bounds-checked
// upload, download and memset. Kernels get the address through ptr() (a
// CUdeviceptr, passed by value as a 64-bit kernel parameter).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_DEVICEBUFFER_H
#define TILEC_RUNTIME_DEVICEBUFFER_H

#include "runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tilec::rt {

/// A device address (CUdeviceptr).
using DevicePtr = std::uint64_t;

/// Device memory; movable, not copyable. Needs a current context.
class DeviceBuffer {
public:
  /// Allocates \p bytes (at least 1) of device memory, 256-byte aligned.
  static Result<DeviceBuffer> allocate(std::size_t bytes);

  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer();

  /// The device address of byte 0.
  DevicePtr ptr() const { return address; }
  /// Size in bytes.
  std::size_t size() const { return bytes; }

  /// Copies \p count bytes from host \p src to byte \p offset.
  Status upload(const void *src, std::size_t count, std::size_t offset = 0);
  /// Copies \p count bytes from byte \p offset to host \p dst.
  Status download(void *dst, std::size_t count, std::size_t offset = 0) const;
  /// Sets every byte to \p value.
  Status fillBytes(std::uint8_t value);
  /// Sets every 32-bit word to \p value (size must be a multiple of 4), e.g.
  /// 0x7fc00000 to poison a float buffer with NaN.
  Status fillWords(std::uint32_t value);

  /// Uploads a host array at element offset 0.
  template <typename T> Status upload(std::span<const T> host) {
    return upload(host.data(), host.size_bytes());
  }
  /// Downloads the whole buffer as elements of T.
  template <typename T> Result<std::vector<T>> download() const {
    std::vector<T> host(bytes / sizeof(T));
    if (Status s = download(host.data(), host.size() * sizeof(T)); !s)
      return s.error();
    return host;
  }

private:
  DeviceBuffer(DevicePtr address, std::size_t bytes)
      : address(address), bytes(bytes) {}
  void release();

  DevicePtr address = 0;
  std::size_t bytes = 0;
};

} // namespace tilec::rt

#endif // TILEC_RUNTIME_DEVICEBUFFER_H
