//===- compiler/passes/Lower.cpp - Tile IR to GemmSpec --------------------===//
//
// The last pass: every decision must be made (no `auto` left, a pipeline
// plan present), and each kernel becomes one GemmSpec (ir/tile/GemmSpec.h) in
// PassContext::specs, in module order, for code generation.
//
//===----------------------------------------------------------------------===//
#include "compiler/passes/Passes.h"

#include "codegen/EpilogueMath.h"
#include "codegen/GemmTarget.h"
#include "compiler/passes/KernelView.h"
#include "ir/layout/LayoutExpr.h"

#include "llvm/Support/Path.h"

namespace tilec {

namespace {

bool lowerKernel(tir::Op &kernel, const KernelView &view,
                 DiagnosticEngine &diags, GemmSpec &spec) {
  bool ok = true;
  auto undecided = [&](llvm::SMLoc loc, llvm::StringRef what,
                       llvm::StringRef pass) {
    diags.error(loc, "kernel '" + kernel.symbol + "' still has " + what +
                         "; the " + pass +
                         " pass decides it (add it to --passes)");
    ok = false;
  };
  for (const tir::Op &op : kernel.body)
    if (op.name == "tile.smem" && op.get("layout") &&
        op.get("layout")->isIdent("auto"))
      undecided(op.loc, "'smem " + op.symbol + " = auto'",
                "choose-smem-layouts");
  const tir::Op *mma = kernel.find("tile.mma");
  if (mma && mma->getText("instr") == "auto")
    undecided(mma->loc, "'mma auto'", "choose-instruction");
  if (!kernel.find("tile.pipeline"))
    undecided(kernel.loc, "no pipeline plan", "plan-pipeline");
  if (!view.cRowMajor) {
    const tir::Op *c = kernel.find("tile.operand", "c");
    diags.error(c ? attrLoc(*c, "major") : kernel.loc,
                "lowering supports c major(N) (row-major C) only; c is "
                "major(M)");
    ok = false;
  }
  if (!ok)
    return false;
  spec = view.spec();
  // The smem layouts as values: what the passes decided, evaluated once
  // more by the layout library.
  for (char operand : {'a', 'b'}) {
    const tir::Op *smem = kernel.find("tile.smem", std::string(1, operand));
    if (!smem)
      continue;
    llvm::Expected<LayoutValue> value =
        evaluateLayoutExpr(smem->getText("layout"));
    std::optional<ComposedLayout> layout;
    if (!value) {
      LayoutExprDiag diag = toLayoutExprDiag(value.takeError());
      diags.error(attrLoc(*smem, "layout"),
                  "smem " + smem->symbol + ": " + diag.message);
      ok = false;
      continue;
    }
    if (value->isComposed())
      layout = value->getComposed();
    else if (value->isLayout())
      layout = ComposedLayout(Swizzle(), 0, value->getLayout());
    else {
      diags.error(attrLoc(*smem, "layout"), "smem " + smem->symbol +
                                                " must be a layout, not " +
                                                value->str());
      ok = false;
      continue;
    }
    (operand == 'a' ? spec.smemA : spec.smemB) = std::move(layout);
  }
  // Where the MMA and its operands' smem layouts were written, for the
  // --annotate comments of codegen.
  llvm::SourceMgr &sources = diags.getSourceMgr();
  auto where = [&](const tir::Op *op, llvm::StringRef what) -> std::string {
    if (!op || !op->loc.isValid())
      return "";
    unsigned buffer = sources.FindBufferContainingLoc(op->loc);
    if (!buffer)
      return "";
    llvm::StringRef name = llvm::sys::path::filename(
        sources.getMemoryBuffer(buffer)->getBufferIdentifier());
    return (spec.annotateSource.empty() ? "" : ", ") + name.str() + ":" +
           std::to_string(sources.FindLineNumber(op->loc, buffer)) + " (" +
           what.str() + ")";
  };
  // The same locations as lines, for PTX line directives.
  auto lineOf = [&](const tir::Op *op) -> unsigned {
    if (!op || !op->loc.isValid())
      return 0;
    unsigned buffer = sources.FindBufferContainingLoc(op->loc);
    return buffer ? sources.FindLineNumber(op->loc, buffer) : 0;
  };
  if (unsigned buffer = sources.FindBufferContainingLoc(kernel.loc)) {
    llvm::StringRef path =
        sources.getMemoryBuffer(buffer)->getBufferIdentifier();
    spec.source.file = llvm::sys::path::filename(path).str();
    spec.source.directory = llvm::sys::path::parent_path(path).str();
  }
  spec.source.kernel = lineOf(&kernel);
  spec.source.smemA = lineOf(kernel.find("tile.smem", "a"));
  spec.source.smemB = lineOf(kernel.find("tile.smem", "b"));
  spec.source.mma = lineOf(mma);
  spec.source.epilogue = lineOf(kernel.find("tile.epilogue"));
  spec.annotateSource += where(mma, "mma");
  spec.annotateSource += where(kernel.find("tile.smem", "a"), "smem a");
  spec.annotateSource += where(kernel.find("tile.smem", "b"), "smem b");
  // --emit=lowered: where the epilogue's ops run.
  if (tir::Op *epilogue = kernel.find("tile.epilogue"))
    if (std::string where = describeEpiloguePlacement(spec); !where.empty())
      epilogue->set("applied", tir::Attr::string(where));
  // --emit=lowered: how the batch maps onto the grid.
  if (tir::Op *c = kernel.find("tile.operand", "c"); c && spec.batch)
    c->set("batch",
           tir::Attr::string(gemmTarget(spec.arch).describeBatch(spec)));
  // --emit=lowered: how the groups are walked.
  if (tir::Op *group = kernel.find("tile.group"))
    if (std::string how = gemmTarget(spec.arch).describeGroup(spec);
        !how.empty())
      group->set("applied", tir::Attr::string(how));
  // --emit=lowered: how the block scales are applied.
  if (tir::Op *scale = kernel.find("tile.scale"))
    if (std::string how = gemmTarget(spec.arch).describeBlockScale(spec);
        !how.empty())
      scale->set("promote", tir::Attr::string(how));
  if (const tir::Op *plan = kernel.find("tile.pipeline")) {
    const tir::Attr *warps = plan->get("warps");
    if (warps && warps->isList() && warps->list.size() == 2 &&
        warps->list[0].isInt() && warps->list[1].isInt()) {
      spec.warpsM = static_cast<unsigned>(warps->list[0].intValue);
      spec.warpsN = static_cast<unsigned>(warps->list[1].intValue);
    }
  }
  return ok;
}

} // namespace

bool runLowerPass(tir::Op &module, PassContext &context) {
  unsigned before = context.diags.errorCount();
  context.specs.clear();
  for (tir::Op &kernel : module.body) {
    if (kernel.name != "tile.kernel")
      continue;
    std::optional<KernelView> view =
        KernelView::getOrReport(kernel, context.diags, "lower");
    if (!view)
      continue;
    GemmSpec spec;
    if (lowerKernel(kernel, *view, context.diags, spec))
      context.specs.push_back(std::move(spec));
  }
  return context.diags.errorCount() == before;
}

} // namespace tilec
