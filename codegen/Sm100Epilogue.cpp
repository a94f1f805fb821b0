//===- codegen/Sm100Epilogue.cpp - The sm_100a GEMM's epilogue ------------===//
//
// Accumulator ownership (PTX ISA 9.7.16.8, the data-path layout of an M =
// 128 cta_group::1 D): row i of the tile is TMEM lane i and column j is
// column j of the allocation. Warp w may read only lanes 32 (w % 4) .. + 31
// (9.7.16.2.3, "Tensor Memory access restrictions"), so warp w of the
// epilogue warpgroup reads rows 32 w ..; with the 32x32b shape lane l of the
// warp gets row 32 w + l and one f32 per column. A thread therefore holds
// consecutive columns of one row: pairs of them are adjacent in C.
// The CTA pair's M = 128 (cta_group::2, 64 rows per CTA) writes D in data
// path layout B (9.7.16.10.5): row r, column c < BN / 2 in lane r, column
// c; column c >= BN / 2 in lane 64 + r, column c - BN / 2. Warp w then reads
// rows 32 (w % 2) + l, columns (BN / 2) (w / 2) .. + BN / 2 - 1, from the
// BN / 2 columns of its own lane quarter (32x32b as above).
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
#include "codegen/SplitKArrival.h"
#include "codegen/Tcgen05InlineAsm.h"

#include "codegen/NvvmBuilder.h"

#include "llvm/IR/Intrinsics.h"

namespace tilec {

unsigned sm100EpilogueChunk(const Sm100GemmConfig &config) {
  // The columns one thread reads: BN, or BN / 2 in the pair's M = 128
  // layout B (sm100AccumulatorSpan).
  unsigned span = sm100AccumulatorSpan(config);
  // swiglu (halves): a chunk of gate columns and the chunk span / 2 further
  // on, so the chunk divides span / 2 (swiglu's halves need BN a multiple of
  // 16, so 8 at least).
  // The folded pair refuses the halves (its halves lie in other warps).
  const EpilogueOp *swiglu = findSwiglu(config.epilogueOps);
  if (swiglu && swiglu->pairing == SwigluPairingKind::TileHalves) {
    unsigned chunk = 32;
    while (chunk > 8 && (span / 2) % chunk != 0)
      chunk /= 2;
    return chunk;
  }
  // 8 where the span is an odd multiple of 8 (cta_group::1 BN, or the
  // pair's BN / 2): 32x32b.x8, or the 16x256b shape's .x1 at M = 64.
  return span % 32 == 0 ? 32 : span % 16 == 0 ? 16 : 8;
}

llvm::SmallVector<llvm::Value *>
emitSm100AccumulatorLoad(llvm::IRBuilder<> &b, const Sm100EpilogueValues &v,
                         llvm::Value *taddr, unsigned columns, bool fragment,
                         bool isLast) {
  // tcgen05.ld is .sync.aligned: the predicated stores of the previous
  // chunk are structured (if-then) and the warp reconverges after them,
  // as the sm_90a kernel's wgmma does after its per-lane branches.
  llvm::SmallVector<llvm::Value *> values =
      fragment ? ptx::tcgen05Ld16x256b(b, taddr, columns / 8)
               : ptx::tcgen05Ld32x32b(b, taddr, columns);
  values = ptx::tcgen05WaitLd(b, values);
  if (isLast) {
    // The thread's last load of the buffer is complete: hand it back.
    ptx::tcgen05FenceBeforeThreadSync(b);
    if (v.accEmptyCluster)
      ptx::mbarrierArriveReleaseCluster(b, v.accEmptyBar);
    else
      ptx::mbarrierArrive(b, v.accEmptyBar);
  }
  // K = 0 (or a split without K tiles): no MMA wrote D, whose contents
  // are then undefined.
  llvm::Value *hasK = b.CreateICmpNE(v.numK, b.getInt32(0));
  llvm::Value *zero = llvm::ConstantFP::get(b.getFloatTy(), 0.0);
  for (llvm::Value *&value : values)
    value = b.CreateSelect(hasK, value, zero);
  return values;
}

namespace {

struct EpilogueEmitter {
  llvm::IRBuilder<> &b;
  const Sm100GemmConfig &config;
  const Sm100EpilogueValues &v;
  /// What the ops read: the kernel's operand vectors, C's M x N (the
  /// kernel's rowsB x rowsA under swap-AB).
  EpilogueInputs inputs =
      EpilogueInputs::fromFunction(*v.fn, v.swapAB ? v.rowsB : v.rowsA,
                                   v.swapAB ? v.rowsA : v.rowsB, config.cType);
  bool split = v.workspace != nullptr;
  /// M = 64 (PTX ISA 9.7.16.10.5, data path layout F): rows 16 q .. 16 q +
  /// 15 of D are TMEM lanes 32 q .. 32 q + 15, read with 16x256b.
  bool half = config.bm == 64;
  /// The pair's M = 128 (data path layout B): a warp reads span = BN / 2
  /// columns of its lane quarter, the tile's columns n0 (below) ...
  bool folded = sm100FoldedAccumulator(config);
  unsigned span = sm100AccumulatorSpan(config);
  /// The thread's first column of C: v.n0, or with folded the warp's half.
  llvm::Value *n0 = v.n0;
  unsigned chunk = sm100EpilogueChunk(config);
  /// f32 values one thread holds per chunk: a column each (32x32b) or
  /// chunk / 2 (16x256b: 16 rows x chunk columns over 32 lanes).
  unsigned perChunk = half ? chunk / 2 : chunk;

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
    llvm::Align pairAlign(2 * dtypeBytes(config.cType));
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

