//===- codegen/Sm80Mainloop.cpp - cp.async pipeline and mma.sync loop -----===//
//
// Per k-tile kt (runtime count ceil(K / bk)), with the fragments of step 0
// already in registers:
//   for each k16 step ks:
//     ks + 1 < steps: ldmatrix the fragments of step ks + 1
//     ks + 1 = steps: cp.async.wait_group(stages - 2); bar.sync (tile kt + 1
//                     has landed, all warps are done with tile kt - 1), then
//                     ldmatrix step 0 of tile kt + 1
//     ks = 0:         cp.async tile kt + stages - 1 into tile kt - 1's stage
//     mma.sync step ks into the accumulators
// so fragment loads run one step ahead of the mmas (double buffering), also
// across the k-tile boundary. The prologue issues tiles 0 .. stages - 2 and
// loads step 0 of tile 0. Without prefetchAcrossTiles (see Sm80GemmPlan) the
// wait and barrier sit at the top of each k-tile instead, followed by the
// loads of step 0 of tile kt. Copies past M, N or K are
// zero-filled (cp.async src-size), so the loop has no branches on the ragged
// edges and the zeros add nothing to the accumulators.
//
// Every smem offset comes from SmemAddress: the thread-dependent part once
// before the loop, and each constant step as an add or an xor that
// SmemAddress has proven equal to the layout over all threads.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm80Gemm.h"

#include "llvm/IR/Intrinsics.h"

