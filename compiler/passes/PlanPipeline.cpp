//===- compiler/passes/PlanPipeline.cpp - Size the smem pipeline ----------===//
//
// Each stage holds one BM x BK tile of a and one BN x BK tile of b in shared
// memory; `stages` of them are in flight. The pass computes the bytes, checks
// them against the most shared memory one block may use on the target
// (sm_80: 163 KiB; sm_90a and sm_100a: 227 KiB) and records the plan as a
// tile.pipeline op. Too many stages is an error that says how many fit; one
// stage is a warning (no load overlaps the MMAs).
//
//===----------------------------------------------------------------------===//
#include "compiler/passes/Passes.h"

#include "compiler/passes/KernelView.h"

namespace tilec {

namespace {

/// The opt-in shared-memory limit per block, in bytes.
int64_t smemLimit(ArchKind arch) {
  switch (arch) {
  case ArchKind::SM80:
    return 163 * 1024;
  case ArchKind::SM90a:
  case ArchKind::SM100a:
    return 227 * 1024;
  }
  return 0;
}

void planKernel(tir::Op &kernel, const KernelView &view,
                DiagnosticEngine &diags) {
  int64_t aBytes = view.bm * view.bk * dtypeBits(view.aType) / 8;
  int64_t bBytes = view.bn * view.bk * dtypeBits(view.bType) / 8;
  int64_t stageBytes = aBytes + bBytes;
  int64_t total = stageBytes * view.stages;
  int64_t limit = smemLimit(view.arch);
  const tir::Op *stagesOp = kernel.find("tile.stages");
  llvm::SMLoc loc = stagesOp ? attrLoc(*stagesOp, "count") : kernel.loc;
  std::string arch = archInfo(view.arch).name.str();
  if (total > limit) {
    int64_t fit = limit / stageBytes;
    diags.error(loc, std::to_string(view.stages) + " stages need " +
                         std::to_string(total) +
                         " bytes of shared memory (" +
                         std::to_string(stageBytes) +
                         " per stage), more than the " +
                         std::to_string(limit) + " bytes a block gets on " +
                         arch +
                         (fit >= 1 ? "; at most " + std::to_string(fit) +
                                         " stages fit"
                                   : "; not even one stage fits: make BM, BN "
                                     "or BK smaller"));
    return;
  }
  if (view.stages == 1)
    diags.warning(loc, "1 stage leaves no load in flight while the tensor "
                       "cores work; 2 or more overlap them");
  tir::Op plan;
  plan.name = "tile.pipeline";
  plan.loc = loc;
  plan.set("stages", tir::Attr::integer(view.stages));
  plan.set("stage_bytes", tir::Attr::integer(stageBytes));
  plan.set("smem_bytes", tir::Attr::integer(total));
  plan.set("limit_bytes", tir::Attr::integer(limit));
  plan.set("why", tir::Attr::string(
                      "a stage holds a " + std::to_string(view.bm) + "x" +
                      std::to_string(view.bk) + " tile of a (" +
                      std::to_string(aBytes) + " B) and a " +
                      std::to_string(view.bn) + "x" + std::to_string(view.bk) +
                      " tile of b (" + std::to_string(bBytes) + " B); " +
                      std::to_string(view.stages) + " stages use " +
                      std::to_string(total) + " of " + std::to_string(limit) +
                      " bytes on " + arch));
  if (tir::Op *existing = kernel.find("tile.pipeline"))
    *existing = std::move(plan);
  else
    kernel.body.push_back(std::move(plan));
}

} // namespace

bool runPlanPipelinePass(tir::Op &module, PassContext &context) {
  unsigned before = context.diags.errorCount();
  for (tir::Op &kernel : module.body) {
    if (kernel.name != "tile.kernel")
      continue;
    std::optional<KernelView> view =
        KernelView::getOrReport(kernel, context.diags, "plan-pipeline");
    if (view)
      planKernel(kernel, *view, context.diags);
  }
  return context.diags.errorCount() == before;
}

} // namespace tilec
