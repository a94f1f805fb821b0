//===- compiler/passes/PlanPipeline.cpp - Size the smem pipeline ----------===//
//
// Each stage holds one BM x BK tile of a and one BN x BK tile of b in shared
// memory; `stages` of them are in flight. The pass computes the bytes, checks
// them against the most shared memory one block may use on the target
// (sm_80: 163 KiB; sm_90a and sm_100a: 227 KiB) and records the plan as a
// tile.pipeline op. Too many stages is an error that says how many fit; one
// stage is a warning (no load overlaps the MMAs).
//
// On sm_80 it also arranges the warps (warpsM x warpsN) of the mma.sync
// main loop: each warp owns whole 16 x 16 pieces of the accumulator (an m16
// tile and a pair of n8 tiles, one ldmatrix.x4), holds at most 128 f32
// accumulators per thread, and the CTA's threads split every 16-byte row of
// the smem stages evenly. The first arrangement that fits, preferring more
// warps, is taken.
//
// On sm_90a it decides the schedule (tile.schedule): `schedule auto` swaps A
// and B when M is fixed at 128 or less (a decode shape: M becomes the wgmma
// N and N fills the 64-row M atoms), and splits K when M, N and K are all
// fixed and the output tiles would fill less than half of an H100/H200's 132
// SMs; a written `schedule swap_ab split_k(N)` is kept. Either way the op
// says why, and for a split how the partials are summed: through
// distributed shared memory in a cluster of the splits (at most 8, a ring
// that holds one f32 tile), else in a global workspace.
//
//===----------------------------------------------------------------------===//
#include "compiler/passes/Passes.h"

#include "codegen/Sm80Gemm.h"
#include "codegen/Sm90Gemm.h"
#include "codegen/Sm90Heuristic.h"
#include "codegen/Sm90Limits.h"
#include "codegen/Sm90SmemMap.h"
#include "compiler/passes/KernelView.h"
#include "ir/Arch.h"

#include <algorithm>

