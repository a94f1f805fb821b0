//===- codegen/Sm90Consumer.cpp - The sm_90a consumer warpgroups ----------===//
//
// The consumers of the kernel in Sm90Gemm.h (Sm90KernelBuilder.h): per
// output tile a K loop that waits for each ring slot, issues its wgmmas
// (or, block-scaled, wgmmas into a fresh accumulator promoted with the
// block's scales), and frees the slot, then the split-K reduction and the
// register epilogue.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90KernelBuilder.h"

#include "codegen/EpilogueMath.h"
#include "codegen/Sm90WgmmaAnnotation.h"

#include <algorithm>

namespace tilec {

llvm::Value *Sm90KernelBuilder::descriptor(const TmaOperandTile &tile,
                                           llvm::Value *address) {
  llvm::Value *low = b.CreateZExt(
      b.CreateAnd(b.CreateLShr(address, i32(4)), i32(0x3FFF)), b.getInt64Ty());
  return b.CreateOr(low, b.getInt64(tile.descriptorHigh));
}

void Sm90KernelBuilder::emitConsumer(llvm::BasicBlock *exit) {
  ptx::setMaxNReg(b, /*increase=*/true, sm90RegisterSplit(config).second);
  // The consumers write C and the split-K workspace, which the previous
  // kernel in the stream may still access (a split without K tiles writes
  // before any load of this CTA has landed).
  ptx::gridDependencyWait(b);
  llvm::Value *wg = b.CreateLShr(tid, i32(7));
  llvm::Value *ci = b.CreateSub(wg, i32(1), "consumer");
  llvm::Value *lane = b.CreateAnd(tid, i32(31), "lane");
  // Row block j's A rows start aRowOffset[j] bytes into the A stage.
  llvm::SmallVector<llvm::Value *> aRowOffset;
  for (unsigned j = 0; j < rowBlocks; ++j)
    aRowOffset.push_back(b.CreateMul(rowBlockOf(ci, j), i32(tileA.mAtomBytes)));
  llvm::BasicBlock *drain = block("consumer.drain");
  forTiles("ctile", drain, [&](llvm::BasicBlock *next) {
    emitConsumerTile(ci, lane, aRowOffset, next);
  });
  b.SetInsertPoint(drain);
  lines->at(KernelPart::Epilogue);
  emitSm90EpilogueDrain(b, config, staging, epilogueValues(ci));
  lines->at(KernelPart::Kernel);
  b.CreateBr(exit);
}

llvm::Value *Sm90KernelBuilder::rowBlockOf(llvm::Value *ci, unsigned j) {
  return rowBlocks == 1 ? ci
                        : b.CreateAdd(b.CreateMul(ci, i32(rowBlocks)), i32(j));
}

void Sm90KernelBuilder::emitConsumerTile(
    llvm::Value *ci, llvm::Value *lane,
    llvm::ArrayRef<llvm::Value *> aRowOffset, llvm::BasicBlock *exit) {
  ConsumerTile tile;
  beginConsumerTile(tile, ci);
  llvm::SmallVector<llvm::Value *> acc =
      emitConsumerMainloop(tile, lane, aRowOffset);
  endConsumerTile(tile, ci, acc, exit);
}

void Sm90KernelBuilder::beginConsumerTile(ConsumerTile &tile, llvm::Value *ci) {
  ptx::WgmmaShape &shape = tile.shape;
  shape.n = sm90PromotionN(config);
  // A 4-bit weight is dequantized to the activations' type.
  DTypeKind typeA = config.weightQuant ? config.aType : tileA.dtype;
  shape.k = sm90WgmmaK(typeA);
  shape.abType = dtypeInfo(typeA).ptxName;
  shape.bType = dtypeInfo(tileB.dtype).ptxName;
  shape.transA = tileA.major == MajorKind::MN;
  shape.transB = tileB.major == MajorKind::MN;
  // The accumulator: rowBlocks blocks of BN / 2 registers, block j the
  // wgmma D of 64-row block j (rowBlockOf) at A-role row offset
  // aRowOffset[j].
  tile.blockRegs = 64 * config.bn / 128;
  // A grouped tile: its group's scales, and the rows of the group.
  llvm::Value *tileSfa = sfa, *tileSfb = sfb;
  if (config.group) {
    tile.rowEnd = tileGroup->rowEnd;
    if (config.group->kind == GroupKind::Contiguous) {
      Sm90GroupRows rows = emitSm90GroupRows(
          b, groupValues, m0, tileGroup->group, tid, ci, config.bm);
      tile.rowEnd = rows.bound;
      tile.full = rows.full;
    }
    if (config.blockScale)
      std::tie(tileSfa, tileSfb) = tileScales();
  }
  // Block scales (Sm90BlockScale.h): one scaler per row block, each K
  // block's scales loaded one block ahead (or read from the ring where
  // they are staged, sm90StagesBlockScales).
  if (config.blockScale) {
    std::vector<Sm90BlockScale> scalers;
    for (unsigned j = 0; j < rowBlocks; ++j)
      scalers.emplace_back(b, *config.blockScale, config.bn, config.swapAB,
                           Sm90BlockScaleValues{tileSfa, tileSfb, tid,
                                                rowBlockOf(ci, j), m0, n0,
                                                rowsA, rowsB, k});
    tile.scales.emplace(std::move(scalers), sm90StagesBlockScales(config));
  }

  // The epilogue's bias and scale values load now, their latency under
  // the K loop (Sm90EpilogueOperands), for each 64-row block.
  tile.operands.resize(rowBlocks);
  if (!config.epilogueOps.empty())
    for (unsigned j = 0; j < rowBlocks; ++j)
      tile.operands[j] = emitSm90EpilogueOperandLoads(
          b, config, epilogueValues(rowBlockOf(ci, j)));

  if (tile.scales)
    tile.scales->loadFirst(b, kBegin, kCount);
}

llvm::SmallVector<llvm::Value *> Sm90KernelBuilder::issueWgmmas(
    const ptx::WgmmaShape &shape, llvm::SmallVector<llvm::Value *> acc,
    llvm::Value *aRows, llvm::Value *bRows, bool overwrite) {
  ptx::wgmmaFence(b);
  for (unsigned kk = 0; kk < config.bk / shape.k; ++kk) {
    llvm::Value *descA =
        descriptor(tileA, b.CreateAdd(aRows, i32(kk * tileA.kStepBytes)));
    llvm::Value *descB =
        descriptor(tileB, b.CreateAdd(bRows, i32(kk * tileB.kStepBytes)));
    acc = ptx::wgmmaSs(
        b, shape, acc, descA, descB,
        config.annotate ? sm90WgmmaAnnotation(config, tileA, tileB, kk) : "",
        /*overwrite=*/overwrite && kk == 0);
  }
  return acc;
}

llvm::SmallVector<llvm::Value *> Sm90KernelBuilder::issueWeightWgmmas(
    const ptx::WgmmaShape &shape, llvm::SmallVector<llvm::Value *> acc,
    llvm::Value *slot, llvm::Value *lane, llvm::Value *bRows) {
  Sm90WeightStage stage = sm90WeightStage(config);
  llvm::Value *codes =
      b.CreateAdd(aBase, b.CreateMul(slot, i32(weightTiles->codes.bytes)));
  llvm::Value *scales =
      b.CreateAdd(weightRing, b.CreateMul(slot, i32(stage.sideBytes())));
  llvm::Value *zeros =
      tmapZB ? b.CreateAdd(scales, i32(stage.scaleBytes)) : nullptr;
  // Warp w of consumer warpgroup c (warps 4 + 4 c + w of the CTA) owns
  // block row 4 c + w.
  llvm::Value *blockRow = b.CreateSub(b.CreateLShr(tid, i32(5)), i32(4));
  // Each k16 step's wgmma is issued as soon as its fragment is
  // dequantized, behind a fence (its A registers were just written), so
  // the next step's arithmetic overlaps the tensor cores.
  loadSm90WeightFragments(
      b, config, codes, scales, zeros, blockRow, lane,
      [&](unsigned kk, const std::array<llvm::Value *, 4> &fragment) {
        ptx::wgmmaFence(b);
        acc = ptx::wgmmaRs(
            b, shape, acc, fragment,
            descriptor(tileB, b.CreateAdd(bRows, i32(kk * tileB.kStepBytes))));
      });
  return acc;
}

void Sm90KernelBuilder::releaseSlotIf(llvm::Value *bar, llvm::Value *on) {
  unsigned ctas = sm90ClusterCtas(config);
  if (ctas == 1)
    ptx::mbarrierArriveIf(b, bar, on);
  else
    ptx::mbarrierArriveClusterIf(b, bar, ctas, on);
}

void Sm90KernelBuilder::releaseSlotOnce(llvm::Value *lane, llvm::Value *slot) {
  llvm::BasicBlock *release = block("release");
  llvm::BasicBlock *next = block("released");
  b.CreateCondBr(b.CreateICmpEQ(lane, i32(0)), release, next);
  b.SetInsertPoint(release);
  releaseSlot(emptyBar(slot));
  b.CreateBr(next);
  b.SetInsertPoint(next);
}

llvm::SmallVector<llvm::Value *> Sm90KernelBuilder::emitConsumerMainloop(
    ConsumerTile &tile, llvm::Value *lane,
    llvm::ArrayRef<llvm::Value *> aRowOffset) {
  if (sm90OverlapsPromotion(config))
    return emitOverlappedPromotionMainloop(tile, lane, aRowOffset[0]);
  unsigned regs = rowBlocks * tile.blockRegs;
  std::optional<Sm90ScalesAhead> &scales = tile.scales;
  bool scaled = scales.has_value();
  llvm::Constant *zero = llvm::ConstantFP::get(b.getFloatTy(), 0.0);
  llvm::BasicBlock *pre = b.GetInsertBlock();
  llvm::BasicBlock *head = block("consume.head");
  llvm::BasicBlock *body = block("consume.body");
  llvm::BasicBlock *done = block("consume.exit");
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::PHINode *kt = b.CreatePHI(b.getInt32Ty(), 2, "kt");
  kt->addIncoming(i32(0), pre);
  llvm::SmallVector<llvm::PHINode *> phis;
  for (unsigned i = 0; i < regs; ++i) {
    phis.push_back(b.CreatePHI(b.getFloatTy(), 2));
    phis.back()->addIncoming(zero, pre);
  }
  if (scaled)
    scales->enterLoop(b, pre);
  b.CreateCondBr(b.CreateICmpULT(kt, kCount), body, done);

  b.SetInsertPoint(body);
  // Block scales: this K block's scales came with the previous
  // iteration; the next block's load now (the last iteration reloads its
  // own: in bounds, unused), and the wgmmas sum into a fresh
  // accumulator (Sm90BlockScale.h).
  std::vector<Sm90BlockScales> blockScales;
  if (scaled && !scales->isStaged()) {
    blockScales = scales->current();
    llvm::Value *ahead =
        b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b.CreateAdd(kt, i32(1)),
                                b.CreateSub(kCount, i32(1)));
    scales->loadNext(b.CreateAdd(kBegin, ahead));
  }
  ConsumerSlot step;
  step.kt = kt;
  step.it = b.CreateAdd(itBase, kt);
  auto [slot, parity] = ringSlot(step.it);
  step.slot = slot;
  ptx::mbarrierWaitParity(b, fullBar(slot), parity, "wait.full");
  llvm::SmallVector<llvm::Value *> cur(phis.begin(), phis.end());
  llvm::Value *aStage = b.CreateAdd(aBase, b.CreateMul(slot, i32(tileA.bytes)));
  for (llvm::Value *offset : aRowOffset)
    step.aSlots.push_back(b.CreateAdd(aStage, offset));
  step.bSlot = b.CreateAdd(bBase, b.CreateMul(slot, i32(tileB.bytes)));
  lines->at(KernelPart::Mma);
  if (scaled)
    cur = issuePromotedSlot(tile, step, std::move(cur), blockScales, lane);
  else
    cur = issueSlot(tile, step, std::move(cur), lane);
  lines->at(KernelPart::Kernel);
  releaseConsumedSlot(tile, step, lane);
  llvm::BasicBlock *next = b.GetInsertBlock();
  kt->addIncoming(b.CreateAdd(kt, i32(1)), next);
  for (unsigned i = 0; i < regs; ++i)
    phis[i]->addIncoming(cur[i], next);
  if (scaled)
    scales->closeLoop(next);
  b.CreateBr(head);

