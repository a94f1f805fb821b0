//===- runtime/sim/SimMemory.h - Global and shared memory of the simulator -*- C++ -*-===//
//
// Global memory: every cuMemAlloc of the simulated driver is a host
// allocation whose host address is the device pointer, so uploads and
// downloads are memcpy. Each access of a kernel is checked against the live
// allocations: the whole access must fall inside one of them.
//
// Shared memory: one byte array per CTA of the launch's dynamic size, with a
// bit per byte that says whether it was ever written, so a read of bytes
// nothing wrote (a TMA that never landed, a missing barrier) is reported.
// Shared addresses are byte offsets from 0 (the CTA's window); the
// interpreter maps shared::cluster addresses of other CTAs to their
// SharedMemory.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIM_SIMMEMORY_H
#define TILEC_RUNTIME_SIM_SIMMEMORY_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace tilec::sim {

/// The device's global memory: live allocations, checked accesses.
/// Thread-safe (CTAs run on several host threads).
class GlobalMemory {
public:
  /// The process-wide instance the simulated driver allocates from.
  static GlobalMemory &instance();

  /// Allocates \p bytes (at least 1), 256-byte aligned; returns the address.
  std::uint64_t allocate(std::size_t bytes);
  /// Frees an allocation made by allocate(); false if \p address is not the
  /// start of a live allocation.
  bool free(std::uint64_t address);
  /// True when [address, address + bytes) lies inside one live allocation.
  bool contains(std::uint64_t address, std::size_t bytes) const;
  /// Copies \p bytes from device \p address to \p dst; throws SimFault
  /// naming the address and the nearest allocation when out of bounds.
  void read(std::uint64_t address, void *dst, std::size_t bytes) const;
  /// Copies \p bytes from \p src to device \p address; throws SimFault when
  /// out of bounds.
  void write(std::uint64_t address, const void *src, std::size_t bytes);
  /// Throws SimFault unless [address, address + bytes) is inside one live
  /// allocation; \p what names the access ("st.global.b32").
  void check(std::uint64_t address, std::size_t bytes, const char *what) const;

private:
  mutable std::mutex mutex;
  /// Start address -> size.
  std::map<std::uint64_t, std::size_t> live;
};

/// One CTA's shared memory with a written-bit per byte.
class SharedMemory {
public:
  explicit SharedMemory(std::size_t bytes = 0) { resize(bytes); }
  void resize(std::size_t bytes) {
    data.assign(bytes, 0);
    written.assign(bytes, 0);
  }
  std::size_t size() const { return data.size(); }

  /// Copies \p bytes at shared \p address to \p dst; throws SimFault when
  /// out of range or when any byte was never written. \p what names the
  /// access for the message.
  void read(std::uint32_t address, void *dst, std::size_t bytes,
            const char *what = "shared load") const;
  /// Copies \p src to shared \p address and marks the bytes written; throws
  /// SimFault when out of range.
  void write(std::uint32_t address, const void *src, std::size_t bytes,
             const char *what = "shared store");
  /// Throws SimFault unless [address, address + bytes) is inside.
  void checkRange(std::uint32_t address, std::size_t bytes,
                  const char *what) const;
  /// Raw bytes (no checks): for the interpreter's own bookkeeping.
  std::uint8_t *raw() { return data.data(); }
  const std::uint8_t *raw() const { return data.data(); }

private:
  std::vector<std::uint8_t> data;
  std::vector<std::uint8_t> written;
};

} // namespace tilec::sim

#endif // TILEC_RUNTIME_SIM_SIMMEMORY_H
