//===- codegen/Sm90WeightDequant.cpp - Quantized weights as wgmma A -------===//
//
// See Sm90WeightDequant.h.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90WeightDequant.h"

#include "codegen/GemmCombinationRules.h"
#include "codegen/Sm90SmemMap.h"
#include "codegen/WeightDequant.h"
#include "ir/arch/Arch.h"
#include "ir/layout/WeightPack.h"

namespace tilec {

namespace {

/// A TMA-loaded tile of one box, no swizzle, K-major coordinates.
TmaOperandTile plainTile(DTypeKind dtype, unsigned inner, unsigned outer,
                         unsigned bytes) {
  TmaOperandTile tile;
  tile.rows = outer;
  tile.bytes = bytes;
  tile.swizzleBytes = 0;
  tile.dtype = dtype;
  tile.major = MajorKind::K;
  tile.boxDims[0] = inner;
  tile.boxDims[1] = outer;
  tile.boxes = 1;
  tile.boxBytes = bytes;
  return tile;
}

} // namespace

Sm90WeightStage sm90WeightStage(const Sm90GemmConfig &config) {
  Sm90WeightStage stage;
  static_cast<WeightStageBytes &>(stage) = weightStageBytes(
      weightFormatOfB(config.bType), *config.weightQuant, config.bm, config.bk);
  return stage;
}

Sm90WeightTiles sm90WeightTiles(const Sm90GemmConfig &config) {
  Sm90WeightStage stage = sm90WeightStage(config);
  unsigned rows = stage.scaleRows;
  Sm90WeightTiles tiles;
  unsigned bits = weightFormatOfB(config.bType).bits;
  // One u64 holds a block row's 16 codes of 4 bits at one k (8-bit: half).
  tiles.codes = plainTile(config.bType, config.bk * bits / 4,
                          config.bm / PackedWeightBlockN, stage.codeBytes);
  tiles.codes.rows = config.bm;
  tiles.codes.layout = packedWeightLayout(bits, config.bm, config.bk).str();
  tiles.scales = plainTile(config.weightQuant->scaleType, config.bm, rows,
                           rows * config.bm * 2);
  tiles.zeros = plainTile(DTypeKind::U8, config.bm, rows, rows * config.bm);
  return tiles;
}

unsigned sm90WeightCtasPerSm(const Sm90GemmConfig &config) {
  if (config.bm > 64 && config.bn > 32)
    return 1;
  Sm90GemmConfig two = config;
  two.ctasPerSm = 2;
  // The accumulators and the dequantization's ~48 registers under the
  // launch cap (BM 64: 128, so BN <= 160; ptxas wanted 134 at BN 200).
  if (config.bn / 2 + 48 > sm90LaunchRegisterCap(two))
    return 1;
  unsigned perSm = archInfo(ArchKind::SM90a).sharedBytesPerSm;
  return 2 * (sm90SmemMap(two).totalBytes() + 1024) <= perSm ? 2 : 1;
}

llvm::Error verifySm90Weight(const Sm90GemmConfig &config) {
  auto fail = [](const std::string &message) {
    return llvm::createStringError(message);
  };
  if (llvm::Error err =
          checkQuantWeight({config.aType, config.bType, config.bMajor,
                            *config.weightQuant, config.bk},
                           "BM", config.bm))
    return err;
  // The tile and schedule rules, as the verify pass reports them.
  WeightAsMmaAFacts facts{ArchKind::SM90a, config.bm,       config.bk,
                          config.swapAB,   config.clusterM, config.clusterN};
  if (std::vector<GemmCombinationBreak> breaks = weightAsMmaABreaks(facts);
      !breaks.empty())
    return fail(breaks.front().message);
  const char *other = config.blockScale               ? "block scales"
                      : config.batch                  ? "a batch"
                      : config.group                  ? "a group"
                      : config.aMajor != MajorKind::K ? "an MN-major A"
                                                      : nullptr;
  if (other)
    return fail(std::string("a quantized weight GEMM with ") + other +
                " is not implemented on sm_90a");
  unsigned bits = weightFormatOfB(config.bType).bits;
  Layout packed = packedWeightLayout(bits, config.bm, config.bk);
  return checkWeightFragmentReads(packed, bits, config.bm, config.bk);
}

void loadSm90WeightFragments(
    llvm::IRBuilderBase &b, const Sm90GemmConfig &config, llvm::Value *codes,
    llvm::Value *scales, llvm::Value *zeros, llvm::Value *blockRow,
    llvm::Value *lane,
    llvm::function_ref<void(unsigned, const std::array<llvm::Value *, 4> &)>
        issue) {
  Sm90WeightStage stage = sm90WeightStage(config);
  const WeightQuantSpec &quant = *config.weightQuant;
  const WeightFormatInfo &format = weightFormatOfB(config.bType);
  DTypeKind type = config.aType;
  llvm::Type *shared = llvm::PointerType::get(b.getContext(), 3);
  auto at = [&](llvm::Value *address, unsigned constant) {
    llvm::Value *ptr = b.CreateIntToPtr(address, shared);
    return constant ? b.CreateConstGEP1_32(b.getInt8Ty(), ptr, constant) : ptr;
  };
  // The lane's 16 bytes of each packed block of its block row.
  unsigned blockRowBytes = packedBlockRowBytes(format, config.bk);
  llvm::Value *laneCodes = b.CreateAdd(
      codes, b.CreateAdd(b.CreateMul(blockRow, b.getInt32(blockRowBytes)),
                         b.CreateShl(lane, 4)));
  // The lane's channels: g and g + 8 of its block row.
  llvm::Value *channel =
      b.CreateAdd(b.CreateMul(blockRow, b.getInt32(PackedWeightBlockN)),
                  b.CreateLShr(lane, 2), "w.channel");
  llvm::Value *scaleLane = b.CreateAdd(scales, b.CreateShl(channel, 1));
  llvm::Value *zeroLane = zeros ? b.CreateAdd(zeros, channel) : nullptr;
  // Per group row: the two channels' splatted scales and bases.
  std::vector<std::array<GroupScaleBase, 2>> rowScales;
  for (unsigned row = 0; row < stage.scaleRows; ++row) {
    std::array<GroupScaleBase, 2> sb;
    for (unsigned j = 0; j < 2; ++j) {
      unsigned n = 8 * j;
      llvm::Value *s = b.CreateAlignedLoad(
          b.getInt16Ty(), at(scaleLane, (row * config.bm + n) * 2),
          llvm::Align(2), "w.scale");
      llvm::Value *z = nullptr;
      if (zeroLane)
        z = b.CreateZExt(b.CreateAlignedLoad(b.getInt8Ty(),
                                             at(zeroLane, row * config.bm + n),
                                             llvm::Align(1), "w.zero"),
                         b.getInt32Ty());
      sb[j] = groupScaleBase(b, type, format, s, z);
    }
    rowScales.push_back(sb);
  }
  unsigned stepsPerLoad = weightStepsPerLoad(format);
  auto *v4 = llvm::FixedVectorType::get(b.getInt32Ty(), 4);
  llvm::Value *words = nullptr;
  for (unsigned ks = 0; ks < config.bk / 16; ++ks) {
    if (ks % stepsPerLoad == 0)
      words = b.CreateAlignedLoad(
          v4, at(laneCodes, ks / stepsPerLoad * PackedWeightBlockBytes),
          llvm::Align(16), "w.codes");
    llvm::SmallVector<llvm::Value *, 2> step = stepWords(b, words, ks, format);
    unsigned row = stage.scaleRows > 1 ? 16 * ks / quant.group : 0;
    std::array<llvm::Value *, 4> pairs;
    for (unsigned i = 0; i < 4; ++i)
      pairs[i] =
          dequantWeightPair(b, type, format, step, i, rowScales[row][i / 2]);
    // Packed register i = 2 j + h is A's a[j + 2 h].
    issue(ks, {pairs[0], pairs[2], pairs[1], pairs[3]});
  }
}

} // namespace tilec
