//===- compiler/passes/KernelView.h - Typed facts of one kernel --*- C++
//-*-===//
//
// Passes read a tile.kernel through a KernelView: the target, the operand
// types and majorness, the tile and the stages as C++ values instead of
// attribute lookups. Building one fails (without reporting) when the kernel
// is not valid IR; the pass then says to run `verify`.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_PASSES_KERNELVIEW_H
#define TILEC_COMPILER_PASSES_KERNELVIEW_H

#include "compiler/Diagnostics.h"
#include "ir/arch/Arch.h"
#include "ir/arch/DType.h"
#include "ir/tile/GemmSpec.h"
#include "ir/tile/TileIR.h"

#include <optional>
#include <vector>

namespace tilec {

/// Typed facts of one valid tile.kernel.
struct KernelView {
  tir::Op *kernel = nullptr;
  ArchKind arch = ArchKind::SM80;
  DTypeKind aType{}, bType{}, cType{}, accType{};
  MajorKind aMajor = MajorKind::K, bMajor = MajorKind::K;
  bool cRowMajor = true; ///< c major(N).
  int64_t bm = 0, bn = 0, bk = 0, stages = 0;
  /// Problem extents the operand shapes fix (`a : f16[32, K]`: M = 32), or
  /// std::nullopt where the extent is a run-time argument.
  std::optional<int64_t> fixedM, fixedN, fixedK;
  /// The batch of a batched kernel (c : T[B, M, N]), else std::nullopt.
  std::optional<BatchSpec> batch;
  /// The grouping of a grouped kernel (`group contiguous|masked`; the
  /// leading extent of b, and of a and c when masked, is the group count,
  /// not a batch), else std::nullopt.
  std::optional<GroupSpec> group;
  /// A quantized weight b's group scales (`scale b bf16 group(128)`), else
  /// std::nullopt.
  std::optional<WeightQuantSpec> weightQuant;

  /// The type the MMA reads for b: A's for a quantized weight (dequantized in
  /// registers), else b's.
  DTypeKind mmaBType() const { return weightQuant ? aType : bType; }
  /// The tile extent along the weight's N: BM where the target's kernel
  /// makes the weight the MMA's A (GemmTarget::weightIsMmaA, swapped),
  /// else BN.
  int64_t weightRows() const;

  /// The view of \p kernel, or std::nullopt if it does not verify.
  static std::optional<KernelView> get(tir::Op &kernel);
  /// Like get(), and reports "run verify" at the kernel when it fails.
  static std::optional<KernelView> getOrReport(tir::Op &kernel,
                                               DiagnosticEngine &diags,
                                               llvm::StringRef passName);

  DTypeKind operandType(char operand) const {
    return operand == 'a' ? aType : bType;
  }
  MajorKind operandMajor(char operand) const {
    return operand == 'a' ? aMajor : bMajor;
  }
  /// CTAs one MMA spans: 2 for an sm_100a kernel with `schedule
  /// cluster(2)` (tcgen05.mma.cta_group::2: BM and BN are the pair's tile,
  /// each CTA stages BM / 2 rows of a and BN / 2 rows of b), else 1.
  int64_t ctaGroup = 1;
  /// The tile extent along M (a) or N (b) that one CTA stages in shared
  /// memory: the tile's, divided by ctaGroup (with a quantized weight that is
  /// the MMA's A, always swapped: BN tokens of a, BM rows of b).
  int64_t mnExtent(char operand) const;
  /// The tile item of that extent: "bm" or "bn" (swapped like mnExtent).
  const char *mnTileKey(char operand) const;
  /// Its name in messages: "BM" or "BN".
  const char *mnTileName(char operand) const;

  /// What the kernel has decided so far as a GemmSpec, the form the target
  /// table (codegen/GemmTarget.h) reads: name, arch, types, majorness, fixed
  /// extents, tile and stages, and the schedule (tile.schedule's swap_ab,
  /// split_k) and epilogue (epilogueInto) where the kernel has them.
  GemmSpec spec() const;
};

/// The steps of a decided tile.epilogue (plan-pipeline has replaced `auto`)
/// as \p spec's storeTma and storeSwizzleBytes: `stmatrix [swizzle(X)] ->
/// tma_store` sets storeTma and X's bytes (none: 16; no option: 0), `store`
/// clears them.
void epilogueInto(const tir::Op &epilogue, GemmSpec &spec);

/// An epilogue op as written, and where (its text's location, or the
/// tile.epilogue op's).
struct WrittenEpilogueOp {
  EpilogueOp op;
  llvm::SMLoc loc;
};

/// The ops of \p kernel's tile.epilogue that parse, in order (verify
/// reports the ones that do not).
std::vector<WrittenEpilogueOp> writtenEpilogueOps(const tir::Op &kernel);

/// The location of attribute \p key of \p op, or the op's.
llvm::SMLoc attrLoc(const tir::Op &op, llvm::StringRef key);

} // namespace tilec

#endif // TILEC_COMPILER_PASSES_KERNELVIEW_H
