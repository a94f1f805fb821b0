//===- codegen/DecodeSplit.h - The split-K rule of `schedule auto` -*- C++
//-*-===//
//
// Decode-shaped GEMMs (a few rows of A against a wide B) leave most SMs
// idle with one CTA per output tile; splitting K over several CTAs per
// tile fills them. The rule, fitted to H200 measurements of the sm_90a
// kernels (bench/Sm90GemmResults.md), is one fact that every target's
// `schedule auto` and the run-time sm_90a heuristic read.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_DECODESPLIT_H
#define TILEC_CODEGEN_DECODESPLIT_H

#include "ir/tile/GemmSpec.h"

#include <cstdint>

namespace tilec {

/// The K splits for a decode-shaped grid of \p tiles output tiles of BN
/// \p bn with \p kTiles K tiles on \p sms SMs: 1 unless the tiles leave most
/// SMs idle; at most 4, and at least 4 K tiles a split.
/// Example: decodeSplits(33, 112, 64, 132) == 2 (N = 2112 at M = 64).
unsigned decodeSplits(unsigned tiles, unsigned kTiles, unsigned bn,
                      unsigned sms);

/// What `schedule auto` weighs for a kernel whose M, N and K are fixed
/// (\p spec's fixedM/N/K, all nonzero): its output tiles with A and B as
/// written or \p swapAB, its K tiles, and decodeSplits on \p sms SMs.
struct DecodeSplit {
  int64_t tiles = 0, kTiles = 0;
  unsigned splits = 1;
};
DecodeSplit decodeSplitOf(const GemmSpec &spec, bool swapAB, unsigned sms);

/// The K split of the quantized-weight programs (GemmTarget::libraryItems):
/// the most even split of \p tiles output tiles over \p kTiles K tiles
/// that keeps the CTAs within one wave of \p resident (a divisor of the K
/// tiles, each split at least 4 of them, at most 16 splits); 1 where the
/// tiles fill the wave already. Measured on the H200
/// (bench/W4A16Results.md): a second, partial wave cost more than the
/// split gained.
/// Example: oneWaveSplit(64, 32, 396) == 4 (16 x 4096 x 4096, sm_80).
unsigned oneWaveSplit(int64_t tiles, int64_t kTiles, int64_t resident);

} // namespace tilec

#endif // TILEC_CODEGEN_DECODESPLIT_H
