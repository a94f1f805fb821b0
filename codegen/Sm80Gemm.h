//===- codegen/Sm80Gemm.h - The sm_80 GEMM generator's pieces ----*- C++
//-*-===//
//
// Internal to codegen/: the plan (everything derived from the GemmSpec before
// any IR is built: resolved smem layouts, warp tile, copy and fragment
// shapes, shared-memory budget) and the kernel-wide values the mainloop
// (Sm80Mainloop.cpp) and the epilogue (Sm80Epilogue.cpp) share.
//
// The kernel, per CTA of blockThreads threads (warpsM x warpsN warps):
//   - a multi-stage cp.async pipeline (16-byte vectors, zero fill past M, N,
//     K) fills `stages` smem buffers of A (bm x bk) and B (bn x bk) laid out
//     by the spec's swizzled layouts;
//   - each warp ldmatrix-loads (.trans for MN-major operands) its
//     (bm/warpsM) x (bn/warpsN) piece and issues mma.sync m16n8k16 with f32
//     accumulators;
//   - the epilogue stages the f32 accumulators in shared memory (reusing the
//     drained pipeline's buffers), then a runtime loop copies 4-element
//     vectors of C lines to global memory, scaling by alpha/beta, with
//     coalesced vector stores and a per-element path on the ragged edges.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM80GEMM_H
#define TILEC_CODEGEN_SM80GEMM_H

#include "codegen/GemmCodegen.h"
#include "codegen/NvvmBuilder.h"
#include "codegen/PtxEmitter.h"
#include "codegen/Sm80WeightDequant.h"
#include "codegen/SmemAddress.h"
#include "codegen/SourceLineInfo.h"

#include "llvm/IR/Module.h"

#include <memory>
#include <optional>
#include <vector>

