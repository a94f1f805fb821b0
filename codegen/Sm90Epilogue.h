//===- codegen/Sm90Epilogue.h - The sm_90a GEMM's epilogue --------*- C++
//-*-===//
//
// The part of the sm_90a kernel (Sm90Gemm.h) after the K loop: one
// consumer warpgroup's f32 accumulators, in the wgmma D fragment layout, to
// C = alpha * acc + beta * C. Two ways out, both emitted when the kernel has
// a staging tile and chosen at run time:
//   TMA store  stmatrix into the swizzled staging tile, then
//              cp.async.bulk.tensor stores (storeTma != 0); when beta != 0
//              each chunk of C is first TMA-loaded into the buffer and
//              ldmatrix'ed back, so beta * C + alpha * acc is formed in
//              registers;
//   direct     each thread's element pairs straight to global memory,
//              predicated on the ragged edges, reading C when beta != 0
//              (storeTma == 0).
// Private to codegen/Sm90Gemm.cpp; the staging facts are public in
// Sm90Gemm.h (EpilogueStagingTile).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM90EPILOGUE_H
#define TILEC_CODEGEN_SM90EPILOGUE_H

#include "codegen/EpilogueMath.h"
#include "codegen/Sm90ColumnStage.h"
#include "codegen/Sm90Gemm.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/IRBuilder.h"

#include <optional>
#include <vector>

namespace tilec {

/// The kernel values the epilogue reads.
struct Sm90EpilogueValues {
  llvm::Function *fn = nullptr;
  llvm::Value *tid = nullptr;      ///< threadIdx.x
  llvm::Value *consumer = nullptr; ///< consumer warpgroup index (0 or 1)
  llvm::Value *m0 = nullptr;       ///< first A-role row of the tile
  llvm::Value *n0 = nullptr;       ///< first B-role row of the tile
  llvm::Value *c = nullptr, *ldc = nullptr;
  llvm::Value *rowsA = nullptr, *rowsB = nullptr;
  llvm::Value *alpha = nullptr, *beta = nullptr;
  /// With a staging tile: C's tensor map, the storeTma flag and the shared
  /// offset of the first staging buffer.
  llvm::Value *tmapC = nullptr, *storeTma = nullptr, *staging = nullptr;
  /// This warpgroup's mbarrier for the TMA loads of C (beta != 0), and the
  /// tiles the CTA finished before this one (each loaded every chunk once,
  /// which gives the barrier's phase).
  llvm::Value *cLoadBar = nullptr, *tileCount = nullptr;
  /// A batched kernel's batch (i32): the third coordinate of C's rank-3
  /// tensor map; null for one GEMM.
  llvm::Value *batch = nullptr;
  /// The column operands staged in shared memory for this tile, where the
  /// kernel stages them (Sm90ColumnStage.h); null: loaded from global.
  const Sm90ColumnStage *columns = nullptr;
  Sm90ColumnStageValues columnsAt;
};

/// The bias and scale values of a consumer thread's accumulators, loaded
/// when its tile starts, before the K loop: loaded at the epilogue, each
/// such global load stalls the tile's math for its whole latency, which is
/// longest while the ring streams the operands from HBM (on decode shapes
/// the epilogue of every tile paid it; the K loop hides it). The thread's
/// two rows (m0 + 64 consumer + 16 warp + lane / 4 + {0, 8}) and its
/// columns n0 + 8 j + 2 (lane % 4) + {0, 1} of the first \c blocks
/// 8-column blocks: all of them where the registers allow
/// (sm90PreloadedBlocks); the rest the epilogue reads from the column stage
/// (Sm90ColumnStage.h) or, where the kernel has none, loads, a chunk ahead
/// on the staged path.
/// Empty without swiglu-free ops that read an operand.
struct Sm90EpilogueOperands {
  EpilogueOperandValues rows[2];
  /// Columns 8 j + {0, 1} of block j at 2 j and 2 j + 1.
  std::vector<EpilogueOperandValues> cols;
  unsigned blocks = 0;
};

/// The 8-column blocks whose column operands a consumer thread keeps in
/// registers across the K loop: all BN / 8 where they fit beside the
/// accumulators under the kernel's register cap, else fewer (0 without a
/// column operand).
unsigned sm90PreloadedBlocks(const Sm90GemmConfig &config);

/// The registers a consumer thread holds its Sm90EpilogueOperands in
/// through the K loop: two per row operand (rows r and r + 8; under
/// swap-AB the user's column operands) and two per preloaded 8-column
/// block and column operand, for each row block.
/// Example: BM 128, BN 128, bias(row) scale(col), 16 blocks preloaded: 34.
unsigned sm90PreloadedRegisters(const Sm90GemmConfig &config);

/// Loads the Sm90EpilogueOperands of the tile \p values describes (call
/// it before the tile's K loop).
Sm90EpilogueOperands
emitSm90EpilogueOperandLoads(llvm::IRBuilder<> &b, const Sm90GemmConfig &config,
                             const Sm90EpilogueValues &values);

/// A run [first, end) of the tile's 8-column blocks of the wgmma N (the
/// accumulator registers 4 first .. 4 end - 1); end 0: all of them.
struct Sm90EpilogueBlocks {
  unsigned first = 0, end = 0;
};

/// The blocks each of the \p splits CTAs of a split-K cluster sums and
/// stores (Sm90Gemm.h): whole chunks of the staging tile, or whole blocks
/// without one, as evenly as they divide (a share may be empty). Not with
/// swiglu, which pairs blocks across the tile.
std::vector<Sm90EpilogueBlocks>
sm90SplitShares(const Sm90GemmConfig &config,
                const std::optional<EpilogueStagingTile> &staging,
                unsigned splits);

/// Emits the epilogue of one output tile for the accumulators \p acc of
/// consumer warpgroup values.consumer at the builder's insertion point,
/// with the operand values \p operands loaded before the K loop; every
/// path ends by branching to \p exit. \p blocks: the part of the tile
/// this CTA stores (a split-K cluster's share), by default all of it.
void emitSm90Epilogue(llvm::IRBuilder<> &b, const Sm90GemmConfig &config,
                      const std::optional<EpilogueStagingTile> &staging,
                      const Sm90EpilogueValues &values,
                      const Sm90EpilogueOperands &operands,
                      llvm::ArrayRef<llvm::Value *> acc, llvm::BasicBlock *exit,
                      Sm90EpilogueBlocks blocks = {});

/// After a consumer's last tile: its warpgroup leader waits until every TMA
/// store it issued has completed (nothing without a staging tile).
void emitSm90EpilogueDrain(llvm::IRBuilder<> &b, const Sm90GemmConfig &config,
                           const std::optional<EpilogueStagingTile> &staging,
                           const Sm90EpilogueValues &values);

} // namespace tilec

#endif // TILEC_CODEGEN_SM90EPILOGUE_H
