//===- ir/layout/SmemTileFromLayout.cpp - Layout values as operand tiles ---------===//
#include "ir/layout/SmemTileFromLayout.h"

#include "llvm/Support/FormatVariadic.h"

#include <memory>

namespace tilec {

llvm::Expected<SmemTileLayout> smemTileFromLayout(const LayoutValue &value) {
  Layout layout;
  Swizzle swizzle;
  int64_t offset = 0;
  if (value.isLayout()) {
    layout = value.getLayout();
  } else if (value.isComposed()) {
    const ComposedLayout &c = value.getComposed();
    layout = c.layout;
    swizzle = c.swizzle;
    offset = c.offset;
  } else {
    return llvm::createStringError(
        llvm::formatv("the expression is {0}, not a layout; a shared-memory "
                      "operand tile is a layout over (MN, K)",
                      value.str())
            .str());
  }
  if (layout.rank() != 2)
    return llvm::createStringError(
        llvm::formatv("the layout {0} has rank {1}; a shared-memory operand "
                      "tile has rank 2, (MN, K)",
                      layout.str(), layout.rank())
            .str());
  SmemTileLayout tile;
  tile.mnSize = layout.mode(0).size();
  tile.kSize = layout.mode(1).size();
  auto offsets = std::make_shared<std::vector<int64_t>>(layout.offsets());
  int64_t mnSize = tile.mnSize;
  tile.offset = [offsets, offset, mnSize](int64_t mn, int64_t k) {
    return offset + (*offsets)[mn + mnSize * k];
  };
  if (!swizzle.isIdentity()) {
    tile.swizzleB = swizzle.bits;
    tile.swizzleM = swizzle.base;
    tile.swizzleS = swizzle.shift;
  }
  return tile;
}

} // namespace tilec