  /// Swap-AB: the thread's \p values are D(lane row, col0 ..), i.e. C's
  /// rows col0 .. of column \p col; each goes to its own row of C
  /// (predicated on row < M), a warp's 32 lanes to adjacent columns.
  void storeColumn(llvm::Value *col, llvm::Value *row0,
                   llvm::ArrayRef<llvm::Value *> values, bool readC) {
    for (unsigned j = 0; j < values.size(); ++j) {
      llvm::Value *row = b.CreateAdd(row0, i32(j));
      llvm::BasicBlock *st = block("stT");
      llvm::BasicBlock *after = block("stT.after");
      b.CreateCondBr(b.CreateICmpULT(row, v.rowsB), st, after);
      b.SetInsertPoint(st);
      llvm::Value *address = cAddress(row, col);
      llvm::Value *old =
          readC ? b.CreateFPExt(b.CreateLoad(cType(), address), b.getFloatTy())
                : nullptr;
      b.CreateStore(b.CreateFPTrunc(scale(values[j], old, row, col), cType()),
                    address);
      b.CreateBr(after);
      b.SetInsertPoint(after);
    }
  }

  /// The accumulator chunk at column \p c0: tcgen05.ld, wait; after the
  /// last chunk the buffer goes back to the MMA warp. K = 0 gives zeros.
  llvm::SmallVector<llvm::Value *> loadChunk(llvm::Value *taddr, unsigned c0) {
    return loadChunk(taddr, c0, c0 == (span - 1) / chunk * chunk);
  }

  /// The same, handing the buffer back after it when \p isLast (the
  /// thread's last tcgen05.ld of the tile, whatever its column).
  llvm::SmallVector<llvm::Value *> loadChunk(llvm::Value *taddr, unsigned c0,
                                             bool isLast) {
    return emitSm100AccumulatorLoad(b, v, b.CreateAdd(taddr, i32(c0)), chunk,
                                    half, isLast);
  }

  /// Split-K: the workspace index (in floats) of float4 \p r4 of this
  /// thread in split \p z's partial of the tile: fragment order, float4 r4
  /// of thread t at (r4 * 128 + t) * 4, so a warp's 16-byte stores are
  /// contiguous.
  llvm::Value *partialIndex(llvm::Value *z, unsigned r4) {
    // tileId * S * tile + z * tile as two products: (tileId * S + z) *
    // tile with S = 2 sends LLVM 22's InstCombine past its fixpoint check.
    llvm::Type *i64 = b.getInt64Ty();
    uint64_t tile = uint64_t(config.bm) * config.bn;
    llvm::Value *slab =
        b.CreateAdd(b.CreateMul(b.CreateZExt(v.tileId, i64),
                                b.getInt64(uint64_t(config.splitK) * tile)),
                    b.CreateMul(b.CreateZExt(z, i64), b.getInt64(tile)));
    return b.CreateAdd(
        slab, b.CreateAdd(b.CreateMul(b.CreateZExt(v.tid, i64), b.getInt64(4)),
                          b.getInt64(uint64_t(r4) * 128 * 4)));
  }

