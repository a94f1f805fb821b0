//===- codegen/GemmCombinationRules.h - Feature combinations -*- C++ -*-===//
//
// The rules on which features a GEMM kernel may combine (a schedule on a
// target without it, a batch beside split-K, a group beside swap-AB, a
// quantized weight beside block scales, ...), written once with their
// messages. Two readers:
//   - the verify passes (compiler/passes/Verify*.cpp) read the facts from
//     the Tile IR and report each broken rule at the `.tile` item it names
//     (GemmCombinationItem);
//   - codegen (checkGemmSpec, emitGemm) reads them from a GemmSpec built in
//     C++, which no verify pass saw, and refuses the first.
// A `.tile` program that breaks a rule never reaches codegen, so a
// program's diagnostics come from here exactly once.
//
// The rules come in families, each asked where its verify pass asks it so
// that a program's diagnostics keep their order: the decode schedules and
// the persistent schedule (Verify.cpp), the batch (VerifyBatch.cpp), the
// group (VerifyGroup.cpp), the quantized weight (VerifyWeightQuant.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_GEMMCOMBINATIONRULES_H
#define TILEC_CODEGEN_GEMMCOMBINATIONRULES_H

#include "ir/arch/Arch.h"
#include "ir/arch/DType.h"
#include "ir/tile/GemmSpec.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// What a kernel combines. Values are as written (a split_k(0) stays 0);
/// what the reader does not know stays unset and its rules are skipped.
struct GemmCombination {
  std::optional<ArchKind> arch;
  bool swapAB = false;
  int64_t splitK = 1;     ///< split_k(S)
  int64_t persistent = 0; ///< persistent(G): tile rows per group, 0 none
  int64_t clusterM = 1;   ///< cluster(N)
  int64_t clusterN = 1;   ///< cluster_n(N)
  bool batched = false;
  bool grouped = false;
  /// The operand of the first `scale X ... block(..)` line as written, if
  /// any.
  std::optional<std::string> blockScale;
  bool weightQuant = false;
  /// The operands' types and majorness (the verify pass knows them once
  /// the kernel's view is built).
  std::optional<DTypeKind> aType, bType;
  std::optional<MajorKind> aMajor, bMajor;
  std::vector<EpilogueOp> epilogueOps;
};

/// The `.tile` item a broken rule is reported at.
enum class GemmCombinationItem {
  Schedule,         ///< the schedule line
  ScheduleSwapAB,   ///< its swap_ab
  ScheduleSplitK,   ///< its split_k(S)
  SchedulePersist,  ///< its persistent(G)
  ScheduleClusterM, ///< its cluster(N)
  Batch,            ///< the batch extent
  Group,            ///< the group line
  GroupBatch,       ///< a batch beside a group (the verify pass reports
                    ///< it as the operands' shapes, VerifyGroup.cpp)
  MajorA,           ///< operand a's major(..)
  MajorB,           ///< operand b's major(..)
  TypeA,            ///< operand a's type
  WeightType,       ///< the quantized weight b's type
  Weight,           ///< the quantized weight b's line
  BlockScale,       ///< the `scale X ... block(..)` line
  EpilogueOp,       ///< epilogue op number opIndex
  TileBM,           ///< the tile's BM
  TileBN,           ///< the tile's BN
  TileBK,           ///< the tile's BK
  ScheduleClusterN, ///< the schedule's cluster_n(N)
};

/// A rule \p item breaks, with its message.
struct GemmCombinationBreak {
  GemmCombinationItem item;
  std::string message;
  size_t opIndex = 0; ///< With EpilogueOp: the op's index in epilogueOps.
};

/// swap_ab and split_k on a target without them.
std::vector<GemmCombinationBreak>
decodeScheduleBreaks(const GemmCombination &facts);
/// persistent and cluster(N) on a target without them.
std::vector<GemmCombinationBreak>
persistentScheduleBreaks(const GemmCombination &facts);
/// A batch on a target without it, or beside what shares grid z, the tile
/// walk or one GEMM's operands with it.
std::vector<GemmCombinationBreak> batchBreaks(const GemmCombination &facts);
/// A group on a target without it, or beside what the grouped kernel does
/// not take.
std::vector<GemmCombinationBreak> groupBreaks(const GemmCombination &facts);
/// A quantized weight on a target that does not dequantize, or beside
/// what its kernel does not take.
std::vector<GemmCombinationBreak>
weightQuantBreaks(const GemmCombination &facts);

/// A quantized weight's tile: \p rows weight rows per CTA, named
/// \p rowsName ("BN" where the weight is the MMA's B, "BM" under a swap),
/// BK, the code width and the scales' group (0: not known yet).
struct WeightTileFacts {
  unsigned bits = 4;
  int64_t rows = 0;
  llvm::StringRef rowsName = "BN";
  int64_t bk = 0;
  int64_t group = 0;
};
/// The weight rows that are not whole packed blocks of 16 channels.
std::vector<GemmCombinationBreak>
weightRowsBreaks(const WeightTileFacts &facts);
/// A BK that is not whole packed blocks of K, or that does not nest with
/// the group.
std::vector<GemmCombinationBreak> weightKBreaks(const WeightTileFacts &facts);

/// What a kernel that makes the quantized weight its MMA's A operand
/// (GemmTarget::weightIsMmaA: sm_90a's RS wgmma) has: its tile, and the
/// schedule as far as it is decided (\p swapAB unset while `schedule auto`
/// leaves it to the compiler, which then swaps).
struct WeightAsMmaAFacts {
  ArchKind arch = ArchKind::SM90a;
  int64_t bm = 0, bk = 0;
  std::optional<bool> swapAB;
  int64_t clusterM = 1, clusterN = 1;
};
/// BM not one of the row's weightRowTiles, BK not its weightBk, A and B not
/// swapped, a thread-block cluster.
std::vector<GemmCombinationBreak>
weightAsMmaABreaks(const WeightAsMmaAFacts &facts);

/// What \p spec combines.
GemmCombination combinationOf(const GemmSpec &spec);

/// The first rule of any family \p spec breaks, as an error.
llvm::Error checkGemmCombination(const GemmSpec &spec);

} // namespace tilec

#endif // TILEC_CODEGEN_GEMMCOMBINATIONRULES_H