namespace tilec {

namespace {

/// A warp arrangement for the sm_80 main loop, or an explanation of why
/// none fits.
struct WarpPlan {
  unsigned m = 0, n = 0;
  std::string why;
};

bool copiesSplit(int64_t contiguous, int64_t other, unsigned bits,
                 unsigned threads) {
  int64_t perRow = contiguous * bits / 128; // 16-byte vectors per row.
  if (perRow == 0 || contiguous * bits % 128 != 0)
    return false;
  return threads % perRow == 0 && (perRow * other) % threads == 0;
}

WarpPlan planWarps(const KernelView &view) {
  static const unsigned Candidates[][2] = {{2, 4}, {4, 2}, {2, 2}, {1, 4},
                                           {4, 1}, {1, 2}, {2, 1}, {1, 1}};
  bool aK = view.aMajor == MajorKind::K, bK = view.bMajor == MajorKind::K;
  for (const auto &candidate : Candidates) {
    unsigned wm = candidate[0], wn = candidate[1];
    unsigned threads = 32 * wm * wn;
    if (view.bm % (16 * wm) != 0 || view.bn % (16 * wn) != 0)
      continue;
    int64_t acc = (view.bm / wm / 16) * (view.bn / wn / 8) * 4;
    if (acc > 128)
      continue;
    if (!copiesSplit(aK ? view.bk : view.bm, aK ? view.bm : view.bk,
                     dtypeBits(view.aType), threads) ||
        !copiesSplit(bK ? view.bk : view.bn, bK ? view.bn : view.bk,
                     dtypeBits(view.bType), threads))
      continue;
    WarpPlan plan;
    plan.m = wm;
    plan.n = wn;
    plan.why = std::to_string(wm) + " x " + std::to_string(wn) +
               " warps: each owns a " + std::to_string(view.bm / wm) + " x " +
               std::to_string(view.bn / wn) + " accumulator tile (" +
               std::to_string(acc) + " f32 per thread)";
    return plan;
  }
  return {};
}

/// The sm_90a generator's configuration for \p view with the schedule and
/// epilogue that planSchedule and planEpilogue decided.
Sm90GemmConfig sm90ConfigOf(const tir::Op &kernel, const KernelView &view) {
  Sm90GemmConfig config;
  config.bm = static_cast<unsigned>(view.bm);
  config.bn = static_cast<unsigned>(view.bn);
  config.bk = static_cast<unsigned>(view.bk);
  config.stages = static_cast<unsigned>(view.stages);
  config.aType = view.aType;
  config.bType = view.bType;
  config.cType = view.cType;
  if (const tir::Op *schedule = kernel.find("tile.schedule")) {
    const tir::Attr *swap = schedule->get("swap_ab");
    config.swapAB = swap && swap->isInt() && swap->intValue != 0;
  }
  config.storeTma = false;
  if (const tir::Op *epilogue = kernel.find("tile.epilogue")) {
    GemmSpec spec;
    epilogueInto(*epilogue, spec);
    config.storeTma = spec.storeTma;
    config.storeSwizzleBytes = spec.storeSwizzleBytes;
  }
  return config;
}

void planKernel(tir::Op &kernel, const KernelView &view,
                DiagnosticEngine &diags) {
  int64_t aBytes = view.bm * view.bk * dtypeBits(view.aType) / 8;
  int64_t bBytes = view.bn * view.bk * dtypeBits(view.bType) / 8;
  int64_t stageBytes = aBytes + bBytes;
  // sm_90a also keeps, beside the ring, the epilogue's staging tiles, one
  // full and one empty mbarrier per stage, a flag word and the slack that
  // aligns the ring for 128-byte swizzle atoms: the generator's own map
  // (codegen/Sm90SmemMap.h).
  int64_t staging = 0, perStageExtra = 0, fixed = 0;
  int64_t total = stageBytes * view.stages;
  if (view.arch == ArchKind::SM90a) {
    Sm90GemmConfig config = sm90ConfigOf(kernel, view);
    if (auto tile = sm90EpilogueTile(config); !tile) {
      const tir::Op *epilogue = kernel.find("tile.epilogue");
      diags.error(epilogue ? epilogue->loc : kernel.loc,
                  llvm::toString(tile.takeError()));
      return;
    }
    Sm90SmemMap map = sm90SmemMap(config);
    staging = map.stagingBytes;
    perStageExtra = Sm90SmemMap::BarrierPairBytes;
    fixed = map.fixedBytes();
    total = map.totalBytes();
  }
  int64_t limit = archInfo(view.arch).maxSharedBytesPerCta;
  const tir::Op *stagesOp = kernel.find("tile.stages");
  llvm::SMLoc loc = stagesOp ? attrLoc(*stagesOp, "count") : kernel.loc;
  std::string arch = archInfo(view.arch).name.str();
  std::string extras =
      staging || fixed
          ? ", " + std::to_string(staging) +
                " for the epilogue's staging tiles and " +
                std::to_string(perStageExtra * view.stages + fixed) +
                " for barriers and alignment"
          : "";
  if (total > limit) {
    int64_t fit =
        (limit - staging - fixed) / (stageBytes + perStageExtra);
    diags.error(
        loc, std::to_string(view.stages) + " stages need " +
                 std::to_string(total) + " bytes of shared memory (" +
                 std::to_string(stageBytes) + " per stage" + extras +
                 "), more than the " + std::to_string(limit) +
                 " bytes a block gets on " + arch +
                 (fit >= 1 ? "; at most " + std::to_string(fit) + " stages fit"
                           : "; not even one stage fits: make BM, BN "
                             "or BK smaller"));
    return;
  }
  if (view.stages == 1)
    diags.warning(loc, "1 stage leaves no load in flight while the tensor "
                       "cores work; 2 or more overlap them");
  std::string warpWhy;
  std::optional<WarpPlan> warps;
  int64_t smemBytes = total; ///< What the kernel requests.
  if (view.arch == ArchKind::SM80) {
    warps = planWarps(view);
    if (warps->m == 0) {
      const tir::Op *tile = kernel.find("tile.tile");
      diags.error(tile ? tile->loc : kernel.loc,
                  "no warp arrangement fits the " + std::to_string(view.bm) +
                      " x " + std::to_string(view.bn) + " x " +
                      std::to_string(view.bk) +
                      " tile on sm_80: BM must be a multiple of 16 x warpsM "
                      "and BN of 16 x warpsN (1 to 8 warps), with at most 128 "
                      "accumulators per thread and every 16-byte row of the "
                      "smem stages split evenly over the threads");
      return;
    }
    warpWhy = "; " + warps->why;
    // The epilogue stages the f32 accumulators in the stage buffers, which
    // it extends where the staging tile is larger (codegen/Sm80Gemm.h).
    std::optional<Sm80StagingSize> size = sm80StagingSize(
        unsigned(warps->m), unsigned(view.bm / (16 * warps->m)),
        unsigned(view.bn), view.cRowMajor);
    if (size && size->bytes > total) {
      warpWhy += "; the epilogue's f32 staging tile (" +
                 std::to_string(size->rows) + " x " + std::to_string(view.bn) +
                 ", padded) reuses the stage buffers and extends them to " +
                 std::to_string(size->bytes) + " bytes";
      smemBytes = size->bytes;
    }
  }
  tir::Op plan;
  plan.name = "tile.pipeline";
  plan.loc = loc;
  plan.set("stages", tir::Attr::integer(view.stages));
  plan.set("stage_bytes", tir::Attr::integer(stageBytes));
  plan.set("smem_bytes", tir::Attr::integer(smemBytes));
  plan.set("limit_bytes", tir::Attr::integer(limit));
  if (warps)
    plan.set("warps", tir::Attr::makeList({tir::Attr::integer(warps->m),
                                           tir::Attr::integer(warps->n)}));
  plan.set("why",
           tir::Attr::string(
               "a stage holds a " + std::to_string(view.bm) + "x" +
               std::to_string(view.bk) + " tile of a (" +
               std::to_string(aBytes) + " B) and a " + std::to_string(view.bn) +
               "x" + std::to_string(view.bk) + " tile of b (" +
               std::to_string(bBytes) + " B); " + std::to_string(view.stages) +
               " stages use " + std::to_string(total) + " of " +
               std::to_string(limit) + " bytes on " + arch +
               (extras.empty() ? "" : " (with" + extras.substr(1) + ")") +
               warpWhy));
  if (tir::Op *existing = kernel.find("tile.pipeline"))
    *existing = std::move(plan);
  else
    kernel.body.push_back(std::move(plan));
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// How the K splits of one output tile are summed, for the schedule's why:
/// on sm_90a in a 1x1xS cluster through distributed shared memory where
/// sm90SplitKClusterFits (codegen/Sm90GemmSpec.cpp makes the same choice),
/// else in a global workspace.
std::string splitReduction(const tir::Op &kernel, const KernelView &view,
                           int64_t splits) {
  if (view.arch != ArchKind::SM90a)
    return "reduced in a workspace";
  Sm90GemmConfig config = sm90ConfigOf(kernel, view);
  if (sm90SplitKClusterFits(config, static_cast<unsigned>(splits)))
    return "reduced through distributed shared memory in a 1x1x" +
           std::to_string(splits) + " cluster";
  if (splits > sm90::MaxClusterCtas)
    return "reduced in a global workspace (a cluster holds at most " +
           std::to_string(sm90::MaxClusterCtas) + " CTAs)";
  return "reduced in a global workspace (the ring's " +
         std::to_string(sm90RingBytes(config)) +
         " bytes do not hold an f32 partial of " +
         std::to_string(config.bm * config.bn * 4) + ")";
}

void planSchedule(tir::Op &kernel, const KernelView &view) {
  tir::Op *op = kernel.find("tile.schedule");
  if (!op && view.arch != ArchKind::SM90a)
    return;
  if (!op) {
    tir::Op schedule;
    schedule.name = "tile.schedule";
    schedule.loc = kernel.loc;
    schedule.set("mode", tir::Attr::ident("auto"));
    kernel.body.push_back(std::move(schedule));
    op = &kernel.body.back();
  }
  auto intAttr = [&](const char *key, int64_t fallback) {
    const tir::Attr *attr = op->get(key);
    return attr && attr->isInt() ? attr->intValue : fallback;
  };
  int64_t swap = intAttr("swap_ab", 0) != 0, splits = intAttr("split_k", 1);
  std::string why;
  std::string arch = archInfo(view.arch).name.str();
  if (op->getText("mode") == "fixed") {
    why = std::string("written in the program: ") +
          (swap ? "A and B swapped (C^T = B * A^T: M is the MMA's N, N fills "
                  "the 64-row M atoms)"
                : "A and B as written") +
          (splits > 1 ? "; K split over " + std::to_string(splits) +
                            " CTAs per output tile, " +
                            splitReduction(kernel, view, splits)
                      : "");
  } else if (view.arch != ArchKind::SM90a) {
    why = "the plain schedule: " + arch + " has no other";
  } else {
    std::optional<int64_t> m = view.fixedM, n = view.fixedN, k = view.fixedK;
    if (m && *m <= 128) {
      swap = 1;
      why = "M = " + std::to_string(*m) +
            " is fixed and at most 128 (a decode shape): A and B swapped, "
            "so M is the wgmma N (BN = " +
            std::to_string(view.bn) + ") and N fills the 64-row M atoms";
    } else {
      why = m ? "M = " + std::to_string(*m) + " is large: A and B as written"
              : "M is a run-time argument: A and B as written (write "
                "'schedule swap_ab' for small M)";
    }
    if (m && n && k) {
      int64_t rowsA = swap ? *n : *m, rowsB = swap ? *m : *n;
      int64_t tiles = ceilDiv(rowsA, view.bm) * ceilDiv(rowsB, view.bn);
      int64_t kTiles = ceilDiv(*k, view.bk);
      // The same rule as the run-time heuristic (codegen/Sm90Heuristic.h),
      // for the H200's 132 SMs.
      int64_t s = sm90DecodeSplits(static_cast<unsigned>(tiles),
                                   static_cast<unsigned>(kTiles),
                                   static_cast<unsigned>(view.bn), 132);
      if (s > 1) {
        splits = s;
        why += "; " + std::to_string(tiles) +
               " output tiles for 132 SMs and " + std::to_string(kTiles) +
               " k-tiles: K split over " + std::to_string(s) +
               " CTAs per tile (up to " + std::to_string(ceilDiv(kTiles, s)) +
               " k-tiles each), " + splitReduction(kernel, view, s);
      } else {
        why += "; K not split (" + std::to_string(tiles) + " output tiles, " +
               std::to_string(kTiles) + " k-tiles)";
      }
    } else {
      why += "; K not split (M, N and K are not all fixed)";
    }
  }
  // Printed in one order whatever was written: mode, swap_ab, split_k, why.
  tir::Op decided;
  decided.name = op->name;
  decided.loc = op->loc;
  const tir::Attr *mode = op->get("mode");
  decided.set("mode", mode ? *mode : tir::Attr::ident("auto"));
  decided.set("swap_ab", tir::Attr::integer(swap, attrLoc(*op, "swap_ab")));
  decided.set("split_k", tir::Attr::integer(splits, attrLoc(*op, "split_k")));
  decided.set("why", tir::Attr::string(why));
  *op = std::move(decided);
}

/// tile.epilogue: `auto` becomes the steps codegen will run, and the op
/// says why (a written sequence is kept).
void planEpilogue(tir::Op &kernel, const KernelView &view) {
  tir::Op *op = kernel.find("tile.epilogue");
  if (!op)
    return;
  const tir::Attr *steps = op->get("steps");
  bool automatic = steps && steps->isList() && steps->list.size() == 1 &&
                   steps->list[0].isList() && !steps->list[0].list.empty() &&
                   steps->list[0].list[0].str == "auto";
  std::string why;
  if (!automatic) {
    why = "written in the program";
  } else {
    bool sixteen =
        view.cType == DTypeKind::BF16 || view.cType == DTypeKind::F16;
    std::string c = dtypeInfo(view.cType).name.str();
    if (view.arch == ArchKind::SM90a && sixteen) {
      op->set("steps",
              tir::Attr::makeList({tir::Attr::makeList(
                                       {tir::Attr::ident("stmatrix")}),
                                   tir::Attr::makeList(
                                       {tir::Attr::ident("tma_store")})}));
      why = "c is " + c +
            " on sm_90a: each warpgroup's tile is staged in swizzled shared "
            "memory (the widest atom whose row divides the tile) and "
            "written by TMA stores (beta != 0: C's chunk is TMA-loaded into "
            "the buffer first); direct stores when C's "
            "tensor map is not possible (C, ldc or N not whole 16-byte "
            "units)";
    } else {
      op->set("steps", tir::Attr::makeList({tir::Attr::makeList(
                           {tir::Attr::ident("store")})}));
      why = view.arch != ArchKind::SM90a
                ? archInfo(view.arch).name.str() +
                      " stores registers to global memory (no TMA store)"
                : "c is " + c +
                      ": stmatrix moves 16-bit elements, so registers go "
                      "to global memory directly";
    }
  }
  op->set("why", tir::Attr::string(why));
}

} // namespace

bool runPlanPipelinePass(tir::Op &module, PassContext &context) {
  unsigned before = context.diags.errorCount();
  for (tir::Op &kernel : module.body) {
    if (kernel.name != "tile.kernel")
      continue;
    std::optional<KernelView> view =
        KernelView::getOrReport(kernel, context.diags, "plan-pipeline");
    if (view) {
      // The schedule and the epilogue first: the sm_90a shared-memory
      // budget depends on both.
      planSchedule(kernel, *view);
      planEpilogue(kernel, *view);
      planKernel(kernel, *view, context.diags);
    }
  }
  return context.diags.errorCount() == before;
}

} // namespace tilec