  b.SetInsertPoint(done);
  llvm::SmallVector<llvm::Value *> fin(phis.begin(), phis.end());
  lines->at(KernelPart::Mma);
  fin = ptx::wgmmaWaitGroup(b, 0, fin);
  lines->at(KernelPart::Kernel);
  if (config.persistent && !waitsEverySlot(tile)) {
    // The next tile reuses the ring: free this tile's last slot too
    // (block-scaled tiles freed every slot in the loop).
    llvm::BasicBlock *release = block("release.last");
    llvm::BasicBlock *after = block("release.last.done");
    b.CreateCondBr(b.CreateAnd(b.CreateICmpUGT(kCount, i32(0)),
                               b.CreateICmpEQ(lane, i32(0))),
                   release, after);
    b.SetInsertPoint(release);
    llvm::Value *last = b.CreateURem(
        b.CreateSub(b.CreateAdd(itBase, kCount), i32(1)), i32(config.stages));
    releaseSlot(emptyBar(last));
    b.CreateBr(after);
    b.SetInsertPoint(after);
  }
  return fin;
}

bool Sm90KernelBuilder::stagesTwoBlocks(const ConsumerTile &tile) const {
  return tile.scales && tile.scales->isStaged() && rowBlocks == 2;
}

// Block scales promoted in halves (BN 256, A and B as written, K whole):
// the slot is free once the second half's wgmmas are waited for, before
// its promotion (its scales are in registers by then): one predicated
// arrival per consumer warp. H200, session 18
// (bench/results/fp8_block_sweep_h200_session18_release_*.log): 64 x 32768
// x 512 BM 64 BN 256 9.46 -> 8.70 us, 128 x 32768 x 512 BM 128 11.46 ->
// 11.10; the same release for whole-BN promotions left the 256 x 128 tile
// unchanged and made BN 192 13-17% slower (4096^3 134 -> 152 us), and BN
// 224 with split-K 20% slower, so they keep the release after the
// promotion.
bool Sm90KernelBuilder::releasesAfterWait(const ConsumerTile &tile) const {
  return tile.scales && !config.swapAB && !config.splitK &&
         sm90PromotionN(config) < config.bn;
}

