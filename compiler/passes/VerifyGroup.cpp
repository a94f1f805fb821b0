//===- compiler/passes/VerifyGroup.cpp - Rules of grouped kernels ---------===//
//
// One function per rule group: the group line, the operand shapes of its
// mode, then what the grouped kernel asks of the rest of the kernel. Every
// message names the value written and what would be legal.
//
//===----------------------------------------------------------------------===//
#include "compiler/passes/VerifyGroup.h"

#include "compiler/passes/KernelCombination.h"

#include <string>

namespace tilec {

namespace {

/// The shape attribute of operand \p name, or null.
const tir::Attr *shapeOf(const tir::Op &kernel, llvm::StringRef name) {
  const tir::Op *op = kernel.find("tile.operand", name);
  const tir::Attr *shape = op ? op->get("shape") : nullptr;
  return shape && shape->isList() ? shape : nullptr;
}

std::string extentText(const tir::Attr &extent) {
  return extent.isInt() ? std::to_string(extent.intValue) : extent.str;
}

bool sameExtent(const tir::Attr &x, const tir::Attr &y) {
  return x.kind == y.kind && x.intValue == y.intValue && x.str == y.str;
}

/// What each operand's shape is in \p masked mode, for messages.
const char *legalShape(char operand, bool masked) {
  switch (operand) {
  case 'a':
    return masked ? "[G, M, K] (M: the most rows of a group)"
                  : "[M, K] (the groups' rows stacked)";
  case 'b':
    return "[G, N, K] (one N x K matrix per group)";
  default:
    return masked ? "[G, M, N]" : "[M, N] (the groups' rows stacked)";
  }
}

/// The shapes of \p mode: the group extent G on b (and a, c when masked),
/// one G for all, none where the mode stacks rows.
void verifyShapes(const tir::Op &kernel, const tir::Op &group, bool masked,
                  DiagnosticEngine &diags) {
  const tir::Attr *ref = nullptr;
  char refOperand = 0;
  for (char operand : {'b', 'a', 'c'}) {
    std::string name(1, operand);
    const tir::Attr *shape = shapeOf(kernel, name);
    if (!shape)
      continue; // Verify reports the missing operand.
    const tir::Op *op = kernel.find("tile.operand", name);
    bool grouped = operand == 'b' || masked;
    size_t want = grouped ? 3 : 2;
    if (shape->list.size() != want) {
      diags.error(attrLoc(*op, "shape"),
                  "in a grouped kernel (group " +
                      std::string(masked ? "masked" : "contiguous") +
                      ") operand " + name + " is " +
                      legalShape(operand, masked) + ", not " +
                      std::to_string(shape->list.size()) + " extents" +
                      (!grouped ? "; a batch extent does not go with a "
                                  "group"
                                : ""));
      diags.note(group.loc, "the group line is here");
      continue;
    }
    if (!grouped)
      continue;
    const tir::Attr &g = shape->list[0];
    llvm::SMLoc loc = g.loc.isValid() ? g.loc : attrLoc(*op, "shape");
    if (g.isInt() && g.intValue <= 0)
      diags.error(loc, "the group count of operand " + name +
                           " must be positive, got " +
                           std::to_string(g.intValue) +
                           "; write a count or a name (G) for a run-time "
                           "count");
    if (g.isIdent() && (g.str == "M" || g.str == "N" || g.str == "K"))
      diags.error(loc, "the group count of operand " + name +
                           " cannot be named " + g.str +
                           ", an extent of the matrices; write e.g. " +
                           legalShape(operand, masked));
    if (!ref) {
      ref = &g;
      refOperand = operand;
      continue;
    }
    if (!sameExtent(g, *ref)) {
      diags.error(loc, "operand " + name + " has group count '" +
                           extentText(g) + "' but " + refOperand + " has '" +
                           extentText(*ref) +
                           "'; the grouped operands share one group count "
                           "(write '" +
                           extentText(*ref) + "')");
    }
  }
}

} // namespace

bool isGroupedKernel(const tir::Op &kernel) {
  return kernel.find("tile.group") != nullptr;
}

void verifyGroup(const tir::Op &kernel, std::optional<ArchKind> arch,
                 const KernelView *view, DiagnosticEngine &diags) {
  const tir::Op *group = kernel.find("tile.group");
  if (!group)
    return;
  llvm::StringRef mode = group->getText("mode");
  if (mode != "contiguous" && mode != "masked") {
    diags.error(attrLoc(*group, "mode"),
                "group '" + mode +
                    "' is not a grouping; legal: 'group contiguous' (A's "
                    "rows of all groups stacked, an int32 group index per "
                    "row) or 'group masked' (A is [G, M, K], an int32 row "
                    "count per group)");
    return;
  }
  verifyShapes(kernel, *group, mode == "masked", diags);
  // What the group combines with (GemmCombinationRules.h).
  reportCombinationBreaks(
      kernel, groupBreaks(writtenCombination(kernel, arch, view)), diags);
}

} // namespace tilec
