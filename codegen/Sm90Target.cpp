//===- codegen/Sm90Target.cpp - The sm_90a row of the GEMM targets --------===//
//
// TMA + wgmma (codegen/Sm90Gemm.h). `schedule auto` swaps A and B when M is
// fixed at 128 or less (a decode shape: M becomes the wgmma N and N fills
// the 64-row M atoms), and splits K when M, N and K are all fixed and the
// output tiles would fill less than half of an H100/H200's 132 SMs, by the
// rule of codegen/DecodeSplit.h; the splits of a tile
// are summed through distributed shared memory in a cluster where the ring
// holds one f32 tile (at most 8 splits), else in a global workspace. A
// 16-bit C is staged in swizzled shared memory and written by TMA stores;
// the shared memory is the generator's own map (codegen/Sm90SmemMap.h).
//
//===----------------------------------------------------------------------===//
#include "codegen/GemmTarget.h"

#include "codegen/DecodeSplit.h"
#include "codegen/Sm90BlockScale.h"
#include "codegen/Sm90ColumnStage.h"
#include "codegen/Sm90Epilogue.h"
#include "codegen/Sm90GemmSpec.h"
#include "codegen/Sm90Group.h"
#include "codegen/Sm90Heuristic.h"
#include "codegen/Sm90Limits.h"
#include "codegen/Sm90SmemMap.h"

#include <algorithm>