bool Sm90KernelBuilder::waitsEverySlot(const ConsumerTile &tile) const {
  return tile.scales.has_value() || weightTiles.has_value();
}

llvm::SmallVector<llvm::Value *> Sm90KernelBuilder::issuePromotedSlot(
    ConsumerTile &tile, const ConsumerSlot &step,
    llvm::SmallVector<llvm::Value *> cur,
    llvm::ArrayRef<Sm90BlockScales> blockScales, llvm::Value *lane) {
  const ptx::WgmmaShape &shape = tile.shape;
  unsigned blockRegs = tile.blockRegs;
  Sm90ScalesAhead &scales = *tile.scales;
  auto releaseNow = [&] {
    releaseSlotIf(emptyBar(step.slot),
                  b.CreateZExt(b.CreateICmpEQ(lane, i32(0)), b.getInt32Ty()));
  };
  bool releaseAfterWait = releasesAfterWait(tile);
  // Per row block and promotion step (sm90PromotionN: all of BN, or each
  // half) the first wgmma overwrites (scale-d 0) a fresh accumulator whose
  // registers need no zeroing; the step's partial sums are waited for and
  // promoted into their columns of the block's main accumulator before the
  // next step reuses the fresh registers.
  llvm::Value *poison = llvm::PoisonValue::get(b.getFloatTy());
  // Two staged row blocks (a 256-row tile with staged scales,
  // sm90StagesBlockScales): the second block's wgmmas take the first's
  // waited fresh registers as their (unread, scale-d 0) inputs, so ptxas
  // keeps the first promotion's FMAs, which read them, above the second
  // issue instead of hoisting it with two fresh accumulators live (spills
  // at 256 x 128).
  bool tieBlocks = stagesTwoBlocks(tile);
  llvm::SmallVector<llvm::Value *> waited;
  for (unsigned j = 0; j < rowBlocks; ++j) {
    llvm::SmallVector<llvm::Value *> main(
        llvm::ArrayRef<llvm::Value *>(cur).slice(j * blockRegs, blockRegs));
    // Staged scales: read from the slot (still held) when the block's
    // wgmmas are issued, so they are live only through its promotion.
    std::optional<Sm90BlockScales> staged;
    unsigned steps = config.bn / shape.n;
    for (unsigned s = 0; s < steps; ++s) {
      llvm::SmallVector<llvm::Value *> fresh =
          waited.size() == shape.n / 2
              ? waited
              : llvm::SmallVector<llvm::Value *>(shape.n / 2, poison);
      llvm::SmallVector<llvm::Value *> part =
          issueWgmmas(shape, std::move(fresh), step.aSlots[j],
                      b.CreateAdd(step.bSlot, i32(s * tileB.mAtomBytes)), true);
      ptx::wgmmaCommitGroup(b);
      if (scales.isStaged() && !staged)
        staged = scales.scaler(j).readStaged(scaleSlot(step.slot), config.bm);
      bool last = j + 1 == rowBlocks && s + 1 == steps;
      main = scales.scaler(j).promote(
          main, part, staged ? *staged : blockScales[j], s * shape.n / 8,
          /*younger=*/0, tieBlocks ? &waited : nullptr,
          last && releaseAfterWait ? llvm::function_ref<void()>(releaseNow)
                                   : llvm::function_ref<void()>());
    }
    std::copy(main.begin(), main.end(), cur.begin() + j * blockRegs);
  }
  return cur;
}

