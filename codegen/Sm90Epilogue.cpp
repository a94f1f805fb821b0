//===- codegen/Sm90Epilogue.cpp - The sm_90a GEMM's epilogue --------------===//
//
// The two epilogues of Sm90Epilogue.h (what they need of the kernel, the
// staging tile, split shares and preloaded operands, is planned in
// Sm90EpiloguePlan.cpp).
//
// Accumulator ownership (docs/layout-facts.md#accumulator-ownership): thread
// t of a warpgroup holds rows 16 (t / 32) + (t % 32) / 4 + 8 i and columns
// 8 j + 2 (t % 4) + {0, 1} in registers 4 j + 2 i + {0, 1}. That is exactly
// the fragment of four 8x8 stmatrix matrices (i, j), (i + 1, j), (i, j + 1),
// (i + 1, j + 1) held in registers 4 j .. 4 j + 7, so one stmatrix.x4 per
// pair of 8-column blocks moves them, and stmatrix.trans stores the same
// fragment transposed (swap-AB, where the wgmma N is C's rows).
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90Epilogue.h"

#include "codegen/EpilogueMath.h"
#include "codegen/PtxInlineAsm.h"
#include "codegen/Sm90Limits.h"
#include "codegen/SmemAddress.h"
#include "codegen/warpspec/EpilogueStaging.h"
#include "ir/layout/LayoutExpr.h"
#include "ir/layout/SwizzleAtom.h"

#include "codegen/NvvmBuilder.h"

#include "llvm/IR/Intrinsics.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <utility>
#include <vector>

namespace tilec {

using namespace sm90;

namespace {

struct EpilogueEmitter {
  llvm::IRBuilder<> &b;
  const Sm90GemmConfig &config;
  const Sm90EpilogueValues &v;
  /// What the ops read: the kernel's operand vectors and C's M x N (the
  /// B-role rows are C's rows under swap-AB).
  EpilogueInputs inputs = EpilogueInputs::fromFunction(
      *v.fn, config.swapAB ? v.rowsB : v.rowsA,
      config.swapAB ? v.rowsA : v.rowsB, config.cType);

  /// The operand values loaded before the K loop (emitSm90Epilogue's).
  const Sm90EpilogueOperands *pre = nullptr;

  /// The 8-column blocks this CTA stores (Sm90EpilogueBlocks): all but in
  /// a split-K cluster's share.
  unsigned firstBlock = 0, endBlock = config.bn / 8;

  /// swiglu's up registers for the pair pack() is given.
  llvm::Value *swigluUp[2] = {nullptr, nullptr};

  llvm::BasicBlock *block(const llvm::Twine &name) {
    return llvm::BasicBlock::Create(b.getContext(), name, v.fn);
  }
  llvm::Value *i32(uint32_t value) { return b.getInt32(value); }

  /// The LLVM type of a C element (bf16, f16 or f32).
  llvm::Type *cType() { return llvmFloatType(b, config.cType); }

  /// Runs \p body in the warpgroup's thread 0 only.
  void ifLeader(llvm::Value *leader, const llvm::Twine &name,
                const std::function<void()> &body) {
    llvm::BasicBlock *then = block(name);
    llvm::BasicBlock *after = block(name + ".after");
    b.CreateCondBr(leader, then, after);
    b.SetInsertPoint(then);
    body();
    b.CreateBr(after);
    b.SetInsertPoint(after);
  }

  // --- direct stores ---------------------------------------------------

  /// Address of C(row, col) in the user's orientation.
  llvm::Value *cAddress(llvm::Value *row, llvm::Value *col) {
    llvm::Value *r = row, *cc = col;
    if (config.swapAB)
      std::swap(r, cc);
    llvm::Value *index =
        b.CreateAdd(b.CreateMul(b.CreateZExt(r, b.getInt64Ty()),
                                b.CreateZExt(v.ldc, b.getInt64Ty())),
                    b.CreateZExt(cc, b.getInt64Ty()));
    return b.CreateInBoundsGEP(cType(), v.c, index);
  }

  /// The epilogue math of one element (codegen/EpilogueMath.h) at the
  /// kernel's (\p row, \p col): the A-role row and B-role row, C's (row,
  /// col) unless swap-AB transposes them; with the operand values
  /// \p loaded (load()) where given.
  llvm::Value *finish(llvm::Value *accValue, llvm::Value *old, llvm::Value *row,
                      llvm::Value *col,
                      const EpilogueOperandValues *loaded = nullptr) {
    llvm::Value *x = emitAlphaBeta(b, v.alpha, accValue, v.beta, old);
    if (config.epilogueOps.empty())
      return x;
    if (config.swapAB)
      std::swap(row, col);
    return emitEpilogueOps(b, config.epilogueOps, inputs, x, row, col, loaded);
  }

