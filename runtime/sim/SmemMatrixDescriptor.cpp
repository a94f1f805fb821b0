//===- runtime/sim/SmemMatrixDescriptor.cpp - Shared-memory matrix descriptors
//-===//
//
// Field positions (PTX ISA, wgmma "Matrix Descriptor Format" and tcgen05
// "Shared Memory Descriptor"):
//   bits  0-13  start address >> 4      bits 16-29  leading byte offset >> 4
//   bits 32-45  stride byte offset >> 4 bits 49-51  base offset
//   wgmma:   bits 62-63 swizzle: 0 none, 1 128B, 2 64B, 3 32B
//   tcgen05: bits 46-48 = 0b001, bit 52 LBO mode, bits 53-60 = 0,
//            bits 61-63 swizzle: 0 none, 1 128B with 32B atoms, 2 128B,
//            4 64B, 6 32B (3, 5, 7 invalid)
//
// Element addresses follow the ISA's canonical layouts, with T = 128 / bits
// elements per 16-byte unit and W the swizzle width in bytes:
//   K-major,  none:     ((8,m),(T,2k)) : ((1T,SBO),(1,LBO))
//   K-major,  swizzled: ((8,m),(T,2k)) : ((W/16 T,SBO),(1,T))
//   MN-major, none:     ((T,1,m),(8,k)) : ((1,T,SBO),(1T,LBO))
//   MN-major, swizzled: ((T,W/16,m),(8,k)) : ((1,T,LBO),(W/16 T,SBO))
// and the swizzle XORs the 16-byte chunk bits (4..) of the resulting
// address with its bits 7.. (Swizzle<1|2|3, 4, 3> on bytes), counted from
// the repeating pattern's start: (addr >> 7) - base offset.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/SmemMatrixDescriptor.h"
#include "runtime/sim/SimFault.h"

#include <fmt/format.h>

namespace tilec::sim {

namespace {

std::uint32_t field(std::uint64_t d, unsigned lo, unsigned bits) {
  return std::uint32_t((d >> lo) & ((1ull << bits) - 1));
}

void decodeCommon(std::uint64_t d, SmemMatrixDesc &out) {
  out.startAddress = field(d, 0, 14) << 4;
  out.lbo = field(d, 16, 14) << 4;
  out.sbo = field(d, 32, 14) << 4;
  out.baseOffset = field(d, 49, 3);
}

} // namespace

std::string SmemMatrixDesc::describe() const {
  std::string sw = swizzle128Base32 ? "128B-atom32B"
                   : swizzleBytes   ? fmt::format("{}B", swizzleBytes)
                                    : std::string("none");
  return fmt::format("start 0x{:x} lbo {} sbo {} swizzle {} base {}",
                     startAddress, lbo, sbo, sw, baseOffset);
}

SmemMatrixDesc decodeWgmmaDescriptor(std::uint64_t desc) {
  SmemMatrixDesc out;
  decodeCommon(desc, out);
  static const unsigned Swizzles[4] = {0, 128, 64, 32};
  out.swizzleBytes = Swizzles[field(desc, 62, 2)];
  if (!out.swizzleBytes)
    out.baseOffset = 0; // Only meaningful for the swizzled modes.
  return out;
}

SmemMatrixDesc decodeUmmaDescriptor(std::uint64_t desc) {
  auto bad = [&](const std::string &why) {
    throw SimFault(fmt::format("tcgen05 shared memory descriptor 0x{:016x}: {}",
                               desc, why));
  };
  SmemMatrixDesc out;
  decodeCommon(desc, out);
  if (field(desc, 14, 2) || field(desc, 30, 2))
    bad("reserved bits 14-15 / 30-31 are not zero");
  out.version = field(desc, 46, 3);
  if (out.version != 1)
    bad(fmt::format("bits 46-48 hold {}, the fixed constant is 0b001",
                    out.version));
  out.lboModeAbsolute = field(desc, 52, 1);
  if (field(desc, 53, 8))
    bad(fmt::format("bits 53-60 hold 0x{:x}, the fixed constant is 0",
                    field(desc, 53, 8)));
  unsigned layout = field(desc, 61, 3);
  switch (layout) {
  case 0:
    out.swizzleBytes = 0;
    break;
  case 1:
    out.swizzleBytes = 128;
    out.swizzle128Base32 = true;
    break;
  case 2:
    out.swizzleBytes = 128;
    break;
  case 4:
    out.swizzleBytes = 64;
    break;
  case 6:
    out.swizzleBytes = 32;
    break;
  default:
    bad(fmt::format("swizzle mode {} (bits 61-63) is invalid; legal: 0 none, "
                    "1 128B with 32B atoms, 2 128B, 4 64B, 6 32B",
                    layout));
  }
  return out;
}

std::uint32_t smemOperandAddress(const SmemMatrixDesc &desc, bool mnMajor,
                                 unsigned elemBits, unsigned mn, unsigned k) {
  if (desc.swizzle128Base32)
    throw SimFault("the 128-byte swizzle with 32-byte atoms (descriptor "
                   "layout type 1) is not modelled by the simulator");
  if (desc.lboModeAbsolute)
    throw SimFault("the absolute leading-dimension address mode (descriptor "
                   "bit 52, sm_103a) is not modelled by the simulator");
  const unsigned eb = elemBits / 8;
  const unsigned t = 128 / elemBits;
  const unsigned w = desc.swizzleBytes;
  std::uint32_t offset;
  if (!mnMajor) {
    if (!w)
      offset = (mn % 8) * 16 + (mn / 8) * desc.sbo + (k / t) * desc.lbo +
               (k % t) * eb;
    else
      offset = (mn % 8) * w + (mn / 8) * desc.sbo + k * eb;
  } else {
    if (!w) {
      offset = (mn % t) * eb + (mn / t) * desc.sbo + (k % 8) * 16 +
               (k / 8) * desc.lbo;
    } else {
      unsigned atomMn = t * (w / 16);
      offset = (mn % atomMn) * eb + (mn / atomMn) * desc.lbo + (k % 8) * w +
               (k / 8) * desc.sbo;
    }
  }
  std::uint32_t addr = desc.startAddress + offset;
  if (!w)
    return addr;
  std::uint32_t mask = w / 16 - 1;
  std::uint32_t phase = ((addr >> 7) - desc.baseOffset) & mask;
  return addr ^ (phase << 4);
}

} // namespace tilec::sim