namespace tilec {

/// One operand's global -> smem copy and fragment geometry.
struct Sm80OperandPlan {
  ComposedLayout layout; ///< (mnExtent, bk) -> element offset.
  SmemAddress smem;
  bool kMajor;            ///< K contiguous in global memory.
  unsigned mnExtent;      ///< bm for A, bn for B.
  unsigned warpExtent;    ///< Extent of one warp's piece along mn.
  unsigned warpsAlong;    ///< Warps along mn (warpsM for A, warpsN for B).
  unsigned vectorsPerRow; ///< 16-byte vectors along the contiguous extent.
  unsigned copiesPerThread;
  unsigned stageElems; ///< One stage, rounded up to 128 bytes.
};

/// The epilogue's f32 staging tile in shared memory. Pass p stages m16 tiles
/// [p * tilesPerPass, (p + 1) * tilesPerPass) of every warp: staged row
/// s = warpM * 16 * tilesPerPass + r holds CTA tile row
/// warpM * warpExtentM + 16 * p * tilesPerPass + r (0 <= r < 16 *
/// tilesPerPass); staged column = CTA tile column. One pass (staged row =
/// tile row) unless the whole tile would not fit in shared memory.
struct Sm80StagingPlan {
  SmemAddress smem; ///< sm80StagingLayout: (rows, bn) -> f32 offset.
  unsigned passes = 1;
  unsigned tilesPerPass = 0; ///< m16 tiles of each warp per pass.
  unsigned rows = 0;         ///< Staged rows per pass.
  unsigned bytes = 0;        ///< Shared memory the staging tile spans.
};

/// The padded staging layout of a \p rows x \p bn f32 tile. N-contiguous C
/// (\p nContiguous): (rows, bn):(bn + 8, 1); M-contiguous C: (rows, bn):(1,
/// rows + 4). Both keep the copy loop's 16-byte vectors contiguous and make
/// the accumulator stores bank-conflict free (see Sm80Gemm.cpp).
///
/// Example: rows = 128, bn = 128, N-contiguous: (128,128):(136,1), offset of
/// (1, 2) = 138; M-contiguous: (128,128):(1,132), offset of (1, 2) = 265.
ComposedLayout sm80StagingLayout(unsigned rows, unsigned bn, bool nContiguous);

/// The size of the epilogue's staging: for a CTA tile of \p warpsM warps down
/// M with \p mmaTilesM m16 tiles each and \p bn columns, the fewest passes
/// (m16 tiles per pass dividing mmaTilesM) whose sm80StagingLayout fits
/// sm_80's shared memory, its staged rows and bytes; std::nullopt when not
/// even one m16 tile per warp fits.
///
/// Example: warpsM = 2, mmaTilesM = 4, bn = 128, N-contiguous: 1 pass of 128
/// rows, (128,128):(136,1), 69600 bytes.
struct Sm80StagingSize {
  unsigned passes, rows, bytes;
};
std::optional<Sm80StagingSize> sm80StagingSize(unsigned warpsM,
                                               unsigned mmaTilesM, unsigned bn,
                                               bool nContiguous);

/// Everything the sm_80 generator decides before building IR.
struct Sm80GemmPlan {
  GemmSpec spec;
  /// B's geometry; for a 4-bit weight only its warp split (kMajor,
  /// mnExtent, warpsAlong, warpExtent) and stageElems = 0: `weight` holds
  /// its stages.
  Sm80OperandPlan a, b;
  /// A 4-bit weight's stages (spec.weightQuant); std::nullopt otherwise.
  std::optional<Sm80WeightPlan> weight;
  unsigned mmaTilesM, mmaTilesN; ///< m16 and n8 tiles per warp.
  unsigned kSteps;               ///< k16 steps per stage.
  /// Load step 0 of tile kt + 1 before the last mma step of tile kt (one
  /// barrier per tile either way). On the H200 this gained 1-3% with 4 k16
  /// steps per tile (bk = 64) and lost 5-14% with 2 (bk = 32, more registers
  /// live across the barrier), so it is on for kSteps >= 4.
  bool prefetchAcrossTiles = false;
  Sm80StagingPlan staging;
  /// How hard LLVM works on the kernel: Light for 33 to 64 accumulators per
  /// thread (the default 128x128 tiles), where ptxas needs more than 128
  /// registers under either profile, so the Light profile's few extra ones
  /// cost no occupancy. With 128 accumulators ptxas spilled in the k loop
  /// from the Light profile's O0 PTX (128x256x64: 188 bytes); with 32 or
  /// fewer its extra registers cost CTAs per SM (64x64x64: 80 -> 94
  /// registers, 3 -> 2 CTAs). Both keep the Full profile.
  PtxOptProfileKind profile = PtxOptProfileKind::Full;
  /// With split_k: the shared word of the split-K arrival's flag, past
  /// the buffers and the staging tile.
  unsigned splitFlagByte = 0;
  /// max(pipeline buffers, staging tile) (+ the split-K flag): the staging
  /// reuses the buffers.
  unsigned sharedBytes;
};

/// Checks \p spec and derives the plan; errors name the field and what is
/// legal.
llvm::Expected<Sm80GemmPlan> planSm80Gemm(const GemmSpec &spec);

/// The kernel's parameters, in order.
std::vector<KernelParam> sm80GemmParams(const GemmSpec &spec);

/// Builds the kernel into a fresh module of \p context.
llvm::Expected<std::unique_ptr<llvm::Module>>
buildSm80GemmModule(const Sm80GemmPlan &plan, llvm::LLVMContext &context);

/// Values of the kernel that the mainloop and the epilogue share.
struct Sm80Kernel {
  Sm80Kernel(const Sm80GemmPlan &plan, NvvmBuilder &nv, llvm::Function *fn)
      : plan(plan), nv(nv), fn(fn) {}
  const Sm80GemmPlan &plan;
  NvvmBuilder &nv;
  llvm::Function *fn;
  llvm::Value *a = nullptr, *b = nullptr, *c = nullptr; ///< Global pointers.
  llvm::Value *m = nullptr, *n = nullptr, *k = nullptr; ///< i32 problem size.
  llvm::Value *lda = nullptr, *ldb = nullptr,
              *ldc = nullptr; ///< i32 leading dimensions.
  /// A 4-bit weight's group scales and zero points (null: none).
  llvm::Value *sb = nullptr, *zb = nullptr;
  /// The k-tiles this CTA runs: [kTileBegin, kTileBegin + kTiles), copies
  /// zero-filled from kLimit (min(K, the split's end)); i32. Without
  /// split_k the first two are null (all of ceil(K / bk)) and kLimit is K.
  llvm::Value *kTileBegin = nullptr, *kTiles = nullptr, *kLimit = nullptr;
  /// split_k: the split z, the output tile's id (< tiles), the f32
  /// workspace and the u32 tile counters (codegen/Sm80SplitReduce.cpp).
  llvm::Value *splitZ = nullptr, *tileId = nullptr, *workspace = nullptr,
              *counters = nullptr;
  llvm::Value *alpha = nullptr, *beta = nullptr; ///< f32 or null.
  llvm::Value *tid = nullptr, *lane = nullptr, *warpM = nullptr,
              *warpN = nullptr;             ///< i32.
  llvm::Value *m0 = nullptr, *n0 = nullptr; ///< i32 CTA tile origin.
  llvm::Value *smem = nullptr; ///< Dynamic smem base (addrspace 3).
  /// Accumulators after the mainloop: ((i * mmaTilesN + j) * 4 + r).
  std::vector<llvm::Value *> acc;
  /// PTX line directives (--lineinfo); null: none.
  SourceLineInfo *lines = nullptr;

  /// Instructions from now on come from \p part's .tile line.
  void at(KernelPart part) {
    if (lines)
      lines->at(part);
  }
};

/// The k-tile in K of the CTA's k-tile \p kt (kTileBegin + kt).
llvm::Value *sm80KTileInK(Sm80Kernel &kernel, llvm::Value *kt);

/// Emits the cp.async pipeline and the ldmatrix + mma loop; fills kernel.acc.
void emitSm80Mainloop(Sm80Kernel &kernel);

/// split_k: stores this CTA's partial, and in the tile's last CTA sums the
/// partials into kernel.acc; the others branch to \p exit.
void emitSm80SplitReduce(Sm80Kernel &kernel, llvm::BasicBlock *exit);

/// Stages kernel.acc in shared memory and copies it to C with alpha/beta
/// scaling and predicated stores; leaves the builder in the block after the
/// stores. Expects every cp.async of the mainloop to have landed.
void emitSm80Epilogue(Sm80Kernel &kernel);

struct LibraryGemmProblem;
struct LibraryGemmItems;

/// The items of a library caller's sm_80 program (GemmTarget::libraryItems,
/// codegen/Sm80LibraryItems.cpp).
LibraryGemmItems sm80LibraryItems(const LibraryGemmProblem &problem);

} // namespace tilec

#endif // TILEC_CODEGEN_SM80GEMM_H
