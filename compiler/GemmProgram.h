//===- compiler/GemmProgram.h - tilec.gemm's programs -----------*- C++ -*-===//
//
// The .tile source of the GEMM a library caller gets without writing a tile:
// the program python's tilec.gemm compiles for torch tensors and the C
// API's tilec_gemm_program returns, written here once around the items the
// target row's rules choose (GemmTarget::libraryItems; sm_90a's:
// codegen/Sm90Heuristic.h):
//   - one operand type (bf16, f16, tf32, e4m3, e5m2) on sm_90a: the tile,
//     stages, wgmma and schedule sm90ChooseConfig picks for (M, N, K) on
//     the SMs (a narrower large BN rounded up to 64-column atoms for an
//     N-major B; 2x1 clusters only where the multicast B-role tile is
//     K-major), M, N, K run-time arguments; on sm_80 a 128 x 128 x 32 tile
//     in 4 stages;
//   - block-scaled e4m3 (DeepGEMM's 1 x 128 / 128 x 128 f32 scales, bf16 C,
//     sm_90a): sm90ChooseBlockScaledConfig's tile, M, N, K fixed at M <= 128
//     (the decode tiles) and run-time above; an M-major SFA program only
//     where the layouts differ (M > 1 and more than one K block);
//   - a quantized weight (u4, i4, u8, i8, e4m3, e5m2 with bf16/f16 group
//     scales, optional u8 zero points) against bf16/f16 activations: the
//     row's weight tile (sm_80: mma.sync, BN tiling N; sm_90a: RS wgmma,
//     swapped, BM tiling N), M, N, K run-time arguments; the text is what
//     python's _gemm.w4a16_source wrote before this moved here.
// Example: bf16, A and B K-major, 64 x 2112 x 7168 on 132 SMs:
//   kernel tilec_gemm_bf16_kk_sm_90a {
//     arch     sm_90a
//     ... tile (BM = 64, BN = 64, BK = 64), stages 13,
//     mma wgmma.m64n64k16 warpgroups(1), schedule swap_ab split_k(2)
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_GEMMPROGRAM_H
#define TILEC_COMPILER_GEMMPROGRAM_H

#include "codegen/GemmTarget.h"
#include "ir/arch/Arch.h"
#include "ir/arch/DType.h"
#include "ir/tile/GemmSpec.h"
#include "ir/tile/WeightQuant.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace tilec {

/// What the caller has: the problem the rows' rules read
/// (LibraryGemmProblem: the operands' type and majorness, A K or MN, i.e.
/// M-major, B K or MN, i.e. N-major; M, N, K; the SMs the rules count, 0:
/// 132; block scales, with sfaMMajor the caller's SFA M-major; a weight's
/// group and fixed tile), and the target. A quantized weight B [N, K]
/// (K-major) against `type` activations (bf16 or f16) is named by
/// \p weight (its code width, LibraryGemmProblem::weightBits, follows from
/// it), with u8 zero points where \p zeros (u4, u8).
struct GemmProgramRequest : LibraryGemmProblem {
  ArchKind arch = ArchKind::SM90a;
  std::optional<WeightFormatKind> weight;
  bool zeros = false;
};

/// The program for \p request (see the file comment), or an error naming
/// the field and what is legal.
llvm::Expected<std::string>
gemmProgramSource(const GemmProgramRequest &request);

} // namespace tilec

#endif // TILEC_COMPILER_GEMMPROGRAM_H