  /// The bias and scale values at the kernel's row \p row or column
  /// \p col (either null), loaded ahead of the math (EpilogueMath.h says
  /// why); none with swiglu, whose operands sit at two columns.
  EpilogueOperandValues load(llvm::Value *row, llvm::Value *col) {
    if (config.epilogueOps.empty() || findSwiglu(config.epilogueOps))
      return {};
    if (config.swapAB)
      std::swap(row, col);
    return emitEpilogueOperandLoads(b, config.epilogueOps, inputs, row, col);
  }

  /// This thread's first accumulator row and column in the kernel's
  /// coordinates (docs/layout-facts.md#accumulator-ownership): row
  /// m0 + 64 consumer + 16 warp + lane / 4 (and 8 below), columns
  /// n0 + 2 (lane % 4) + 8 j + {0, 1}.
  std::pair<llvm::Value *, llvm::Value *> laneOrigin() {
    llvm::Value *lane = b.CreateAnd(v.tid, i32(31));
    llvm::Value *warp = b.CreateAnd(b.CreateLShr(v.tid, i32(5)), i32(3));
    llvm::Value *row = b.CreateAdd(
        b.CreateAdd(v.m0, b.CreateMul(v.consumer, i32(64))),
        b.CreateAdd(b.CreateMul(warp, i32(16)), b.CreateLShr(lane, i32(2))),
        "row0");
    llvm::Value *col = b.CreateAdd(
        v.n0, b.CreateMul(b.CreateAnd(lane, i32(3)), i32(2)), "col0");
    return {row, col};
  }

  /// The Sm90EpilogueOperands of this thread's tile.
  Sm90EpilogueOperands preload() {
    Sm90EpilogueOperands out;
    if (config.epilogueOps.empty() || findSwiglu(config.epilogueOps))
      return out;
    auto [row, col] = laneOrigin();
    out.rows[0] = load(row, nullptr);
    out.rows[1] = load(b.CreateAdd(row, i32(8)), nullptr);
    out.blocks = sm90PreloadedBlocks(config);
    for (unsigned j = 0; j < out.blocks; ++j)
      for (unsigned e = 0; e < 2; ++e)
        out.cols.push_back(load(nullptr, b.CreateAdd(col, i32(8 * j + e))));
    return out;
  }

  /// The operand values of this thread's row \p i (0: its first, 1: 8
  /// below), preloaded.
  const EpilogueOperandValues &rowOperands(unsigned i) const {
    return pre->rows[i];
  }

  /// The operand values of column 8 \p j + \p e of this thread's columns,
  /// \p col: preloaded for the tile's first blocks, else read from the
  /// column stage or loaded here.
  EpilogueOperandValues colOperands(unsigned j, unsigned e, llvm::Value *col) {
    if (j < pre->blocks)
      return pre->cols[2 * j + e];
    if (v.columns)
      return emitSm90ColumnStageRead(b, *v.columns, v.columnsAt, col);
    return load(nullptr, col);
  }

  /// \p rowValues merged with \p colValues; null when no op reads either.
  std::optional<EpilogueOperandValues>
  merged(const EpilogueOperandValues &rowValues,
         const EpilogueOperandValues &colValues) {
    if (rowValues.perOp.empty())
      return std::nullopt;
    return EpilogueOperandValues::merge(rowValues, colValues);
  }

  /// swiglu's element of C at the kernel's \p row and C's column \p outCol
  /// from the gate and up accumulators at columns \p gateCol and \p upCol
  /// (no swap-AB; beta is 0).
  llvm::Value *finishSwiglu(llvm::Value *gate, llvm::Value *up,
                            llvm::Value *row, llvm::Value *gateCol,
                            llvm::Value *upCol, llvm::Value *outCol) {
    return emitScaledSwigluElement(b, config.epilogueOps, inputs, v.alpha,
                                   v.beta, gate, up, row, gateCol, upCol,
                                   outCol);
  }

