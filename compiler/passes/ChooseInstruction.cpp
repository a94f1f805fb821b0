//===- compiler/passes/ChooseInstruction.cpp - Pick the MMA instruction ---===//
//
// `mma auto` becomes the target's own family (mma.sync on sm_80, wgmma on
// sm_90a, tcgen05.mma on sm_100a), the instruction-table row for the
// operand and accumulator types, M = the row's (tcgen05: 128 when BM allows
// it; a CTA pair takes the cta_group::2 rows, M = 256 or 128), and the
// largest legal N that divides BN (fewer, wider instructions).
// If no N divides BN the smallest is taken and check-tile-constraints says
// why the tile is wrong. An explicit instruction only gets its PTX spelling.
//
//===----------------------------------------------------------------------===//
#include "compiler/passes/Passes.h"

#include "compiler/passes/KernelView.h"
#include "ir/arch/InstrTable.h"

namespace tilec {

namespace {

std::string describeTypes(const KernelView &view) {
  return dtypeInfo(view.aType).name.str() + " x " +
         dtypeInfo(view.mmaBType()).name.str() + " -> " +
         dtypeInfo(view.accType).name.str();
}

void chooseForKernel(tir::Op &mma, const KernelView &view,
                     DiagnosticEngine &diags) {
  llvm::StringRef instr = mma.getText("instr");
  if (instr != "auto") {
    std::optional<InstrName> name = parseInstrName(instr);
    if (!name)
      return; // verify reports it.
    InstrLookup lookup =
        lookupInstr(*name, view.arch, view.aType, view.mmaBType(), view.accType,
                    unsigned(view.ctaGroup));
    if (lookup.row)
      mma.set("ptx", tir::Attr::string(ptxSpelling(*lookup.row, name->n)));
    return;
  }
  MmaFamilyKind family = nativeFamily(view.arch);
  const InstrInfo *best = nullptr;
  bool typesExist = false;
  for (const InstrInfo &row : allInstrs()) {
    if (row.family != family || row.arch != view.arch ||
        row.aType != view.aType || row.bType != view.mmaBType() ||
        row.accType != view.accType)
      continue;
    typesExist = true;
    // A CTA pair (cluster(2) on sm_100a) issues cta_group::2 rows only.
    if (view.ctaGroup == 2 && row.ctaGroup != 2)
      continue;
    if ((view.aMajor == MajorKind::MN && !row.mnMajorA) ||
        (view.bMajor == MajorKind::MN && !row.mnMajorB))
      continue;
    // Prefer the larger M that the tile allows (tcgen05 M = 128).
    // (A pair's rows list M = 256 before 128: one that divides BM wins.)
    bool fits = view.bm % row.m == 0;
    if (!best || (fits && (row.m > best->m || view.bm % best->m != 0)))
      best = &row;
  }
  llvm::SMLoc loc = attrLoc(mma, "instr");
  if (!best) {
    if (!typesExist)
      diags.error(loc, "no " + familyName(family) + " instruction on " +
                           archInfo(view.arch).name + " takes " +
                           describeTypes(view) +
                           "; see the instruction table for legal types");
    else
      diags.error(loc, "no " + familyName(family) + " instruction on " +
                           archInfo(view.arch).name + " takes " +
                           describeTypes(view) +
                           " with an MN-major operand; make a and b "
                           "major(K)");
    return;
  }
  unsigned n = best->nMin;
  for (unsigned candidate = best->nMax; candidate >= best->nMin;
       candidate -= best->nStep) {
    if (best->allowsN(candidate) && view.bn % candidate == 0) {
      n = candidate;
      break;
    }
    if (candidate < best->nStep)
      break;
  }
  InstrName name{family, best->m, n, best->k};
  mma.set("instr", tir::Attr::ident(formatInstrName(name), loc));
  mma.set("ptx", tir::Attr::string(ptxSpelling(*best, n)));
  std::string why =
      familyName(family).str() + " is " + archInfo(view.arch).name.str() +
      "'s tensor-core instruction; the table row for " + describeTypes(view) +
      " has M = " + std::to_string(best->m) +
      ", K = " + std::to_string(best->k);
  if (best->nMin != best->nMax)
    why += "; N = " + std::to_string(n) +
           (view.bn % n == 0
                ? " is the largest legal N that divides BN = " +
                      std::to_string(view.bn)
                : " (no legal N divides BN = " + std::to_string(view.bn) + ")");
  mma.set("why", tir::Attr::string(why));
}

} // namespace

bool runChooseInstructionPass(tir::Op &module, PassContext &context) {
  unsigned before = context.diags.errorCount();
  for (tir::Op &kernel : module.body) {
    if (kernel.name != "tile.kernel")
      continue;
    std::optional<KernelView> view =
        KernelView::getOrReport(kernel, context.diags, "choose-instruction");
    if (!view)
      continue;
    if (tir::Op *mma = kernel.find("tile.mma"))
      chooseForKernel(*mma, *view, context.diags);
  }
  return context.diags.errorCount() == before;
}

} // namespace tilec
