//===- codegen/PtxInlineAsm.cpp - Hopper PTX with no LLVM intrinsic -------===//
//
// The statement texts of PtxInlineAsm.h. Every helper is a side-effecting asm
// call with a "memory" clobber where the statement reads or writes memory, so
// LLVM keeps their order and never caches shared memory across them.
//
//===----------------------------------------------------------------------===//
#include "codegen/PtxInlineAsm.h"

#include "llvm/IR/InlineAsm.h"

namespace tilec {
namespace ptx {

llvm::Value *emitAsm(llvm::IRBuilderBase &builder, llvm::Type *result,
                     llvm::StringRef text, llvm::StringRef constraints,
                     llvm::ArrayRef<llvm::Value *> args) {
  llvm::SmallVector<llvm::Type *> types;
  for (llvm::Value *arg : args)
    types.push_back(arg->getType());
  auto *type = llvm::FunctionType::get(result, types, false);
  auto *asmValue = llvm::InlineAsm::get(type, text, constraints,
                                        /*hasSideEffects=*/true);
  return builder.CreateCall(type, asmValue, args);
}

/// Each line of \p annotation as a `// tilec: LINE` comment inside an asm
/// string: '$' would name an operand, so it is doubled; a line break would
/// end the comment, so lines are split.
static std::string annotationComments(llvm::StringRef annotation) {
  std::string text;
  llvm::SmallVector<llvm::StringRef> lines;
  annotation.split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines) {
    text += "// tilec: ";
    for (char c : line)
      text += c == '$' ? std::string("$$") : std::string(1, c);
    text += "\n\t";
  }
  return text;
}

void mbarrierInit(llvm::IRBuilderBase &builder, llvm::Value *bar,
                  unsigned count) {
  emitAsm(builder, builder.getVoidTy(),
          "mbarrier.init.shared::cta.b64 [$0], $1;", "r,n,~{memory}",
          {bar, builder.getInt32(count)});
}

void fenceBarrierInit(llvm::IRBuilderBase &builder) {
  emitAsm(builder, builder.getVoidTy(),
          "fence.mbarrier_init.release.cluster;\n\t"
          "fence.proxy.async.shared::cta;",
          "~{memory}", {});
}

void fenceProxyAsyncShared(llvm::IRBuilderBase &builder) {
  emitAsm(builder, builder.getVoidTy(), "fence.proxy.async.shared::cta;",
          "~{memory}", {});
}

void mbarrierArriveExpectTx(llvm::IRBuilderBase &builder, llvm::Value *bar,
                            llvm::Value *bytes) {
  emitAsm(builder, builder.getVoidTy(),
          "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;",
          "r,r,~{memory}", {bar, bytes});
}

void mbarrierArrive(llvm::IRBuilderBase &builder, llvm::Value *bar) {
  emitAsm(builder, builder.getVoidTy(),
          "mbarrier.arrive.shared::cta.b64 _, [$0];", "r,~{memory}", {bar});
}

void mbarrierArriveIf(llvm::IRBuilderBase &builder, llvm::Value *bar,
                      llvm::Value *on) {
  emitAsm(builder, builder.getVoidTy(),
          "{\n\t.reg .pred p;\n\tsetp.ne.u32 p, $1, 0;\n\t"
          "@p mbarrier.arrive.shared::cta.b64 _, [$0];\n\t}",
          "r,r,~{memory}", {bar, on});
}

llvm::Value *mbarrierTryWaitParity(llvm::IRBuilderBase &builder,
                                   llvm::Value *bar, llvm::Value *parity) {
  return emitAsm(builder, builder.getInt32Ty(),
                 "{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2;\n\t"
                 "selp.u32 $0, 1, 0, p;\n\t}",
                 "=r,r,r,~{memory}", {bar, parity});
}

void mbarrierWaitParity(llvm::IRBuilderBase &builder, llvm::Value *bar,
                        llvm::Value *parity, const llvm::Twine &name) {
  llvm::Function *fn = builder.GetInsertBlock()->getParent();
  llvm::LLVMContext &ctx = builder.getContext();
  llvm::BasicBlock *loop = llvm::BasicBlock::Create(ctx, name, fn);
  llvm::BasicBlock *done = llvm::BasicBlock::Create(ctx, name + ".done", fn);
  builder.CreateBr(loop);
  builder.SetInsertPoint(loop);
  llvm::Value *ok = mbarrierTryWaitParity(builder, bar, parity);
  builder.CreateCondBr(builder.CreateICmpNE(ok, builder.getInt32(0)), done,
                       loop);
  builder.SetInsertPoint(done);
}

void gridDependentsLaunch(llvm::IRBuilderBase &builder) {
  emitAsm(builder, builder.getVoidTy(), "griddepcontrol.launch_dependents;",
          "~{memory}", {});
}

void gridDependencyWait(llvm::IRBuilderBase &builder) {
  emitAsm(builder, builder.getVoidTy(), "griddepcontrol.wait;", "~{memory}",
          {});
}

void prefetchTensorMap(llvm::IRBuilderBase &builder, llvm::Value *tensorMap) {
  emitAsm(builder, builder.getVoidTy(), "prefetch.tensormap [$0];",
          "l,~{memory}", {tensorMap});
}

void tmaLoad2d(llvm::IRBuilderBase &builder, llvm::Value *dst,
               llvm::Value *tensorMap, llvm::Value *c0, llvm::Value *c1,
               llvm::Value *bar) {
  emitAsm(builder, builder.getVoidTy(),
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
          "complete_tx::bytes [$0], [$1, {$2, $3}], [$4];",
          "r,l,r,r,r,~{memory}", {dst, tensorMap, c0, c1, bar});
}

void tmaStore2d(llvm::IRBuilderBase &builder, llvm::Value *tensorMap,
                llvm::Value *c0, llvm::Value *c1, llvm::Value *src) {
  emitAsm(builder, builder.getVoidTy(),
          "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group "
          "[$0, {$1, $2}], [$3];",
          "l,r,r,r,~{memory}", {tensorMap, c0, c1, src});
}

void tmaLoad3d(llvm::IRBuilderBase &builder, llvm::Value *dst,
               llvm::Value *tensorMap, llvm::Value *c0, llvm::Value *c1,
               llvm::Value *c2, llvm::Value *bar) {
  emitAsm(builder, builder.getVoidTy(),
          "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::"
          "complete_tx::bytes [$0], [$1, {$2, $3, $4}], [$5];",
          "r,l,r,r,r,r,~{memory}", {dst, tensorMap, c0, c1, c2, bar});
}

void tmaStore3d(llvm::IRBuilderBase &builder, llvm::Value *tensorMap,
                llvm::Value *c0, llvm::Value *c1, llvm::Value *c2,
                llvm::Value *src) {
  emitAsm(builder, builder.getVoidTy(),
          "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group "
          "[$0, {$1, $2, $3}], [$4];",
          "l,r,r,r,r,~{memory}", {tensorMap, c0, c1, c2, src});
}

void bulkCommitGroup(llvm::IRBuilderBase &builder) {
  emitAsm(builder, builder.getVoidTy(), "cp.async.bulk.commit_group;",
          "~{memory}", {});
}

void bulkWaitGroup(llvm::IRBuilderBase &builder, unsigned pending,
                   bool readOnly) {
  std::string text = std::string("cp.async.bulk.wait_group") +
                     (readOnly ? ".read " : " ") + std::to_string(pending) +
                     ";";
  emitAsm(builder, builder.getVoidTy(), text, "~{memory}", {});
}

void stmatrix(llvm::IRBuilderBase &builder, llvm::Value *addr,
              llvm::ArrayRef<llvm::Value *> regs, bool trans,
              llvm::StringRef annotation) {
  assert((regs.size() == 1 || regs.size() == 2 || regs.size() == 4) &&
         "stmatrix stores 1, 2 or 4 matrices");
  std::string text = annotationComments(annotation) +
                     "stmatrix.sync.aligned.m8n8.x" +
                     std::to_string(regs.size()) + (trans ? ".trans" : "") +
                     ".shared.b16 [$0], {";
  std::string constraints = "r";
  for (size_t i = 0; i < regs.size(); ++i) {
    text += (i ? ", $" : "$") + std::to_string(i + 1);
    constraints += ",r";
  }
  text += "};";
  llvm::SmallVector<llvm::Value *> args{addr};
  args.append(regs.begin(), regs.end());
  emitAsm(builder, builder.getVoidTy(), text, constraints + ",~{memory}", args);
}

llvm::SmallVector<llvm::Value *> ldmatrix(llvm::IRBuilderBase &builder,
                                          llvm::Value *addr, unsigned count,
                                          bool trans) {
  assert((count == 1 || count == 2 || count == 4) &&
         "ldmatrix loads 1, 2 or 4 matrices");
  std::string text = "ldmatrix.sync.aligned.m8n8.x" + std::to_string(count) +
                     (trans ? ".trans" : "") + ".shared.b16 {";
  std::string constraints;
  llvm::SmallVector<llvm::Type *> types;
  for (unsigned i = 0; i < count; ++i) {
    text += (i ? ", $" : "$") + std::to_string(i);
    constraints += (i ? ",=r" : "=r");
    types.push_back(builder.getInt32Ty());
  }
  text += "}, [$" + std::to_string(count) + "];";
  llvm::Type *result = count == 1
                           ? types[0]
                           : llvm::StructType::get(builder.getContext(), types);
  llvm::Value *call =
      emitAsm(builder, result, text, constraints + ",r,~{memory}", {addr});
  llvm::SmallVector<llvm::Value *> out;
  for (unsigned i = 0; i < count; ++i)
    out.push_back(count == 1 ? call : builder.CreateExtractValue(call, {i}));
  return out;
}

void barSync(llvm::IRBuilderBase &builder, llvm::Value *id, unsigned threads) {
  emitAsm(builder, builder.getVoidTy(),
          "bar.sync $0, " + std::to_string(threads) + ";", "r,~{memory}", {id});
}

void setMaxNReg(llvm::IRBuilderBase &builder, bool increase, unsigned regs) {
  std::string text = std::string("setmaxnreg.") + (increase ? "inc" : "dec") +
                     ".sync.aligned.u32 " + std::to_string(regs) + ";";
  emitAsm(builder, builder.getVoidTy(), text, "", {});
}

llvm::Value *electSync(llvm::IRBuilderBase &builder) {
  return emitAsm(builder, builder.getInt32Ty(),
                 "{\n\t.reg .pred p;\n\t.reg .b32 r;\n\t"
                 "elect.sync r|p, 0xffffffff;\n\t"
                 "selp.u32 $0, 1, 0, p;\n\t}",
                 "=r", {});
}

void wgmmaFence(llvm::IRBuilderBase &builder) {
  emitAsm(builder, builder.getVoidTy(), "wgmma.fence.sync.aligned;",
          "~{memory}", {});
}

void wgmmaCommitGroup(llvm::IRBuilderBase &builder) {
  emitAsm(builder, builder.getVoidTy(), "wgmma.commit_group.sync.aligned;",
          "~{memory}", {});
}

/// "=f,=f,...,0,1,...": \p count outputs and their tied inputs.
static std::string tiedFloatConstraints(unsigned count) {
  std::string out;
  for (unsigned i = 0; i < count; ++i)
    out += (i ? ",=f" : "=f");
  for (unsigned i = 0; i < count; ++i)
    out += "," + std::to_string(i);
  return out;
}

/// Unpacks the struct an asm call with several outputs returns.
static llvm::SmallVector<llvm::Value *>
unpack(llvm::IRBuilderBase &builder, llvm::Value *call, unsigned count) {
  llvm::SmallVector<llvm::Value *> out;
  if (count == 1) {
    out.push_back(call);
    return out;
  }
  for (unsigned i = 0; i < count; ++i)
    out.push_back(builder.CreateExtractValue(call, {i}));
  return out;
}

static llvm::Type *floatsType(llvm::IRBuilderBase &builder, unsigned count) {
  if (count == 1)
    return builder.getFloatTy();
  llvm::SmallVector<llvm::Type *> fields(count, builder.getFloatTy());
  return llvm::StructType::get(builder.getContext(), fields);
}

llvm::SmallVector<llvm::Value *>
wgmmaWaitGroup(llvm::IRBuilderBase &builder, unsigned pending,
               llvm::ArrayRef<llvm::Value *> acc) {
  std::string text =
      "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";";
  if (acc.empty()) {
    emitAsm(builder, builder.getVoidTy(), text, "~{memory}", {});
    return {};
  }
  llvm::Value *call =
      emitAsm(builder, floatsType(builder, acc.size()), text,
              tiedFloatConstraints(acc.size()) + ",~{memory}", acc);
  return unpack(builder, call, acc.size());
}

/// A wgmma statement up to its accumulator list: the scale-d predicate p
/// from operand $\p scaleOperand, \p annotation's comments, the opcode
/// with its types and the accumulators $0..$(R-1).
static std::string wgmmaOpening(const WgmmaShape &shape, unsigned scaleOperand,
                                llvm::StringRef annotation) {
  unsigned regs = shape.m * shape.n / 128;
  std::string text = "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, $" +
                     std::to_string(scaleOperand) + ", 0;\n\t";
  llvm::StringRef bType = shape.bType.empty() ? shape.abType : shape.bType;
  text += annotationComments(annotation);
  text += "wgmma.mma_async.sync.aligned.m" + std::to_string(shape.m) + "n" +
          std::to_string(shape.n) + "k" + std::to_string(shape.k) + "." +
          shape.dType.str() + "." + shape.abType.str() + "." + bType.str() +
          " {";
  for (unsigned i = 0; i < regs; ++i)
    text += (i ? ", $" : "$") + std::to_string(i);
  return text + "}";
}

std::string wgmmaSsText(const WgmmaShape &shape, llvm::StringRef annotation) {
  unsigned regs = shape.m * shape.n / 128;
  std::string text = wgmmaOpening(shape, 2 * regs + 2, annotation);
  text += ", $" + std::to_string(2 * regs) + ", $" +
          std::to_string(2 * regs + 1) + ", p, 1, 1";
  // Only the f16 / bf16 forms take imm-trans-a and imm-trans-b.
  if (shape.abType == "f16" || shape.abType == "bf16")
    text += std::string(", ") + (shape.transA ? "1" : "0") + ", " +
            (shape.transB ? "1" : "0");
  text += ";\n\t}";
  return text;
}

llvm::SmallVector<llvm::Value *>
wgmmaSs(llvm::IRBuilderBase &builder, const WgmmaShape &shape,
        llvm::ArrayRef<llvm::Value *> acc, llvm::Value *descA,
        llvm::Value *descB, llvm::StringRef annotation, bool overwrite) {
  unsigned regs = shape.m * shape.n / 128;
  assert(acc.size() == regs && "accumulator count must match the shape");
  llvm::SmallVector<llvm::Value *> args(acc.begin(), acc.end());
  args.push_back(descA);
  args.push_back(descB);
  args.push_back(builder.getInt32(overwrite ? 0 : 1));
  std::string constraints = tiedFloatConstraints(regs) + ",l,l,r";
  llvm::Value *call =
      emitAsm(builder, floatsType(builder, regs),
              wgmmaSsText(shape, annotation), constraints, args);
  return unpack(builder, call, regs);
}

std::string wgmmaRsText(const WgmmaShape &shape) {
  unsigned regs = shape.m * shape.n / 128;
  std::string text = wgmmaOpening(shape, 2 * regs + 5, "") + ", {";
  for (unsigned i = 0; i < 4; ++i)
    text += (i ? ", $" : "$") + std::to_string(2 * regs + i);
  text += "}, $" + std::to_string(2 * regs + 4) + ", p, 1, 1, " +
          (shape.transB ? "1" : "0") + ";\n\t}";
  return text;
}

llvm::SmallVector<llvm::Value *> wgmmaRs(llvm::IRBuilderBase &builder,
                                         const WgmmaShape &shape,
                                         llvm::ArrayRef<llvm::Value *> acc,
                                         llvm::ArrayRef<llvm::Value *> a,
                                         llvm::Value *descB, bool overwrite) {
  unsigned regs = shape.m * shape.n / 128;
  assert(acc.size() == regs && a.size() == 4 && "wgmma RS operand counts");
  llvm::SmallVector<llvm::Value *> args(acc.begin(), acc.end());
  args.append(a.begin(), a.end());
  args.push_back(descB);
  args.push_back(builder.getInt32(overwrite ? 0 : 1));
  std::string constraints = tiedFloatConstraints(regs) + ",r,r,r,r,l,r";
  llvm::Value *call = emitAsm(builder, floatsType(builder, regs),
                              wgmmaRsText(shape), constraints, args);
  return unpack(builder, call, regs);
}

void tmaLoad2dMulticast(llvm::IRBuilderBase &builder, llvm::Value *dst,
                        llvm::Value *tensorMap, llvm::Value *c0,
                        llvm::Value *c1, llvm::Value *bar, llvm::Value *mask) {
  emitAsm(builder, builder.getVoidTy(),
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
          "complete_tx::bytes.multicast::cluster [$0], [$1, {$2, $3}], [$4], "
          "$5;",
          "r,l,r,r,r,h,~{memory}", {dst, tensorMap, c0, c1, bar, mask});
}

void tmaLoadMulticast(llvm::IRBuilderBase &builder, llvm::Value *dst,
                      llvm::Value *tensorMap, llvm::Value *c0, llvm::Value *c1,
                      llvm::Value *z, llvm::Value *bar, llvm::Value *mask) {
  if (!z) {
    tmaLoad2dMulticast(builder, dst, tensorMap, c0, c1, bar, mask);
    return;
  }
  emitAsm(builder, builder.getVoidTy(),
          "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::"
          "complete_tx::bytes.multicast::cluster [$0], [$1, {$2, $3, $4}], "
          "[$5], $6;",
          "r,l,r,r,r,r,h,~{memory}", {dst, tensorMap, c0, c1, z, bar, mask});
}

void mbarrierArriveClusterIf(llvm::IRBuilderBase &builder, llvm::Value *bar,
                             unsigned ctas, llvm::Value *on) {
  std::string text = "{\n\t.reg .pred p;\n\t.reg .b32 remote;\n\t"
                     "setp.ne.u32 p, $1, 0;";
  for (unsigned r = 0; r < ctas; ++r)
    text += "\n\tmapa.shared::cluster.u32 remote, $0, " + std::to_string(r) +
            ";\n\t@p mbarrier.arrive.shared::cluster.b64 _, [remote];";
  text += "\n\t}";
  emitAsm(builder, builder.getVoidTy(), text, "r,r,~{memory}", {bar, on});
}

void mbarrierArriveCluster(llvm::IRBuilderBase &builder, llvm::Value *bar,
                           llvm::Value *rank) {
  emitAsm(builder, builder.getVoidTy(),
          "{\n\t.reg .b32 remote;\n\t"
          "mapa.shared::cluster.u32 remote, $0, $1;\n\t"
          "mbarrier.arrive.shared::cluster.b64 _, [remote];"
          "\n\t}",
          "r,r,~{memory}", {bar, rank});
}

void clusterSync(llvm::IRBuilderBase &builder) {
  emitAsm(builder, builder.getVoidTy(),
          "barrier.cluster.arrive.release;\n\t"
          "barrier.cluster.wait.acquire;",
          "~{memory}", {});
}

llvm::Value *mapaShared(llvm::IRBuilderBase &builder, llvm::Value *addr,
                        llvm::Value *rank) {
  return emitAsm(builder, builder.getInt32Ty(),
                 "mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r",
                 {addr, rank});
}

llvm::Value *ldSharedClusterV4F32(llvm::IRBuilderBase &builder,
                                  llvm::Value *addr, llvm::Value *on) {
  llvm::Type *f32 = builder.getFloatTy();
  llvm::Type *quad =
      llvm::StructType::get(builder.getContext(), {f32, f32, f32, f32});
  return emitAsm(builder, quad,
                 "{\n\t.reg .pred p;\n\tsetp.ne.u32 p, $5, 0;\n\t"
                 "@p ld.shared::cluster.v4.f32 {$0, $1, $2, $3}, [$4];\n\t}",
                 "=f,=f,=f,=f,r,r,~{memory}", {addr, on});
}

void stSharedV4F32(llvm::IRBuilderBase &builder, llvm::Value *addr,
                   llvm::ArrayRef<llvm::Value *> values) {
  assert(values.size() == 4 && "st.shared.v4 takes four floats");
  emitAsm(builder, builder.getVoidTy(),
          "st.shared.v4.f32 [$0], {$1, $2, $3, $4};", "r,f,f,f,f,~{memory}",
          {addr, values[0], values[1], values[2], values[3]});
}

void stSharedF32(llvm::IRBuilderBase &builder, llvm::Value *addr,
                 llvm::Value *value) {
  emitAsm(builder, builder.getVoidTy(), "st.shared.f32 [$0], $1;",
          "r,f,~{memory}", {addr, value});
}

void cpAsyncF32(llvm::IRBuilderBase &builder, llvm::Value *dst,
                llvm::Value *src, llvm::Value *on) {
  emitAsm(builder, builder.getVoidTy(),
          "{\n\t.reg .pred p;\n\tsetp.ne.u32 p, $2, 0;\n\t"
          "@p cp.async.ca.shared.global [$0], [$1], 4;\n\t}",
          "r,l,r,~{memory}", {dst, src, on});
}

void cpAsyncMbarrierArriveNoinc(llvm::IRBuilderBase &builder,
                                llvm::Value *bar) {
  emitAsm(builder, builder.getVoidTy(),
          "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [$0];", "r,~{memory}",
          {bar});
}

llvm::Value *ldSharedF32(llvm::IRBuilderBase &builder, llvm::Value *addr) {
  return emitAsm(builder, builder.getFloatTy(), "ld.shared.f32 $0, [$1];",
                 "=f,r,~{memory}", {addr});
}

} // namespace ptx
} // namespace tilec
