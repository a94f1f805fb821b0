//===- codegen/Sm90GemmConfig.cpp - Legal sm_90a GEMM configurations ------===//
//
// Everything about an Sm90GemmConfig that is decided before any IR exists:
// the setmaxnreg register split, the K of one wgmma, the operand tiles in
// shared memory (atom, derived descriptors, TMA boxes), the type and size
// rules with their diagnostics, and the launch grid.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90Gemm.h"

#include "codegen/Sm90BlockScale.h"
#include "codegen/Sm90Epilogue.h"
#include "codegen/Sm90Limits.h"
#include "codegen/Sm90SmemMap.h"
#include "codegen/Sm90WeightDequant.h"
#include "ir/arch/Arch.h"
#include "ir/arch/DescriptorDerivation.h"
#include "ir/arch/InstrTable.h"
#include "ir/layout/LayoutExpr.h"
#include "ir/layout/SmemTileFromLayout.h"
#include "ir/layout/SwizzleAtom.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace tilec {

using namespace sm90;

unsigned sm90ConsumerWarpgroups(const Sm90GemmConfig &config) {
  return config.bm == 256 ? 2 : std::max(1u, config.bm / 64);
}

unsigned sm90RowBlocks(const Sm90GemmConfig &config) {
  return std::max(1u, config.bm / 64 / sm90ConsumerWarpgroups(config));
}

std::pair<unsigned, unsigned> sm90RegisterSplit(const Sm90GemmConfig &config) {
  // The CTA's register pool is fixed at launch: every thread's launch cap
  // (not the SM's share: 768 threads of two 384-thread CTAs get 80 each,
  // 30720 a CTA, not 32768). What the producer gives back the consumers
  // take, in multiples of 8; asking for more blocks setmaxnreg.inc forever
  // (an H200 hang of the two-CTA BM 128 W4A16 kernel at 104).
  unsigned consumers = sm90ConsumerWarpgroups(config);
  unsigned pool =
      std::min(RegistersPerSm / std::max(1u, config.ctasPerSm),
               sm90LaunchRegisterCap(config) * 128 * (1 + consumers));
  unsigned consumer = (pool - 128 * ProducerRegs) / (128 * consumers) / 8 * 8;
  return {ProducerRegs, std::min(consumer, MaxConsumerRegs)};
}

unsigned sm90LaunchRegisterCap(const Sm90GemmConfig &config) {
  unsigned threads = 128 * (1 + sm90ConsumerWarpgroups(config));
  return RegistersPerSm / (threads * std::max(1u, config.ctasPerSm)) / 8 * 8;
}

unsigned sm90PromotionN(const Sm90GemmConfig &config) {
  return config.blockScale && config.bn > Sm90MaxWholePromotionN ? config.bn / 2
                                                                 : config.bn;
}

bool sm90OverlapsPromotion(const Sm90GemmConfig &config) {
  if (!config.blockScale || sm90RowBlocks(config) != 1 ||
      sm90PromotionN(config) != config.bn)
    return false;
  // The main and two fresh accumulators, the epilogue operands held
  // through the K loop, and under swap-AB the columns' scales, shuffled
  // before the wait (Sm90BlockScale::promote).
  unsigned needs = 3 * config.bn / 2 + sm90PreloadedRegisters(config) +
                   (config.swapAB ? config.bn / 2 : 0);
  return sm90RegisterSplit(config).second >= needs + 24;
}

bool sm90StagesBlockScales(const Sm90GemmConfig &config) {
  if (!config.blockScale || config.swapAB ||
      sm90PromotionN(config) != config.bn)
    return false;
  return sm90ConsumerWarpgroups(config) == 1 ||
         (sm90RowBlocks(config) == 2 && config.clusterM == 1);
}

unsigned sm90ClusterCtas(const Sm90GemmConfig &config) {
  return config.clusterM * config.clusterN;
}

unsigned sm90ScaleStageBytes(const Sm90GemmConfig &config) {
  if (!sm90StagesBlockScales(config))
    return 0;
  return (4 * (config.bm + sm90BlockScaleSlots(config.bn)) + 15) / 16 * 16;
}

