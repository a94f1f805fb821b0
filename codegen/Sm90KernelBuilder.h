//===- codegen/Sm90KernelBuilder.h - The sm_90a kernel builder ---*- C++
//-*-===//
//
// The builder of the kernel described in Sm90Gemm.h, on the shared TMA
// warp-specialized layer (codegen/warpspec/KernelBuilder.h): warpgroup 0
// produces (TMA into the ring), warpgroups 1.. consume (wgmma into register
// accumulators, then the register epilogue). Accumulators are SSA values
// carried through the K loop as phis and tied through every wgmma asm, so
// the NVPTX backend keeps one virtual register per accumulator and ptxas
// sees no copy between the asynchronous MMAs. Its skeleton (declaration,
// prologue, producer, tile walk) is built in Sm90Gemm.cpp, the consumers in
// Sm90Consumer.cpp. Internal to those two files.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM90KERNELBUILDER_H
#define TILEC_CODEGEN_SM90KERNELBUILDER_H

#include "codegen/PtxInlineAsm.h"
#include "codegen/Sm90BlockScale.h"
#include "codegen/Sm90ColumnStage.h"
#include "codegen/Sm90Epilogue.h"
#include "codegen/Sm90Gemm.h"
#include "codegen/Sm90Group.h"
#include "codegen/Sm90SmemMap.h"
#include "codegen/Sm90SplitReduce.h"
#include "codegen/Sm90WeightDequant.h"
#include "codegen/warpspec/KernelBuilder.h"

#include <functional>
#include <optional>
#include <vector>

namespace tilec {

struct Sm90KernelBuilder : WarpSpecKernelBuilder {
  const Sm90GemmConfig &config;
  TmaOperandTile tileA, tileB;
  std::optional<EpilogueStagingTile> staging;
  /// Where each part of the dynamic shared memory lives.
  Sm90SmemMap smemMap;
  unsigned consumers = 0; ///< consumer warpgroups
  unsigned rowBlocks = 1; ///< 64-row wgmma blocks per consumer warpgroup

  // Kernel-wide values besides WarpSpecKernelBuilder's.
  llvm::Value *sfa = nullptr, *sfb = nullptr; ///< block scales, if any
  /// The staged block scales' ring (sm90StagesBlockScales), else null.
  llvm::Value *scaleRing = nullptr;
  /// A quantized weight (Sm90WeightDequant.h): its scales' and zero points'
  /// maps (tmapZB null without zero points), their ring and the slot's tiles.
  llvm::Value *tmapSB = nullptr, *tmapZB = nullptr, *weightRing = nullptr;
  std::optional<Sm90WeightTiles> weightTiles;
  /// A batched kernel: the batch (%ctaid.z); C's batch stride is strideC.
  llvm::Value *batch = nullptr;
  /// A grouped kernel (Sm90Group.h): its parameters and the group of the
  /// tile being loaded or computed (set per tile by forTiles).
  Sm90GroupValues groupValues;
  std::optional<Sm90TileGroup> tileGroup;
  llvm::Value *splits = nullptr, *split = nullptr, *cLoadBars = nullptr;
  llvm::Value *tileCount = nullptr; ///< tiles this CTA finished before this
  llvm::Value *numTilesM = nullptr, *numTilesN = nullptr, *numTiles = nullptr;
  llvm::Value *itBase = nullptr; ///< ring iterations before this tile
  /// The column operands staged in shared memory (Sm90ColumnStage.h):
  /// arrays 0 without; its barriers (full, then empty) and values.
  Sm90ColumnStage columnStage;
  llvm::Value *columnBars = nullptr, *columnValues = nullptr;

  Sm90KernelBuilder(const Sm90GemmConfig &config, TmaOperandTile tileA,
                    TmaOperandTile tileB, Sm90SmemMap map, llvm::Module &module)
      : WarpSpecKernelBuilder(module, config.stages), config(config),
        tileA(std::move(tileA)), tileB(std::move(tileB)),
        staging(map.stagingTile), smemMap(std::move(map)) {
    consumers = sm90ConsumerWarpgroups(config);
    rowBlocks = sm90RowBlocks(config);
    if (config.weightQuant)
      weightTiles = sm90WeightTiles(config);
  }

  /// A counted loop kt = 0 .. kCount-1 (the CTA's K tiles, from kBegin)
  /// around \p body; returns after it.
  void forK(const llvm::Twine &name,
            const std::function<void(llvm::Value *kt)> &body);

  /// The CTA's output tiles: one (from ctaid) or, when persistent, tiles
  /// ctaid.x, ctaid.x + nctaid.x, ... in grouped order. Sets m0, n0 and
  /// itBase for \p body, which must end by branching to the block it gets.
  void forTiles(const llvm::Twine &name, llvm::BasicBlock *exit,
                const std::function<void(llvm::BasicBlock *next)> &body);

