//===- codegen/Sm90BlockScale.h - Block-scaled fp8 promotion on sm_90a -*- C++
//-*-===//
//
// DeepGEMM-style block scaling (ir/tile/GemmSpec.h, BlockScaleSpec) in the sm_90a
// kernel of codegen/Sm90Gemm.h. Per ring slot (BK = 128 = one scale block of
// K) each consumer warpgroup runs its wgmmas into a fresh zero accumulator,
// waits for them, and promotes the partial sum into the f32 main
// accumulator:
//   main[i] = fma(SFA[row(i), kb] * SFB[col(i) / 128, kb], part[i], main[i])
// The tensor core sums fp8 products with about 14 mantissa bits
// (docs/layout-facts.md#fp8-accumulation); promoting every 128 of K keeps
// that error to one block's worth and does the long sum in f32. Where the
// registers allow (sm90OverlapsPromotion) two fresh accumulators take
// turns and block k's promotion runs under block k + 1's wgmmas
// (codegen/Sm90PromotionOverlap.cpp).
//
// Which scales a thread needs follows from the wgmma accumulator layout
// (docs/layout-facts.md#accumulator-ownership): register 4 j + 2 h + e of
// thread (warp w, lane l) of a warpgroup holds row 16 w + l / 4 + 8 h and
// column 8 j + 2 (l % 4) + e. So a thread needs two A scales per K block
// (rows r and r + 8), and one B scale per 8-column chunk j. A chunk never
// straddles a 128-column scale block (BN and n0 are multiples of 8), so the
// chunk's B scale is SFB[(n0 + 8 j) / 128, kb]. Where 128 % BN == 0 that is
// one scale per tile; where BN % 128 == 0 the chunk's slot (8 j) / 128 is
// known at compile time; otherwise (BN = 96, 160, 192: two scale blocks meet
// in some tiles, at a place that depends on the tile) the slot
// ((n0 % 128) + 8 j) / 128 is computed at run time and selects among the
// scales loaded for the tile (at most sm90BlockScaleSlots(BN) of them).
//
// The scales are read by the consumers with plain global loads one K block
// ahead: the kernel (codegen/Sm90Gemm.cpp) loads the first block's before
// its K loop and each iteration the next block's, carried in registers
// (Sm90BlockScales::values), so a load's latency hides under a whole K
// block of wgmmas and promotion; at the decode shapes, where a K block's
// wgmmas are short, the load issued at the top of its own K step stood
// exposed. Where sm90StagesBlockScales (the BM 64 tiles) the scales come
// through the ring instead: the producer's warp 2 copies a K block's BM
// A scales and its B scales into the slot's scale area with cp.async
// (emitSm90ScaleStageFill), the slot's full barrier waits for them, and
// each consumer thread reads its two A scales and the B scales from
// shared memory (readStaged), no address or prefetched scale held in
// registers. (DeepGEMM TMA-loads SFA per stage in a transposed layout;
// tilec's SFA is K-major, whose column of BM scales is not a TMA box.) With BM
// = 256 (two 64-row blocks per consumer warpgroup) each row block has its own
// Sm90BlockScale. SFA rows past M and SFB rows past ceil(N / 128) are clamped
// to the last row: their products land in C elements the epilogue never stores.
//
// Swap-AB (C^T = B * A^T): the wgmma rows are N (B's rows) and its columns
// M, so accumulator (row r, column c) of K block kb takes SFA[c, kb] *
// SFB[r / 128, kb]. A consumer warpgroup's 64 rows start on a multiple of 64
// and so lie in one 128-row block: one B scale per warpgroup and K block.
// The A scale follows the column: a thread's BN / 4 columns 8 j + 2 (l % 4)
// + e. Rather than BN / 4 strided loads per thread, each lane loads the
// scales of columns 32 i + l (ceil(BN / 32) loads, one row of SFA each) and
// the thread takes its columns' scales from the lanes holding them
// (shfl.sync.idx, lane 8 (j % 4) + 2 (l % 4) + e of load j / 4). The
// promotion is the same two roundings as without swap: fma(SFA * SFB,
// part, main).
//
// Kernel parameters (appended after the epilogue ops' pointers):
//   .param .u64 sfa   f32[M, ceil(K / 128)], row-major (major(M):
//                     f32[ceil(K / 128), M])
//   .param .u64 sfb   f32[ceil(N / 128), ceil(K / 128)], row-major
// in the user's M and N under swap-AB too: the launcher passes them by name
// (host/GemmLauncher.cpp), whichever operand takes the wgmma A role.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM90BLOCKSCALE_H
#define TILEC_CODEGEN_SM90BLOCKSCALE_H

#include "ir/tile/GemmSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"

#include <string>
#include <vector>