unsigned sm90WgmmaK(DTypeKind dtype) {
  const InstrInfo *row = instrFor(MmaFamilyKind::Wgmma, dtype);
  return row ? row->k : 0;
}

unsigned sm90RingBytes(const Sm90GemmConfig &config) {
  if (config.weightQuant) // Codes of half a byte beside the activations.
    return config.stages *
           (config.bm / 2 + config.bn * dtypeBytes(config.aType)) * config.bk;
  return config.stages * (config.bm + config.bn) * config.bk *
         dtypeBytes(config.aType);
}

bool sm90SplitKClusterFits(const Sm90GemmConfig &config, unsigned splits) {
  return splits >= 2 && splits <= MaxClusterCtas &&
         sm90ClusterCtas(config) == 1 && !config.persistent &&
         config.ctasPerSm == 1 &&
         sm90RingBytes(config) >= config.bm * config.bn * 4;
}

/// The wgmma type rules: A and B of one family (16-bit: equal types; fp8:
/// e4m3 / e5m2 in any mix; tf32), MN-major only for 16-bit types, C bf16,
/// f16 or f32.
static llvm::Error verifySm90Types(const Sm90GemmConfig &config) {
  auto fail = [](const std::string &message) {
    return llvm::createStringError(message);
  };
  std::string a = dtypeName(config.aType), bt = dtypeName(config.bType);
  WgmmaFamily family = wgmmaFamily(config.aType);
  if (family == WgmmaFamily::None ||
      wgmmaFamily(config.bType) == WgmmaFamily::None)
    return fail("A " + a + " x B " + bt +
                " is not a wgmma input type pair; A and B are f16, bf16, "
                "tf32, e4m3 or e5m2");
  if (wgmmaFamily(config.bType) != family ||
      (family != WgmmaFamily::FP8 && config.aType != config.bType))
    return fail("A " + a + " x B " + bt +
                " is not a wgmma type pair; A and B must be the same f16, "
                "bf16 or tf32 type, or e4m3 / e5m2 in any mix");
  if (family != WgmmaFamily::Half) {
    const char *which = config.aMajor == MajorKind::MN   ? "A"
                        : config.bMajor == MajorKind::MN ? "B"
                                                         : nullptr;
    if (which)
      return fail(std::string(which) + " is MN-major " +
                  (which[0] == 'A' ? a : bt) +
                  ", but wgmma's transpose (imm-trans-a / imm-trans-b) is "
                  "only for 16-bit types (f16, bf16); store " +
                  which + " K-major");
  }
  if (config.cType != DTypeKind::BF16 && config.cType != DTypeKind::F16 &&
      config.cType != DTypeKind::F32)
    return fail("C " + dtypeName(config.cType) +
                " is not implemented; C is bf16, f16 or f32 (from f32 "
                "accumulators)");
  return llvm::Error::success();
}

