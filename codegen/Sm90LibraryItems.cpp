//===- codegen/Sm90LibraryItems.cpp - sm_90a's library programs ----------===//
//
// What sm_90a's rules (Sm90Heuristic.h) choose for a GEMM a library caller
// asks for (GemmTarget::libraryItems; compiler/GemmProgram.h writes the
// program around them).
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90Heuristic.h"

#include "codegen/DecodeSplit.h"
#include "codegen/GemmTarget.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <utility>

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
  LibraryGemmItems items{c.bm, c.bn, c.bk, c.stages, "", "", "", "", 1};
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

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The stages and CTAs per SM of the weight tile BM x BN with \p bits-wide
/// codes: two CTAs where the kernel takes two (sm90WeightCtasPerSm: BM 64
/// with BN <= 160, or BN <= 32, K split or not) with as many stages as
/// leave both in the SM's shared memory, up to 16; else one CTA with up to
/// 16 stages.
std::pair<unsigned, unsigned> weightStages(int64_t bm, int64_t bn,
                                           unsigned bits) {
  int64_t stage = bm * 64 * bits / 8 + bn * 64 * 2 + 2 * bm * 3 / 2 + 16;
  int64_t staging = (bm / 64) * 2 * 64 * std::min<int64_t>(bn, 64) * 2;
  if ((bm == 64 && bn <= 160) || bn <= 32) {
    int64_t stages = (112 * 1024 - staging - 2048) / stage;
    if (stages >= 4)
      return {unsigned(std::min<int64_t>(16, stages)), 2};
  }
  int64_t stages = (220 * 1024 - staging - 2048) / stage;
  return {unsigned(std::max<int64_t>(2, std::min<int64_t>(16, stages))), 1};
}

/// The weight tile (RS wgmma, swapped: BM weight channels, BN tokens) of
/// an M x N x K problem: BN the tokens rounded up to 8 (at most 256), BM
/// 128 (two consumer warpgroups) where its tiles are at least a third of
/// the SMs and N a multiple of 128, else 64 (8-bit codes: 64 while its
/// tiles fit a wave of two CTAs per SM; 4-bit codes: 128 also at K >=
/// 8192 with at most 16 tokens and N a multiple of 128), BK 64, K split
/// evenly into at most one wave where the tiles leave SMs idle, the stages
/// of weightStages. Measured on the H200 (bench/W4A16Results.md, sessions
/// 20, 21, 23; e4m3 14336 x 4096: BM 64 21.3 against 23.2 us at BM 128,
/// 28672 x 8192: 76.9 against 73.1).
/// Example: 1 x 6144 x 4096, 132 SMs: 128 x 8 x 64, 4 splits.
LibraryGemmProblem::Tile weightTile(const LibraryGemmProblem &p) {
  int64_t m = p.m, n = p.n, k = p.k, sms = p.sms;
  LibraryGemmProblem::Tile t;
  t.bn =
      unsigned(std::min<int64_t>(256, std::max<int64_t>(8, ceilDiv(m, 8) * 8)));
  int64_t tokenTiles = ceilDiv(m, t.bn);
  t.bm = ceilDiv(n, 128) * tokenTiles >= sms / 3 && n % 128 == 0 ? 128 : 64;
  if (p.weightBits == 8 && ceilDiv(n, 64) * tokenTiles <= 2 * sms)
    t.bm = 64;
  t.bk = 64;
  auto [stages, perSm] = weightStages(t.bm, t.bn, p.weightBits);
  t.stages = stages;
  t.splitK = oneWaveSplit(ceilDiv(n, t.bm) * tokenTiles, ceilDiv(k, t.bk),
                          sms * perSm);
  // 4-bit codes at K >= 8192 (128 k-tiles and more) and at most 16
  // tokens: BM 128 with twice the splits where that keeps the CTAs (two
  // per SM). H200, session 23
  // (bench/results/w4a16_long_k_h200_session23.log), N = 4096: K 8192
  // 10.7 -> 9.9 us (M = 1), 11.1 -> 10.5 (M = 16); K 14336 16.2 -> 14.4,
  // 16.7 -> 14.9; at M = 32 K 8192 lost (12.2 -> 12.5).
  if (p.weightBits == 4 && t.bm == 64 && n % 128 == 0 && t.bn <= 16 &&
      ceilDiv(k, 64) >= 128) {
    auto [wideStages, widePerSm] = weightStages(128, t.bn, p.weightBits);
    unsigned wideSplit = oneWaveSplit(ceilDiv(n, 128) * tokenTiles,
                                      ceilDiv(k, t.bk), sms * widePerSm);
    if (ceilDiv(n, 128) * wideSplit >= ceilDiv(n, 64) * t.splitK) {
      t.bm = 128;
      t.stages = wideStages;
      t.splitK = wideSplit;
    }
  }
  return t;
}

/// The weight program's items: the weight is the wgmma's A, so A and B
/// are always swapped.
LibraryGemmItems weightItems(const LibraryGemmProblem &p) {
  LibraryGemmProblem::Tile t = p.tile ? *p.tile : weightTile(p);
  LibraryGemmItems items{t.bm,      t.bn,   t.bk,    t.stages, "",
                         "swap_ab", "auto", "sm90_", t.splitK};
  if (t.splitK > 1)
    addWord(items.schedule, llvm::formatv("split_k({0})", t.splitK));
  return items;
}

} // namespace

LibraryGemmItems sm90LibraryItems(const LibraryGemmProblem &problem) {
  if (problem.weightBits)
    return weightItems(problem);
  return problem.blockScaled ? blockScaledItems(problem)
                             : oneTypeItems(problem);
}

} // namespace tilec
