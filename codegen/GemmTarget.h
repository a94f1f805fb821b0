//===- codegen/GemmTarget.h - One table of GEMM targets ----------*- C++
//-*-===//
//
// Everything that differs between the GEMM generators of sm_80, sm_90a and
// sm_100a sits behind one interface with one row per architecture
// (codegen/GemmTargets.def lists the rows). The compiler's passes, the code
// generator's entry points and the launcher ask the row of a kernel's arch
// instead of switching on ArchKind:
//
//   plan-pipeline  schedule(), autoEpilogue(), sharedMemory(), planWarps()
//   codegen        check(), emit(), emitLlvmIr()
//
// The launcher asks no row: a compiled kernel carries its grid rule
// (GemmKernelBinary::gridRule, set by the generator).
//
// A row reads the arch-neutral GemmSpec and turns it into its own config
// (Sm80GemmPlan, Sm90GemmConfig, Sm100GemmConfig) itself; nothing outside a
// row includes its generator's headers. Adding a target means a new
// generator, one class implementing this interface and one line in
// GemmTargets.def.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_GEMMTARGET_H
#define TILEC_CODEGEN_GEMMTARGET_H

#include "codegen/GemmCodegen.h"
#include "ir/arch/Arch.h"
#include "ir/tile/GemmSpec.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// What `schedule auto` (or a written schedule) becomes on a target, and why.
struct GemmScheduleChoice {
  bool swapAB = false;
  unsigned splitK = 1;
  std::string why;
};

/// What `epilogue auto` becomes: the store steps (each a list of words, as
/// the tile.epilogue op's "steps" attribute holds them) and why.
struct GemmEpilogueChoice {
  std::vector<std::vector<std::string>> steps;
  std::string why;
};

/// The dynamic shared memory a kernel needs, in the parts plan-pipeline's
/// messages name. total = stages * (stageBytes + perStageExtra) + staging +
/// fixed.
struct GemmSmemBudget {
  int64_t stageBytes = 0;    ///< One stage: a BM x BK tile of A, BN x BK of B.
  int64_t perStageExtra = 0; ///< Per stage beside the tiles (mbarriers).
  int64_t staging = 0;       ///< The epilogue's staging tiles.
  int64_t fixed = 0;         ///< Flags, barriers, alignment slack.
  int64_t total = 0;
};

/// The sm_80 warp arrangement and what it changes in the shared memory.
struct GemmWarpPlan {
  unsigned m = 0, n = 0;
  /// What the kernel requests when the epilogue's staging tile extends the
  /// stage buffers (0: the budget's total).
  int64_t sharedBytes = 0;
  std::string why;
};

/// What a kernel's items combine, as the verify pass reads them before
/// lowering (what it does not know yet keeps its default): the facts a
/// row's own rules on combinations read (GemmTarget::checkItems).
struct GemmItemFacts {
  bool swapAB = false;
  unsigned splitK = 1;
  unsigned clusterM = 1; ///< `cluster(N)`
  bool staged = false;   ///< `epilogue ... -> stmatrix -> tma_store`
  bool batched = false;
  unsigned bm = 0;       ///< 0: unknown
  unsigned ctaGroup = 1; ///< 2: a CTA pair (clusterIsCtaPair)
  std::optional<SwigluPairingKind> swiglu;
};

/// A rule of a row's generator that a kernel breaks: the item the verify
/// pass reports it at (the schedule line, its cluster attribute, the
/// epilogue's steps, the swiglu op) and the message.
struct GemmItemRule {
  enum Item { Schedule, ScheduleCluster, EpilogueSteps, Swiglu };
  Item item;
  std::string message;
};

/// A GEMM a library caller asks for without writing a tile (python's
/// tilec.gemm, the C API's tilec_gemm_program; compiler/GemmProgram.h
/// writes its program around the items the row chooses).
struct LibraryGemmProblem {
  DTypeKind type = DTypeKind::BF16;
  MajorKind aMajor = MajorKind::K, bMajor = MajorKind::K;
  int64_t m = 0, n = 0, k = 0;
  unsigned sms = 132; ///< The SMs the rules count.
  /// Block-scaled e4m3 (DeepGEMM's 1 x 128 / 128 x 128 f32 scales, bf16 C);
  /// with sfaMMajor its SFA is M-major.
  bool blockScaled = false;
  bool sfaMMajor = false;
  /// A quantized weight B of this code width (4 or 8; 0: none) against
  /// `type` activations, with scales per \p group K.
  unsigned weightBits = 0;
  unsigned group = 128;
  /// With a weight: the tile the caller fixed (the row writes the rest
  /// around it), else the rules'.
  struct Tile {
    unsigned bm = 0, bn = 0, bk = 0, stages = 0, splitK = 1;
  };
  std::optional<Tile> tile;
};

