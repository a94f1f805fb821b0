//===- codegen/DecodeSplit.cpp - The split-K rule of `schedule auto` ------===//
#include "codegen/DecodeSplit.h"

#include <algorithm>

namespace tilec {

namespace {

/// K tiles a split keeps at least, so the ring fills before it drains.
constexpr unsigned MinKTilesPerSplit = 4;

} // namespace

unsigned decodeSplits(unsigned tiles, unsigned kTiles, unsigned bn,
                      unsigned sms) {
  tiles = std::max(1u, tiles);
  // Rounded to nearest: M = 128, N = 4096 (64 tiles, 1.55) ran 20.3 us in 2
  // splits against 21.5 whole (H200, session 3).
  unsigned splits = (sms * (bn >= 128 ? 3 : 2) + 2 * tiles) / (4 * tiles);
  splits = std::min({splits, kTiles / MinKTilesPerSplit, 4u});
  return std::max(1u, splits);
}

DecodeSplit decodeSplitOf(const GemmSpec &spec, bool swapAB, unsigned sms) {
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  int64_t rowsA = swapAB ? spec.fixedN : spec.fixedM;
  int64_t rowsB = swapAB ? spec.fixedM : spec.fixedN;
  DecodeSplit split;
  split.tiles = ceilDiv(rowsA, spec.bm) * ceilDiv(rowsB, spec.bn);
  split.kTiles = ceilDiv(spec.fixedK, spec.bk);
  split.splits =
      decodeSplits(static_cast<unsigned>(split.tiles),
                   static_cast<unsigned>(split.kTiles), spec.bn, sms);
  return split;
}

unsigned oneWaveSplit(int64_t tiles, int64_t kTiles, int64_t resident) {
  if (tiles < resident)
    for (int64_t s = std::min<int64_t>(16, kTiles / 4); s > 1; --s)
      if (kTiles % s == 0 && tiles * s <= resident)
        return unsigned(s);
  return 1;
}

} // namespace tilec
