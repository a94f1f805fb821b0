//===- codegen/Sm100StagedEpilogue.cpp - sm_100a's TMA-store epilogue -----===//
//
// `epilogue ... -> stmatrix [swizzle(..)] -> tma_store` on sm_100a: the
// accumulator goes from tensor memory through registers into the swizzled
// staging tile of codegen/EpilogueStaging (the layout sm_90a stages in) and
// out with TMA stores, one chunk of C's columns at a time.
//
// Reading D as the stmatrix fragment (PTX ISA, tcgen05.ld, "Matrix
// fragments for .16x256b"): one tcgen05.ld.sync.aligned.16x256b.xR reads 16
// TMEM lanes from the address's lane by 8 R columns; lane l of the warp
// gets, in registers 4 k .. 4 k + 3, lanes base + l / 4 (registers 4 k,
// 4 k + 1) and base + l / 4 + 8 (4 k + 2, 4 k + 3), columns 8 k + 2 (l % 4)
// and the next. That is the mma/wgmma accumulator fragment, which
// stmatrix.sync.aligned.m8n8.x4 stores as four 8x8 matrices (PTX ISA,
// stmatrix): registers 4 j .. 4 j + 7 are matrices (i, j) ... (i + 1, j +
// 1) of a 16 x 16 block. Warp w may read only TMEM lanes 32 (w % 4) .. + 31
// (Tensor Memory access restrictions), so with M = 128 (row i = lane i)
// warp w reads its 32 rows as two 16-lane halves (lane field + 0 and + 16),
// and with M = 64 (data path layout F: rows 16 w .. in lanes 32 w .. + 15)
// one. The staging tile has the warpgroup's 128 (64) rows; each CTA of a
// pair stores its own 128.
//
// Per chunk (the protocol of sm_90a's staged epilogue, PTX ISA "Async
// proxy" and cp.async.bulk.wait_group): every thread tcgen05.ld's the
// chunk's first half (the last load of the tile hands the accumulator
// buffer back, as the direct path does); thread 0 waits
// (cp.async.bulk.wait_group.read) until the TMA store that last read the
// chunk's buffer has read it; a named barrier of the 128 epilogue threads;
// per half (the second loaded after the first is staged, so that only one
// half's registers are live) alpha, beta (C read from global memory at
// clamped coordinates: the TMA store clips, so C is read only where it is
// stored or harmlessly at the edge) and the ops in registers, stmatrix;
// fence.proxy.async.shared::cta so the TMA engine
// sees the generic-proxy writes; the barrier again; thread 0's
// cp.async.bulk.tensor store of the buffer and commit_group. Two buffers
// when a tile has more than one chunk, so chunk c + 1 is staged while
// chunk c is stored.
//
// swiglu (halves): C's tile is BN / 2 wide; the thread loads the gate
// chunk at accumulator column c and the up chunk at c + BN / 2 with the
// same shape and pairs register i with register i.
//
//===----------------------------------------------------------------------===//
#include "codegen/EpilogueMath.h"
#include "codegen/warpspec/EpilogueStaging.h"
#include "codegen/NvvmBuilder.h"
#include "codegen/PtxInlineAsm.h"
#include "codegen/Sm100Epilogue.h"

#include "llvm/IR/Intrinsics.h"

#include <functional>
#include <vector>

namespace tilec {

namespace {

/// The named barrier of the 128 epilogue threads (barrier 0 is the CTA's;
/// split-K, which never stages, uses id 1 for the same threads).
constexpr unsigned EpilogueBarrier = 1, EpilogueThreads = 128;

struct StagedEmitter {
  llvm::IRBuilder<> &b;
  const Sm100GemmConfig &config;
  const EpilogueStagingTile &tile;
  const Sm100EpilogueValues &v;
  /// What the ops read: the kernel's operand vectors, C's M x N.
  EpilogueInputs inputs =
      EpilogueInputs::fromFunction(*v.fn, v.rowsA, v.rowsB, config.cType);
  bool swiglu = findSwiglu(config.epilogueOps) != nullptr;
  /// M = 64: each warp's 16 rows are one 16x256b half.
  bool half = config.bm == 64;