  /// Split-K: publishes this unit's partial (every chunk of D, the buffer
  /// handed back after the last), counts the unit on the tile's counter
  /// and continues, in the tile's last unit only, at the returned block
  /// (the others branch to \p exit).
  void emitPublish(llvm::Value *taddr, llvm::BasicBlock *exit) {
    llvm::Type *f32 = b.getFloatTy();
    auto *v4 = llvm::FixedVectorType::get(f32, 4);
    for (unsigned c0 = 0; c0 < config.bn; c0 += chunk) {
      llvm::SmallVector<llvm::Value *> values = loadChunk(taddr, c0);
      for (unsigned q = 0; q < perChunk / 4; ++q) {
        llvm::Value *vec = llvm::PoisonValue::get(v4);
        for (unsigned e = 0; e < 4; ++e)
          vec = b.CreateInsertElement(vec, values[4 * q + e], uint64_t(e));
        b.CreateAlignedStore(
            vec,
            b.CreateInBoundsGEP(
                f32, v.workspace,
                partialIndex(v.split, c0 / chunk * (perChunk / 4) + q)),
            llvm::Align(16));
      }
    }
    // Every thread's partial is visible at gpu scope before the count
    // (the same protocol as the sm_90a workspace reduction).
    SplitKArrival arrival;
    arrival.counters = v.counters;
    arrival.tileId = v.tileId;
    arrival.splits = i32(config.splitK);
    arrival.flagAddr = v.flagAddr;
    arrival.tid = v.tid;
    arrival.leaderTid = 0;
    arrival.barrier = i32(1);
    arrival.threads = 128;
    emitSplitKArrival(b, v.fn, arrival, exit);
  }

  /// Split-K: the sum of the S partials of the chunk at column \p c0, in
  /// the order z = 0 .. S - 1 (.cg: read at L2, where the other CTAs'
  /// stores are).
  llvm::SmallVector<llvm::Value *> sumChunk(unsigned c0) {
    llvm::Type *f32 = b.getFloatTy();
    llvm::SmallVector<llvm::Value *> sums(perChunk,
                                          llvm::ConstantFP::get(f32, 0.0));
    for (unsigned z = 0; z < config.splitK; ++z)
      for (unsigned q = 0; q < perChunk / 4; ++q) {
        llvm::Value *address = b.CreateInBoundsGEP(
            f32, v.workspace,
            partialIndex(i32(z), c0 / chunk * (perChunk / 4) + q));
        llvm::Value *quad = ptx::emitAsm(
            b, llvm::StructType::get(b.getContext(), {f32, f32, f32, f32}),
            "ld.global.cg.v4.f32 {$0, $1, $2, $3}, [$4];",
            "=f,=f,=f,=f,l,~{memory}", {address});
        for (unsigned e = 0; e < 4; ++e)
          sums[4 * q + e] =
              b.CreateFAdd(sums[4 * q + e], b.CreateExtractValue(quad, e));
      }
    return sums;
  }

  /// M = 64: the thread's 16x256b values of the chunk at column \p c0:
  /// repetition k holds rows \p row (registers 4 k, 4 k + 1) and row + 8
  /// (4 k + 2, 4 k + 3), columns c0 + 8 k + 2 (lane % 4) and the next; each
  /// pair goes to C as the 32x32b rows do (transposed under swap-AB).
  void storeHalfChunk(llvm::Value *row, unsigned c0,
                      llvm::ArrayRef<llvm::Value *> values, bool readC) {
    llvm::Value *lanePair =
        b.CreateMul(b.CreateAnd(v.tid, i32(3)), i32(2), "lanePair");
    for (unsigned k = 0; k < chunk / 8; ++k)
      for (unsigned h = 0; h < 2; ++h) {
        llvm::Value *r = b.CreateAdd(row, i32(8 * h));
        llvm::Value *col =
            b.CreateAdd(v.n0, b.CreateAdd(lanePair, i32(c0 + 8 * k)));
        llvm::Value *pair[] = {values[4 * k + 2 * h],
                               values[4 * k + 2 * h + 1]};
        llvm::BasicBlock *st = block("store.half");
        llvm::BasicBlock *next = block("store.half.done");
        b.CreateCondBr(b.CreateICmpULT(r, v.rowsA), st, next);
        b.SetInsertPoint(st);
        if (v.swapAB)
          storeColumn(r, col, pair, readC);
        else
          storeRow(r, col, pair, readC);
        b.CreateBr(next);
        b.SetInsertPoint(next);
      }
  }

