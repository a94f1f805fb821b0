//===- codegen/Sm90Heuristic.cpp - Choosing an sm_90a GEMM config ---------===//
//
// The rules of Sm90Heuristic.h. Each constant names the measurement that
// set it; change them together with bench/Sm90GemmResults.md.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90Heuristic.h"

#include "codegen/DecodeSplit.h"
#include "codegen/Sm90Limits.h"
#include "ir/arch/Arch.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>

namespace tilec {

namespace {

/// Clusters of \p size CTAs (one CTA an SM) the GPU holds at once, counted
/// as if its SMs came in GPCs of 16: a cluster lives in one GPC. The H200's
/// 132 SMs sit in 8 GPCs of 16 or 18, so 4-CTA clusters fit 32 at a time:
/// 33 tiles of 4 splits each (M = 64, N = 2112) ran 17.8 us with the
/// cluster reduce, whose 33rd cluster waited for a second wave, against
/// 12.5 us through the global workspace.
unsigned residentClusters(unsigned size, unsigned sms) {
  constexpr unsigned GpcSms = 16;
  return std::max(1u, sms / GpcSms) * (GpcSms / std::max(1u, size));
}

/// The large tiles' BN: 256, unless a narrower multiple of 16 fills the
/// last round of tiles so much better that it costs 5% less in the model
/// rounds x (BN + 64) (the 64: what a tile pays whatever its width, A's
/// loads and the prologue). The rounds count 2x1 clusters' tile rows in
/// pairs. At 4096 x 2112, BN 256 makes 288 tiles: 3 rounds on 132 SMs, the
/// last 18% full (0.76x cuBLAS on the H200, tune_sweep session 18); BN 176
/// makes 384, 3 rounds 97% full. The other projections of the sweep keep
/// 256.
unsigned largeTileN(unsigned m, unsigned n, unsigned sms) {
  unsigned rowPairs = ((m + 127) / 128 + 1) / 2;
  unsigned clusters = std::max(1u, sms / 2);
  auto cost = [&](unsigned bn) {
    uint64_t tiles = uint64_t(rowPairs) * ((n + bn - 1) / bn);
    return (tiles + clusters - 1) / clusters * (bn + 64);
  };
  unsigned best = 256;
  for (unsigned bn = 240; bn >= 128; bn -= 16)
    if (cost(bn) < cost(best))
      best = bn;
  return cost(best) * 100 < cost(256) * 95 ? best : 256;
}

/// For a problem whose large tiles (\p bm x \p bn) fill at most 3/4 of
/// one wave (M of a few hundred): the first of 64 x 64, 64 x 128, 128 x 64
/// and 128 x 128 whose tiles fit one wave; nothing where none does or the
/// large tiles fill more. The rules run it in 2x1 clusters sharing B with
/// the deepest ring. H200, session 19 (`tilec tune` over
/// bench/tune_sweep.py, bench/results/tune_sweep_*_session19*.log):
/// block-scaled fp8 256 x 2112 x 7168 64 x 64 13.2 us (128 x 192 20.8),
/// 256 x 4096 x 7168 64 x 128 16.4 (21.6), 512 x 2112 x 7168 128 x 64
/// 22.1 (30.9), 512 x 4096 x 7168 128 x 128 29.9 (34.0); bf16 512 x 2112 x
/// 7168 128 x 64 28.3 (128 x 128 40.3).
std::optional<std::pair<unsigned, unsigned>>
oneWaveTile(unsigned m, unsigned n, unsigned bm, unsigned bn, unsigned sms) {
  auto tilesOf = [&](unsigned tm, unsigned tn) {
    return uint64_t((m + tm - 1) / tm) * ((n + tn - 1) / tn);
  };
  if (tilesOf(bm, bn) * 4 > uint64_t(sms) * 3)
    return std::nullopt;
  for (auto tile : {std::pair{64u, 64u}, std::pair{64u, 128u},
                    std::pair{128u, 64u}, std::pair{128u, 128u}})
    if (tilesOf(tile.first, tile.second) <= sms)
      return tile;
  return std::nullopt;
}

} // namespace

unsigned sm90MaxStages(Sm90GemmConfig config) {
  const ArchInfo &arch = archInfo(ArchKind::SM90a);
  unsigned budget = config.ctasPerSm <= 1
                        ? arch.maxSharedBytesPerCta
                        : arch.sharedBytesPerSm / config.ctasPerSm - 1024;
  for (config.stages = 16; config.stages > 2; --config.stages)
    if (sm90SharedBytes(config) <= budget)
      break;
  return config.stages;
}

Sm90Choice sm90ChooseConfig(unsigned m, unsigned n, unsigned k, unsigned sms) {
  Sm90Choice choice;
  Sm90GemmConfig &config = choice.config;
  sms = std::max(1u, sms);
  unsigned kTiles = std::max(1u, (k + 63) / 64);
  if (m <= 128) {
    // Decode. BM 64 beat BM 128 on every decode shape of the H200 sweep
    // (e.g. M 128, N 4096, K 7168: 23.4 against 40.7 us): more CTAs stream
    // the weights, and the deepest ring beat 2 CTAs of half the depth.
    config.swapAB = true;
    config.bm = 64;
    config.bn = std::max(16u, (m + 15) / 16 * 16);
    config.stages = sm90MaxStages(config);
    unsigned tiles = (n + config.bm - 1) / config.bm;
    if (tiles > 2 * sms) {
      // A wide N (24576: 384 swapped tiles): A and B as written, M's rows
      // (one or two consumer warpgroups) by the BN of N's rows, a multiple
      // of 32, that covers N in one wave. Each CTA then streams three
      // weight rows per activation row rather than one (M = 64) or a half
      // (M = 128) of the swapped tile, and stores whole rows of C. H200,
      // CUDA graphs (bench/results/decode_sweep_h200_session10*.log): M =
      // 64 BN 192 21.4 / 21.7 us against 23.7 persistent swapped; M = 128
      // BN 192 23.6 / 24.1 against 26.4 (cuBLAS 22.0-22.3 and 24.2-24.8).
      config.swapAB = false;
      config.bm = m <= 64 ? 64 : 128;
      unsigned wave = (n + sms - 1) / sms;
      config.bn = std::min(256u, (wave + 31) / 32 * 32);
      config.stages = sm90MaxStages(config);
      config.persistent = (n + config.bn - 1) / config.bn > sms;
      return choice;
    }
    // Split K only where the tiles leave most SMs idle: at M = 64, N = 2112
    // (33 tiles) ran 17.1 us whole, 14.5 in 2 splits, 15.2 in 3 or 4, and N
    // = 4096 (64 tiles) ran slower in 2 splits (21.9 against 19.5); at M =
    // 128 (twice the MMA work per weight byte) 3 splits beat 2 at N = 2112
    // in both runs (17.2 / 16.9 against 17.7 / 17.7 us).
    unsigned splits = decodeSplits(tiles, kTiles, config.bn, sms);
    if (splits > 1) {
      // The splits of a tile reduce in a cluster through distributed shared
      // memory (legal here: at most 4 splits, a deep ring) where all the
      // clusters fit at once, not through global memory: the workspace's
      // stores, fence, counter and loads cost up to 1 us a launch on the
      // H200 (M = 128, N = 2112, 3 splits: 14.6 against 15.5 us).
      config.splitK = true;
      config.splitKCluster = sm90SplitKClusterFits(config, splits) &&
                             tiles <= residentClusters(splits, sms);
      choice.splits = splits;
    }
    return choice;
  }
  // Large: 128 x 256 tiles (or narrower, largeTileN), 4 stages, persistent
  // in grouped order of 8 cluster rows, 2x1 clusters multicasting B: the
  // fastest at 8192^3
  // (1656 us; 1686 without clusters, 1669 with groupM 16) and within the
  // run-to-run spread of the fastest at 4096^3 (217 us; 206 to 224 us for
  // the variants without clusters across two runs).
  config.bm = 128;
  config.bn = largeTileN(m, n, sms);
  config.stages = 4;
  // Where they fill at most 3/4 of one wave: oneWaveTile's.
  if (auto tile = oneWaveTile(m, n, config.bm, config.bn, sms)) {
    std::tie(config.bm, config.bn) = *tile;
    config.clusterM = 2;
    config.stages = sm90MaxStages(config);
    return choice;
  }
  unsigned tiles = ((m + 127) / 128) * ((n + config.bn - 1) / config.bn);
  if (tiles > sms) {
    config.persistent = true;
    config.groupM = 8;
  }
  config.clusterM = 2;
  return choice;
}

Sm90Choice sm90ChooseBlockScaledConfig(unsigned m, unsigned n, unsigned k,
                                       unsigned sms, MajorKind sfaMajor) {
  Sm90Choice choice;
  Sm90GemmConfig &config = choice.config;
  sms = std::max(1u, sms);
  config.aType = config.bType = DTypeKind::E4M3;
  config.cType = DTypeKind::BF16;
  config.bk = 128;
  config.blockScale = BlockScaleSpec{};
  config.blockScale->aMajor = sfaMajor;
  unsigned kBlocks = (k + 127) / 128;
  // SFA M-major (a K block's row scales contiguous, DeepGEMM's layout):
  // the producer's warp 2 copies each block's 256 row scales into the ring
  // slot (sm90StagesBlockScales), and two 128-row consumer warpgroups
  // promote 64-row blocks in turn; against 128 x 192 with the same layout
  // (H200, session 15: 4096 x 4096 x 7168 3-5% faster, 4096^3 3%). Only
  // where its waves are not emptier: the
  // most tiles one CTA takes times a tile's area, at most 5% above 128 x
  // 192's (run 1 of session 16: 4096 x 2112 x 7168 took 3 rounds of 256 x
  // 128 on 8 CTAs, 23% slower; 8192^3, 2% more area, 3% faster).
  // (columns: CTAs of a cluster along N, 2 for the 256 x 128 tile's 1x2
  // clusters, whose column tiles come in pairs on half as many clusters.)
  auto rounds = [&](unsigned bm, unsigned bn, unsigned columns) {
    uint64_t pairs = ((n + bn - 1) / bn + columns - 1) / columns;
    uint64_t units = uint64_t((m + bm - 1) / bm) * pairs;
    uint64_t slots = std::max(1u, sms / columns);
    return (units + slots - 1) / slots * bm * bn;
  };
  // Persistent, in 1x2 clusters sharing the A tile, at every K: with the
  // persistent grid really capped at the SM count (Python launched one CTA
  // per tile before session 18), two H200 runs
  // (bench/results/fp8_block_sweep_h200_session18_true_persistent_r*.log)
  // against the grid and 128 x 192: 8192^3 977 / 990 us (grid 1061 /
  // 1064), 4096 x 32768 x 512 175 / 180 (128 x 192 192 / 194), 4096 x
  // 24576 x 1536 305 / 308 (323 / 321), 4096 x 4096 x 7168 213 / 216
  // (grid 237 / 227); within the runs' spread of the best elsewhere
  // (4096^3 135 / 125 against 121 / 127 on the grid).
  if (m > 128 && sfaMajor == MajorKind::MN &&
      rounds(256, 128, 2) * 100 <= rounds(128, 192, 1) * 105) {
    config.bm = 256;
    config.bn = 128;
    config.stages = 3;
    config.persistent = true;
    config.clusterN = 2;
    return choice;
  }
  if (m > 128) {
    // 128 x 192 beat BM 192 and 256, BN 128, 160 and 256 and the
    // persistent and clustered schedules at M = 4096 (runs 1-6).
    config.bm = 128;
    config.bn = 192;
    config.stages = 4;
    // Where they fill at most 3/4 of one wave: oneWaveTile's.
    if (auto tile = oneWaveTile(m, n, 128, 192, sms)) {
      std::tie(config.bm, config.bn) = *tile;
      config.clusterM = 2;
      config.stages = sm90MaxStages(config);
    }
    return choice;
  }
  // Decode: N alone makes about one wave, as DeepGEMM tiles it: 1.02-1.03
  // of its H100 figure at 64 x 24576 x 1536 and 128 x 7168 x 2048, up to
  // 1.35x of the swap-AB + split-K programs (64 x 4096 x 7168).
  // The narrowest multiple of 16 whose tiles of \p bm rows fit one wave.
  auto oneWave = [&](unsigned bm) {
    unsigned rows = (m + bm - 1) / bm;
    for (unsigned bn = 16; bn < 256; bn += 16)
      if (rows * ((n + bn - 1) / bn) <= sms)
        return bn;
    return 256u;
  };
  config.bm = m <= 64 ? 64 : 128;
  config.bn = oneWave(config.bm);
  // 64 < M <= 128, a long K and a narrow N: two row tiles of 64, whose lone
  // consumer warpgroup takes its scales through the ring
  // (sm90StagesBlockScales), K whole. H200, session 15
  // (bench/Fp8BlockResults.md): 128 x 2112 x 7168 BM 64 BN 32 9.87 us
  // against 11.25 for BM 128 BN 32 split 2; 128 x 4096 x 7168 BM 64 BN 64
  // 13.43 against 13.90; wider (N = 7168: BN 112) BM 64 loses by 25%.
  if (m > 64 && kBlocks >= 48 && oneWave(64) <= 64) {
    config.bm = 64;
    config.bn = oneWave(64);
    config.stages = sm90MaxStages(config);
    return choice;
  }
  // A long K (at least 48 blocks of 128): the tile twice as wide with K
  // split over 2 CTAs of a cluster, the same CTAs with half the K blocks
  // each (run 7: 64 x 2112 x 7168 13.1 -> 11.5 us, 128 x 2112 x 7168 15.2
  // -> 12.4, 64 x 4096 x 7168 16.3 -> 15.3; even at 7168 x 16384; slower
  // at K = 2048, where the reduction is a larger share). Since the BM 64
  // tiles stage their scales (session 15) a 64-row tile splits only from
  // BN 16, whose n16 wgmmas are too narrow: H200, session 16, two sweeps
  // (bench/results/fp8_block_sweep_h200_session16_decode_r{1,2}.log): 64 x
  // 4096 x 7168 BN 32 whole 10.50/10.51 us against BN 64 split 11.41/11.47;
  // 64 x 7168 x 16384 BN 64 whole 34.99/34.97 against 34.73/34.75; 64 x
  // 2112 x 7168 BN 16 whole 8.85/8.83 against BN 32 split 8.65/8.65.
  if (kBlocks >= 48 && 2 * config.bn <= 128 &&
      (config.bm == 128 || config.bn == 16)) {
    config.bn *= 2;
    config.splitK = true;
    choice.splits = 2;
  }
  config.stages = sm90MaxStages(config);
  config.splitKCluster = config.splitK && sm90SplitKClusterFits(config, 2);
  return choice;
}

} // namespace tilec