namespace tilec {

/// How many SFB rows one BN-wide tile can touch: bn / 128 when 128 divides
/// BN, 1 when BN divides 128, else one more than the worst-placed tile
/// needs. Examples: 128 -> 1, 64 -> 1, 256 -> 2, 96 -> 2, 192 -> 2, 240 -> 3.
unsigned sm90BlockScaleSlots(unsigned bn);

/// `--emit=lowered`: how the kernel of \p spec applies its block scales
/// (the `promote` attribute of tile.scale), \p overlapped when each K
/// block's promotion overlaps the next block's wgmmas
/// (sm90OverlapsPromotion), \p staged when the scales come through the
/// ring (sm90StagesBlockScales); "" without scales.
std::string describeBlockScalePromotion(const GemmSpec &spec, bool overlapped,
                                        bool staged);

/// What the promotion reads, for one consumer warpgroup and output tile.
struct Sm90BlockScaleValues {
  llvm::Value *sfa = nullptr, *sfb = nullptr; ///< global f32 pointers
  llvm::Value *tid = nullptr;                 ///< threadIdx.x
  llvm::Value *consumer = nullptr;            ///< consumer warpgroup (0 or 1)
  llvm::Value *m0 = nullptr, *n0 = nullptr;   ///< the tile's first row, column
  llvm::Value *m = nullptr, *n = nullptr, *k = nullptr; ///< problem extents
};

/// The scales of one K block, loaded by one thread.
struct Sm90BlockScales {
  llvm::Value *a[2] = {nullptr, nullptr}; ///< rows r and r + 8
  llvm::SmallVector<llvm::Value *, 4> b;  ///< per slot (sm90BlockScaleSlots)
  /// Swap-AB: SFA of columns n0 + 32 i + lane (b then holds the one B
  /// scale of the warpgroup's rows, a is unused).
  llvm::SmallVector<llvm::Value *, 4> aLanes;

  /// Every value above in one list (a, b, aLanes), e.g. to carry them
  /// through phis; withValues puts such a list back in place.
  llvm::SmallVector<llvm::Value *> values() const;
  Sm90BlockScales withValues(llvm::ArrayRef<llvm::Value *> values) const;
};

/// Emits the scale loads and the promotion of one consumer warpgroup.
class Sm90BlockScale {
public:
  /// Computes the tile's row and column indices at the insertion point.
  /// Under \p swapAB the wgmma rows (values.m0, values.m) are the user's N
  /// and its columns (values.n0, values.n) the user's M; sfa and sfb keep
  /// the user's meaning.
  Sm90BlockScale(llvm::IRBuilder<> &b, const BlockScaleSpec &spec, unsigned bn,
                 bool swapAB, const Sm90BlockScaleValues &values);

  /// Loads the scales of K block \p kb (an i32 index into ceil(K / 128)).
  Sm90BlockScales load(llvm::Value *kb);

  /// Reads this thread's scales of a K block from the scale area at
  /// shared address \p slotBase of a tile \p bm rows high
  /// (sm90StagesBlockScales, filled by emitSm90ScaleStageFill).
  Sm90BlockScales readStaged(llvm::Value *slotBase, unsigned bm);

  /// main[i] + scaleA(row(i)) * scaleB(chunk(i)) * part[i], one fma per
  /// register: the promotion of one K block's partial sums \p pending, the
  /// registers of wgmmas committed but not waited for: it emits
  /// wgmma.wait_group \p younger (under swap-AB after the shuffles and
  /// products of the scales, which so overlap the wgmmas): 0, or 1 where
  /// the next block's group was committed after \p pending's
  /// (sm90OverlapsPromotion). \p pending may cover only the 8-column
  /// chunks from \p firstChunk on (a tile promoted in halves,
  /// sm90PromotionN): those registers of main change, the others pass.
  /// \p waited, if given, receives \p pending's values after the wait (a
  /// later block's wgmmas may take them as their dead inputs); \p
  /// afterWait, if given, is emitted between the wait and the products
  /// (the consumers free the ring slot there).
  llvm::SmallVector<llvm::Value *>
  promote(llvm::ArrayRef<llvm::Value *> main,
          llvm::ArrayRef<llvm::Value *> pending, const Sm90BlockScales &scales,
          unsigned firstChunk = 0, unsigned younger = 0,
          llvm::SmallVectorImpl<llvm::Value *> *waited = nullptr,
          llvm::function_ref<void()> afterWait = {});

private:
  llvm::Value *loadF32(llvm::Value *base, llvm::Value *index);
  /// SFA's element offset of row \p row (i32) and of K block \p kb64
  /// (i64): row * ceil(K / 128) and kb, or with major(M) row and kb * M.
  llvm::Value *sfaRowOffset(llvm::Value *row);
  llvm::Value *sfaBlockOffset(llvm::Value *kb64);
  void initSwapped();
  Sm90BlockScales loadSwapped(llvm::Value *kb64);
  llvm::SmallVector<llvm::Value *> promoteSwapped(
      llvm::ArrayRef<llvm::Value *> main, llvm::ArrayRef<llvm::Value *> pending,
      const Sm90BlockScales &scales, unsigned firstChunk, unsigned younger);

