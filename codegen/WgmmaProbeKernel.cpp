//===- codegen/WgmmaProbeKernel.cpp - One wgmma product on the GPU --------===//
//
// Thread t of the warpgroup owns accumulator register i at
//   row = 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2)
//   col = 8 * (i / 4) + 2 * (t % 4) + i % 2
// (the PTX ISA's wgmma D fragment for .f32 accumulators, CuTe's
// CLayout_64xN = ((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512))).
//
//===----------------------------------------------------------------------===//
#include "codegen/WgmmaProbeKernel.h"

#include "codegen/PtxEmitter.h"
#include "ir/arch/InstrTable.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"

namespace tilec {

namespace {
llvm::Value *inlineAsm(llvm::IRBuilder<> &b, llvm::Type *ret,
                       llvm::ArrayRef<llvm::Value *> args, llvm::StringRef text,
                       llvm::StringRef constraints) {
  llvm::SmallVector<llvm::Type *> types;
  for (llvm::Value *v : args)
    types.push_back(v->getType());
  auto *type = llvm::FunctionType::get(ret, types, false);
  auto *callee = llvm::InlineAsm::get(type, text, constraints,
                                      /*hasSideEffects=*/true);
  return b.CreateCall(callee, args);
}

/// for (i = tid; i < count; i += 128) smem[16 i] = global[16 i]
void emitCopy(llvm::IRBuilder<> &b, llvm::Function *kernel, llvm::Value *tid,
              llvm::Value *global, llvm::Value *smem, uint64_t count) {
  llvm::LLVMContext &ctx = b.getContext();
  auto *vec = llvm::FixedVectorType::get(b.getInt32Ty(), 4);
  llvm::BasicBlock *pre = b.GetInsertBlock();
  auto *head = llvm::BasicBlock::Create(ctx, "copy.head", kernel);
  auto *body = llvm::BasicBlock::Create(ctx, "copy.body", kernel);
  auto *done = llvm::BasicBlock::Create(ctx, "copy.done", kernel);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::PHINode *i = b.CreatePHI(b.getInt32Ty(), 2, "i");
  i->addIncoming(tid, pre);
  b.CreateCondBr(b.CreateICmpULT(i, b.getInt32(count)), body, done);
  b.SetInsertPoint(body);
  llvm::Value *byte = b.CreateZExt(b.CreateShl(i, 4), b.getInt64Ty());
  llvm::Value *v = b.CreateAlignedLoad(
      vec, b.CreateGEP(b.getInt8Ty(), global, byte), llvm::Align(16));
  b.CreateAlignedStore(v, b.CreateGEP(b.getInt8Ty(), smem, byte),
                       llvm::Align(16));
  i->addIncoming(b.CreateAdd(i, b.getInt32(128)), body);
  b.CreateBr(head);
  b.SetInsertPoint(done);
}
} // namespace

llvm::Expected<std::string> emitWgmmaProbePtx(const WgmmaProbeSpec &spec) {
  // K per instruction, the legal N and whether the operands may be MN-major
  // (the transpose immediates) come from the instruction table.
  const InstrInfo *info = instrFor(MmaFamilyKind::Wgmma, spec.dtype);
  if (!info)
    return llvm::createStringError(
        llvm::formatv("wgmma does not read {0} from shared memory",
                      dtypeInfo(spec.dtype).name)
            .str());
  if (!info->allowsN(spec.n))
    return llvm::createStringError(
        llvm::formatv("N = {0} is not a wgmma N (a multiple of {1} from {2} "
                      "to {3})",
                      spec.n, info->nStep, info->nMin, info->nMax)
            .str());
  bool transposable = info->mnMajorA && info->mnMajorB;
  if (!transposable &&
      (spec.aMajor != MajorKind::K || spec.bMajor != MajorKind::K))
    return llvm::createStringError(llvm::formatv("wgmma reads {0} K-major only",
                                                 dtypeInfo(spec.dtype).name)
                                       .str());
  if (spec.aDescs.empty() || spec.aDescs.size() != spec.bDescs.size() ||
      spec.aImageBytes % 16 || spec.bImageBytes % 16)
    return llvm::createStringError("malformed wgmma probe spec");

  llvm::LLVMContext ctx;
  llvm::Module module("wgmma_probe", ctx);
  if (llvm::Error err = configureModuleForArch(module, ArchKind::SM90a))
    return err;
  llvm::IRBuilder<> b(ctx);
  llvm::Type *f32 = b.getFloatTy();
  llvm::Type *i64 = b.getInt64Ty();
  llvm::Type *globalPtr = b.getPtrTy(1);
  auto *type = llvm::FunctionType::get(
      b.getVoidTy(), {globalPtr, globalPtr, globalPtr}, false);
  auto *kernel = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, WgmmaProbeKernelName, module);
  kernel->setCallingConv(llvm::CallingConv::PTX_Kernel);
  llvm::Value *aImage = kernel->getArg(0);
  llvm::Value *bImage = kernel->getArg(1);
  llvm::Value *dOut = kernel->getArg(2);

