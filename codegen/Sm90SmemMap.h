//===- codegen/Sm90SmemMap.h - The sm_90a kernel's shared memory -*- C++
//-*-===//
//
// Where each part of an sm_90a GEMM kernel's dynamic shared memory lives:
// one struct holds both the sizes and the offsets, so the kernel builder
// (Sm90Gemm.cpp), the launch size (sm90SharedBytes) and plan-pipeline's
// message (compiler/passes/PlanPipeline.cpp) read the same numbers.
//
// From the 1024-byte-aligned base (the dynamic allocation carries
// SmemAlignSlack bytes so that the base can be rounded up):
//
//   [staging buffers][A ring][B ring][full+empty mbarriers per stage]
//   [split-K flag word][C-load mbarriers, one per consumer warpgroup]
//   [column stage: full+empty mbarriers, BN floats per operand]
//
// The column stage (codegen/Sm90ColumnStage.h) takes only what the rest
// leaves under the CTA's limit: it is present when it fits, and the stage
// count a kernel can have does not depend on it.
//
// Every staging buffer is a multiple of 1024 bytes, so the ring stays aligned
// for SW128 atoms.
//
// Example: BM 128, BN 256, BK 64 bf16, 4 stages, a 2-buffer 64 x 64 staging
// tile per consumer warpgroup: staging 2 x 2 x 8192 = 32768, A ring at 32768
// (4 x 16384), B ring at 98304 (4 x 32768), barriers at 229376, flag at
// 229440, C-load barriers at 229456, end 229472, requested 230496 bytes.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM90SMEMMAP_H
#define TILEC_CODEGEN_SM90SMEMMAP_H

#include "codegen/warpspec/EpilogueStaging.h"

#include "llvm/Support/Error.h"

#include <optional>

namespace tilec {

struct Sm90GemmConfig;

struct Sm90SmemMap {
  /// The epilogue's staging tile (sm90EpilogueTile), one per consumer
  /// warpgroup; none when the epilogue stores directly.
  std::optional<EpilogueStagingTile> stagingTile;
  unsigned stagingBytes = 0; ///< All consumer warpgroups' staging buffers.
  unsigned aStageBytes = 0;  ///< One stage of the wgmma A role's tile.
  unsigned bStageBytes = 0;  ///< One stage of the wgmma B role's tile.
  unsigned stages = 0;
  unsigned rowBlocks = 0; ///< 64-row blocks (BM / 64), a staging tile each.

  /// A full and an empty mbarrier (8 bytes each) per stage.
  static constexpr unsigned BarrierPairBytes = 16;
  /// The split-K flag word, padded so the mbarriers after it stay aligned.
  static constexpr unsigned FlagBytes = 16;

  unsigned aRing() const { return stagingBytes; }
  unsigned bRing() const { return aRing() + stages * aStageBytes; }
  unsigned barriers() const { return bRing() + stages * bStageBytes; }
  unsigned flag() const { return barriers() + stages * BarrierPairBytes; }
  /// One mbarrier per consumer warpgroup for the TMA loads of C (beta != 0),
  /// present only with a staging tile.
  unsigned cLoadBarriers() const { return flag() + FlagBytes; }
  unsigned cLoadBarrierBytes() const {
    return stagingBytes ? (8 * rowBlocks + 15) / 16 * 16 : 0;
  }
  /// The column stage's two mbarriers, then its values (Sm90ColumnStage).
  unsigned columnValueBytes = 0;
  unsigned columnBarriers() const {
    return cLoadBarriers() + cLoadBarrierBytes();
  }
  unsigned columnValues() const { return columnBarriers() + 16; }
  /// The block scales' ring (sm90StagesBlockScales), or a 4-bit weight's
  /// scales and zero points (codegen/Sm90WeightDequant.h): scaleStageBytes
  /// per stage after the column stage, scaleAlign-byte aligned (16, or 128
  /// for TMA destinations).
  unsigned scaleStageBytes = 0;
  unsigned scaleAlign = 16;
  unsigned columnEnd() const {
    return columnValueBytes ? columnValues() + columnValueBytes
                            : columnBarriers();
  }
  unsigned scaleRing() const {
    return (columnEnd() + scaleAlign - 1) / scaleAlign * scaleAlign;
  }
  unsigned end() const {
    return scaleStageBytes ? scaleRing() + stages * scaleStageBytes
                           : columnEnd();
  }

  unsigned ringBytes() const { return stages * (aStageBytes + bStageBytes); }
  /// Neither ring, staging nor per-stage barriers: the flag, the C-load
  /// barriers and the alignment slack.
  unsigned fixedBytes() const;
  /// The dynamic shared memory to request: the alignment slack and end().
  unsigned totalBytes() const;
};

/// The map of \p config, or the error of its staging tile
/// (sm90EpilogueTile: a swizzle that is not a legal atom, or columns that
/// do not divide the tile). Operand tiles are BM x BK (A role) and BN x BK
/// (B role).
llvm::Expected<Sm90SmemMap> sm90CheckedSmemMap(const Sm90GemmConfig &config);

/// sm90CheckedSmemMap without the staging tile's error: no staging tile
/// where it is one (the config checks report it), for the sizes only.
Sm90SmemMap sm90SmemMap(const Sm90GemmConfig &config);

} // namespace tilec

#endif // TILEC_CODEGEN_SM90SMEMMAP_H
