//===- codegen/warpspec/OperandTile.cpp - A ring slot's operand tile ------===//
//
// tmaOperandTile: the layout algebra picks the tile's swizzle atom and the
// descriptor derivation (ir/arch/DescriptorDerivation) matches it against the
// PTX ISA's canonical forms for the target's MMA.
//
//===----------------------------------------------------------------------===//
#include "codegen/warpspec/OperandTile.h"

#include "ir/arch/Arch.h"
#include "ir/arch/DescriptorDerivation.h"
#include "ir/arch/InstrTable.h"
#include "ir/layout/LayoutExpr.h"
#include "ir/layout/SmemTileFromLayout.h"
#include "ir/layout/SwizzleAtom.h"

#include "llvm/ADT/STLExtras.h"

namespace tilec {

llvm::Expected<TmaOperandTile> tmaOperandTile(unsigned rows, unsigned bk,
                                              DTypeKind dtype, MajorKind major,
                                              unsigned mmaMN, ArchKind arch) {
  // K-major: tile_to_shape(K_SWx<T>, (rows, bk)) with x = bk * element
  // bytes, 8-row x x-byte atoms stacked along the rows: what one TMA box of
  // bk x rows with x-byte swizzle writes. MN-major: the largest MN_SWx<T>
  // atom whose MN extent (x / element bytes) divides rows, tiled K first
  // (order (1,0)), so that each rows-slice of one atom width is one TMA box
  // of (x / element bytes) x bk. The layout algebra builds the tile and the
  // descriptor derivation matches it against the PTX ISA's canonical forms;
  // the derived subtile offsets give the descriptor advance per wgmma K step
  // and per 64 rows, and must be affine so an add to the low bits reaches
  // each.
  unsigned bytes = dtypeBits(dtype) / 8;
  std::string typeName = dtypeInfo(dtype).name.str();
  const InstrInfo *instr = instrFor(nativeFamily(arch), dtype);
  if (!instr)
    return llvm::createStringError(std::string(familyName(nativeFamily(arch))) +
                                   " on " + archInfo(arch).name.str() +
                                   " takes no " + typeName + " operand");
  std::string expr;
  unsigned span = 0;
  if (major == MajorKind::K) {
    span = bk * bytes;
    auto mode = swizzleOfBytes(span);
    if (!mode || *mode == SwizzleKind::None)
      return llvm::createStringError(
          "a K-major tile row of BK = " + std::to_string(bk) + " " + typeName +
          " is " + std::to_string(span) +
          " bytes, not one swizzle atom row (32, 64 or 128 bytes)");
    expr = "tile_to_shape(" + swizzleAtomName(MajorKind::K, *mode) + "<" +
           typeName + ">, (" + std::to_string(rows) + "," + std::to_string(bk) +
           "))";
  } else {
    for (const SwizzleInfo &mode : llvm::reverse(allSwizzles())) {
      if (rows % (mode.bytes / bytes) != 0)
        continue;
      span = mode.bytes;
      expr = "tile_to_shape(" + swizzleAtomName(MajorKind::MN, mode.kind) +
             "<" + typeName + ">, (" + std::to_string(rows) + "," +
             std::to_string(bk) + "), (1,0))";
      break;
    }
    if (expr.empty())
      return llvm::createStringError(
          "an MN-major tile of " + std::to_string(rows) + " rows of " +
          typeName + " fits no swizzle atom (rows must be a multiple of " +
          std::to_string(16 / bytes) + ")");
  }
  auto value = evaluateLayoutExpr(expr);
  if (!value)
    return value.takeError();
  auto smemTile = smemTileFromLayout(*value);
  if (!smemTile)
    return smemTile.takeError();
  DerivationRequest request;
  request.arch = arch;
  request.dtype = dtype;
  request.major = major;
  request.mmaMN = mmaMN;
  request.mmaK = instr->k;
  request.base = 0;
  auto derived = deriveSmemDescriptor(*smemTile, request);
  if (!derived)
    return derived.takeError();
  const auto &offsets = derived->subtileOffsets;
  TmaOperandTile tile;
  tile.rows = rows;
  tile.layout = expr;
  tile.dtype = dtype;
  tile.major = major;
  tile.bytes = rows * bk * bytes;
  tile.swizzleBytes = swizzleInfo(derived->fields.swizzle).bytes;
  tile.descriptorHigh = derived->desc & ~uint64_t(0x3FFF);
  tile.kStepBytes = offsets[0].size() > 1 ? offsets[0][1] : 0;
  // The per-64-row advance (the second consumer's A) is the offset of MMA
  // subtile m = 1 when the request's subtile is 64 rows; B (mmaMN = N) has
  // only one subtile along its rows.
  tile.mAtomBytes = offsets.size() > 1 ? offsets[1][0] : 0;
  if (major == MajorKind::K) {
    tile.boxDims[0] = bk;
    tile.boxDims[1] = rows;
    tile.boxes = 1;
  } else {
    tile.boxDims[0] = span / bytes;
    tile.boxDims[1] = bk;
    tile.boxes = rows / tile.boxDims[0];
  }
  tile.boxBytes = tile.boxDims[0] * tile.boxDims[1] * bytes;
  for (size_t m = 0; m < offsets.size(); ++m)
    for (size_t k = 0; k < offsets[m].size(); ++k)
      if (offsets[m][k] != m * tile.mAtomBytes + k * tile.kStepBytes)
        return llvm::createStringError(
            "subtile (" + std::to_string(m) + ", " + std::to_string(k) +
            ") of " + expr + " starts at byte " +
            std::to_string(offsets[m][k]) +
            ", not on the affine grid the descriptor advance needs");
  if ((derived->desc & 0x3FFF) != 0 || derived->fields.baseOffset != 0)
    return llvm::createStringError(
        "the descriptor of " + expr +
        " at base 0 has a start address or base offset");
  return tile;
}

} // namespace tilec