/// The tile: BM (the consumer warpgroups), BN (a wgmma N), the types, BK
/// (one swizzle atom row) and the stages.
static llvm::Error verifySm90Tile(const Sm90GemmConfig &config) {
  auto fail = [](const std::string &message) {
    return llvm::createStringError(message);
  };
  if (config.bm != 64 && config.bm != 128 && config.bm != 192 &&
      config.bm != 256)
    return fail("BM = " + std::to_string(config.bm) +
                " is not 64, 128, 192 or 256 (one to three consumer "
                "warpgroups of the wgmma atom M = 64, or two owning two "
                "64-row blocks each)");
  if (config.bm == 256) {
    const char *with = config.swapAB   ? "swap_ab"
                       : config.splitK ? "split_k"
                       : config.group  ? "a group"
                       : config.batch  ? "a batch"
                                       : nullptr;
    if (with)
      return fail(std::string("BM = 256 (two 64-row blocks per consumer "
                              "warpgroup) with ") +
                  with +
                  " is not implemented; legal: BM 64 or 128 there, or BM "
                  "256 with the grid, persistent or cluster(2) schedules");
  }
  if (config.bn % 8 != 0 || config.bn < 8 || config.bn > 256) {
    unsigned lo = std::clamp(config.bn / 8 * 8, 8u, 256u);
    unsigned hi = std::clamp((config.bn + 7) / 8 * 8, 8u, 256u);
    return fail("BN = " + std::to_string(config.bn) +
                " is not a wgmma N (a multiple of 8 from 8 to 256; nearest " +
                (lo == hi ? std::to_string(lo)
                          : std::to_string(lo) + " or " + std::to_string(hi)) +
                ")");
  }
  if (llvm::Error err = config.weightQuant ? verifySm90Weight(config)
                                           : verifySm90Types(config))
    return err;
  unsigned elemBytes = dtypeBytes(config.aType);
  unsigned rowBytes = config.bk * elemBytes;
  if (rowBytes != 32 && rowBytes != 64 && rowBytes != 128)
    return fail("BK = " + std::to_string(config.bk) + " " +
                dtypeName(config.aType) + " is " + std::to_string(rowBytes) +
                " bytes of K; a ring slot holds one swizzle atom row of 32, "
                "64 or 128 bytes (BK = " +
                std::to_string(32 / elemBytes) + ", " +
                std::to_string(64 / elemBytes) + " or " +
                std::to_string(128 / elemBytes) + " for " +
                dtypeName(config.aType) + ")");
  if (config.stages < 2 || config.stages > 16)
    return fail("stages = " + std::to_string(config.stages) +
                " is outside 2..16");
  return llvm::Error::success();
}

/// The ring, the staging tiles and the barriers within a CTA's shared
/// memory.
static llvm::Error verifySm90SharedMemory(const Sm90GemmConfig &config) {
  auto fail = [](const std::string &message) {
    return llvm::createStringError(message);
  };
  auto checked = sm90CheckedSmemMap(config);
  if (!checked)
    return checked.takeError();
  const Sm90SmemMap &map = *checked;
  unsigned bytes = map.totalBytes();
  const ArchInfo &arch = archInfo(ArchKind::SM90a);
  if (bytes > arch.maxSharedBytesPerCta)
    return fail(
        "the ring needs " + std::to_string(bytes) + " bytes of shared memory" +
        (map.stagingBytes ? " (with " + std::to_string(map.stagingBytes) +
                                " for the epilogue's staging tiles)"
                          : std::string()) +
        ", more than the " + std::to_string(arch.maxSharedBytesPerCta) +
        " a CTA may have; use fewer stages or a smaller tile");
  return llvm::Error::success();
}