/// What a row's rules choose for a LibraryGemmProblem, as the program
/// writes it: the tile (BK in elements of the operand type), the stages,
/// and where the row writes them, the mma, schedule and epilogue items'
/// text after the keyword ("wgmma.m64n128k16 warpgroups(2)", "swap_ab
/// split_k(2)", "store"; empty: no such line). A weight program's name
/// carries nameTag ("sm90_") and splitK.
struct LibraryGemmItems {
  unsigned bm = 0, bn = 0, bk = 0, stages = 0;
  std::string mma;
  std::string schedule;
  std::string epilogue;
  std::string nameTag;
  unsigned splitK = 1;
};

class GemmTarget {
public:
  virtual ~GemmTarget() = default;

  virtual ArchKind arch() const = 0;

  // --- Planning (compiler/passes/PlanPipeline.cpp). The spec holds what the
  // passes decided so far: types, majorness, tile, stages, fixed extents
  // and, where already decided, the schedule and the epilogue steps.

  /// Whether the target implements swap-AB and split-K (`schedule`).
  virtual bool hasDecodeSchedules() const { return false; }
  /// Whether the target implements `schedule split_k(S)` (by default
  /// with the other decode schedules).
  virtual bool hasSplitK() const { return hasDecodeSchedules(); }
  /// Whether the target implements `schedule persistent` and
  /// `cluster(2)`.
  virtual bool hasPersistentSchedule() const { return false; }
  /// Whether the generator stages an MN-major operand tile K first (order
  /// (1, 0)), as TMA boxes fill it; `smem X = auto` then picks that layout.
  virtual bool stagesMnMajorKFirst() const { return false; }
  /// Where the epilogue ops of \p spec are applied, for --emit=lowered
  /// (describeEpiloguePlacement adds the split-K, swap-AB and swiglu notes).
  virtual std::string epiloguePlacement(const GemmSpec &spec) const = 0;
  /// Whether the target implements batched GEMM (a leading batch extent on
  /// the operands, GemmSpec::batch): the batch runs on grid z
  /// (GemmKernelBinary::grid), or in the persistent tile walk
  /// (batchWalksTiles).
  virtual bool hasBatch() const { return false; }
  /// Whether a batched kernel's persistent CTAs walk batch x tiles instead
  /// of running the batch on grid z (sm_100a): its grid counts batch x
  /// tiles, and the persistent and cluster(2) schedules stay legal.
  virtual bool batchWalksTiles() const { return false; }
  /// Whether the target implements grouped GEMM (`group contiguous|masked`,
  /// GemmSpec::group).
  virtual bool hasGroup() const { return false; }
  /// Whether the target dequantizes quantized weights (`b : u4[N, K]`,
  /// `e4m3`, ... with `scale b bf16 group(G)`, GemmSpec::weightQuant).
  virtual bool hasWeightQuant() const { return false; }
  /// Whether the quantized weight is the MMA's A operand, read from registers
  /// (sm_90a's RS wgmma): the kernel always swaps A and B, BM tiles the
  /// weight's N and BN the tokens; else the weight is the MMA's B and BN
  /// tiles it (sm_80).
  virtual bool weightIsMmaA() const { return false; }
  /// With weightIsMmaA: the one BK and the weight-row tiles (BM) the
  /// kernel takes.
  virtual unsigned weightBk() const { return 0; }
  virtual std::vector<unsigned> weightRowTiles() const { return {}; }
  /// Whether the target implements block-scaled GEMM (`scale a|b ...
  /// block(..)`, GemmSpec::blockScale).
  virtual bool hasBlockScale() const { return false; }
  /// Whether `cluster(2)` is a CTA pair sharing one MMA (sm_100a's
  /// tcgen05.mma.cta_group::2) rather than CTAs multicasting a tile.
  virtual bool clusterIsCtaPair() const { return false; }
  /// Whether the target implements `cluster(4)`: two CTA pairs
  /// multicasting B.
  virtual bool hasTwoPairClusters() const { return false; }
  /// Whether the target implements `cluster_n(2)`: 1x2 clusters whose
  /// CTAs take neighbouring tile columns and multicast the A tile.
  virtual bool hasColumnClusters() const { return false; }
  /// The tiles `tilec tune` tries when the program leaves them to it: BM
  /// and BN, and BK as bytes of the operand's element (64: BK 32 for
  /// bf16; 128: BK 64), the shapes the target's MMA takes well.
  struct TuneTiles {
    std::vector<unsigned> bm = {64, 128, 256}, bn = {64, 128, 256},
                          kBytes = {128};
  };
  virtual TuneTiles tuneTiles() const { return {}; }
  /// Whether the row chooses programs for library callers (libraryItems).
  virtual bool hasLibraryPrograms() const { return false; }
  /// The items of \p problem's program: a one-type GEMM, with
  /// problem.blockScaled (on a row with hasBlockScale) the block-scaled
  /// one, with problem.weightBits (on a row with hasWeightQuant) the
  /// quantized-weight one. Only asked of a row with hasLibraryPrograms.
  virtual LibraryGemmItems
  libraryItems(const LibraryGemmProblem &problem) const {
    (void)problem;
    return {};
  }
  /// The row's own rules on how a kernel's items combine (beyond the
  /// questions above), in the order the verify pass reports them.
  virtual std::vector<GemmItemRule>
  checkItems(const GemmItemFacts &facts) const {
    (void)facts;
    return {};
  }
  /// How a batched \p spec's batch maps onto the kernel, and why
  /// (`--emit=lowered`, tile.operand @c's batch attribute).
  virtual std::string describeBatch(const GemmSpec &spec) const;
  /// How a grouped \p spec's groups are walked (`--emit=lowered`,
  /// tile.group's applied attribute); empty when not grouped.
  virtual std::string describeGroup(const GemmSpec &spec) const {
    (void)spec;
    return "";
  }
  /// How a block-scaled \p spec's scales are applied (`--emit=lowered`,
  /// tile.scale's promote attribute); empty without block scales.
  virtual std::string describeBlockScale(const GemmSpec &spec) const {
    (void)spec;
    return "";
  }
  /// The schedule of \p spec: \p written is true for a schedule the program
  /// wrote (spec.swapAB, spec.splitK hold it; only the why is added),
  /// false for `schedule auto` or none.
  virtual GemmScheduleChoice schedule(const GemmSpec &spec, bool written) const;
  /// What `epilogue auto` becomes for \p spec.
  virtual GemmEpilogueChoice autoEpilogue(const GemmSpec &spec) const;
  /// The shared memory of \p spec; an error (reported at the epilogue)
  /// when the epilogue's staging tile is not legal.
  virtual llvm::Expected<GemmSmemBudget>
  sharedMemory(const GemmSpec &spec) const;
  /// The warp arrangement, for targets whose warps the tile decides
  /// (sm_80); std::nullopt elsewhere. An error (reported at the tile) when
  /// none fits.
  virtual llvm::Expected<std::optional<GemmWarpPlan>>
  planWarps(const GemmSpec &spec) const {
    (void)spec;
    return std::nullopt;
  }