  /// With swiglu: this thread's elements of C, one per (gate, up) pair of
  /// accumulators, each stored under its own bounds check (C is M x N / 2).
  void emitDirectSwiglu(const EpilogueOp &swiglu,
                        llvm::ArrayRef<llvm::Value *> acc, llvm::Value *row0,
                        llvm::Value *col0) {
    llvm::Value *cRows = v.rowsA, *cCols = b.CreateLShr(v.rowsB, i32(1));
    llvm::Value *half = b.CreateLShr(v.n0, i32(1));
    bool interleaved = swiglu.pairing == SwigluPairingKind::Interleaved;
    // Halves: block j of the first half pairs with block j + BN / 16.
    unsigned blocks = interleaved ? config.bn / 8 : config.bn / 16;
    for (unsigned j = 0; j < blocks; ++j)
      for (unsigned i = 0; i < 2; ++i)
        for (unsigned e = 0; e < (interleaved ? 1u : 2u); ++e) {
          llvm::Value *row = b.CreateAdd(row0, i32(8 * i));
          llvm::Value *gateCol = b.CreateAdd(col0, i32(8 * j + e));
          llvm::Value *gate = acc[4 * j + 2 * i + e], *up, *upCol, *outCol;
          if (interleaved) {
            // The pair (2 o, 2 o + 1) is this thread's register pair.
            up = acc[4 * j + 2 * i + 1];
            upCol = b.CreateAdd(gateCol, i32(1));
            outCol = b.CreateLShr(gateCol, i32(1));
          } else {
            up = acc[4 * (j + config.bn / 16) + 2 * i + e];
            upCol = b.CreateAdd(gateCol, i32(config.bn / 2));
            outCol = b.CreateAdd(half, b.CreateSub(gateCol, v.n0));
          }
          llvm::BasicBlock *st = block("swiglu.st");
          llvm::BasicBlock *after = block("swiglu.st.after");
          b.CreateCondBr(b.CreateAnd(b.CreateICmpULT(row, cRows),
                                     b.CreateICmpULT(outCol, cCols)),
                         st, after);
          b.SetInsertPoint(st);
          llvm::Value *r = finishSwiglu(gate, up, row, gateCol, upCol, outCol);
          b.CreateStore(b.CreateFPTrunc(r, cType()), cAddress(row, outCol));
          b.CreateBr(after);
          b.SetInsertPoint(after);
        }
  }

  llvm::Value *scale(llvm::Value *accValue, llvm::Value *address, bool readC,
                     llvm::Value *row, llvm::Value *col,
                     const EpilogueOperandValues *loaded) {
    llvm::Value *old =
        readC ? b.CreateFPExt(b.CreateLoad(cType(), address), b.getFloatTy())
              : nullptr;
    return finish(accValue, old, row, col, loaded);
  }

  void storeOne(llvm::Value *row, llvm::Value *col, llvm::Value *value,
                bool readC, const EpilogueOperandValues *loaded) {
    llvm::BasicBlock *st = block("st1");
    llvm::BasicBlock *after = block("st1.after");
    b.CreateCondBr(b.CreateAnd(b.CreateICmpULT(row, v.rowsA),
                               b.CreateICmpULT(col, v.rowsB)),
                   st, after);
    b.SetInsertPoint(st);
    llvm::Value *address = cAddress(row, col);
    llvm::Value *r = scale(value, address, readC, row, col, loaded);
    b.CreateStore(b.CreateFPTrunc(r, cType()), address);
    b.CreateBr(after);
    b.SetInsertPoint(after);
  }

  void emitDirect(llvm::ArrayRef<llvm::Value *> acc, llvm::Value *row0,
                  llvm::Value *col0, bool readC) {
    // Row-major pairs (col, col + 1) are adjacent: one 32-bit store when
    // both are in range and ldc is even; otherwise element by element.
    // The operands of this thread's two rows once per tile, of each
    // column pair once per block (not once per store).
    llvm::Value *ldcEven = b.CreateICmpEQ(b.CreateAnd(v.ldc, i32(1)), i32(0));
    const EpilogueOperandValues *rowValues[2] = {&rowOperands(0),
                                                 &rowOperands(1)};
    for (unsigned j = firstBlock; j < endBlock; ++j) {
      llvm::Value *col = b.CreateAdd(col0, i32(8 * j));
      EpilogueOperandValues colValues[2] = {
          colOperands(j, 0, col), colOperands(j, 1, b.CreateAdd(col, i32(1)))};
      for (unsigned i = 0; i < 2; ++i) {
        llvm::Value *row = b.CreateAdd(row0, i32(8 * i));
        llvm::Value *v0 = acc[4 * j + 2 * i];
        llvm::Value *v1 = acc[4 * j + 2 * i + 1];
        std::optional<EpilogueOperandValues> at0 =
            merged(*rowValues[i], colValues[0]);
        std::optional<EpilogueOperandValues> at1 =
            merged(*rowValues[i], colValues[1]);
        const EpilogueOperandValues *l0 = at0 ? &*at0 : nullptr;
        const EpilogueOperandValues *l1 = at1 ? &*at1 : nullptr;
        if (config.swapAB) {
          storeOne(row, col, v0, readC, l0);
          storeOne(row, b.CreateAdd(col, i32(1)), v1, readC, l1);
          continue;
        }
        llvm::BasicBlock *wide = block("st2");
        llvm::BasicBlock *narrow = block("st2.narrow");
        llvm::BasicBlock *after = block("st2.after");
        llvm::Value *fits = b.CreateAnd(
            b.CreateAnd(b.CreateICmpULT(row, v.rowsA),
                        b.CreateICmpULT(b.CreateAdd(col, i32(1)), v.rowsB)),
            ldcEven);
        b.CreateCondBr(fits, wide, narrow);
        b.SetInsertPoint(wide);
        llvm::Value *address = cAddress(row, col);
        auto *pairType = llvm::FixedVectorType::get(cType(), 2);
        llvm::Align pairAlign(2 * dtypeBytes(config.cType));
        llvm::Value *o0 = nullptr, *o1 = nullptr;
        if (readC) {
          llvm::Value *old = b.CreateAlignedLoad(pairType, address, pairAlign);
          o0 = b.CreateFPExt(b.CreateExtractElement(old, uint64_t(0)),
                             b.getFloatTy());
          o1 = b.CreateFPExt(b.CreateExtractElement(old, uint64_t(1)),
                             b.getFloatTy());
        }
        llvm::Value *r0 = finish(v0, o0, row, col, l0);
        llvm::Value *r1 = finish(v1, o1, row, b.CreateAdd(col, i32(1)), l1);
        llvm::Value *pair = llvm::PoisonValue::get(pairType);
        pair = b.CreateInsertElement(pair, b.CreateFPTrunc(r0, cType()),
                                     uint64_t(0));
        pair = b.CreateInsertElement(pair, b.CreateFPTrunc(r1, cType()),
                                     uint64_t(1));
        b.CreateAlignedStore(pair, address, pairAlign);
        b.CreateBr(after);
        b.SetInsertPoint(narrow);
        storeOne(row, col, v0, readC, l0);
        storeOne(row, b.CreateAdd(col, i32(1)), v1, readC, l1);
        b.CreateBr(after);
        b.SetInsertPoint(after);
      }
    }
  }

