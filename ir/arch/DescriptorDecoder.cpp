//===- ir/arch/DescriptorDecoder.cpp - Walk a descriptor like the hardware -----===//
//
// Reads the PTX ISA's canonical layouts (in bytes, after normalizing elements
// to 128 bits) literally:
//   K-major none:   row r of core matrix at r*16, core matrices along MN at
//                   SBO, along K at LBO.
//   K-major SWx:    row r at r*x (one atom row), 16-byte chunks along K
//                   adjacent, 8-row groups along MN at SBO; LBO unused.
//   MN-major none:  16-byte column pieces along MN at SBO, K rows at 16,
//                   8-row groups along K at LBO.
//   MN-major SWx:   x bytes along MN per atom row, atoms along MN at LBO, K
//                   rows at x, 8-row groups along K at SBO.
//
//===----------------------------------------------------------------------===//
#include "ir/arch/DescriptorDecoder.h"

#include "llvm/Support/FormatVariadic.h"

namespace tilec {

uint64_t applyHardwareSwizzle(uint64_t address, SwizzleKind swizzle) {
  unsigned b = swizzleInfo(swizzle).swizzleBits;
  uint64_t mask = (uint64_t(1) << b) - 1;
  return address ^ (((address >> 7) & mask) << 4);
}

llvm::Expected<OperandAddresses>
decodeOperandAddresses(uint64_t desc, ArchKind arch, DTypeKind dtype,
                       MajorKind major, unsigned mnSize, unsigned kSize) {
  llvm::Expected<SmemDescriptorFields> f = decodeSmemDescriptor(desc, arch);
  if (!f)
    return f.takeError();
  if (f->baseOffset != 0)
    return llvm::createStringError(
        llvm::formatv("base offset {0} is not modelled by the decoder (only "
                      "0, a pattern-aligned matrix)",
                      f->baseOffset)
            .str());
  if (f->lboMode != 0)
    return llvm::createStringError(
        "absolute LBO mode is not modelled by the decoder");
  if (f->swizzle128Atom32)
    return llvm::createStringError(
        "128-byte swizzle with 32-byte atomicity is not modelled");
  unsigned bits = dtypeBits(dtype);
  if (bits % 8 != 0 || 128 % bits != 0)
    return llvm::createStringError(
        llvm::formatv("{0}-bit elements are not walked", bits).str());
  uint64_t e = bits / 8;
  uint64_t width = swizzleInfo(f->swizzle).bytes;
  bool swizzled = f->swizzle != SwizzleKind::None;
  if (major == MajorKind::K && swizzled && kSize * e > width)
    return llvm::createStringError(
        llvm::formatv("K extent {0} bytes exceeds the {1}-byte swizzle row",
                      kSize * e, width)
            .str());

  OperandAddresses out;
  out.mnSize = mnSize;
  out.kSize = kSize;
  out.bytes.resize(uint64_t(mnSize) * kSize);
  for (uint64_t k = 0; k != kSize; ++k) {
    for (uint64_t mn = 0; mn != mnSize; ++mn) {
      uint64_t offset;
      if (major == MajorKind::K) {
        uint64_t row = mn % 8, group = mn / 8;
        uint64_t kByte = k * e;
        uint64_t chunk = kByte / 16, inChunk = kByte % 16;
        if (swizzled)
          offset = group * f->sbo + row * width + chunk * 16 + inChunk;
        else
          offset = group * f->sbo + chunk * f->lbo + row * 16 + inChunk;
      } else {
        uint64_t mnByte = mn * e;
        uint64_t kRow = k % 8, kGroup = k / 8;
        if (swizzled)
          offset = (mnByte / width) * f->lbo + kGroup * f->sbo + kRow * width +
                   mnByte % width;
        else
          offset = (mnByte / 16) * f->sbo + kGroup * f->lbo + kRow * 16 +
                   mnByte % 16;
      }
      out.bytes[mn + k * mnSize] =
          applyHardwareSwizzle(f->startAddress + offset, f->swizzle);
    }
  }
  return out;
}

} // namespace tilec
