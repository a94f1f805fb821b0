//===- codegen/warpspec/EpilogueStaging.h - C's staging tile ----*- C++ -*-===//
//
// The staged epilogue of sm_90a and sm_100a writes each chunk of a CTA's C
// tile with stmatrix.sync.aligned.m8n8.x4 into a swizzled shared-memory
// buffer and stores the buffer with one cp.async.bulk.tensor (PTX ISA,
// "cp.async.bulk.tensor": the TMA store). Both targets hand stmatrix the
// same fragment (the mma/wgmma accumulator layout: lane l holds rows l / 4
// and l / 4 + 8 of 16, columns 2 (l % 4), + 1 of each 8; on sm_100a
// tcgen05.ld.16x256b gives it), so the staging tile, its layout and its
// address arithmetic are one fact, here: sm90EpilogueTile (64 rows per
// consumer warpgroup) and sm100EpilogueTile (the epilogue warpgroup's 64
// or 128 rows) call it.
//
// Example: bf16 C, BN = 256, swizzle(128B), 128 rows: a row of the buffer
// is one 128-byte atom row (64 columns), the layout is
// tile_to_shape(K_SW128<bf16>, (128,64)), 16 KiB a buffer, 4 chunks per
// tile, 2 buffers (chunk c in buffer c % 2).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_WARPSPEC_EPILOGUESTAGING_H
#define TILEC_CODEGEN_WARPSPEC_EPILOGUESTAGING_H

#include "codegen/SmemAddress.h"
#include "ir/arch/DType.h"

#include "llvm/Support/Error.h"

#include <string>

namespace tilec {

/// The shared-memory tile an epilogue warpgroup stages C through before a
/// TMA store, in C's orientation (row-major, columns contiguous). A
/// warpgroup's rows x BN accumulator goes out in chunks of `rows` rows x
/// `cols` columns; transposed (sm_90a swap-AB, stmatrix.trans) its BN x 64
/// transpose goes out in chunks of `rows` x 64. A chunk row is one swizzle
/// atom row, the TMA box is (cols, rows), and two buffers alternate when a
/// tile has more than one chunk, so stmatrix into one overlaps the store of
/// the other.
/// Example: sm_90a 128x256 bf16 is tile_to_shape(K_SW128<bf16>, (64,64)),
/// 4 chunks, 8192 bytes per buffer, 2 buffers.
struct EpilogueStagingTile {
  std::string layout;          ///< e.g. "tile_to_shape(K_SW128<bf16>, (64,64))"
  unsigned rows = 0, cols = 0; ///< One chunk = the TMA box (cols inner).
  unsigned swizzleBytes = 0;   ///< 0 (K_INTER), 32, 64 or 128.
  unsigned bytes = 0;          ///< One buffer.
  unsigned chunks = 0;         ///< Per output tile and warpgroup.
  unsigned buffers = 0;        ///< Per epilogue warpgroup.
  bool transposed = false;     ///< swapAB: stmatrix.trans.
};

/// The staging tile for C tiles \p bn columns wide (BN, or BN / 2 after
/// swiglu: \p halved) of 16-bit \p cType, in rows of \p rowBytes (0: the
/// widest atom row whose columns divide \p bn) and \p rows rows per
/// buffer; \p transposed (sm_90a swap-AB) stages the transpose in 64 x 64
/// pieces. An error when \p rowBytes is no swizzle atom row or its columns
/// do not divide \p bn.
llvm::Expected<EpilogueStagingTile>
epilogueStagingTile(DTypeKind cType, unsigned bn, bool halved,
                    unsigned rowBytes, unsigned rows, bool transposed);

/// The address arithmetic of \p tile's layout: (row, col) -> element
/// offset.
llvm::Expected<SmemAddress>
epilogueStagingAddress(const EpilogueStagingTile &tile);

} // namespace tilec

#endif // TILEC_CODEGEN_WARPSPEC_EPILOGUESTAGING_H
