//===- codegen/Sm90SmemMap.cpp - The sm_90a kernel's shared memory --------===//
#include "codegen/Sm90SmemMap.h"

#include "codegen/Sm90ColumnStage.h"
#include "codegen/Sm90Gemm.h"
#include "codegen/Sm90Limits.h"
#include "codegen/Sm90WeightDequant.h"
#include "ir/arch/Arch.h"

#include <algorithm>

using namespace tilec;

unsigned Sm90SmemMap::fixedBytes() const {
  return SmemAlignSlack + FlagBytes + cLoadBarrierBytes();
}

unsigned Sm90SmemMap::totalBytes() const { return SmemAlignSlack + end(); }

unsigned tilec::sm90SharedBytes(const Sm90GemmConfig &config) {
  return sm90SmemMap(config).totalBytes();
}

/// The map of \p config around the staging tile \p staging.
static Sm90SmemMap
mapAround(const Sm90GemmConfig &config,
          const std::optional<EpilogueStagingTile> &staging) {
  Sm90SmemMap map;
  map.stagingTile = staging;
  unsigned elem = dtypeBytes(config.aType);
  map.stages = config.stages;
  map.rowBlocks = config.bm / 64;
  map.aStageBytes = config.bm * config.bk * elem;
  map.bStageBytes = config.bn * config.bk * elem;
  map.scaleStageBytes = sm90ScaleStageBytes(config);
  if (config.weightQuant) {
    // Codes in the A ring; scales and zero points in the scale ring, each
    // slot's TMA destinations 128-byte aligned.
    Sm90WeightStage stage = sm90WeightStage(config);
    map.aStageBytes = stage.codeBytes;
    map.scaleStageBytes = stage.sideBytes();
    map.scaleAlign = 128;
  }
  if (staging)
    map.stagingBytes = map.rowBlocks * staging->buffers * staging->bytes;
  // The column stage where what is left holds it (the launch's check:
  // ctasPerSm x (bytes + 1024) within the SM).
  const ArchInfo &arch = archInfo(ArchKind::SM90a);
  unsigned limit =
      std::min(arch.maxSharedBytesPerCta,
               arch.sharedBytesPerSm / std::max(1u, config.ctasPerSm) - 1024);
  Sm90SmemMap staged = map;
  staged.columnValueBytes = sm90ColumnStageOf(config).valueBytes();
  if (staged.columnValueBytes && staged.totalBytes() <= limit)
    return staged;
  return map;
}

llvm::Expected<Sm90SmemMap>
tilec::sm90CheckedSmemMap(const Sm90GemmConfig &config) {
  auto staging = sm90EpilogueTile(config);
  if (!staging)
    return staging.takeError();
  return mapAround(config, *staging);
}

Sm90SmemMap tilec::sm90SmemMap(const Sm90GemmConfig &config) {
  auto staging = sm90EpilogueTile(config);
  if (staging)
    return mapAround(config, *staging);
  llvm::consumeError(staging.takeError());
  return mapAround(config, std::nullopt);
}
