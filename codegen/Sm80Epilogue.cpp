//===- codegen/Sm80Epilogue.cpp - Accumulators through smem to C ----------===//
//
// The m16n8 accumulator fragment of lane l holds rows l/4 and l/4 + 8,
// columns 2 (l % 4) and 2 (l % 4) + 1 of its mma tile. Storing those straight
// to C takes one fully unrolled, predicated store per accumulator pair, in
// variants for interior and edge tiles and for beta: that was three quarters
// of the kernel's IR and so of its compile time
// (bench/CompileLatencyResults.md), and each store instruction of a warp
// touched 8 rows of C.
//
// Instead, per pass of Sm80StagingPlan (one unless the tile is too big):
//   bar.sync (the pipeline's buffers, or the previous pass, are free); each
//   thread writes its raw f32 accumulators into the padded staging tile at
//   offsets from the layout algebra (SmemAddress); bar.sync; then a runtime
//   loop (trip count rows * bn / (4 * threads)) in which thread t takes the
//   4-element vectors t, t + threads, ... of C's lines (rows of N-contiguous
//   C, columns of M-contiguous C): consecutive threads, consecutive vectors,
//   so each warp stores 32 contiguous vectors.
// A vector wholly inside M x N whose C address is aligned to the vector
// (ldc and C's base allow it) takes one vector load (only when beta != 0)
// and one vector store; any other vector (ragged edge, odd or unaligned ldc)
// goes element by element, each under its own bounds check. Every element is
// fma(beta, C, alpha * acc) when beta != 0, alpha * acc otherwise (C is
// never read when beta == 0: it may hold NaN), then the epilogue's ops: the
// arithmetic of codegen/EpilogueMath.h, shared with sm_90a. With swiglu
// the loop walks C's half-width tile and each element reads its gate and
// up accumulators from the staged tile (either pairing: any thread can
// read any staged element).
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm80Gemm.h"

#include "codegen/EpilogueMath.h"

namespace tilec {

namespace {

/// Elements per vector of the copy loop: 16 bytes of staged f32.
constexpr unsigned VectorElems = 4;

/// Writes this thread's accumulators of pass \p pass into the staging tile.
void stageAccumulators(Sm80Kernel &kernel, unsigned pass) {
  const Sm80GemmPlan &plan = kernel.plan;
  const Sm80StagingPlan &staging = plan.staging;
  llvm::IRBuilder<> &b = kernel.nv.ir();
  bool nContiguous = plan.spec.cMajor == MajorKind::MN;
  unsigned rowsPerWarp = 16 * staging.tilesPerPass;

  // Every thread's (staged row, column) of its first element, for deltaOf.
  std::vector<TileCoord> runtime;
  for (unsigned warp = 0; warp < plan.spec.warps(); ++warp)
    for (unsigned lane = 0; lane < 32; ++lane) {
      unsigned warpM = warp % plan.spec.warpsM, warpN = warp / plan.spec.warpsM;
      runtime.push_back({warpM * rowsPerWarp + lane / 4,
                         warpN * plan.b.warpExtent + 2 * (lane % 4)});
    }
  llvm::Value *row =
      b.CreateAdd(b.CreateMul(kernel.warpM, b.getInt32(rowsPerWarp)),
                  b.CreateLShr(kernel.lane, 2));
  llvm::Value *col =
      b.CreateAdd(b.CreateMul(kernel.warpN, b.getInt32(plan.b.warpExtent)),
                  b.CreateShl(b.CreateAnd(kernel.lane, 3), 1));
  llvm::Value *base = staging.smem.emitOffset(b, row, col);
  llvm::Value *basePtr =
      b.CreateGEP(b.getInt8Ty(), kernel.smem, b.CreateMul(base, b.getInt32(4)));
  // A constant byte offset from the thread's first element where the
  // layout allows it (always for the padded staging layouts: one add that
  // instruction selection folds into the store), else the full offset.
  auto pointer = [&](TileCoord c) {
    OffsetDelta delta = staging.smem.deltaOf(runtime, c);
    if (delta.kind == OffsetDelta::Add)
      return b.CreateConstGEP1_32(b.getInt8Ty(), basePtr,
                                  unsigned(delta.value * 4));
    llvm::Value *off = staging.smem.emitOffsetAt(b, base, row, col, runtime, c);
    return b.CreateGEP(b.getInt8Ty(), kernel.smem,
                       b.CreateMul(off, b.getInt32(4)));
  };

  llvm::Type *pairType = llvm::FixedVectorType::get(b.getFloatTy(), 2);
  for (unsigned t = 0; t < staging.tilesPerPass; ++t)
    for (unsigned j = 0; j < plan.mmaTilesN; ++j)
      for (unsigned half = 0; half < 2; ++half) {
        unsigned i = pass * staging.tilesPerPass + t;
        unsigned at = (i * plan.mmaTilesN + j) * 4 + 2 * half;
        TileCoord c{16 * t + 8 * half, 8 * j};
        if (nContiguous) {
          // The pair is adjacent (checked by planStaging): one 8-byte store.
          llvm::Value *pair = llvm::PoisonValue::get(pairType);
          pair = b.CreateInsertElement(pair, kernel.acc[at], uint64_t(0));
          pair = b.CreateInsertElement(pair, kernel.acc[at + 1], uint64_t(1));
          b.CreateAlignedStore(pair, pointer(c), llvm::Align(8));
          continue;
        }
        b.CreateAlignedStore(kernel.acc[at], pointer(c), llvm::Align(4));
        b.CreateAlignedStore(kernel.acc[at + 1],
                             pointer({c.first, c.second + 1}), llvm::Align(4));
      }
}

/// One element's epilogue math (codegen/EpilogueMath.h) in f32, and the
/// choice of reading C.
struct Scaler {
  Sm80Kernel &kernel;
  llvm::Value *readC; ///< i1: beta != 0 (constant false without scalars).
  EpilogueInputs inputs;