  /// The direct epilogue: the beta == 0 variant never reads C.
  void emitDirectTile(llvm::ArrayRef<llvm::Value *> acc,
                      llvm::BasicBlock *exit) {
    auto [row0, col0] = laneOrigin();
    if (config.annotate)
      emitEpilogueAnnotation(b, config.epilogueOps, directAnnotation().c_str());
    if (const EpilogueOp *swiglu = findSwiglu(config.epilogueOps)) {
      // C is not read (the launcher keeps beta at 0).
      emitDirectSwiglu(*swiglu, acc, row0, col0);
      b.CreateBr(exit);
      return;
    }
    llvm::BasicBlock *withBeta = block("epilogue.beta");
    llvm::BasicBlock *noBeta = block("epilogue.nobeta");
    b.CreateCondBr(
        b.CreateFCmpOEQ(v.beta, llvm::ConstantFP::get(b.getFloatTy(), 0.0)),
        noBeta, withBeta);
    b.SetInsertPoint(noBeta);
    emitDirect(acc, row0, col0, /*readC=*/false);
    b.CreateBr(exit);
    b.SetInsertPoint(withBeta);
    emitDirect(acc, row0, col0, /*readC=*/true);
    b.CreateBr(exit);
  }

  /// Where the direct path applies the ops, for --annotate.
  std::string directAnnotation() const {
    return std::string("sm_90a: direct stores from registers") +
           (config.splitK ? ", after the split-K reduction" : "") +
           (config.swapAB ? ", swap-AB (C's rows are the wgmma N)" : "");
  }

  // --- stmatrix + TMA store ----------------------------------------------

  /// --annotate: what one stmatrix writes, for a `// tilec:` comment: the
  /// accumulator registers, the staging layout, the rows and columns lane
  /// 0's four matrices start at, and the chunk's TMA box.
  std::string stmatrixAnnotation(const EpilogueStagingTile &tile,
                                 const SmemAddress &smem, unsigned chunk,
                                 unsigned pair, bool x4) const {
    unsigned blocks = (tile.transposed ? tile.rows : tile.cols) / 8;
    unsigned j = chunk * blocks + 2 * pair;
    unsigned regs = x4 ? 8 : 4;
    std::string text =
        std::string("stmatrix.x") + (x4 ? "4" : "2") +
        (tile.transposed ? ".trans" : "") + " chunk " + std::to_string(chunk) +
        " of " + std::to_string(tile.chunks) + ": accumulators " +
        std::to_string(4 * j) + ".." + std::to_string(4 * j + regs - 1) +
        " (wgmma N columns " + std::to_string(8 * j) + ".." +
        std::to_string(8 * j + 2 * regs - 1) + ") -> staging " + tile.layout +
        ", buffer " + std::to_string(chunk % tile.buffers) + " of " +
        std::to_string(tile.buffers) + "\n";
    // Element offsets of the first row of each matrix for warp 0: matrix q
    // starts at the row lane 8 q gives.
    text += "matrix rows (warp 0): ";
    for (unsigned q = 0; q < (x4 ? 4u : 2u); ++q) {
      TileCoord at =
          tile.transposed
              ? TileCoord{8 * (x4 ? q / 2 : 0) + 16 * pair, 8 * (q % 2)}
              : TileCoord{8 * (q % 2), 8 * (x4 ? q / 2 : 0) + 16 * pair};
      text += (q ? ", (" : "(") + std::to_string(at.first) + "," +
              std::to_string(at.second) + ")@" +
              std::to_string(smem.offset(at));
    }
    text += " elements\n";
    text += "TMA store box (" + std::to_string(tile.cols) + " cols, " +
            std::to_string(tile.rows) + " rows) of C, swizzle " +
            (tile.swizzleBytes ? std::to_string(tile.swizzleBytes) + "B"
                               : std::string("none")) +
            "\n";
    return text;
  }

