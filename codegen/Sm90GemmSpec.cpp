//===- codegen/Sm90GemmSpec.cpp - GemmSpec to the sm_90a generator --------===//
//
// Checks what the sm_90a generator implements and copies the tile over; the
// generator's own verifier then checks the tile against the wgmma and
// swizzle atoms.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90GemmSpec.h"
#include "codegen/warpspec/SpecBasics.h"

#include "codegen/Sm90Limits.h"
#include "codegen/Sm90WeightDequant.h"
#include "ir/layout/LayoutExpr.h"
#include "ir/layout/WeightPack.h"

#include <algorithm>
#include <tuple>

namespace tilec {

Sm90GemmConfig sm90ConfigOf(const GemmSpec &spec) {
  Sm90GemmConfig config;
  config.annotate = spec.annotate;
  config.annotateSource = spec.annotateSource;
  config.source = spec.source;
  config.epilogueOps = spec.epilogueOps;
  config.blockScale = spec.blockScale;
  config.batch = spec.batch;
  config.group = spec.group;
  config.weightQuant = spec.weightQuant;
  if (!spec.name.empty())
    config.name = spec.name;
  config.bm = spec.bm;
  config.bn = spec.bn;
  config.bk = spec.bk;
  config.stages = spec.stages;
  config.aType = spec.aType;
  config.bType = spec.bType;
  config.cType = spec.cType;
  config.aMajor = spec.aMajor;
  config.bMajor = spec.bMajor;
  config.swapAB = spec.swapAB;
  config.persistent = spec.persistent;
  config.groupM = spec.rasterGroupM;
  config.clusterM = spec.clusterM;
  config.clusterN = spec.clusterN;
  config.storeTma = spec.storeTma;
  config.storeSwizzleBytes = spec.storeSwizzleBytes;
  if (config.weightQuant) {
    Sm90GemmConfig split = config;
    split.splitK = spec.splitK > 1;
    config.ctasPerSm = sm90WeightCtasPerSm(split);
  }
  return config;
}

llvm::Expected<Sm90GemmConfig> sm90ConfigFromSpec(const GemmSpec &spec) {
  auto config = sm90UnverifiedConfig(spec);
  if (!config)
    return config.takeError();
  if (llvm::Error err = verifySm90GemmConfig(*config))
    return err;
  return config;
}

llvm::Expected<Sm90GemmConfig> sm90UnverifiedConfig(const GemmSpec &spec) {
  auto fail = [](const std::string &message) {
    return llvm::createStringError(message);
  };
  if (llvm::Error err = checkTmaGemmBasics(spec, ArchKind::SM90a))
    return err;
  // The generator stages each operand in the tile tmaOperandTile derives
  // (codegen/Sm90Gemm.h); a different smem layout in the spec is an error,
  // not silently replaced. The check uses the language's tile shape
  // ((BM, BK) for a, (BN, BK) for b) and the operand's role without swap.
  // A 4-bit weight is always swapped: a's tile is the wgmma B's BN rows.
  unsigned aRows = spec.weightQuant ? spec.bn : spec.bm;
  unsigned aMmaMN = spec.weightQuant ? spec.bn : 64u;
  for (auto [name, layout, rows, type, major, mmaMN] :
       {std::tuple{"a", &spec.smemA, aRows, spec.aType, spec.aMajor, aMmaMN},
        {"b", &spec.smemB, spec.bn, spec.bType, spec.bMajor, spec.bn}}) {
    if (!*layout)
      continue;
    if (spec.weightQuant && name[0] == 'b') {
      // The packed codes (Sm90WeightDequant.h); BM tiles the weight.
      unsigned bits = dtypeBits(spec.bType);
      int64_t blockK = packedWeightBlockK(bits);
      std::string packed =
          spec.bm % 16 == 0 && spec.bk % blockK == 0
              ? packedWeightLayout(bits, spec.bm, spec.bk).str()
              : "(BM a multiple of 16, BK of " + std::to_string(blockK) + ")";
      if ((*layout)->str() != packed)
        return fail("smem b = " + (*layout)->str() + " is not the packed " +
                    std::to_string(bits) +
                    "-bit order the sm_90a generator stages: " + packed);
      continue;
    }
    auto staged = tmaOperandTile(rows, spec.bk, type, major, mmaMN);
    if (!staged)
      return staged.takeError();
    auto expected = evaluateLayoutExpr(staged->layout);
    if (!expected)
      return expected.takeError();
    if (!expected->isComposed() || !(expected->getComposed() == **layout))
      return fail(std::string("smem ") + name + " = " + (*layout)->str() +
                  " is not what the sm_90a generator stages; it stages " +
                  staged->layout + " = " + expected->str() +
                  " (write that, or 'auto' where it picks the same)");
  }
  if (spec.blockScale) {
    // The verify pass reports these at the .tile lines; a spec built
    // another way gets them here.
    if (spec.bk != spec.blockScale->kBlock)
      return fail(
          "block scales need BK = " + std::to_string(spec.blockScale->kBlock) +
          ", not " + std::to_string(spec.bk));
  }
  // A group's combinations: codegen/GemmCombinationRules.cpp (emitGemm).
  Sm90GemmConfig config = sm90ConfigOf(spec);
  if (spec.splitK == 0)
    return fail("split_k(0) is not a split; use 1 (no split) or more");
  config.splitK = spec.splitK > 1;
  config.splitKCluster =
      config.splitK && sm90SplitKClusterFits(config, spec.splitK);
  if (config.splitKCluster)
    config.clusterSplits = spec.splitK;
  return config;
}

llvm::Expected<GemmKernelBinary> sm90GemmBinary(Sm90GemmKernel kernel,
                                                unsigned splits) {
  const Sm90GemmConfig &config = kernel.config;
  if (config.splitKCluster && config.clusterSplits &&
      std::max(2u, splits) != config.clusterSplits)
    return llvm::createStringError(
        "the kernel reduces its " + std::to_string(config.clusterSplits) +
        " K splits in a cluster, each CTA storing its share of the tile, "
        "but the launch asks for " +
        std::to_string(std::max(2u, splits)) +
        " splits; compile it for that many");
  if (config.splitKCluster && splits > sm90::MaxClusterCtas)
    return llvm::createStringError(
        "split-K over " + std::to_string(splits) +
        " CTAs cannot reduce in one cluster: at most " +
        std::to_string(sm90::MaxClusterCtas) +
        " CTAs (the portable cluster size); use at most " +
        std::to_string(sm90::MaxClusterCtas) +
        " splits or the workspace reduction (splitKCluster off)");
  GemmKernelBinary binary;
  binary.arch = ArchKind::SM90a;
  binary.ptx = std::move(kernel.ptx);
  binary.entryName = std::move(kernel.entry);
  binary.blockThreads = kernel.blockThreads;
  binary.sharedBytes = kernel.sharedBytes;
  // The kernel's A role is the user's B under swap-AB.
  binary.tileM = config.swapAB ? config.bn : config.bm;
  binary.tileN = config.swapAB ? config.bm : config.bn;
  binary.swapAB = config.swapAB;
  binary.splitK = config.splitK ? std::max(2u, splits) : 1;
  binary.splitKCluster = config.splitKCluster;
  binary.persistent = config.persistent;
  // The epilogue stores pairs of C elements when ldc is even, else single
  // elements.
  binary.ldcMultiple = 1;
  binary.cAlignBytes = 2 * dtypeBits(config.cType) / 8;
  binary.ctasPerSm = config.ctasPerSm;
  binary.dependentLaunch = true;
  // 2x1 clusters along grid x (the kernel's A role), or the K splits of one
  // tile along grid z; see Sm90Gemm.h.
  binary.cluster = {kernel.clusterX, kernel.clusterY,
                    config.splitKCluster ? binary.splitK : 1u};
  binary.gridRule.linear = false;
  binary.gridRule.tilesPerCluster = config.clusterM;
  binary.gridRule.columnsPerCluster = config.clusterN;
  binary.params = sm90KernelParams(
      kernel.staging.has_value(), config.epilogueOps,
      config.blockScale.has_value(), config.batch.has_value(),
      config.group ? std::optional(config.group->kind) : std::nullopt,
      config.weightQuant);
  binary.weightQuant = config.weightQuant;
  binary.aType = config.aType;
  binary.bType = config.bType;
  binary.cType = config.cType;
  binary.epilogueOps = config.epilogueOps;
  binary.aMajor = config.aMajor;
  binary.bMajor = config.bMajor;
  // Each map's box is the derived operand tile's (K-major: BK x rows;
  // MN-major: one swizzle span of MN x BK, loaded `boxes` times per slot).
  auto plan = [&](const char *param, bool roleA) {
    const TmaOperandTile &tile = roleA ? kernel.a : kernel.b;
    TensorMapPlan map;
    map.param = param;
    map.matrix = (roleA != config.swapAB) ? 'A' : 'B';
    map.dtype = tile.dtype;
    map.major = tile.major;
    map.boxInner = tile.boxDims[0];
    map.boxOuter = tile.boxDims[1]; // rows / cluster CTAs under multicast
    map.swizzleBytes = tile.swizzleBytes;
    map.batched = config.batch && (map.matrix == 'A' ? config.batch->aBatched
                                                     : config.batch->bBatched);
    // Grouped: B is [G, N, K], A [G, Mmax, K] when masked (Sm90Group.h).
    if (config.group)
      map.batched =
          map.matrix == 'B' || config.group->kind == GroupKind::Masked;
    return map;
  };
  binary.tensorMaps = {plan("tmapA", true), plan("tmapB", false)};
  if (kernel.staging) {
    // C (M x N, N contiguous) in boxes of one staging chunk. Without a
    // legal map (C, ldc or N not whole 16-byte units) the launcher passes
    // storeTma = 0 and the kernel stores directly.
    TensorMapPlan map;
    map.param = "tmapC";
    map.matrix = 'C';
    map.dtype = config.cType;
    map.major = MajorKind::K; // dims(M, N) = {N, M}: N is contiguous.
    map.boxInner = kernel.staging->cols;
    map.boxOuter = kernel.staging->rows;
    map.swizzleBytes = kernel.staging->swizzleBytes;
    map.l2PromotionBytes = 0;
    map.fallbackFlag = "storeTma";
    map.store = true;
    map.batched = config.batch.has_value() ||
                  (config.group && config.group->kind == GroupKind::Masked);
    binary.tensorMaps.push_back(map);
  }
  if (config.weightQuant) {
    // The packed codes as N / 16 rows of K u64 (packedWeight), the group
    // scales and zero points [ceil(K / G), N] (codegen/Sm90WeightDequant.h).
    Sm90WeightTiles tiles = sm90WeightTiles(config);
    binary.tensorMaps[0].packedWeight = true;
    for (auto [param, matrix, tile] : {std::tuple{"tmapSB", 'S', &tiles.scales},
                                       {"tmapZB", 'Z', &tiles.zeros}}) {
      if (matrix == 'Z' && !config.weightQuant->zeros)
        continue;
      TensorMapPlan map;
      map.param = param;
      map.matrix = matrix;
      map.dtype = tile->dtype;
      map.major = MajorKind::K; // dims(groups, N) = {N, groups}
      map.boxInner = tile->boxDims[0];
      map.boxOuter = tile->boxDims[1];
      map.swizzleBytes = 0;
      map.l2PromotionBytes = 0;
      binary.tensorMaps.push_back(map);
    }
  }
  return binary;
}

} // namespace tilec