  /// Element (\p row, \p col) of C from its accumulator and, when read,
  /// its old value.
  llvm::Value *scale(llvm::Value *acc, llvm::Value *old, llvm::Value *row,
                     llvm::Value *col) const {
    llvm::IRBuilder<> &b = kernel.nv.ir();
    llvm::Value *x = emitAlphaBeta(b, kernel.alpha, acc, kernel.beta, old);
    return emitEpilogueOps(b, kernel.plan.spec.epilogueOps, inputs, x, row,
                           col);
  }

  /// Element (\p row, \p col) of C with swiglu from its gate and up
  /// accumulators at columns \p gateCol and \p upCol (beta is 0: C is not
  /// read).
  llvm::Value *swiglu(llvm::Value *gate, llvm::Value *up, llvm::Value *row,
                      llvm::Value *gateCol, llvm::Value *upCol,
                      llvm::Value *col) const {
    llvm::IRBuilder<> &b = kernel.nv.ir();
    return emitSwigluElement(
        b, kernel.plan.spec.epilogueOps, inputs,
        emitAlphaBeta(b, kernel.alpha, gate, kernel.beta, nullptr),
        emitAlphaBeta(b, kernel.alpha, up, kernel.beta, nullptr), row, gateCol,
        upCol, col);
  }

  /// compute(nullptr), or under a branch on readC compute(load()), joined
  /// by a phi: C is loaded only when beta != 0.
  template <typename Load, typename Compute>
  llvm::Value *withOldC(Load load, Compute compute) const {
    llvm::IRBuilder<> &b = kernel.nv.ir();
    llvm::Value *plain = compute(nullptr);
    if (auto *known = llvm::dyn_cast<llvm::ConstantInt>(readC);
        known && known->isZero())
      return plain;
    llvm::LLVMContext &context = b.getContext();
    llvm::BasicBlock *from = b.GetInsertBlock();
    auto *withC = llvm::BasicBlock::Create(context, "copy.c", kernel.fn);
    auto *join = llvm::BasicBlock::Create(context, "copy.scaled", kernel.fn);
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
  }
};

/// One trip of the copy loop of a pass: where this thread's vector of the
/// staging tile lands in C, and how its elements are finished.
struct CopyTrip {
  Sm80Kernel &kernel;
  const Scaler &scaler;
  const GemmSpec &spec;
  const Sm80StagingPlan &staging;
  llvm::IRBuilder<> &b;
  /// swiglu: C's tile has BN / 2 columns, each from two staged ones (lower
  /// rejects an M-contiguous C).
  const EpilogueOp *swiglu;
  bool nContiguous;
  llvm::Type *elem, *f32, *vecType, *vecF32;
  unsigned elemBytes;
  llvm::Align vecAlign;
  /// The vector's staged row and tile column, its C row, its line of C
  /// and first element along the line with that element's bound, whether
  /// the line is inside C, C's leading dimension (i64), and the vector's
  /// staged and global addresses.
  llvm::Value *stagedRow = nullptr, *col = nullptr, *gRow = nullptr,
              *gLine = nullptr, *gFirst = nullptr, *firstLimit = nullptr,
              *lineIn = nullptr, *ldc = nullptr, *smemPtr = nullptr,
              *ptr = nullptr;

