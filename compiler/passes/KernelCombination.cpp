//===- compiler/passes/KernelCombination.cpp - Written combinations ------===//
#include "compiler/passes/KernelCombination.h"

namespace tilec {

namespace {

/// The value of integer attribute \p key of \p op, or \p otherwise.
int64_t intOr(const tir::Op &op, llvm::StringRef key, int64_t otherwise) {
  const tir::Attr *attr = op.get(key);
  return attr && attr->isInt() ? attr->intValue : otherwise;
}

/// The location of attribute \p key of operand \p name, or the kernel's.
llvm::SMLoc operandAttrLoc(const tir::Op &kernel, llvm::StringRef name,
                           llvm::StringRef key) {
  const tir::Op *op = kernel.find("tile.operand", name);
  return op ? attrLoc(*op, key) : kernel.loc;
}

} // namespace

void readScheduleCombination(const tir::Op *schedule, GemmCombination &facts) {
  if (!schedule)
    return;
  facts.swapAB = intOr(*schedule, "swap_ab", 0) != 0;
  facts.splitK = intOr(*schedule, "split_k", 1);
  facts.persistent = intOr(*schedule, "persistent", 0);
  facts.clusterM = intOr(*schedule, "cluster_m", 1);
  facts.clusterN = intOr(*schedule, "cluster_n", 1);
}

GemmCombination writtenCombination(const tir::Op &kernel,
                                   std::optional<ArchKind> arch,
                                   const KernelView *view) {
  GemmCombination facts;
  facts.arch = arch;
  readScheduleCombination(kernel.find("tile.schedule"), facts);
  facts.grouped = kernel.find("tile.group") != nullptr;
  if (const tir::Op *scale = kernel.find("tile.scale"))
    facts.blockScale = scale->symbol;
  for (const WrittenEpilogueOp &written : writtenEpilogueOps(kernel))
    facts.epilogueOps.push_back(written.op);
  if (!view)
    return facts;
  facts.batched = view->batch.has_value();
  facts.grouped = facts.grouped || view->group.has_value();
  facts.weightQuant = view->weightQuant.has_value();
  facts.aType = view->aType;
  facts.bType = view->bType;
  facts.aMajor = view->aMajor;
  facts.bMajor = view->bMajor;
  return facts;
}

void reportCombinationBreaks(const tir::Op &kernel,
                             const std::vector<GemmCombinationBreak> &breaks,
                             DiagnosticEngine &diags, llvm::SMLoc batchLoc) {
  const tir::Op *schedule = kernel.find("tile.schedule");
  auto scheduleLoc = [&](const char *key) {
    if (!schedule)
      return kernel.loc;
    return key ? attrLoc(*schedule, key) : schedule->loc;
  };
  std::vector<WrittenEpilogueOp> ops;
  for (const GemmCombinationBreak &broken : breaks) {
    llvm::SMLoc loc = kernel.loc;
    using Item = GemmCombinationItem;
    switch (broken.item) {
    case Item::Schedule:
      loc = scheduleLoc(nullptr);
      break;
    case Item::ScheduleSwapAB:
      loc = scheduleLoc("swap_ab");
      break;
    case Item::ScheduleSplitK:
      loc = scheduleLoc("split_k");
      break;
    case Item::SchedulePersist:
      loc = scheduleLoc("persistent");
      break;
    case Item::ScheduleClusterM:
      loc = scheduleLoc("cluster_m");
      break;
    case Item::ScheduleClusterN:
      loc = scheduleLoc("cluster_n");
      break;
    case Item::Batch:
      loc = batchLoc.isValid() ? batchLoc : kernel.loc;
      break;
    case Item::Group:
      if (const tir::Op *group = kernel.find("tile.group"))
        loc = group->loc;
      break;
    case Item::GroupBatch:
      continue;
    case Item::MajorA:
      loc = operandAttrLoc(kernel, "a", "major");
      break;
    case Item::MajorB:
      loc = operandAttrLoc(kernel, "b", "major");
      break;
    case Item::TypeA:
      loc = operandAttrLoc(kernel, "a", "dtype");
      break;
    case Item::WeightType:
      loc = operandAttrLoc(kernel, "b", "dtype");
      break;
    case Item::Weight:
      if (const tir::Op *b = kernel.find("tile.operand", "b"))
        loc = b->loc;
      break;
    case Item::BlockScale:
      if (const tir::Op *scale = kernel.find("tile.scale"))
        loc = scale->loc;
      break;
    case Item::TileBM:
    case Item::TileBN:
    case Item::TileBK:
      if (const tir::Op *tile = kernel.find("tile.tile"))
        loc = attrLoc(*tile, broken.item == Item::TileBM   ? "bm"
                             : broken.item == Item::TileBN ? "bn"
                                                           : "bk");
      break;
    case Item::EpilogueOp:
      if (ops.empty())
        ops = writtenEpilogueOps(kernel);
      if (broken.opIndex < ops.size())
        loc = ops[broken.opIndex].loc;
      break;
    }
    diags.error(loc, broken.message);
  }
}

} // namespace tilec