  llvm::BasicBlock *block(const llvm::Twine &name) {
    return llvm::BasicBlock::Create(b.getContext(), name, v.fn);
  }
  llvm::Value *i32(uint32_t value) { return b.getInt32(value); }
  llvm::Type *cType() { return llvmFloatType(b, config.cType); }

  /// Runs \p body in epilogue thread 0 only.
  void ifLeader(const llvm::Twine &name, const std::function<void()> &body) {
    llvm::BasicBlock *then = block(name);
    llvm::BasicBlock *after = block(name + ".after");
    b.CreateCondBr(b.CreateICmpEQ(v.tid, i32(0)), then, after);
    b.SetInsertPoint(then);
    body();
    b.CreateBr(after);
    b.SetInsertPoint(after);
  }

  /// C(row, col) as f32 at coordinates clamped into C (beta != 0): the
  /// element is stored only where it is in range (the TMA store clips).
  llvm::Value *oldC(llvm::Value *row, llvm::Value *col) {
    auto clamp = [&](llvm::Value *x, llvm::Value *extent) {
      return b.CreateZExt(b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, x,
                                                  b.CreateSub(extent, i32(1))),
                          b.getInt64Ty());
    };
    llvm::Value *index = b.CreateAdd(
        b.CreateMul(clamp(row, v.rowsA), b.CreateZExt(v.ldc, b.getInt64Ty())),
        clamp(col, v.rowsB));
    return b.CreateFPExt(
        b.CreateLoad(cType(), b.CreateInBoundsGEP(cType(), v.c, index)),
        b.getFloatTy());
  }

  /// The epilogue math of accumulators \p lo, \p hi at (\p row, \p col)
  /// and (\p row, \p col + 1) (accumulator columns; with swiglu \p upLo,
  /// \p upHi are their up partners and C's column is col - n0 / 2),
  /// rounded to C's type and packed into one b32, the lower column in the
  /// low half as stmatrix wants it.
  llvm::Value *pack(llvm::Value *lo, llvm::Value *hi, llvm::Value *upLo,
                    llvm::Value *upHi, llvm::Value *row, llvm::Value *col,
                    bool readC) {
    auto *f2 = llvm::FixedVectorType::get(b.getFloatTy(), 2);
    auto *c2 = llvm::FixedVectorType::get(cType(), 2);
    llvm::Value *pair = llvm::PoisonValue::get(f2);
    for (unsigned e = 0; e < 2; ++e) {
      llvm::Value *acc = e ? hi : lo;
      llvm::Value *accCol = b.CreateAdd(col, i32(e));
      llvm::Value *x;
      if (swiglu) {
        llvm::Value *outCol = b.CreateSub(accCol, b.CreateLShr(v.n0, i32(1)));
        x = emitScaledSwigluElement(b, config.epilogueOps, inputs, v.alpha,
                                    v.beta, acc, e ? upHi : upLo, row, accCol,
                                    b.CreateAdd(accCol, i32(config.bn / 2)),
                                    outCol);
      } else {
        x = emitAlphaBeta(b, v.alpha, acc, v.beta,
                          readC ? oldC(row, accCol) : nullptr);
        if (!config.epilogueOps.empty())
          x = emitEpilogueOps(b, config.epilogueOps, inputs, x, row, accCol);
      }
      pair = b.CreateInsertElement(pair, x, uint64_t(e));
    }
    return b.CreateBitCast(b.CreateFPTrunc(pair, c2), b.getInt32Ty());
  }

