//===- compiler/passes/PlanPipeline.cpp - Size the smem pipeline ----------===//
//
// Each stage holds one BM x BK tile of a and one BN x BK tile of b in shared
// memory; `stages` of them are in flight. The pass computes the bytes with
// the target's own count (codegen/GemmTarget.h: sm_90a and sm_100a add
// barriers, staging tiles and alignment), checks them against the most
// shared memory one block may use on the target (ir/arch/Arch.h: sm_80 163 KiB;
// sm_90a and sm_100a 227 KiB) and records the plan as a tile.pipeline op.
// Too many stages is an error that says how many fit; one stage is a warning
// (no load overlaps the MMAs). Where the target's warps depend on the tile
// (sm_80) the plan holds the arrangement.
//
// It also decides the schedule (tile.schedule) and the store steps of
// `epilogue auto` (tile.epilogue), each by asking the target and recording
// its why: on sm_90a `schedule auto` swaps A and B for a fixed small M and
// splits K when the output tiles would leave most SMs idle; a written
// schedule is kept.
//
//===----------------------------------------------------------------------===//
#include "compiler/passes/Passes.h"

#include "codegen/GemmTarget.h"
#include "compiler/passes/KernelView.h"
#include "ir/arch/Arch.h"

namespace tilec {

namespace {

void planKernel(tir::Op &kernel, const KernelView &view,
                DiagnosticEngine &diags) {
  const GemmTarget &target = gemmTarget(view.arch);
  GemmSpec spec = view.spec();
  llvm::Expected<GemmSmemBudget> budget = target.sharedMemory(spec);
  if (!budget) {
    const tir::Op *epilogue = kernel.find("tile.epilogue");
    diags.error(epilogue ? epilogue->loc : kernel.loc,
                llvm::toString(budget.takeError()));
    return;
  }
  int64_t aBytes = view.mnExtent('a') * view.bk * dtypeBits(view.aType) / 8;
  int64_t bBytes = view.mnExtent('b') * view.bk * dtypeBits(view.bType) / 8;
  int64_t stageBytes = budget->stageBytes;
  int64_t staging = budget->staging, perStageExtra = budget->perStageExtra,
          fixed = budget->fixed, total = budget->total;
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
    int64_t fit = (limit - staging - fixed) / (stageBytes + perStageExtra);
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
  llvm::Expected<std::optional<GemmWarpPlan>> warps = target.planWarps(spec);
  if (!warps) {
    const tir::Op *tile = kernel.find("tile.tile");
    diags.error(tile ? tile->loc : kernel.loc,
                llvm::toString(warps.takeError()));
    return;
  }
  std::string warpWhy = *warps ? "; " + (*warps)->why : "";
  int64_t smemBytes = // What the kernel requests.
      *warps && (*warps)->sharedBytes ? (*warps)->sharedBytes : total;
  tir::Op plan;
  plan.name = "tile.pipeline";
  plan.loc = loc;
  plan.set("stages", tir::Attr::integer(view.stages));
  plan.set("stage_bytes", tir::Attr::integer(stageBytes));
  plan.set("smem_bytes", tir::Attr::integer(smemBytes));
  plan.set("limit_bytes", tir::Attr::integer(limit));
  if (*warps)
    plan.set("warps", tir::Attr::makeList({tir::Attr::integer((*warps)->m),
                                           tir::Attr::integer((*warps)->n)}));
  plan.set(
      "why",
      tir::Attr::string(
          "a stage holds a " + std::to_string(view.mnExtent('a')) + "x" +
          std::to_string(view.bk) + " tile of a (" + std::to_string(aBytes) +
          " B) and a " + std::to_string(view.mnExtent('b')) + "x" +
          std::to_string(view.bk) + " tile of b (" + std::to_string(bBytes) +
          " B); " + std::to_string(view.stages) + " stages use " +
          std::to_string(total) + " of " + std::to_string(limit) +
          " bytes on " + arch +
          (extras.empty() ? "" : " (with" + extras.substr(1) + ")") + warpWhy));
  if (tir::Op *existing = kernel.find("tile.pipeline"))
    *existing = std::move(plan);
  else
    kernel.body.push_back(std::move(plan));
}

void planSchedule(tir::Op &kernel, const KernelView &view) {
  const GemmTarget &target = gemmTarget(view.arch);
  tir::Op *op = kernel.find("tile.schedule");
  if (!op && !target.hasDecodeSchedules())
    return;
  if (!op) {
    tir::Op schedule;
    schedule.name = "tile.schedule";
    schedule.loc = kernel.loc;
    schedule.set("mode", tir::Attr::ident("auto"));
    kernel.body.push_back(std::move(schedule));
    op = &kernel.body.back();
  }
  GemmScheduleChoice choice =
      target.schedule(view.spec(), op->getText("mode") == "fixed");
  // Printed in one order whatever was written: mode, swap_ab, split_k, why.
  tir::Op decided;
  decided.name = op->name;
  decided.loc = op->loc;
  const tir::Attr *mode = op->get("mode");
  decided.set("mode", mode ? *mode : tir::Attr::ident("auto"));
  decided.set("swap_ab",
              tir::Attr::integer(choice.swapAB, attrLoc(*op, "swap_ab")));
  decided.set("split_k",
              tir::Attr::integer(choice.splitK, attrLoc(*op, "split_k")));
  for (const char *kept : {"persistent", "cluster_m", "cluster_n"})
    if (const tir::Attr *attr = op->get(kept))
      decided.set(kept, *attr);
  decided.set("why", tir::Attr::string(choice.why));
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
  std::string why = "written in the program";
  if (automatic) {
    GemmEpilogueChoice choice = gemmTarget(view.arch).autoEpilogue(view.spec());
    std::vector<tir::Attr> decided;
    for (const std::vector<std::string> &step : choice.steps) {
      std::vector<tir::Attr> words;
      for (const std::string &word : step)
        words.push_back(tir::Attr::ident(word));
      decided.push_back(tir::Attr::makeList(std::move(words)));
    }
    op->set("steps", tir::Attr::makeList(std::move(decided)));
    why = std::move(choice.why);
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
