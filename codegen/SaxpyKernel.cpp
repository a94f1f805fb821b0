//===- codegen/SaxpyKernel.cpp - The pipeline's smoke-test kernel ---------===//
//
// Builds the saxpy kernel with IRBuilder and emits it through emitPtx. The
// pointers live in the global address space (addrspace 1), the kernel uses the
// ptx_kernel calling convention, and the bound check makes any n legal.
//
//===----------------------------------------------------------------------===//
#include "codegen/SaxpyKernel.h"

#include "codegen/PtxEmitter.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace tilec {

llvm::Expected<std::string> emitSaxpyPtx(ArchKind arch) {
  llvm::LLVMContext context;
  llvm::Module module("saxpy", context);
  if (llvm::Error err = configureModuleForArch(module, arch))
    return err;

  llvm::IRBuilder<> builder(context);
  llvm::Type *f32 = builder.getFloatTy();
  llvm::Type *i32 = builder.getInt32Ty();
  llvm::Type *globalPtr = builder.getPtrTy(/*AddrSpace=*/1);
  auto *type = llvm::FunctionType::get(builder.getVoidTy(),
                                       {f32, globalPtr, globalPtr, i32}, false);
  auto *kernel = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, SaxpyKernelName, module);
  kernel->setCallingConv(llvm::CallingConv::PTX_Kernel);
  llvm::Value *a = kernel->getArg(0);
  llvm::Value *x = kernel->getArg(1);
  llvm::Value *y = kernel->getArg(2);
  llvm::Value *n = kernel->getArg(3);
  a->setName("a");
  x->setName("x");
  y->setName("y");
  n->setName("n");
  kernel->addParamAttr(1, llvm::Attribute::NoAlias);
  kernel->addParamAttr(1, llvm::Attribute::ReadOnly);
  kernel->addParamAttr(2, llvm::Attribute::NoAlias);

  auto *entry = llvm::BasicBlock::Create(context, "entry", kernel);
  auto *body = llvm::BasicBlock::Create(context, "body", kernel);
  auto *exit = llvm::BasicBlock::Create(context, "exit", kernel);

  builder.SetInsertPoint(entry);
  llvm::Value *tid = builder.CreateIntrinsic(
      llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {});
  llvm::Value *ctaid = builder.CreateIntrinsic(
      llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, {});
  llvm::Value *ntid = builder.CreateIntrinsic(
      llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x, {});
  llvm::Value *index =
      builder.CreateAdd(builder.CreateMul(ctaid, ntid, "", /*NUW=*/true), tid,
                        "i", /*NUW=*/true);
  builder.CreateCondBr(builder.CreateICmpULT(index, n), body, exit);

  builder.SetInsertPoint(body);
  llvm::Value *wide = builder.CreateZExt(index, builder.getInt64Ty());
  llvm::Value *xPtr = builder.CreateInBoundsGEP(f32, x, wide);
  llvm::Value *yPtr = builder.CreateInBoundsGEP(f32, y, wide);
  llvm::Value *xv = builder.CreateLoad(f32, xPtr, "xv");
  llvm::Value *yv = builder.CreateLoad(f32, yPtr, "yv");
  llvm::Value *result = builder.CreateIntrinsic(
      llvm::Intrinsic::fma, {f32}, {a, xv, yv});
  builder.CreateStore(result, yPtr);
  builder.CreateBr(exit);

  builder.SetInsertPoint(exit);
  builder.CreateRetVoid();

  return emitPtx(module, arch);
}

} // namespace tilec
