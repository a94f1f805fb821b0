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

Sm90SmemMap tilec::sm90SmemMap(const Sm90GemmConfig &config) {
  Sm90SmemMap map;
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
  auto tile = sm90EpilogueTile(config);
  if (!tile)
    llvm::consumeError(tile.takeError());
  else if (*tile)
    map.stagingBytes = map.rowBlocks * (*tile)->buffers * (*tile)->bytes;
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