  /// swiglu: element j of C's row \p row at column \p outCol0 + j from
  /// \p gate[j] and \p up[j] (accumulator columns \p gateCol0 + step j and
  /// \p upCol0 + step j); C has N / 2 columns. Adjacent elements go as one
  /// pair store where both are in range and ldc is even, else one by one.
  void storeSwigluRow(llvm::Value *row, llvm::Value *outCol0,
                      llvm::ArrayRef<llvm::Value *> gate,
                      llvm::ArrayRef<llvm::Value *> up, llvm::Value *gateCol0,
                      llvm::Value *upCol0, unsigned step) {
    llvm::Value *cCols = b.CreateLShr(v.rowsB, i32(1));
    auto element = [&](unsigned j) {
      return b.CreateFPTrunc(
          emitScaledSwigluElement(b, config.epilogueOps, inputs, v.alpha,
                                  v.beta, gate[j], up[j], row,
                                  b.CreateAdd(gateCol0, i32(step * j)),
                                  b.CreateAdd(upCol0, i32(step * j)),
                                  b.CreateAdd(outCol0, i32(j))),
          cType());
    };
    auto storeSingle = [&](unsigned j) {
      llvm::Value *col = b.CreateAdd(outCol0, i32(j));
      llvm::BasicBlock *st = block("swiglu.st1");
      llvm::BasicBlock *after = block("swiglu.st1.after");
      b.CreateCondBr(b.CreateICmpULT(col, cCols), st, after);
      b.SetInsertPoint(st);
      b.CreateStore(element(j), cAddress(row, col));
      b.CreateBr(after);
      b.SetInsertPoint(after);
    };
    if (gate.size() == 1) {
      storeSingle(0);
      return;
    }
    llvm::Value *ldcEven = b.CreateICmpEQ(b.CreateAnd(v.ldc, i32(1)), i32(0));
    auto *pairType = llvm::FixedVectorType::get(cType(), 2);
    llvm::Align pairAlign(2 * dtypeBytes(config.cType));
    for (unsigned j = 0; j + 1 < gate.size(); j += 2) {
      llvm::Value *col = b.CreateAdd(outCol0, i32(j));
      llvm::BasicBlock *wide = block("swiglu.st2");
      llvm::BasicBlock *narrow = block("swiglu.st2.narrow");
      llvm::BasicBlock *after = block("swiglu.st2.after");
      b.CreateCondBr(
          b.CreateAnd(b.CreateICmpULT(b.CreateAdd(col, i32(1)), cCols),
                      ldcEven),
          wide, narrow);
      b.SetInsertPoint(wide);
      llvm::Value *pair = llvm::PoisonValue::get(pairType);
      pair = b.CreateInsertElement(pair, element(j), uint64_t(0));
      pair = b.CreateInsertElement(pair, element(j + 1), uint64_t(1));
      b.CreateAlignedStore(pair, cAddress(row, col), pairAlign);
      b.CreateBr(after);
      b.SetInsertPoint(narrow);
      storeSingle(j);
      storeSingle(j + 1);
      b.CreateBr(after);
      b.SetInsertPoint(after);
    }
  }

  /// swiglu: the values of the accumulator chunk at column \p c0 (the
  /// split-K sum, or tcgen05.ld with the buffer handed back after the
  /// thread's last load \p isLast).
  llvm::SmallVector<llvm::Value *> chunkValues(llvm::Value *taddr, unsigned c0,
                                               bool isLast) {
    return split ? sumChunk(c0) : loadChunk(taddr, c0, isLast);
  }

