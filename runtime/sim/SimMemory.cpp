//===- runtime/sim/SimMemory.cpp - Global and shared memory of the simulator ===//
#include "runtime/sim/SimMemory.h"

#include "runtime/sim/SimFault.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>

namespace tilec::sim {

GlobalMemory &GlobalMemory::instance() {
  // Never destroyed: buffers freed at exit still find it.
  static GlobalMemory *memory = new GlobalMemory;
  return *memory;
}

std::uint64_t GlobalMemory::allocate(std::size_t bytes) {
  std::size_t rounded = (std::max<std::size_t>(bytes, 1) + 255) / 256 * 256;
  void *p = std::aligned_alloc(256, rounded);
  if (!p)
    return 0;
  std::lock_guard<std::mutex> lock(mutex);
  live[reinterpret_cast<std::uint64_t>(p)] = bytes;
  return reinterpret_cast<std::uint64_t>(p);
}

bool GlobalMemory::free(std::uint64_t address) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = live.find(address);
  if (it == live.end())
    return false;
  live.erase(it);
  std::free(reinterpret_cast<void *>(address));
  return true;
}

bool GlobalMemory::contains(std::uint64_t address, std::size_t bytes) const {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = live.upper_bound(address);
  if (it == live.begin())
    return false;
  --it;
  return address >= it->first && address + bytes <= it->first + it->second;
}

void GlobalMemory::check(std::uint64_t address, std::size_t bytes,
                         const char *what) const {
  if (contains(address, bytes))
    return;
  std::lock_guard<std::mutex> lock(mutex);
  std::string nearest = "no live allocation";
  auto it = live.upper_bound(address);
  if (it != live.begin()) {
    --it;
    nearest = fmt::format("the nearest allocation below is [0x{:x}, 0x{:x}) "
                          "({} bytes), {} bytes past its end",
                          it->first, it->first + it->second, it->second,
                          static_cast<std::int64_t>(address + bytes -
                                                    it->first - it->second));
  }
  throw SimFault(fmt::format("{} of {} bytes at global address 0x{:x} is "
                             "outside every allocation: {}",
                             what, bytes, address, nearest));
}

void GlobalMemory::read(std::uint64_t address, void *dst,
                        std::size_t bytes) const {
  check(address, bytes, "global load");
  std::memcpy(dst, reinterpret_cast<const void *>(address), bytes);
}

void GlobalMemory::write(std::uint64_t address, const void *src,
                         std::size_t bytes) {
  check(address, bytes, "global store");
  std::memcpy(reinterpret_cast<void *>(address), src, bytes);
}

void SharedMemory::checkRange(std::uint32_t address, std::size_t bytes,
                              const char *what) const {
  if (std::uint64_t(address) + bytes <= data.size())
    return;
  throw SimFault(fmt::format("{} of {} bytes at shared address 0x{:x} is "
                             "outside the CTA's {} bytes of shared memory",
                             what, bytes, address, data.size()));
}

void SharedMemory::read(std::uint32_t address, void *dst, std::size_t bytes,
                        const char *what) const {
  checkRange(address, bytes, what);
  for (std::size_t i = 0; i < bytes; ++i)
    if (!written[address + i])
      throw SimFault(fmt::format(
          "{} of {} bytes at shared address 0x{:x} reads byte 0x{:x}, which "
          "nothing has written",
          what, bytes, address, address + i));
  std::memcpy(dst, data.data() + address, bytes);
}

void SharedMemory::write(std::uint32_t address, const void *src,
                         std::size_t bytes, const char *what) {
  checkRange(address, bytes, what);
  std::memcpy(data.data() + address, src, bytes);
  std::memset(written.data() + address, 1, bytes);
}

} // namespace tilec::sim
