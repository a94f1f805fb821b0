//===- codegen/Sm80LibraryItems.cpp - sm_80's library programs -----------===//
//
// What sm_80's rules choose for a GEMM a library caller asks for
// (GemmTarget::libraryItems; compiler/GemmProgram.h writes the program
// around them): the 128 x 128 x 32 tile in 4 stages for one operand type;
// for a quantized weight (the mma.sync B operand, BN tiling its N), the
// tile measured on the H200 (bench/W4A16Results.md).
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm80Gemm.h"

#include "codegen/DecodeSplit.h"
#include "codegen/GemmTarget.h"

#include <algorithm>

namespace tilec {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The weight tile of an M x N x K problem with \p bits-wide codes: BM the
/// smallest of 16, 32, 64 that holds M; BN 128 with BK 256 for K >= 8192
/// (N a multiple of 128), BN 128 with BK 128 where BN 64 would make more
/// than two waves, else BN 64 with BK 128 (64 when K is not a multiple of
/// 128); at BM 64 BK 128, or BN 256 x BK 256 (BK 128 for 8-bit codes)
/// where those tiles fill half to one wave; 4 stages (fewer where 4 would
/// not fit); and where the output tiles do not fill the SMs, K split
/// evenly into one wave of at most 3 CTAs per SM (1 at BM 64).
/// The kernel issues about 0.16 instructions per weight, so the wider tile
/// (fewer A fragment and copy instructions per weight) pays where K is
/// long, and the split is what fills the SMs at decode N.
/// Example: 1 x 4096 x 4096, group 128, 132 SMs: 16 x 64 x 128, 4 stages,
/// split 4.
LibraryGemmProblem::Tile weightTile(const LibraryGemmProblem &p) {
  int64_t m = p.m, n = p.n, k = p.k, sms = p.sms;
  unsigned bits = p.weightBits;
  LibraryGemmProblem::Tile t;
  t.bm = m <= 16 ? 16 : m <= 32 ? 32 : 64;
  bool wide = k >= 8192 && n % 128 == 0 && k % 256 == 0;
  t.bn = wide ? 128 : 64;
  t.bk = wide ? 256 : k % 128 == 0 ? 128 : 64;
  // `tilec tune` over the 24 shapes (H200, session 19,
  // bench/results/tune_sweep_w4a16_h200_session19.log): where BN 64 tiles
  // make more than two waves (N = 28672 at K = 4096) BN 128 (31.4 -> 28.7
  // us at M = 16); at BM 64 BK 128 (K 8192-28672: within 4% of BK 256,
  // which leaves 3 stages), and BN 256 x BK 256 where its tiles fill half
  // to one wave (64 x 28672 x 4096: 64.5 us against 81.3); the splits
  // below keep BM 64 at one CTA per SM.
  int64_t tiles64 = ceilDiv(m, t.bm) * ceilDiv(n, 64);
  if (!wide && tiles64 > 2 * sms && n % 128 == 0 && k % 128 == 0)
    t.bn = t.bk = 128;
  if (t.bm == 64 && k % 128 == 0) {
    t.bk = 128;
    int64_t wideTiles = ceilDiv(m, 64) * (n / 256);
    if (n % 256 == 0 && k % 256 == 0 && sms / 2 <= wideTiles &&
        wideTiles <= sms) {
      // 8-bit codes: BK 128 (two stages of 256 x 256 would not fit).
      t.bn = 256;
      t.bk = bits == 4 ? 256 : 128;
    }
  }
  // 4 stages, or as many as sm_80's 163 KiB hold (BM 64 x BK 256: 3).
  int64_t stageBytes = int64_t(t.bm) * t.bk * 2 +
                       int64_t(t.bn) * t.bk * bits / 8 + 2 * int64_t(t.bn) * 3;
  t.stages =
      unsigned(std::max<int64_t>(2, std::min<int64_t>(4, 160000 / stageBytes)));
  // Split K where the tiles leave SMs idle, within one wave of at most 3
  // CTAs per SM (fewer where shared memory holds fewer): 8192 x 8192 in 5
  // splits of 16 x 128 x 256, 2 per SM, ran 29.5 us, in 4 splits 20.5 us.
  // At BM 64 the tuner's picks kept one CTA per SM (session 19).
  int64_t perSm = t.bm == 64 ? 1 : 3;
  int64_t resident =
      sms *
      std::max<int64_t>(
          1, std::min<int64_t>(perSm, 227 * 1024 / (t.stages * stageBytes)));
  t.splitK = oneWaveSplit(ceilDiv(m, t.bm) * ceilDiv(n, t.bn), ceilDiv(k, t.bk),
                          resident);
  return t;
}

} // namespace

LibraryGemmItems sm80LibraryItems(const LibraryGemmProblem &problem) {
  if (!problem.weightBits)
    return {128, 128, 32, 4, "", "", "", "", 1};
  LibraryGemmProblem::Tile t =
      problem.tile ? *problem.tile : weightTile(problem);
  LibraryGemmItems items{t.bm, t.bn,    t.bk, t.stages, "",
                         "",   "store", "",   t.splitK};
  if (t.splitK > 1)
    items.schedule = "split_k(" + std::to_string(t.splitK) + ")";
  return items;
}

} // namespace tilec
