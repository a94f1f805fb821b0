//===- codegen/Sm90Gemm.cpp - Warp-specialized TMA + wgmma GEMM -----------===//
//
// Builds the kernel described in Sm90Gemm.h with IRBuilder. The structure is
// prologue (barrier init) -> producer branch | consumer branch; the consumer
// branch ends in the register epilogue. Accumulators are SSA values carried
// through the K loop as phis and tied through every wgmma asm, so the NVPTX
// backend keeps one virtual register per accumulator and ptxas sees no copy
// between the asynchronous MMAs.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90Gemm.h"

#include "codegen/EpilogueMath.h"
#include "codegen/PtxEmitter.h"
#include "codegen/PtxInlineAsm.h"
#include "codegen/Sm90BlockScale.h"
#include "codegen/Sm90ColumnStage.h"
#include "codegen/Sm90Epilogue.h"
#include "codegen/Sm90Group.h"
#include "codegen/Sm90Limits.h"
#include "codegen/Sm90SmemMap.h"
#include "codegen/Sm90SplitReduce.h"
#include "codegen/Sm90WgmmaAnnotation.h"
#include "codegen/SourceLineInfo.h"
#include "codegen/TileOrder.h"
#include "ir/PtxDescriptorScan.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <map>
#include <optional>
#include <tuple>

namespace tilec {

using namespace sm90;

namespace {

struct Builder {
  const Sm90GemmConfig &config;
  Sm90OperandTile tileA, tileB;
  std::optional<Sm90EpilogueTile> staging;
  llvm::LLVMContext &ctx;
  llvm::Module &module;
  llvm::IRBuilder<> b;
  llvm::Function *fn = nullptr;
  std::optional<SourceLineInfo> lines; ///< PTX line directives (--lineinfo)
  unsigned consumers = 0; ///< consumer warpgroups
  unsigned rowBlocks = 1; ///< 64-row wgmma blocks per consumer warpgroup

  // Kernel-wide values.
  llvm::Value *tmapA = nullptr, *tmapB = nullptr, *c = nullptr;
  llvm::Value *tmapC = nullptr, *storeTma = nullptr, *stagingBase = nullptr;
  llvm::Value *rowsA = nullptr, *rowsB = nullptr, *k = nullptr, *ldc = nullptr,
              *alpha = nullptr, *beta = nullptr;
  llvm::Value *workspace = nullptr, *counters = nullptr;
  llvm::Value *sfa = nullptr, *sfb = nullptr; ///< block scales, if any
  /// A batched kernel: the batch (%ctaid.z) and C's batch stride.
  llvm::Value *batch = nullptr, *strideC = nullptr;
  /// A grouped kernel (Sm90Group.h): its parameters and the group of the
  /// tile being loaded or computed (set per tile by forTiles).
  Sm90GroupValues groupValues;
  std::optional<Sm90TileGroup> tileGroup;
  llvm::Value *kBegin = nullptr, *kCount = nullptr, *splits = nullptr,
              *split = nullptr, *tileId = nullptr, *flagAddr = nullptr,
              *cLoadBars = nullptr;
  llvm::Value *tileCount = nullptr; ///< tiles this CTA finished before this
  llvm::Value *tid = nullptr, *m0 = nullptr, *n0 = nullptr;
  llvm::Value *aBase = nullptr, *bBase = nullptr, *barBase = nullptr;
  llvm::Value *numK = nullptr;
  llvm::Value *numTilesM = nullptr, *numTilesN = nullptr, *numTiles = nullptr;
  llvm::Value *itBase = nullptr; ///< ring iterations before this tile
  llvm::Value *rank = nullptr;   ///< CTA rank in its cluster (0 without)
  /// The column operands staged in shared memory (Sm90ColumnStage.h):
  /// arrays 0 without; its barriers (full, then empty) and values.
  Sm90ColumnStage columnStage;
  llvm::Value *columnBars = nullptr, *columnValues = nullptr;

  Builder(const Sm90GemmConfig &config, Sm90OperandTile tileA,
          Sm90OperandTile tileB, std::optional<Sm90EpilogueTile> staging,
          llvm::Module &module)
      : config(config), tileA(std::move(tileA)), tileB(std::move(tileB)),
        staging(std::move(staging)), ctx(module.getContext()), module(module),
        b(ctx) {
    consumers = sm90ConsumerWarpgroups(config);
    rowBlocks = sm90RowBlocks(config);
  }

