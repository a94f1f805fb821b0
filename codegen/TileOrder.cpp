//===- codegen/TileOrder.cpp - Grouped order of a persistent grid's tiles -===//
//
// The IR and host forms of the one grouped tile order (TileOrder.h); the IR
// is built in the order the sm_90a kernel has always built it, so its PTX
// did not change when it moved here.
//
//===----------------------------------------------------------------------===//
#include "codegen/TileOrder.h"

#include "llvm/IR/Intrinsics.h"

#include <algorithm>

namespace tilec {

TilePosition emitGroupedTile(llvm::IRBuilderBase &b, llvm::Value *t,
                          llvm::Value *tilesM, llvm::Value *tilesN,
                          unsigned groupM) {
  llvm::Value *group = b.getInt32(groupM);
  llvm::Value *groupTiles = b.CreateMul(tilesN, group);
  llvm::Value *first = b.CreateMul(b.CreateUDiv(t, groupTiles), group);
  llvm::Value *rows = b.CreateBinaryIntrinsic(
      llvm::Intrinsic::umin, b.CreateSub(tilesM, first), group);
  llvm::Value *inGroup = b.CreateURem(t, groupTiles);
  TilePosition coord;
  coord.row = b.CreateAdd(first, b.CreateURem(inGroup, rows));
  coord.col = b.CreateUDiv(inGroup, rows);
  return coord;
}

std::pair<uint64_t, uint64_t> groupedTile(uint64_t t, uint64_t tilesM,
                                          uint64_t tilesN, unsigned groupM) {
  uint64_t groupTiles = tilesN * groupM;
  uint64_t first = t / groupTiles * groupM;
  uint64_t rows = std::min<uint64_t>(tilesM - first, groupM);
  uint64_t inGroup = t % groupTiles;
  return {first + inGroup % rows, inGroup / rows};
}

} // namespace tilec
