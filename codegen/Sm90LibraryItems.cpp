//===- codegen/Sm90LibraryItems.cpp - sm_90a's library programs ----------===//
//
// What sm_90a's rules (Sm90Heuristic.h) choose for a GEMM a library caller
// asks for (GemmTarget::libraryItems; compiler/GemmProgram.h writes the
// program around them).
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90Heuristic.h"

#include "codegen/GemmTarget.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace tilec {

namespace {

/// The schedule words in the order the language writes them.
void addWord(std::string &schedule, const std::string &word) {
  schedule += (schedule.empty() ? "" : " ") + word;
}

LibraryGemmItems oneTypeItems(const LibraryGemmProblem &p) {
  Sm90Choice choice =
      sm90ChooseConfig(unsigned(p.m), unsigned(p.n), unsigned(p.k), p.sms);
  const Sm90GemmConfig &c = choice.config;
  bool aK = p.aMajor == MajorKind::K, bK = p.bMajor == MajorKind::K;
  LibraryGemmItems items;
  items.bm = c.bm;
  items.bn = c.bn;
  // An N-major B tile is staged in atoms of 64 16-bit columns (128-byte
  // swizzle); the rules' narrower large-M widths (measured K-major, e.g.
  // 176) would fall to 32-byte atoms, so round them up to whole atoms.
  if (!bK && !c.swapAB && items.bn % 64)
    items.bn = std::min(256u, (items.bn + 63) / 64 * 64);
  unsigned elementBytes = dtypeBits(p.type) / 8;
  items.bk = c.bk * 2 / elementBytes; // the rules' BK: 128 bytes of bf16
  items.stages = c.stages;
  items.mma = llvm::formatv("wgmma.m64n{0}k{1} warpgroups({2})", items.bn,
                            32 / elementBytes, c.bm / 64);
  // A 2x1 cluster multicasts the kernel's B-role tile, which must be
  // K-major (the user's A under swap-AB).
  bool multicastOk = c.swapAB ? aK : bK;
  if (c.swapAB)
    addWord(items.schedule, "swap_ab");
  if (c.splitK && choice.splits > 1)
    addWord(items.schedule, llvm::formatv("split_k({0})", choice.splits));
  if (c.persistent)
    addWord(items.schedule, "persistent");
  if (c.clusterM == 2 && multicastOk)
    addWord(items.schedule, "cluster(2)");
  return items;
}

LibraryGemmItems blockScaledItems(const LibraryGemmProblem &p) {
  Sm90Choice choice = sm90ChooseBlockScaledConfig(
      unsigned(p.m), unsigned(p.n), unsigned(p.k), p.sms,
      p.sfaMMajor ? MajorKind::MN : MajorKind::K);
  const Sm90GemmConfig &c = choice.config;
  LibraryGemmItems items{c.bm, c.bn, c.bk, c.stages, "", ""};
  if (c.splitK && choice.splits > 1) {
    addWord(items.schedule, llvm::formatv("split_k({0})", choice.splits));
    return items;
  }
  if (c.persistent)
    addWord(items.schedule, "persistent");
  if (c.clusterN > 1)
    addWord(items.schedule, "cluster_n(2)");
  else if (c.clusterM > 1)
    addWord(items.schedule, "cluster(2)");
  return items;
}

} // namespace

LibraryGemmItems sm90LibraryItems(const LibraryGemmProblem &problem) {
  return problem.blockScaled ? blockScaledItems(problem)
                             : oneTypeItems(problem);
}

} // namespace tilec
