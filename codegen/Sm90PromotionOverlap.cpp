//===- codegen/Sm90PromotionOverlap.cpp - Promotion under the next wgmmas -===//
//
// The block-scaled K loop of sm90OverlapsPromotion (Sm90Gemm.h). The plain
// block-scaled loop (Sm90Consumer.cpp) issues a K block's wgmmas, waits for
// them and promotes: while its FMAs run, the tensor core has nothing of
// this warpgroup's queued, and a lone consumer warpgroup (the decode
// tiles) leaves it idle for every block's wait and promotion. Here two
// fresh accumulators X and Y take turns: block k + 1's wgmmas are issued
// into one before block k's, in the other, are waited for
// (wgmma.wait_group 1) and promoted. Registers are static, so the loop is
// unrolled by two (X then Y) and the first block is issued before it:
//
//   first:  wait full(0); X = wgmma(block 0)
//   head:   kt (odd: X holds block kt - 1, scales sX of block kt - 1)
//           kt < K ? body1 : tailX
//   body1:  wait full(kt); Y = wgmma(block kt); sY = scales(kt)
//           main += promote(X, sX) after wait_group 1; free slot kt - 1
//           kt + 1 < K ? body2 : tailY
//   body2:  wait full(kt + 1); X = wgmma(block kt + 1); sX = scales(kt + 1)
//           main += promote(Y, sY) after wait_group 1; free slot kt
//           kt += 2 -> head
//   tailX / tailY: main += promote after wait_group 0; free the last slot
//
// A slot is freed once its wgmmas have completed, one block later than in
// the plain loop, so a consumer waiting for the next slot's data holds one
// slot the producer could be filling. Measured on the H100 (issue 26,
// bench/Fp8BlockResults.md) the overlap pays where one consumer warpgroup
// is alone with the tensor core (the BM 64 decode tiles, 4-12% faster) and
// mostly where two are (BM 128 at M = 128: up to 5% faster, two tiles 2%
// slower). A block's scales are loaded right after its wgmmas are issued
// and used after the next block's are, so their latency hides under a
// block of wgmmas as before; staged scales (sm90StagesBlockScales) are
// read from the block's slot right before its promotion, which still holds
// the slot.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90KernelBuilder.h"