llvm::SmallVector<llvm::Value *>
Sm90KernelBuilder::issueSlot(ConsumerTile &tile, const ConsumerSlot &step,
                             llvm::SmallVector<llvm::Value *> cur,
                             llvm::Value *lane) {
  unsigned blockRegs = tile.blockRegs;
  // Every row block's wgmmas in one group.
  if (weightTiles)
    cur = issueWeightWgmmas(tile.shape, cur, step.slot, lane, step.bSlot);
  for (unsigned j = 0; j < rowBlocks && !weightTiles; ++j) {
    llvm::SmallVector<llvm::Value *> acc = issueWgmmas(
        tile.shape,
        llvm::SmallVector<llvm::Value *>(
            llvm::ArrayRef<llvm::Value *>(cur).slice(j * blockRegs, blockRegs)),
        step.aSlots[j], step.bSlot, false);
    std::copy(acc.begin(), acc.end(), cur.begin() + j * blockRegs);
  }
  ptx::wgmmaCommitGroup(b);
  // RS wgmmas read their A registers asynchronously, and the next
  // iteration's dequantization writes the same PTX registers (one loop
  // body): writing them before the group completes is undefined. The
  // two-CTA BM 128 kernel (80 registers) summed one warp's 16 channels
  // wrong now and then on the H200 with wait_group 1 here (ptxas did not
  // serialize it), so a 4-bit weight's slot waits for its own group and
  // is freed at once. Dequantizing the next slot into other registers
  // while this group runs (two slots an iteration) made ptxas serialize
  // every wgmma (C7513: "non wgmma instructions defining input registers
  // of a wgmma between start and end of the pipeline stage"), 1.4-1.8x
  // slower on the H200. A group per k16 step, each commit waiting until
  // at most 3 were pending (a slot's last steps running across the slot
  // boundary, the previous slot freed a slot later), was correct and not
  // serialized, but no faster: u4 16 x 28672 x 8192 51.0 -> 55.3 us, 16 x
  // 8192 x 28672 49.4 -> 51.8, the small shapes 1-3% faster (H200, the
  // two wheels alternating,
  // bench/results/w4a16_h200_session21_{u4,e4m3}_{A,B}{1,2}.log).
  if (weightTiles)
    cur = ptx::wgmmaWaitGroup(b, 0, cur);
  else
    ptx::wgmmaWaitGroup(b, 1, {});
  return cur;
}