  /// swiglu: every C element of the thread's row(s). Halves: each thread
  /// holds whole rows (32x32b) or the same (row, column) slots of every
  /// chunk (16x256b), so it reads the gate chunk at column c and the up
  /// chunk at c + BN / 2 and pairs register i with register i (not in the
  /// pair's M = 128 layout B, whose halves are other warps': refused).
  /// Interleaved: columns 2 o and 2 o + 1 are adjacent registers of one
  /// chunk in either shape (32x32b: one column each; 16x256b: the pair of
  /// columns 8 k + 2 (lane % 4) and the next).
  void emitSwigluChunks(const EpilogueOp &swiglu, llvm::Value *taddr,
                        llvm::Value *row, llvm::BasicBlock *exit) {
    bool interleaved = swiglu.pairing == SwigluPairingKind::Interleaved;
    // The thread's columns: span from n0 (the pair's M = 128 takes only
    // the interleaved pairing, whose pair lies in one chunk).
    unsigned upOffset = span / 2;
    unsigned gateEnd = interleaved ? span : upOffset;
    llvm::Value *halfN0 = b.CreateLShr(n0, i32(1));
    llvm::Value *lanePair =
        half ? b.CreateMul(b.CreateAnd(v.tid, i32(3)), i32(2), "lanePair")
             : nullptr;
    for (unsigned c0 = 0; c0 < gateEnd; c0 += chunk) {
      bool lastGate = c0 + chunk >= gateEnd;
      llvm::SmallVector<llvm::Value *> gate =
          chunkValues(taddr, c0, interleaved && lastGate);
      llvm::SmallVector<llvm::Value *> up =
          interleaved ? gate : chunkValues(taddr, c0 + upOffset, lastGate);
      // Slots of one row: (register of gate, register of up, column
      // offset in the chunk) with the row and the first register.
      auto emitRow = [&](llvm::Value *r, llvm::Value *colInChunk,
                         unsigned first, unsigned count) {
        llvm::SmallVector<llvm::Value *> g, u;
        for (unsigned j = 0; j < count; ++j) {
          unsigned reg = first + (interleaved ? 2 * j : j);
          g.push_back(gate[reg]);
          u.push_back(up[interleaved ? reg + 1 : reg]);
        }
        llvm::Value *gateCol = b.CreateAdd(n0, colInChunk);
        llvm::Value *outCol =
            interleaved ? b.CreateLShr(gateCol, i32(1))
                        : b.CreateAdd(halfN0, colInChunk);
        llvm::Value *upCol =
            b.CreateAdd(gateCol, i32(interleaved ? 1 : upOffset));
        llvm::BasicBlock *st = block("swiglu.row");
        llvm::BasicBlock *next = block("swiglu.row.done");
        b.CreateCondBr(b.CreateICmpULT(r, v.rowsA), st, next);
        b.SetInsertPoint(st);
        storeSwigluRow(r, outCol, g, u, gateCol, upCol, interleaved ? 2 : 1);
        b.CreateBr(next);
        b.SetInsertPoint(next);
      };
      if (!half) {
        emitRow(row, i32(c0), 0, interleaved ? chunk / 2 : chunk);
        continue;
      }
      // 16x256b: repetition k holds rows row (registers 4 k, 4 k + 1) and
      // row + 8 (4 k + 2, 4 k + 3), columns c0 + 8 k + 2 (lane % 4), + 1.
      for (unsigned k = 0; k < chunk / 8; ++k)
        for (unsigned h = 0; h < 2; ++h)
          emitRow(b.CreateAdd(row, i32(8 * h)),
                  b.CreateAdd(lanePair, i32(c0 + 8 * k)), 4 * k + 2 * h,
                  interleaved ? 1 : 2);
    }
    b.CreateBr(exit);
  }

  /// Every chunk of the thread's row: its values (tcgen05.ld, or the
  /// split-K sum), then the stores. With \p readC the stores read C
  /// (beta != 0).
  void emitChunks(llvm::Value *taddr, llvm::Value *row, bool readC,
                  llvm::BasicBlock *exit) {
    llvm::Value *rowIn = b.CreateICmpULT(row, v.rowsA);
    for (unsigned c0 = 0; c0 < span; c0 += chunk) {
      llvm::SmallVector<llvm::Value *> values =
          split ? sumChunk(c0) : loadChunk(taddr, c0);
      if (half) {
        storeHalfChunk(row, c0, values, readC);
        continue;
      }
      llvm::BasicBlock *st = block("store.row");
      llvm::BasicBlock *next = block("store.row.done");
      b.CreateCondBr(rowIn, st, next);
      b.SetInsertPoint(st);
      if (v.swapAB)
        storeColumn(row, b.CreateAdd(n0, i32(c0)), values, readC);
      else
        storeRow(row, b.CreateAdd(n0, i32(c0)), values, readC);
      b.CreateBr(next);
      b.SetInsertPoint(next);
    }
    b.CreateBr(exit);
  }

