//===- codegen/SplitKSum.cpp - Split-K: summing the partials -------------===//
#include "codegen/SplitKSum.h"

#include <algorithm>

using namespace tilec;

llvm::SmallVector<llvm::Value *>
tilec::emitSplitKSum(llvm::IRBuilder<> &b, llvm::Value *splits,
                     llvm::ArrayRef<llvm::Value *> init, unsigned zFirst,
                     const SplitKPartialLoader &loadPartial) {
  unsigned regs = init.size();
  llvm::Type *f32 = b.getFloatTy();
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  auto block = [&](const char *name) {
    return llvm::BasicBlock::Create(b.getContext(), name, fn);
  };
  // Partials a trip: their loads are issued together.
  const unsigned ReduceBatch = std::clamp(128u / regs, 1u, 4u);
  llvm::BasicBlock *pre = b.GetInsertBlock();
  llvm::BasicBlock *head = block("splitk.head");
  llvm::BasicBlock *body = block("splitk.body");
  llvm::BasicBlock *done = block("splitk.done");
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::PHINode *z = b.CreatePHI(b.getInt32Ty(), 2, "z");
  z->addIncoming(b.getInt32(zFirst), pre);
  llvm::SmallVector<llvm::PHINode *> sums;
  for (unsigned i = 0; i < regs; ++i) {
    sums.push_back(b.CreatePHI(f32, 2));
    sums.back()->addIncoming(init[i], pre);
  }
  b.CreateCondBr(b.CreateICmpULT(z, splits), body, done);
  b.SetInsertPoint(body);
  llvm::SmallVector<llvm::Value *> valid;
  llvm::SmallVector<llvm::SmallVector<llvm::Value *>> loaded;
  for (unsigned u = 0; u < ReduceBatch; ++u) {
    llvm::Value *zu = b.CreateAdd(z, b.getInt32(u));
    valid.push_back(b.CreateICmpULT(zu, splits));
    loaded.push_back(loadPartial(zu, valid.back()));
  }
  llvm::SmallVector<llvm::Value *> next(sums.begin(), sums.end());
  for (unsigned u = 0; u < ReduceBatch; ++u)
    for (unsigned r4 = 0; r4 < regs / 4; ++r4)
      for (unsigned e = 0; e < 4; ++e) {
        llvm::Value *&sum = next[4 * r4 + e];
        llvm::Value *add =
            b.CreateFAdd(sum, b.CreateExtractValue(loaded[u][r4], {e}));
        sum = b.CreateSelect(valid[u], add, sum);
      }
  z->addIncoming(b.CreateAdd(z, b.getInt32(ReduceBatch)), body);
  for (unsigned i = 0; i < regs; ++i)
    sums[i]->addIncoming(next[i], body);
  b.CreateBr(head);
  b.SetInsertPoint(done);
  return llvm::SmallVector<llvm::Value *>(sums.begin(), sums.end());
}
