//===- compiler/passes/VerifyBatch.cpp - Rules of batched kernels ---------===//
#include "compiler/passes/VerifyBatch.h"

#include "codegen/GemmTarget.h"
#include "compiler/passes/KernelView.h"
#include "ir/tile/EpilogueOps.h"

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
  if (arch && !gemmTarget(*arch).hasBatch())
    diags.error(locOf(ref, refName), "batched GEMM is not implemented for " +
                                         archInfo(*arch).name.str() + "; " +
                                         batchTargetNames() +
                                         " kernels take a batch extent");
  // What the batch shares grid z or the tile loop with. sm_100a's
  // persistent CTAs walk batch x tiles: its persistent(G) and cluster(2)
  // stay legal, split-K (one GEMM's workspace and counters) does not.
  bool walksTiles = arch && gemmTarget(*arch).hasBatch() &&
                    gemmTarget(*arch).batchWalksTiles();
  if (const tir::Op *schedule = kernel.find("tile.schedule")) {
    const tir::Attr *split = schedule->get("split_k");
    const tir::Attr *group = schedule->get("persistent");
    const tir::Attr *cluster = schedule->get("cluster_m");
    if (walksTiles) {
      if (split && split->isInt() && split->intValue > 1)
        diags.error(attrLoc(*schedule, "split_k"),
                    "schedule split_k(" + std::to_string(split->intValue) +
                        ") is not implemented for a batched " +
                        archInfo(*arch).name.str() +
                        " kernel: its persistent CTAs walk batch x tiles, "
                        "and the split-K workspace and counters are one "
                        "GEMM's; drop split_k (swap_ab, persistent(G) and "
                        "cluster(2) are legal with a batch)");
    } else if (split && split->isInt() && split->intValue > 1)
      diags.error(attrLoc(*schedule, "split_k"),
                  "schedule split_k is not implemented for a batched kernel: "
                  "the batch takes grid z, which split-K's splits use; drop "
                  "split_k (one CTA per tile and batch)");
    if (!walksTiles && group && group->isInt() && group->intValue > 0)
      diags.error(attrLoc(*schedule, "persistent"),
                  "schedule persistent is not implemented for a batched "
                  "kernel: its tile loop does not walk batches; drop "
                  "persistent (the batch runs on grid z)");
    // cluster(4)'s two pairs take neighbouring tiles of one GEMM.
    if (walksTiles && cluster && cluster->isInt() && cluster->intValue == 4)
      diags.error(attrLoc(*schedule, "cluster_m"),
                  "schedule cluster(4) is not implemented for a batched " +
                      archInfo(*arch).name.str() +
                      " kernel (its two CTA pairs multicast the B tile of "
                      "neighbouring tiles of one GEMM); use cluster(2), "
                      "which walks batch x pair tiles");
    if (!walksTiles && cluster && cluster->isInt() && cluster->intValue > 1)
      diags.error(attrLoc(*schedule, "cluster_m"),
                  "schedule cluster(2) is not implemented for a batched "
                  "kernel; drop it (the batch runs on grid z)");
  }
  for (const WrittenEpilogueOp &written : writtenEpilogueOps(kernel))
    if (readsOperandMatrix(written.op)) {
      std::string name = epilogueOpInfo(written.op.kind).name.str();
      diags.error(written.loc,
                  "epilogue op '" + name +
                      "' is not implemented for a batched kernel (one " + name +
                      " tensor, not one per batch); bias and scale vectors "
                      "are shared by every batch and legal");
    }
  if (const tir::Op *scale = kernel.find("tile.scale"))
    diags.error(scale->loc, "block scales are not implemented for a batched "
                            "kernel; drop the batch extent or the 'scale' "
                            "lines");
}

} // namespace tilec
