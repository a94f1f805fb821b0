//===- codegen/warpspec/OperandTile.h - A ring slot's operand tile -*- C++
//-*-===//
//
// The TMA warp-specialized kernels (sm_90a wgmma, sm_100a tcgen05) stage A
// and B the same way: one swizzled tile per ring slot, written by TMA boxes
// and read by the MMA through a shared-memory matrix descriptor. What a
// tile is (its layout, bytes, boxes and descriptor fields) is derived here
// once, for the descriptor format of the target's MMA.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_WARPSPEC_OPERANDTILE_H
#define TILEC_CODEGEN_WARPSPEC_OPERANDTILE_H

#include "ir/arch/Arch.h"
#include "ir/arch/DType.h"
#include "ir/arch/MajorKind.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace tilec {

/// Shared memory is carved from a base rounded up to 1024 bytes (the
/// repeat of a 128-byte swizzle atom); the kernels ask for this much slack.
inline constexpr unsigned SmemAlignSlack = 1024;

/// The GPU-side facts of one operand tile, derived from its shared-memory
/// layout by the layout algebra and ir/arch/DescriptorDerivation.
struct TmaOperandTile {
  std::string layout; ///< e.g. "tile_to_shape(K_SW128<bf16>, (128,64))"
  unsigned rows = 0;  ///< tile rows (M or N side)
  unsigned bytes = 0; ///< one ring slot's tile
  unsigned swizzleBytes = 128; ///< TMA swizzle and descriptor layout span
  uint64_t descriptorHigh = 0; ///< bits 14..63 of the matrix descriptor
  unsigned kStepBytes = 32;    ///< start-address advance per MMA K step
  unsigned mAtomBytes = 0;     ///< start-address advance per 64 rows
  DTypeKind dtype = DTypeKind::BF16;
  MajorKind major = MajorKind::K;
  /// The TMA box, innermost (contiguous) extent first, in elements: K-major
  /// (BK, rows), MN-major (swizzle span / element bytes, BK). One ring slot
  /// takes `boxes` loads, box i landing at byte i * boxBytes of the tile and
  /// reading the global tile at MN offset i * boxDims[0] (MN-major only).
  unsigned boxDims[2] = {0, 0};
  unsigned boxes = 1;
  unsigned boxBytes = 0;
};

/// The operand tile of \p rows (M or N) x \p bk elements of \p dtype with
/// majorness \p major, in the largest swizzle atom the tile fits; \p mmaMN
/// is the MMA's extent of the operand along MN (64 for a wgmma A, N for B);
/// \p arch is whose descriptor to derive (sm_90a's GMMA or sm_100a's UMMA
/// format). An error when the target's MMA takes no \p dtype, or the layout
/// has no canonical form or its subtiles are not affine.
/// Example: (128, 64, bf16, K) is tile_to_shape(K_SW128<bf16>, (128,64))
/// with sm_90a descriptor high bits 0x4000004000010000.
llvm::Expected<TmaOperandTile> tmaOperandTile(unsigned rows, unsigned bk,
                                              DTypeKind dtype = DTypeKind::BF16,
                                              MajorKind major = MajorKind::K,
                                              unsigned mmaMN = 64,
                                              ArchKind arch = ArchKind::SM90a);

} // namespace tilec

#endif // TILEC_CODEGEN_WARPSPEC_OPERANDTILE_H
