//===- runtime/sim/Wgmma.h - wgmma.mma_async of one warp's rows -*- C++ -*-===//
//
// wgmma.mma_async.sync.aligned.m64nNkK computes a 64 x N tile for a
// warpgroup; warp w of the group owns rows 16w .. 16w + 15 of D, and its
// result depends only on those rows of A and all of B. So the interpreter
// executes the instruction one warp at a time, each with its own accumulator
// registers (the ISA's D fragment figure), reading A and B through their
// shared-memory descriptors (or A from registers, the RS form).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIM_WGMMA_H
#define TILEC_RUNTIME_SIM_WGMMA_H

#include "runtime/sim/FloatFormats.h"
#include "runtime/sim/MmaSync.h"
#include "runtime/sim/SimMemory.h"

#include <cstdint>
#include <span>

namespace tilec::sim {

/// The instruction's shape, types and immediates.
struct WgmmaShape {
  int m = 64, n = 8, k = 16;
  ElemKind d = ElemKind::F32, a = ElemKind::BF16, b = ElemKind::BF16;
  bool aFromRegs = false;
  /// imm-trans-a / imm-trans-b: 1 = the operand is MN-major in shared memory.
  bool transA = false, transB = false;
  /// imm-scale-a / imm-scale-b: +1 or -1.
  int scaleA = 1, scaleB = 1;
};

/// Accumulator registers per lane: N / 2 for f32 D, N / 4 for f16 D.
unsigned wgmmaAccRegs(const WgmmaShape &shape);

/// Executes warp \p warpInGroup's rows of one wgmma. \p acc holds
/// 32 * wgmmaAccRegs(shape) registers, lane-major (lane * regs + i); they are
/// read when \p scaleD, then overwritten with D. \p aRegs is used for the RS
/// form (4 registers per lane), \p descA otherwise. Throws SimFault on an
/// illegal shape, type combination or descriptor, or a read of unwritten
/// shared memory.
void wgmmaWarp(const WgmmaShape &shape, unsigned warpInGroup,
               std::uint64_t descA, const WarpRegs *aRegs, std::uint64_t descB,
               const SharedMemory &smem, bool scaleD,
               std::span<std::uint32_t> acc);

} // namespace tilec::sim

#endif // TILEC_RUNTIME_SIM_WGMMA_H