  CopyTrip(Sm80Kernel &kernel, const Scaler &scaler)
      : kernel(kernel), scaler(scaler), spec(kernel.plan.spec),
        staging(kernel.plan.staging), b(kernel.nv.ir()),
        swiglu(findSwiglu(spec.epilogueOps)),
        nContiguous(spec.cMajor == MajorKind::MN),
        elem(llvmFloatType(b, spec.cType)), f32(b.getFloatTy()),
        vecType(llvm::FixedVectorType::get(elem, VectorElems)),
        vecF32(llvm::FixedVectorType::get(f32, VectorElems)),
        elemBytes(dtypeBits(spec.cType) / 8),
        vecAlign(VectorElems * elemBytes) {
    assert((!swiglu || nContiguous) && "swiglu with an M-contiguous C");
  }

  /// swiglu's staged (gate, up) columns of the tile's C column \p c.
  std::pair<llvm::Value *, llvm::Value *> sources(llvm::Value *c) {
    if (swiglu->pairing == SwigluPairingKind::Interleaved) {
      llvm::Value *gate = b.CreateShl(c, 1);
      return {gate, b.CreateAdd(gate, b.getInt32(1))};
    }
    return {c, b.CreateAdd(c, b.getInt32(spec.bn / 2))};
  }
  /// The staged f32 of the vector's row at tile column \p c.
  llvm::Value *staged(llvm::Value *c) {
    llvm::Value *offset = staging.smem.emitOffset(b, stagedRow, c);
    return b.CreateAlignedLoad(f32,
                               b.CreateGEP(b.getInt8Ty(), kernel.smem,
                                           b.CreateMul(offset, b.getInt32(4))),
                               llvm::Align(4));
  }
  /// One element of C with swiglu at tile column \p c, C column \p gc.
  llvm::Value *swigluAt(llvm::Value *c, llvm::Value *gc) {
    auto [gate, up] = sources(c);
    return scaler.swiglu(staged(gate), staged(up), gRow,
                         b.CreateAdd(kernel.n0, gate),
                         b.CreateAdd(kernel.n0, up), gc);
  }
  /// C's address of element \p firstIndex along the vector's line.
  llvm::Value *address(llvm::Value *firstIndex) {
    llvm::Value *index =
        b.CreateAdd(b.CreateMul(b.CreateZExt(gLine, b.getInt64Ty()), ldc),
                    b.CreateZExt(firstIndex, b.getInt64Ty()));
    return b.CreateGEP(b.getInt8Ty(), kernel.c,
                       b.CreateMul(index, b.getInt64(elemBytes)));
  }

  /// The whole vector: one load of C (beta != 0 only) and one store.
  void emitVector() {
    llvm::Value *value = nullptr;
    if (swiglu) {
      value = llvm::PoisonValue::get(vecF32);
      for (unsigned e = 0; e < VectorElems; ++e)
        value =
            b.CreateInsertElement(value,
                                  swigluAt(b.CreateAdd(col, b.getInt32(e)),
                                           b.CreateAdd(gFirst, b.getInt32(e))),
                                  e);
    } else {
      llvm::Value *acc = b.CreateAlignedLoad(vecF32, smemPtr, llvm::Align(16));
      value = scaler.withOldC(
          [&] {
            return b.CreateFPExt(b.CreateAlignedLoad(vecType, ptr, vecAlign),
                                 vecF32);
          },
          [&](llvm::Value *old) {
            llvm::Value *out = llvm::PoisonValue::get(vecF32);
            for (unsigned e = 0; e < VectorElems; ++e) {
              llvm::Value *o = old ? b.CreateExtractElement(old, e) : nullptr;
              llvm::Value *along = b.CreateAdd(gFirst, b.getInt32(e));
              out = b.CreateInsertElement(
                  out,
                  scaler.scale(b.CreateExtractElement(acc, e), o,
                               nContiguous ? gLine : along,
                               nContiguous ? along : gLine),
                  e);
            }
            return out;
          });
    }
    b.CreateAlignedStore(b.CreateFPTrunc(value, vecType), ptr, vecAlign);
  }

