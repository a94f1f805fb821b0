//===- codegen/Sm90Heuristic.h - Choosing an sm_90a GEMM config -*- C++ -*-===//
//
// What the compiler uses when a program leaves the sm_90a tile to `auto`:
// a config for the problem (M, N, K) on a device of a given number of SMs,
// from rules fitted to H200 measurements (bench/Sm90GemmResults.md):
//   - decode (M <= 128): swap A and B so that N fills the 64-row wgmma M and
//     M becomes the wgmma N; the deepest ring that fits; K split only where
//     the tiles leave most SMs idle, the splits of a tile reduced in a
//     cluster through distributed shared memory; where N gives more than
//     two waves of swapped tiles, A and B as written instead, M's rows by
//     the BN (up to 256) that covers N in one wave;
//   - otherwise 128 x 256 tiles (BN narrower where 256 leaves the last round
//     of tiles mostly empty, e.g. 176 at 4096 x 2112), 4 stages, persistent
//     in grouped order with 2x1 clusters multicasting the B tile;
//   - unless those fill at most 3/4 of one wave (M of a few hundred): the
//     first of 64 x 64, 64 x 128, 128 x 64, 128 x 128 that fits one wave,
//     2x1 clusters, the deepest ring (e.g. 128 x 64 at 512 x 2112).
//
// Example: sm90ChooseConfig(64, 2112, 7168, 132) is swapAB, BM 64, BN 64,
// 13 stages, split-K 2 reduced in a 1x1x2 cluster.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM90HEURISTIC_H
#define TILEC_CODEGEN_SM90HEURISTIC_H

#include "codegen/Sm90Gemm.h"
#include "ir/tile/GemmSpec.h"

namespace tilec {

/// A config and how many K splits to launch it with.
struct Sm90Choice {
  Sm90GemmConfig config;
  unsigned splits = 1; ///< gridDim.z when config.splitK
};

/// The config for C (M x N) = A (M x K) B^T on \p sms SMs; always passes
/// verifySm90GemmConfig.
Sm90Choice sm90ChooseConfig(unsigned m, unsigned n, unsigned k,
                            unsigned sms = 132);

/// The block-scaled fp8 config (e4m3 A and B, DeepGEMM's 1 x 128 / 128 x
/// 128 f32 scales, bf16 C) for C (M x N) = A (M x K) B^T on \p sms SMs,
/// from the H100 measurements of issue 26 (bench/Fp8BlockResults.md): for
/// M <= 128 A and B as written, BM 64 (M <= 64) or 128 and BN the
/// narrowest multiple of 16 whose ceil(M / BM) x ceil(N / BN) tiles fit
/// one wave of \p sms, with the most stages that fit; with at least 48 K
/// blocks and that BN at most 64 (BM 64: 16), twice the BN with K split
/// over 2 CTAs reduced in a cluster; above M = 128, the 128 x 192 tile in 4
/// stages on the grid, or, where SFA is M-major (\p sfaMajor MN, `scale a ...
/// major(M)`), the 256 x 128 tile with staged scales in 3 stages,
/// persistent in 1x2 clusters sharing A, unless its last wave is emptier
/// than 128 x 192's (N = 2112 at M = 4096); where 128 x 192's tiles fill
/// at most 3/4 of a wave, the first of 64 x 64, 64 x 128, 128 x 64 and 128
/// x 128 whose tiles fit one wave, in 2x1 clusters with the most stages.
/// Always passes
/// verifySm90GemmConfig.
/// Example: (64, 2112, 7168, 132): BM 64, BN 32, split 2, 16 stages;
/// (128, 24576, 1536, 132): BM 128, BN 192; (4096, 4096, 7168, 132): BM
/// 128, BN 192; the same with SFA M-major: BM 256, BN 128, persistent,
/// clusterN 2; (512, 2112, 7168, 132): BM 128, BN 64, clusterM 2.
Sm90Choice sm90ChooseBlockScaledConfig(unsigned m, unsigned n, unsigned k,
                                       unsigned sms,
                                       MajorKind sfaMajor = MajorKind::K);

/// The most ring stages (2 to 16) of \p config's tile, types and epilogue
/// (its own stages ignored) whose shared memory (sm90SharedBytes) fits
/// config.ctasPerSm CTAs on one SM.
/// Example: BM 64, BN 64, bf16, swap-AB, 1 CTA: 13 (232448 bytes allow
/// 1040 of slack and flags, 8192 of staging and 16 of its C-load mbarriers,
/// and 13 stages of 16400).
unsigned sm90MaxStages(Sm90GemmConfig config);

struct LibraryGemmProblem;
struct LibraryGemmItems;

/// The items of a library caller's sm_90a program (GemmTarget::libraryItems):
/// sm90ChooseConfig's tile, stages, wgmma and schedule (a narrower large BN
/// rounded up to 64-column atoms for an N-major B; 2x1 clusters only where
/// the multicast B-role tile is K-major), or sm90ChooseBlockScaledConfig's
/// tile, stages and schedule for a block-scaled problem.
LibraryGemmItems sm90LibraryItems(const LibraryGemmProblem &problem);

} // namespace tilec

#endif // TILEC_CODEGEN_SM90HEURISTIC_H