/// The schedule: split-K (in a cluster or not), persistent, the 2x1
/// multicast cluster, the tile order, the CTAs per SM.
static llvm::Error verifySm90Schedule(const Sm90GemmConfig &config) {
  auto fail = [](const std::string &message) {
    return llvm::createStringError(message);
  };
  if (config.splitKCluster) {
    if (!config.splitK)
      return fail("splitKCluster reduces the K splits of a tile in a "
                  "cluster; it needs splitK");
    if (config.persistent)
      return fail("splitKCluster with a persistent kernel is not "
                  "implemented: a cluster is the splits of one tile; use "
                  "persistent or split-K");
    if (config.clusterM != 1)
      return fail(
          "splitKCluster with clusterM = " + std::to_string(config.clusterM) +
          ": the cluster is the 1x1xS of the K splits, so clusterM "
          "must be 1");
    unsigned ring = sm90RingBytes(config), tile = config.bm * config.bn * 4;
    if (ring < tile)
      return fail("splitKCluster keeps a CTA's f32 partial of " +
                  std::to_string(config.bm) + " x " +
                  std::to_string(config.bn) + " (" + std::to_string(tile) +
                  " bytes) in the ring, which has " + std::to_string(ring) +
                  " bytes (" + std::to_string(config.stages) +
                  " stages); use more stages or the workspace reduction");
  }
  if (config.persistent && config.splitK)
    return fail("a persistent kernel with split-K is not implemented; "
                "choose one of the two");
  if (config.clusterM != 1 && config.clusterM != 2)
    return fail("clusterM = " + std::to_string(config.clusterM) +
                " is not 1 or 2 (2x1 clusters multicast the B tile)");
  if (config.clusterM == 2 && config.bn % 16 != 0)
    return fail("BN = " + std::to_string(config.bn) +
                " does not split into two halves of whole 8-row swizzle "
                "atoms for the 2x1 cluster multicast; use a multiple of 16");
  if (config.clusterM == 2 &&
      (config.swapAB ? config.aMajor : config.bMajor) != MajorKind::K)
    return fail("2x1 clusters multicast a K-major B-role tile; the B role ("
                "the user's " +
                std::string(config.swapAB ? "A" : "B") +
                ") is MN-major here; use K-major or clusterM 1");
  if (config.clusterN != 1 && config.clusterN != 2)
    return fail("clusterN = " + std::to_string(config.clusterN) +
                " is not 1 or 2 (1x2 clusters multicast the A tile)");
  if (config.clusterN == 2) {
    if (config.clusterM != 1)
      return fail("clusterM = 2 with clusterN = 2 (a 2x2 cluster) is not "
                  "implemented; choose one");
    if (config.swapAB || config.splitK)
      return fail("1x2 clusters (clusterN = 2) take neither swapAB nor "
                  "splitK");
    if (config.aMajor != MajorKind::K)
      return fail("1x2 clusters multicast a K-major A tile; A is MN-major "
                  "here; use K-major or clusterN 1");
    if (config.bm % 16 != 0)
      return fail("BM = " + std::to_string(config.bm) +
                  " does not split into two halves of whole 8-row swizzle "
                  "atoms for the 1x2 cluster multicast; use a multiple of 16");
  }
  if (config.persistent && config.groupM == 0)
    return fail("groupM = 0: the persistent tile order needs a group of at "
                "least 1 tile row");
  if (config.ctasPerSm != 1 && config.ctasPerSm != 2)
    return fail("ctasPerSm = " + std::to_string(config.ctasPerSm) +
                " is not 1 or 2");
  return llvm::Error::success();
}

