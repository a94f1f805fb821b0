//===- codegen/Sm90Gemm.cpp - Warp-specialized TMA + wgmma GEMM -----------===//
//
// Builds the kernel described in Sm90Gemm.h with IRBuilder
// (Sm90KernelBuilder.h): the skeleton here, prologue (barrier init) ->
// producer branch | consumer branch (Sm90Consumer.cpp) -> exit, and the
// tile walk both branches share.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90Gemm.h"

#include "codegen/PtxEmitter.h"
#include "codegen/PtxInlineAsm.h"
#include "codegen/Sm90KernelBuilder.h"
#include "codegen/Sm90Limits.h"
#include "codegen/Sm90SmemMap.h"
#include "codegen/TileOrder.h"
#include "codegen/WeightDequant.h"

#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <functional>
#include <optional>

namespace tilec {

using namespace sm90;

void Sm90KernelBuilder::forK(const llvm::Twine &name,
                             const std::function<void(llvm::Value *kt)> &body) {
  llvm::BasicBlock *pre = b.GetInsertBlock();
  llvm::BasicBlock *head = block(name + ".head");
  llvm::BasicBlock *bodyBlock = block(name + ".body");
  llvm::BasicBlock *exit = block(name + ".exit");
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::PHINode *kt = b.CreatePHI(b.getInt32Ty(), 2, "kt");
  kt->addIncoming(i32(0), pre);
  b.CreateCondBr(b.CreateICmpULT(kt, kCount), bodyBlock, exit);
  b.SetInsertPoint(bodyBlock);
  body(kt);
  llvm::Value *next = b.CreateAdd(kt, i32(1), "kt.next", true, true);
  kt->addIncoming(next, b.GetInsertBlock());
  b.CreateBr(head);
  b.SetInsertPoint(exit);
}

void Sm90KernelBuilder::forTiles(
    const llvm::Twine &name, llvm::BasicBlock *exit,
    const std::function<void(llvm::BasicBlock *next)> &body) {
  if (!config.persistent) {
    itBase = i32(0);
    tileCount = i32(0);
    if (config.group) // A masked kernel's group is CTA z.
      enterGroupTile(name,
                     config.group->kind == GroupKind::Masked
                         ? b.CreateIntrinsic(
                               llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z, {})
                         : nullptr,
                     exit);
    body(exit);
    return;
  }
  // With clusters a tile is a cluster tile: clusterM neighbouring row
  // tiles or clusterN neighbouring column tiles, one per CTA of the
  // cluster, which walk the same sequence.
  llvm::Value *cm = i32(config.clusterM), *cn = i32(config.clusterN);
  llvm::Value *ctas = i32(sm90ClusterCtas(config));
  llvm::Value *first = b.CreateUDiv(
      b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, {}), ctas);
  llvm::Value *stride = b.CreateUDiv(
      b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x, {}),
      ctas);
  llvm::Value *tilesM =
      b.CreateUDiv(b.CreateAdd(numTilesM, i32(config.clusterM - 1)), cm);
  llvm::Value *tilesN =
      b.CreateUDiv(b.CreateAdd(numTilesN, i32(config.clusterN - 1)), cn);
  llvm::Value *tiles = b.CreateMul(tilesM, tilesN);
  bool masked = config.group && config.group->kind == GroupKind::Masked;
  if (masked) // Every group's tiles, the group outermost.
    tiles = b.CreateMul(tiles, groupValues.groups, "tiles.grouped");
  llvm::BasicBlock *pre = b.GetInsertBlock();
  llvm::BasicBlock *head = block(name + ".head");
  llvm::BasicBlock *bodyBlock = block(name + ".body");
  llvm::BasicBlock *latch = block(name + ".latch");
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::PHINode *t = b.CreatePHI(b.getInt32Ty(), 2, "tile");
  t->addIncoming(first, pre);
  llvm::PHINode *it = b.CreatePHI(b.getInt32Ty(), 2, "it");
  it->addIncoming(i32(0), pre);
  b.CreateCondBr(b.CreateICmpULT(t, tiles), bodyBlock, exit);
  b.SetInsertPoint(bodyBlock);
  // Grouped order (codegen/TileOrder.h): groupM tile rows advance
  // together along N so that a wave of CTAs shares A and B tiles in L2.
  llvm::Value *local = t, *group = nullptr;
  if (masked) {
    llvm::Value *perGroup = b.CreateMul(tilesM, tilesN);
    group = b.CreateUDiv(t, perGroup, "tile.group");
    local = b.CreateURem(t, perGroup);
  }
  TilePosition tile = emitGroupedTile(b, local, tilesM, tilesN, config.groupM);
  llvm::Value *tileM = b.CreateMul(tile.row, cm);
  llvm::Value *tileN = b.CreateMul(tile.col, cn);
  if (config.clusterN > 1)
    tileN = b.CreateAdd(tileN, rank);
  else
    tileM = b.CreateAdd(tileM, rank);
  m0 = b.CreateMul(tileM, i32(config.bm), "m0");
  n0 = b.CreateMul(tileN, i32(config.bn), "n0");
  itBase = it;
  tileCount = b.CreateUDiv(b.CreateSub(t, first), stride, "tileCount");
  if (!config.group) {
    body(latch);
    b.SetInsertPoint(latch);
    t->addIncoming(b.CreateAdd(t, stride), latch);
    it->addIncoming(b.CreateAdd(it, kCount), latch);
    b.CreateBr(head);
    return;
  }
  // A grouped tile outside its group is skipped: no loads, no ring
  // iterations, no stores.
  llvm::BasicBlock *done = block(name + ".done");
  llvm::BasicBlock *skip = block(name + ".skip");
  enterGroupTile(name, group, skip);
  body(done);
  b.SetInsertPoint(done);
  b.CreateBr(latch);
  b.SetInsertPoint(skip);
  b.CreateBr(latch);
  b.SetInsertPoint(latch);
  llvm::PHINode *ran = b.CreatePHI(b.getInt32Ty(), 2, "tile.its");
  ran->addIncoming(kCount, done);
  ran->addIncoming(i32(0), skip);
  t->addIncoming(b.CreateAdd(t, stride), latch);
  it->addIncoming(b.CreateAdd(it, ran), latch);
  b.CreateBr(head);
}