  auto *smem = new llvm::GlobalVariable(
      module, llvm::ArrayType::get(b.getInt8Ty(), 0), false,
      llvm::GlobalValue::ExternalLinkage, nullptr, "tilec_smem", nullptr,
      llvm::GlobalValue::NotThreadLocal, 3);
  smem->setAlignment(llvm::Align(1024));

  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", kernel));
  llvm::Value *tid =
      b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {});
  llvm::Value *bSmem =
      b.CreateGEP(b.getInt8Ty(), smem, b.getInt64(spec.bSmemOffset()));
  emitCopy(b, kernel, tid, aImage, smem, spec.aImageBytes / 16);
  emitCopy(b, kernel, tid, bImage, bSmem, spec.bImageBytes / 16);
  // Make the generic-proxy stores visible to the tensor core (async proxy).
  inlineAsm(b, b.getVoidTy(), {}, "fence.proxy.async.shared::cta;",
            "~{memory}");
  inlineAsm(b, b.getVoidTy(), {}, "bar.sync 0;", "~{memory}");

  // Descriptors are derived for smem base 0; add the real base (16-byte
  // units) to their start-address bits.
  llvm::Value *base = b.CreateLShr(b.CreatePtrToInt(smem, i64), 4);

  unsigned regs = spec.n / 2;
  llvm::SmallVector<llvm::Type *> accTypes(regs, f32);
  auto *accType = llvm::StructType::get(ctx, accTypes);
  llvm::SmallVector<llvm::Value *> acc(regs, llvm::ConstantFP::get(f32, 0.0));

  std::string regList;
  for (unsigned i = 0; i != regs; ++i)
    regList.append(i ? ", $" : "$").append(std::to_string(i));
  std::string outputs, tied;
  for (unsigned i = 0; i != regs; ++i) {
    outputs += "=f,";
    tied.append(",").append(std::to_string(i));
  }
  const char *ptxType = dtypeInfo(spec.dtype).ptxName.data();
  std::string trans;
  if (transposable)
    trans = llvm::formatv(", {0}, {1}", spec.aMajor == MajorKind::MN ? 1 : 0,
                          spec.bMajor == MajorKind::MN ? 1 : 0)
                .str();
  std::string mma = llvm::formatv(
      "{{\n.reg .pred p;\nsetp.ne.b32 p, ${0}, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n{1}k{2}.f32.{3}.{3} {{{4}}, ${5}, "
      "${6}, p, 1, 1{7};\n}",
      regs + 2, spec.n, info->k, ptxType, regList, regs, regs + 1, trans);
  std::string mmaConstraints = outputs + "l,l,r" + tied;

  inlineAsm(b, b.getVoidTy(), {}, "wgmma.fence.sync.aligned;", "~{memory}");
  for (size_t step = 0; step != spec.aDescs.size(); ++step) {
    llvm::Value *aDesc = b.CreateAdd(b.getInt64(spec.aDescs[step]), base);
    llvm::Value *bDesc = b.CreateAdd(b.getInt64(spec.bDescs[step]), base);
    llvm::SmallVector<llvm::Value *> args = {aDesc, bDesc, b.getInt32(1)};
    args.append(acc.begin(), acc.end());
    llvm::Value *out = inlineAsm(b, accType, args, mma, mmaConstraints);
    for (unsigned i = 0; i != regs; ++i)
      acc[i] = b.CreateExtractValue(out, i);
  }
  inlineAsm(b, b.getVoidTy(), {}, "wgmma.commit_group.sync.aligned;",
            "~{memory}");
  // Wait with the accumulators as operands, so that no use moves above it.
  std::string waitConstraints = outputs + std::string(tied.substr(1));
  llvm::Value *waited =
      inlineAsm(b, accType, acc, "wgmma.wait_group.sync.aligned 0;",
                waitConstraints + ",~{memory}");

  llvm::Value *warp = b.CreateUDiv(tid, b.getInt32(32));
  llvm::Value *lane = b.CreateURem(tid, b.getInt32(32));
  llvm::Value *row0 = b.CreateAdd(b.CreateMul(warp, b.getInt32(16)),
                                  b.CreateUDiv(lane, b.getInt32(4)));
  llvm::Value *col0 =
      b.CreateMul(b.CreateURem(lane, b.getInt32(4)), b.getInt32(2));
  for (unsigned i = 0; i != regs; ++i) {
    llvm::Value *row = b.CreateAdd(row0, b.getInt32(8 * ((i / 2) % 2)));
    llvm::Value *col = b.CreateAdd(col0, b.getInt32(8 * (i / 4) + i % 2));
    llvm::Value *index = b.CreateZExt(
        b.CreateAdd(b.CreateMul(row, b.getInt32(spec.n)), col), i64);
    b.CreateStore(b.CreateExtractValue(waited, i),
                  b.CreateGEP(f32, dOut, index));
  }
  // D[64 * N] = the shared-memory base address, for the host to check its
  // alignment (the descriptors assume 1024 bytes).
  b.CreateStore(b.CreateUIToFP(b.CreatePtrToInt(smem, i64), f32),
                b.CreateGEP(f32, dOut, b.getInt64(64 * spec.n)));
  b.CreateRetVoid();
  return emitPtx(module, ArchKind::SM90a);
}

} // namespace tilec
