//===- codegen/Sm90BlockScale.cpp - Block-scaled fp8 promotion on sm_90a --===//
//
// The loads and fmas of Sm90BlockScale.h. Only built for kernels with
// scales, so unscaled kernels' PTX does not change.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90BlockScale.h"

#include "codegen/PtxInlineAsm.h"

#include "llvm/IR/IntrinsicsNVPTX.h"

#include <array>
#include <cassert>
#include <numeric>

namespace tilec {

namespace {
/// The one B-scale block height this file implements (BlockScaleSpec::bRows,
/// verified by the verify pass).
constexpr unsigned ScaleRows = 128;
} // namespace

unsigned sm90BlockScaleSlots(unsigned bn) {
  if (bn == 0)
    return 1;
  // A tile starts at n0 = t * BN, so n0 % 128 is a multiple of g = gcd(BN,
  // 128), at most 128 - g; from there BN columns reach
  // floor((128 - g + BN - 1) / 128) blocks further.
  unsigned g = std::gcd(bn, ScaleRows);
  return (ScaleRows - g + bn - 1) / ScaleRows + 1;
}

std::string describeBlockScalePromotion(const GemmSpec &spec, bool overlapped,
                                        bool staged) {
  if (!spec.blockScale)
    return "";
  const BlockScaleSpec &s = *spec.blockScale;
  std::string text =
      "per K block of " + std::to_string(s.kBlock) +
      " (= BK): wgmma into a fresh f32 accumulator, then acc += SFA[row, kb] "
      "* SFB[col / " +
      std::to_string(s.bRows) +
      ", kb] * partial (the tensor core sums fp8 with ~14 mantissa bits; f32 "
      "across blocks); " +
      (staged ? std::string("scales copied into each ring slot by the "
                            "producer's warp 2 (cp.async, counted by the "
                            "slot's full barrier) and read from shared "
                            "memory; ")
              : std::string("scales read by the consumers from global "
                            "memory one K block ahead; ")) +
      (spec.bm == 256 ? std::string("BM = 256: each consumer warpgroup "
                                    "promotes its two 64-row blocks in turn; ")
                      : std::string()) +
      (spec.bn > 192 ? "BN = " + std::to_string(spec.bn) +
                           " > 192: promoted in two halves of " +
                           std::to_string(spec.bn / 2) +
                           " columns (the main and a whole fresh "
                           "accumulator would not fit the registers); "
                     : std::string()) +
      (overlapped ? std::string("each block's wgmmas are issued before the "
                                "previous block is waited for and promoted "
                                "(two fresh accumulators taking turns); ")
                  : std::string());
  unsigned slots = sm90BlockScaleSlots(spec.bn);
  std::string bn = std::to_string(spec.bn);
  if (spec.swapAB)
    return text +
           "swap-AB: the wgmma rows are N, so each consumer warpgroup's 64 "
           "rows take one B scale (one 128-row block), and the columns are "
           "M: each lane loads the A scales of columns 32 i + lane (" +
           std::to_string((spec.bn + 31) / 32) + " load" +
           (spec.bn > 32 ? "s" : "") + " for BN = " + bn +
           ") and each thread takes its " + std::to_string(spec.bn / 4) +
           " columns' scales by shfl.sync, per K block";
  if (s.bRows % spec.bn == 0)
    text += "BN = " + bn + " divides " + std::to_string(s.bRows) +
            ": one B scale per tile";
  else if (spec.bn % s.bRows == 0)
    text += "BN = " + bn + " is " + std::to_string(spec.bn / s.bRows) +
            " B scale blocks: each 8-column chunk's scale fixed at compile "
            "time";
  else
    text += "BN = " + bn + " and " + std::to_string(s.bRows) +
            " do not divide: a tile meets up to " + std::to_string(slots) +
            " B scale blocks, each 8-column chunk picks its scale at run time";
  return text;
}

llvm::SmallVector<llvm::Value *> Sm90BlockScales::values() const {
  llvm::SmallVector<llvm::Value *> out;
  for (llvm::Value *v : a)
    if (v)
      out.push_back(v);
  out.append(b.begin(), b.end());
  out.append(aLanes.begin(), aLanes.end());
  return out;
}

Sm90BlockScales
Sm90BlockScales::withValues(llvm::ArrayRef<llvm::Value *> values) const {
  assert(values.size() == this->values().size() && "one value per scale");
  Sm90BlockScales out;
  size_t i = 0;
  for (unsigned h = 0; h < 2; ++h)
    if (a[h])
      out.a[h] = values[i++];
  for (size_t j = 0; j < b.size(); ++j)
    out.b.push_back(values[i++]);
  for (size_t j = 0; j < aLanes.size(); ++j)
    out.aLanes.push_back(values[i++]);
  return out;
}

Sm90BlockScale::Sm90BlockScale(llvm::IRBuilder<> &b, const BlockScaleSpec &spec,
                               unsigned bn, bool swapAB,
                               const Sm90BlockScaleValues &values)
    : b(b), spec(spec), bn(bn), slots(sm90BlockScaleSlots(bn)), v(values),
      swapAB(swapAB) {
  llvm::Type *i64 = b.getInt64Ty();
  llvm::Value *kb = b.CreateUDiv(b.CreateAdd(v.k, b.getInt32(spec.kBlock - 1)),
                                 b.getInt32(spec.kBlock), "sf.kblocks");
  kBlocks = b.CreateZExt(kb, i64);
  if (swapAB) {
    initSwapped();
    return;
  }
  // Rows of this thread (Sm90BlockScale.h): m0 + 64 consumer + 16 warp +
  // lane / 4 (+ 8), clamped to M - 1.
  llvm::Value *lane = b.CreateAnd(v.tid, b.getInt32(31));
  llvm::Value *warp =
      b.CreateAnd(b.CreateLShr(v.tid, b.getInt32(5)), b.getInt32(3));
  llvm::Value *row0 =
      b.CreateAdd(b.CreateAdd(v.m0, b.CreateMul(v.consumer, b.getInt32(64))),
                  b.CreateAdd(b.CreateMul(warp, b.getInt32(16)),
                              b.CreateLShr(lane, b.getInt32(2))),
                  "sf.row0");
  tileRow = b.CreateSub(row0, v.m0, "sf.tilerow");
  llvm::Value *lastRow = b.CreateSub(v.m, b.getInt32(1));
  for (unsigned h = 0; h < 2; ++h) {
    llvm::Value *row = b.CreateBinaryIntrinsic(
        llvm::Intrinsic::umin, b.CreateAdd(row0, b.getInt32(8 * h)), lastRow);
    rowA[h] = sfaRowOffset(row);
  }
  rowB0 = b.CreateUDiv(v.n0, b.getInt32(ScaleRows), "sf.rowb");
  lastRowB =
      b.CreateUDiv(b.CreateSub(v.n, b.getInt32(1)), b.getInt32(ScaleRows));
  if (ScaleRows % bn != 0 && bn % ScaleRows != 0)
    colInBlock = b.CreateURem(v.n0, b.getInt32(ScaleRows), "sf.col");
}

llvm::Value *Sm90BlockScale::sfaRowOffset(llvm::Value *row) {
  llvm::Value *row64 = b.CreateZExt(row, b.getInt64Ty());
  return spec.aMajor == MajorKind::MN ? row64 : b.CreateMul(row64, kBlocks);
}

llvm::Value *Sm90BlockScale::sfaBlockOffset(llvm::Value *kb64) {
  if (spec.aMajor != MajorKind::MN)
    return kb64;
  // f32[ceil(K / 128), M]: M in the user's sense (the wgmma columns under
  // swap-AB).
  return b.CreateMul(kb64, b.CreateZExt(swapAB ? v.n : v.m, b.getInt64Ty()));
}

llvm::Value *Sm90BlockScale::loadF32(llvm::Value *base, llvm::Value *index) {
  llvm::Type *f32 = b.getFloatTy();
  return b.CreateAlignedLoad(f32, b.CreateInBoundsGEP(f32, base, index),
                             llvm::Align(4));
}

Sm90BlockScales Sm90BlockScale::load(llvm::Value *kb) {
  Sm90BlockScales scales;
  llvm::Value *kb64 = b.CreateZExt(kb, b.getInt64Ty());
  if (swapAB)
    return loadSwapped(kb64);
  for (unsigned h = 0; h < 2; ++h)
    scales.a[h] = loadF32(v.sfa, b.CreateAdd(rowA[h], sfaBlockOffset(kb64)));
  for (unsigned s = 0; s < slots; ++s) {
    llvm::Value *row = b.CreateBinaryIntrinsic(
        llvm::Intrinsic::umin, b.CreateAdd(rowB0, b.getInt32(s)), lastRowB);
    llvm::Value *at = b.CreateAdd(
        b.CreateMul(b.CreateZExt(row, b.getInt64Ty()), kBlocks), kb64);
    scales.b.push_back(loadF32(v.sfb, at));
  }
  return scales;
}

Sm90BlockScales Sm90BlockScale::readStaged(llvm::Value *slotBase, unsigned bm) {
  assert(!swapAB && "swap-AB keeps the global scale loads");
  Sm90BlockScales scales;
  // Plain loads from the shared window (ordered by the asm barriers around
  // them: the full wait above, the slot's release below), which LLVM and
  // ptxas schedule with the promotion.
  auto load = [&](llvm::Value *offset) {
    llvm::Value *at = b.CreateIntToPtr(
        offset, llvm::PointerType::get(b.getContext(), 3), "sf.smem");
    return b.CreateAlignedLoad(b.getFloatTy(), at, llvm::Align(4));
  };
  llvm::Value *row = b.CreateAdd(slotBase, b.CreateShl(tileRow, 2));
  for (unsigned h = 0; h < 2; ++h)
    scales.a[h] = load(b.CreateAdd(row, b.getInt32(32 * h)));
  for (unsigned s = 0; s < slots; ++s)
    scales.b.push_back(load(b.CreateAdd(slotBase, b.getInt32(4 * (bm + s)))));
  return scales;
}

void emitSm90ScaleStageFill(llvm::IRBuilder<> &b, const BlockScaleSpec &spec,
                            unsigned bm, unsigned bn,
                            const Sm90BlockScaleValues &values,
                            llvm::Value *lane, llvm::Value *kb,
                            llvm::Value *slotBase, llvm::Value *full) {
  llvm::Type *i64 = b.getInt64Ty();
  llvm::Value *kBlocks = b.CreateZExt(
      b.CreateUDiv(b.CreateAdd(values.k, b.getInt32(spec.kBlock - 1)),
                   b.getInt32(spec.kBlock)),
      i64);
  llvm::Value *kb64 = b.CreateZExt(kb, i64);
  // The global address of f32 element \p index of \p base.
  auto global = [&](llvm::Value *base, llvm::Value *index) {
    llvm::Value *at = b.CreateInBoundsGEP(b.getFloatTy(), base, index);
    return b.CreatePtrToInt(
        b.CreateAddrSpaceCast(at, llvm::PointerType::get(b.getContext(), 1)),
        i64);
  };
  llvm::Value *lastRow = b.CreateSub(values.m, b.getInt32(1));
  for (unsigned i = 0; i < bm / 32; ++i) {
    llvm::Value *r = b.CreateAdd(lane, b.getInt32(32 * i));
    llvm::Value *row = b.CreateBinaryIntrinsic(
        llvm::Intrinsic::umin, b.CreateAdd(values.m0, r), lastRow);
    // SFA [M, ceil(K / 128)], or with major(M) [ceil(K / 128), M]: then
    // the warp's 32 rows are 128 contiguous bytes.
    llvm::Value *index =
        spec.aMajor == MajorKind::MN
            ? b.CreateAdd(b.CreateMul(kb64, b.CreateZExt(values.m, i64)),
                          b.CreateZExt(row, i64))
            : b.CreateAdd(b.CreateMul(b.CreateZExt(row, i64), kBlocks), kb64);
    ptx::cpAsyncF32(b, b.CreateAdd(slotBase, b.CreateShl(r, 2)),
                    global(values.sfa, index), b.getInt32(1));
  }
  // Lanes 0 .. slots - 1: the B scales (predicated, not branched around:
  // the warp stays converged for its arrivals).
  unsigned slots = sm90BlockScaleSlots(bn);
  llvm::Value *lastRowB =
      b.CreateUDiv(b.CreateSub(values.n, b.getInt32(1)), b.getInt32(ScaleRows));
  llvm::Value *rowB = b.CreateBinaryIntrinsic(
      llvm::Intrinsic::umin,
      b.CreateAdd(b.CreateUDiv(values.n0, b.getInt32(ScaleRows)), lane),
      lastRowB);
  ptx::cpAsyncF32(
      b,
      b.CreateAdd(slotBase, b.CreateShl(b.CreateAdd(lane, b.getInt32(bm)), 2)),
      global(values.sfb,
             b.CreateAdd(b.CreateMul(b.CreateZExt(rowB, i64), kBlocks), kb64)),
      b.CreateZExt(b.CreateICmpULT(lane, b.getInt32(slots)), b.getInt32Ty()));
  ptx::cpAsyncMbarrierArriveNoinc(b, full);
}

llvm::SmallVector<llvm::Value *> Sm90BlockScale::promote(
    llvm::ArrayRef<llvm::Value *> main, llvm::ArrayRef<llvm::Value *> pending,
    const Sm90BlockScales &scales, unsigned firstChunk, unsigned younger,
    llvm::SmallVectorImpl<llvm::Value *> *waited,
    llvm::function_ref<void()> afterWait) {
  // Swap-AB frees its slots after the promotion (Sm90Consumer.cpp).
  assert((!swapAB || !afterWait) && "promoteSwapped has no afterWait");
  if (swapAB)
    return promoteSwapped(main, pending, scales, firstChunk, younger);
  llvm::SmallVector<llvm::Value *> part =
      ptx::wgmmaWaitGroup(b, younger, pending);
  if (waited)
    waited->assign(part.begin(), part.end());
  if (afterWait)
    afterWait();
  llvm::SmallVector<llvm::Value *> out(main.begin(), main.end());
  // Per slot the two row scales: SFA[r] * SFB[slot], SFA[r + 8] * SFB[slot].
  llvm::SmallVector<std::array<llvm::Value *, 2>, 4> combined;
  for (llvm::Value *sb : scales.b)
    combined.push_back({b.CreateFMul(scales.a[0], sb, "sf.s0"),
                        b.CreateFMul(scales.a[1], sb, "sf.s1")});
  unsigned chunks = pending.size() / 4;
  for (unsigned local = 0; local < chunks; ++local) {
    unsigned j = firstChunk + local; // the chunk in the tile
    std::array<llvm::Value *, 2> scale;
    if (!colInBlock) {
      // 128 % BN == 0: slot 0; BN % 128 == 0 (n0 on a block): 8 j / 128.
      scale = combined[ScaleRows % bn == 0 ? 0 : 8 * j / ScaleRows];
    } else {
      // The chunk's slot ((n0 % 128) + 8 j) / 128, selected at run time.
      llvm::Value *slot = b.CreateUDiv(
          b.CreateAdd(colInBlock, b.getInt32(8 * j)), b.getInt32(ScaleRows));
      scale = combined[0];
      for (unsigned s = 1; s < combined.size(); ++s) {
        llvm::Value *is = b.CreateICmpEQ(slot, b.getInt32(s));
        for (unsigned h = 0; h < 2; ++h)
          scale[h] = b.CreateSelect(is, combined[s][h], scale[h]);
      }
    }
    for (unsigned h = 0; h < 2; ++h)
      for (unsigned e = 0; e < 2; ++e) {
        unsigned i = 4 * j + 2 * h + e, p = 4 * local + 2 * h + e;
        out[i] = b.CreateIntrinsic(llvm::Intrinsic::fma, {b.getFloatTy()},
                                   {scale[h], part[p], main[i]});
      }
  }
  return out;
}

void Sm90BlockScale::initSwapped() {
  // Sm90BlockScale.h, swap-AB: the wgmma rows m0 + 64 consumer + ... are
  // the user's N (v.m of them), its columns n0 + ... the user's M (v.n).
  llvm::Type *i64 = b.getInt64Ty();
  llvm::Value *lane = b.CreateAnd(v.tid, b.getInt32(31));
  // The warpgroup's 64 rows lie in SFB row block (m0 + 64 consumer) / 128,
  // clamped to ceil(N / 128) - 1.
  llvm::Value *rowBlock =
      b.CreateUDiv(b.CreateAdd(v.m0, b.CreateMul(v.consumer, b.getInt32(64))),
                   b.getInt32(ScaleRows), "sf.rowb");
  llvm::Value *lastBlock =
      b.CreateUDiv(b.CreateSub(v.m, b.getInt32(1)), b.getInt32(ScaleRows));
  llvm::Value *block =
      b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, rowBlock, lastBlock);
  rowB = b.CreateMul(b.CreateZExt(block, i64), kBlocks);
  // This lane loads the SFA rows of columns n0 + 32 i + lane, clamped to
  // M - 1.
  llvm::Value *lastCol = b.CreateSub(v.n, b.getInt32(1));
  llvm::Value *col0 = b.CreateAdd(v.n0, lane, "sf.col0");
  for (unsigned i = 0; i < (bn + 31) / 32; ++i) {
    llvm::Value *col = b.CreateBinaryIntrinsic(
        llvm::Intrinsic::umin, b.CreateAdd(col0, b.getInt32(32 * i)), lastCol);
    colA.push_back(sfaRowOffset(col));
  }
  // The lanes holding this thread's columns 2 (l % 4) + e (+ 8 (j % 4)).
  llvm::Value *pair =
      b.CreateMul(b.CreateAnd(lane, b.getInt32(3)), b.getInt32(2), "sf.pair");
  for (unsigned e = 0; e < 2; ++e)
    srcLane[e] = b.CreateAdd(pair, b.getInt32(e));
}

