//===- codegen/Sm100Epilogue.cpp - The sm_100a GEMM's epilogue ------------===//
//
// Accumulator ownership (PTX ISA 9.7.16.8, the data-path layout of an M =
// 128 cta_group::1 D): row i of the tile is TMEM lane i and column j is
// column j of the allocation. Warp w may read only lanes 32 (w % 4) .. + 31
// (9.7.16.2.3, "Tensor Memory access restrictions"), so warp w of the
// epilogue warpgroup reads rows 32 w ..; with the 32x32b shape lane l of the
// warp gets row 32 w + l and one f32 per column. A thread therefore holds
// consecutive columns of one row: pairs of them are adjacent in C.
//
// Synchronization (PTX ISA 9.7.16.6.4, "Canonical synchronization
// patterns"): the MMA warp's tcgen05.commit arrives on the buffer's
// accumulator-full mbarrier; each epilogue thread waits on it and then
// executes tcgen05.fence::after_thread_sync before its first tcgen05.ld.
// The other direction: after the tcgen05.wait::ld of its last chunk each
// thread executes tcgen05.fence::before_thread_sync and arrives on the
// buffer's accumulator-empty mbarrier (count 128), which the MMA thread
// waits on (then fences after) before its next MMA into the buffer. The
// stores of the last chunk come after the arrival, from registers.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm100Epilogue.h"

#include "codegen/EpilogueMath.h"
#include "codegen/PtxInlineAsm.h"
#include "codegen/Sm90Limits.h"
#include "codegen/Tcgen05InlineAsm.h"

#include "codegen/NvvmBuilder.h"

#include "llvm/IR/Intrinsics.h"

namespace tilec {

unsigned sm100EpilogueChunk(const Sm100GemmConfig &config) {
  return config.bn % 32 == 0 ? 32 : 16;
}

namespace {

struct EpilogueEmitter {
  llvm::IRBuilder<> &b;
  const Sm100GemmConfig &config;
  const Sm100EpilogueValues &v;
  /// What the ops read: the kernel's operand vectors, C's M x N.
  EpilogueInputs inputs =
      EpilogueInputs::fromFunction(*v.fn, v.rowsA, v.rowsB, config.cType);

  llvm::BasicBlock *block(const llvm::Twine &name) {
    return llvm::BasicBlock::Create(b.getContext(), name, v.fn);
  }
  llvm::Value *i32(uint32_t value) { return b.getInt32(value); }

  /// The LLVM type of a C element (bf16, f16 or f32).
  llvm::Type *cType() { return llvmFloatType(b, config.cType); }

  /// C(row, col) before the cast: alpha * acc, plus beta * \p old (a C
  /// element as f32) when given, then the epilogue ops: the one
  /// implementation of every target (codegen/EpilogueMath.h).
  llvm::Value *scale(llvm::Value *acc, llvm::Value *old, llvm::Value *row,
                     llvm::Value *col) {
    llvm::Value *x = emitAlphaBeta(b, v.alpha, acc, v.beta, old);
    if (config.epilogueOps.empty())
      return x;
    return emitEpilogueOps(b, config.epilogueOps, inputs, x, row, col);
  }

  /// Stores C(row, col) = scale(acc) if col < N (row is in range).
  void storeOne(llvm::Value *row, llvm::Value *col, llvm::Value *acc,
                bool readC) {
    llvm::BasicBlock *st = block("st1");
    llvm::BasicBlock *after = block("st1.after");
    b.CreateCondBr(b.CreateICmpULT(col, v.rowsB), st, after);
    b.SetInsertPoint(st);
    llvm::Value *address = cAddress(row, col);
    llvm::Value *old =
        readC ? b.CreateFPExt(b.CreateLoad(cType(), address), b.getFloatTy())
              : nullptr;
    b.CreateStore(b.CreateFPTrunc(scale(acc, old, row, col), cType()),
                  address);
    b.CreateBr(after);
    b.SetInsertPoint(after);
  }

  llvm::Value *cAddress(llvm::Value *row, llvm::Value *col) {
    llvm::Type *i64 = b.getInt64Ty();
    llvm::Value *index = b.CreateAdd(
        b.CreateMul(b.CreateZExt(row, i64), b.CreateZExt(v.ldc, i64)),
        b.CreateZExt(col, i64));
    return b.CreateInBoundsGEP(cType(), v.c, index);
  }

