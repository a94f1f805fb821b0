//===- tests/common/AtomTiles.h - Swizzle-atom tiles for tests ---*- C++
//-*-===//
//
// Builds shared-memory tiles the way tile_to_shape stacks the PTX swizzle
// atoms, straight from the atom definitions (K-major atom 8 x W bytes, MN-major
// atom W bytes x 8, W = 16/32/64/128), without the layout algebra or the
// descriptor code: the tests' independent source of layouts. Also evaluates
// literal CuTe layouts written as (shape, stride) lists per mode.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TESTS_COMMON_ATOMTILES_H
#define TILEC_TESTS_COMMON_ATOMTILES_H

#include "ir/arch/DescriptorDerivation.h"

#include <utility>
#include <vector>

namespace tilec::testing {

/// One mode of a literal layout: (shape, stride) pairs, innermost first.
using LiteralMode = std::vector<std::pair<int64_t, int64_t>>;

inline int64_t evalMode(const LiteralMode &mode, int64_t index) {
  int64_t offset = 0;
  for (auto [shape, stride] : mode) {
    offset += (index % shape) * stride;
    index /= shape;
  }
  return offset;
}

inline int64_t modeSize(const LiteralMode &mode) {
  int64_t size = 1;
  for (auto [shape, stride] : mode)
    size *= shape;
  return size;
}

/// `Sw<b,m,s> o (MN-mode, K-mode)` as a tile.
inline SmemTileLayout literalTile(LiteralMode mn, LiteralMode k, unsigned b = 0,
                                  unsigned m = 0, unsigned s = 0) {
  SmemTileLayout tile;
  tile.mnSize = modeSize(mn);
  tile.kSize = modeSize(k);
  tile.offset = [mn, k](int64_t i, int64_t j) {
    return evalMode(mn, i) + evalMode(k, j);
  };
  tile.swizzleB = b;
  tile.swizzleM = m;
  tile.swizzleS = s;
  return tile;
}

/// tile_to_shape(ATOM<dtype>, (mnSize, kSize)), atoms stacked along MN first
/// (kFirst = false, CuTe's default) or along K first (order (1,0)).
inline SmemTileLayout atomTile(DTypeKind dtype, MajorKind major,
                               SwizzleKind swizzle, int64_t mnSize,
                               int64_t kSize, bool kFirst) {
  int64_t e = dtypeBits(dtype) / 8;
  const SwizzleInfo &sw = swizzleInfo(swizzle);
  int64_t width = sw.bytes / e;
  int64_t atomMN = major == MajorKind::K ? 8 : width;
  int64_t atomK = major == MajorKind::K ? width : 8;
  int64_t atomSize = atomMN * atomK;
  int64_t gridMN = mnSize / atomMN, gridK = kSize / atomK;
  SmemTileLayout tile;
  tile.mnSize = mnSize;
  tile.kSize = kSize;
  tile.offset = [=](int64_t mn, int64_t k) {
    int64_t am = mn / atomMN, ak = k / atomK;
    int64_t atom = kFirst ? am * gridK + ak : am + ak * gridMN;
    int64_t inner = major == MajorKind::K ? (mn % atomMN) * width + k % atomK
                                          : mn % atomMN + (k % atomK) * width;
    return atom * atomSize + inner;
  };
  tile.swizzleB = sw.swizzleBits;
  tile.swizzleM = sw.swizzleBits ? (e == 1 ? 4 : e == 2 ? 3 : 2) : 0;
  tile.swizzleS = sw.swizzleBits ? 3 : 0;
  return tile;
}

} // namespace tilec::testing

#endif // TILEC_TESTS_COMMON_ATOMTILES_H
