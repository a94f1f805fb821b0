//===- compiler/passes/ChooseSmemLayouts.cpp - Pick swizzle atoms ---------===//
//
// Seed 000's rule: use the largest swizzle atom that fits the tile's
// contiguous extent, because the atom's span sets the width of the global
// loads (SW128 gives 128-byte requests). The contiguous extent is BK for a
// K-major operand and BM (a) or BN (b) for an MN-major one; an atom fits when
// its span divides the extent's bytes. The layout is then
// tile_to_shape(ATOM<T>, (MN extent, BK)).
//
// Explicit layouts are kept; the pass records the atom they name so the
// tile-constraint check can use it.
//
//===----------------------------------------------------------------------===//
#include "compiler/passes/Passes.h"

#include "codegen/GemmTarget.h"
#include "compiler/passes/KernelView.h"
#include "compiler/passes/SmemAtoms.h"
#include "ir/layout/WeightPack.h"
#include "llvm/ADT/STLExtras.h"

namespace tilec {

namespace {

void chooseForOperand(tir::Op &smem, const KernelView &view,
                      DiagnosticEngine &diags) {
  char operand = smem.symbol == "a" ? 'a' : 'b';
  DTypeKind dtype = view.operandType(operand);
  MajorKind major = view.operandMajor(operand);
  unsigned bits = dtypeBits(dtype);
  const tir::Attr *layout = smem.get("layout");
  if (!layout)
    return;
  if (!layout->isIdent("auto")) {
    if (smem.get("atom"))
      return; // Decided before (IR read back from text): keep the reason.
    if (std::optional<SmemAtom> atom = findAtomInText(layout->str)) {
      smem.set("atom", tir::Attr::string(atom->nameWithType(), layout->loc));
      smem.set("why", tir::Attr::string("given in the source"));
    }
    return;
  }
  // A quantized weight's stage is its packed blocks as stored (verify
  // has checked its rows % 16 and BK against the block's K).
  if (operand == 'b' && view.weightQuant) {
    bool mmaA = gemmTarget(view.arch).weightIsMmaA();
    smem.set("layout",
             tir::Attr::string(
                 packedWeightLayout(bits, view.weightRows(), view.bk).str(),
                 layout->loc));
    std::string order = "the packed " + std::to_string(bits) +
                        "-bit order (ir/layout/WeightPack.h): 16 x " +
                        std::to_string(packedWeightBlockK(bits)) + " blocks";
    std::string unit = bits == 4 ? "nibble" : "byte";
    smem.set("why",
             tir::Attr::string(
                 order +
                 (mmaA ? ", TMA-loaded as stored; each warp's 16 channels "
                         "are the wgmma A fragment's rows once dequantized; "
                       : " in the mma.sync B-fragment order, copied as "
                         "stored; ") +
                 "(n, k) -> " + unit + " offset"));
    return;
  }
  bool kMajor = major == MajorKind::K;
  std::string tileName = kMajor ? "BK" : (operand == 'a' ? "BM" : "BN");
  // A CTA pair stages half of the tile's M or N rows in each CTA.
  unsigned perCta = !kMajor && view.ctaGroup == 2 ? 2 : 1;
  std::string extentName = tileName + (perCta == 2 ? " / 2" : "");
  int64_t extent = kMajor ? view.bk : view.mnExtent(operand);
  int64_t bytes = extent * bits / 8;
  std::string typeName = dtypeInfo(dtype).name.str();
  std::string facts = std::string(1, operand) + " is " + (kMajor ? "K" : "MN") +
                      "-major; its contiguous extent " + extentName + " = " +
                      std::to_string(extent) + " x " + typeName + " = " +
                      std::to_string(bytes) + " bytes";
  // Errors point at the tile extent: that is what has to change.
  llvm::SMLoc extentLoc = smem.loc;
  if (const tir::Op *tile = view.kernel->find("tile.tile"))
    extentLoc = attrLoc(*tile, kMajor ? "bk" : (operand == 'a' ? "bm" : "bn"));
  if ((extent * bits) % 8 != 0) {
    diags.error(extentLoc, "no swizzle atom fits smem " + smem.symbol + ": " +
                               facts + " is not a whole number of bytes");
    return;
  }
  std::string skipped;
  for (const SwizzleInfo &mode : llvm::reverse(allSwizzles())) {
    if (bytes % mode.bytes != 0) {
      skipped += (skipped.empty() ? "" : ", ") + mode.atomName.str() +
                 " needs " + (bytes < mode.bytes ? "" : "a multiple of ") +
                 std::to_string(mode.bytes) + " bytes";
      continue;
    }
    SmemAtom atom{major, mode.kind, dtype};
    // sm_90a and sm_100a stage an MN-major tile K first: each TMA box (one
    // swizzle span along MN x BK) lands as one contiguous run of atoms.
    bool kFirst = !kMajor && gemmTarget(view.arch).stagesMnMajorKFirst();
    std::string text = "tile_to_shape(" + atom.nameWithType() + ", (" +
                       std::to_string(view.mnExtent(operand)) + ", " +
                       std::to_string(view.bk) + ")" +
                       (kFirst ? ", (1, 0))" : ")");
    smem.set("layout", tir::Attr::string(text, layout->loc));
    smem.set("atom", tir::Attr::string(atom.nameWithType()));
    smem.set("why", tir::Attr::string(
                        "largest swizzle atom that fits the contiguous "
                        "extent: " +
                        facts + (skipped.empty() ? "" : "; " + skipped) +
                        (kFirst ? "; tiled K first (order (1, 0)), as the " +
                                      archInfo(view.arch).name.str() +
                                      " TMA boxes fill it"
                                : "")));
    return;
  }
  diags.error(extentLoc,
              "no swizzle atom fits smem " + smem.symbol + ": " + facts +
                  ", but every atom spans a multiple of 16 bytes; make " +
                  tileName + " a multiple of " +
                  std::to_string(perCta * 128 / bits) + " (16 bytes of " +
                  typeName + (perCta == 2 ? " in each CTA of the pair" : "") +
                  ")");
}

} // namespace

bool runChooseSmemLayoutsPass(tir::Op &module, PassContext &context) {
  unsigned before = context.diags.errorCount();
  for (tir::Op &kernel : module.body) {
    if (kernel.name != "tile.kernel")
      continue;
    std::optional<KernelView> view =
        KernelView::getOrReport(kernel, context.diags, "choose-smem-layouts");
    if (!view)
      continue;
    for (tir::Op &op : kernel.body)
      if (op.name == "tile.smem" && (op.symbol == "a" || op.symbol == "b"))
        chooseForOperand(op, *view, context.diags);
  }
  return context.diags.errorCount() == before;
}

} // namespace tilec