  llvm::IRBuilder<> &b;
  BlockScaleSpec spec;
  unsigned bn;
  unsigned slots;
  Sm90BlockScaleValues v;
  llvm::Value *kBlocks = nullptr;            ///< ceil(K / 128), i64
  llvm::Value *rowA[2] = {nullptr, nullptr}; ///< clamped SFA rows, i64
  llvm::Value *tileRow = nullptr;    ///< row r in the tile (staged scales)
  llvm::Value *rowB0 = nullptr;      ///< n0 / 128, i32
  llvm::Value *lastRowB = nullptr;   ///< ceil(N / 128) - 1, i32
  llvm::Value *colInBlock = nullptr; ///< n0 % 128 (runtime slots only)
  bool swapAB = false;
  llvm::SmallVector<llvm::Value *, 4> colA; ///< swap-AB: SFA row offsets, i64
  llvm::Value *rowB = nullptr;              ///< swap-AB: SFB row offset, i64
  llvm::Value *srcLane[2] = {nullptr, nullptr}; ///< swap-AB: 2 (l % 4) + e
};

/// The producer's side of sm90StagesBlockScales: the 32 lanes of one warp
/// (\p lane) copy K block \p kb's scales of the tile at (values.m0,
/// values.n0) into the scale area at shared address \p slotBase with
/// 4-byte cp.async: SFA of tile rows 0 .. \p bm - 1 at 4 row (rows past M
/// clamped to the last, as the global loads do), then the B scales of
/// sm90BlockScaleSlots(\p bn) SFB rows from n0 / 128 (clamped) at 4 (bm +
/// slot); each lane then arrives on \p full with
/// cp.async.mbarrier.arrive.noinc, so the barrier's phase completes only
/// once every copy has landed.
void emitSm90ScaleStageFill(llvm::IRBuilder<> &b, const BlockScaleSpec &spec,
                            unsigned bm, unsigned bn,
                            const Sm90BlockScaleValues &values,
                            llvm::Value *lane, llvm::Value *kb,
                            llvm::Value *slotBase, llvm::Value *full);

/// The block scales of one consumer warpgroup's row blocks (one
/// Sm90BlockScale each; two at BM = 256), loaded one K block ahead through
/// the K loop: the first block's before the loop when the CTA has K blocks
/// (loadFirst), carried in phis (enterLoop, closeLoop), and each iteration
/// the next block's (current, loadNext), so a load's latency hides under a
/// whole K block of wgmmas and promotion. With \p staged scales
/// (sm90StagesBlockScales) nothing is loaded ahead: loadFirst, enterLoop,
/// loadNext and closeLoop do nothing and readStaged reads a ring slot's.
class Sm90ScalesAhead {
public:
  Sm90ScalesAhead(std::vector<Sm90BlockScale> scalers, bool staged)
      : scalers(std::move(scalers)), staged(staged) {}

  bool isStaged() const { return staged; }
  /// Staged: the scales of the K block in the ring slot whose scale area
  /// is at \p slotBase, one per row block.
  std::vector<Sm90BlockScales> readStaged(llvm::Value *slotBase, unsigned bm);

  /// Row block \p j's scaler (its promote).
  Sm90BlockScale &scaler(unsigned j) { return scalers[j]; }

  /// Before the K loop: when \p count > 0 (an i32), loads K block
  /// \p first's scales in a block of their own; else poison.
  void loadFirst(llvm::IRBuilder<> &b, llvm::Value *first, llvm::Value *count);
  /// At the top of the loop head, \p pre its preheader: the phis.
  void enterLoop(llvm::IRBuilder<> &b, llvm::BasicBlock *pre);
  /// In the loop body: this K block's scales, one per row block.
  std::vector<Sm90BlockScales> current() const;
  /// In the loop body: loads K block \p kb's, for the next iteration.
  void loadNext(llvm::Value *kb) {
    if (!staged)
      next = loadAll(kb);
  }
  /// The scales loadNext loaded last, one per row block.
  std::vector<Sm90BlockScales> loaded() const { return shaped(next); }
  /// At the loop latch \p latch: the next iteration's phi values.
  void closeLoop(llvm::BasicBlock *latch);

private:
  llvm::SmallVector<llvm::Value *> loadAll(llvm::Value *kb);
  /// \p values (as loadAll returns them) one per row block.
  std::vector<Sm90BlockScales>
  shaped(llvm::ArrayRef<llvm::Value *> values) const;

  std::vector<Sm90BlockScale> scalers;
  bool staged = false;
  std::vector<Sm90BlockScales> shapes; ///< one per row block
  llvm::SmallVector<llvm::Value *> first, next;
  llvm::SmallVector<llvm::PHINode *> phis;
};

} // namespace tilec

#endif // TILEC_CODEGEN_SM90BLOCKSCALE_H