  // --- Code generation (codegen/GemmCodegen.cpp).

  /// Checks \p spec against what the generator supports; the error names
  /// the field, its value and the legal values.
  virtual llvm::Error check(const GemmSpec &spec) const = 0;
  /// Builds the kernel and its launch facts (target-independent fields such
  /// as the fixed extents are filled by emitGemm).
  virtual llvm::Expected<GemmKernelBinary> emit(const GemmSpec &spec) const = 0;
  /// The kernel's LLVM IR as text, before optimization.
  virtual llvm::Expected<std::string>
  emitLlvmIr(const GemmSpec &spec) const = 0;

protected:
  /// "no K split" / "A and B as written" phrasing shared by the rows: a
  /// written schedule's why.
  static std::string writtenScheduleWhy(const GemmSpec &spec,
                                        const std::string &reduction);
};

/// The row of \p arch.
const GemmTarget &gemmTarget(ArchKind arch);

/// The targets that implement swap-AB and split-K, for messages: "sm_90a".
std::string decodeScheduleTargetNames();
/// The targets that implement `schedule persistent` and `cluster(2)`.
std::string persistentScheduleTargetNames();
/// The targets with hasSplitK.
std::string splitKTargetNames();
/// The targets that implement batched GEMM.
std::string batchTargetNames();
/// The targets that implement grouped GEMM.
std::string groupTargetNames();
/// The targets that implement block-scaled GEMM.
std::string blockScaleTargetNames();
/// The targets with hasWeightQuant.
std::string weightQuantTargetNames();
/// The targets with hasLibraryPrograms.
std::string libraryProgramTargetNames();
/// The targets that implement cluster(4).
std::string twoPairClusterTargetNames();
/// The targets that implement cluster_n(2).
std::string columnClusterTargetNames();

/// The rows, one per line of GemmTargets.def (their factories).
#define TILEC_GEMM_TARGET(ARCH, FACTORY) const GemmTarget &FACTORY();
#include "codegen/GemmTargets.def"

} // namespace tilec

#endif // TILEC_CODEGEN_GEMMTARGET_H