void Sm90KernelBuilder::enterGroupTile(const llvm::Twine &name,
                                       llvm::Value *group,
                                       llvm::BasicBlock *skip) {
  tileGroup = emitSm90TileGroup(b, *config.group, groupValues, m0, group);
  llvm::BasicBlock *run = block(name + ".group");
  b.CreateCondBr(tileGroup->valid, run, skip);
  b.SetInsertPoint(run);
}

void Sm90KernelBuilder::createFunction() {
  std::vector<KernelParam> params = sm90KernelParams(
      staging.has_value(), config.epilogueOps, config.blockScale.has_value(),
      config.batch.has_value(),
      config.group ? std::optional(config.group->kind) : std::nullopt,
      config.weightQuant);
  llvm::StringMap<llvm::Value *> byName = declareKernel(
      config.name, params, 128 * (1 + consumers), config.ctasPerSm);
  if (config.blockScale) {
    sfa = byName["sfa"];
    sfb = byName["sfb"];
  }
  if (config.weightQuant) {
    tmapSB = byName["tmapSB"];
    tmapZB = byName.lookup("tmapZB");
  }
  if (config.group) {
    groupValues.groups = byName["groups"];
    groupValues.groupIndex = byName["groupIndex"];
    groupValues.groupRows = byName["groupRows"];
    groupValues.rowsA = rowsA;
  }
}

