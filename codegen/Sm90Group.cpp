//===- codegen/Sm90Group.cpp - Grouped (MoE) GEMM on sm_90a ---------------===//
//
// The per-tile group lookups of Sm90Group.h. Only built for grouped
// kernels, so other kernels' PTX does not change.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90Group.h"

#include "codegen/Sm90Epilogue.h"


namespace tilec {

std::string describeGroupedGemm(const GemmSpec &spec) {
  if (!spec.group)
    return "";
  std::string count = spec.group->fixedCount
                          ? std::to_string(spec.group->fixedCount) + " (fixed)"
                          : std::string("a run-time argument (groups)");
  std::string bm = std::to_string(spec.bm);
  std::string text = "G = " + count +
                     "; B is [G, N, K] through a rank-3 TMA map, the tile's "
                     "group its third coordinate";
  if (spec.blockScale)
    text += ", SFB f32[G, ceil(N / 128), ceil(K / 128)]";
  if (spec.group->kind == GroupKind::Contiguous) {
    text += "; contiguous: A [M, K], C [M, N], groupIndex int32[M] (-1: "
            "padding); each " +
            bm +
            "-row block takes the group of its first row (outside [0, G): "
            "skipped), every group starts on a multiple of BM = " +
            bm +
            " rows; the epilogue writes the block's rows of that group only "
            "(a ballot over groupIndex)";
    if (spec.blockScale)
      text += "; SFA f32[M, ceil(K / 128)]";
  } else {
    text += "; masked: A [G, Mmax, K], C [G, Mmax, N] through rank-3 maps, "
            "groupRows int32[G] read on the device (no host knowledge of the "
            "counts: CUDA-graph capturable); ";
    text += spec.persistent
                ? "the persistent CTAs walk the G x tilesM x tilesN tiles"
                : "grid z = the group";
    text += " and skip a tile at or past its group's count; rows past it are "
            "not written";
    if (spec.blockScale)
      text += "; SFA f32[G, Mmax, ceil(K / 128)]";
  }
  return text + "; beta must be 0";
}

namespace {
llvm::Value *loadI32(llvm::IRBuilder<> &b, llvm::Value *base,
                     llvm::Value *index) {
  llvm::Type *i32 = b.getInt32Ty();
  return b.CreateAlignedLoad(
      i32,
      b.CreateInBoundsGEP(i32, base, b.CreateZExt(index, b.getInt64Ty())),
      llvm::Align(4));
}
} // namespace

Sm90TileGroup emitSm90TileGroup(llvm::IRBuilder<> &b, const GroupSpec &spec,
                                const Sm90GroupValues &v, llvm::Value *m0,
                                llvm::Value *group) {
  Sm90TileGroup tile;
  if (spec.kind == GroupKind::Contiguous) {
    // The tile exists, so m0 < M; an index outside [0, G) (unsigned) is
    // padding.
    llvm::Value *index = loadI32(b, v.groupIndex, m0);
    tile.valid = b.CreateICmpULT(index, v.groups, "group.valid");
    tile.group = b.CreateSelect(tile.valid, index, b.getInt32(0), "group");
    tile.rowEnd = v.rowsA;
    return tile;
  }
  // Masked: a negative count is 0, one past Mmax is Mmax.
  llvm::Value *count = loadI32(b, v.groupRows, group);
  count = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, count, b.getInt32(0));
  tile.rowEnd = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, count, v.rowsA,
                                        nullptr, "group.rows");
  tile.valid = b.CreateICmpULT(m0, tile.rowEnd, "group.valid");
  tile.group = group;
  return tile;
}

