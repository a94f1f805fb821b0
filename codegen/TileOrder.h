//===- codegen/TileOrder.h - The output tiles' order -----------*- C++ -*-===//
//
// A kernel's CTAs take the output tiles by a number t: a persistent
// kernel's walk t = ctaid.x, ctaid.x + nctaid.x, ..., an sm_80 kernel's
// one tile t = ctaid.x; the order in which t numbers the tiles decides what
// the CTAs running at the same time share in L2. Row-major order sweeps a whole
// tile row of N before moving on, so a wave of CTAs reads one A tile row and
// every B tile; the grouped order below walks groupM tile rows together,
// column by column, so a wave of W CTAs reads about groupM A tile rows and
// W / groupM B tile columns (the "grouped" or "supergrouped" rasterization
// of Triton's matmul tutorial and ThunderKittens' B200 GEMM).
//
// Tile t lies in group g = t / (groupM * tilesN), which covers tile rows
// first = g * groupM .. + rows - 1 (rows = min(groupM, tilesM - first), the
// last group may be short); inside it tile rows vary fastest:
//   row = first + (t % (groupM * tilesN)) % rows
//   col =         (t % (groupM * tilesN)) / rows
//
// Example: tilesM 3, tilesN 2, groupM 2 numbers the tiles
//            col 0  col 1
//   row 0      0      2
//   row 1      1      3
//   row 2      4      5
// (the last group has one row).
//
// The sm_80 kernels and the sm_90a and sm_100a persistent kernels all
// emit this function, so there is one tile order and the host-side
// groupedTile mirrors it for tests.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_TILEORDER_H
#define TILEC_CODEGEN_TILEORDER_H

#include "llvm/IR/IRBuilder.h"

#include <cstdint>
#include <utility>

namespace tilec {

/// A tile's (row, column) in tile units, as IR values.
struct TilePosition {
  llvm::Value *row = nullptr, *col = nullptr;
};

/// Emits the grouped order (file comment) of tile \p t (i32) of a
/// \p tilesM x \p tilesN grid of tiles (i32), \p groupM tile rows per group.
TilePosition emitGroupedTile(llvm::IRBuilderBase &b, llvm::Value *t,
                          llvm::Value *tilesM, llvm::Value *tilesN,
                             unsigned groupM);

/// The same order on the host: {row, column} of tile \p t.
/// Example: (2, 3, 2, 2) is {0, 1} and (4, 3, 2, 2) is {2, 0} (the table
/// in the file comment).
std::pair<uint64_t, uint64_t> groupedTile(uint64_t t, uint64_t tilesM,
                                          uint64_t tilesN, unsigned groupM);

} // namespace tilec

#endif // TILEC_CODEGEN_TILEORDER_H