void Sm90KernelBuilder::emitPrologue() {
  b.SetInsertPoint(block("entry"));
  // The next kernel in the stream may be scheduled now: it waits
  // (griddepcontrol.wait) for this one to complete before touching memory.
  ptx::gridDependentsLaunch(b);
  tid = b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {});
  llvm::Value *ctaX =
      b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, {});
  llvm::Value *ctaY =
      b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y, {});
  m0 = b.CreateMul(ctaX, i32(config.bm), "m0");
  n0 = b.CreateMul(ctaY, i32(config.bn), "n0");
  if (config.batch) {
    // Batch z = %ctaid.z (split-K, which also takes z, is refused with a
    // batch): the loads and TMA stores take z as the third coordinate of
    // the batched tensor maps, and the direct stores C + z * strideC.
    batch = b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z, {},
                              {}, nullptr, "batch");
    llvm::Value *bytes =
        b.CreateMul(b.CreateMul(b.CreateZExt(batch, b.getInt64Ty()), strideC),
                    b.getInt64(dtypeBits(config.cType) / 8));
    c = b.CreateGEP(b.getInt8Ty(), c, bytes, "c.batch");
  }
  numK = countOf(k, config.bk, "numK");
  kBegin = i32(0);
  kCount = numK;
  numTilesM = countOf(rowsA, config.bm, "tilesM");
  numTilesN = countOf(rowsB, config.bn, "tilesN");
  numTiles = b.CreateMul(numTilesM, numTilesN, "tiles");
  if (config.splitK) {
    // CTA z takes K tiles [z * per, min((z + 1) * per, numK)).
    splits =
        b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_z, {});
    split = b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z, {});
    llvm::Value *per = b.CreateUDiv(
        b.CreateAdd(numK, b.CreateSub(splits, i32(1))), splits, "kPer");
    kBegin = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin,
                                     b.CreateMul(split, per), numK);
    llvm::Value *end = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin,
                                               b.CreateAdd(kBegin, per), numK);
    kCount = b.CreateSub(end, kBegin, "kCount");
    llvm::Value *gridX =
        b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x, {});
    tileId = b.CreateAdd(b.CreateMul(ctaY, gridX), ctaX, "tile");
  }

  // The parts of shared memory, from the aligned base (Sm90SmemMap.h).
  llvm::Value *aligned = alignedSmemBase("smem.base");
  const Sm90SmemMap &map = smemMap;
  stagingBase = aligned;
  aBase = b.CreateAdd(aligned, i32(map.aRing()), "aBase");
  bBase = b.CreateAdd(aligned, i32(map.bRing()), "bBase");
  barBase = b.CreateAdd(aligned, i32(map.barriers()), "barBase");
  flagAddr = b.CreateAdd(aligned, i32(map.flag()), "flag");
  cLoadBars = b.CreateAdd(aligned, i32(map.cLoadBarriers()), "cLoadBars");
  if (map.columnValueBytes) {
    columnStage = sm90ColumnStageOf(config);
    columnBars = b.CreateAdd(aligned, i32(map.columnBarriers()), "colBars");
    columnValues = b.CreateAdd(aligned, i32(map.columnValues()), "colValues");
  }
  if (map.scaleStageBytes && config.weightQuant)
    weightRing = b.CreateAdd(aligned, i32(map.scaleRing()), "weightRing");
  else if (map.scaleStageBytes)
    scaleRing = b.CreateAdd(aligned, i32(map.scaleRing()), "scaleRing");
  rank = sm90ClusterCtas(config) > 1 || config.splitKCluster
             ? b.CreateIntrinsic(
                   llvm::Intrinsic::nvvm_read_ptx_sreg_cluster_ctarank, {})
             : i32(0);

  llvm::BasicBlock *init = block("init");
  llvm::BasicBlock *sync = block("sync");
  b.CreateCondBr(b.CreateICmpEQ(tid, i32(0)), init, sync);
  b.SetInsertPoint(init);
  // The full barrier: the TMA bytes' arrival, and with staged scales the
  // copying warp's 32 (cp.async.mbarrier.arrive.noinc).
  unsigned fullArrivals = scaleRing ? 1 + 32 : 1;
  for (unsigned s = 0; s < config.stages; ++s) {
    ptx::mbarrierInit(b, fullBar(i32(s)), fullArrivals);
    ptx::mbarrierInit(b, emptyBar(i32(s)),
                      consumers * 4 * sm90ClusterCtas(config));
  }
  if (staging) // One per 64-row block (the epilogue's consumer index).
    for (unsigned ci = 0; ci < consumers * rowBlocks; ++ci)
      ptx::mbarrierInit(b, b.CreateAdd(cLoadBars, i32(8 * ci)), 1);
  if (columnBars) {
    ptx::mbarrierInit(b, columnBars, 32);
    ptx::mbarrierInit(b, b.CreateAdd(columnBars, i32(8)), 128 * consumers);
  }
  ptx::fenceBarrierInit(b);
  b.CreateBr(sync);
  b.SetInsertPoint(sync);
  if (sm90ClusterCtas(config) > 1)
    ptx::clusterSync(b); // the peer's barriers are initialized too
  else
    ptx::emitAsm(b, b.getVoidTy(), "bar.sync 0;", "~{memory}", {});
}

