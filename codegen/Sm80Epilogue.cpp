//===- codegen/Sm80Epilogue.cpp - alpha/beta and predicated C stores ------===//
//
// The m16n8 accumulator fragment of lane l holds rows l/4 and l/4 + 8,
// columns 2 (l % 4) and 2 (l % 4) + 1 of its mma tile. For an N-contiguous C
// each pair of columns is one 2-element store; for an M-contiguous C each
// element is stored alone. Interior CTA tiles skip the bounds checks and
// branch once on beta == 0 into one of two variants (one never reads C, so C
// may hold anything, NaN included, as BLAS requires). Edge tiles are rare, so
// they share one variant that decides per store whether to read C: that
// halves the edge code, which was half of the kernel's IR and so of its
// compile time (bench/CompileLatencyResults.md).
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm80Gemm.h"

namespace tilec {

namespace {

llvm::Type *elementType(llvm::IRBuilderBase &b, DTypeKind type) {
  switch (type) {
  case DTypeKind::F16:
    return b.getHalfTy();
  case DTypeKind::BF16:
    return b.getBFloatTy();
  default:
    return b.getFloatTy();
  }
}

/// Emits one variant of the stores at the builder's insertion point. \p readC
/// is an i1: a constant selects a variant that always or never reads C, a
/// runtime value a variant that branches on it at every store.
void emitStores(Sm80Kernel &kernel, bool checked, llvm::Value *readC) {
  const Sm80GemmPlan &plan = kernel.plan;
  const GemmSpec &spec = plan.spec;
  llvm::IRBuilder<> &b = kernel.nv.ir();
  llvm::LLVMContext &context = b.getContext();
  llvm::Type *elem = elementType(b, spec.cType);
  unsigned elemBytes = dtypeBits(spec.cType) / 8;
  bool nContiguous = spec.cMajor == MajorKind::MN;

  llvm::Value *quadRow = b.CreateLShr(kernel.lane, 2);
  llvm::Value *quadCol = b.CreateShl(b.CreateAnd(kernel.lane, 3), 1);
  llvm::Value *rowBase = b.CreateAdd(
      kernel.m0,
      b.CreateAdd(b.CreateMul(kernel.warpM, b.getInt32(plan.a.warpExtent)),
                  quadRow));
  llvm::Value *colBase = b.CreateAdd(
      kernel.n0,
      b.CreateAdd(b.CreateMul(kernel.warpN, b.getInt32(plan.b.warpExtent)),
                  quadCol));
  llvm::Value *ldc = b.CreateZExt(kernel.ldc, b.getInt64Ty());

  auto address = [&](llvm::Value *row, llvm::Value *col) {
    llvm::Value *r = b.CreateZExt(row, b.getInt64Ty());
    llvm::Value *c = b.CreateZExt(col, b.getInt64Ty());
    llvm::Value *index = nContiguous ? b.CreateAdd(b.CreateMul(r, ldc), c)
                                     : b.CreateAdd(b.CreateMul(c, ldc), r);
    return b.CreateGEP(b.getInt8Ty(), kernel.c,
                       b.CreateMul(index, b.getInt64(elemBytes)));
  };
  auto scale = [&](llvm::Value *accValue, llvm::Value *old) {
    if (!kernel.alpha)
      return accValue;
    llvm::Value *out = b.CreateFMul(kernel.alpha, accValue);
    if (old)
      out = b.CreateFAdd(out, b.CreateFMul(kernel.beta, old));
    return out;
  };
  auto *readCConst = llvm::dyn_cast<llvm::ConstantInt>(readC);
  // The scaled value of \p load()ed old C elements: without a runtime readC
  // straight-line, else alpha * acc and, under the branch, the beta term,
  // joined by a phi. compute(old) scales; old is null when C is not read.
  auto withOldC = [&](auto load, auto compute) -> llvm::Value * {
    if (readCConst)
      return compute(readCConst->isOne() ? load() : nullptr);
    llvm::Value *plain = compute(nullptr);
    llvm::BasicBlock *from = b.GetInsertBlock();
    auto *withC = llvm::BasicBlock::Create(context, "store.c", kernel.fn);
    auto *join = llvm::BasicBlock::Create(context, "store.scaled", kernel.fn);
    b.CreateCondBr(readC, withC, join);
    b.SetInsertPoint(withC);
    llvm::Value *full = compute(load());
    llvm::BasicBlock *fullEnd = b.GetInsertBlock();
    b.CreateBr(join);
    b.SetInsertPoint(join);
    llvm::PHINode *phi = b.CreatePHI(plain->getType(), 2);
    phi->addIncoming(plain, from);
    phi->addIncoming(full, fullEnd);
    return phi;
  };
  // Runs body() under `cond` (nothing to branch on when unchecked).
  auto guarded = [&](llvm::Value *cond, auto body) {
    if (!cond) {
      body();
      return;
    }
    auto *then = llvm::BasicBlock::Create(context, "store", kernel.fn);
    auto *next = llvm::BasicBlock::Create(context, "store.next", kernel.fn);
    b.CreateCondBr(cond, then, next);
    b.SetInsertPoint(then);
    body();
    b.CreateBr(next);
    b.SetInsertPoint(next);
  };

  for (unsigned i = 0; i < plan.mmaTilesM; ++i)
    for (unsigned j = 0; j < plan.mmaTilesN; ++j)
      for (unsigned half = 0; half < 2; ++half) {
        unsigned at = (i * plan.mmaTilesN + j) * 4 + 2 * half;
        llvm::Value *row = b.CreateAdd(rowBase, b.getInt32(16 * i + 8 * half));
        llvm::Value *col = b.CreateAdd(colBase, b.getInt32(8 * j));
        llvm::Value *col1 = b.CreateAdd(col, b.getInt32(1));
        llvm::Value *rowIn = checked ? b.CreateICmpULT(row, kernel.m) : nullptr;
        llvm::Value *colIn = checked ? b.CreateICmpULT(col, kernel.n) : nullptr;
        llvm::Value *col1In =
            checked ? b.CreateICmpULT(col1, kernel.n) : nullptr;
        auto both = [&](llvm::Value *x, llvm::Value *y) -> llvm::Value * {
          return x ? b.CreateAnd(x, y) : nullptr;
        };
        auto storeOne = [&](llvm::Value *r, llvm::Value *c, unsigned idx) {
          llvm::Value *ptr = address(r, c);
          llvm::Value *out = withOldC(
              [&] {
                return b.CreateFPExt(b.CreateLoad(elem, ptr), b.getFloatTy());
              },
              [&](llvm::Value *old) { return scale(kernel.acc[idx], old); });
          b.CreateStore(b.CreateFPTrunc(out, elem), ptr);
        };
        if (!nContiguous) {
          guarded(both(rowIn, colIn), [&] { storeOne(row, col, at); });
          guarded(both(rowIn, col1In), [&] { storeOne(row, col1, at + 1); });
          continue;
        }
        auto storePair = [&] {
          llvm::Type *pairType = llvm::FixedVectorType::get(elem, 2);
          llvm::Type *pairF32 = llvm::FixedVectorType::get(b.getFloatTy(), 2);
          llvm::Value *ptr = address(row, col);
          auto load = [&] {
            auto *pair =
                b.CreateAlignedLoad(pairType, ptr, llvm::Align(2 * elemBytes));
            return b.CreateFPExt(pair, pairF32);
          };
          auto compute = [&](llvm::Value *old) {
            llvm::Value *value = llvm::PoisonValue::get(pairF32);
            for (unsigned e = 0; e < 2; ++e) {
              llvm::Value *o = old ? b.CreateExtractElement(old, e) : nullptr;
              value =
                  b.CreateInsertElement(value, scale(kernel.acc[at + e], o), e);
            }
            return value;
          };
          llvm::Value *value = withOldC(load, compute);
          b.CreateAlignedStore(b.CreateFPTrunc(value, pairType), ptr,
                               llvm::Align(2 * elemBytes));
        };
        if (!checked) {
          storePair();
          continue;
        }
        // Full pair, else the lone first column at the right edge.
        auto *pair = llvm::BasicBlock::Create(context, "store.pair", kernel.fn);
        auto *single =
            llvm::BasicBlock::Create(context, "store.edge", kernel.fn);
        auto *next = llvm::BasicBlock::Create(context, "store.next", kernel.fn);
        b.CreateCondBr(b.CreateAnd(rowIn, col1In), pair, single);
        b.SetInsertPoint(pair);
        storePair();
        b.CreateBr(next);
        b.SetInsertPoint(single);
        guarded(b.CreateAnd(rowIn, colIn), [&] { storeOne(row, col, at); });
        b.CreateBr(next);
        b.SetInsertPoint(next);
      }
}

} // namespace

void emitSm80Epilogue(Sm80Kernel &kernel) {
  const GemmSpec &spec = kernel.plan.spec;
  llvm::IRBuilder<> &b = kernel.nv.ir();
  llvm::LLVMContext &context = b.getContext();
  auto *done = llvm::BasicBlock::Create(context, "epilogue.done", kernel.fn);

  // Interior tiles need no bounds checks.
  llvm::Value *interior = b.CreateAnd(
      b.CreateICmpULE(b.CreateAdd(kernel.m0, b.getInt32(spec.bm)), kernel.m),
      b.CreateICmpULE(b.CreateAdd(kernel.n0, b.getInt32(spec.bn)), kernel.n));
  llvm::Value *readC =
      kernel.beta ? b.CreateFCmpUNE(kernel.beta,
                                    llvm::ConstantFP::get(b.getFloatTy(), 0.0))
                  : b.getFalse();
  for (bool checked : {false, true}) {
    auto *variant = llvm::BasicBlock::Create(
        context, checked ? "epilogue.edge" : "epilogue.interior", kernel.fn);
    auto *next = llvm::BasicBlock::Create(context, "epilogue.next", kernel.fn);
    b.CreateCondBr(checked ? b.getTrue() : interior, variant, next);
    b.SetInsertPoint(variant);
    if (checked) {
      emitStores(kernel, checked, readC);
      b.CreateBr(done);
      b.SetInsertPoint(next);
      continue;
    }
    auto *withC = llvm::BasicBlock::Create(context, "epilogue.beta", kernel.fn);
    auto *noC = llvm::BasicBlock::Create(context, "epilogue.nobeta", kernel.fn);
    b.CreateCondBr(readC, withC, noC);
    b.SetInsertPoint(withC);
    emitStores(kernel, checked, b.getTrue());
    b.CreateBr(done);
    b.SetInsertPoint(noC);
    emitStores(kernel, checked, b.getFalse());
    b.CreateBr(done);
    b.SetInsertPoint(next);
  }
  b.CreateBr(done);
  b.SetInsertPoint(done);
}

} // namespace tilec
