//===- codegen/Sm90Group.h - Grouped (MoE) GEMM on sm_90a --------*- C++ -*-===//
//
// The grouped GEMM of ir/tile/GemmSpec.h (GroupKind) in the sm_90a kernel of
// codegen/Sm90Gemm.h: one launch computes C rows of every group g as A's
// rows times B_g^T, B being [G, N, K]. B is loaded through a rank-3 TMA
// map ({K, N, G}, box extent 1 along G) with the tile's group as the third
// coordinate, as a batched kernel's operands are; the block scales of B
// are f32[G, ceil(N / 128), ceil(K / 128)], the group's slice at g * ceil(N
// / 128) * ceil(K / 128).
//
// contiguous  A [M, K] and C [M, N] are ordinary matrices; groupIndex is
//             an int32[M] (DeepGEMM's m_indices), the group of each row,
//             -1 (or anything outside [0, G)) for a padding row. The grid
//             (or the persistent walk) covers the M x N tiles as for one
//             GEMM; each tile reads groupIndex[m0], the group of its first
//             row: outside [0, G) the tile is skipped (no loads, no
//             stores), else its B and SFB are group g's. Every group starts
//             on a multiple of BM rows (DeepGEMM aligns them to 128), so a
//             block holds one group's rows followed by padding: the
//             epilogue writes only the rows that are g's (each thread
//             reads the indices of the two rows it holds; the TMA store
//             is used only when the block's last row is g's, i.e. the
//             block is all g's, else the direct stores).
//             SFA is f32[M, ceil(K / 128)] as for one GEMM.
// masked      A [G, Mmax, K] and C [G, Mmax, N] have rank-3 maps too;
//             groupRows is an int32[G] on the device (DeepGEMM's masked_m),
//             the valid rows of each group, read by the kernel: the launch
//             needs no host knowledge of them (CUDA-graph capturable).
//             Without `persistent` the grid is (ceil(Mmax / BM), ceil(N /
//             BN), G) and CTA z is group z; with it the CTAs walk the G x
//             tilesM x tilesN tiles (group outermost, the grouped order
//             inside a group). A tile whose first row is at or past its
//             group's count is skipped; the epilogue writes rows below the
//             count only (direct stores for a partial block). SFA is
//             f32[G, Mmax, ceil(K / 128)].
//
// Kernel parameters (after the block scales):
//   .param .u32 groups        G
//   .param .u64 groupIndex    contiguous: int32[M]
//   .param .u64 groupRows     masked: int32[G]
// rowsA is M (contiguous) or Mmax (masked); C's direct stores of a masked
// kernel go to C + g * Mmax * ldc. beta must be 0 (the launcher refuses
// another): the C-load barrier's phase counts every tile, and a skipped
// tile loads nothing.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM90GROUP_H
#define TILEC_CODEGEN_SM90GROUP_H

#include "ir/tile/GemmSpec.h"

#include "llvm/IR/IRBuilder.h"

#include <string>

namespace tilec {

/// `--emit=lowered`: how the kernel of \p spec walks its groups (the
/// `applied` attribute of tile.group); "" without a group.
std::string describeGroupedGemm(const GemmSpec &spec);

/// What the group lookup of one tile reads.
struct Sm90GroupValues {
  llvm::Value *groups = nullptr;     ///< G (i32)
  llvm::Value *groupIndex = nullptr; ///< contiguous: int32[M] (global)
  llvm::Value *groupRows = nullptr;  ///< masked: int32[G] (global)
  llvm::Value *rowsA = nullptr;      ///< M, or Mmax (i32)
};

/// The group of one output tile.
struct Sm90TileGroup {
  llvm::Value *group = nullptr; ///< i32 in [0, G) (0 for a skipped tile)
  llvm::Value *valid = nullptr; ///< i1: the tile is computed
  /// i32: the tile's rows below this bound are the group's (masked: the
  /// group's count, at most Mmax; contiguous: M, until the consumer
  /// narrows it with emitSm90GroupRowEnd).
  llvm::Value *rowEnd = nullptr;
};

/// Looks up the group of the tile at row \p m0: contiguous reads
/// groupIndex[m0]; masked takes \p group (the tile's group, from the grid or
/// the persistent walk) and reads groupRows[group].
Sm90TileGroup emitSm90TileGroup(llvm::IRBuilder<> &b, const GroupSpec &spec,
                                const Sm90GroupValues &values,
                                llvm::Value *m0, llvm::Value *group);

/// Contiguous: which rows of the \p bm-row block at \p m0 the epilogue
/// of consumer thread \p tid (warpgroup \p consumer) writes. The group's
/// rows are a prefix of the block, so
///   full   (uniform) the block's last row inside C is the group's: every
///          row is, the TMA store may write the whole box;
///   bound  (per thread) a bound that keeps exactly the thread's own rows
///          of the group: the thread holds rows r and r + 8 (r = m0 + 64
///          consumer + 16 warp + lane / 4, docs/layout-facts.md#
///          accumulator-ownership), and bound is M when r + 8 is the
///          group's, r + 8 when only r is, else r.
/// No warp collectives: each thread reads its own rows' indices.
struct Sm90GroupRows {
  llvm::Value *bound = nullptr, *full = nullptr;
};
Sm90GroupRows emitSm90GroupRows(llvm::IRBuilder<> &b,
                                const Sm90GroupValues &values,
                                llvm::Value *m0, llvm::Value *group,
                                llvm::Value *tid, llvm::Value *consumer,
                                unsigned bm);

/// The block scales of group \p group: \p sfa and \p sfb advanced to the
/// group's slice (SFA only when masked), for a problem of \p rowsA (M or
/// Mmax) x \p n x \p k with \p spec's blocks.
std::pair<llvm::Value *, llvm::Value *>
emitSm90GroupScales(llvm::IRBuilder<> &b, const GroupSpec &group,
                    const BlockScaleSpec &spec, llvm::Value *sfa,
                    llvm::Value *sfb, llvm::Value *groupIndex,
                    llvm::Value *rowsA, llvm::Value *n, llvm::Value *k);

struct Sm90EpilogueValues;

/// A grouped tile's epilogue values (codegen/Sm90Epilogue.h): rows below
/// \p rowEnd only (the direct stores' bound; the TMA store only when every
/// row of the tile inside C is the group's: \p full, or when null, rowEnd
/// past the tile of \p bm rows), and a masked group \p groupIndex's C:
/// the rank-3 map's third coordinate, C + g * Mmax * ldc for the direct
/// stores of \p cType elements.
void applySm90GroupEpilogue(llvm::IRBuilder<> &b, const GroupSpec &group,
                            unsigned bm, DTypeKind cType,
                            Sm90EpilogueValues &values, llvm::Value *rowEnd,
                            llvm::Value *full, llvm::Value *groupIndex);

} // namespace tilec

#endif // TILEC_CODEGEN_SM90GROUP_H