void Sm90KernelBuilder::emitProducer(llvm::BasicBlock *exit) {
  ptx::setMaxNReg(b, /*increase=*/false, sm90RegisterSplit(config).first);
  llvm::BasicBlock *warp0 = block("producer.warp0");
  llvm::BasicBlock *elected = block("producer.elected");
  if (columnBars || scaleRing) {
    // Warp 1 copies the column operands (Sm90ColumnStage.h), warp 2 the
    // block scales (sm90StagesBlockScales).
    // (Blocks in this order: the unscaled kernels' PTX is golden.)
    llvm::BasicBlock *warp1 = columnBars ? block("producer.warp1") : nullptr;
    llvm::BasicBlock *rest = block("producer.rest");
    b.CreateCondBr(b.CreateICmpULT(tid, i32(32)), warp0, rest);
    b.SetInsertPoint(rest);
    llvm::BasicBlock *scales = scaleRing ? block("producer.scales") : exit;
    if (columnBars) {
      b.CreateCondBr(b.CreateICmpULT(tid, i32(64)), warp1, scales);
      b.SetInsertPoint(warp1);
      emitColumnCopier(exit);
    } else {
      b.CreateBr(scales);
    }
    if (scaleRing) {
      llvm::BasicBlock *warp2 = block("producer.warp2");
      b.SetInsertPoint(scales);
      b.CreateCondBr(b.CreateAnd(b.CreateICmpUGE(tid, i32(64)),
                                 b.CreateICmpULT(tid, i32(96))),
                     warp2, exit);
      b.SetInsertPoint(warp2);
      emitScaleCopier(exit);
    }
  } else {
    b.CreateCondBr(b.CreateICmpULT(tid, i32(32)), warp0, exit);
  }
  b.SetInsertPoint(warp0);
  llvm::Value *leader = ptx::electSync(b);
  b.CreateCondBr(b.CreateICmpNE(leader, i32(0)), elected, exit);
  b.SetInsertPoint(elected);
  ptx::prefetchTensorMap(b, tmapA);
  ptx::prefetchTensorMap(b, tmapB);
  for (llvm::Value *map : {tmapSB, tmapZB})
    if (map)
      ptx::prefetchTensorMap(b, map);
  // Under a programmatic dependent launch the previous kernel may still be
  // writing A or B. (Prefetching the ring's first fill into L2 before this
  // wait was measured slower everywhere on the H200, e.g. M = 64, N = 2112:
  // 13.8 against 12.2 us: the prefetches queue ahead of the loads.)
  ptx::gridDependencyWait(b);
  unsigned stageBytes = tileA.bytes + tileB.bytes;
  if (weightTiles) // The TMA counts whole boxes, zero-filled or not.
    stageBytes +=
        weightTiles->scales.bytes + (tmapZB ? weightTiles->zeros.bytes : 0);
  forTiles("ptile", exit, [&](llvm::BasicBlock *next) {
    forK("produce", [&](llvm::Value *kt) {
      auto [slot, parity] = ringSlot(b.CreateAdd(itBase, kt));
      // A fresh barrier counts as having completed the phase before phase
      // 0, so the first pass over the ring waits on parity 1 and passes.
      ptx::mbarrierWaitParity(b, emptyBar(slot), b.CreateXor(parity, i32(1)),
                              "wait.empty");
      llvm::Value *full = fullBar(slot);
      ptx::mbarrierArriveExpectTx(b, full, i32(stageBytes));
      llvm::Value *kc = b.CreateMul(b.CreateAdd(kBegin, kt), i32(config.bk));
      // The wgmma A role is the tensor B under swap-AB.
      lines->at(config.swapAB ? KernelPart::SmemB : KernelPart::SmemA);
      if (weightTiles)
        loadWeightSlot(slot, kc, full);
      else
        loadRoleTile(tileA,
                     b.CreateAdd(aBase, b.CreateMul(slot, i32(tileA.bytes))),
                     tmapA, kc, m0, full, zOfRole(true), config.clusterN);
      lines->at(config.swapAB ? KernelPart::SmemA : KernelPart::SmemB);
      loadRoleTile(tileB,
                   b.CreateAdd(bBase, b.CreateMul(slot, i32(tileB.bytes))),
                   tmapB, kc, n0, full, zOfRole(false), config.clusterM);
      lines->at(KernelPart::Kernel);
    });
    b.CreateBr(next);
  });
}