void Sm90KernelBuilder::releaseConsumedSlot(const ConsumerTile &tile,
                                            const ConsumerSlot &step,
                                            llvm::Value *lane) {
  // Free a slot whose wgmmas have completed, one arrival per consumer
  // warp: with block scales or a quantized weight this one (the promotion
  // or the wait took all of them; halves: freed after the wait), else the
  // previous one (at most one group is pending).
  bool waitedAll = waitsEverySlot(tile);
  llvm::Value *lead = b.CreateICmpEQ(lane, i32(0));
  if (releasesAfterWait(tile))
    return; // freed before the second half's promotion
  if (stagesTwoBlocks(tile)) {
    // A predicated arrival, no branch: no block after the promotion into
    // which its FMAs could be sunk below the next iteration's wgmmas
    // (sm90StagesBlockScales' 256-row tiles: no cluster, or 1x2).
    releaseSlotIf(emptyBar(step.slot), b.CreateZExt(lead, b.getInt32Ty()));
    return;
  }
  llvm::BasicBlock *release = block("release");
  llvm::BasicBlock *next = block("consume.next");
  b.CreateCondBr(
      waitedAll ? lead : b.CreateAnd(b.CreateICmpUGT(step.kt, i32(0)), lead),
      release, next);
  b.SetInsertPoint(release);
  llvm::Value *freed =
      waitedAll ? step.slot
                : b.CreateURem(b.CreateAdd(step.it, i32(config.stages - 1)),
                               i32(config.stages));
  releaseSlot(emptyBar(freed));
  b.CreateBr(next);
  b.SetInsertPoint(next);
}

