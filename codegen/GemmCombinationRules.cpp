//===- codegen/GemmCombinationRules.cpp - How a kernel's features combine -===//
//
// See GemmCombinationRules.h. Each family lists its rules in the order the
// verify pass reports them; the messages name the value written and what
// would be legal.
//
//===----------------------------------------------------------------------===//
#include "codegen/GemmCombinationRules.h"

#include "codegen/GemmTarget.h"
#include "ir/layout/WeightPack.h"
#include "ir/tile/EpilogueOps.h"

#include "llvm/ADT/STLExtras.h"

namespace tilec {

namespace {

using Item = GemmCombinationItem;

std::string archName(const GemmCombination &facts) {
  return archInfo(*facts.arch).name.str();
}

} // namespace

std::vector<GemmCombinationBreak>
decodeScheduleBreaks(const GemmCombination &facts) {
  if (!facts.arch)
    return {};
  const GemmTarget &target = gemmTarget(*facts.arch);
  bool swapBad = facts.swapAB && !target.hasDecodeSchedules();
  bool splitBad = facts.splitK > 1 && !target.hasSplitK();
  if (!swapBad && !splitBad)
    return {};
  std::string targets =
      swapBad ? decodeScheduleTargetNames() : splitKTargetNames();
  return {{Item::Schedule,
           "schedule " + std::string(swapBad ? "swap_ab" : "split_k") +
               " is implemented for " + targets + " only; " + archName(facts) +
               " kernels take 'schedule auto' (the plain "
               "schedule)"}};
}

std::vector<GemmCombinationBreak>
persistentScheduleBreaks(const GemmCombination &facts) {
  bool persistent = facts.persistent > 0;
  if (!facts.arch || gemmTarget(*facts.arch).hasPersistentSchedule() ||
      (!persistent && facts.clusterM <= 1))
    return {};
  return {{Item::Schedule,
           "schedule " + std::string(persistent ? "persistent" : "cluster") +
               " is implemented for " + persistentScheduleTargetNames() +
               " only; " + archName(facts) + " kernels take 'schedule auto'"}};
}

std::vector<GemmCombinationBreak> batchBreaks(const GemmCombination &facts) {
  if (!facts.batched)
    return {};
  std::vector<GemmCombinationBreak> breaks;
  if (facts.arch && !gemmTarget(*facts.arch).hasBatch())
    breaks.push_back({Item::Batch, "batched GEMM is not implemented for " +
                                       archName(facts) + "; " +
                                       batchTargetNames() +
                                       " kernels take a batch extent"});
  // What the batch shares grid z or the tile loop with. sm_100a's
  // persistent CTAs walk batch x tiles: its persistent(G) and cluster(2)
  // stay legal, split-K (one GEMM's workspace and counters) does not.
  bool walksTiles = facts.arch && gemmTarget(*facts.arch).hasBatch() &&
                    gemmTarget(*facts.arch).batchWalksTiles();
  if (walksTiles && facts.splitK > 1)
    breaks.push_back(
        {Item::ScheduleSplitK,
         "schedule split_k(" + std::to_string(facts.splitK) +
             ") is not implemented for a batched " + archName(facts) +
             " kernel: its persistent CTAs walk batch x tiles, and the "
             "split-K workspace and counters are one GEMM's; drop split_k "
             "(swap_ab, persistent(G) and cluster(2) are legal with a "
             "batch)"});
  else if (facts.splitK > 1)
    breaks.push_back({Item::ScheduleSplitK,
                      "schedule split_k is not implemented for a batched "
                      "kernel: the batch takes grid z, which split-K's "
                      "splits use; drop split_k (one CTA per tile and "
                      "batch)"});
  if (!walksTiles && facts.persistent > 0)
    breaks.push_back({Item::SchedulePersist,
                      "schedule persistent is not implemented for a batched "
                      "kernel: its tile loop does not walk batches; drop "
                      "persistent (the batch runs on grid z)"});
  // cluster(4)'s two pairs take neighbouring tiles of one GEMM.
  if (walksTiles && facts.clusterM == 4)
    breaks.push_back({Item::ScheduleClusterM,
                      "schedule cluster(4) is not implemented for a batched " +
                          archName(facts) +
                          " kernel (its two CTA pairs multicast the B tile of "
                          "neighbouring tiles of one GEMM); use cluster(2), "
                          "which walks batch x pair tiles"});
  if (!walksTiles && facts.clusterM > 1)
    breaks.push_back({Item::ScheduleClusterM,
                      "schedule cluster(2) is not implemented for a batched "
                      "kernel; drop it (the batch runs on grid z)"});
  for (size_t i = 0; i < facts.epilogueOps.size(); ++i)
    if (readsOperandMatrix(facts.epilogueOps[i])) {
      std::string name = epilogueOpInfo(facts.epilogueOps[i].kind).name.str();
      breaks.push_back({Item::EpilogueOp,
                        "epilogue op '" + name +
                            "' is not implemented for a batched kernel (one " +
                            name +
                            " tensor, not one per batch); bias and scale "
                            "vectors are shared by every batch and legal",
                        i});
    }
  if (facts.blockScale)
    breaks.push_back({Item::BlockScale,
                      "block scales are not implemented for a batched "
                      "kernel; drop the batch extent or the 'scale' lines"});
  return breaks;
}

std::vector<GemmCombinationBreak> groupBreaks(const GemmCombination &facts) {
  if (!facts.grouped)
    return {};
  std::vector<GemmCombinationBreak> breaks;
  if (facts.arch && !gemmTarget(*facts.arch).hasGroup())
    breaks.push_back({Item::Group, "grouped GEMM is not implemented for " +
                                       archName(facts) + "; legal: arch " +
                                       groupTargetNames()});
  for (auto [operand, major, item] :
       {std::tuple{'a', facts.aMajor, Item::MajorA},
        {'b', facts.bMajor, Item::MajorB}})
    if (major && *major != MajorKind::K)
      breaks.push_back({item, std::string("grouped GEMM loads ") + operand +
                                  " K-major (as DeepGEMM's grouped kernels: "
                                  "A [M, K], B [G, N, K] with K contiguous); "
                                  "write major(K)"});
  if (facts.swapAB)
    breaks.push_back({Item::ScheduleSwapAB,
                      "schedule swap_ab is not implemented for a grouped "
                      "kernel (the group follows A's rows, which swap-AB "
                      "makes the wgmma N); drop swap_ab"});
  if (facts.splitK > 1)
    breaks.push_back({Item::ScheduleSplitK,
                      "schedule split_k is not implemented for a grouped "
                      "kernel (its reduction counts tiles of one GEMM); drop "
                      "split_k, a grouped launch has a tile per group and "
                      "block"});
  if (facts.clusterM > 1)
    breaks.push_back({Item::ScheduleClusterM,
                      "schedule cluster(2) is not implemented for a grouped "
                      "kernel (two neighbouring row blocks can belong to "
                      "different groups, whose B tiles differ); drop "
                      "cluster(2)"});
  for (size_t i = 0; i < facts.epilogueOps.size(); ++i) {
    const EpilogueOp &op = facts.epilogueOps[i];
    if (readsOperandMatrix(op) || op.kind == EpilogueOpKind::Swiglu)
      breaks.push_back({Item::EpilogueOp,
                        "epilogue op '" + epilogueOpInfo(op.kind).name.str() +
                            "' is not implemented for a grouped kernel; the "
                            "element-wise ops and bias and scale vectors "
                            "(shared by every group) are legal",
                        i});
  }
  if (facts.batched)
    breaks.push_back({Item::GroupBatch,
                      "a grouped kernel takes no batch extent: its leading "
                      "extents are the group count; drop the batch"});
  return breaks;
}

std::vector<GemmCombinationBreak>
weightQuantBreaks(const GemmCombination &facts) {
  if (!facts.weightQuant)
    return {};
  std::vector<GemmCombinationBreak> breaks;
  if (facts.arch && !gemmTarget(*facts.arch).hasWeightQuant())
    breaks.push_back(
        {Item::WeightType, "quantized weights are not implemented for " +
                               archName(facts) + "; legal: arch " +
                               weightQuantTargetNames()});
  if (facts.aType && *facts.aType != DTypeKind::BF16 &&
      *facts.aType != DTypeKind::F16)
    breaks.push_back(
        {Item::TypeA, "a quantized weight multiplies bf16 or f16 activations; "
                      "a is " +
                          dtypeName(*facts.aType) + " (legal: bf16, f16)"});
  if (facts.bMajor && *facts.bMajor != MajorKind::K)
    breaks.push_back({Item::MajorB, "a quantized weight is packed along K "
                                    "(ir/layout/WeightPack.h); write "
                                    "major(K)"});
  if (facts.batched || facts.grouped)
    breaks.push_back(
        {Item::Weight,
         "a quantized weight GEMM takes no batch or group extent; declare "
         "b : " +
             (facts.bType ? dtypeName(*facts.bType) : std::string("u4")) +
             "[N, K]"});
  if (facts.blockScale)
    breaks.push_back({Item::BlockScale,
                      "block scales do not combine with a quantized weight's "
                      "group scales; drop 'scale " +
                          *facts.blockScale + " ... block(..)'"});
  return breaks;
}

std::vector<GemmCombinationBreak>
weightRowsBreaks(const WeightTileFacts &facts) {
  if (facts.rows % PackedWeightBlockN == 0)
    return {};
  return {{facts.rowsName == "BM" ? Item::TileBM : Item::TileBN,
           facts.rowsName.str() + " = " + std::to_string(facts.rows) +
               " is not a multiple of 16, the packed weight's block of "
               "output channels"}};
}

std::vector<GemmCombinationBreak> weightKBreaks(const WeightTileFacts &facts) {
  std::vector<GemmCombinationBreak> breaks;
  int64_t blockK = packedWeightBlockK(facts.bits);
  if (facts.bk % blockK != 0)
    breaks.push_back(
        {Item::TileBK, "BK = " + std::to_string(facts.bk) +
                           " is not a multiple of " + std::to_string(blockK) +
                           ", the packed " + std::to_string(facts.bits) +
                           "-bit weight's block of K"});
  int64_t g = facts.group;
  if (g && facts.bk % g != 0 && g % facts.bk != 0)
    breaks.push_back(
        {Item::TileBK, "BK = " + std::to_string(facts.bk) + " and group(" +
                           std::to_string(g) +
                           ") do not nest; BK must be a multiple or a divisor "
                           "of the group"});
  return breaks;
}

std::vector<GemmCombinationBreak>
weightAsMmaABreaks(const WeightAsMmaAFacts &facts) {
  const GemmTarget &target = gemmTarget(facts.arch);
  std::string arch = archInfo(facts.arch).name.str();
  std::vector<GemmCombinationBreak> breaks;
  std::vector<unsigned> rows = target.weightRowTiles();
  if (!llvm::is_contained(rows, facts.bm)) {
    std::string legal;
    for (unsigned r : rows)
      legal += (legal.empty() ? "" : " or ") + std::to_string(r);
    breaks.push_back(
        {Item::TileBM,
         "BM = " + std::to_string(facts.bm) + " weight rows: the " + arch +
             " quantized weight kernel runs swapped (BM tiles the weight's "
             "N, one consumer warpgroup per 64 rows); legal: BM " +
             legal});
  }
  if (facts.bk != target.weightBk())
    breaks.push_back({Item::TileBK, "BK = " + std::to_string(facts.bk) +
                                        ": the " + arch +
                                        " quantized weight kernel takes BK " +
                                        std::to_string(target.weightBk()) +
                                        " (one 128-byte swizzle row of the "
                                        "16-bit activations)"});
  if (facts.swapAB && !*facts.swapAB)
    breaks.push_back({Item::Schedule,
                      "on " + arch +
                          " the quantized weight is the wgmma A operand (read "
                          "from registers), so the kernel computes C^T = W * "
                          "A^T: add swap_ab to the schedule (BM then tiles N, "
                          "BN the tokens M)"});
  std::string cluster = "a " + arch +
                        " quantized weight kernel takes no thread-block "
                        "cluster; drop cluster(..) (swap_ab, split_k(S) and "
                        "persistent are legal)";
  if (facts.clusterM > 1)
    breaks.push_back({Item::ScheduleClusterM, cluster});
  if (facts.clusterN > 1)
    breaks.push_back({Item::ScheduleClusterN, cluster});
  return breaks;
}

GemmCombination combinationOf(const GemmSpec &spec) {
  GemmCombination facts;
  facts.arch = spec.arch;
  facts.swapAB = spec.swapAB;
  facts.splitK = spec.splitK;
  facts.persistent = spec.persistent ? std::max(1u, spec.rasterGroupM) : 0;
  facts.clusterM = spec.clusterM;
  facts.clusterN = spec.clusterN;
  facts.batched = spec.batch.has_value();
  facts.grouped = spec.group.has_value();
  if (spec.blockScale)
    facts.blockScale = "a";
  facts.weightQuant = spec.weightQuant.has_value();
  facts.aType = spec.aType;
  facts.bType = spec.bType;
  facts.aMajor = spec.aMajor;
  facts.bMajor = spec.bMajor;
  facts.epilogueOps = spec.epilogueOps;
  return facts;
}

llvm::Error checkGemmCombination(const GemmSpec &spec) {
  GemmCombination facts = combinationOf(spec);
  for (auto family : {decodeScheduleBreaks, persistentScheduleBreaks,
                      batchBreaks, groupBreaks, weightQuantBreaks}) {
    std::vector<GemmCombinationBreak> breaks = family(facts);
    if (!breaks.empty())
      return llvm::createStringError(breaks.front().message);
  }
  return llvm::Error::success();
}

} // namespace tilec