void Sm90KernelBuilder::loadRoleTile(const TmaOperandTile &tile,
                                     llvm::Value *slotBase, llvm::Value *tmap,
                                     llvm::Value *kc, llvm::Value *row,
                                     llvm::Value *full, llvm::Value *z,
                                     unsigned shares) {
  if (shares == 1) {
    loadTile(tile, slotBase, tmap, kc, row, full, z);
    return;
  }
  // This CTA's share (K-major): box rows rank * box .. of the tile, into
  // the same slot of every CTA of the cluster. A box is whole swizzle atoms
  // (8 rows), so the share starts on an atom.
  llvm::Value *part = b.CreateMul(rank, i32(tile.boxDims[1]));
  ptx::tmaLoadMulticast(
      b, b.CreateAdd(slotBase, b.CreateMul(rank, i32(tile.boxBytes))), tmap, kc,
      b.CreateAdd(row, part), z, full, b.getInt16((1u << shares) - 1));
}

void Sm90KernelBuilder::loadWeightSlot(llvm::Value *slot, llvm::Value *kc,
                                       llvm::Value *full) {
  const Sm90WeightTiles &tiles = *weightTiles;
  // Codes: block rows m0 / 16 .., u64 from kc (one u64 per k of 4-bit
  // codes, two of 8-bit).
  unsigned perK = weightFormatOfB(config.bType).bits / 4;
  loadTile(tiles.codes,
           b.CreateAdd(aBase, b.CreateMul(slot, i32(tiles.codes.bytes))), tmapA,
           perK == 1 ? kc : b.CreateMul(kc, i32(perK)), b.CreateLShr(m0, 4),
           full, nullptr);
  // Scales and zero points: channels m0 .., group rows from kc / G.
  llvm::Value *side = b.CreateAdd(
      weightRing, b.CreateMul(slot, i32(sm90WeightStage(config).sideBytes())));
  llvm::Value *groupRow = b.CreateUDiv(kc, i32(config.weightQuant->group));
  loadTile(tiles.scales, side, tmapSB, m0, groupRow, full, nullptr);
  if (tmapZB)
    loadTile(tiles.zeros,
             b.CreateAdd(side, i32(sm90WeightStage(config).scaleBytes)), tmapZB,
             m0, groupRow, full, nullptr);
}