namespace tilec {

namespace {

/// One operand's per-thread copy state (fixed over the k loop).
struct OperandCopies {
  const Sm80OperandPlan *op = nullptr;
  llvm::Value *global = nullptr;   ///< Operand base pointer.
  llvm::Value *ld = nullptr;       ///< Leading dimension (i32).
  llvm::Value *mnOrigin = nullptr; ///< m0 or n0.
  llvm::Value *mnSize = nullptr;   ///< M or N.
  unsigned smemRegion = 0;         ///< Element offset of the operand's stages.
  /// Per copy: tile coordinate (i32 mn, k) and smem element offset.
  std::vector<llvm::Value *> mn, k, smemOffset;
};

/// The (mn, k) coordinates a thread id takes for copy 0 of \p op.
TileCoord copyCoord(const Sm80OperandPlan &op, int64_t vector) {
  int64_t row = vector / op.vectorsPerRow,
          col = 8 * (vector % op.vectorsPerRow);
  return op.kMajor ? TileCoord{row, col} : TileCoord{col, row};
}

OperandCopies setUpCopies(Sm80Kernel &kernel, const Sm80OperandPlan &op,
                          llvm::Value *global, llvm::Value *ld,
                          llvm::Value *mnOrigin, llvm::Value *mnSize,
                          unsigned smemRegion) {
  llvm::IRBuilder<> &b = kernel.nv.ir();
  unsigned threads = kernel.plan.spec.threads();
  OperandCopies copies;
  copies.op = &op;
  copies.global = global;
  copies.ld = ld;
  copies.mnOrigin = mnOrigin;
  copies.mnSize = mnSize;
  copies.smemRegion = smemRegion;
  std::vector<TileCoord> runtime;
  for (unsigned t = 0; t < threads; ++t)
    runtime.push_back(copyCoord(op, t));

  llvm::Value *vpr = b.getInt32(op.vectorsPerRow);
  llvm::Value *row = b.CreateUDiv(kernel.tid, vpr);
  llvm::Value *col = b.CreateShl(b.CreateURem(kernel.tid, vpr), 3);
  llvm::Value *mn0 = op.kMajor ? row : col;
  llvm::Value *k0 = op.kMajor ? col : row;
  llvm::Value *base = op.smem.emitOffset(b, mn0, k0);
  for (unsigned i = 0; i < op.copiesPerThread; ++i) {
    TileCoord c = copyCoord(op, int64_t(i) * threads);
    copies.mn.push_back(b.CreateAdd(mn0, b.getInt32(c.first)));
    copies.k.push_back(b.CreateAdd(k0, b.getInt32(c.second)));
    copies.smemOffset.push_back(
        op.smem.emitOffsetAt(b, base, mn0, k0, runtime, c));
  }
  return copies;
}

/// Issues the cp.async copies of k-tile \p kt into \p stage.
void issueCopies(Sm80Kernel &kernel, const OperandCopies &copies,
                 llvm::Value *kt, llvm::Value *stage) {
  llvm::IRBuilder<> &b = kernel.nv.ir();
  const Sm80OperandPlan &op = *copies.op;
  kernel.at(&op == &kernel.plan.a ? KernelPart::SmemA : KernelPart::SmemB);
  unsigned elemBytes = dtypeBits(kernel.plan.spec.aType) / 8;
  llvm::Value *kOrigin =
      b.CreateMul(sm80KTileInK(kernel, kt), b.getInt32(kernel.plan.spec.bk));
  llvm::Value *stageBase =
      b.CreateAdd(b.getInt32(copies.smemRegion),
                  b.CreateMul(stage, b.getInt32(op.stageElems)));
  for (unsigned i = 0; i < op.copiesPerThread; ++i) {
    llvm::Value *gMn = b.CreateAdd(copies.mnOrigin, copies.mn[i]);
    llvm::Value *gK = b.CreateAdd(kOrigin, copies.k[i]);
    // Elements left along the contiguous extent, and whether the row is in.
    llvm::Value *contigLeft, *rowIn;
    llvm::Value *row, *colIdx;
    if (op.kMajor) {
      contigLeft = b.CreateSub(kernel.kLimit, gK);
      rowIn = b.CreateICmpULT(gMn, copies.mnSize);
      row = gMn;
      colIdx = gK;
    } else {
      contigLeft = b.CreateSub(copies.mnSize, gMn);
      rowIn = b.CreateICmpULT(gK, kernel.kLimit);
      row = gK;
      colIdx = gMn;
    }
    llvm::Value *bytes = b.CreateBinaryIntrinsic(
        llvm::Intrinsic::smax,
        b.CreateBinaryIntrinsic(llvm::Intrinsic::smin,
                                b.CreateMul(contigLeft, b.getInt32(elemBytes)),
                                b.getInt32(16)),
        b.getInt32(0));
    bytes = b.CreateSelect(rowIn, bytes, b.getInt32(0), "src.bytes");
    llvm::Value *elem =
        b.CreateAdd(b.CreateMul(b.CreateZExt(row, b.getInt64Ty()),
                                b.CreateZExt(copies.ld, b.getInt64Ty())),
                    b.CreateZExt(colIdx, b.getInt64Ty()));
    llvm::Value *src = b.CreateGEP(b.getInt8Ty(), copies.global,
                                   b.CreateMul(elem, b.getInt64(elemBytes)));
    // A zero-byte copy reads nothing; keep its address inside the operand.
    src = b.CreateSelect(b.CreateICmpEQ(bytes, b.getInt32(0)), copies.global,
                         src);
    llvm::Value *smemElem = b.CreateAdd(stageBase, copies.smemOffset[i]);
    llvm::Value *dst =
        b.CreateGEP(b.getInt8Ty(), kernel.smem,
                    b.CreateMul(smemElem, b.getInt32(elemBytes)));
    kernel.nv.cpAsync16(dst, src, bytes);
  }
  kernel.at(KernelPart::Kernel);
}

/// One operand's per-thread ldmatrix state.
struct OperandFragments {
  const Sm80OperandPlan *op = nullptr;
  unsigned smemRegion = 0;
  unsigned loadsPerStep = 0; ///< ldmatrix.x4 per k16 step.
  std::vector<TileCoord> runtime;
  llvm::Value *mn = nullptr, *k = nullptr, *base = nullptr;
  bool isA = false;
};

/// ldmatrix.x4 matrix j of lane l covers (mn, k) block (mnBlock, kBlock):
/// A's four registers are (m0-7,k0-7) (m8-15,k0-7) (m0-7,k8-15)
/// (m8-15,k8-15); B's are two n8 tiles of (k0-7, k8-15) each.
TileCoord laneCoord(bool isA, bool kMajor, unsigned warpMn, unsigned lane) {
  unsigned j = lane / 8, r = lane % 8;
  unsigned mnBlock = isA ? 8 * (j & 1) : 8 * (j >> 1);
  unsigned kBlock = isA ? 8 * (j >> 1) : 8 * (j & 1);
  // K-major: the 8 addresses are 8 mn rows; MN-major (.trans): 8 k rows.
  return kMajor ? TileCoord{warpMn + mnBlock + r, kBlock}
                : TileCoord{warpMn + mnBlock, kBlock + r};
}

OperandFragments setUpFragments(Sm80Kernel &kernel, const Sm80OperandPlan &op,
                                bool isA, llvm::Value *warpIdx,
                                unsigned smemRegion) {
  llvm::IRBuilder<> &b = kernel.nv.ir();
  OperandFragments f;
  f.op = &op;
  f.smemRegion = smemRegion;
  // A: one x4 per m16 tile; B: one x4 per pair of n8 tiles.
  f.loadsPerStep = op.warpExtent / 16;
  f.isA = isA;
  for (unsigned w = 0; w < op.warpsAlong; ++w)
    for (unsigned lane = 0; lane < 32; ++lane)
      f.runtime.push_back(laneCoord(isA, op.kMajor, w * op.warpExtent, lane));
  llvm::Value *j = b.CreateLShr(kernel.lane, 3);
  llvm::Value *r = b.CreateAnd(kernel.lane, 7);
  llvm::Value *lowBit = b.CreateShl(b.CreateAnd(j, 1), 3);
  llvm::Value *highBit = b.CreateShl(b.CreateLShr(j, 1), 3);
  llvm::Value *mnBlock = isA ? lowBit : highBit;
  llvm::Value *kBlock = isA ? highBit : lowBit;
  llvm::Value *warpMn = b.CreateMul(warpIdx, b.getInt32(op.warpExtent));
  llvm::Value *mn = b.CreateAdd(warpMn, mnBlock);
  f.mn = op.kMajor ? b.CreateAdd(mn, r) : mn;
  f.k = op.kMajor ? kBlock : b.CreateAdd(kBlock, r);
  f.base = op.smem.emitOffset(b, f.mn, f.k);
  return f;
}

/// ldmatrix.x4 number \p t of k16 step \p ks from \p stage.
std::array<llvm::Value *, 4> loadFragment(Sm80Kernel &kernel,
                                          const OperandFragments &f,
                                          llvm::Value *stage, unsigned t,
                                          unsigned ks) {
  llvm::IRBuilder<> &b = kernel.nv.ir();
  const Sm80OperandPlan &op = *f.op;
  unsigned elemBytes = dtypeBits(kernel.plan.spec.aType) / 8;
  TileCoord c{16 * t, 16 * ks};
  llvm::Value *off = op.smem.emitOffsetAt(b, f.base, f.mn, f.k, f.runtime, c);
  llvm::Value *elem =
      b.CreateAdd(b.CreateAdd(b.getInt32(f.smemRegion),
                              b.CreateMul(stage, b.getInt32(op.stageElems))),
                  off);
  llvm::Value *ptr = b.CreateGEP(b.getInt8Ty(), kernel.smem,
                                 b.CreateMul(elem, b.getInt32(elemBytes)));
  return kernel.nv.ldmatrixX4(ptr, /*trans=*/!op.kMajor);
}

/// The A and B fragments of one k16 step; for a 4-bit weight also what the
/// stage's steps share (Sm80WeightRegs: words, scales, bases).
struct Fragments {
  std::vector<std::array<llvm::Value *, 4>> a, b;
  Sm80WeightRegs weight;
};

/// B's loads: ldmatrix from the swizzled stage, or a 4-bit weight's.
struct BLoads {
  OperandFragments ldmatrix;
  std::optional<Sm80WeightLoads> weight;
};

/// The fragments of step \p ks; \p prev, the step before it in the same
/// stage (or null), lends a 4-bit weight's words, scales and bases.
Fragments loadFragments(Sm80Kernel &kernel, const OperandFragments &fragA,
                        const BLoads &fragB, llvm::Value *stage, unsigned ks,
                        const Fragments *prev = nullptr) {
  Fragments f;
  kernel.at(KernelPart::SmemA);
  for (unsigned t = 0; t < fragA.loadsPerStep; ++t)
    f.a.push_back(loadFragment(kernel, fragA, stage, t, ks));
  if (fragB.weight) {
    if (prev)
      f.weight = prev->weight;
    f.b = loadSm80WeightFragments(kernel, *fragB.weight, stage, ks, f.weight);
    return f;
  }
  kernel.at(KernelPart::SmemB);
  for (unsigned t = 0; t < fragB.ldmatrix.loadsPerStep; ++t)
    f.b.push_back(loadFragment(kernel, fragB.ldmatrix, stage, t, ks));
  kernel.at(KernelPart::Kernel);
  return f;
}

/// B's copies: the operand's, or a 4-bit weight's.
struct BCopies {
  OperandCopies operand;
  std::optional<Sm80WeightLoads> weight;
};

void issueBCopies(Sm80Kernel &kernel, const BCopies &copies, llvm::Value *kt,
                  llvm::Value *stage) {
  if (copies.weight)
    issueSm80WeightCopies(kernel, *copies.weight, kt, stage);
  else
    issueCopies(kernel, copies.operand, kt, stage);
}

/// The ring's first fill: tiles 0 .. stages - 2. Under the Light profile a
/// runtime loop (one copy of the copy code instead of stages - 1: less IR
/// to compile); unrolled for the register-bound kernels, where the loop
/// cost ptxas a 4-byte spill (bench/CompileLatencyResults.md).
void issuePrologueCopies(Sm80Kernel &kernel, const OperandCopies &copyA,
                         const BCopies &copyB) {
  const Sm80GemmPlan &plan = kernel.plan;
  NvvmBuilder &nv = kernel.nv;
  llvm::IRBuilder<> &b = nv.ir();
  llvm::LLVMContext &context = b.getContext();
  unsigned stages = plan.spec.stages;
  auto issueTile = [&](llvm::Value *tile) {
    issueCopies(kernel, copyA, tile, tile);
    issueBCopies(kernel, copyB, tile, tile);
    nv.cpAsyncCommit();
  };
  if (plan.profile == PtxOptProfileKind::Light) {
    llvm::BasicBlock *entry = b.GetInsertBlock();
    auto *prologue = llvm::BasicBlock::Create(context, "prologue", kernel.fn);
    auto *filled =
        llvm::BasicBlock::Create(context, "prologue.done", kernel.fn);
    b.CreateBr(prologue);
    b.SetInsertPoint(prologue);
    llvm::PHINode *s = b.CreatePHI(b.getInt32Ty(), 2, "prologue.tile");
    s->addIncoming(b.getInt32(0), entry);
    issueTile(s);
    llvm::Value *sNext = b.CreateAdd(s, b.getInt32(1));
    // The copies may have branched (a 4-bit weight's last round).
    s->addIncoming(sNext, b.GetInsertBlock());
    b.CreateCondBr(b.CreateICmpULT(sNext, b.getInt32(stages - 1)), prologue,
                   filled);
    b.SetInsertPoint(filled);
  } else {
    for (unsigned s = 0; s + 1 < stages; ++s)
      issueTile(b.getInt32(s));
  }
}

/// One k16 step's mma.sync of every (i, j) m16n8 tile of the warp, from the
/// step's fragments \p cur into the accumulators \p acc.
void issueMmas(Sm80Kernel &kernel, const Fragments &cur,
               std::vector<llvm::Value *> &acc) {
  const Sm80GemmPlan &plan = kernel.plan;
  kernel.at(KernelPart::Mma);
  for (unsigned i = 0; i < plan.mmaTilesM; ++i)
    for (unsigned j = 0; j < plan.mmaTilesN; ++j) {
      const auto &pair = cur.b[j / 2];
      llvm::Value *bRegs[2] = {pair[2 * (j % 2)], pair[2 * (j % 2) + 1]};
      unsigned at = (i * plan.mmaTilesN + j) * 4;
      auto d = kernel.nv.mmaM16N8K16(plan.spec.aType, cur.a[i], bRegs,
                                     llvm::ArrayRef(acc).slice(at, 4));
      for (unsigned r = 0; r < 4; ++r)
        acc[at + r] = d[r];
    }
  kernel.at(KernelPart::Kernel);
}

/// The registers of \p f that step 0's fragments carry around the k loop
/// in phis (all of them: the previous trip loaded them).
std::vector<llvm::Value **> carried(Fragments &f) {
  std::vector<llvm::Value **> regs;
  for (auto *quads : {&f.a, &f.b})
    for (auto &quad : *quads)
      for (llvm::Value *&reg : quad)
        regs.push_back(&reg);
  for (llvm::Value *&word : f.weight.words)
    regs.push_back(&word);
  for (auto &tiles : f.weight.scaleBase)
    for (GroupScaleBase &sb : tiles)
      for (llvm::Value **reg : {&sb.scale, &sb.base})
        if (*reg) // No base for the fp8 formats.
          regs.push_back(reg);
  return regs;
}

} // namespace

llvm::Value *sm80KTileInK(Sm80Kernel &kernel, llvm::Value *kt) {
  return kernel.kTileBegin ? kernel.nv.ir().CreateAdd(kernel.kTileBegin, kt)
                           : kt;
}

void emitSm80Mainloop(Sm80Kernel &kernel) {
  const Sm80GemmPlan &plan = kernel.plan;
  const GemmSpec &spec = plan.spec;
  NvvmBuilder &nv = kernel.nv;
  llvm::IRBuilder<> &b = nv.ir();
  llvm::LLVMContext &context = b.getContext();
  unsigned stages = spec.stages;
  unsigned regionB = stages * plan.a.stageElems;

  OperandCopies copyA =
      setUpCopies(kernel, plan.a, kernel.a, kernel.lda, kernel.m0, kernel.m, 0);
  BCopies copyB;
  if (!plan.weight)
    copyB.operand = setUpCopies(kernel, plan.b, kernel.b, kernel.ldb, kernel.n0,
                                kernel.n, regionB);
  OperandFragments fragA =
      setUpFragments(kernel, plan.a, /*isA=*/true, kernel.warpM, 0);
  BLoads fragB;
  if (plan.weight)
    copyB.weight = fragB.weight = setUpSm80WeightLoads(kernel);
  else
    fragB.ldmatrix =
        setUpFragments(kernel, plan.b, /*isA=*/false, kernel.warpN, regionB);

  // Accumulators are loop phis, +0.0 on entry (built directly: an alloca
  // would need SROA, half the Light middle end's time).
  unsigned accCount = plan.mmaTilesM * plan.mmaTilesN * 4;
  llvm::Type *f32 = b.getFloatTy();

  issuePrologueCopies(kernel, copyA, copyB);
  llvm::Value *kTiles =
      kernel.kTiles
          ? kernel.kTiles
          : b.CreateUDiv(b.CreateAdd(kernel.k, b.getInt32(spec.bk - 1)),
                         b.getInt32(spec.bk), "k.tiles");
  bool acrossTiles = plan.prefetchAcrossTiles;
  Fragments first;
  if (acrossTiles) {
    // Tile 0 has landed; its first fragments are loaded before the loop.
    nv.cpAsyncWait(stages - 2);
    nv.barrier();
    first = loadFragments(kernel, fragA, fragB, b.getInt32(0), 0);
  }
  llvm::BasicBlock *pre = b.GetInsertBlock();
  auto *loop = llvm::BasicBlock::Create(context, "k.loop", kernel.fn);
  auto *after = llvm::BasicBlock::Create(context, "k.done", kernel.fn);
  // Skip the loop when K = 0. (Running one trip of zero fills instead would
  // save a phi per accumulator, but then ptxas spilled the 128-accumulator
  // 128x256x64 kernel: bench/CompileLatencyResults.md.)
  b.CreateCondBr(b.CreateICmpUGT(kTiles, b.getInt32(0)), loop, after);

  b.SetInsertPoint(loop);
  // Highest accumulator first: the order SROA gave these phis when they
  // were an alloca; ptxas then used 4-6 fewer registers than with the
  // ascending order.
  std::vector<llvm::PHINode *> accPhis(accCount);
  for (unsigned i = accCount; i-- > 0;) {
    accPhis[i] = b.CreatePHI(f32, 2, "acc");
    accPhis[i]->addIncoming(llvm::ConstantFP::get(f32, 0.0), pre);
  }
  std::vector<llvm::Value *> acc(accPhis.begin(), accPhis.end());
  llvm::PHINode *kt = b.CreatePHI(b.getInt32Ty(), 2, "kt");
  llvm::PHINode *readStage = b.CreatePHI(b.getInt32Ty(), 2, "stage");
  kt->addIncoming(b.getInt32(0), pre);
  readStage->addIncoming(b.getInt32(0), pre);
  // The fragments of k16 step 0 arrive from the previous iteration.
  std::vector<llvm::PHINode *> fragPhis;
  Fragments cur = first;
  for (llvm::Value **reg : carried(cur)) {
    llvm::PHINode *phi = b.CreatePHI((*reg)->getType(), 2);
    phi->addIncoming(*reg, pre);
    fragPhis.push_back(phi);
    *reg = phi;
  }

  llvm::Value *isFirst = b.CreateICmpEQ(readStage, b.getInt32(0));
  llvm::Value *writeStage =
      b.CreateSelect(isFirst, b.getInt32(stages - 1),
                     b.CreateSub(readStage, b.getInt32(1)), "write.stage");
  llvm::Value *wraps = b.CreateICmpEQ(readStage, b.getInt32(stages - 1));
  llvm::Value *stageNext = b.CreateSelect(
      wraps, b.getInt32(0), b.CreateAdd(readStage, b.getInt32(1)));

  // Refill the stage of tile kt - 1, free since the last barrier.
  auto refill = [&] {
    llvm::Value *nextTile = b.CreateAdd(kt, b.getInt32(stages - 1));
    issueCopies(kernel, copyA, nextTile, writeStage);
    issueBCopies(kernel, copyB, nextTile, writeStage);
    nv.cpAsyncCommit();
  };
  if (!acrossTiles) {
    // Tile kt has landed and every warp is done with tile kt - 1.
    nv.cpAsyncWait(stages - 2);
    nv.barrier();
    refill();
    cur = loadFragments(kernel, fragA, fragB, readStage, 0);
  }
  for (unsigned ks = 0; ks < plan.kSteps; ++ks) {
    // Load the next step's fragments before this step's mmas. Across tiles,
    // before the last step wait for tile kt + 1 and load its step 0: the
    // barrier also tells every warp that all have finished reading tile
    // kt - 1's stage.
    Fragments next;
    if (ks + 1 < plan.kSteps) {
      next = loadFragments(kernel, fragA, fragB, readStage, ks + 1, &cur);
    } else if (acrossTiles) {
      nv.cpAsyncWait(stages - 2);
      nv.barrier();
      next = loadFragments(kernel, fragA, fragB, stageNext, 0);
    }
    if (ks == 0 && acrossTiles)
      refill();
    issueMmas(kernel, cur, acc);
    cur = next;
  }
  for (unsigned i = 0; i < accCount; ++i)
    accPhis[i]->addIncoming(acc[i], b.GetInsertBlock());

  llvm::Value *ktNext = b.CreateAdd(kt, b.getInt32(1), "kt.next");
  kt->addIncoming(ktNext, b.GetInsertBlock());
  readStage->addIncoming(stageNext, b.GetInsertBlock());
  unsigned phiIndex = 0;
  for (llvm::Value **reg : carried(cur))
    fragPhis[phiIndex++]->addIncoming(*reg, b.GetInsertBlock());
  llvm::BasicBlock *loopEnd = b.GetInsertBlock();
  b.CreateCondBr(b.CreateICmpULT(ktNext, kTiles), loop, after);

  b.SetInsertPoint(after);
  // +0.0 when the loop did not run, else the last trip's values.
  kernel.acc.clear();
  for (unsigned i = 0; i < accCount; ++i) {
    llvm::PHINode *phi = b.CreatePHI(f32, 2);
    phi->addIncoming(llvm::ConstantFP::get(f32, 0.0), pre);
    phi->addIncoming(acc[i], loopEnd);
    kernel.acc.push_back(phi);
  }
  // The copies issued past the last tile are zero fills; let them land
  // before the CTA may exit.
  nv.cpAsyncWait(0);
}

} // namespace tilec