/// What fits one SM: the CTAs' shared memory and the consumers'
/// registers (accumulators, and block scales' fresh accumulators).
static llvm::Error verifySm90Occupancy(const Sm90GemmConfig &config) {
  auto fail = [](const std::string &message) {
    return llvm::createStringError(message);
  };
  unsigned bytes = sm90SmemMap(config).totalBytes();
  unsigned perSm = archInfo(ArchKind::SM90a).sharedBytesPerSm;
  if (config.ctasPerSm * (bytes + 1024) > perSm)
    return fail(std::to_string(config.ctasPerSm) + " CTAs of " +
                std::to_string(bytes) + " bytes of shared memory do not fit " +
                "the " + std::to_string(perSm) + " of an SM; use fewer stages");
  if (config.blockScale && config.bn > Sm90MaxWholePromotionN &&
      config.bn % 16 != 0)
    return fail(
        "BN = " + std::to_string(config.bn) +
        " with block scales promotes in two halves (the main and "
        "fresh accumulators of m64n" +
        std::to_string(config.bn) +
        " do not fit a consumer's registers together), and " +
        std::to_string(config.bn / 2) + " is not a wgmma N; above " +
        std::to_string(Sm90MaxWholePromotionN) + " use a multiple of 16 (" +
        std::to_string(config.bn / 16 * 16) + " or " +
        std::to_string(std::min(256u, (config.bn + 15) / 16 * 16)) + ")");
  auto [producer, consumer] = sm90RegisterSplit(config);
  unsigned accumulators = sm90RowBlocks(config) * config.bn / 2;
  // ptxas compiles the whole kernel under the launch cap, setmaxnreg or not
  // (seen on the H200: "Insufficient registers (80)" for m64n128 at 768
  // threads per SM).
  unsigned threads = 128 * (1 + sm90ConsumerWarpgroups(config));
  unsigned cap = sm90LaunchRegisterCap(config);
  if (cap < accumulators + 24)
    return fail(std::to_string(config.ctasPerSm) + " CTAs of " +
                std::to_string(threads) + " threads cap a thread at " +
                std::to_string(cap) + " registers, too few for the " +
                std::to_string(accumulators) + " accumulators of " +
                (sm90RowBlocks(config) > 1
                     ? std::to_string(sm90RowBlocks(config)) + " x "
                     : std::string()) +
                "m64n" + std::to_string(config.bn) +
                "; use 1 CTA per SM or a smaller BN");
  if (consumer < accumulators + 24)
    return fail("a consumer thread gets " + std::to_string(consumer) +
                " registers at " + std::to_string(config.ctasPerSm) +
                " CTAs per SM, too few for its " +
                std::to_string(accumulators) +
                " accumulators; use a smaller BN or 1 CTA per SM");
  // Block scales keep a fresh accumulator of one promotion step beside the
  // main one (sm90PromotionN).
  auto needs = [&](const Sm90GemmConfig &c) {
    return sm90RowBlocks(c) * c.bn / 2 + sm90PromotionN(c) / 2 + 24;
  };
  if (config.blockScale && consumer < needs(config)) {
    Sm90GemmConfig widest = config;
    for (widest.bn = config.bn; widest.bn > 8 && consumer < needs(widest);)
      widest.bn -= 8;
    return fail("a consumer thread gets " + std::to_string(consumer) +
                " registers, too few for the " + std::to_string(accumulators) +
                " main and " + std::to_string(sm90PromotionN(config) / 2) +
                " fresh accumulators of the block-scaled BM = " +
                std::to_string(config.bm) +
                ", BN = " + std::to_string(config.bn) +
                " tile; use BN <= " + std::to_string(widest.bn));
  }
  return llvm::Error::success();
}

llvm::Error verifySm90GemmConfig(const Sm90GemmConfig &config) {
  for (auto verify : {verifySm90Tile, verifySm90SharedMemory,
                      verifySm90Schedule, verifySm90Occupancy})
    if (llvm::Error err = verify(config))
      return err;
  return llvm::Error::success();
}

llvm::Expected<std::pair<TmaOperandTile, TmaOperandTile>>
sm90RoleTiles(const Sm90GemmConfig &config) {
  if (config.weightQuant) {
    // The packed codes (Sm90WeightDequant.h) and the activations, K-major.
    auto tileB = tmaOperandTile(config.bn, config.bk, config.aType,
                                MajorKind::K, config.bn);
    if (!tileB)
      return tileB.takeError();
    return std::make_pair(sm90WeightTiles(config).codes, *tileB);
  }
  DTypeKind roleTypeA = config.swapAB ? config.bType : config.aType;
  DTypeKind roleTypeB = config.swapAB ? config.aType : config.bType;
  MajorKind roleMajorA = config.swapAB ? config.bMajor : config.aMajor;
  MajorKind roleMajorB = config.swapAB ? config.aMajor : config.bMajor;
  auto tileA = tmaOperandTile(config.bm, config.bk, roleTypeA, roleMajorA, 64);
  if (!tileA)
    return tileA.takeError();
  // A block-scaled tile promoting in halves wgmmas each half of the B
  // tile: its subtile m = 1 (mAtomBytes) is where the second half starts.
  auto tileB = tmaOperandTile(config.bn, config.bk, roleTypeB, roleMajorB,
                              sm90PromotionN(config));
  if (!tileB)
    return tileB.takeError();
  if (config.clusterM > 1) {
    tileB->boxDims[1] = config.bn / config.clusterM;
    tileB->boxBytes /= config.clusterM;
  }
  if (config.clusterN > 1) {
    tileA->boxDims[1] = config.bm / config.clusterN;
    tileA->boxBytes /= config.clusterN;
  }
  return std::make_pair(*tileA, *tileB);
}

} // namespace tilec
