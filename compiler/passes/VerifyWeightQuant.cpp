//===- compiler/passes/VerifyWeightQuant.cpp - Rules of quantized weights -===//
//
// The scale line first (operand, type, group, zero points), then what a
// quantized weight (u4, i4 always; u8, i8, e4m3, e5m2 with a group-scale
// line) asks of the rest of the kernel. Every message names the
// value written and what would be legal.
//
//===----------------------------------------------------------------------===//
#include "compiler/passes/VerifyWeightQuant.h"

#include "codegen/GemmTarget.h"
#include "compiler/passes/KernelCombination.h"
#include "ir/arch/DType.h"
#include "ir/layout/WeightPack.h"
#include "ir/tile/WeightQuant.h"

namespace tilec {

namespace {

bool isInt4(llvm::StringRef dtype) { return dtype == "u4" || dtype == "i4"; }

/// The weight format of a b declared \p dtype, or null.
const WeightFormatInfo *formatNamed(llvm::StringRef dtype) {
  std::optional<WeightFormatKind> format = parseWeightFormat(dtype);
  return format ? &weightFormatInfo(*format) : nullptr;
}

void verifyGroupScaleLine(const tir::Op &op, llvm::StringRef bType,
                          llvm::StringRef aType, DiagnosticEngine &diags) {
  if (op.symbol != "b") {
    diags.error(op.loc, "group scales apply to the quantized weight b, not '" +
                            op.symbol + "'; write 'scale b bf16 group(128)'");
    return;
  }
  const WeightFormatInfo *format = formatNamed(bType);
  if (!format)
    diags.error(op.loc, "'scale b ... group(..)' scales a quantized weight, "
                        "but b is " +
                            bType + "; declare 'b : u4[N, K] major(K)' (or " +
                            weightFormatNames() +
                            "), or write block scales "
                            "'scale b f32 block(128, 128)'");
  llvm::StringRef dtype = op.getText("dtype");
  if (dtype != "bf16" && dtype != "f16")
    diags.error(attrLoc(op, "dtype"),
                "group scales of type '" + dtype +
                    "' are not implemented; legal: bf16 or f16, the "
                    "activation a's type");
  else if ((aType == "bf16" || aType == "f16") && dtype != aType)
    diags.error(attrLoc(op, "dtype"),
                "group scales are " + dtype + " but a is " + aType +
                    "; the dequantized weight is a's type, so write 'scale "
                    "b " +
                    aType + " group(..)'");
  const tir::Attr *group = op.get("group");
  if (!group || !group->isList() || group->list.size() != 1 ||
      !group->list[0].isInt()) {
    diags.error(attrLoc(op, "group"),
                "group(..) takes one K extent; legal: group(32), group(64), "
                "group(128)");
  } else {
    int64_t g = group->list[0].intValue;
    if (!llvm::is_contained(WeightGroups, g))
      diags.error(group->list[0].loc.isValid() ? group->list[0].loc
                                               : attrLoc(op, "group"),
                  "group(" + llvm::Twine(g) +
                      ") is not implemented; legal: group(32), group(64), "
                      "group(128) (one scale per output channel and that "
                      "many K)");
  }
  llvm::StringRef zero = op.getText("zero");
  if (!zero.empty()) {
    if (zero != "u8")
      diags.error(attrLoc(op, "zero"),
                  "zero points of type '" + zero +
                      "' are not implemented; legal: zero(u8) (ZB u8[ceil(K "
                      "/ G), N], values up to 15 for u4, 255 for u8)");
    if (format && !format->takesZeros)
      diags.error(attrLoc(op, "zero"),
                  bType +
                      (format->isFloat
                           ? llvm::Twine(" is a float format and takes no "
                                         "zero points")
                           : " is symmetric (codes offset by " +
                                 llvm::Twine(format->codeOffset) +
                                 ") and takes no zero points") +
                      "; declare 'b : u4[N, K]' or 'u8' for zero points, or "
                      "drop zero(..)");
  }
}

/// The rules of a target whose kernel makes the weight the MMA's A
/// (GemmTarget::weightIsMmaA): swapped, its BK and weight-row tiles, no
/// cluster.
void verifyWeightAsMmaA(const tir::Op &kernel, const GemmTarget &target,
                        const KernelView &view, DiagnosticEngine &diags) {
  WeightAsMmaAFacts facts;
  facts.arch = target.arch();
  facts.bm = view.bm;
  facts.bk = view.bk;
  // A written schedule (not `auto`) says whether A and B swap.
  if (const tir::Op *schedule = kernel.find("tile.schedule");
      schedule && schedule->getText("mode") != "auto") {
    GemmCombination written;
    readScheduleCombination(schedule, written);
    facts.swapAB = written.swapAB;
    facts.clusterM = written.clusterM;
    facts.clusterN = written.clusterN;
  }
  reportCombinationBreaks(kernel, weightAsMmaABreaks(facts), diags);
}

/// What a quantized b asks of its kernel.
void verifyQuantKernel(const tir::Op &kernel, std::optional<ArchKind> arch,
                       const KernelView &view, DiagnosticEngine &diags) {
  unsigned bits = dtypeBits(view.bType);
  // What the weight combines with (GemmCombinationRules.h).
  GemmCombination facts = writtenCombination(kernel, arch, &view);
  facts.weightQuant = true;
  reportCombinationBreaks(kernel, weightQuantBreaks(facts), diags);
  if (const tir::Op *smem = kernel.find("tile.smem", "b"))
    if (const tir::Attr *layout = smem->get("layout");
        layout && !layout->isIdent("auto") &&
        !(layout->isString() && view.weightRows() % PackedWeightBlockN == 0 &&
          view.bk % packedWeightBlockK(bits) == 0 &&
          layout->str ==
              packedWeightLayout(bits, view.weightRows(), view.bk).str()))
      diags.error(attrLoc(*smem, "layout"),
                  "a quantized weight is staged in its packed order; write "
                  "'smem b = auto'");
  // The tile's rules (GemmCombinationRules.h), reported at BM, BN, BK.
  WeightTileFacts tile{bits, view.weightRows(), view.mnTileName('b'), view.bk,
                       view.weightQuant ? view.weightQuant->group : 0};
  reportCombinationBreaks(kernel, weightRowsBreaks(tile), diags);
  if (arch && gemmTarget(*arch).weightIsMmaA())
    verifyWeightAsMmaA(kernel, gemmTarget(*arch), view, diags);
  reportCombinationBreaks(kernel, weightKBreaks(tile), diags);
}

} // namespace

void verifyWeightQuant(const tir::Op &kernel, std::optional<ArchKind> arch,
                       const KernelView *view, DiagnosticEngine &diags) {
  const tir::Op *a = kernel.find("tile.operand", "a");
  const tir::Op *b = kernel.find("tile.operand", "b");
  const tir::Op *c = kernel.find("tile.operand", "c");
  for (const tir::Op *op : {a, c})
    if (op && isInt4(op->getText("dtype")))
      diags.error(attrLoc(*op, "dtype"),
                  "only b may be a 4-bit weight; " + op->symbol + " is " +
                      op->getText("dtype") + " (legal for " + op->symbol +
                      ": bf16, f16" + (op == c ? ", f32" : "") + ")");
  llvm::StringRef bType = b ? b->getText("dtype") : "";
  llvm::StringRef aType = a ? a->getText("dtype") : "";
  const tir::Op *scale = nullptr;
  for (const tir::Op &op : kernel.body)
    if (op.name == "tile.group_scale") {
      verifyGroupScaleLine(op, bType, aType, diags);
      scale = &op;
    }
  // u4 and i4 are always weights; an 8-bit b is one with group scales
  // (without, e4m3/e5m2 is the fp8 GEMM's operand).
  if (!b || !(isInt4(bType) || (scale && formatNamed(bType))))
    return;
  if (!scale)
    diags.error(b->loc,
                "the 4-bit weight b needs its group scales; add "
                "'scale b " +
                    (aType == "f16" ? llvm::StringRef("f16")
                                    : llvm::StringRef("bf16")) +
                    " group(128)'" +
                    (bType == "u4" ? " (and zero(u8) for zero points)" : ""));
  if (view)
    verifyQuantKernel(kernel, arch, *view, diags);
}

} // namespace tilec