Sm90BlockScales Sm90BlockScale::loadSwapped(llvm::Value *kb64) {
  Sm90BlockScales scales;
  for (llvm::Value *col : colA)
    scales.aLanes.push_back(
        loadF32(v.sfa, b.CreateAdd(col, sfaBlockOffset(kb64))));
  scales.b.push_back(loadF32(v.sfb, b.CreateAdd(rowB, kb64)));
  return scales;
}

llvm::SmallVector<llvm::Value *> Sm90BlockScale::promoteSwapped(
    llvm::ArrayRef<llvm::Value *> main, llvm::ArrayRef<llvm::Value *> pending,
    const Sm90BlockScales &scales, unsigned firstChunk, unsigned younger) {
  // Column 8 j + 2 (l % 4) + e's scale: SFA from load j / 4, lane 8 (j % 4)
  // + 2 (l % 4) + e, times SFB as without swap; before the wait, so that
  // the shuffles overlap the wgmmas.
  llvm::Value *all = b.getInt32(~0u), *clamp = b.getInt32(31);
  llvm::SmallVector<llvm::Value *> colScale;
  unsigned chunks = pending.size() / 4;
  for (unsigned j = firstChunk; j < firstChunk + chunks; ++j)
    for (unsigned e = 0; e < 2; ++e) {
      llvm::Value *src = b.CreateAdd(srcLane[e], b.getInt32(8 * (j % 4)));
      llvm::Value *sfa = b.CreateIntrinsic(
          b.getFloatTy(), llvm::Intrinsic::nvvm_shfl_sync_idx_f32,
          {all, scales.aLanes[j / 4], src, clamp}, {}, "sf.a");
      colScale.push_back(b.CreateFMul(sfa, scales.b[0], "sf.s"));
    }
  llvm::SmallVector<llvm::Value *> part =
      ptx::wgmmaWaitGroup(b, younger, pending);
  llvm::SmallVector<llvm::Value *> out(main.begin(), main.end());
  for (unsigned local = 0; local < chunks; ++local)
    for (unsigned h = 0; h < 2; ++h)
      for (unsigned e = 0; e < 2; ++e) {
        unsigned i = 4 * (firstChunk + local) + 2 * h + e,
                 p = 4 * local + 2 * h + e;
        out[i] = b.CreateIntrinsic(llvm::Intrinsic::fma, {b.getFloatTy()},
                                   {colScale[2 * local + e], part[p], main[i]});
      }
  return out;
}

