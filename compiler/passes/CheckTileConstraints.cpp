//===- compiler/passes/CheckTileConstraints.cpp - MMA atom vs swizzle atom ===//
//
// Seed 004's two independent constraints, each checked on its own and
// reported with its own message:
// - the MMA atom: BM, BN, BK must be multiples of the instruction's M, N, K
//   (times the warpgroup count along M for wgmma);
// - the swizzle atom: the smem tile of a (BM x BK) and b (BN x BK) must be a
//   whole number of atoms: the contiguous extent a multiple of the atom's
//   span in elements, the other a multiple of its 8 rows; the atom must
//   match the operand's majorness and type.
// A tile can pass one and fail the other: BM = 32 with an SW32 atom passes
// the swizzle atom (32 = 2 x 16) and fails the wgmma atom (M = 64), and the
// message says so.
//
//===----------------------------------------------------------------------===//
#include "compiler/passes/Passes.h"

#include "compiler/passes/KernelView.h"
#include "compiler/passes/SmemAtoms.h"
#include "ir/arch/InstrTable.h"
#include "ir/layout/LayoutExpr.h"
#include "llvm/ADT/STLExtras.h"

namespace tilec {

namespace {

/// The atom of one operand and whether it divides each tile extent.
struct AtomCheck {
  std::optional<SmemAtom> atom;
  bool mnOk = true, kOk = true;
  unsigned mnElems = 0, kElems = 0; ///< The atom's extents.
};

AtomCheck checkAtom(const tir::Op *smem, char operand, const KernelView &view) {
  AtomCheck check;
  if (!smem)
    return check;
  std::optional<SmemAtom> atom =
      parseAtomName(llvm::StringRef(smem->getText("atom")).split('<').first,
                    view.operandType(operand));
  if (!atom)
    return check;
  // The dtype in the atom's name, if written, wins over the operand's.
  if (std::optional<SmemAtom> named = findAtomInText(smem->getText("atom")))
    atom = named;
  check.atom = atom;
  bool kMajor = atom->major == MajorKind::K;
  check.kElems = kMajor ? atom->contiguousElems() : 8;
  check.mnElems = kMajor ? 8 : atom->contiguousElems();
  check.mnOk = view.mnExtent(operand) % check.mnElems == 0;
  check.kOk = view.bk % check.kElems == 0;
  return check;
}

class Checker {
public:
  Checker(tir::Op &kernel, const KernelView &view, DiagnosticEngine &diags)
      : kernel(kernel), view(view), diags(diags) {}

  void run();

private:
  void checkSwizzle(char operand, const AtomCheck &check);
  void checkShape(char operand);
  void checkMma();
  void checkCtaGroup(const InstrName &name);
  void checkClusterPairs();
  void checkColumnCluster();