  /// A grouped kernel: looks up the group of the tile at m0 (\p group:
  /// a masked kernel's, from the grid or the walk) into tileGroup and
  /// continues in a new block when the tile is computed, else branches to
  /// \p skip.
  void enterGroupTile(const llvm::Twine &name, llvm::Value *group,
                      llvm::BasicBlock *skip);

  /// Declares the kernel from sm90KernelParams and binds its parameters.
  void createFunction();

  /// The entry: the CTA's coordinates and K range, the shared-memory
  /// parts, the barriers' initialization.
  void emitPrologue();

  /// Warpgroup 0: one elected thread of warp 0 fills the ring with TMA
  /// loads, tile after tile (warp 1 copies the column operands, warp 2 the
  /// staged block scales).
  void emitProducer(llvm::BasicBlock *exit);

  /// The producer's warp 1: each tile's column operands into the column
  /// stage, after the previous tile's epilogue has read it.
  void emitColumnCopier(llvm::BasicBlock *exit);

  /// The producer's warp 2 (sm90StagesBlockScales): each K block's scales
  /// into its ring slot's scale area, beside the TMA loads of warp 0.
  void emitScaleCopier(llvm::BasicBlock *exit);

  /// The scale area of ring slot \p slot (sm90StagesBlockScales).
  llvm::Value *scaleSlot(llvm::Value *slot);

  /// The tile's block scales (its group's under groups): sfa and sfb.
  std::pair<llvm::Value *, llvm::Value *> tileScales();

  /// The column stage's places for the current tile.
  Sm90ColumnStageValues columnStageValues();

  /// Frees a ring slot: one arrival on its empty barrier \p bar in every
  /// CTA of the cluster (each CTA's producer writes into all of them).
  void releaseSlot(llvm::Value *bar);
  /// releaseSlot by the threads where \p on (i32) is set, predicated
  /// instead of branched around.
  void releaseSlotIf(llvm::Value *bar, llvm::Value *on);
  /// A role's tile of one ring slot at \p row: loaded whole, or (\p shares
  /// = 2, the CTAs of a cluster sharing it) this CTA's BN / 2 or BM / 2 rows
  /// multicast to both.
  void loadRoleTile(const TmaOperandTile &tile, llvm::Value *slotBase,
                    llvm::Value *tmap, llvm::Value *kc, llvm::Value *row,
                    llvm::Value *full, llvm::Value *z, unsigned shares);

  /// The batch coordinate of the tensor in wgmma role A (\p roleA) or B:
  /// null when the kernel is not batched or that tensor is broadcast
  /// (declared without the batch extent; its map stays rank 2).
  llvm::Value *batchOfRole(bool roleA);

  /// The third TMA coordinate of the tensor in wgmma role A (\p roleA) or
  /// B: a grouped kernel's tile group for B (and A when masked; swap-AB is
  /// refused with groups), else the batch's (batchOfRole).
  llvm::Value *zOfRole(bool roleA);

  /// GMMA descriptor: the constant high bits or'ed with (address >> 4).
  llvm::Value *descriptor(const TmaOperandTile &tile, llvm::Value *address);

  /// Warpgroups 1..: the consumers, each tile's K loop and epilogue, then
  /// the epilogue's drain.
  void emitConsumer(llvm::BasicBlock *exit);

  /// The 64-row block \p j of consumer warpgroup \p ci: the consumer
  /// index of its epilogue and scales (ci without row blocks).
  llvm::Value *rowBlockOf(llvm::Value *ci, unsigned j);

  /// One output tile: the K loop over the ring, then the epilogue; ends by
  /// branching to \p exit.
  void emitConsumerTile(llvm::Value *ci, llvm::Value *lane,
                        llvm::ArrayRef<llvm::Value *> aRowOffset,
                        llvm::BasicBlock *exit);

  /// What a consumer's tile carries from its set-up through its K loop to
  /// its epilogue.
  struct ConsumerTile {
    ptx::WgmmaShape shape;  ///< one wgmma (N: sm90PromotionN)
    unsigned blockRegs = 0; ///< accumulator registers per row block
    /// A grouped tile: the bound of its group's rows, and (contiguous)
    /// whether every row of the tile is the group's.
    llvm::Value *rowEnd = nullptr, *full = nullptr;
    std::optional<Sm90ScalesAhead> scales;      ///< block scales, if any
    std::vector<Sm90EpilogueOperands> operands; ///< per row block
  };

  /// A tile's set-up before its K loop: the wgmma shape, a grouped tile's
  /// rows and scales, the block scales' first load, the epilogue operands'
  /// loads.
  void beginConsumerTile(ConsumerTile &tile, llvm::Value *ci);

  /// The tile's K loop over the ring: the wgmmas of each slot (promoted
  /// per K block when block-scaled), the slots' release; returns the
  /// accumulator once every wgmma has completed.
  llvm::SmallVector<llvm::Value *>
  emitConsumerMainloop(ConsumerTile &tile, llvm::Value *lane,
                       llvm::ArrayRef<llvm::Value *> aRowOffset);

