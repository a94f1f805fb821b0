//===- codegen/Sm100Epilogue.h - The sm_100a GEMM's epilogue -----*- C++ -*-===//
//
// The part of the sm_100a kernel (Sm100Gemm.h) run by the epilogue
// warpgroup (warps 0..3) for one output tile: wait until the MMA warp's
// last commit of the tile has filled its accumulator buffer in tensor
// memory, read each warp's 32 rows with tcgen05.ld.32x32b in chunks of
// columns, hand the buffer back to the MMA warp (accumulator-empty) once
// the last load has completed, and store C = alpha * acc (+ beta * C) with
// the epilogue ops applied (codegen/EpilogueMath) directly to global
// memory, predicated on the ragged edges (with swiglu, C = silu(gate) *
// up from two accumulator chunks of the same thread). Under swap-AB the
// stores are transposed; under split-K a unit first publishes its f32
// partial and only the tile's last unit sums the partials and stores C.
// Private to codegen/Sm100Gemm.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM100EPILOGUE_H
#define TILEC_CODEGEN_SM100EPILOGUE_H

#include "codegen/Sm100Gemm.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"

#include <optional>

namespace tilec {

/// The kernel values the epilogue reads.
struct Sm100EpilogueValues {
  llvm::Function *fn = nullptr;
  llvm::Value *tid = nullptr;       ///< threadIdx.x, 0..127 here
  llvm::Value *m0 = nullptr;        ///< first row of the tile
  llvm::Value *n0 = nullptr;        ///< first column of the tile
  llvm::Value *c = nullptr, *ldc = nullptr;
  llvm::Value *rowsA = nullptr, *rowsB = nullptr; ///< M and N
  llvm::Value *alpha = nullptr, *beta = nullptr;
  llvm::Value *numK = nullptr;      ///< K tiles; 0: the accumulator is 0
  llvm::Value *tmemBase = nullptr;  ///< the tile's accumulator buffer
  llvm::Value *accFullBar = nullptr; ///< completes when the buffer's D is final
  llvm::Value *accEmptyBar = nullptr; ///< each thread arrives after its loads
  /// accEmptyBar is a shared::cluster address (a CTA pair: the leader's
  /// barrier), arrived on with .release.cluster.
  bool accEmptyCluster = false;
  llvm::Value *accParity = nullptr;  ///< the phase of this use of the buffer
  /// Swap-AB: D is C^T (lane i is column n0 + i of C, D's column j row
  /// m0 + j); rowsA is then N and rowsB M.
  bool swapAB = false;
  /// Split-K (all set, or all null): the f32 partials, a u32 counter per
  /// tile, this unit's tile id and split, and a shared word through which
  /// the counting thread tells the others whether their unit is the last.
  llvm::Value *workspace = nullptr, *counters = nullptr;
  llvm::Value *tileId = nullptr, *split = nullptr, *flagAddr = nullptr;
  /// The staged epilogue (all set, or all null): C's tensor map, the
  /// storeTma flag (0: direct stores) and the staging buffers' shared
  /// address.
  llvm::Value *tmapC = nullptr, *storeTma = nullptr, *staging = nullptr;
};

/// Columns one tcgen05.ld of the epilogue reads: 32, or 16 when the
/// thread's span (sm100AccumulatorSpan: BN, or BN / 2 on the pair's M =
/// 128) is an odd multiple of 16, or 8 when it is an odd multiple of 8
/// (BM = 64 only: 16x256b.x1); with swiglu's halves the largest of 32,
/// 16, 8 that divides span / 2.
unsigned sm100EpilogueChunk(const Sm100GemmConfig &config);

/// Emits the epilogue at the builder's insertion point; ends by branching
/// to \p exit. With \p staging, the staged path
/// (emitSm100StagedEpilogue) when storeTma != 0, direct stores otherwise.
void emitSm100Epilogue(llvm::IRBuilder<> &b, const Sm100GemmConfig &config,
                       const std::optional<EpilogueStagingTile> &staging,
                       const Sm100EpilogueValues &values,
                       llvm::BasicBlock *exit);

/// One chunk of the accumulator at \p taddr (lane and column): \p columns
/// columns with tcgen05.ld.32x32b, or with \p fragment the 16x256b shape
/// (columns / 8 repetitions: the mma fragment of 16 lanes), then
/// tcgen05.wait::ld; when \p isLast (the thread's last load of the
/// buffer) the accumulator-empty hand-back; zeros when K = 0.
llvm::SmallVector<llvm::Value *>
emitSm100AccumulatorLoad(llvm::IRBuilder<> &b,
                         const Sm100EpilogueValues &values, llvm::Value *taddr,
                         unsigned columns, bool fragment, bool isLast);

/// The staged epilogue of one tile (codegen/Sm100StagedEpilogue.cpp), after
/// the accumulator-full wait: per chunk of \p tile's columns, each warp's
/// tcgen05.ld.16x256b of its rows, stmatrix into the chunk's staging
/// buffer, fence.proxy.async, one thread's TMA store. Ends by branching to
/// \p exit.
void emitSm100StagedEpilogue(llvm::IRBuilder<> &b,
                             const Sm100GemmConfig &config,
                             const EpilogueStagingTile &tile,
                             const Sm100EpilogueValues &values,
                             llvm::BasicBlock *exit);

/// After the epilogue's last tile: thread 0 (\p tid) waits until the
/// staging buffers' TMA stores have read them, before the CTA's shared
/// memory goes away; then branches to \p exit.
void emitSm100StagedDrain(llvm::IRBuilder<> &b, llvm::Value *tid,
                          llvm::BasicBlock *exit);

} // namespace tilec

#endif // TILEC_CODEGEN_SM100EPILOGUE_H
