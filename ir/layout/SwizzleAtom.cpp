//===- ir/layout/SwizzleAtom.cpp - The canonical shared-memory swizzle atoms -----===//
//
// The atom of any (majorness, mode, dtype) is computed from the table of
// swizzle modes (ir/arch/SwizzleMode.h): 8 rows of `bytes` bytes, in element
// units, with the byte-level Swizzle<B,4,3> moved down by log2(bytes per element).
//
//===----------------------------------------------------------------------===//
#include "ir/layout/SwizzleAtom.h"

using namespace tilec;

ComposedLayout tilec::swizzleAtom(MajorKind major, SwizzleKind mode,
                                  DTypeKind dtype) {
  const SwizzleInfo &info = swizzleInfo(mode);
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
