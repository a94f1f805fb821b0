//===- ir/arch/SmemDescriptor.cpp - Shared-memory matrix descriptors -----------===//
//
// One field table per arch, one encoder and one decoder that walk it.
//
//===----------------------------------------------------------------------===//
#include "ir/arch/SmemDescriptor.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace tilec {

namespace {
using F = DescFieldKind;

// PTX ISA "Matrix Descriptor Format" (wgmma) and "Shared Memory Descriptor"
// (tcgen05); the unused bits in between are zero.
const DescFieldInfo Sm90Fields[] = {
    {F::StartAddress, "start_address", 0, 14, 4},
    {F::LeadingByteOffset, "lbo", 16, 14, 4},
    {F::StrideByteOffset, "sbo", 32, 14, 4},
    {F::BaseOffset, "base_offset", 49, 3, 0},
    {F::LayoutType, "layout_type", 62, 2, 0},
};

const DescFieldInfo Sm100Fields[] = {
    {F::StartAddress, "start_address", 0, 14, 4},
    {F::LeadingByteOffset, "lbo", 16, 14, 4},
    {F::StrideByteOffset, "sbo", 32, 14, 4},
    {F::Version, "version", 46, 2, 0},
    {F::BaseOffset, "base_offset", 49, 3, 0},
    {F::LboMode, "lbo_mode", 52, 1, 0},
    {F::LayoutType, "layout_type", 61, 3, 0},
};

/// sm_100's layout type 1: 128-byte swizzle with 32-byte atomicity.
constexpr unsigned Sm100Swizzle128Atom32Code = 1;
} // namespace

bool hasSmemDescriptor(ArchKind arch) {
  return arch == ArchKind::SM90a || arch == ArchKind::SM100a;
}

llvm::ArrayRef<DescFieldInfo> smemDescriptorFields(ArchKind arch) {
  assert(hasSmemDescriptor(arch) && "no shared-memory descriptor on sm_80");
  if (arch == ArchKind::SM90a)
    return Sm90Fields;
  return Sm100Fields;
}

unsigned layoutTypeCode(SwizzleKind swizzle, ArchKind arch) {
  const SwizzleInfo &info = swizzleInfo(swizzle);
  return arch == ArchKind::SM90a ? info.sm90Code : info.sm100Code;
}

uint64_t extractDescField(uint64_t desc, const DescFieldInfo &info) {
  return (desc >> info.lowBit) & ((uint64_t(1) << info.width) - 1);
}

llvm::Expected<uint64_t> encodeSmemDescriptor(const SmemDescriptorFields &f,
                                              ArchKind arch) {
  if (!hasSmemDescriptor(arch))
    return llvm::createStringError(
        llvm::formatv("{0} has no shared-memory matrix descriptor (sm_90a and "
                      "sm_100a have)",
                      archInfo(arch).name)
            .str());
  uint64_t desc = 0;
  for (const DescFieldInfo &info : smemDescriptorFields(arch)) {
    uint64_t bytes = 0;
    switch (info.field) {
    case F::StartAddress:
      // The ISA encodes (addr & 0x3FFFF) >> 4: an 18-bit byte address.
      bytes = f.startAddress;
      break;
    case F::LeadingByteOffset:
      bytes = f.lbo;
      break;
    case F::StrideByteOffset:
      bytes = f.sbo;
      break;
    case F::Version:
      bytes = f.version;
      break;
    case F::BaseOffset:
      bytes = f.baseOffset;
      break;
    case F::LboMode:
      bytes = f.lboMode;
      break;
    case F::LayoutType:
      bytes = f.swizzle128Atom32 && arch == ArchKind::SM100a
                  ? Sm100Swizzle128Atom32Code
                  : layoutTypeCode(f.swizzle, arch);
      break;
    }
    uint64_t unit = uint64_t(1) << info.shift;
    uint64_t limit = uint64_t(1) << (info.width + info.shift);
    if (bytes % unit != 0)
      return llvm::createStringError(
          llvm::formatv("{0} = {1} is not a multiple of {2} bytes (the "
                        "descriptor stores it in {2}-byte units)",
                        info.name, bytes, unit)
              .str());
    if (bytes >= limit)
      return llvm::createStringError(
          llvm::formatv("{0} = {1} does not fit the {2}-bit field of {3} "
                        "(legal: 0 to {4})",
                        info.name, bytes, info.width, archInfo(arch).name,
                        limit - unit)
              .str());
    desc |= (bytes >> info.shift) << info.lowBit;
  }
  return desc;
}

llvm::Expected<SmemDescriptorFields> decodeSmemDescriptor(uint64_t desc,
                                                          ArchKind arch) {
  if (!hasSmemDescriptor(arch))
    return llvm::createStringError(
        llvm::formatv("{0} has no shared-memory matrix descriptor",
                      archInfo(arch).name)
            .str());
  SmemDescriptorFields f;
  f.version = 0;
  for (const DescFieldInfo &info : smemDescriptorFields(arch)) {
    uint64_t raw = extractDescField(desc, info);
    uint64_t bytes = raw << info.shift;
    switch (info.field) {
    case F::StartAddress:
      f.startAddress = bytes;
      break;
    case F::LeadingByteOffset:
      f.lbo = bytes;
      break;
    case F::StrideByteOffset:
      f.sbo = bytes;
      break;
    case F::Version:
      f.version = raw;
      break;
    case F::BaseOffset:
      f.baseOffset = raw;
      break;
    case F::LboMode:
      f.lboMode = raw;
      break;
    case F::LayoutType: {
      if (arch == ArchKind::SM100a && raw == Sm100Swizzle128Atom32Code) {
        f.swizzle = SwizzleKind::SW128;
        f.swizzle128Atom32 = true;
        break;
      }
      bool found = false;
      for (const SwizzleInfo &s : allSwizzles())
        if (layoutTypeCode(s.kind, arch) == raw) {
          f.swizzle = s.kind;
          found = true;
        }
      if (!found)
        return llvm::createStringError(
            llvm::formatv("layout type {0} is not defined for {1} (legal: {2})",
                          raw, archInfo(arch).name,
                          arch == ArchKind::SM90a ? "0, 1, 2, 3"
                                                  : "0, 1, 2, 4, 6")
                .str());
      break;
    }
    }
  }
  return f;
}

std::string formatHex64(uint64_t value) {
  return llvm::formatv("{0:x16}", value).str();
}

} // namespace tilec