  /// The epilogue math of the accumulator pair {lo, hi} at the kernel's
  /// (\p row, \p col) and (\p row, \p col + 1) (with \p old, two C
  /// elements packed in a b32, when given) rounded to C's type, packed into
  /// one b32 (lo in the low half: the lower column, as stmatrix and ldmatrix
  /// have it); \p loaded holds the operand values of the two elements
  /// (load()), or is null.
  llvm::Value *pack(llvm::Value *lo, llvm::Value *hi, llvm::Value *old,
                    llvm::Value *row, llvm::Value *col,
                    const std::optional<EpilogueOperandValues> *loaded) {
    auto *f2 = llvm::FixedVectorType::get(b.getFloatTy(), 2);
    auto *c2 = llvm::FixedVectorType::get(cType(), 2);
    if (findSwiglu(config.epilogueOps)) {
      // swiglu (halves): \p lo and \p hi are the gate pair at accumulator
      // columns col, col + 1; their up pair is BN / 2 columns on, in
      // registers upFor(lo), upFor(hi); C's column is col - n0 / 2.
      llvm::Value *outCol = b.CreateSub(col, b.CreateLShr(v.n0, i32(1)));
      llvm::Value *pair = llvm::PoisonValue::get(f2);
      for (unsigned e = 0; e < 2; ++e) {
        llvm::Value *gateCol = b.CreateAdd(col, i32(e));
        pair = b.CreateInsertElement(
            pair,
            finishSwiglu(e ? hi : lo, swigluUp[e], row, gateCol,
                         b.CreateAdd(gateCol, i32(config.bn / 2)),
                         b.CreateAdd(outCol, i32(e))),
            uint64_t(e));
      }
      return b.CreateBitCast(b.CreateFPTrunc(pair, c2), b.getInt32Ty());
    }
    llvm::Value *c =
        old ? b.CreateFPExt(b.CreateBitCast(old, c2), f2) : nullptr;
    auto oldAt = [&](uint64_t e) {
      return c ? b.CreateExtractElement(c, e) : nullptr;
    };
    auto loadedAt = [&](unsigned e) {
      return loaded && loaded[e] ? &*loaded[e] : nullptr;
    };
    llvm::Value *pair = llvm::PoisonValue::get(f2);
    pair = b.CreateInsertElement(
        pair, finish(lo, oldAt(0), row, col, loadedAt(0)), uint64_t(0));
    pair = b.CreateInsertElement(
        pair, finish(hi, oldAt(1), row, b.CreateAdd(col, i32(1)), loadedAt(1)),
        uint64_t(1));
    return b.CreateBitCast(b.CreateFPTrunc(pair, c2), b.getInt32Ty());
  }

  /// Where this thread's stmatrix lanes address a chunk of the staging
  /// tile: the 8-column blocks of a chunk, x4 (pairs of blocks per
  /// stmatrix) or x2, the lane's (row, col) and its offset, and every
  /// lane's coordinates (SmemAddress::emitOffsetAt's runtime list).
  struct StagingLanes {
    unsigned blocks = 0;
    bool x4 = false;
    llvm::Value *row = nullptr, *col = nullptr, *base = nullptr;
    std::vector<TileCoord> runtime;
  };