  /// One ring slot of a consumer's K loop: the loop's count kt, the ring
  /// position it, its slot, the A-role rows of each row block and the
  /// B-role rows in it.
  struct ConsumerSlot {
    llvm::Value *kt = nullptr, *it = nullptr, *slot = nullptr, *bSlot = nullptr;
    llvm::SmallVector<llvm::Value *> aSlots;
  };

  /// A block-scaled slot: per row block and promotion step, the wgmmas
  /// into a fresh accumulator, waited for and promoted into \p cur with
  /// \p blockScales (or the slot's staged scales).
  llvm::SmallVector<llvm::Value *>
  issuePromotedSlot(ConsumerTile &tile, const ConsumerSlot &step,
                    llvm::SmallVector<llvm::Value *> cur,
                    llvm::ArrayRef<Sm90BlockScales> blockScales,
                    llvm::Value *lane);

  /// An unscaled slot: every row block's wgmmas (SS, or RS from the
  /// dequantized weight) into \p cur in one group.
  llvm::SmallVector<llvm::Value *>
  issueSlot(ConsumerTile &tile, const ConsumerSlot &step,
            llvm::SmallVector<llvm::Value *> cur, llvm::Value *lane);

  /// Frees the slot whose wgmmas have completed after \p step: this one
  /// when every slot is waited for (waitsEverySlot), else the previous.
  void releaseConsumedSlot(const ConsumerTile &tile, const ConsumerSlot &step,
                           llvm::Value *lane);

  /// A 256-row tile with staged scales: its two row blocks' promotions are
  /// tied together and its slot freed by a predicated arrival.
  bool stagesTwoBlocks(const ConsumerTile &tile) const;
  /// Block scales promoted in halves: the slot is freed between the second
  /// half's wait and its promotion.
  bool releasesAfterWait(const ConsumerTile &tile) const;
  /// Each slot's wgmmas are waited for within its iteration (block scales,
  /// a quantized weight), so the slot itself is freed.
  bool waitsEverySlot(const ConsumerTile &tile) const;

  /// The block-scaled K loop of sm90OverlapsPromotion
  /// (Sm90PromotionOverlap.cpp): two fresh accumulators taking turns, K
  /// block k + 1's wgmmas issued before block k is waited for and
  /// promoted; \p aRowOffset is the consumer's A rows in a stage.
  llvm::SmallVector<llvm::Value *>
  emitOverlappedPromotionMainloop(ConsumerTile &tile, llvm::Value *lane,
                                  llvm::Value *aRowOffset);

  /// A wgmma.fence, then one wgmma of \p shape per K step of a slot into
  /// \p acc: the A-role rows at shared address \p aRows against the
  /// B-role rows at \p bRows; with \p overwrite the first ignores \p acc
  /// (scale-d 0: a fresh accumulator).
  llvm::SmallVector<llvm::Value *>
  issueWgmmas(const ptx::WgmmaShape &shape,
              llvm::SmallVector<llvm::Value *> acc, llvm::Value *aRows,
              llvm::Value *bRows, bool overwrite);

  /// The quantized weight's loads of ring slot \p slot into it (codes, scales,
  /// zero points; Sm90WeightDequant.h), completing on \p full.
  void loadWeightSlot(llvm::Value *slot, llvm::Value *kc, llvm::Value *full);

  /// One RS wgmma per k16 step of ring slot \p slot, each behind its own
  /// wgmma.fence as soon as its fragment is dequantized, into \p acc: this
  /// warp's dequantized weight rows (Sm90WeightDequant.h) against the B-role
  /// rows at \p bRows.
  llvm::SmallVector<llvm::Value *>
  issueWeightWgmmas(const ptx::WgmmaShape &shape,
                    llvm::SmallVector<llvm::Value *> acc, llvm::Value *slot,
                    llvm::Value *lane, llvm::Value *bRows);

  /// Frees ring slot \p slot once per consumer warp (its lane 0).
  void releaseSlotOnce(llvm::Value *lane, llvm::Value *slot);

  /// The tile's split-K reduction, if any, and its epilogue, row block by
  /// row block; ends by branching to \p exit.
  void endConsumerTile(ConsumerTile &tile, llvm::Value *ci,
                       llvm::SmallVector<llvm::Value *> fin,
                       llvm::BasicBlock *exit);

  /// What the split-K reductions read (Sm90SplitReduce.h).
  Sm90SplitReduceValues splitValues();

  /// What the epilogue reads, for consumer warpgroup \p ci of the tile.
  Sm90EpilogueValues epilogueValues(llvm::Value *ci);

  /// The whole kernel: declaration, prologue, producer | consumers, exit.
  void build();
};

} // namespace tilec

#endif // TILEC_CODEGEN_SM90KERNELBUILDER_H