  /// Stores the thread's \p values, columns \p col0 .. of row \p row: a
  /// pair store where both columns are in range and ldc is even, else
  /// element by element.
  void storeRow(llvm::Value *row, llvm::Value *col0,
                llvm::ArrayRef<llvm::Value *> values, bool readC) {
    llvm::Value *ldcEven = b.CreateICmpEQ(b.CreateAnd(v.ldc, i32(1)), i32(0));
    auto *pairType = llvm::FixedVectorType::get(cType(), 2);
    llvm::Align pairAlign(2 * sm90::elementBytes(config.cType));
    for (unsigned j = 0; j + 1 < values.size(); j += 2) {
      llvm::Value *col = b.CreateAdd(col0, i32(j));
      llvm::BasicBlock *wide = block("st2");
      llvm::BasicBlock *narrow = block("st2.narrow");
      llvm::BasicBlock *after = block("st2.after");
      b.CreateCondBr(
          b.CreateAnd(b.CreateICmpULT(b.CreateAdd(col, i32(1)), v.rowsB),
                      ldcEven),
          wide, narrow);
      b.SetInsertPoint(wide);
      llvm::Value *address = cAddress(row, col);
      llvm::Value *old0 = nullptr, *old1 = nullptr;
      if (readC) {
        llvm::Value *old = b.CreateAlignedLoad(pairType, address, pairAlign);
        old0 = b.CreateFPExt(b.CreateExtractElement(old, uint64_t(0)),
                             b.getFloatTy());
        old1 = b.CreateFPExt(b.CreateExtractElement(old, uint64_t(1)),
                             b.getFloatTy());
      }
      llvm::Value *pair = llvm::PoisonValue::get(pairType);
      pair = b.CreateInsertElement(
          pair, b.CreateFPTrunc(scale(values[j], old0, row, col), cType()),
          uint64_t(0));
      pair = b.CreateInsertElement(
          pair,
          b.CreateFPTrunc(
              scale(values[j + 1], old1, row, b.CreateAdd(col, i32(1))),
              cType()),
          uint64_t(1));
      b.CreateAlignedStore(pair, address, pairAlign);
      b.CreateBr(after);
      b.SetInsertPoint(narrow);
      storeOne(row, col, values[j], readC);
      storeOne(row, b.CreateAdd(col, i32(1)), values[j + 1], readC);
      b.CreateBr(after);
      b.SetInsertPoint(after);
    }
  }

  /// Every chunk of the thread's row: tcgen05.ld, wait, store. With
  /// \p readC the stores read C (beta != 0).
  void emitChunks(llvm::Value *taddr, llvm::Value *row, bool readC,
                  llvm::BasicBlock *exit) {
    unsigned chunk = sm100EpilogueChunk(config);
    unsigned last = (config.bn - 1) / chunk * chunk;
    llvm::Value *hasK = b.CreateICmpNE(v.numK, i32(0));
    llvm::Value *zero = llvm::ConstantFP::get(b.getFloatTy(), 0.0);
    llvm::Value *rowIn = b.CreateICmpULT(row, v.rowsA);
    for (unsigned c0 = 0; c0 < config.bn; c0 += chunk) {
      // tcgen05.ld is .sync.aligned: the predicated stores of the previous
      // chunk are structured (if-then) and the warp reconverges after them,
      // as the sm_90a kernel's wgmma does after its per-lane branches.
      llvm::SmallVector<llvm::Value *> values =
          ptx::tcgen05Ld32x32b(b, b.CreateAdd(taddr, i32(c0)), chunk);
      values = ptx::tcgen05WaitLd(b, values);
      if (c0 == last) {
        // The thread's last load of the buffer is complete: hand it back.
        ptx::tcgen05FenceBeforeThreadSync(b);
        if (v.accEmptyCluster)
          ptx::mbarrierArriveReleaseCluster(b, v.accEmptyBar);
        else
          ptx::mbarrierArrive(b, v.accEmptyBar);
      }
      // K = 0: no MMA wrote D, whose contents are then undefined.
      for (llvm::Value *&value : values)
        value = b.CreateSelect(hasK, value, zero);
      llvm::BasicBlock *st = block("store.row");
      llvm::BasicBlock *next = block("store.row.done");
      b.CreateCondBr(rowIn, st, next);
      b.SetInsertPoint(st);
      storeRow(row, b.CreateAdd(v.n0, i32(c0)), values, readC);
      b.CreateBr(next);
      b.SetInsertPoint(next);
    }
    b.CreateBr(exit);
  }

  void emit(llvm::BasicBlock *exit) {
    llvm::Value *warp = b.CreateLShr(v.tid, i32(5), "warp");
    llvm::Value *lane = b.CreateAnd(v.tid, i32(31), "lane");
    ptx::mbarrierWaitParity(b, v.accFullBar, v.accParity, "wait.acc");
    ptx::tcgen05FenceAfterThreadSync(b);
    // Warp w reads TMEM lanes 32 (w % 4) ..: the lane field is bits 31..16.
    llvm::Value *lanes = b.CreateMul(b.CreateAnd(warp, i32(3)), i32(32));
    llvm::Value *taddr =
        b.CreateAdd(v.tmemBase, b.CreateShl(lanes, i32(16)), "taddr");
    llvm::Value *row = b.CreateAdd(v.m0, b.CreateAdd(lanes, lane), "row");
    llvm::BasicBlock *withBeta = block("epilogue.beta");
    llvm::BasicBlock *noBeta = block("epilogue.nobeta");
    // beta == 0 never reads C (it may hold NaN).
    b.CreateCondBr(
        b.CreateFCmpOEQ(v.beta, llvm::ConstantFP::get(b.getFloatTy(), 0.0)),
        noBeta, withBeta);
    b.SetInsertPoint(noBeta);
    emitEpilogueAnnotation(b, config.epilogueOps, "direct stores");
    emitChunks(taddr, row, /*readC=*/false, exit);
    b.SetInsertPoint(withBeta);
    emitEpilogueAnnotation(b, config.epilogueOps, "direct stores");
    emitChunks(taddr, row, /*readC=*/true, exit);
  }
};

} // namespace

void emitSm100Epilogue(llvm::IRBuilder<> &b, const Sm100GemmConfig &config,
                       const Sm100EpilogueValues &values,
                       llvm::BasicBlock *exit) {
  EpilogueEmitter{b, config, values}.emit(exit);
}

} // namespace tilec