Sm90GroupRows emitSm90GroupRows(llvm::IRBuilder<> &b,
                                const Sm90GroupValues &v, llvm::Value *m0,
                                llvm::Value *group, llvm::Value *tid,
                                llvm::Value *consumer, unsigned bm) {
  Sm90GroupRows rows;
  // Whether \p row (clamped to M - 1 for the load) is inside C and g's.
  auto isGroups = [&](llvm::Value *row) {
    llvm::Value *inside = b.CreateICmpULT(row, v.rowsA);
    llvm::Value *index = loadI32(b, v.groupIndex,
                                 b.CreateSelect(inside, row, m0));
    return b.CreateAnd(inside, b.CreateICmpEQ(index, group));
  };
  llvm::Value *last = b.CreateSub(
      b.CreateBinaryIntrinsic(llvm::Intrinsic::umin,
                              b.CreateAdd(m0, b.getInt32(bm)), v.rowsA),
      b.getInt32(1));
  rows.full = isGroups(last);
  llvm::Value *lane = b.CreateAnd(tid, b.getInt32(31));
  llvm::Value *warp =
      b.CreateAnd(b.CreateLShr(tid, b.getInt32(5)), b.getInt32(3));
  llvm::Value *r = b.CreateAdd(
      b.CreateAdd(m0, b.CreateMul(consumer, b.getInt32(64))),
      b.CreateAdd(b.CreateMul(warp, b.getInt32(16)),
                  b.CreateLShr(lane, b.getInt32(2))),
      "group.row");
  llvm::Value *r8 = b.CreateAdd(r, b.getInt32(8));
  rows.bound = b.CreateSelect(isGroups(r8), v.rowsA,
                              b.CreateSelect(isGroups(r), r8, r),
                              "group.bound");
  return rows;
}

std::pair<llvm::Value *, llvm::Value *>
emitSm90GroupScales(llvm::IRBuilder<> &b, const GroupSpec &group,
                    const BlockScaleSpec &spec, llvm::Value *sfa,
                    llvm::Value *sfb, llvm::Value *groupIndex,
                    llvm::Value *rowsA, llvm::Value *n, llvm::Value *k) {
  llvm::Type *i64 = b.getInt64Ty(), *f32 = b.getFloatTy();
  auto ceilDiv = [&](llvm::Value *x, unsigned d) {
    return b.CreateZExt(
        b.CreateUDiv(b.CreateAdd(x, b.getInt32(d - 1)), b.getInt32(d)), i64);
  };
  llvm::Value *kBlocks = ceilDiv(k, spec.kBlock);
  llvm::Value *g = b.CreateZExt(groupIndex, i64);
  llvm::Value *sfbOffset =
      b.CreateMul(b.CreateMul(g, ceilDiv(n, spec.bRows)), kBlocks);
  sfb = b.CreateInBoundsGEP(f32, sfb, sfbOffset, "sfb.group");
  if (group.kind == GroupKind::Masked) {
    llvm::Value *sfaOffset = b.CreateMul(
        b.CreateMul(g, ceilDiv(rowsA, spec.aRows)), kBlocks);
    sfa = b.CreateInBoundsGEP(f32, sfa, sfaOffset, "sfa.group");
  }
  return {sfa, sfb};
}

void applySm90GroupEpilogue(llvm::IRBuilder<> &b, const GroupSpec &group,
                            unsigned bm, DTypeKind cType,
                            Sm90EpilogueValues &values, llvm::Value *rowEnd,
                            llvm::Value *full, llvm::Value *groupIndex) {
  llvm::Value *rowsA = values.rowsA;
  values.rowsA = rowEnd;
  if (values.storeTma) {
    if (!full)
      full = b.CreateICmpUGE(
          rowEnd, b.CreateBinaryIntrinsic(llvm::Intrinsic::umin,
                                          b.CreateAdd(values.m0,
                                                      b.getInt32(bm)),
                                          rowsA));
    values.storeTma =
        b.CreateSelect(full, values.storeTma, b.getInt32(0), "storeTma.group");
  }
  if (group.kind != GroupKind::Masked)
    return;
  values.batch = groupIndex;
  llvm::Value *elements =
      b.CreateMul(b.CreateZExt(groupIndex, b.getInt64Ty()),
                  b.CreateMul(b.CreateZExt(rowsA, b.getInt64Ty()),
                              b.CreateZExt(values.ldc, b.getInt64Ty())));
  values.c = b.CreateGEP(
      b.getInt8Ty(), values.c,
      b.CreateMul(elements, b.getInt64(dtypeBits(cType) / 8)), "c.group");
}

} // namespace tilec