  llvm::BasicBlock *block(const llvm::Twine &name) {
    return llvm::BasicBlock::Create(ctx, name, fn);
  }
  llvm::Value *i32(uint32_t v) { return b.getInt32(v); }

  llvm::Value *fullBar(llvm::Value *slot) {
    return b.CreateAdd(barBase, b.CreateMul(slot, i32(8)));
  }
  llvm::Value *emptyBar(llvm::Value *slot) {
    return b.CreateAdd(
        barBase, b.CreateMul(b.CreateAdd(slot, i32(config.stages)), i32(8)));
  }

  /// A counted loop kt = 0 .. kCount-1 (the CTA's K tiles, from kBegin)
  /// around \p body; returns after it.
  void forK(const llvm::Twine &name,
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

  /// The CTA's output tiles: one (from ctaid) or, when persistent, tiles
  /// ctaid.x, ctaid.x + nctaid.x, ... in grouped order. Sets m0, n0 and
  /// itBase for \p body, which must end by branching to the block it gets.
  void forTiles(const llvm::Twine &name, llvm::BasicBlock *exit,
                const std::function<void(llvm::BasicBlock *next)> &body) {
    if (!config.persistent) {
      itBase = i32(0);
      tileCount = i32(0);
      if (config.group) // A masked kernel's group is CTA z.
        enterGroupTile(name,
                       config.group->kind == GroupKind::Masked
                           ? b.CreateIntrinsic(
                                 llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z,
                                 {})
                           : nullptr,
                       exit);
      body(exit);
      return;
    }
    // With clusters a tile is a cluster tile: clusterM neighbouring row
    // tiles, one per CTA of the cluster, which walk the same sequence.
    llvm::Value *cm = i32(config.clusterM);
    llvm::Value *first = b.CreateUDiv(
        b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, {}), cm);
    llvm::Value *stride = b.CreateUDiv(
        b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x, {}),
        cm);
    llvm::Value *tilesM =
        b.CreateUDiv(b.CreateAdd(numTilesM, i32(config.clusterM - 1)), cm);
    llvm::Value *tiles = b.CreateMul(tilesM, numTilesN);
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
      llvm::Value *perGroup = b.CreateMul(tilesM, numTilesN);
      group = b.CreateUDiv(t, perGroup, "tile.group");
      local = b.CreateURem(t, perGroup);
    }
    TileCoord tile =
        emitGroupedTile(b, local, tilesM, numTilesN, config.groupM);
    llvm::Value *tileM = b.CreateAdd(b.CreateMul(tile.row, cm), rank);
    m0 = b.CreateMul(tileM, i32(config.bm), "m0");
    n0 = b.CreateMul(tile.col, i32(config.bn), "n0");
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

  /// A grouped kernel: looks up the group of the tile at m0 (\p group:
  /// a masked kernel's, from the grid or the walk) into tileGroup and
  /// continues in a new block when the tile is computed, else branches to
  /// \p skip.
  void enterGroupTile(const llvm::Twine &name, llvm::Value *group,
                      llvm::BasicBlock *skip) {
    tileGroup = emitSm90TileGroup(b, *config.group, groupValues, m0, group);
    llvm::BasicBlock *run = block(name + ".group");
    b.CreateCondBr(tileGroup->valid, run, skip);
    b.SetInsertPoint(run);
  }

