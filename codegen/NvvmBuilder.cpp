//===- codegen/NvvmBuilder.cpp - IRBuilder helpers for NVVM intrinsics ----===//
//
// Each helper is one intrinsic call plus the bitcasts its signature needs
// (ldmatrix returns b32 registers; the f16 mma takes <2 x half>).
//
//===----------------------------------------------------------------------===//
#include "codegen/NvvmBuilder.h"

#include "llvm/IR/IntrinsicsNVPTX.h"

#include <cassert>

namespace tilec {

llvm::Type *llvmFloatType(llvm::IRBuilderBase &b, DTypeKind type) {
  switch (type) {
  case DTypeKind::F16:
    return b.getHalfTy();
  case DTypeKind::BF16:
    return b.getBFloatTy();
  default:
    return b.getFloatTy();
  }
}

llvm::Value *NvvmBuilder::threadIdX() {
  return b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {}, {},
                           nullptr, "tid");
}

llvm::Value *NvvmBuilder::blockIdX() {
  return b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, {}, {},
                           nullptr, "ctaid");
}

llvm::Value *NvvmBuilder::blockIdZ() {
  return b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z, {}, {},
                           nullptr, "batch");
}

void NvvmBuilder::barrier() {
  b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier_cta_sync_aligned_all, {},
                    {b.getInt32(0)});
}

void NvvmBuilder::cpAsync16(llvm::Value *sharedDst, llvm::Value *globalSrc,
                            llvm::Value *srcBytes) {
  b.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16_s, {},
                    {sharedDst, globalSrc, srcBytes});
}

void NvvmBuilder::cpAsyncCommit() {
  b.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_commit_group,
                    llvm::ArrayRef<llvm::Value *>{});
}

void NvvmBuilder::cpAsyncWait(unsigned pending) {
  b.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_wait_group, {},
                    {b.getInt32(pending)});
}

std::array<llvm::Value *, 4> NvvmBuilder::ldmatrixX4(llvm::Value *sharedRow,
                                                     bool trans) {
  auto id = trans
                ? llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_trans_b16
                : llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16;
  llvm::Value *all = b.CreateIntrinsic(id, {sharedRow->getType()}, {sharedRow});
  std::array<llvm::Value *, 4> regs;
  for (unsigned i = 0; i < 4; ++i)
    regs[i] = b.CreateExtractValue(all, i);
  return regs;
}

std::array<llvm::Value *, 4>
NvvmBuilder::mmaM16N8K16(DTypeKind inType, llvm::ArrayRef<llvm::Value *> a,
                         llvm::ArrayRef<llvm::Value *> bRegs,
                         llvm::ArrayRef<llvm::Value *> c) {
  assert(a.size() == 4 && bRegs.size() == 2 && c.size() == 4 &&
         "m16n8k16 takes 4 A, 2 B and 4 C registers");
  assert((inType == DTypeKind::F16 || inType == DTypeKind::BF16) &&
         "m16n8k16 here is f16/bf16 only");
  llvm::SmallVector<llvm::Value *, 10> args;
  llvm::Type *half2 = llvm::FixedVectorType::get(b.getHalfTy(), 2);
  auto operand = [&](llvm::Value *reg) -> llvm::Value * {
    return inType == DTypeKind::F16 ? b.CreateBitCast(reg, half2) : reg;
  };
  for (llvm::Value *reg : a)
    args.push_back(operand(reg));
  for (llvm::Value *reg : bRegs)
    args.push_back(operand(reg));
  args.append(c.begin(), c.end());
  auto id = inType == DTypeKind::F16
                ? llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32
                : llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16;
  llvm::Value *all = b.CreateIntrinsic(id, {}, args);
  std::array<llvm::Value *, 4> d;
  for (unsigned i = 0; i < 4; ++i)
    d[i] = b.CreateExtractValue(all, i);
  return d;
}

} // namespace tilec