  void emit(const std::optional<EpilogueStagingTile> &staging,
            llvm::BasicBlock *exit) {
    llvm::Value *warp = b.CreateLShr(v.tid, i32(5), "warp");
    llvm::Value *lane = b.CreateAnd(v.tid, i32(31), "lane");
    ptx::mbarrierWaitParity(b, v.accFullBar, v.accParity, "wait.acc");
    ptx::tcgen05FenceAfterThreadSync(b);
    if (staging) {
      // storeTma = 0 (C has no legal tensor map): the direct stores below.
      llvm::BasicBlock *staged = block("epilogue.staged");
      llvm::BasicBlock *direct = block("epilogue.direct");
      b.CreateCondBr(b.CreateICmpNE(v.storeTma, i32(0)), staged, direct);
      b.SetInsertPoint(staged);
      emitSm100StagedEpilogue(b, config, *staging, v, exit);
      b.SetInsertPoint(direct);
    }
    // Warp w reads TMEM lanes 32 (w % 4) ..: the lane field is bits 31..16.
    llvm::Value *lanes = b.CreateMul(b.CreateAnd(warp, i32(3)), i32(32));
    llvm::Value *taddr =
        b.CreateAdd(v.tmemBase, b.CreateShl(lanes, i32(16)), "taddr");
    // M = 64: warp w's lanes 32 (w % 4) .. + 15 are rows 16 (w % 4) ..;
    // lane l holds rows l / 4 and l / 4 + 8 of them (16x256b).
    llvm::Value *row =
        half ? b.CreateAdd(
                   v.m0,
                   b.CreateAdd(b.CreateMul(b.CreateAnd(warp, i32(3)), i32(16)),
                               b.CreateLShr(lane, i32(2))),
                   "row")
             : b.CreateAdd(v.m0, b.CreateAdd(lanes, lane), "row");
    if (folded) {
      // Layout B: warp w's lanes 32 (w % 4) .. are rows 32 (w % 2) + lane
      // of columns (BN / 2) (w / 2) ...
      row = b.CreateAdd(
          v.m0,
          b.CreateAdd(b.CreateMul(b.CreateAnd(warp, i32(1)), i32(32)), lane),
          "row");
      n0 = b.CreateAdd(
          v.n0,
          b.CreateMul(b.CreateAnd(b.CreateLShr(warp, i32(1)), i32(1)),
                      i32(span)),
          "col0");
    }
    if (split)
      emitPublish(taddr, exit);
    if (const EpilogueOp *swiglu = findSwiglu(config.epilogueOps)) {
      // C is written, not read (the launcher requires beta == 0).
      emitEpilogueAnnotation(b, config.epilogueOps,
                             split ? "direct stores, swiglu pairs in one "
                                     "thread, after the split-K reduction"
                                   : "direct stores, swiglu pairs in one "
                                     "thread");
      emitSwigluChunks(*swiglu, taddr, row, exit);
      return;
    }
    llvm::BasicBlock *withBeta = block("epilogue.beta");
    llvm::BasicBlock *noBeta = block("epilogue.nobeta");
    // beta == 0 never reads C (it may hold NaN).
    b.CreateCondBr(
        b.CreateFCmpOEQ(v.beta, llvm::ConstantFP::get(b.getFloatTy(), 0.0)),
        noBeta, withBeta);
    b.SetInsertPoint(noBeta);
    const char *where = split && v.swapAB ? "direct transposed stores, after "
                                            "the split-K reduction"
                        : split ? "direct stores, after the split-K reduction"
                        : v.swapAB ? "direct transposed stores"
                                   : "direct stores";
    emitEpilogueAnnotation(b, config.epilogueOps, where);
    emitChunks(taddr, row, /*readC=*/false, exit);
    b.SetInsertPoint(withBeta);
    emitEpilogueAnnotation(b, config.epilogueOps, where);
    emitChunks(taddr, row, /*readC=*/true, exit);
  }
};

} // namespace

void emitSm100Epilogue(llvm::IRBuilder<> &b, const Sm100GemmConfig &config,
                       const std::optional<EpilogueStagingTile> &staging,
                       const Sm100EpilogueValues &values,
                       llvm::BasicBlock *exit) {
  EpilogueEmitter{b, config, values}.emit(staging, exit);
}

} // namespace tilec