  void createFunction() {
    llvm::Type *tmapType = llvm::ArrayType::get(b.getInt8Ty(), 128);
    std::vector<KernelParam> params = sm90KernelParams(
        staging.has_value(), config.epilogueOps, config.blockScale.has_value(),
        config.batch.has_value(),
        config.group ? std::optional(config.group->kind) : std::nullopt);
    llvm::SmallVector<llvm::Type *> types;
    for (const KernelParam &param : params)
      switch (param.kind) {
      case KernelParam::TensorMap:
        types.push_back(b.getPtrTy());
        break;
      case KernelParam::Pointer:
        types.push_back(b.getPtrTy(1));
        break;
      case KernelParam::I32:
        types.push_back(b.getInt32Ty());
        break;
      case KernelParam::I64:
        types.push_back(b.getInt64Ty());
        break;
      case KernelParam::F32:
        types.push_back(b.getFloatTy());
        break;
      }
    auto *type = llvm::FunctionType::get(b.getVoidTy(), types, false);
    fn = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                config.name, module);
    fn->setCallingConv(llvm::CallingConv::PTX_Kernel);
    unsigned threads = 128 * (1 + consumers);
    fn->addFnAttr("nvvm.maxntid", std::to_string(threads));
    fn->addFnAttr("nvvm.minctasm", std::to_string(config.ctasPerSm));
    std::map<std::string, llvm::Value *> byName;
    for (unsigned i = 0; i < params.size(); ++i) {
      llvm::Argument *arg = fn->getArg(i);
      arg->setName(params[i].name);
      byName[params[i].name] = arg;
      if (params[i].kind == KernelParam::TensorMap) {
        // A CUtensorMap: 128 bytes by value, 64-byte aligned, read in place.
        fn->addParamAttr(i, llvm::Attribute::getWithByValType(ctx, tmapType));
        fn->addParamAttr(
            i, llvm::Attribute::getWithAlignment(ctx, llvm::Align(64)));
        fn->addParamAttr(i, llvm::Attribute::get(ctx, "nvvm.grid_constant"));
      }
    }
    tmapA = byName["tmapA"];
    tmapB = byName["tmapB"];
    tmapC = staging ? byName["tmapC"] : nullptr;
    c = byName["c"];
    rowsA = byName["rowsA"];
    rowsB = byName["rowsB"];
    k = byName["k"];
    ldc = byName["ldc"];
    alpha = byName["alpha"];
    beta = byName["beta"];
    workspace = byName["workspace"];
    counters = byName["counters"];
    storeTma = staging ? byName["storeTma"] : nullptr;
    if (config.blockScale) {
      sfa = byName["sfa"];
      sfb = byName["sfb"];
    }
    if (config.batch)
      strideC = byName["strideC"];
    if (config.group) {
      groupValues.groups = byName["groups"];
      groupValues.groupIndex = byName["groupIndex"];
      groupValues.groupRows = byName["groupRows"];
      groupValues.rowsA = rowsA;
    }
  }