  StagingLanes stagingLanes(const EpilogueStagingTile &tile,
                            const SmemAddress &smem, llvm::Value *lane,
                            llvm::Value *warp) {
    StagingLanes lanes;
    // The 8-column blocks of wgmma N per chunk; pairs of them go out with
    // one stmatrix.x4, a lone one with .x2.
    unsigned blocks = (tile.transposed ? tile.rows : tile.cols) / 8;
    bool x4 = blocks >= 2;
    lanes.blocks = blocks;
    lanes.x4 = x4;
    // Lane 8 q + r addresses row r of matrix q; matrix q is (i = q % 2,
    // j = q / 2) of the fragment. Without trans its row r is staging row
    // 16 warp + 8 i + r, column 8 j; with trans (the transpose stored) row
    // 8 j + r, column 16 warp + 8 i.
    llvm::Value *q = b.CreateLShr(lane, i32(3));
    llvm::Value *r = b.CreateAnd(lane, i32(7));
    llvm::Value *qi = b.CreateAnd(q, i32(1));
    llvm::Value *qj = x4 ? b.CreateLShr(q, i32(1)) : i32(0);
    llvm::Value *row, *col;
    if (!tile.transposed) {
      row = b.CreateAdd(
          b.CreateAdd(b.CreateMul(warp, i32(16)), b.CreateMul(qi, i32(8))), r);
      col = b.CreateMul(qj, i32(8));
    } else {
      row = b.CreateAdd(b.CreateMul(qj, i32(8)), r);
      col = b.CreateAdd(b.CreateMul(warp, i32(16)), b.CreateMul(qi, i32(8)));
    }
    for (int64_t w = 0; w < 4; ++w)
      for (int64_t l = 0; l < 32; ++l) {
        int64_t lq = l / 8, li = lq % 2, lj = x4 ? lq / 2 : 0;
        lanes.runtime.push_back(
            tile.transposed ? TileCoord{8 * lj + l % 8, 16 * w + 8 * li}
                            : TileCoord{16 * w + 8 * li + l % 8, 8 * lj});
      }
    lanes.row = row;
    lanes.col = col;
    lanes.base = smem.emitOffset(b, row, col);
    return lanes;
  }

  /// One chunk's stmatrix into \p buffer (with \p readC, C's chunk read
  /// back first with ldmatrix): each register pair finished by the
  /// epilogue's math with this thread's row operands \p rowValues and the
  /// chunk's column operands \p colValues; \p laneRow, \p laneCol are the
  /// thread's first accumulator element (laneOrigin).
  void stmatrixChunk(const EpilogueStagingTile &tile, const SmemAddress &smem,
                     const StagingLanes &lanes, unsigned chunk,
                     llvm::Value *buffer, llvm::ArrayRef<llvm::Value *> acc,
                     bool readC, const EpilogueOperandValues *const *rowValues,
                     const std::vector<EpilogueOperandValues> &colValues,
                     llvm::Value *laneRow, llvm::Value *laneCol) {
    bool swiglu = findSwiglu(config.epilogueOps) != nullptr;
    unsigned elem = dtypeBytes(config.cType);
    for (unsigned p = 0; p < (lanes.x4 ? lanes.blocks / 2 : 1); ++p) {
      unsigned j = chunk * lanes.blocks + 2 * p;
      TileCoord step =
          tile.transposed ? TileCoord{16 * p, 0} : TileCoord{0, 16 * p};
      llvm::Value *offset = smem.emitOffsetAt(b, lanes.base, lanes.row,
                                              lanes.col, lanes.runtime, step);
      llvm::Value *address =
          b.CreateAdd(buffer, b.CreateMul(offset, i32(elem)));
      unsigned count = lanes.x4 ? 4u : 2u;
      llvm::SmallVector<llvm::Value *> old;
      if (readC)
        old = ptx::ldmatrix(b, address, count, tile.transposed);
      llvm::SmallVector<llvm::Value *, 4> regs;
      // Registers 4 j + 2 m + {0, 1} hold the kernel's row
      // wgRow + 16 warp + lane / 4 + 8 (m % 2), columns
      // n0 + 8 (j + m / 2) + 2 (lane % 4) + {0, 1}
      // (docs/layout-facts.md#accumulator-ownership).
      for (unsigned m = 0; m < count; ++m) {
        llvm::Value *accRow = b.CreateAdd(laneRow, i32(8 * (m % 2)));
        llvm::Value *accCol = b.CreateAdd(laneCol, i32(8 * (j + m / 2)));
        if (swiglu) {
          // The up registers: BN / 16 blocks of 8 columns further on.
          unsigned up = 4 * (j + config.bn / 16) + 2 * m;
          swigluUp[0] = acc[up];
          swigluUp[1] = acc[up + 1];
        }
        unsigned block = 2 * p + m / 2;
        std::optional<EpilogueOperandValues> loaded[2] = {
            merged(*rowValues[m % 2], colValues[2 * block]),
            merged(*rowValues[m % 2], colValues[2 * block + 1])};
        regs.push_back(pack(acc[4 * j + 2 * m], acc[4 * j + 2 * m + 1],
                            readC ? old[m] : nullptr, accRow, accCol, loaded));
      }
      ptx::stmatrix(b, address, regs, tile.transposed,
                    config.annotate
                        ? stmatrixAnnotation(tile, smem, chunk, p, lanes.x4)
                        : std::string());
    }
  }

