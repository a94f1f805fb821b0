//===- codegen/Sm100GemmSpec.cpp - GemmSpec to the sm_100a generator ------===//
//
// Checks what the sm_100a generator implements and copies the tile over;
// verifySm100GemmConfig then checks the tile against the tcgen05 and
// swizzle atoms.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm100GemmSpec.h"
#include "codegen/warpspec/SpecBasics.h"

#include "ir/layout/LayoutExpr.h"

#include <algorithm>
#include <tuple>

namespace tilec {

llvm::Expected<Sm100GemmConfig> sm100ConfigFromSpec(const GemmSpec &spec) {
  auto fail = [](const std::string &message) {
    return llvm::createStringError(message);
  };
  if (llvm::Error err = checkTmaGemmBasics(spec, ArchKind::SM100a))
    return err;
  // swiglu pairs two accumulator columns in one thread (the sm_100a
  // epilogue holds whole rows, or the same slots of every chunk); Verify
  // says so where the program wrote the schedule.
  if (findSwiglu(spec.epilogueOps)) {
    if (spec.swapAB)
      return fail("epilogue op 'swiglu' pairs two columns of C in one "
                  "thread, but under swap_ab C's columns are TMEM lanes, "
                  "one per thread; drop swap_ab from the schedule");
    if (spec.clusterM == 2 && spec.bm == 128 &&
        findSwiglu(spec.epilogueOps)->pairing == SwigluPairingKind::TileHalves)
      return fail("epilogue op 'swiglu' pairs column c with c + BN / 2 in "
                  "one thread, but the CTA pair's M = 128 (data path layout "
                  "B) puts the two halves in different warps' lanes; write "
                  "'swiglu(interleaved)', or use BM = 256 for the pair");
    if (llvm::Error err = checkSwigluHalves(spec.bn))
      return err;
  }
  Sm100GemmConfig config;
  config.epilogueOps = spec.epilogueOps;
  if (!spec.name.empty())
    config.name = spec.name;
  config.bm = spec.bm;
  config.bn = spec.bn;
  // `schedule cluster(2)`: the 2x1 cluster is the CTA pair of one
  // tcgen05.mma.cta_group::2 (BM = 256); `persistent(G)` sets the group.
  config.ctaGroup = spec.clusterM == 2 || spec.clusterM == 4 ? 2 : 1;
  // `cluster(4)`: two pairs in a 4x1 cluster multicast their B tile.
  if (spec.clusterM == 4)
    config.clusterPairs = 2;
  if (spec.persistent && spec.rasterGroupM > 0)
    config.groupM = spec.rasterGroupM;
  config.bk = spec.bk;
  config.stages = spec.stages;
  // Swap-AB: the kernel's A role is the user's B (BM tiles N), its B role
  // the user's A (BN tiles M); the launcher swaps the tensor maps and the
  // row counts (GemmKernelBinary::swapAB).
  config.swapAB = spec.swapAB;
  config.aType = spec.swapAB ? spec.bType : spec.aType;
  config.bType = spec.swapAB ? spec.aType : spec.bType;
  config.aMajor = spec.swapAB ? spec.bMajor : spec.aMajor;
  config.bMajor = spec.swapAB ? spec.aMajor : spec.bMajor;
  config.cType = spec.cType;
  if (spec.splitK == 0)
    return fail("split_k(0) is not a split; use 1 (no split) or more");
  config.splitK = spec.splitK;
  // Batched: the persistent units are batch x tiles (Sm100Gemm.h); the
  // split-K workspace and counters are per tile of one GEMM.
  config.batch = spec.batch;
  if (spec.batch && spec.splitK > 1)
    return fail("split_k(" + std::to_string(spec.splitK) +
                ") is not implemented for a batched sm_100a kernel; drop "
                "split_k (the persistent CTAs walk batch x tiles, which "
                "fills the SMs as splits would)");
  // `epilogue stmatrix [swizzle(..)] -> tma_store` (sm100EpilogueTile
  // checks what it takes).
  config.storeTma = spec.storeTma;
  config.storeSwizzleBytes = spec.storeSwizzleBytes;
  config.source = spec.source;
  if (llvm::Error err = verifySm100GemmConfig(config))
    return err;
  // The generator stages each operand in the tile sm100OperandTile derives;
  // a different smem layout in the spec is an error, not silently replaced.
  // The check uses the language's tile shape ((BM, BK) for a, (BN, BK) for
  // b) without swap, as on sm_90a: under swap_ab the kernel stages b with
  // BM rows and a with BN rows, in the atoms of the same rule.
  for (auto [name, layout, rows, type, major] :
       {std::tuple{"a", &spec.smemA, sm100CtaRows(config, 'a'), spec.aType,
                   spec.aMajor},
        {"b", &spec.smemB, sm100CtaRows(config, 'b'), spec.bType,
         spec.bMajor}}) {
    if (!*layout)
      continue;
    auto staged = sm100OperandTile(rows, spec.bk, type, major, rows);
    if (!staged)
      return staged.takeError();
    auto expected = evaluateLayoutExpr(staged->staged.layout);
    if (!expected)
      return expected.takeError();
    if (!expected->isComposed() || !(expected->getComposed() == **layout))
      return fail(std::string("smem ") + name + " = " + (*layout)->str() +
                  " is not what the sm_100a generator stages; it stages " +
                  staged->staged.layout + " = " + expected->str() +
                  " (write that, or 'auto' where it picks the same)");
  }
  return config;
}

GemmKernelBinary sm100GemmBinary(Sm100GemmKernel kernel) {
  const Sm100GemmConfig &config = kernel.config;
  GemmKernelBinary binary;
  binary.arch = ArchKind::SM100a;
  binary.ptx = std::move(kernel.ptx);
  binary.entryName = std::move(kernel.entry);
  binary.blockThreads = kernel.blockThreads;
  binary.sharedBytes = kernel.sharedBytes;
  // The user's M x N tile: under swap-AB BN tiles M and BM tiles N.
  binary.tileM = config.swapAB ? config.bn : config.bm;
  binary.tileN = config.swapAB ? config.bm : config.bn;
  binary.swapAB = config.swapAB;
  binary.splitK = std::max(1u, config.splitK);
  // cta_group::2: a 2x1 cluster per CTA pair (the launch's cluster
  // attribute), the tile is the pair's.
  if (config.ctaGroup == 2)
    binary.cluster = {2 * config.clusterPairs, 1, 1};
  // The epilogue stores pairs of C elements when ldc is even, else single
  // elements.
  binary.ldcMultiple = 1;
  binary.cAlignBytes = 2 * dtypeBits(config.cType) / 8;
  binary.dependentLaunch = true;
  binary.persistent = true;
  binary.ctasPerSm = 1;
  // Persistent CTAs walk tiles x splits (batch x tiles when batched); a
  // 4x1 cluster's two pairs take two neighbouring tile rows.
  binary.gridRule.tilesPerCluster = config.clusterPairs;
  binary.gridRule.splitsInUnits = true;
  binary.gridRule.batchWalksTiles = true;
  auto staging = sm100EpilogueTile(config); // verified when emitted
  bool staged = staging && *staging;
  binary.params = sm100KernelParams(config.epilogueOps, config.splitK,
                                    config.batch.has_value(), staged);
  binary.epilogueOps = config.epilogueOps;
  // The user's operands (the config holds the kernel's roles).
  binary.aType = config.swapAB ? config.bType : config.aType;
  binary.bType = config.swapAB ? config.aType : config.bType;
  binary.cType = config.cType;
  binary.aMajor = config.swapAB ? config.bMajor : config.aMajor;
  binary.bMajor = config.swapAB ? config.aMajor : config.bMajor;
  // Each map's box is the staged operand tile's, as on sm_90a.
  // Under swap-AB the kernel's A role reads the user's B and vice versa.
  auto plan = [&](const char *param, char matrix, const TmaOperandTile &tile) {
    if (config.swapAB)
      matrix = matrix == 'A' ? 'B' : 'A';
    TensorMapPlan map;
    map.param = param;
    map.matrix = matrix;
    map.dtype = tile.dtype;
    map.major = tile.major;
    map.boxInner = tile.boxDims[0];
    map.boxOuter = tile.boxDims[1];
    // cluster(4): each CTA loads a quarter of the pair's B tile (K-major,
    // verifySm100GemmConfig), half its slot's rows.
    if (matrix == 'B' && config.clusterPairs == 2)
      map.boxOuter /= 2;
    map.swizzleBytes = tile.swizzleBytes;
    // Batched: a rank-3 map (the sm_90a plan); broadcast: rank 2.
    map.batched = config.batch && (map.matrix == 'A' ? config.batch->aBatched
                                                     : config.batch->bBatched);
    return map;
  };
  binary.tensorMaps = {plan("tmapA", 'A', kernel.a.staged),
                       plan("tmapB", 'B', kernel.b.staged)};
  if (staged) {
    // C (M x N, N contiguous; N / 2 with swiglu) in boxes of one staging
    // chunk, as on sm_90a. Without a legal map (C, ldc or N not whole
    // 16-byte units) the launcher passes storeTma = 0 and the kernel
    // stores directly.
    const EpilogueStagingTile &tile = **staging;
    TensorMapPlan map;
    map.param = "tmapC";
    map.matrix = 'C';
    map.dtype = config.cType;
    map.major = MajorKind::K; // dims(M, N) = {N, M}: N is contiguous.
    map.boxInner = tile.cols;
    map.boxOuter = tile.rows;
    map.swizzleBytes = tile.swizzleBytes;
    map.l2PromotionBytes = 0;
    map.fallbackFlag = "storeTma";
    map.store = true;
    binary.tensorMaps.push_back(map);
  } else if (!staging) {
    llvm::consumeError(staging.takeError());
  }
  return binary;
}

} // namespace tilec