void Sm90KernelBuilder::emitColumnCopier(llvm::BasicBlock *exit) {
  // The previous kernel in the stream may still write the operands.
  ptx::gridDependencyWait(b);
  EpilogueInputs inputs =
      EpilogueInputs::fromFunction(*fn, config.swapAB ? rowsB : rowsA,
                                   config.swapAB ? rowsA : rowsB, config.cType);
  llvm::Value *lane = b.CreateAnd(tid, i32(31));
  forTiles("coltile", exit, [&](llvm::BasicBlock *next) {
    emitSm90ColumnStageFill(b, config, columnStage, inputs, columnStageValues(),
                            lane);
    b.CreateBr(next);
  });
}

void Sm90KernelBuilder::emitScaleCopier(llvm::BasicBlock *exit) {
  // The previous kernel in the stream may still write the scales.
  ptx::gridDependencyWait(b);
  llvm::Value *lane = b.CreateAnd(tid, i32(31));
  forTiles("stile", exit, [&](llvm::BasicBlock *next) {
    auto [tileSfa, tileSfb] = tileScales();
    Sm90BlockScaleValues values{tileSfa, tileSfb, tid,   nullptr, m0,
                                n0,      rowsA,   rowsB, k};
    forK("scales", [&](llvm::Value *kt) {
      auto [slot, parity] = ringSlot(b.CreateAdd(itBase, kt));
      // As the TMA thread: the slot is free once the consumers released
      // it (the first pass over the ring passes on parity 1).
      ptx::mbarrierWaitParity(b, emptyBar(slot), b.CreateXor(parity, i32(1)),
                              "scales.empty");
      emitSm90ScaleStageFill(b, *config.blockScale, config.bm, config.bn,
                             values, lane, b.CreateAdd(kBegin, kt),
                             scaleSlot(slot), fullBar(slot));
    });
    b.CreateBr(next);
  });
}

llvm::Value *Sm90KernelBuilder::scaleSlot(llvm::Value *slot) {
  return b.CreateAdd(scaleRing,
                     b.CreateMul(slot, i32(sm90ScaleStageBytes(config))));
}

std::pair<llvm::Value *, llvm::Value *> Sm90KernelBuilder::tileScales() {
  if (!config.group)
    return {sfa, sfb};
  return emitSm90GroupScales(b, *config.group, *config.blockScale, sfa, sfb,
                             tileGroup->group, rowsA, rowsB, k);
}

Sm90ColumnStageValues Sm90KernelBuilder::columnStageValues() {
  Sm90ColumnStageValues at;
  at.full = columnBars;
  at.empty = b.CreateAdd(columnBars, i32(8));
  at.base = columnValues;
  at.n0 = n0;
  at.tileCount = tileCount;
  return at;
}

void Sm90KernelBuilder::releaseSlot(llvm::Value *bar) {
  unsigned ctas = sm90ClusterCtas(config);
  if (ctas == 1) {
    ptx::mbarrierArrive(b, bar);
    return;
  }
  for (unsigned r = 0; r < ctas; ++r)
    ptx::mbarrierArriveCluster(b, bar, i32(r));
}

llvm::Value *Sm90KernelBuilder::batchOfRole(bool roleA) {
  if (!config.batch)
    return nullptr;
  bool tensorA = roleA != config.swapAB;
  bool batched = tensorA ? config.batch->aBatched : config.batch->bBatched;
  return batched ? batch : nullptr;
}

llvm::Value *Sm90KernelBuilder::zOfRole(bool roleA) {
  if (!config.group)
    return batchOfRole(roleA);
  bool stacked = roleA && config.group->kind == GroupKind::Contiguous;
  return stacked ? nullptr : tileGroup->group;
}

