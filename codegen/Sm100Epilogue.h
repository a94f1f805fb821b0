//===- codegen/Sm100Epilogue.h - The sm_100a GEMM's epilogue -----*- C++ -*-===//
//
// The part of the sm_100a kernel (Sm100Gemm.h) run by the epilogue
// warpgroup (warps 0..3) for one output tile: wait until the MMA warp's
// last commit of the tile has filled its accumulator buffer in tensor
// memory, read each warp's 32 rows with tcgen05.ld.32x32b in chunks of
// columns, hand the buffer back to the MMA warp (accumulator-empty) once
// the last load has completed, and store C = alpha * acc (+ beta * C) with
// the epilogue ops applied (codegen/EpilogueMath) directly to global
// memory, predicated on the ragged edges. Under swap-AB the stores are
// transposed; under split-K a unit first publishes its f32 partial and only
// the tile's last unit sums the partials and stores C. Private to
// codegen/Sm100Gemm.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM100EPILOGUE_H
#define TILEC_CODEGEN_SM100EPILOGUE_H

#include "codegen/Sm100Gemm.h"

#include "llvm/IR/IRBuilder.h"

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
};

/// Columns one tcgen05.ld of the epilogue reads: 32, or 16 when BN is an
/// odd multiple of 16.
unsigned sm100EpilogueChunk(const Sm100GemmConfig &config);

/// Emits the epilogue at the builder's insertion point; ends by branching
/// to \p exit.
void emitSm100Epilogue(llvm::IRBuilder<> &b, const Sm100GemmConfig &config,
                       const Sm100EpilogueValues &values,
                       llvm::BasicBlock *exit);

} // namespace tilec

#endif // TILEC_CODEGEN_SM100EPILOGUE_H
