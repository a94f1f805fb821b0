//===- codegen/Sm90ColumnStage.h - Column operands in smem --*- C++ -*-===//
//
// The bias and scale values an sm_90a tile's epilogue reads per column of
// the kernel's tile (C's columns; C's rows under swap-AB) where a consumer
// thread cannot keep them all in registers beside its accumulators
// (sm90PreloadedBlocks < BN / 8, e.g. every 128 x 256 tile): the producer
// warpgroup's second warp, idle otherwise, copies the tile's BN values of
// each such operand as f32 into one shared-memory slot while the consumers
// run the K loop, and the epilogue reads them with ld.shared. Loaded from
// global memory in the epilogue instead, each chunk of the staged store
// waited for its values' latency: bias(col) cost 1.5-2% over the bare GEMM
// at 4096^3 bf16 on the H100 (bench/epilogue_cost.py), while a row operand,
// held in registers from the tile's start, cost nothing measurable.
//
// Protocol, per tile t of the CTA (t = its tileCount): the copying warp
// waits on `empty` with parity (t & 1) ^ 1 (a fresh barrier passes), loads
// the values (indices clamped as emitEpilogueOperandLoads clamps them),
// stores them, and each of its 32 lanes arrives on `full`; the consumers
// wait on `full` with parity t & 1 before the epilogue, and every consumer
// thread arrives on `empty` after it. The slot lives in the shared memory
// left over by the ring and the staging tile (Sm90SmemMap): a kernel whose
// ring leaves too little keeps the global loads.
//
// Private to codegen/Sm90Gemm.cpp and codegen/Sm90Epilogue.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM90COLUMNSTAGE_H
#define TILEC_CODEGEN_SM90COLUMNSTAGE_H

#include "codegen/EpilogueMath.h"

#include "llvm/IR/IRBuilder.h"

#include <vector>

namespace tilec {

struct Sm90GemmConfig;

/// Which ops of the list the slot holds.
struct Sm90ColumnStage {
  /// Per op of the epilogue list: the index of its BN-float array in the
  /// slot, or -1 (not a per-column operand of the kernel's tile).
  std::vector<int> arrayOf;
  unsigned arrays = 0; ///< 0: nothing to stage.
  unsigned bn = 0;

  /// The slot's bytes: BN floats per array.
  unsigned valueBytes() const { return arrays * bn * 4; }
};

/// The stage \p config's epilogue would use: its per-column bias and scale
/// ops, when not all of their blocks preload into registers; none with
/// swiglu or groups. Whether it fits is Sm90SmemMap's question.
Sm90ColumnStage sm90ColumnStageOf(const Sm90GemmConfig &config);

/// Where the stage lives (shared offsets, i32) and the tile it serves.
struct Sm90ColumnStageValues {
  llvm::Value *full = nullptr, *empty = nullptr; ///< the two mbarriers
  llvm::Value *base = nullptr;                   ///< the first array
  llvm::Value *n0 = nullptr;        ///< the tile's first column
  llvm::Value *tileCount = nullptr; ///< tiles this CTA finished before it
};

/// The copying warp's work for one tile: wait for the slot, load the BN
/// values of every array (\p lane's columns n0 + lane + 32 q), store them,
/// arrive on `full`.
void emitSm90ColumnStageFill(llvm::IRBuilder<> &b, const Sm90GemmConfig &config,
                             const Sm90ColumnStage &stage,
                             const EpilogueInputs &inputs,
                             const Sm90ColumnStageValues &at,
                             llvm::Value *lane);

/// The operand values of the kernel's column \p col of the tile (one per op
/// of the list, null for the ops the stage does not hold), read from the
/// slot.
EpilogueOperandValues emitSm90ColumnStageRead(llvm::IRBuilder<> &b,
                                              const Sm90ColumnStage &stage,
                                              const Sm90ColumnStageValues &at,
                                              llvm::Value *col);

} // namespace tilec

#endif // TILEC_CODEGEN_SM90COLUMNSTAGE_H
