//===- runtime/sim/MmaSync.h - mma.sync and ldmatrix/stmatrix of one warp -*- C++ -*-===//
//
// The warp-level tensor-core instructions of sm_80 and later, from the PTX
// ISA's fragment figures: which lane holds which elements of A, B, C and D of
// mma.sync.aligned.m16n8kK.row.col, and which lane supplies which row address
// and receives which elements for ldmatrix / stmatrix .m8n8 .x1/.x2/.x4
// [.trans] .b16. All 32 lanes take part (the interpreter checks the warp is
// full before calling).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIM_MMASYNC_H
#define TILEC_RUNTIME_SIM_MMASYNC_H

#include "runtime/sim/FloatFormats.h"
#include "runtime/sim/SimMemory.h"

#include <array>
#include <cstdint>

namespace tilec::sim {

/// Up to four 32-bit registers per lane, for the 32 lanes of a warp.
using WarpRegs = std::array<std::array<std::uint32_t, 4>, 32>;

/// mma.sync.aligned.mMnNkK.row.col.D.A.B.C.
struct MmaSyncShape {
  int m = 16, n = 8, k = 16;
  ElemKind a = ElemKind::BF16, b = ElemKind::BF16;
  ElemKind c = ElemKind::F32, d = ElemKind::F32;
};

/// D = A * B + C for one warp. \p a, \p b, \p c hold each lane's fragment
/// registers as the PTX ISA lays them out for \p shape; \p d receives them.
/// Throws SimFault for a shape or type combination it does not model.
void mmaSync(const MmaSyncShape &shape, const WarpRegs &a, const WarpRegs &b,
             const WarpRegs &c, WarpRegs &d);

/// ldmatrix.sync.aligned.m8n8.x\p num[.trans].shared.b16: lane i gives
/// \p rowAddr[i], the shared address of row i % 8 of matrix i / 8 (lanes
/// past 8 * num are ignored); each lane receives \p num registers.
void ldmatrix(int num, bool trans, const std::array<std::uint32_t, 32> &rowAddr,
              const SharedMemory &smem, WarpRegs &out);

/// stmatrix.sync.aligned.m8n8.x\p num[.trans].shared.b16: the inverse of
/// ldmatrix: lane registers \p in are stored at the rows lanes address.
void stmatrix(int num, bool trans, const std::array<std::uint32_t, 32> &rowAddr,
              const WarpRegs &in, SharedMemory &smem);

} // namespace tilec::sim

#endif // TILEC_RUNTIME_SIM_MMASYNC_H