  tir::Op &kernel;
  const KernelView &view;
  DiagnosticEngine &diags;
  AtomCheck atoms[2];
};

llvm::SMLoc tileLoc(const tir::Op &kernel, llvm::StringRef key) {
  const tir::Op *tile = kernel.find("tile.tile");
  return tile ? attrLoc(*tile, key) : kernel.loc;
}

void Checker::checkSwizzle(char operand, const AtomCheck &check) {
  if (!check.atom)
    return;
  const tir::Op *smem = kernel.find("tile.smem", std::string(1, operand));
  llvm::SMLoc loc = attrLoc(*smem, "layout");
  const SmemAtom &atom = *check.atom;
  std::string op(1, operand);
  if (atom.major != view.operandMajor(operand)) {
    diags.error(
        loc, "smem " + op + " uses the " + atom.name() + " atom, which is " +
                 (atom.major == MajorKind::K ? "K" : "MN") +
                 "-major, but operand " + op + " is " +
                 (view.operandMajor(operand) == MajorKind::K ? "K" : "MN") +
                 "-major; use a " +
                 (view.operandMajor(operand) == MajorKind::K ? "K_" : "MN_") +
                 " atom");
    return;
  }
  if (atom.dtype != view.operandType(operand)) {
    diags.error(loc, "smem " + op + " uses " + atom.nameWithType() +
                         " but operand " + op + " holds " +
                         dtypeInfo(view.operandType(operand)).name);
    return;
  }
  // A CTA pair stages half of the tile's rows in each CTA.
  std::string mnName = std::string(view.mnTileName(operand)) +
                       (view.ctaGroup == 2 ? " / 2" : "");
  if (!check.mnOk)
    diags.error(tileLoc(kernel, view.mnTileKey(operand)),
                mnName + " = " + std::to_string(view.mnExtent(operand)) +
                    " is not a multiple of " + std::to_string(check.mnElems) +
                    ", the " + (operand == 'a' ? "M" : "N") +
                    " extent of the " + atom.nameWithType() +
                    " swizzle atom of smem " + op +
                    (view.ctaGroup == 2
                         ? " (each CTA of the pair stages " + mnName + " rows)"
                         : std::string()));
  if (!check.kOk) {
    std::string hint;
    if (atom.major == MajorKind::K)
      for (const SwizzleInfo &mode : llvm::reverse(allSwizzles())) {
        SmemAtom smaller{atom.major, mode.kind, atom.dtype};
        if (mode.bytes < atom.spanBytes() &&
            view.bk % smaller.contiguousElems() == 0) {
          hint = " (a " + smaller.name() + " atom would fit)";
          break;
        }
      }
    diags.error(tileLoc(kernel, "bk"),
                "BK = " + std::to_string(view.bk) + " is not a multiple of " +
                    std::to_string(check.kElems) + ", the K extent of the " +
                    atom.nameWithType() + " swizzle atom of smem " + op + hint);
  }
}

/// The smem layout must map the stage's (MN, K) coordinates: rank 2 with
/// mode sizes (BM or BN, BK).
void Checker::checkShape(char operand) {
  const tir::Op *smem = kernel.find("tile.smem", std::string(1, operand));
  if (!smem || !smem->get("layout") || !smem->get("layout")->isString())
    return;
  std::string op(1, operand);
  llvm::SMLoc loc = attrLoc(*smem, "layout");
  // A layout the passes derived (no smem line) that does not evaluate
  // follows from a tile error already reported at the tile line.
  bool derived = !loc.isValid();
  llvm::Expected<LayoutValue> value =
      evaluateLayoutExpr(smem->getText("layout"));
  if (!value && derived && diags.errorCount() != 0) {
    llvm::consumeError(value.takeError());
    return;
  }
  if (derived)
    loc = tileLoc(kernel, view.mnTileKey(operand));
  if (!value) {
    LayoutExprDiag diag = toLayoutExprDiag(value.takeError());
    diags.error(loc, "smem " + op + ": " + diag.message + " (column " +
                         llvm::Twine(diag.column + 1) + ")");
    return;
  }
  const Layout *layout = nullptr;
  if (value->isLayout())
    layout = &value->getLayout();
  else if (value->isComposed())
    layout = &value->getComposed().layout;
  std::string mnName = view.mnTileName(operand);
  std::string want = mnName +
                     " x BK = " + std::to_string(view.mnExtent(operand)) +
                     " x " + std::to_string(view.bk);
  if (!layout || layout->rank() != 2) {
    diags.error(loc, "smem " + op + " must be a layout of rank 2, (" + mnName +
                         ", BK) = (" + std::to_string(view.mnExtent(operand)) +
                         ", " + std::to_string(view.bk) + "); got " +
                         value->str());
    return;
  }
  int64_t mn = layout->mode(0).size(), k = layout->mode(1).size();
  if (mn != view.mnExtent(operand) || k != view.bk)
    diags.error(loc, "smem " + op + " is " + std::to_string(mn) + " x " +
                         std::to_string(k) + " elements, but a stage of " + op +
                         " is " + want);
}

void Checker::checkMma() {
  tir::Op *mma = kernel.find("tile.mma");
  if (!mma)
    return;
  std::optional<InstrName> name = parseInstrName(mma->getText("instr"));
  if (!name) {
    if (mma->getText("instr") == "auto")
      diags.error(mma->loc, "kernel '" + kernel.symbol +
                                "' has no instruction yet; run "
                                "choose-instruction before "
                                "check-tile-constraints");
    return;
  }
  std::string family = familyName(name->family).str();
  if (name->family == MmaFamilyKind::Tcgen05)
    checkCtaGroup(*name);
  int64_t warpgroups = mma->getInt("warpgroups").value_or(1);
  // The swizzle atom that alone would allow a rejected extent.
  auto alone = [&](int index, bool mnSide) -> std::string {
    const AtomCheck &check = atoms[index];
    if (!check.atom || !(mnSide ? check.mnOk : check.kOk))
      return "";
    return " (the " + swizzleInfo(check.atom->mode).atomName.str() +
           " atom alone would allow it)";
  };
  int64_t mStep = int64_t(name->m) * warpgroups;
  if (view.bm % mStep != 0) {
    std::string what =
        warpgroups > 1
            ? std::to_string(mStep) + " = " + std::to_string(warpgroups) +
                  " warpgroups x the " + family +
                  " atom M = " + std::to_string(name->m)
            : "the " + family + " atom M = " + std::to_string(name->m);
    diags.error(tileLoc(kernel, "bm"), "BM = " + std::to_string(view.bm) +
                                           " is not a multiple of " + what +
                                           alone(0, true));
  }
  if (view.bn % name->n != 0) {
    // The shape table steps N by 16 on a CTA pair, by 8 in one CTA.
    std::string pair =
        name->family == MmaFamilyKind::Tcgen05 && view.ctaGroup == 2 &&
                view.bn % 8 == 0
            ? "; the CTA pair's tcgen05.mma.cta_group::2 takes N a multiple "
              "of 16 (one CTA's cta_group::1 a multiple of 8)"
            : "";
    diags.error(tileLoc(kernel, "bn"),
                "BN = " + std::to_string(view.bn) +
                    " is not a multiple of the " + family + " atom N = " +
                    std::to_string(name->n) + alone(1, true) + pair);
  }
  if (view.bk % name->k != 0) {
    std::string both = alone(0, false);
    if (both.empty())
      both = alone(1, false);
    diags.error(
        tileLoc(kernel, "bk"),
        "BK = " + std::to_string(view.bk) + " is not a multiple of the " +
            family + " atom K = " + std::to_string(name->k) + " (" +
            std::to_string(name->k * dtypeBits(view.aType) / 8) + " bytes of " +
            dtypeInfo(view.aType).name.str() + ")" + both);
  }
}

/// tcgen05.mma's .cta_group against the PTX ISA's shape table (9.7.16.10.1):
/// M = 64 or 128 with cta_group::1 (one CTA), M = 128 or 256 with
/// cta_group::2 (a CTA pair, which `schedule cluster(2)` asks for on
/// sm_100a). The pair issues one MMA per K step over its tile, so BM is the
/// MMA's M: 256 (128 rows per CTA, data path layout A) or 128 (64 rows per
/// CTA, layout B, 9.7.16.10.5).
void Checker::checkCtaGroup(const InstrName &name) {
  tir::Op *mma = kernel.find("tile.mma");
  llvm::SMLoc instrLoc = attrLoc(*mma, "instr");
  std::string shape = formatInstrName(name);
  if (view.ctaGroup == 1 && name.m == 256) {
    diags.error(instrLoc,
                shape + " is a cta_group::2 shape: M = 256 spans a CTA pair "
                        "(128 rows of A and D in each CTA); add 'schedule "
                        "cluster(2)' for the pair, or use M = 64 or 128 "
                        "(cta_group::1, one CTA)");
    return;
  }
  if (view.ctaGroup != 2)
    return;
  if (view.bm != 256 && view.bm != 128) {
    diags.error(tileLoc(kernel, "bm"),
                "BM = " + std::to_string(view.bm) +
                    ": with schedule cluster(2) on sm_100a BM is the CTA "
                    "pair's tile, the M of one tcgen05.mma.cta_group::2, so "
                    "BM must be 256 (128 rows per CTA) or 128 (64 rows per "
                    "CTA)");
    return;
  }
  std::string rest =
      "n" + std::to_string(name.n) + "k" + std::to_string(name.k);
  if (name.m == 64)
    diags.error(instrLoc,
                shape +
                    ": schedule cluster(2) issues tcgen05.mma.cta_group::2, "
                    "which takes M = 128 or 256 (PTX ISA shape table), "
                    "not 64; with BM = " +
                    std::to_string(view.bm) + " write tcgen05.mma.m" +
                    std::to_string(view.bm) + rest + " or auto");
  else if (name.m != view.bm)
    diags.error(instrLoc,
                shape + " with schedule cluster(2) and BM = " +
                    std::to_string(view.bm) +
                    ": the CTA pair issues one tcgen05.mma.cta_group::2 per "
                    "K step over its BM rows, so M must equal BM (write "
                    "tcgen05.mma.m" +
                    std::to_string(view.bm) + rest +
                    " or auto, or make BM = " + std::to_string(name.m) + ")");
}

/// `schedule cluster(4)` on sm_100a (two CTA pairs, docs/sm100.md,
/// "Clusters of two pairs"): each CTA loads BN / 4 rows of a K-major B and
/// multicasts them to its counterpart in the other pair, so BN / 4 is whole
/// 8-row swizzle atoms.
void Checker::checkClusterPairs() {
  const tir::Op *schedule = kernel.find("tile.schedule");
  const tir::Attr *cluster = schedule ? schedule->get("cluster_m") : nullptr;
  if (view.ctaGroup != 2 || !cluster || !cluster->isInt() ||
      cluster->intValue != 4)
    return;
  if (view.bm != 256)
    diags.error(tileLoc(kernel, "bm"),
                "BM = " + std::to_string(view.bm) +
                    ": with schedule cluster(4) on sm_100a each of the two "
                    "CTA pairs runs the M = 256 tcgen05.mma.cta_group::2 "
                    "(128 rows per CTA), so BM must be 256; the M = 128 "
                    "pair (BM = 128) takes cluster(2)");
  if (view.bMajor != MajorKind::K)
    diags.error(attrLoc(*schedule, "cluster_m"),
                "cluster(4) multicasts a K-major B tile (each CTA loads BN / "
                "4 of its rows), but b is MN-major; store b K-major or use "
                "cluster(2)");
  if (view.bn % 32 != 0)
    diags.error(tileLoc(kernel, "bn"),
                "BN = " + std::to_string(view.bn) +
                    " with schedule cluster(4): each CTA loads BN / 4 rows of "
                    "B, which must be whole 8-row swizzle atoms, so BN must "
                    "be a multiple of 32");
}

/// `schedule cluster_n(2)` (sm_90a): each CTA of the 1x2 cluster loads BM
/// / 2 rows of a K-major A and multicasts them to both.
void Checker::checkColumnCluster() {
  const tir::Op *schedule = kernel.find("tile.schedule");
  const tir::Attr *columns = schedule ? schedule->get("cluster_n") : nullptr;
  if (!columns || !columns->isInt() || columns->intValue != 2)
    return;
  if (view.aMajor != MajorKind::K)
    diags.error(attrLoc(*schedule, "cluster_n"),
                "cluster_n(2) multicasts a K-major A tile (each CTA loads "
                "BM / 2 of its rows), but a is MN-major; store a K-major or "
                "drop cluster_n(2)");
}

void Checker::run() {
  atoms[0] = checkAtom(kernel.find("tile.smem", "a"), 'a', view);
  atoms[1] = checkAtom(kernel.find("tile.smem", "b"), 'b', view);
  checkClusterPairs();
  checkColumnCluster();
  checkMma();
  checkSwizzle('a', atoms[0]);
  checkShape('a');
  checkSwizzle('b', atoms[1]);
  checkShape('b');
}

} // namespace

bool runCheckTileConstraintsPass(tir::Op &module, PassContext &context) {
  unsigned before = context.diags.errorCount();
  for (tir::Op &kernel : module.body) {
    if (kernel.name != "tile.kernel")
      continue;
    std::optional<KernelView> view = KernelView::getOrReport(
        kernel, context.diags, "check-tile-constraints");
    if (!view)
      continue;
    Checker(kernel, *view, context.diags).run();
  }
  return context.diags.errorCount() == before;
}

} // namespace tilec