void Sm90KernelBuilder::build() {
  createFunction();
  lines.emplace(*fn, config.source, b);
  emitPrologue();
  llvm::BasicBlock *producer = block("producer");
  llvm::BasicBlock *consumer = block("consumer");
  llvm::BasicBlock *exit = block("exit");
  b.CreateCondBr(b.CreateICmpULT(tid, i32(128)), producer, consumer);
  // Split-K in a cluster: barrier.cluster counts every thread of the
  // cluster, so the producer's threads take the consumers' round 1 too.
  llvm::BasicBlock *producerExit =
      config.splitKCluster ? block("producer.round1") : exit;
  b.SetInsertPoint(producer);
  emitProducer(producerExit);
  if (config.splitKCluster) {
    b.SetInsertPoint(producerExit);
    ptx::clusterSync(b);
    b.CreateBr(exit);
  }
  b.SetInsertPoint(consumer);
  emitConsumer(exit);
  b.SetInsertPoint(exit);
  // No CTA leaves while its peer may still multicast into it or arrive on
  // its barriers, or (split-K in a cluster) read its partial.
  if (sm90ClusterCtas(config) > 1 || config.splitKCluster)
    ptx::clusterSync(b);
  b.CreateRetVoid();
  lines->finish();
}

namespace {

/// The operand tiles the kernel stages (sm90RoleTiles) and its staging
/// tile.
struct Sm90RoleTiles {
  TmaOperandTile a, b;
  std::optional<EpilogueStagingTile> staging; ///< Set by buildSm90Module.
};

/// Verifies \p config and builds its kernel into \p module; returns the
/// operand tiles the kernel stages.
llvm::Expected<Sm90RoleTiles> buildSm90Module(const Sm90GemmConfig &config,
                                              llvm::Module &module) {
  if (llvm::Error err = verifySm90GemmConfig(config))
    return err;
  if (llvm::Error err = configureModuleForArch(module, ArchKind::SM90a))
    return err;
  auto tiles = sm90RoleTiles(config);
  if (!tiles)
    return tiles.takeError();
  auto map = sm90CheckedSmemMap(config);
  if (!map)
    return map.takeError();
  Sm90KernelBuilder builder(config, tiles->first, tiles->second,
                            std::move(*map), module);
  builder.build();
  return Sm90RoleTiles{builder.tileA, builder.tileB, builder.staging};
}

} // namespace

llvm::Expected<Sm90GemmKernel> emitSm90Gemm(const Sm90GemmConfig &config) {
  Sm90GemmKernel kernel;
  auto ptxText = kernelPtx(config.name, ArchKind::SM90a,
                           [&](llvm::Module &m) -> llvm::Error {
                             auto tiles = buildSm90Module(config, m);
                             if (!tiles)
                               return tiles.takeError();
                             kernel.a = tiles->a;
                             kernel.b = tiles->b;
                             kernel.staging = tiles->staging;
                             return llvm::Error::success();
                           });
  if (!ptxText)
    return ptxText.takeError();
  kernel.ptx = std::move(*ptxText);
  kernel.entry = config.name;
  kernel.blockThreads = 128 * (1 + sm90ConsumerWarpgroups(config));
  kernel.sharedBytes = sm90SharedBytes(config);
  // 1x2 clusters run along grid y, but a persistent grid is 1-D.
  kernel.clusterX =
      config.clusterN > 1 && !config.persistent ? 1 : sm90ClusterCtas(config);
  kernel.clusterY = config.clusterN > 1 && !config.persistent ? 2 : 1;
  kernel.config = config;
  return kernel;
}

llvm::Expected<std::string> emitSm90GemmLlvmIr(const Sm90GemmConfig &config) {
  return kernelLlvmIr(config.name, [&](llvm::Module &module) {
    return buildSm90Module(config, module).takeError();
  });
}

} // namespace tilec