namespace tilec {

namespace {

/// How the K splits of one output tile are summed, for the schedule's why
/// (sm90ConfigFromSpec makes the same choice).
std::string splitReduction(const GemmSpec &spec, unsigned splits) {
  Sm90GemmConfig config = sm90ConfigOf(spec);
  if (sm90SplitKClusterFits(config, splits))
    return "reduced through distributed shared memory in a 1x1x" +
           std::to_string(splits) + " cluster";
  if (splits > sm90::MaxClusterCtas)
    return "reduced in a global workspace (a cluster holds at most " +
           std::to_string(sm90::MaxClusterCtas) + " CTAs)";
  if (config.ctasPerSm > 1)
    return "reduced in a global workspace (the kernel runs 2 CTAs per SM, "
           "where the cluster reduction is not used: "
           "sm90SplitKClusterFits)";
  return "reduced in a global workspace (the ring's " +
         std::to_string(sm90RingBytes(config)) +
         " bytes do not hold an f32 partial of " +
         std::to_string(config.bm * config.bn * 4) + ")";
}

/// Where the epilogue finds its per-column bias and scale values (the
/// kernel's columns: C's rows under swap-AB), for the lowered IR; empty
/// without such an op.
std::string columnOperandPlacement(const GemmSpec &spec) {
  Sm90GemmConfig config = sm90ConfigOf(spec);
  if (findSwiglu(config.epilogueOps))
    return "";
  unsigned blocks = sm90PreloadedBlocks(config), all = config.bn / 8;
  bool staged = sm90SmemMap(config).columnValueBytes != 0;
  bool stageable = sm90ColumnStageOf(config).arrays != 0;
  if (blocks == 0 && !stageable)
    return ""; // no per-column operand (or a grouped kernel's own rule)
  std::string text = "; bias and scale values per column of the kernel's "
                     "tile ";
  if (blocks == all)
    return text + "in registers from the tile's start";
  text += staged ? "copied into shared memory by the producer's warp 1 "
                   "during the K loop"
                 : "loaded in the epilogue, a chunk ahead";
  if (blocks)
    text += " (the first " + std::to_string(blocks) + " of " +
            std::to_string(all) + " 8-column blocks in registers)";
  if (stageable && !staged)
    text += " (the ring leaves no room to stage them)";
  return text;
}

/// A split-K cluster's stores, for the lowered IR: every CTA its share of
/// the tile (Sm90Gemm.h); empty otherwise.
std::string splitSharePlacement(const GemmSpec &spec) {
  Sm90GemmConfig config = sm90ConfigOf(spec);
  if (spec.splitK < 2 || findSwiglu(config.epilogueOps) ||
      !sm90SplitKClusterFits(config, spec.splitK))
    return "";
  return "; each of the " + std::to_string(spec.splitK) +
         " CTAs of the split-K cluster sums and stores its share of the "
         "tile";
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

class Sm90Target final : public GemmTarget {
public:
  ArchKind arch() const override { return ArchKind::SM90a; }

  bool hasDecodeSchedules() const override { return true; }
  bool hasPersistentSchedule() const override { return true; }
  bool hasColumnClusters() const override { return true; }
  bool hasBatch() const override { return true; }
  TuneTiles tuneTiles() const override {
    TuneTiles t;
    t.bn = {16, 32, 64, 128, 192, 256}; // wgmma's N; the decode tiles
    return t;
  }
  bool hasLibraryPrograms() const override { return true; }
  LibraryGemmItems
  libraryItems(const LibraryGemmProblem &problem) const override {
    return sm90LibraryItems(problem);
  }
  bool hasGroup() const override { return true; }
  bool hasBlockScale() const override { return true; }
  bool hasWeightQuant() const override { return true; }
  bool weightIsMmaA() const override { return true; }
  unsigned weightBk() const override { return 64; }
  std::vector<unsigned> weightRowTiles() const override { return {64, 128}; }

  std::string describeGroup(const GemmSpec &spec) const override {
    return describeGroupedGemm(spec);
  }

  std::string describeBlockScale(const GemmSpec &spec) const override {
    if (!spec.blockScale)
      return describeBlockScalePromotion(spec, false, false);
    Sm90GemmConfig config = sm90ConfigOf(spec);
    return describeBlockScalePromotion(spec, sm90OverlapsPromotion(config),
                                       sm90StagesBlockScales(config));
  }

  std::string describeBatch(const GemmSpec &spec) const override {
    if (!spec.batch)
      return "";
    bool both = spec.batch->aBatched && spec.batch->bBatched;
    std::string maps = both ? "A's and B's TMA tensor maps are"
                       : spec.batch->aBatched ? "A's TMA tensor map is"
                                              : "B's TMA tensor map is";
    std::string shared =
        both ? ""
        : spec.batch->aBatched
            ? "; b has no batch extent: B's map stays rank 2, its loads "
              "ignore the batch"
            : "; a has no batch extent: A's map stays rank 2, its loads "
              "ignore the batch";
    return "grid z = the batch, " +
           (spec.batch->fixedCount
                ? std::to_string(spec.batch->fixedCount) + " (fixed)"
                : std::string("a run-time argument")) +
           ": CTA (x, y, z) computes C_z; " + maps +
           " rank 3 with the batch outermost (box extent 1, the batch "
           "stride its dimension 2 stride) and the loads take z as the "
           "third coordinate" +
           (spec.storeTma ? ", and so is C's map for the staged TMA stores"
                          : "") +
           shared +
           "; the direct stores write C + z * strideC (an i64 parameter); "
           "why: one GEMM's tile grid per batch, no division, and TMA clips "
           "each batch at its own M and N (split-K, persistent and cluster "
           "schedules, which need z or a tile loop, are refused)";
  }
  bool stagesMnMajorKFirst() const override { return true; }

  std::string epiloguePlacement(const GemmSpec &spec) const override {
    return (spec.storeTma
                ? "per accumulator pair in registers, before stmatrix into "
                  "the staging tile and the TMA store (and on the direct "
                  "stores when C has no tensor map)"
                : "per accumulator in registers, on the direct stores") +
           columnOperandPlacement(spec) + splitSharePlacement(spec);
  }

  GemmScheduleChoice schedule(const GemmSpec &spec,
                              bool written) const override {
    GemmScheduleChoice choice{spec.swapAB, spec.splitK, ""};
    if (written) {
      choice.why = writtenScheduleWhy(
          spec, spec.splitK > 1 ? splitReduction(spec, spec.splitK) : "");
      return choice;
    }
    int64_t m = spec.fixedM, n = spec.fixedN, k = spec.fixedK;
    std::string &why = choice.why;
    if (spec.group) {
      why = "a grouped kernel: A and B as written, K not split (the groups "
            "follow A's row blocks; codegen/Sm90Group.h)";
      return choice;
    }
    if (spec.weightQuant) {
      // The quantized weight is the wgmma A operand, read from registers
      // (Sm90WeightDequant.h); K is split by the decode rule.
      choice.swapAB = true;
      why = "a quantized weight is the wgmma A operand (dequantized into the "
            "registers of RS wgmmas): A and B swapped, BM = " +
            std::to_string(spec.bm) +
            " tiles the weight's N and BN = " + std::to_string(spec.bn) +
            " the tokens M";
      if (!(m && n && k)) {
        why += "; K not split (M, N and K are not all fixed)";
        return choice;
      }
      auto [tiles, kTiles, s] = decodeSplitOf(spec, true, 132);
      choice.splitK = s;
      GemmSpec split = spec; // the kernel it describes: K split s ways
      split.splitK = s;
      why += s > 1
                 ? "; " + std::to_string(tiles) +
                       " output tiles for 132 "
                       "SMs and " +
                       std::to_string(kTiles) + " k-tiles: K split over " +
                       std::to_string(s) + " CTAs per tile, " +
                       splitReduction(split, s)
                 : "; K not split (" + std::to_string(tiles) +
                       " output tiles, " + std::to_string(kTiles) + " k-tiles)";
      return choice;
    }
    if (spec.bm == 256) {
      why = "BM = 256 (two 64-row blocks per consumer warpgroup, a large-M "
            "tile): A and B as written, K not split";
      return choice;
    }
    // Block-scaled with N fixed: a written tile whose unswapped grid fills
    // at least half of the 132 SMs runs A and B as written. Measured on the
    // H100 (bench/Fp8BlockResults.md, issue 26): the narrow unswapped
    // tiles of 112-132 CTAs (BM 64 or 128, BN 16-192) beat swap-AB with
    // split-K on 10 of the 12 DeepSeek-V3 decode shapes (64 x 24576 x 1536:
    // 16.8 against 21.0 us; 64 x 4096 x 7168: 16.1 against 20.0).
    int64_t unswappedTiles =
        m && n ? ceilDiv(m, spec.bm) * ceilDiv(n, spec.bn) : 0;
    bool fillsAsWritten = spec.blockScale && unswappedTiles >= 132 / 2;
    if (m && m <= 128 && fillsAsWritten) {
      why = "M = " + std::to_string(m) +
            " is fixed and at most 128, but the block-scaled " +
            std::to_string(spec.bm) + " x " + std::to_string(spec.bn) +
            " tile already makes " + std::to_string(unswappedTiles) +
            " CTAs of A and B as written (at least half of 132 SMs; narrow "
            "unswapped tiles measured faster than swap-AB there): A and B "
            "as written";
    } else if (m && m <= 128 && findSwiglu(spec.epilogueOps)) {
      why = "M = " + std::to_string(m) +
            " is fixed and at most 128, but swiglu pairs two columns of C in "
            "one thread, which swap-AB spreads over lanes: A and B as "
            "written";
    } else if (m && m <= 128) {
      choice.swapAB = true;
      why = "M = " + std::to_string(m) +
            " is fixed and at most 128 (a decode shape): A and B swapped, "
            "so M is the wgmma N (BN = " +
            std::to_string(spec.bn) + ") and N fills the 64-row M atoms";
      if (spec.blockScale)
        why += " (block scales follow: SFB per wgmma row block, SFA per "
               "column)";
      int64_t fits = std::max<int64_t>(16, ceilDiv(m, 16) * 16);
      if (spec.bn >= 2 * fits)
        why += "; BN = " + std::to_string(spec.bn) +
               " is at least twice M: "
               "the wgmma computes columns past M (BN = " +
               std::to_string(fits) + " would hold M)";
    } else {
      why = m ? "M = " + std::to_string(m) + " is large: A and B as written"
              : "M is a run-time argument: A and B as written (write "
                "'schedule swap_ab' for small M)";
    }
    if (spec.batch) {
      why += "; K not split (the batch takes grid z)";
      return choice;
    }
    if (!(m && n && k)) {
      why += "; K not split (M, N and K are not all fixed)";
      return choice;
    }
    // The same rule as the run-time heuristic, for the H200's 132 SMs.
    DecodeSplit split = decodeSplitOf(spec, choice.swapAB, 132);
    // Block-scaled, 64 < M <= 128: the swapped kernel gains only with K
    // split (few output tiles); with enough tiles the unswapped 128-row
    // tile runs both consumer warpgroups on rows of M and wastes none
    // (bench/Fp8BlockResults.md, "Small M": 0.53-0.86x of cuBLAS swapped
    // against 0.81-1.00x unswapped on the H200).
    if (spec.blockScale && choice.swapAB && split.splits == 1 && m > 64) {
      choice.swapAB = false;
      why = "M = " + std::to_string(m) +
            " is fixed and at most 128, but a block-scaled kernel swaps A "
            "and B only where K is split too: with enough output tiles the "
            "unswapped tile wastes no rows of M: A and B as written";
      split = decodeSplitOf(spec, false, 132);
    }
    auto [tiles, kTiles, s] = split;
    if (s > 1) {
      choice.splitK = s;
      why += "; " + std::to_string(tiles) + " output tiles for 132 SMs and " +
             std::to_string(kTiles) + " k-tiles: K split over " +
             std::to_string(s) + " CTAs per tile (up to " +
             std::to_string(ceilDiv(kTiles, s)) + " k-tiles each), " +
             splitReduction(spec, s);
    } else {
      why += "; K not split (" + std::to_string(tiles) + " output tiles, " +
             std::to_string(kTiles) + " k-tiles)";
    }
    return choice;
  }

  GemmEpilogueChoice autoEpilogue(const GemmSpec &spec) const override {
    std::string c = dtypeInfo(spec.cType).name.str();
    const EpilogueOp *swiglu = findSwiglu(spec.epilogueOps);
    if (swiglu && swiglu->pairing == SwigluPairingKind::Interleaved)
      return {{{"store"}},
              "swiglu(interleaved) leaves one element of C per accumulator "
              "pair, which stmatrix cannot stage: registers go to global "
              "memory directly"};
    if (spec.cType == DTypeKind::BF16 || spec.cType == DTypeKind::F16)
      return {{{"stmatrix"}, {"tma_store"}},
              "c is " + c +
                  " on sm_90a: each warpgroup's tile is staged in swizzled "
                  "shared memory (the widest atom whose row divides the "
                  "tile) and written by TMA stores (beta != 0: C's chunk is "
                  "TMA-loaded into the buffer first); direct stores when "
                  "C's tensor map is not possible (C, ldc or N not whole "
                  "16-byte units)"};
    return {{{"store"}},
            "c is " + c +
                ": stmatrix moves 16-bit elements, so registers go to "
                "global memory directly"};
  }

  llvm::Expected<GemmSmemBudget>
  sharedMemory(const GemmSpec &spec) const override {
    llvm::Expected<GemmSmemBudget> budget = GemmTarget::sharedMemory(spec);
    if (!budget)
      return budget.takeError();
    // Beside the ring: the epilogue's staging tiles, one full and one
    // empty mbarrier and the staged block scales per stage, a flag word
    // and the alignment slack.
    auto checked = sm90CheckedSmemMap(sm90ConfigOf(spec));
    if (!checked)
      return checked.takeError();
    const Sm90SmemMap &map = *checked;
    budget->staging = map.stagingBytes;
    if (spec.weightQuant) // Packed codes beside BN rows of activations.
      budget->stageBytes = map.aStageBytes + map.bStageBytes;
    budget->perStageExtra = Sm90SmemMap::BarrierPairBytes + map.scaleStageBytes;
    budget->fixed = map.fixedBytes();
    budget->total = map.totalBytes();
    return budget;
  }

  llvm::Error check(const GemmSpec &spec) const override {
    auto config = sm90ConfigFromSpec(spec);
    return config ? llvm::Error::success() : config.takeError();
  }

  /// No warp arrangement to choose (one producer and BM / 64 or two
  /// consumer warpgroups), but the generator's rules on the tile (BM,
  /// BN with block scales, registers: verifySm90GemmConfig) are checked
  /// here so that plan-pipeline reports them at the tile, with the
  /// decided schedule.
  llvm::Expected<std::optional<GemmWarpPlan>>
  planWarps(const GemmSpec &spec) const override {
    if (llvm::Error err = check(spec))
      return std::move(err);
    return std::nullopt;
  }

  llvm::Expected<GemmKernelBinary> emit(const GemmSpec &spec) const override {
    auto config = sm90UnverifiedConfig(spec);
    if (!config)
      return config.takeError();
    auto kernel = emitSm90Gemm(*config);
    if (!kernel)
      return kernel.takeError();
    return sm90GemmBinary(std::move(*kernel), spec.splitK);
  }

  llvm::Expected<std::string> emitLlvmIr(const GemmSpec &spec) const override {
    auto config = sm90UnverifiedConfig(spec);
    if (!config)
      return config.takeError();
    return emitSm90GemmLlvmIr(*config);
  }
};

} // namespace

const GemmTarget &sm90GemmTarget() {
  static const Sm90Target target;
  return target;
}

} // namespace tilec