llvm::SmallVector<llvm::Value *> Sm90ScalesAhead::loadAll(llvm::Value *kb) {
  llvm::SmallVector<llvm::Value *> all;
  shapes.clear();
  for (Sm90BlockScale &scaler : scalers) {
    shapes.push_back(scaler.load(kb));
    llvm::SmallVector<llvm::Value *> values = shapes.back().values();
    all.append(values.begin(), values.end());
  }
  return all;
}

std::vector<Sm90BlockScales> Sm90ScalesAhead::readStaged(llvm::Value *slotBase,
                                                         unsigned bm) {
  std::vector<Sm90BlockScales> out;
  for (Sm90BlockScale &scaler : scalers)
    out.push_back(scaler.readStaged(slotBase, bm));
  return out;
}

void Sm90ScalesAhead::loadFirst(llvm::IRBuilder<> &b, llvm::Value *firstKb,
                                llvm::Value *count) {
  if (staged)
    return;
  llvm::LLVMContext &ctx = b.getContext();
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  llvm::BasicBlock *from = b.GetInsertBlock();
  llvm::BasicBlock *load = llvm::BasicBlock::Create(ctx, "scales.first", fn);
  llvm::BasicBlock *join = llvm::BasicBlock::Create(ctx, "scales.join", fn);
  b.CreateCondBr(b.CreateICmpUGT(count, b.getInt32(0)), load, join);
  b.SetInsertPoint(load);
  llvm::SmallVector<llvm::Value *> loaded = loadAll(firstKb);
  b.CreateBr(join);
  b.SetInsertPoint(join);
  for (llvm::Value *value : loaded) {
    llvm::PHINode *phi = b.CreatePHI(value->getType(), 2, "sf.first");
    phi->addIncoming(llvm::PoisonValue::get(value->getType()), from);
    phi->addIncoming(value, load);
    first.push_back(phi);
  }
}

void Sm90ScalesAhead::enterLoop(llvm::IRBuilder<> &b, llvm::BasicBlock *pre) {
  for (llvm::Value *value : first) {
    phis.push_back(b.CreatePHI(value->getType(), 2, "sf"));
    phis.back()->addIncoming(value, pre);
  }
}

std::vector<Sm90BlockScales>
Sm90ScalesAhead::shaped(llvm::ArrayRef<llvm::Value *> values) const {
  std::vector<Sm90BlockScales> out;
  size_t at = 0;
  for (const Sm90BlockScales &shape : shapes) {
    size_t count = shape.values().size();
    out.push_back(shape.withValues(values.slice(at, count)));
    at += count;
  }
  return out;
}

std::vector<Sm90BlockScales> Sm90ScalesAhead::current() const {
  return shaped(llvm::SmallVector<llvm::Value *>(phis.begin(), phis.end()));
}

void Sm90ScalesAhead::closeLoop(llvm::BasicBlock *latch) {
  for (size_t i = 0; i < phis.size(); ++i)
    phis[i]->addIncoming(next[i], latch);
}

} // namespace tilec
