//===- compiler/passes/KernelView.cpp - Typed facts of one kernel ---------===//
#include "compiler/passes/KernelView.h"
#include "codegen/GemmTarget.h"
#include "ir/arch/SwizzleMode.h"
#include "ir/tile/EpilogueOps.h"

namespace tilec {

llvm::SMLoc attrLoc(const tir::Op &op, llvm::StringRef key) {
  const tir::Attr *attr = op.get(key);
  if (attr && attr->loc.isValid())
    return attr->loc;
  return op.loc;
}

std::optional<KernelView> KernelView::get(tir::Op &kernel) {
  KernelView view;
  view.kernel = &kernel;
  std::optional<ArchKind> arch = parseArch(kernel.getText("arch"));
  if (!arch)
    return std::nullopt;
  view.arch = *arch;
  auto operand = [&](llvm::StringRef name, DTypeKind &type,
                     llvm::StringRef &major) {
    const tir::Op *op = kernel.find("tile.operand", name);
    if (!op)
      return false;
    std::optional<DTypeKind> dtype = parseDType(op->getText("dtype"));
    if (!dtype)
      return false;
    type = *dtype;
    major = op->getText("major");
    return true;
  };
  llvm::StringRef aMajor, bMajor, cMajor;
  if (!operand("a", view.aType, aMajor) || !operand("b", view.bType, bMajor) ||
      !operand("c", view.cType, cMajor))
    return std::nullopt;
  if (aMajor == "K")
    view.aMajor = MajorKind::K;
  else if (aMajor == "M")
    view.aMajor = MajorKind::MN;
  else
    return std::nullopt;
  if (bMajor == "K")
    view.bMajor = MajorKind::K;
  else if (bMajor == "N")
    view.bMajor = MajorKind::MN;
  else
    return std::nullopt;
  if (cMajor != "N" && cMajor != "M")
    return std::nullopt;
  view.cRowMajor = cMajor == "N";
  // A : [M, K], B : [N, K]: an integer in the shape fixes that extent.
  auto fixedExtent = [&](llvm::StringRef name,
                         unsigned index) -> std::optional<int64_t> {
    const tir::Op *op = kernel.find("tile.operand", name);
    const tir::Attr *shape = op ? op->get("shape") : nullptr;
    if (!shape || !shape->isList() || shape->list.size() < 2)
      return std::nullopt;
    // Past a leading batch extent.
    index += unsigned(shape->list.size()) - 2;
    if (shape->list.size() <= index || !shape->list[index].isInt())
      return std::nullopt;
    return shape->list[index].intValue;
  };
  // A leading batch extent (`a : bf16[B, M, K]`); verify checks that the
  // batched operands share it and that c has it.
  auto batchOf = [&](llvm::StringRef name) -> const tir::Attr * {
    const tir::Op *op = kernel.find("tile.operand", name);
    const tir::Attr *shape = op ? op->get("shape") : nullptr;
    return shape && shape->isList() && shape->list.size() == 3 ? &shape->list[0]
                                                               : nullptr;
  };
  // A grouped kernel: b's leading extent is the group count
  // (VerifyGroup checks the shapes).
  if (const tir::Op *group = kernel.find("tile.group")) {
    llvm::StringRef mode = group->getText("mode");
    if (mode != "contiguous" && mode != "masked")
      return std::nullopt;
    GroupSpec spec;
    spec.kind = mode == "masked" ? GroupKind::Masked : GroupKind::Contiguous;
    const tir::Attr *g = batchOf("b");
    spec.fixedCount = g && g->isInt() ? g->intValue : 0;
    view.group = spec;
  } else if (const tir::Attr *c = batchOf("c")) {
    BatchSpec batch;
    batch.fixedCount = c->isInt() ? c->intValue : 0;
    batch.aBatched = batchOf("a") != nullptr;
    batch.bBatched = batchOf("b") != nullptr;
    view.batch = batch;
  }
  // `scale b bf16 group(128) [zero(u8)]` (VerifyWeightQuant checks it).
  if (const tir::Op *scale = kernel.find("tile.group_scale", "b")) {
    const tir::Attr *group = scale->get("group");
    std::optional<DTypeKind> scaleType = parseDType(scale->getText("dtype"));
    if (!group || !group->isList() || group->list.size() != 1 ||
        !group->list[0].isInt() || group->list[0].intValue <= 0 ||
        group->list[0].intValue > (1 << 16) || !scaleType)
      return std::nullopt;
    WeightQuantSpec quant;
    quant.group = static_cast<unsigned>(group->list[0].intValue);
    quant.scaleType = *scaleType;
    quant.zeros = !scale->getText("zero").empty();
    view.weightQuant = quant;
  }
  view.fixedM = fixedExtent("a", 0);
  view.fixedN = fixedExtent("b", 0);
  view.fixedK = fixedExtent("a", 1);
  if (!view.fixedK)
    view.fixedK = fixedExtent("b", 1);
  const tir::Op *acc = kernel.find("tile.acc");
  const tir::Op *tile = kernel.find("tile.tile");
  const tir::Op *stages = kernel.find("tile.stages");
  if (!acc || !tile || !stages)
    return std::nullopt;
  std::optional<DTypeKind> accType = parseDType(acc->getText("dtype"));
  if (!accType)
    return std::nullopt;
  view.accType = *accType;
  std::optional<int64_t> bm = tile->getInt("bm"), bn = tile->getInt("bn"),
                         bk = tile->getInt("bk"),
                         count = stages->getInt("count");
  if (!bm || !bn || !bk || !count || *bm <= 0 || *bn <= 0 || *bk <= 0 ||
      *count <= 0 || *bm > (1 << 16) || *bn > (1 << 16) || *bk > (1 << 16) ||
      *count > 64)
    return std::nullopt;
  view.bm = *bm;
  view.bn = *bn;
  view.bk = *bk;
  view.stages = *count;
  // A CTA pair's `schedule cluster(2)` (sm_100a): the MMA spans the pair.
  if (const tir::Op *schedule = kernel.find("tile.schedule");
      schedule && gemmTarget(view.arch).clusterIsCtaPair())
    if (const tir::Attr *cluster = schedule->get("cluster_m");
        cluster && cluster->isInt() &&
        (cluster->intValue == 2 || cluster->intValue == 4))
      view.ctaGroup = 2;
  return view;
}

std::optional<KernelView> KernelView::getOrReport(tir::Op &kernel,
                                                  DiagnosticEngine &diags,
                                                  llvm::StringRef passName) {
  std::optional<KernelView> view = get(kernel);
  if (!view)
    diags.error(kernel.loc, "kernel '" + kernel.symbol +
                                "' is not valid Tile IR, so " + passName +
                                " cannot run; run the verify pass first");
  return view;
}

int64_t KernelView::weightRows() const {
  return mnTileKey('b')[1] == 'm' ? bm : bn;
}

int64_t KernelView::mnExtent(char operand) const {
  return (mnTileKey(operand)[1] == 'm' ? bm : bn) / ctaGroup;
}

const char *KernelView::mnTileKey(char operand) const {
  bool swapped = weightQuant && gemmTarget(arch).weightIsMmaA();
  return (operand == 'a') != swapped ? "bm" : "bn";
}

const char *KernelView::mnTileName(char operand) const {
  return mnTileKey(operand)[1] == 'm' ? "BM" : "BN";
}

GemmSpec KernelView::spec() const {
  GemmSpec spec;
  spec.name = kernel->symbol;
  spec.arch = arch;
  spec.aType = aType;
  spec.bType = bType;
  spec.cType = cType;
  spec.accType = accType;
  spec.aMajor = aMajor;
  spec.bMajor = bMajor;
  spec.cMajor = cRowMajor ? MajorKind::MN : MajorKind::K;
  spec.fixedM = fixedM.value_or(0);
  spec.fixedN = fixedN.value_or(0);
  spec.fixedK = fixedK.value_or(0);
  spec.bm = static_cast<unsigned>(bm);
  spec.bn = static_cast<unsigned>(bn);
  spec.bk = static_cast<unsigned>(bk);
  spec.stages = static_cast<unsigned>(stages);
  spec.batch = batch;
  spec.group = group;
  spec.weightQuant = weightQuant;
  if (const tir::Op *schedule = kernel->find("tile.schedule")) {
    const tir::Attr *swap = schedule->get("swap_ab");
    const tir::Attr *split = schedule->get("split_k");
    spec.swapAB = swap && swap->isInt() && swap->intValue != 0;
    spec.splitK = split && split->isInt() && split->intValue > 1
                      ? static_cast<unsigned>(split->intValue)
                      : 1;
    const tir::Attr *group = schedule->get("persistent");
    const tir::Attr *cluster = schedule->get("cluster_m");
    spec.persistent = group && group->isInt() && group->intValue > 0;
    if (spec.persistent)
      spec.rasterGroupM = static_cast<unsigned>(group->intValue);
    spec.clusterM = cluster && cluster->isInt() && cluster->intValue > 1
                        ? static_cast<unsigned>(cluster->intValue)
                        : 1;
    const tir::Attr *columns = schedule->get("cluster_n");
    spec.clusterN = columns && columns->isInt() && columns->intValue > 1
                        ? static_cast<unsigned>(columns->intValue)
                        : 1;
  }
  if (const tir::Op *epilogue = kernel->find("tile.epilogue"))
    epilogueInto(*epilogue, spec);
  // `scale a/b f32 block(MN, K)`: verify allows only a block(1, 128) with
  // b block(128, 128), both present.
  const tir::Op *scaleA = kernel->find("tile.scale", "a");
  const tir::Op *scaleB = kernel->find("tile.scale", "b");
  if (scaleA || scaleB) {
    BlockScaleSpec scale;
    auto extent = [](const tir::Op *op, size_t i, unsigned &out) {
      const tir::Attr *block = op ? op->get("block") : nullptr;
      if (block && block->isList() && block->list.size() == 2 &&
          block->list[i].isInt() && block->list[i].intValue > 0)
        out = static_cast<unsigned>(block->list[i].intValue);
    };
    extent(scaleA, 0, scale.aRows);
    extent(scaleB, 0, scale.bRows);
    extent(scaleA ? scaleA : scaleB, 1, scale.kBlock);
    if (scaleA && scaleA->getText("major") == "M")
      scale.aMajor = MajorKind::MN;
    spec.blockScale = scale;
  }
  return spec;
}

std::vector<WrittenEpilogueOp> writtenEpilogueOps(const tir::Op &kernel) {
  std::vector<WrittenEpilogueOp> written;
  const tir::Op *epilogue = kernel.find("tile.epilogue");
  const tir::Attr *ops = epilogue ? epilogue->get("ops") : nullptr;
  if (!ops || !ops->isList())
    return written;
  for (const tir::Attr &op : ops->list)
    if (op.isEpilogueOp()) // verify reports the others
      written.push_back(
          {op.epilogueOp, op.loc.isValid() ? op.loc : epilogue->loc});
  return written;
}

void epilogueInto(const tir::Op &epilogue, GemmSpec &spec) {
  // plan-pipeline has replaced `auto`; verify allows `store` and
  // `stmatrix [swizzle(..)] -> tma_store`.
  spec.epilogueOps.clear();
  if (const tir::Attr *ops = epilogue.get("ops"); ops && ops->isList())
    for (const tir::Attr &op : ops->list)
      if (op.isEpilogueOp()) // verify has reported the others
        spec.epilogueOps.push_back(op.epilogueOp);
  const tir::Attr *steps = epilogue.get("steps");
  spec.storeTma = false;
  spec.storeSwizzleBytes = 0;
  if (!steps || !steps->isList())
    return;
  for (const tir::Attr &step : steps->list) {
    if (!step.isList() || step.list.empty() || step.list[0].str != "stmatrix")
      continue;
    spec.storeTma = true;
    for (size_t i = 1; i < step.list.size(); ++i) {
      std::optional<SwizzleKind> mode =
          swizzleOfEpilogueOption(step.list[i].str);
      spec.storeSwizzleBytes =
          swizzleInfo(mode.value_or(SwizzleKind::SW128)).bytes;
    }
  }
}

} // namespace tilec