  /// Element \p e of the vector at C index \p gIndex along its line, in
  /// bounds.
  void emitElement(llvm::Value *e, llvm::Value *gIndex) {
    llvm::Value *elemPtr = address(gIndex);
    llvm::Value *out = nullptr;
    if (swiglu) {
      out = swigluAt(b.CreateAdd(col, e), gIndex);
    } else {
      llvm::Value *accElem = b.CreateAlignedLoad(
          f32, b.CreateGEP(f32, smemPtr, e), llvm::Align(4));
      out = scaler.withOldC(
          [&] {
            return b.CreateFPExt(
                b.CreateAlignedLoad(elem, elemPtr, llvm::Align(elemBytes)),
                f32);
          },
          [&](llvm::Value *old) {
            return scaler.scale(accElem, old, nContiguous ? gLine : gIndex,
                                nContiguous ? gIndex : gLine);
          });
    }
    b.CreateAlignedStore(b.CreateFPTrunc(out, elem), elemPtr,
                         llvm::Align(elemBytes));
  }
};

/// The copy loop of pass \p pass: staging tile -> C.
void copyToGlobal(Sm80Kernel &kernel, const Scaler &scaler, unsigned pass) {
  const Sm80GemmPlan &plan = kernel.plan;
  const GemmSpec &spec = plan.spec;
  const Sm80StagingPlan &staging = plan.staging;
  llvm::IRBuilder<> &b = kernel.nv.ir();
  llvm::LLVMContext &context = b.getContext();
  CopyTrip t(kernel, scaler);
  bool nContiguous = t.nContiguous;
  unsigned outBn = t.swiglu ? spec.bn / 2 : spec.bn;

  unsigned lineLength = nContiguous ? outBn : staging.rows;
  unsigned lines = nContiguous ? staging.rows : outBn;
  unsigned vectorsPerLine = lineLength / VectorElems;
  unsigned threads = spec.threads();
  // rows and bn are multiples of 16 and threads is 32 * warps, so every
  // thread copies the same number of vectors (swiglu's half tile may leave
  // the last trip partly idle).
  assert((t.swiglu || lines * vectorsPerLine % threads == 0) &&
         "uneven copy loop");
  unsigned trips = (lines * vectorsPerLine + threads - 1) / threads;
  if (spec.annotate)
    emitEpilogueAnnotation(b, spec.epilogueOps,
                           "sm_80: staged f32 tile, copy loop to C");

  llvm::BasicBlock *pre = b.GetInsertBlock();
  auto *loop = llvm::BasicBlock::Create(context, "copy.loop", kernel.fn);
  auto *vector = llvm::BasicBlock::Create(context, "copy.vector", kernel.fn);
  auto *elements =
      llvm::BasicBlock::Create(context, "copy.elements", kernel.fn);
  auto *latch = llvm::BasicBlock::Create(context, "copy.latch", kernel.fn);
  auto *done = llvm::BasicBlock::Create(context, "copy.done", kernel.fn);
  b.CreateBr(loop);

  b.SetInsertPoint(loop);
  llvm::PHINode *trip = b.CreatePHI(b.getInt32Ty(), 2, "copy.trip");
  trip->addIncoming(b.getInt32(0), pre);
  llvm::Value *index =
      b.CreateAdd(kernel.tid, b.CreateMul(trip, b.getInt32(threads)));
  llvm::Value *line = b.CreateUDiv(index, b.getInt32(vectorsPerLine));
  llvm::Value *first = b.CreateMul(
      b.CreateURem(index, b.getInt32(vectorsPerLine)), b.getInt32(VectorElems));
  t.stagedRow = nContiguous ? line : first;
  t.col = nContiguous ? first : line;
  llvm::Value *smemOffset = staging.smem.emitOffset(b, t.stagedRow, t.col);
  // The CTA tile row of a staged row (Sm80StagingPlan).
  llvm::Value *tileRow = t.stagedRow;
  if (staging.passes > 1) {
    unsigned rowsPerWarp = 16 * staging.tilesPerPass;
    llvm::Value *warpM = b.CreateUDiv(t.stagedRow, b.getInt32(rowsPerWarp));
    llvm::Value *r = b.CreateURem(t.stagedRow, b.getInt32(rowsPerWarp));
    tileRow = b.CreateAdd(b.CreateMul(warpM, b.getInt32(plan.a.warpExtent)),
                          b.CreateAdd(b.getInt32(pass * rowsPerWarp), r));
  }
  t.gRow = b.CreateAdd(kernel.m0, tileRow);
  // With swiglu C's tile starts at column n0 / 2 and C has N / 2 columns.
  llvm::Value *gCol =
      b.CreateAdd(t.swiglu ? b.CreateLShr(kernel.n0, 1) : kernel.n0, t.col);
  llvm::Value *cCols = t.swiglu ? b.CreateLShr(kernel.n, 1) : kernel.n;
  t.gLine = nContiguous ? t.gRow : gCol;
  t.gFirst = nContiguous ? gCol : t.gRow;
  llvm::Value *lineLimit = nContiguous ? kernel.m : cCols;
  t.firstLimit = nContiguous ? cCols : kernel.m;
  t.lineIn = b.CreateICmpULT(t.gLine, lineLimit);
  if (t.swiglu)
    t.lineIn = b.CreateAnd(t.lineIn, b.CreateICmpULT(line, b.getInt32(lines)));
  t.ldc = b.CreateZExt(kernel.ldc, b.getInt64Ty());
  t.ptr = t.address(t.gFirst);
  llvm::Value *whole = b.CreateAnd(
      t.lineIn, b.CreateICmpULE(b.CreateAdd(t.gFirst, b.getInt32(VectorElems)),
                                t.firstLimit));
  llvm::Value *aligned =
      b.CreateICmpEQ(b.CreateAnd(b.CreatePtrToInt(t.ptr, b.getInt64Ty()),
                                 b.getInt64(t.vecAlign.value() - 1)),
                     b.getInt64(0));
  t.smemPtr = b.CreateGEP(b.getInt8Ty(), kernel.smem,
                          b.CreateMul(smemOffset, b.getInt32(4)));
  b.CreateCondBr(b.CreateAnd(whole, aligned), vector, elements);

  b.SetInsertPoint(vector);
  t.emitVector();
  b.CreateBr(latch);

  // Element by element (a runtime loop of VectorElems trips), each under
  // its own bounds check. The staged vector is VectorElems consecutive
  // offsets (checked by planStaging).
  b.SetInsertPoint(elements);
  llvm::PHINode *e = b.CreatePHI(b.getInt32Ty(), 2, "copy.e");
  e->addIncoming(b.getInt32(0), loop);
  llvm::Value *gIndex = b.CreateAdd(t.gFirst, e);
  auto *store = llvm::BasicBlock::Create(context, "copy.element", kernel.fn);
  auto *next = llvm::BasicBlock::Create(context, "copy.next", kernel.fn);
  b.CreateCondBr(b.CreateAnd(t.lineIn, b.CreateICmpULT(gIndex, t.firstLimit)),
                 store, next);
  b.SetInsertPoint(store);
  t.emitElement(e, gIndex);
  b.CreateBr(next);
  b.SetInsertPoint(next);
  llvm::Value *eNext = b.CreateAdd(e, b.getInt32(1));
  e->addIncoming(eNext, next);
  b.CreateCondBr(b.CreateICmpULT(eNext, b.getInt32(VectorElems)), elements,
                 latch);

  b.SetInsertPoint(latch);
  llvm::Value *tripNext = b.CreateAdd(trip, b.getInt32(1), "copy.trip.next");
  trip->addIncoming(tripNext, latch);
  b.CreateCondBr(b.CreateICmpULT(tripNext, b.getInt32(trips)), loop, done);
  b.SetInsertPoint(done);
}

} // namespace

void emitSm80Epilogue(Sm80Kernel &kernel) {
  llvm::IRBuilder<> &b = kernel.nv.ir();
  Scaler scaler{
      kernel,
      kernel.beta ? b.CreateFCmpUNE(kernel.beta,
                                    llvm::ConstantFP::get(b.getFloatTy(), 0.0))
                  : b.getFalse(),
      EpilogueInputs::fromFunction(*kernel.fn, kernel.m, kernel.n,
                                   kernel.plan.spec.cType)};
  for (unsigned pass = 0; pass < kernel.plan.staging.passes; ++pass) {
    // Every warp is done with the pipeline's buffers (or the last pass).
    kernel.nv.barrier();
    stageAccumulators(kernel, pass);
    kernel.nv.barrier();
    copyToGlobal(kernel, scaler, pass);
  }
}

} // namespace tilec
