//===- codegen/SplitKArrival.cpp - Split-K: the last CTA reduces ----------===//
#include "codegen/SplitKArrival.h"

#include "codegen/PtxInlineAsm.h"

namespace tilec {

void emitSplitKArrival(llvm::IRBuilder<> &b, llvm::Function *fn,
                       const SplitKArrival &in, llvm::BasicBlock *exit) {
  auto block = [&](const char *name) {
    return llvm::BasicBlock::Create(b.getContext(), name, fn);
  };
  ptx::emitAsm(b, b.getVoidTy(), "fence.acq_rel.gpu;", "~{memory}", {});
  ptx::barSync(b, in.barrier, in.threads);
  llvm::BasicBlock *count = block("splitk.count");
  llvm::BasicBlock *counted = block("splitk.counted");
  b.CreateCondBr(b.CreateICmpEQ(in.tid, b.getInt32(in.leaderTid)), count,
                 counted);
  b.SetInsertPoint(count);
  llvm::Value *counter =
      b.CreateInBoundsGEP(b.getInt32Ty(), in.counters,
                          b.CreateZExt(in.tileId, b.getInt64Ty()));
  llvm::Value *old = ptx::emitAsm(
      b, b.getInt32Ty(), "atom.acq_rel.gpu.global.add.u32 $0, [$1], 1;",
      "=r,l,~{memory}", {counter});
  llvm::Value *last =
      b.CreateICmpEQ(old, b.CreateSub(in.splits, b.getInt32(1)));
  llvm::Value *lastWord = b.CreateZExt(last, b.getInt32Ty());
  ptx::emitAsm(b, b.getVoidTy(), "st.shared.u32 [$0], $1;", "r,r,~{memory}",
               {in.flagAddr, lastWord});
  llvm::BasicBlock *reset = block("splitk.reset");
  b.CreateCondBr(last, reset, counted);
  b.SetInsertPoint(reset);
  // Every participant of this tile has arrived: leave the counter at 0 for
  // the next launch.
  ptx::emitAsm(b, b.getVoidTy(), "st.relaxed.gpu.global.u32 [$0], 0;",
               "l,~{memory}", {counter});
  b.CreateBr(counted);
  b.SetInsertPoint(counted);
  ptx::barSync(b, in.barrier, in.threads);
  llvm::Value *flag =
      ptx::emitAsm(b, b.getInt32Ty(), "ld.shared.u32 $0, [$1];",
                   "=r,r,~{memory}", {in.flagAddr});
  llvm::BasicBlock *reduce = block("splitk.reduce");
  b.CreateCondBr(b.CreateICmpNE(flag, b.getInt32(0)), reduce, exit);
  b.SetInsertPoint(reduce);
  ptx::emitAsm(b, b.getVoidTy(), "fence.acq_rel.gpu;", "~{memory}", {});
}

} // namespace tilec
