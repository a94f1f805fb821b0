//===- ir/arch/SmemDescriptor.h - Shared-memory matrix descriptors ----*- C++
//-*-===//
//
// The 64-bit shared-memory matrix descriptor that wgmma.mma_async (sm_90a,
// "GMMA") and tcgen05.mma (sm_100a, "UMMA") read their A/B operands through.
// Both encodings come from one table of fields (bit position, width, unit),
// so the two architectures cannot drift apart:
//
//   bit  63..62 61  ..53 52  51..49  48..46  45..32  29..16  13..0
//   sm_90  type  -        -   base    -       SBO>>4  LBO>>4  addr>>4
//   sm_100 type(61..63)  mode base  version  SBO>>4  LBO>>4  addr>>4
//
// The layout type (swizzle mode) has its own codes per arch, in the table of
// ir/arch/SwizzleMode.h: none 0/0, SW128 1/2, SW64 2/4, SW32 3/6 (sm_90/sm_100).
//
// Example: sm_100, SW128, start 0, LBO 16, SBO 1024 is 0x4000404000010000.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_ARCH_SMEMDESCRIPTOR_H
#define TILEC_IR_ARCH_SMEMDESCRIPTOR_H

#include "ir/arch/Arch.h"
#include "ir/arch/MajorKind.h"
#include "ir/arch/SwizzleMode.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tilec {

/// The fields of a descriptor, decoded: addresses and offsets in bytes.
struct SmemDescriptorFields {
  SwizzleKind swizzle = SwizzleKind::None;
  uint64_t startAddress = 0; ///< Byte address in shared memory.
  uint64_t lbo = 0;          ///< Leading dimension byte offset.
  uint64_t sbo = 0;          ///< Stride dimension byte offset.
  unsigned baseOffset = 0;   ///< Matrix base offset (3 bits).
  unsigned lboMode = 0;      ///< sm_100 only: 0 relative, 1 absolute.
  unsigned version = 1;      ///< sm_100 only: fixed 1.
  /// sm_100's code 1 (128B swizzle with 32B atomicity) has no SwizzleKind.
  bool swizzle128Atom32 = false;
};

/// One field of the descriptor table.
enum class DescFieldKind {
  StartAddress,
  LeadingByteOffset,
  StrideByteOffset,
  Version,
  BaseOffset,
  LboMode,
  LayoutType
};

/// Where one field lives for one architecture.
struct DescFieldInfo {
  DescFieldKind field;
  llvm::StringRef name; ///< "start_address", "lbo", ...
  unsigned lowBit;
  unsigned width;
  unsigned shift; ///< Encoded value = bytes >> shift (4 for 16-byte units).
};

/// The field table of a descriptor-bearing arch (sm_90a or sm_100a).
llvm::ArrayRef<DescFieldInfo> smemDescriptorFields(ArchKind arch);

/// True for the archs with shared-memory matrix descriptors.
bool hasSmemDescriptor(ArchKind arch);

/// The layout_type value \p swizzle encodes to on \p arch.
unsigned layoutTypeCode(SwizzleKind swizzle, ArchKind arch);

/// Encodes \p fields for \p arch. Fails, naming the field, when a value is
/// not a multiple of its unit or does not fit its bits.
llvm::Expected<uint64_t> encodeSmemDescriptor(const SmemDescriptorFields &f,
                                              ArchKind arch);

/// Decodes a 64-bit descriptor. Fails on a layout type code that \p arch does
/// not define.
llvm::Expected<SmemDescriptorFields> decodeSmemDescriptor(uint64_t desc,
                                                          ArchKind arch);

/// The raw (encoded) value of one field of \p desc.
uint64_t extractDescField(uint64_t desc, const DescFieldInfo &info);

/// "0x4000404000010000".
std::string formatHex64(uint64_t value);

} // namespace tilec

#endif // TILEC_IR_ARCH_SMEMDESCRIPTOR_H
