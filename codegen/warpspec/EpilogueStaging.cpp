//===- codegen/warpspec/EpilogueStaging.cpp - C's staging tile -----------===//
#include "codegen/warpspec/EpilogueStaging.h"

#include "ir/arch/SwizzleMode.h"
#include "ir/layout/LayoutExpr.h"
#include "ir/layout/SwizzleAtom.h"

namespace tilec {

namespace {

llvm::Error fail(const std::string &message) {
  return llvm::createStringError(message);
}

} // namespace

llvm::Expected<SmemAddress>
epilogueStagingAddress(const EpilogueStagingTile &tile) {
  auto layout = evaluateLayoutExpr(tile.layout);
  if (!layout)
    return layout.takeError();
  if (!layout->isComposed())
    return fail("staging layout " + tile.layout + " is not swizzled");
  return SmemAddress::get(layout->getComposed(), tile.rows, tile.cols,
                          "C staging");
}

llvm::Expected<EpilogueStagingTile>
epilogueStagingTile(DTypeKind cType, unsigned bn, bool halved,
                    unsigned rowBytes, unsigned rows, bool transposed) {
  const unsigned elem = 2;
  std::string type = dtypeInfo(cType).name.str();
  EpilogueStagingTile tile;
  tile.transposed = transposed;
  if (transposed) {
    // A staging row is the warpgroup's 64 A-role rows (C's columns): 128
    // bytes; a chunk is the largest power-of-two run of wgmma N columns
    // (C's rows) up to 64 that divides BN.
    if (rowBytes != 0 && rowBytes != 128)
      return fail("with swap-AB a staging row is the warpgroup's 64 rows of "
                  "the A role (128 bytes of " +
                  type + "): the epilogue takes swizzle(128B), not " +
                  std::to_string(rowBytes) + "B");
    rowBytes = 128;
    tile.cols = 64;
    tile.rows = 64;
    while (bn % tile.rows != 0)
      tile.rows /= 2;
    tile.chunks = bn / tile.rows;
  } else {
    // The widest row whose columns divide BN (BN is a multiple of 8).
    unsigned widest = 128;
    while (widest > 16 && bn % (widest / elem) != 0)
      widest /= 2;
    if (rowBytes == 0)
      rowBytes = widest;
    if (!swizzleOfBytes(rowBytes))
      return fail("a staging row of " + std::to_string(rowBytes) +
                  " bytes is no swizzle atom row; legal: 16 (none), 32, 64, "
                  "128");
    tile.rows = rows;
    tile.cols = rowBytes / elem;
    if (bn % tile.cols != 0)
      return fail(std::string(halved ? "BN / 2 (swiglu)" : "BN") + " = " +
                  std::to_string(bn) + " is not a multiple of the " +
                  std::to_string(tile.cols) + " " + type + " columns of a " +
                  std::to_string(rowBytes) +
                  "-byte staging row; use a row of at most " +
                  std::to_string(widest) + " bytes or a BN that it divides");
    tile.chunks = bn / tile.cols;
  }
  tile.swizzleBytes = rowBytes == 16 ? 0 : rowBytes;
  tile.layout = "tile_to_shape(" +
                swizzleAtomName(MajorKind::K, *swizzleOfBytes(rowBytes)) + "<" +
                type + ">, (" + std::to_string(tile.rows) + "," +
                std::to_string(tile.cols) + "))";
  tile.bytes = tile.rows * tile.cols * elem;
  tile.buffers = tile.chunks > 1 ? 2 : 1;
  // The epilogue's addresses come from this layout: it must evaluate to a
  // swizzled (rows, cols) layout.
  if (auto smem = epilogueStagingAddress(tile); !smem)
    return smem.takeError();
  return tile;
}

} // namespace tilec
