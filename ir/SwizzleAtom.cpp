//===- ir/SwizzleAtom.cpp - The canonical shared-memory swizzle atoms -----===//
//
// One table of swizzle modes; the atom of any (majorness, mode, dtype) is
// computed from it: 8 rows of `bytes` bytes, in element units, with the
// byte-level Swizzle<B,4,3> moved down by log2(bytes per element).
//
//===----------------------------------------------------------------------===//
#include "ir/SwizzleAtom.h"

#include <cassert>

using namespace tilec;

static const SwizzleModeInfo kSwizzleModes[] = {
    {SwizzleModeKind::Interleave, "INTER", 16, 0},
    {SwizzleModeKind::SW32, "SW32", 32, 1},
    {SwizzleModeKind::SW64, "SW64", 64, 2},
    {SwizzleModeKind::SW128, "SW128", 128, 3},
};

llvm::ArrayRef<SwizzleModeInfo> tilec::allSwizzleModes() {
  return kSwizzleModes;
}

const SwizzleModeInfo &tilec::swizzleModeInfo(SwizzleModeKind kind) {
  const SwizzleModeInfo &info = kSwizzleModes[static_cast<int>(kind)];
  assert(info.kind == kind && "table out of order");
  return info;
}

ComposedLayout tilec::swizzleAtom(MajorKind major, SwizzleModeKind mode,
                                  DTypeKind dtype) {
  const SwizzleModeInfo &info = swizzleModeInfo(mode);
  unsigned bits = dtypeBits(dtype);
  // Elements per row of the atom, and log2 of the bytes per element (the
  // swizzle's base moves from bytes to elements).
  int64_t rowElems = info.bytes * 8 / bits;
  int log2Bytes = 0;
  while ((8u << log2Bytes) < bits)
    ++log2Bytes;
  Swizzle sw(info.swizzleBits, 4 - log2Bytes, 3);
  if (major == MajorKind::K)
    return ComposedLayout(sw, 0, Layout({8, rowElems}, {rowElems, 1}));
  return ComposedLayout(sw, 0, Layout({rowElems, 8}, {1, rowElems}));
}

std::optional<tilec::SwizzleModeKind>
tilec::swizzleModeOfBytes(unsigned bytes) {
  for (const SwizzleModeInfo &info : allSwizzleModes())
    if (info.bytes == bytes)
      return info.kind;
  return std::nullopt;
}

std::string tilec::swizzleAtomName(MajorKind major, SwizzleModeKind mode) {
  return std::string(major == MajorKind::K ? "K_" : "MN_") +
         swizzleModeInfo(mode).name.str();
}

std::optional<std::pair<MajorKind, SwizzleModeKind>>
tilec::parseSwizzleAtomName(llvm::StringRef name) {
  MajorKind major;
  if (name.consume_front("K_"))
    major = MajorKind::K;
  else if (name.consume_front("MN_"))
    major = MajorKind::MN;
  else
    return std::nullopt;
  for (const SwizzleModeInfo &info : kSwizzleModes)
    if (info.name == name)
      return std::make_pair(major, info.kind);
  return std::nullopt;
}
