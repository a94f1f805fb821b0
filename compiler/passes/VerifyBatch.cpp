//===- compiler/passes/VerifyBatch.cpp - Rules of batched kernels ---------===//
#include "compiler/passes/VerifyBatch.h"

#include "compiler/passes/KernelCombination.h"

#include <string>

namespace tilec {

namespace {

/// The batch extent of operand \p name of \p kernel: the first of a
/// 3-extent shape, or null.
const tir::Attr *batchExtent(const tir::Op &kernel, llvm::StringRef name) {
  const tir::Op *op = kernel.find("tile.operand", name);
  const tir::Attr *shape = op ? op->get("shape") : nullptr;
  if (!shape || !shape->isList() || shape->list.size() != 3)
    return nullptr;
  return &shape->list[0];
}

std::string extentText(const tir::Attr &extent) {
  return extent.isInt() ? std::to_string(extent.intValue) : extent.str;
}

bool sameExtent(const tir::Attr &x, const tir::Attr &y) {
  return x.kind == y.kind && x.intValue == y.intValue && x.str == y.str;
}

} // namespace

void verifyBatch(const tir::Op &kernel, std::optional<ArchKind> arch,
                 DiagnosticEngine &diags) {
  const tir::Attr *a = batchExtent(kernel, "a"), *b = batchExtent(kernel, "b"),
                  *c = batchExtent(kernel, "c");
  if (!a && !b && !c)
    return;
  auto locOf = [&](const tir::Attr *extent, llvm::StringRef operand) {
    if (extent && extent->loc.isValid())
      return extent->loc;
    const tir::Op *op = kernel.find("tile.operand", operand);
    return op ? attrLoc(*op, "shape") : kernel.loc;
  };
  // The extent itself: a run-time name or a positive count.
  for (auto [extent, name] : {std::pair{a, "a"}, {b, "b"}, {c, "c"}}) {
    if (!extent)
      continue;
    if (extent->isInt() && extent->intValue <= 0)
      diags.error(locOf(extent, name),
                  "the batch extent of operand " + std::string(name) +
                      " must be positive, got " +
                      std::to_string(extent->intValue) +
                      "; write a count or a name (B) for a run-time batch");
    if (extent->isIdent() &&
        (extent->str == "M" || extent->str == "N" || extent->str == "K"))
      diags.error(locOf(extent, name),
                  "the batch extent of operand " + std::string(name) +
                      " cannot be named " + extent->str +
                      ", an extent of the matrices; write e.g. [B, " +
                      (std::string(name) == "b" ? "N, K" : "M, ") +
                      (std::string(name) == "a"   ? "K"
                       : std::string(name) == "c" ? "N"
                                                  : "") +
                      "]");
  }
  // One batch extent for every batched operand: c's, else a's.
  const tir::Attr *ref = c ? c : a ? a : b;
  llvm::StringRef refName = c ? "c" : a ? "a" : "b";
  for (auto [extent, name] : {std::pair{a, "a"}, {b, "b"}}) {
    if (!extent || extent == ref || sameExtent(*extent, *ref))
      continue;
    diags.error(locOf(extent, name),
                "operand " + std::string(name) + " has batch extent '" +
                    extentText(*extent) + "' but " + refName.str() + " has '" +
                    extentText(*ref) +
                    "'; batched operands share one batch extent (write '" +
                    extentText(*ref) + "')");
    diags.note(locOf(ref, refName), refName + " declares its batch here");
  }
  if (!c) {
    const tir::Attr *batched = a ? a : b;
    const char *which = a ? "a" : "b";
    diags.error(locOf(nullptr, "c"),
                std::string("operand ") + which +
                    " is batched (batch extent '" + extentText(*batched) +
                    "') but c is not: each batch writes its own C; write c "
                    ": T[" +
                    extentText(*batched) + ", M, N]");
    diags.note(locOf(batched, which), "the batch extent is here");
  } else if (!a && !b) {
    diags.error(locOf(c, "c"),
                "operand c is batched but neither a nor b is, so every batch "
                "would compute the same product; give a or b the batch "
                "extent '" +
                    extentText(*c) + "' too, e.g. a : T[" + extentText(*c) +
                    ", M, K]");
  }
  // What the batch combines with (GemmCombinationRules.h).
  GemmCombination facts = writtenCombination(kernel, arch, nullptr);
  facts.batched = true;
  reportCombinationBreaks(kernel, batchBreaks(facts), diags,
                          locOf(ref, refName));
}

} // namespace tilec