  void emit(bool readC, llvm::BasicBlock *exit) {
    const unsigned elem = 2;
    llvm::Value *warp = b.CreateAnd(b.CreateLShr(v.tid, i32(5)), i32(3));
    llvm::Value *lane = b.CreateAnd(v.tid, i32(31));
    llvm::Value *barrier = i32(EpilogueBarrier);
    unsigned halves = half ? 1 : 2;
    unsigned warpRows = 16 * halves;
    // Warp w's TMEM lanes 32 w ..: the lane field is bits 31..16.
    llvm::Value *taddr = b.CreateAdd(
        v.tmemBase, b.CreateShl(b.CreateMul(warp, i32(32)), i32(16)),
        "taddr.staged");
    // The 8-column blocks of a chunk; pairs of them go out with one
    // stmatrix.x4, a lone one with .x2.
    unsigned blocks = tile.cols / 8;
    bool x4 = blocks >= 2;
    // Lane 8 q + r addresses row r of matrix q = (i = q % 2, j = q / 2):
    // staging row warpRows w + 8 i + r (+ 16 for the second half), column
    // 8 j (+ 16 per stmatrix.x4 of the chunk).
    llvm::Value *q = b.CreateLShr(lane, i32(3));
    llvm::Value *r = b.CreateAnd(lane, i32(7));
    llvm::Value *qi = b.CreateAnd(q, i32(1));
    llvm::Value *qj = x4 ? b.CreateLShr(q, i32(1)) : i32(0);
    llvm::Value *row = b.CreateAdd(
        b.CreateAdd(b.CreateMul(warp, i32(warpRows)), b.CreateMul(qi, i32(8))),
        r);
    llvm::Value *col = b.CreateMul(qj, i32(8));
    std::vector<TileCoord> runtime;
    for (int64_t w = 0; w < 4; ++w)
      for (int64_t l = 0; l < 32; ++l) {
        int64_t lq = l / 8, li = lq % 2, lj = x4 ? lq / 2 : 0;
        runtime.push_back({int64_t(warpRows) * w + 8 * li + l % 8, 8 * lj});
      }
    SmemAddress smem = llvm::cantFail(epilogueStagingAddress(tile));
    llvm::Value *base = smem.emitOffset(b, row, col);
    // This thread's first accumulator element: row m0 + warpRows w +
    // lane / 4, column n0 + 2 (lane % 4).
    llvm::Value *laneRow =
        b.CreateAdd(v.m0, b.CreateAdd(b.CreateMul(warp, i32(warpRows)),
                                      b.CreateLShr(lane, i32(2))));
    llvm::Value *laneCol =
        b.CreateAdd(v.n0, b.CreateMul(b.CreateAnd(lane, i32(3)), i32(2)));
    // swiglu: the tile's C columns start at n0 / 2 (the TMA box's x).
    llvm::Value *cCol0 = swiglu ? b.CreateLShr(v.n0, i32(1)) : v.n0;
    emitEpilogueAnnotation(
        b, config.epilogueOps,
        std::string("sm_100a: tcgen05.ld.16x256b, stmatrix into the staging "
                    "tile, TMA store") +
            (readC ? ", C read from global memory (beta != 0)" : ""));
    for (unsigned chunk = 0; chunk < tile.chunks; ++chunk) {
      bool lastChunk = chunk + 1 == tile.chunks;
      unsigned accCol0 = chunk * tile.cols;
      llvm::Value *buffer = b.CreateAdd(
          v.staging, i32((chunk % tile.buffers) * tile.bytes), "stage.buf");
      // One 16-lane half at a time (its chunk and up chunk live, not both
      // halves'): the first half's loads overlap the wait for the buffer.
      for (unsigned h = 0; h < halves; ++h) {
        llvm::Value *at = b.CreateAdd(taddr, i32((16 * h) << 16));
        bool lastLoad = lastChunk && h + 1 == halves;
        llvm::SmallVector<llvm::Value *> acc = emitSm100AccumulatorLoad(
            b, v, b.CreateAdd(at, i32(accCol0)), tile.cols,
            /*fragment=*/true, lastLoad && !swiglu);
        llvm::SmallVector<llvm::Value *> up;
        if (swiglu)
          up = emitSm100AccumulatorLoad(
              b, v, b.CreateAdd(at, i32(accCol0 + config.bn / 2)), tile.cols,
              /*fragment=*/true, lastLoad);
        if (h == 0) {
          // The store that last read this buffer (two chunks ago, or any
          // of the previous tile's) must be done before stmatrix
          // overwrites it.
          unsigned pending = chunk == 0 ? 0 : tile.buffers - 1;
          ifLeader("stage.reuse",
                   [&] { ptx::bulkWaitGroup(b, pending, /*readOnly=*/true); });
          ptx::barSync(b, barrier, EpilogueThreads);
        }
        for (unsigned p = 0; p < (x4 ? blocks / 2 : 1); ++p) {
          llvm::Value *offset = smem.emitOffsetAt(b, base, row, col, runtime,
                                                  TileCoord{16 * h, 16 * p});
          llvm::Value *address =
              b.CreateAdd(buffer, b.CreateMul(offset, i32(elem)));
          unsigned count = x4 ? 4u : 2u;
          llvm::SmallVector<llvm::Value *, 4> regs;
          // Registers 8 p + 2 m + {0, 1}: row laneRow + 16 h + 8 (m % 2),
          // accumulator columns laneCol + accCol0 + 8 (2 p + m / 2) + {0, 1}.
          for (unsigned m = 0; m < count; ++m) {
            unsigned reg = 8 * p + 2 * m;
            llvm::Value *accRow =
                b.CreateAdd(laneRow, i32(16 * h + 8 * (m % 2)));
            llvm::Value *accCol =
                b.CreateAdd(laneCol, i32(accCol0 + 8 * (2 * p + m / 2)));
            regs.push_back(
                pack(acc[reg], acc[reg + 1], swiglu ? up[reg] : nullptr,
                     swiglu ? up[reg + 1] : nullptr, accRow, accCol, readC));
          }
          ptx::stmatrix(b, address, regs, /*trans=*/false);
        }
      }
      // The generic-proxy writes must be visible to the TMA engine.
      ptx::fenceProxyAsyncShared(b);
      ptx::barSync(b, barrier, EpilogueThreads);
      ifLeader("stage.store", [&] {
        ptx::tmaStore2d(b, v.tmapC, b.CreateAdd(cCol0, i32(chunk * tile.cols)),
                        v.m0, buffer);
        ptx::bulkCommitGroup(b);
      });
    }
    b.CreateBr(exit);
  }
};

} // namespace

