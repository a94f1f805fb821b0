//===- codegen/Sm100Target.cpp - The sm_100a row of the GEMM targets ------===//
//
// TMA + tcgen05.mma into tensor memory (codegen/Sm100Gemm.h): the
// persistent schedule, the CTA pair of cluster(2), and the decode
// schedules: `schedule auto` swaps A and B when M is fixed below BM (the
// tcgen05.mma M of one CTA, 64 or 128: M becomes the MMA's N and N fills
// the BM rows) and splits K, reduced in a global workspace, when M, N and K are
// all fixed and the output tiles would leave most of a B200's 148 SMs
// idle (the rule of codegen/DecodeSplit.h). Direct stores from the
// tcgen05.ld registers, and the shared memory of the generator's own count
// (the ring, its mbarriers, the accumulator barriers, the TMEM address
// word and the alignment slack).
//
//===----------------------------------------------------------------------===//
#include "codegen/GemmTarget.h"

#include "codegen/DecodeSplit.h"
#include "codegen/Sm100GemmSpec.h"

namespace tilec {

namespace {

/// SMs of a B200, for the split-K rule of `schedule auto`.
constexpr unsigned B200Sms = 148;

/// How the K splits of a tile are summed (Sm100Gemm.h).
std::string sm100SplitReduction(unsigned splits) {
  return "reduced in a global workspace (each split stores its f32 "
         "partial; the last of the " +
         std::to_string(splits) +
         " to count on the tile's counter sums them in the order z = 0 .. " +
         std::to_string(splits - 1) + " and runs the epilogue once)";
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

class Sm100Target final : public GemmTarget {
public:
  ArchKind arch() const override { return ArchKind::SM100a; }

  // The generator stages operand tiles as sm_90a does (tmaOperandTile).
  bool stagesMnMajorKFirst() const override { return true; }

  // Always persistent (`persistent(G)` sets the group of tile rows);
  // `cluster(2)` is the CTA pair of tcgen05.mma.cta_group::2.
  bool hasPersistentSchedule() const override { return true; }
  bool clusterIsCtaPair() const override { return true; }
  bool hasTwoPairClusters() const override { return true; }

  // The generator's limits on combinations (Sm100GemmConfig checks the
  // same on its config).
  std::vector<GemmItemRule>
  checkItems(const GemmItemFacts &facts) const override {
    std::vector<GemmItemRule> rules;
    auto rule = [&](GemmItemRule::Item item, std::string message) {
      rules.push_back({item, std::move(message)});
    };
    bool pair128 = facts.ctaGroup == 2 && facts.bm == 128;
    if (facts.swiglu == SwigluPairingKind::TileHalves && pair128)
      rule(GemmItemRule::Swiglu,
           "epilogue op 'swiglu' pairs column c with c + BN / 2 in one "
           "thread, but the CTA pair's M = 128 (data path layout B) puts "
           "the two halves in different warps' lanes; write "
           "'swiglu(interleaved)', or use BM = 256 for the pair");
    // The staged epilogue stages C from the tcgen05.ld registers of an
    // unsplit, unswapped tile (Sm100StagedEpilogue.cpp).
    if (facts.staged && facts.splitK > 1)
      rule(GemmItemRule::EpilogueSteps,
           "the staged epilogue of sm_100a does not run after the split-K "
           "reduction (split_k(" +
               std::to_string(facts.splitK) +
               ") sums f32 partials in registers); write 'epilogue ... -> "
               "store' (direct stores), or drop split_k");
    if (facts.staged && facts.swapAB)
      rule(GemmItemRule::EpilogueSteps,
           "the staged epilogue of sm_100a stores C's rows from TMEM lanes, "
           "which swap_ab makes C's columns; write 'epilogue ... -> store' "
           "(direct stores), or drop swap_ab");
    if (facts.staged && facts.batched)
      rule(GemmItemRule::EpilogueSteps,
           "the staged epilogue of sm_100a stores C through a rank-2 tensor "
           "map, not a batched C; write 'epilogue ... -> store' (direct "
           "stores), or drop the batch extent");
    if (facts.staged && pair128)
      rule(GemmItemRule::EpilogueSteps,
           "the staged epilogue of sm_100a stages 32 rows per warp, but the "
           "CTA pair's M = 128 (data path layout B) gives a warp 32 rows of "
           "half the tile's columns; write 'epilogue ... -> store' (direct "
           "stores), or use BM = 256 for the pair");
    // cluster(4): two pairs take neighbouring tiles of one GEMM; the CTA
    // pair (cluster(2)) is one cta_group::2 MMA, swap-AB one CTA a tile.
    bool swaps = facts.swapAB, splits = facts.splitK > 1;
    if (facts.clusterM == 4 && (swaps || splits))
      rule(GemmItemRule::ScheduleCluster,
           "schedule " + std::string(swaps ? "swap_ab" : "split_k") +
               " with cluster(4) is not implemented on sm_100a: the two CTA "
               "pairs take neighbouring 256-row tiles of the A role and "
               "multicast their B tile; drop cluster(4) or the decode "
               "schedule");
    if (swaps && facts.clusterM > 1 && facts.clusterM != 4)
      rule(GemmItemRule::Schedule,
           "schedule swap_ab with cluster(2) is not implemented on sm_100a: "
           "the CTA pair's tcgen05.mma.cta_group::2 splits the A role's rows "
           "(BM = 128 or 256) over two CTAs, and swap-AB runs one CTA per "
           "tile (cta_group::1, BM = 128); drop cluster(2) or swap_ab");
    return rules;
  }

  // swap_ab and split_k (cta_group::1 only; Sm100GemmConfig refuses them
  // with cluster(2)).
  bool hasDecodeSchedules() const override { return true; }

  // Batched: the persistent units are batch x tiles (Sm100Gemm.h).
  bool hasBatch() const override { return true; }
  TuneTiles tuneTiles() const override {
    TuneTiles t;
    t.bn = {64, 128, 192, 256};
    return t;
  }
  bool batchWalksTiles() const override { return true; }

  std::string describeBatch(const GemmSpec &spec) const override {
    if (!spec.batch)
      return "";
    const BatchSpec &batch = *spec.batch;
    bool both = batch.aBatched && batch.bBatched;
    std::string maps = both             ? "A's and B's TMA tensor maps are"
                       : batch.aBatched ? "A's TMA tensor map is"
                                        : "B's TMA tensor map is";
    std::string shared = both ? ""
                         : batch.aBatched
                             ? "; b has no batch extent: B's map stays rank 2, "
                               "its loads ignore the batch"
                             : "; a has no batch extent: A's map stays rank 2, "
                               "its loads ignore the batch";
    return "persistent walk over batch x tiles, the batch " +
           (batch.fixedCount ? std::to_string(batch.fixedCount) + " (fixed)"
                             : std::string("a run-time argument")) +
           ": unit u is batch z = u / tilesPerBatch, then the grouped tile "
           "order inside the batch" +
           (spec.clusterM == 2 ? " (a CTA pair walks batch x pair tiles)"
                               : "") +
           "; " + maps +
           " rank 3 with the batch outermost (box extent 1) and the loads "
           "take z as the third coordinate" +
           shared +
           "; the direct stores write C + z * strideC (an i64 parameter); "
           "why: small batches of small GEMMs fill the SMs, and TMA clips "
           "each batch at its own M and N (split-K is refused with a batch)";
  }

  /// `schedule auto` without cluster(2): swap-AB for a fixed M below the
  /// MMA's BM (64 or 128) rows, split-K when the tiles leave most SMs idle.
  GemmScheduleChoice decodeSchedule(const GemmSpec &spec) const {
    GemmScheduleChoice choice{false, 1, ""};
    int64_t m = spec.fixedM, n = spec.fixedN, k = spec.fixedK;
    std::string &why = choice.why;
    std::string rows = std::to_string(spec.bm);
    if (spec.storeTma) {
      // The staged epilogue stores an unswapped, unsplit tile.
      why = "the staged epilogue (stmatrix -> tma_store) stores C's rows "
            "from the tcgen05.ld registers of a whole tile: A and B as "
            "written, K not split (write 'epilogue ... -> store' for the "
            "decode schedules)";
      return choice;
    }
    if (m && m < spec.bm && findSwiglu(spec.epilogueOps)) {
      why = "M = " + std::to_string(m) + " is fixed and below the " + rows +
            " rows of one CTA's tcgen05.mma, but swiglu pairs two columns "
            "of C in one thread, which swap-AB would spread over TMEM "
            "lanes: A and B as written";
    } else if (m && m < spec.bm) {
      choice.swapAB = true;
      why = "M = " + std::to_string(m) + " is fixed and below the " + rows +
            " rows of one CTA's tcgen05.mma (a decode shape): A and B "
            "swapped, so M is the MMA's N (BN = " +
            std::to_string(spec.bn) + ") and N fills the " + rows +
            " rows; the epilogue stores D transposed";
    } else {
      why = m ? "M = " + std::to_string(m) + " fills the " + rows +
                    "-row MMA: A and B as written"
              : "M is a run-time argument: A and B as written (write "
                "'schedule swap_ab' for small M, or BM = 64 for the M = 64 "
                "tcgen05.mma)";
    }
    if (!(m && n && k)) {
      why += "; K not split (M, N and K are not all fixed)";
      return choice;
    }
    if (spec.batch) {
      why += "; K not split (batched: the persistent CTAs walk batch x "
             "tiles)";
      return choice;
    }
    auto [tiles, kTiles, s] = decodeSplitOf(spec, choice.swapAB, B200Sms);
    if (s > 1) {
      choice.splitK = s;
      why += "; " + std::to_string(tiles) + " output tiles for " +
             std::to_string(B200Sms) + " SMs and " + std::to_string(kTiles) +
             " k-tiles: K split over " + std::to_string(s) +
             " work units per tile (" +
             (kTiles % s ? std::to_string(kTiles / s) + " to " +
                               std::to_string(ceilDiv(kTiles, s))
                         : std::to_string(kTiles / s)) +
             " k-tiles each), " + sm100SplitReduction(s);
    } else {
      why += "; K not split (" + std::to_string(tiles) + " output tiles, " +
             std::to_string(kTiles) + " k-tiles)";
    }
    return choice;
  }

  GemmScheduleChoice schedule(const GemmSpec &spec,
                              bool written) const override {
    bool pairs = spec.clusterM == 2 || spec.clusterM == 4;
    if (!pairs && written) {
      GemmScheduleChoice choice{spec.swapAB, spec.splitK, ""};
      choice.why = writtenScheduleWhy(
          spec, spec.splitK > 1 ? sm100SplitReduction(spec.splitK) : "");
      return choice;
    }
    if (!pairs)
      return decodeSchedule(spec);
    GemmSpec alone = spec;
    alone.clusterM = 1;
    GemmScheduleChoice choice = GemmTarget::schedule(alone, written);
    choice.why += "; 2x1 clusters: each CTA pair runs one "
                  "tcgen05.mma.cta_group::2 (M = " +
                  std::to_string(spec.bm) +
                  ") per K step, issued by the even CTA; each CTA loads " +
                  std::to_string(spec.bm / 2) + " rows of A and " +
                  std::to_string(spec.bn / 2) + " of B and stores its own " +
                  std::to_string(spec.bm / 2) + " rows of C";
    if (spec.clusterM == 4)
      choice.why += "; 4x1 clusters of two such pairs (pair p = rank / 2) "
                    "take neighbouring " +
                    std::to_string(spec.bm) +
                    "-row tiles with the same n0, and the CTAs of equal pair "
                    "rank share their " +
                    std::to_string(spec.bn / 2) + " rows of B: each loads " +
                    std::to_string(spec.bn / 4) +
                    " of them with .multicast::cluster to both (masks 0b0101 "
                    "and 0b1010); slot commits reach all four CTAs (empty "
                    "barriers count 2)";
    return choice;
  }

  GemmEpilogueChoice autoEpilogue(const GemmSpec &spec) const override {
    (void)spec;
    return {{{"store"}},
            "sm_100a stores the tcgen05.ld registers to global memory "
            "directly; the staged path ('-> stmatrix [swizzle(..)] -> "
            "tma_store': tcgen05.ld.16x256b, stmatrix, TMA stores) is taken "
            "only where written, since it has run in the simulator but not "
            "on Blackwell hardware, and its staging buffers (up to 32 KiB) "
            "would take ring stages from programs sized for direct stores"};
  }

  std::string epiloguePlacement(const GemmSpec &spec) const override {
    std::string text =
        spec.storeTma
            ? "per accumulator pair in the tcgen05.ld.16x256b registers "
              "(the mma fragment), before stmatrix into the staging tile "
              "and the TMA store (and on the direct stores when C has no "
              "tensor map)"
            : "per accumulator in the tcgen05.ld registers (one row of the "
              "tile per thread, a chunk of columns at a time), on the "
              "direct stores";
    if (const EpilogueOp *swiglu = findSwiglu(spec.epilogueOps))
      text += swiglu->pairing == SwigluPairingKind::Interleaved
                  ? "; swiglu's pair is two adjacent registers of one chunk"
                  : "; swiglu: one thread holds the gate chunk at column "
                    "c and the up chunk at c + " +
                        std::to_string(spec.bn / 2) +
                        " and pairs them register by register";
    return text;
  }

  llvm::Expected<GemmSmemBudget>
  sharedMemory(const GemmSpec &spec) const override {
    llvm::Expected<GemmSmemBudget> budget = GemmTarget::sharedMemory(spec);
    if (!budget)
      return budget.takeError();
    Sm100GemmConfig config;
    config.bm = spec.bm;
    config.bn = spec.bn;
    config.bk = spec.bk;
    config.stages = spec.stages;
    // The kernel's roles: swap-AB stages the user's B as A.
    config.aType = spec.swapAB ? spec.bType : spec.aType;
    config.bType = spec.swapAB ? spec.aType : spec.bType;
    config.cType = spec.cType;
    config.aMajor = spec.swapAB ? spec.bMajor : spec.aMajor;
    config.bMajor = spec.swapAB ? spec.aMajor : spec.bMajor;
    config.ctaGroup = spec.clusterM == 2 || spec.clusterM == 4 ? 2 : 1;
    config.batch = spec.batch;
    // The staged epilogue's buffers (none for direct stores, or where the
    // staged path is an error that check() reports).
    config.storeTma = spec.storeTma;
    config.storeSwizzleBytes = spec.storeSwizzleBytes;
    config.epilogueOps = spec.epilogueOps;
    config.splitK = std::max(1u, spec.splitK);
    config.swapAB = spec.swapAB;
    if (auto tile = sm100EpilogueTile(config); !tile) {
      llvm::consumeError(tile.takeError());
      config.storeTma = false;
    } else if (*tile) {
      budget->staging = int64_t((*tile)->buffers) * (*tile)->bytes;
    }
    // One CTA's stage: with cta_group::2, half the pair's rows of each.
    budget->stageBytes = int64_t(sm100CtaRows(config, 'a')) * spec.bk *
                             dtypeBits(config.aType) / 8 +
                         int64_t(sm100CtaRows(config, 'b')) * spec.bk *
                             dtypeBits(config.bType) / 8;
    // A full and an empty mbarrier per stage; the rest is fixed.
    budget->perStageExtra = 16;
    budget->total = sm100SharedBytes(config);
    budget->fixed =
        budget->total - budget->staging -
        int64_t(spec.stages) * (budget->stageBytes + budget->perStageExtra);
    return budget;
  }

  llvm::Error check(const GemmSpec &spec) const override {
    auto config = sm100ConfigFromSpec(spec);
    return config ? llvm::Error::success() : config.takeError();
  }

  llvm::Expected<GemmKernelBinary> emit(const GemmSpec &spec) const override {
    auto config = sm100ConfigFromSpec(spec);
    if (!config)
      return config.takeError();
    auto kernel = emitSm100Gemm(*config, Sm100ConfigVerified::Yes);
    if (!kernel)
      return kernel.takeError();
    return sm100GemmBinary(std::move(*kernel));
  }

  llvm::Expected<std::string> emitLlvmIr(const GemmSpec &spec) const override {
    auto config = sm100ConfigFromSpec(spec);
    if (!config)
      return config.takeError();
    return emitSm100GemmLlvmIr(*config, Sm100ConfigVerified::Yes);
  }
};

} // namespace

const GemmTarget &sm100GemmTarget() {
  static const Sm100Target target;
  return target;
}

} // namespace tilec