namespace tilec {

llvm::SmallVector<llvm::Value *>
Sm90KernelBuilder::emitOverlappedPromotionMainloop(ConsumerTile &tile,
                                                   llvm::Value *lane,
                                                   llvm::Value *aRowOffset) {
  const ptx::WgmmaShape &shape = tile.shape;
  Sm90ScalesAhead &scales = *tile.scales;
  unsigned regs = tile.blockRegs;
  llvm::Constant *zero = llvm::ConstantFP::get(b.getFloatTy(), 0.0);
  llvm::Value *poison = llvm::PoisonValue::get(b.getFloatTy());
  llvm::SmallVector<llvm::Value *> zeros(regs, zero);

  llvm::BasicBlock *pre = b.GetInsertBlock();
  llvm::BasicBlock *first = block("overlap.first");
  llvm::BasicBlock *head = block("overlap.head");
  llvm::BasicBlock *body1 = block("overlap.body1");
  llvm::BasicBlock *body2 = block("overlap.body2");
  llvm::BasicBlock *tailX = block("overlap.tailX");
  llvm::BasicBlock *tailY = block("overlap.tailY");
  llvm::BasicBlock *done = block("overlap.exit");

  // Waits for ring iteration itBase + \p kt's slot and issues its wgmmas
  // into a fresh accumulator, committed as one group.
  auto issueBlock = [&](llvm::Value *kt) {
    auto [slot, parity] = ringSlot(b.CreateAdd(itBase, kt));
    ptx::mbarrierWaitParity(b, fullBar(slot), parity, "wait.full");
    llvm::Value *aRows = b.CreateAdd(
        b.CreateAdd(aBase, b.CreateMul(slot, i32(tileA.bytes))), aRowOffset);
    llvm::Value *bRows =
        b.CreateAdd(bBase, b.CreateMul(slot, i32(tileB.bytes)));
    lines->at(KernelPart::Mma);
    llvm::SmallVector<llvm::Value *> part =
        issueWgmmas(shape, llvm::SmallVector<llvm::Value *>(regs, poison),
                    aRows, bRows, /*overwrite=*/true);
    ptx::wgmmaCommitGroup(b);
    lines->at(KernelPart::Kernel);
    return part;
  };
  // The scales of ring iteration itBase + \p kt's block: staged in its
  // slot (read before the slot is freed), else \p ahead, loaded a block
  // ahead.
  bool staged = scales.isStaged();
  auto scalesOf = [&](llvm::Value *kt, const Sm90BlockScales &ahead) {
    if (!staged)
      return ahead;
    llvm::Value *slot = ringSlot(b.CreateAdd(itBase, kt)).slot;
    return scales.readStaged(scaleSlot(slot), config.bm)[0];
  };
  // Frees the slot of ring iteration itBase + \p kt.
  auto release = [&](llvm::Value *kt) {
    releaseSlotOnce(lane, ringSlot(b.CreateAdd(itBase, kt)).slot);
  };
  auto promote = [&](llvm::ArrayRef<llvm::Value *> main,
                     llvm::ArrayRef<llvm::Value *> part,
                     const Sm90BlockScales &blockScales, unsigned younger) {
    lines->at(KernelPart::Mma);
    llvm::SmallVector<llvm::Value *> out = scales.scaler(0).promote(
        main, part, blockScales, /*firstChunk=*/0, younger);
    lines->at(KernelPart::Kernel);
    return out;
  };

  b.CreateCondBr(b.CreateICmpUGT(kCount, i32(0)), first, done);

  b.SetInsertPoint(first);
  llvm::SmallVector<llvm::Value *> x0 = issueBlock(i32(0));
  llvm::BasicBlock *firstEnd = b.GetInsertBlock();
  b.CreateBr(head);

  b.SetInsertPoint(head);
  llvm::PHINode *kt = b.CreatePHI(b.getInt32Ty(), 2, "kt");
  kt->addIncoming(i32(1), firstEnd);
  llvm::SmallVector<llvm::PHINode *> mainPhis, xPhis;
  for (unsigned i = 0; i < regs; ++i) {
    mainPhis.push_back(b.CreatePHI(b.getFloatTy(), 2, "acc"));
    mainPhis.back()->addIncoming(zero, firstEnd);
  }
  for (unsigned i = 0; i < regs; ++i) {
    xPhis.push_back(b.CreatePHI(b.getFloatTy(), 2, "fresh.x"));
    xPhis.back()->addIncoming(x0[i], firstEnd);
  }
  scales.enterLoop(b, firstEnd);
  llvm::SmallVector<llvm::Value *> mainIn(mainPhis.begin(), mainPhis.end());
  llvm::SmallVector<llvm::Value *> xIn(xPhis.begin(), xPhis.end());
  Sm90BlockScales xScales = staged ? Sm90BlockScales() : scales.current()[0];
  b.CreateCondBr(b.CreateICmpULT(kt, kCount), body1, tailX);

  b.SetInsertPoint(body1);
  llvm::SmallVector<llvm::Value *> y = issueBlock(kt);
  scales.loadNext(b.CreateAdd(kBegin, kt));
  Sm90BlockScales yScales = staged ? Sm90BlockScales() : scales.loaded()[0];
  llvm::SmallVector<llvm::Value *> main1 =
      promote(mainIn, xIn, scalesOf(b.CreateSub(kt, i32(1)), xScales), 1);
  release(b.CreateSub(kt, i32(1)));
  llvm::Value *kt1 = b.CreateAdd(kt, i32(1));
  b.CreateCondBr(b.CreateICmpULT(kt1, kCount), body2, tailY);

  b.SetInsertPoint(body2);
  llvm::SmallVector<llvm::Value *> x = issueBlock(kt1);
  scales.loadNext(b.CreateAdd(kBegin, kt1));
  llvm::SmallVector<llvm::Value *> main2 =
      promote(main1, y, scalesOf(kt, yScales), 1);
  release(kt);
  llvm::BasicBlock *latch = b.GetInsertBlock();
  kt->addIncoming(b.CreateAdd(kt, i32(2)), latch);
  for (unsigned i = 0; i < regs; ++i) {
    mainPhis[i]->addIncoming(main2[i], latch);
    xPhis[i]->addIncoming(x[i], latch);
  }
  scales.closeLoop(latch);
  b.CreateBr(head);

  // The last block, in X (K odd) or Y (K even): nothing younger to wait
  // past.
  b.SetInsertPoint(tailX);
  llvm::Value *lastX = b.CreateSub(kCount, i32(1));
  llvm::SmallVector<llvm::Value *> finX =
      promote(mainIn, xIn, scalesOf(lastX, xScales), 0);
  release(lastX);
  llvm::BasicBlock *tailXEnd = b.GetInsertBlock();
  b.CreateBr(done);

  b.SetInsertPoint(tailY);
  llvm::Value *lastY = b.CreateSub(kCount, i32(1));
  llvm::SmallVector<llvm::Value *> finY =
      promote(main1, y, scalesOf(lastY, yScales), 0);
  release(lastY);
  llvm::BasicBlock *tailYEnd = b.GetInsertBlock();
  b.CreateBr(done);

  b.SetInsertPoint(done);
  llvm::SmallVector<llvm::Value *> fin;
  for (unsigned i = 0; i < regs; ++i) {
    llvm::PHINode *phi = b.CreatePHI(b.getFloatTy(), 3, "acc.fin");
    phi->addIncoming(zeros[i], pre);
    phi->addIncoming(finX[i], tailXEnd);
    phi->addIncoming(finY[i], tailYEnd);
    fin.push_back(phi);
  }
  return fin;
}

} // namespace tilec