void emitSm100StagedEpilogue(llvm::IRBuilder<> &b,
                             const Sm100GemmConfig &config,
                             const EpilogueStagingTile &tile,
                             const Sm100EpilogueValues &values,
                             llvm::BasicBlock *exit) {
  StagedEmitter emitter{b, config, tile, values};
  if (emitter.swiglu) {
    // C is written, not read (the launcher keeps beta at 0).
    emitter.emit(/*readC=*/false, exit);
    return;
  }
  // beta == 0 never reads C (it may hold NaN).
  llvm::BasicBlock *noBeta = emitter.block("staged.nobeta");
  llvm::BasicBlock *withBeta = emitter.block("staged.beta");
  b.CreateCondBr(
      b.CreateFCmpOEQ(values.beta, llvm::ConstantFP::get(b.getFloatTy(), 0.0)),
      noBeta, withBeta);
  b.SetInsertPoint(noBeta);
  emitter.emit(/*readC=*/false, exit);
  b.SetInsertPoint(withBeta);
  emitter.emit(/*readC=*/true, exit);
}

void emitSm100StagedDrain(llvm::IRBuilder<> &b, llvm::Value *tid,
                          llvm::BasicBlock *exit) {
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  llvm::BasicBlock *drain =
      llvm::BasicBlock::Create(b.getContext(), "stage.drain", fn);
  b.CreateCondBr(b.CreateICmpEQ(tid, b.getInt32(0)), drain, exit);
  b.SetInsertPoint(drain);
  // Only the staging buffers' reads must finish before the CTA's shared
  // memory goes away; the stores complete with the grid.
  ptx::bulkWaitGroup(b, 0, /*readOnly=*/true);
  b.CreateBr(exit);
}

} // namespace tilec