  /// The staged epilogue; with \p readC (beta != 0) each chunk of C is
  /// TMA-loaded into its buffer first and read back with ldmatrix from the
  /// addresses stmatrix then writes.
  void emitTmaStoreTile(const EpilogueStagingTile &tile,
                        const SmemAddress &smem,
                        llvm::ArrayRef<llvm::Value *> acc,
                        llvm::BasicBlock *exit, bool readC) {
    llvm::Value *lane = b.CreateAnd(v.tid, i32(31));
    llvm::Value *warp = b.CreateAnd(b.CreateLShr(v.tid, i32(5)), i32(3));
    llvm::Value *leader =
        b.CreateICmpEQ(b.CreateAnd(v.tid, i32(127)), i32(0), "wg.leader");
    llvm::Value *barrier = b.CreateAdd(v.consumer, i32(FirstEpilogueBarrier));
    StagingLanes lanes = stagingLanes(tile, smem, lane, warp);
    unsigned blocks = lanes.blocks;
    // This thread's first accumulator element in the kernel's coordinates.
    auto [laneRow, laneCol] = laneOrigin();
    llvm::Value *buffers = b.CreateAdd(
        v.staging, b.CreateMul(v.consumer, i32(tile.buffers * tile.bytes)),
        "staging");
    // swiglu: the tile's C columns start at n0 / 2 (the TMA box's x).
    bool swiglu = findSwiglu(config.epilogueOps) != nullptr;
    llvm::Value *cCol0 = swiglu ? b.CreateLShr(v.n0, i32(1)) : v.n0;
    if (config.annotate)
      emitEpilogueAnnotation(
          b, config.epilogueOps,
          std::string("sm_90a: stmatrix into the staging tile, TMA store") +
              (config.splitK ? ", after the split-K reduction" : "") +
              (readC ? ", C read back with ldmatrix (beta != 0)" : ""));
    // The operands of this thread's two rows, loaded before the K loop.
    const EpilogueOperandValues *rowValues[2] = {&rowOperands(0),
                                                 &rowOperands(1)};
    // The operands of a chunk's columns (2 per 8-column block): those of
    // the first blocks loaded before the K loop, the others once, a chunk
    // ahead of their math (chunk c + 1's before chunk c's barrier).
    auto loadChunk = [&](unsigned chunk) {
      std::vector<EpilogueOperandValues> values;
      for (unsigned jj = 0; jj < blocks; ++jj)
        for (unsigned e = 0; e < 2; ++e) {
          unsigned j = chunk * blocks + jj;
          values.push_back(
              colOperands(j, e, b.CreateAdd(laneCol, i32(8 * j + e))));
        }
      return values;
    };
    // The chunks of this CTA's blocks (sm90SplitShares keeps them whole).
    unsigned firstChunk = firstBlock / blocks;
    unsigned endChunk = std::min(tile.chunks, endBlock / blocks);
    std::vector<EpilogueOperandValues> nextValues;
    if (firstChunk < endChunk)
      nextValues = loadChunk(firstChunk);
    for (unsigned chunk = firstChunk; chunk < endChunk; ++chunk) {
      llvm::Value *buffer =
          b.CreateAdd(buffers, i32((chunk % tile.buffers) * tile.bytes));
      // The store that last read this buffer (two chunks ago, or any of
      // the previous tile's) must be done before stmatrix overwrites it.
      unsigned pending = chunk == firstChunk ? 0 : tile.buffers - 1;
      llvm::Value *wgRow = b.CreateAdd(v.m0, b.CreateMul(v.consumer, i32(64)));
      llvm::Value *x, *y;
      if (!tile.transposed) {
        x = b.CreateAdd(cCol0, i32(chunk * tile.cols));
        y = wgRow;
      } else {
        x = wgRow;
        y = b.CreateAdd(v.n0, i32(chunk * tile.rows));
      }
      // The next chunk's operands, in flight during this chunk's math.
      std::vector<EpilogueOperandValues> colValues = std::move(nextValues);
      if (chunk + 1 < endChunk)
        nextValues = loadChunk(chunk + 1);
      ifLeader(leader, "store.reuse", [&] {
        ptx::bulkWaitGroup(b, pending, /*readOnly=*/true);
        if (readC) {
          // C's box into the buffer (zeros past C's extents).
          ptx::mbarrierArriveExpectTx(b, v.cLoadBar, i32(tile.bytes));
          if (v.batch)
            ptx::tmaLoad3d(b, buffer, v.tmapC, x, y, v.batch, v.cLoadBar);
          else
            ptx::tmaLoad2d(b, buffer, v.tmapC, x, y, v.cLoadBar);
        }
      });
      ptx::barSync(b, barrier, 128);
      if (readC) {
        // The barrier completes once per chunk this CTA stores, tile after
        // tile (a split-K cluster's share starts past chunk 0).
        llvm::Value *phase =
            b.CreateAdd(b.CreateMul(v.tileCount, i32(endChunk - firstChunk)),
                        i32(chunk - firstChunk));
        ptx::mbarrierWaitParity(b, v.cLoadBar, b.CreateAnd(phase, i32(1)),
                                "c.wait");
      }
      stmatrixChunk(tile, smem, lanes, chunk, buffer, acc, readC, rowValues,
                    colValues, laneRow, laneCol);
      // The generic-proxy writes must be visible to the TMA engine.
      ptx::fenceProxyAsyncShared(b);
      ptx::barSync(b, barrier, 128);
      ifLeader(leader, "store.issue", [&] {
        if (v.batch)
          ptx::tmaStore3d(b, v.tmapC, x, y, v.batch, buffer);
        else
          ptx::tmaStore2d(b, v.tmapC, x, y, buffer);
        ptx::bulkCommitGroup(b);
      });
    }
    b.CreateBr(exit);
  }
};

} // namespace

Sm90EpilogueOperands
emitSm90EpilogueOperandLoads(llvm::IRBuilder<> &b, const Sm90GemmConfig &config,
                             const Sm90EpilogueValues &values) {
  EpilogueEmitter emitter{b, config, values};
  return emitter.preload();
}

void emitSm90Epilogue(llvm::IRBuilder<> &b, const Sm90GemmConfig &config,
                      const std::optional<EpilogueStagingTile> &staging,
                      const Sm90EpilogueValues &values,
                      const Sm90EpilogueOperands &operands,
                      llvm::ArrayRef<llvm::Value *> acc, llvm::BasicBlock *exit,
                      Sm90EpilogueBlocks blocks) {
  EpilogueEmitter emitter{b, config, values};
  emitter.pre = &operands;
  if (blocks.end) {
    assert(!findSwiglu(config.epilogueOps) && "swiglu stores whole tiles");
    emitter.firstBlock = blocks.first;
    emitter.endBlock = blocks.end;
  }
  if (!staging) {
    emitter.emitDirectTile(acc, exit);
    return;
  }
  // sm90EpilogueTile checked that the layout evaluates.
  SmemAddress smem = llvm::cantFail(epilogueStagingAddress(*staging));
  llvm::BasicBlock *tma = emitter.block("epilogue.tma");
  llvm::BasicBlock *tmaBeta = emitter.block("epilogue.tma.beta");
  llvm::BasicBlock *tmaNoBeta = emitter.block("epilogue.tma.nobeta");
  llvm::BasicBlock *direct = emitter.block("epilogue.direct");
  b.CreateCondBr(b.CreateICmpNE(values.storeTma, b.getInt32(0)), tma, direct);
  b.SetInsertPoint(tma);
  // beta == 0 never reads C (it may hold NaN); with swiglu C is never read
  // (the launcher keeps beta at 0).
  bool swiglu = findSwiglu(config.epilogueOps) != nullptr;
  b.CreateCondBr(
      b.CreateFCmpOEQ(values.beta, llvm::ConstantFP::get(b.getFloatTy(), 0.0)),
      tmaNoBeta, swiglu ? tmaNoBeta : tmaBeta);
  b.SetInsertPoint(tmaNoBeta);
  emitter.emitTmaStoreTile(*staging, smem, acc, exit, /*readC=*/false);
  b.SetInsertPoint(tmaBeta);
  if (swiglu)
    b.CreateUnreachable();
  else
    emitter.emitTmaStoreTile(*staging, smem, acc, exit, /*readC=*/true);
  b.SetInsertPoint(direct);
  emitter.emitDirectTile(acc, exit);
}

void emitSm90EpilogueDrain(llvm::IRBuilder<> &b, const Sm90GemmConfig &config,
                           const std::optional<EpilogueStagingTile> &staging,
                           const Sm90EpilogueValues &values) {
  if (!staging)
    return;
  EpilogueEmitter emitter{b, config, values};
  llvm::Value *leader =
      b.CreateICmpEQ(b.CreateAnd(values.tid, b.getInt32(127)), b.getInt32(0));
  emitter.ifLeader(leader, "store.drain", [&] {
    // Only the staging buffers' reads must finish before the CTA's shared
    // memory goes away; the stores complete with the grid.
    ptx::bulkWaitGroup(b, 0, /*readOnly=*/true);
  });
}

} // namespace tilec