void Sm90KernelBuilder::endConsumerTile(ConsumerTile &tile, llvm::Value *ci,
                                        llvm::SmallVector<llvm::Value *> fin,
                                        llvm::BasicBlock *exit) {
  unsigned blockRegs = tile.blockRegs;
  // A split-K cluster built for its split count: every CTA sums and
  // stores its share of the tile (emitClusterSplitScatter).
  bool scatter = config.splitKCluster && config.clusterSplits >= 2 &&
                 !findSwiglu(config.epilogueOps);
  if (config.splitK && !scatter)
    fin = config.splitKCluster
              ? emitSm90ClusterSplitReduce(b, config, splitValues(), fin, exit)
              : emitSm90SplitReduce(b, config, splitValues(), fin, exit);

  lines->at(KernelPart::Epilogue);
  Sm90EpilogueValues values = epilogueValues(rowBlockOf(ci, 0));
  if (config.group)
    applySm90GroupEpilogue(b, *config.group, config.bm, config.cType, values,
                           tile.rowEnd, tile.full, tileGroup->group);
  llvm::BasicBlock *after = exit;
  if (columnBars) {
    // This tile's column operands are in the stage; once the epilogue
    // has read them, the copier may refill it.
    values.columns = &columnStage;
    values.columnsAt = columnStageValues();
    ptx::mbarrierWaitParity(b, values.columnsAt.full,
                            b.CreateAnd(tileCount, i32(1)), "cols.full");
    after = block("cols.release");
  }
  if (scatter) {
    for (const Sm90SplitShare &share : emitSm90ClusterSplitScatter(
             b, config, staging, splitValues(), fin, after)) {
      b.SetInsertPoint(share.block);
      emitSm90Epilogue(b, config, staging, values, tile.operands[0], share.acc,
                       after, share.blocks);
    }
  } else {
    // Row block by row block (BM 256: blocks 2 ci and 2 ci + 1, each
    // with its own staging tile and C-load barrier).
    for (unsigned j = 0; j < rowBlocks; ++j) {
      llvm::BasicBlock *then =
          j + 1 < rowBlocks ? block("epilogue.rows") : after;
      Sm90EpilogueValues rows = values;
      if (j > 0) {
        Sm90EpilogueValues of = epilogueValues(rowBlockOf(ci, j));
        rows.consumer = of.consumer;
        rows.cLoadBar = of.cLoadBar;
      }
      emitSm90Epilogue(
          b, config, staging, rows, tile.operands[j],
          llvm::ArrayRef<llvm::Value *>(fin).slice(j * blockRegs, blockRegs),
          then);
      if (then != after)
        b.SetInsertPoint(then);
    }
  }
  if (columnBars) {
    b.SetInsertPoint(after);
    ptx::mbarrierArrive(b, b.CreateAdd(columnBars, i32(8)));
    b.CreateBr(exit);
  }
  lines->at(KernelPart::Kernel);
}

Sm90SplitReduceValues Sm90KernelBuilder::splitValues() {
  Sm90SplitReduceValues values;
  values.tid = tid;
  values.aBase = aBase;
  values.rank = rank;
  values.splits = splits;
  values.split = split;
  values.tileId = tileId;
  values.workspace = workspace;
  values.counters = counters;
  values.flagAddr = flagAddr;
  return values;
}

Sm90EpilogueValues Sm90KernelBuilder::epilogueValues(llvm::Value *ci) {
  Sm90EpilogueValues values;
  values.fn = fn;
  values.tid = tid;
  values.consumer = ci;
  values.m0 = m0;
  values.n0 = n0;
  values.c = c;
  values.ldc = ldc;
  values.rowsA = rowsA;
  values.rowsB = rowsB;
  values.alpha = alpha;
  values.beta = beta;
  values.tmapC = tmapC;
  values.storeTma = storeTma;
  values.staging = stagingBase;
  values.cLoadBar =
      cLoadBars ? b.CreateAdd(cLoadBars, b.CreateMul(ci, i32(8))) : nullptr;
  values.tileCount = tileCount;
  values.batch = batch;
  return values;
}

} // namespace tilec
