//===- codegen/Sm90Limits.h - Hopper limits and wgmma type families -*- C++
//-*-===//
//
// The numbers and type rules that both the sm_90a kernel builder
// (Sm90Gemm.cpp) and its configuration checks (Sm90GemmConfig.cpp) read:
// the register budgets of an H100/H200 SM, the setmaxnreg
// split, and which A/B element types one wgmma can take together.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM90LIMITS_H
#define TILEC_CODEGEN_SM90LIMITS_H

#include "ir/arch/DType.h"

#include <string>

namespace tilec {
namespace sm90 {

// Shared-memory limits are per-target facts of ir/arch/Arch.h
// (archInfo(ArchKind::SM90a).maxSharedBytesPerCta, .sharedBytesPerSm).
inline constexpr unsigned ProducerRegs = 40;
inline constexpr unsigned MaxConsumerRegs = 232;
inline constexpr unsigned RegistersPerSm = 65536;
/// The largest thread-block cluster every sm_90 GPU launches (the portable
/// cluster size): split-K in a cluster takes at most this many splits.
inline constexpr unsigned MaxClusterCtas = 8;

/// Named barriers: 0 is the CTA's (bar.sync 0), SplitKBarrier the split-K
/// consumers', and FirstEpilogueBarrier + i consumer warpgroup i's staged
/// epilogue.
inline constexpr unsigned SplitKBarrier = 1;
inline constexpr unsigned FirstEpilogueBarrier = 2;

/// The wgmma family of an A/B element type: 16-bit, tf32 or fp8; A and B
/// must be of one family (fp8 may mix e4m3 and e5m2).
enum class WgmmaFamily { Half, TF32, FP8, None };

inline WgmmaFamily wgmmaFamily(DTypeKind dtype) {
  switch (dtype) {
  case DTypeKind::F16:
  case DTypeKind::BF16:
    return WgmmaFamily::Half;
  case DTypeKind::TF32:
    return WgmmaFamily::TF32;
  case DTypeKind::E4M3:
  case DTypeKind::E5M2:
    return WgmmaFamily::FP8;
  default:
    return WgmmaFamily::None;
  }
}

} // namespace sm90
} // namespace tilec

#endif // TILEC_CODEGEN_SM90LIMITS_H
