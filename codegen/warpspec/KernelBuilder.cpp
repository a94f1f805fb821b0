//===- codegen/warpspec/KernelBuilder.cpp - The TMA kernels' builder ------===//
#include "codegen/warpspec/KernelBuilder.h"

#include "codegen/PtxEmitter.h"
#include "codegen/PtxInlineAsm.h"
#include "codegen/Tcgen05InlineAsm.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tilec {

std::vector<KernelParam> tmaGemmLeadingParams(bool staged) {
  using P = KernelParam;
  std::vector<KernelParam> params = {{"tmapA", P::TensorMap},
                                     {"tmapB", P::TensorMap}};
  if (staged)
    params.push_back({"tmapC", P::TensorMap});
  params.insert(params.end(), {{"c", P::Pointer},
                               {"rowsA", P::I32},
                               {"rowsB", P::I32},
                               {"k", P::I32},
                               {"ldc", P::I32},
                               {"alpha", P::F32},
                               {"beta", P::F32}});
  return params;
}

llvm::Value *WarpSpecKernelBuilder::fullBar(llvm::Value *slot) {
  return b.CreateAdd(barBase, b.CreateMul(slot, i32(8)));
}

llvm::Value *WarpSpecKernelBuilder::emptyBar(llvm::Value *slot) {
  return b.CreateAdd(barBase,
                     b.CreateMul(b.CreateAdd(slot, i32(stages)), i32(8)));
}

WarpSpecKernelBuilder::RingSlot
WarpSpecKernelBuilder::ringSlot(llvm::Value *it) {
  llvm::Value *slot = b.CreateURem(it, i32(stages), "slot");
  llvm::Value *parity =
      b.CreateAnd(b.CreateUDiv(it, i32(stages)), i32(1), "parity");
  return {slot, parity};
}

llvm::StringMap<llvm::Value *>
WarpSpecKernelBuilder::declareKernel(llvm::StringRef name,
                                     llvm::ArrayRef<KernelParam> params,
                                     unsigned threads, unsigned minCtas) {
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
  fn = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name,
                              module);
  fn->setCallingConv(llvm::CallingConv::PTX_Kernel);
  fn->addFnAttr("nvvm.maxntid", std::to_string(threads));
  fn->addFnAttr("nvvm.minctasm", std::to_string(minCtas));
  llvm::Type *tmapType = llvm::ArrayType::get(b.getInt8Ty(), 128);
  llvm::StringMap<llvm::Value *> byName;
  for (unsigned i = 0; i < params.size(); ++i) {
    llvm::Argument *arg = fn->getArg(i);
    arg->setName(params[i].name);
    byName[params[i].name] = arg;
    if (params[i].kind != KernelParam::TensorMap)
      continue;
    // A CUtensorMap: 128 bytes by value, 64-byte aligned, read in place.
    fn->addParamAttr(i, llvm::Attribute::getWithByValType(ctx, tmapType));
    fn->addParamAttr(i,
                     llvm::Attribute::getWithAlignment(ctx, llvm::Align(64)));
    fn->addParamAttr(i, llvm::Attribute::get(ctx, "nvvm.grid_constant"));
  }
  tmapA = byName.lookup("tmapA");
  tmapB = byName.lookup("tmapB");
  tmapC = byName.lookup("tmapC");
  c = byName.lookup("c");
  rowsA = byName.lookup("rowsA");
  rowsB = byName.lookup("rowsB");
  k = byName.lookup("k");
  ldc = byName.lookup("ldc");
  alpha = byName.lookup("alpha");
  beta = byName.lookup("beta");
  workspace = byName.lookup("workspace");
  counters = byName.lookup("counters");
  storeTma = byName.lookup("storeTma");
  strideC = byName.lookup("strideC");
  return byName;
}

llvm::Value *WarpSpecKernelBuilder::alignedSmemBase(const llvm::Twine &name) {
  auto *smem = new llvm::GlobalVariable(
      module, llvm::ArrayType::get(b.getInt8Ty(), 0), false,
      llvm::GlobalValue::ExternalLinkage, nullptr, "tilec_smem", nullptr,
      llvm::GlobalValue::NotThreadLocal, 3);
  smem->setAlignment(llvm::Align(1024));
  llvm::Value *raw = b.CreatePtrToInt(smem, b.getInt32Ty());
  return b.CreateAnd(b.CreateAdd(raw, i32(SmemAlignSlack - 1)),
                     i32(~(SmemAlignSlack - 1)), name);
}

llvm::Value *WarpSpecKernelBuilder::countOf(llvm::Value *value, unsigned size,
                                            const llvm::Twine &name) {
  return b.CreateUDiv(b.CreateAdd(value, i32(size - 1)), i32(size), name);
}

void WarpSpecKernelBuilder::loop(
    const llvm::Twine &name, llvm::Value *start, llvm::Value *bound,
    llvm::Value *stride,
    const std::function<void(llvm::Value *v, llvm::BasicBlock *next)> &body) {
  llvm::BasicBlock *pre = b.GetInsertBlock();
  llvm::BasicBlock *head = block(name + ".head");
  llvm::BasicBlock *bodyBlock = block(name + ".body");
  llvm::BasicBlock *latch = block(name + ".latch");
  llvm::BasicBlock *exit = block(name + ".exit");
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::PHINode *v = b.CreatePHI(b.getInt32Ty(), 2, name);
  v->addIncoming(start, pre);
  b.CreateCondBr(b.CreateICmpULT(v, bound), bodyBlock, exit);
  b.SetInsertPoint(bodyBlock);
  body(v, latch);
  b.SetInsertPoint(latch);
  v->addIncoming(b.CreateAdd(v, stride, name + ".next", true, true), latch);
  b.CreateBr(head);
  b.SetInsertPoint(exit);
}

void WarpSpecKernelBuilder::loadTile(const TmaOperandTile &tile,
                                     llvm::Value *dst, llvm::Value *tmap,
                                     llvm::Value *kc, llvm::Value *row,
                                     llvm::Value *bar, llvm::Value *z,
                                     bool ctaPair) {
  auto load = [&](llvm::Value *to, llvm::Value *c0, llvm::Value *c1) {
    if (z && ctaPair)
      ptx::tmaLoad3dCtaPair(b, to, tmap, c0, c1, z, bar);
    else if (z)
      ptx::tmaLoad3d(b, to, tmap, c0, c1, z, bar);
    else if (ctaPair)
      ptx::tmaLoad2dCtaPair(b, to, tmap, c0, c1, bar);
    else
      ptx::tmaLoad2d(b, to, tmap, c0, c1, bar);
  };
  if (tile.major == MajorKind::K) {
    load(dst, kc, row);
    return;
  }
  for (unsigned i = 0; i < tile.boxes; ++i)
    load(b.CreateAdd(dst, i32(i * tile.boxBytes)),
         b.CreateAdd(row, i32(i * tile.boxDims[0])), kc);
}

llvm::Expected<std::string>
kernelPtx(llvm::StringRef name, ArchKind arch,
          llvm::function_ref<llvm::Error(llvm::Module &)> build) {
  llvm::LLVMContext context;
  llvm::Module module(name, context);
  if (llvm::Error err = build(module))
    return err;
  return emitPtx(module, arch);
}

llvm::Expected<std::string>
kernelLlvmIr(llvm::StringRef name,
             llvm::function_ref<llvm::Error(llvm::Module &)> build) {
  llvm::LLVMContext context;
  llvm::Module module(name, context);
  if (llvm::Error err = build(module))
    return err;
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

} // namespace tilec