  void emitPrologue() {
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
      batch = b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z,
                                {}, {}, nullptr, "batch");
      llvm::Value *bytes = b.CreateMul(
          b.CreateMul(b.CreateZExt(batch, b.getInt64Ty()), strideC),
          b.getInt64(dtypeBits(config.cType) / 8));
      c = b.CreateGEP(b.getInt8Ty(), c, bytes, "c.batch");
    }
    numK = b.CreateUDiv(b.CreateAdd(k, i32(config.bk - 1)), i32(config.bk),
                        "numK");
    kBegin = i32(0);
    kCount = numK;
    numTilesM = b.CreateUDiv(b.CreateAdd(rowsA, i32(config.bm - 1)),
                             i32(config.bm), "tilesM");
    numTilesN = b.CreateUDiv(b.CreateAdd(rowsB, i32(config.bn - 1)),
                             i32(config.bn), "tilesN");
    numTiles = b.CreateMul(numTilesM, numTilesN, "tiles");
    if (config.splitK) {
      // CTA z takes K tiles [z * per, min((z + 1) * per, numK)).
      splits =
          b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_z, {});
      split =
          b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z, {});
      llvm::Value *per = b.CreateUDiv(
          b.CreateAdd(numK, b.CreateSub(splits, i32(1))), splits, "kPer");
      kBegin = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin,
                                       b.CreateMul(split, per), numK);
      llvm::Value *end = b.CreateBinaryIntrinsic(
          llvm::Intrinsic::umin, b.CreateAdd(kBegin, per), numK);
      kCount = b.CreateSub(end, kBegin, "kCount");
      llvm::Value *gridX =
          b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x, {});
      tileId = b.CreateAdd(b.CreateMul(ctaY, gridX), ctaX, "tile");
    }

    auto *smem = new llvm::GlobalVariable(
        module, llvm::ArrayType::get(b.getInt8Ty(), 0), false,
        llvm::GlobalValue::ExternalLinkage, nullptr, "tilec_smem", nullptr,
        llvm::GlobalValue::NotThreadLocal, 3);
    smem->setAlignment(llvm::Align(1024));
    llvm::Value *raw = b.CreatePtrToInt(smem, b.getInt32Ty());
    // The parts of shared memory, from the aligned base (Sm90SmemMap.h).
    llvm::Value *aligned = b.CreateAnd(b.CreateAdd(raw, i32(AlignSlack - 1)),
                                       i32(~(AlignSlack - 1)), "smem.base");
    Sm90SmemMap map = sm90SmemMap(config);
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
    rank = config.clusterM > 1 || config.splitKCluster
               ? b.CreateIntrinsic(
                     llvm::Intrinsic::nvvm_read_ptx_sreg_cluster_ctarank, {})
               : i32(0);

    llvm::BasicBlock *init = block("init");
    llvm::BasicBlock *sync = block("sync");
    b.CreateCondBr(b.CreateICmpEQ(tid, i32(0)), init, sync);
    b.SetInsertPoint(init);
    for (unsigned s = 0; s < config.stages; ++s) {
      ptx::mbarrierInit(b, fullBar(i32(s)), 1);
      ptx::mbarrierInit(b, emptyBar(i32(s)), consumers * 4 * config.clusterM);
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
    if (config.clusterM > 1)
      ptx::clusterSync(b); // the peer's barriers are initialized too
    else
      ptx::emitAsm(b, b.getVoidTy(), "bar.sync 0;", "~{memory}", {});
  }

  void emitProducer(llvm::BasicBlock *exit) {
    ptx::setMaxNReg(b, /*increase=*/false, sm90RegisterSplit(config).first);
    llvm::BasicBlock *warp0 = block("producer.warp0");
    llvm::BasicBlock *elected = block("producer.elected");
    if (columnBars) {
      // Warp 1 copies the column operands (Sm90ColumnStage.h).
      llvm::BasicBlock *warp1 = block("producer.warp1");
      llvm::BasicBlock *rest = block("producer.rest");
      b.CreateCondBr(b.CreateICmpULT(tid, i32(32)), warp0, rest);
      b.SetInsertPoint(rest);
      b.CreateCondBr(b.CreateICmpULT(tid, i32(64)), warp1, exit);
      b.SetInsertPoint(warp1);
      emitColumnCopier(exit);
    } else {
      b.CreateCondBr(b.CreateICmpULT(tid, i32(32)), warp0, exit);
    }
    b.SetInsertPoint(warp0);
    llvm::Value *leader = ptx::electSync(b);
    b.CreateCondBr(b.CreateICmpNE(leader, i32(0)), elected, exit);
    b.SetInsertPoint(elected);
    ptx::prefetchTensorMap(b, tmapA);
    ptx::prefetchTensorMap(b, tmapB);
    // Under a programmatic dependent launch the previous kernel may still be
    // writing A or B. (Prefetching the ring's first fill into L2 before this
    // wait was measured slower everywhere on the H200, e.g. M = 64, N = 2112:
    // 13.8 against 12.2 us: the prefetches queue ahead of the loads.)
    ptx::gridDependencyWait(b);
    unsigned stageBytes = tileA.bytes + tileB.bytes;
    forTiles("ptile", exit, [&](llvm::BasicBlock *next) {
      forK("produce", [&](llvm::Value *kt) {
        llvm::Value *it = b.CreateAdd(itBase, kt);
        llvm::Value *slot = b.CreateURem(it, i32(config.stages), "slot");
        llvm::Value *parity =
            b.CreateAnd(b.CreateUDiv(it, i32(config.stages)), i32(1));
        // A fresh barrier counts as having completed the phase before phase
        // 0, so the first pass over the ring waits on parity 1 and passes.
        ptx::mbarrierWaitParity(b, emptyBar(slot), b.CreateXor(parity, i32(1)),
                                "wait.empty");
        llvm::Value *full = fullBar(slot);
        ptx::mbarrierArriveExpectTx(b, full, i32(stageBytes));
        llvm::Value *kc = b.CreateMul(b.CreateAdd(kBegin, kt), i32(config.bk));
        // The wgmma A role is the tensor B under swap-AB.
        lines->at(config.swapAB ? KernelPart::SmemB : KernelPart::SmemA);
        loadTile(tileA, b.CreateAdd(aBase, b.CreateMul(slot, i32(tileA.bytes))),
                 tmapA, kc, m0, full, zOfRole(true));
        lines->at(config.swapAB ? KernelPart::SmemA : KernelPart::SmemB);
        llvm::Value *bSlot =
            b.CreateAdd(bBase, b.CreateMul(slot, i32(tileB.bytes)));
        if (config.clusterM == 1) {
          loadTile(tileB, bSlot, tmapB, kc, n0, full, zOfRole(false));
        } else {
          // This CTA's share of B (K-major): box rows rank * box .. of the
          // tile, into the same slot of every CTA of the cluster. A box is
          // whole swizzle atoms (8 rows), so the share starts on an atom.
          llvm::Value *part = b.CreateMul(rank, i32(tileB.boxDims[1]));
          ptx::tmaLoad2dMulticast(
              b, b.CreateAdd(bSlot, b.CreateMul(rank, i32(tileB.boxBytes))),
              tmapB, kc, b.CreateAdd(n0, part), full,
              b.getInt16((1u << config.clusterM) - 1));
        }
        lines->at(KernelPart::Kernel);
      });
      b.CreateBr(next);
    });
  }

  /// The producer's warp 1: each tile's column operands into the column
  /// stage, after the previous tile's epilogue has read it.
  void emitColumnCopier(llvm::BasicBlock *exit) {
    // The previous kernel in the stream may still write the operands.
    ptx::gridDependencyWait(b);
    EpilogueInputs inputs = EpilogueInputs::fromFunction(
        *fn, config.swapAB ? rowsB : rowsA, config.swapAB ? rowsA : rowsB,
        config.cType);
    llvm::Value *lane = b.CreateAnd(tid, i32(31));
    forTiles("coltile", exit, [&](llvm::BasicBlock *next) {
      emitSm90ColumnStageFill(b, config, columnStage, inputs,
                              columnStageValues(), lane);
      b.CreateBr(next);
    });
  }

  /// The column stage's places for the current tile.
  Sm90ColumnStageValues columnStageValues() {
    Sm90ColumnStageValues at;
    at.full = columnBars;
    at.empty = b.CreateAdd(columnBars, i32(8));
    at.base = columnValues;
    at.n0 = n0;
    at.tileCount = tileCount;
    return at;
  }

  /// Frees a ring slot: one arrival on its empty barrier \p bar in every
  /// CTA of the cluster (each CTA's producer writes into all of them).
  void releaseSlot(llvm::Value *bar) {
    if (config.clusterM == 1) {
      ptx::mbarrierArrive(b, bar);
      return;
    }
    for (unsigned r = 0; r < config.clusterM; ++r)
      ptx::mbarrierArriveCluster(b, bar, i32(r));
  }

  /// The TMA loads of one ring slot of \p tile at \p dst: one box (K-major,
  /// coordinates (k, row)) or one box per swizzle atom along MN (MN-major,
  /// coordinates (row + i * box, k)).
  /// \p z non-null: the tensor is batched, its map rank 3 with the batch
  /// outermost.
  void loadTile(const Sm90OperandTile &tile, llvm::Value *dst,
                llvm::Value *tmap, llvm::Value *kc, llvm::Value *row,
                llvm::Value *bar, llvm::Value *z) {
    auto load = [&](llvm::Value *at, llvm::Value *c0, llvm::Value *c1) {
      if (z)
        ptx::tmaLoad3d(b, at, tmap, c0, c1, z, bar);
      else
        ptx::tmaLoad2d(b, at, tmap, c0, c1, bar);
    };
    if (tile.major == MajorKind::K) {
      load(dst, kc, row);
      return;
    }
    for (unsigned i = 0; i < tile.boxes; ++i)
      load(b.CreateAdd(dst, i32(i * tile.boxBytes)),
           b.CreateAdd(row, i32(i * tile.boxDims[0])), kc);
  }

  /// The batch coordinate of the tensor in wgmma role A (\p roleA) or B:
  /// null when the kernel is not batched or that tensor is broadcast
  /// (declared without the batch extent; its map stays rank 2).
  llvm::Value *batchOfRole(bool roleA) {
    if (!config.batch)
      return nullptr;
    bool tensorA = roleA != config.swapAB;
    bool batched = tensorA ? config.batch->aBatched : config.batch->bBatched;
    return batched ? batch : nullptr;
  }

  /// The third TMA coordinate of the tensor in wgmma role A (\p roleA) or
  /// B: a grouped kernel's tile group for B (and A when masked; swap-AB is
  /// refused with groups), else the batch's (batchOfRole).
  llvm::Value *zOfRole(bool roleA) {
    if (!config.group)
      return batchOfRole(roleA);
    bool stacked = roleA && config.group->kind == GroupKind::Contiguous;
    return stacked ? nullptr : tileGroup->group;
  }

  /// GMMA descriptor: the constant high bits or'ed with (address >> 4).
  llvm::Value *descriptor(const Sm90OperandTile &tile, llvm::Value *address) {
    llvm::Value *low =
        b.CreateZExt(b.CreateAnd(b.CreateLShr(address, i32(4)), i32(0x3FFF)),
                     b.getInt64Ty());
    return b.CreateOr(low, b.getInt64(tile.descriptorHigh));
  }

  void emitConsumer(llvm::BasicBlock *exit) {
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
      aRowOffset.push_back(
          b.CreateMul(rowBlockOf(ci, j), i32(tileA.mAtomBytes)));
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

  /// The 64-row block \p j of consumer warpgroup \p ci: the consumer
  /// index of its epilogue and scales (ci without row blocks).
  llvm::Value *rowBlockOf(llvm::Value *ci, unsigned j) {
    return rowBlocks == 1 ? ci
                          : b.CreateAdd(b.CreateMul(ci, i32(rowBlocks)), i32(j));
  }

  /// One output tile: the K loop over the ring, then the epilogue; ends by
  /// branching to \p exit.
  void emitConsumerTile(llvm::Value *ci, llvm::Value *lane,
                        llvm::ArrayRef<llvm::Value *> aRowOffset,
                        llvm::BasicBlock *exit) {
    ptx::WgmmaShape shape;
    shape.n = sm90PromotionN(config);
    shape.k = sm90WgmmaK(tileA.dtype);
    shape.abType = dtypeInfo(tileA.dtype).ptxName;
    shape.bType = dtypeInfo(tileB.dtype).ptxName;
    shape.transA = tileA.major == MajorKind::MN;
    shape.transB = tileB.major == MajorKind::MN;
    // The accumulator: rowBlocks blocks of BN / 2 registers, block j the
    // wgmma D of 64-row block j (rowBlockOf) at A-role row offset
    // aRowOffset[j].
    unsigned blockRegs = 64 * config.bn / 128;
    unsigned regs = rowBlocks * blockRegs;
    llvm::Constant *zero = llvm::ConstantFP::get(b.getFloatTy(), 0.0);
    // A grouped tile: its group's scales, and the rows of the group.
    llvm::Value *tileSfa = sfa, *tileSfb = sfb, *rowEnd = nullptr,
                *full = nullptr;
    if (config.group) {
      rowEnd = tileGroup->rowEnd;
      if (config.group->kind == GroupKind::Contiguous) {
        Sm90GroupRows rows = emitSm90GroupRows(
            b, groupValues, m0, tileGroup->group, tid, ci, config.bm);
        rowEnd = rows.bound;
        full = rows.full;
      }
      if (config.blockScale)
        std::tie(tileSfa, tileSfb) = emitSm90GroupScales(
            b, *config.group, *config.blockScale, sfa, sfb, tileGroup->group,
            rowsA, rowsB, k);
    }
    // Block scales (Sm90BlockScale.h): one scaler per row block, each K
    // block's scales loaded one block ahead.
    std::optional<Sm90ScalesAhead> scales;
    if (config.blockScale) {
      std::vector<Sm90BlockScale> scalers;
      for (unsigned j = 0; j < rowBlocks; ++j)
        scalers.emplace_back(b, *config.blockScale, config.bn, config.swapAB,
                             Sm90BlockScaleValues{tileSfa, tileSfb, tid,
                                                  rowBlockOf(ci, j), m0, n0,
                                                  rowsA, rowsB, k});
      scales.emplace(std::move(scalers));
    }
    bool scaled = scales.has_value();

    // The epilogue's bias and scale values load now, their latency under
    // the K loop (Sm90EpilogueOperands), for each 64-row block.
    std::vector<Sm90EpilogueOperands> operands(rowBlocks);
    if (!config.epilogueOps.empty())
      for (unsigned j = 0; j < rowBlocks; ++j)
        operands[j] = emitSm90EpilogueOperandLoads(
            b, config, epilogueValues(rowBlockOf(ci, j)));

    if (scaled)
      scales->loadFirst(b, kBegin, kCount);

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
    if (scaled) {
      blockScales = scales->current();
      llvm::Value *ahead = b.CreateBinaryIntrinsic(
          llvm::Intrinsic::umin, b.CreateAdd(kt, i32(1)),
          b.CreateSub(kCount, i32(1)));
      scales->loadNext(b.CreateAdd(kBegin, ahead));
    }
    llvm::Value *it = b.CreateAdd(itBase, kt);
    llvm::Value *slot = b.CreateURem(it, i32(config.stages), "slot");
    llvm::Value *parity =
        b.CreateAnd(b.CreateUDiv(it, i32(config.stages)), i32(1));
    ptx::mbarrierWaitParity(b, fullBar(slot), parity, "wait.full");
    llvm::SmallVector<llvm::Value *> cur(phis.begin(), phis.end());
    llvm::Value *aStage =
        b.CreateAdd(aBase, b.CreateMul(slot, i32(tileA.bytes)));
    llvm::SmallVector<llvm::Value *> aSlots;
    for (llvm::Value *offset : aRowOffset)
      aSlots.push_back(b.CreateAdd(aStage, offset));
    llvm::Value *bSlot =
        b.CreateAdd(bBase, b.CreateMul(slot, i32(tileB.bytes)));
    lines->at(KernelPart::Mma);
    // A wgmma.fence, then one wgmma per K step into \p acc, row block
    // \p j's A rows against the B-role rows from \p bRows.
    auto issue = [&](llvm::SmallVector<llvm::Value *> acc, unsigned j,
                     llvm::Value *bRows) {
      ptx::wgmmaFence(b);
      llvm::Value *aSlot = aSlots[j];
      for (unsigned kk = 0; kk < config.bk / shape.k; ++kk) {
        llvm::Value *descA =
            descriptor(tileA, b.CreateAdd(aSlot, i32(kk * tileA.kStepBytes)));
        llvm::Value *descB =
            descriptor(tileB, b.CreateAdd(bRows, i32(kk * tileB.kStepBytes)));
        acc = ptx::wgmmaSs(b, shape, acc, descA, descB,
                           config.annotate
                               ? sm90WgmmaAnnotation(config, tileA, tileB, kk)
                               : "",
                           /*overwrite=*/scaled && kk == 0);
      }
      return acc;
    };
    // Row block j's registers of the accumulator \p all.
    auto blockOf = [&](llvm::ArrayRef<llvm::Value *> all, unsigned j) {
      return llvm::SmallVector<llvm::Value *>(
          all.slice(j * blockRegs, blockRegs));
    };
    if (scaled) {
      // Block scales: per row block and promotion step (sm90PromotionN:
      // all of BN, or each half) the first wgmma overwrites (scale-d 0) a
      // fresh accumulator whose registers need no zeroing; the step's
      // partial sums are waited for and promoted into their columns of the
      // block's main accumulator before the next step reuses the fresh
      // registers.
      llvm::Value *poison = llvm::PoisonValue::get(b.getFloatTy());
      for (unsigned j = 0; j < rowBlocks; ++j) {
        llvm::SmallVector<llvm::Value *> main = blockOf(cur, j);
        for (unsigned step = 0; step < config.bn / shape.n; ++step) {
          llvm::SmallVector<llvm::Value *> part =
              issue(llvm::SmallVector<llvm::Value *>(shape.n / 2, poison), j,
                    b.CreateAdd(bSlot, i32(step * tileB.mAtomBytes)));
          ptx::wgmmaCommitGroup(b);
          main = scales->scaler(j).promote(main, part, blockScales[j],
                                           step * shape.n / 8);
        }
        std::copy(main.begin(), main.end(), cur.begin() + j * blockRegs);
      }
    } else {
      // Every row block's wgmmas in one group.
      for (unsigned j = 0; j < rowBlocks; ++j) {
        llvm::SmallVector<llvm::Value *> acc = issue(blockOf(cur, j), j, bSlot);
        std::copy(acc.begin(), acc.end(), cur.begin() + j * blockRegs);
      }
      ptx::wgmmaCommitGroup(b);
      ptx::wgmmaWaitGroup(b, 1, {});
    }
    lines->at(KernelPart::Kernel);
    // Free a slot whose wgmmas have completed, one arrival per consumer
    // warp: with block scales this one (the promotion waited for all of
    // them), else the previous one (at most one group is pending).
    llvm::BasicBlock *release = block("release");
    llvm::BasicBlock *next = block("consume.next");
    llvm::Value *lead = b.CreateICmpEQ(lane, i32(0));
    b.CreateCondBr(scaled ? lead
                          : b.CreateAnd(b.CreateICmpUGT(kt, i32(0)), lead),
                   release, next);
    b.SetInsertPoint(release);
    llvm::Value *freed =
        scaled ? slot
               : b.CreateURem(b.CreateAdd(it, i32(config.stages - 1)),
                              i32(config.stages));
    releaseSlot(emptyBar(freed));
    b.CreateBr(next);
    b.SetInsertPoint(next);
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
    if (config.persistent && !scaled) {
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
    // A split-K cluster built for its split count: every CTA sums and
    // stores its share of the tile (emitClusterSplitScatter).
    bool scatter = config.splitKCluster && config.clusterSplits >= 2 &&
                   !findSwiglu(config.epilogueOps);
    if (config.splitK && !scatter)
      fin =
          config.splitKCluster
              ? emitSm90ClusterSplitReduce(b, config, splitValues(), fin, exit)
              : emitSm90SplitReduce(b, config, splitValues(), fin, exit);

    lines->at(KernelPart::Epilogue);
    Sm90EpilogueValues values = epilogueValues(rowBlockOf(ci, 0));
    if (config.group)
      applySm90GroupEpilogue(b, *config.group, config.bm, config.cType,
                             values, rowEnd, full, tileGroup->group);
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
        emitSm90Epilogue(b, config, staging, values, operands[0], share.acc,
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
        emitSm90Epilogue(b, config, staging, rows, operands[j],
                         llvm::ArrayRef<llvm::Value *>(fin).slice(
                             j * blockRegs, blockRegs),
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

  /// What the split-K reductions read (Sm90SplitReduce.h).
  Sm90SplitReduceValues splitValues() {
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

  /// What the epilogue reads, for consumer warpgroup \p ci of the tile.
  Sm90EpilogueValues epilogueValues(llvm::Value *ci) {
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

  void build() {
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
    if (config.clusterM > 1 || config.splitKCluster)
      ptx::clusterSync(b);
    b.CreateRetVoid();
    lines->finish();
  }
};

/// The operand tiles the kernel stages (sm90RoleTiles) and its staging
/// tile.
struct Sm90RoleTiles {
  Sm90OperandTile a, b;
  std::optional<Sm90EpilogueTile> staging; ///< Set by buildSm90Module.
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
  auto staging = sm90EpilogueTile(config);
  if (!staging)
    return staging.takeError();
  Builder builder(config, tiles->first, tiles->second, *staging, module);
  builder.build();
  return Sm90RoleTiles{builder.tileA, builder.tileB, builder.staging};
}

} // namespace

llvm::Expected<Sm90GemmKernel> emitSm90Gemm(const Sm90GemmConfig &config) {
  llvm::LLVMContext context;
  llvm::Module module(config.name, context);
  auto tiles = buildSm90Module(config, module);
  if (!tiles)
    return tiles.takeError();
  auto ptxText = emitPtx(module, ArchKind::SM90a);
  if (!ptxText)
    return ptxText.takeError();
  Sm90GemmKernel kernel;
  kernel.ptx = std::move(*ptxText);
  kernel.entry = config.name;
  kernel.blockThreads = 128 * (1 + sm90ConsumerWarpgroups(config));
  kernel.sharedBytes = sm90SharedBytes(config);
  kernel.clusterX = config.clusterM;
  kernel.config = config;
  kernel.a = tiles->a;
  kernel.b = tiles->b;
  kernel.staging = tiles->staging;
  return kernel;
}

llvm::Expected<std::string> emitSm90GemmLlvmIr(const Sm90GemmConfig &config) {
  llvm::LLVMContext context;
  llvm::Module module(config.name, context);
  auto tiles = buildSm90Module(config, module);
  if (!tiles)
    return tiles.takeError();
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

} // namespace tilec