//===- ir/arch/DescriptorDerivation.h - Descriptors from smem layouts -*- C++
//-*-===//
//
// Derives the shared-memory matrix descriptor of an MMA operand from the
// layout of the shared-memory tile it lives in, by matching the tile against
// the PTX ISA's canonical layouts (one table row per majorness x swizzle
// mode, in elements, T = 128 / element bits):
//
//   K-major  none   ((8,m),(T,2k)):((T,SBO),(1,LBO))
//   K-major  SWx    ((8,m),(T,2k)):((uT,SBO),(1,T))          u = x / 16
//   MN-major none   ((T,1,m),(8,k)):((1,T,SBO),(T,LBO))
//   MN-major SWx    ((T,u,m),(8,k)):((1,T,LBO),(uT,SBO))
//
// The tile is viewed in 128-bit units (T contiguous elements along the major
// mode) and divided by the core matrix (K-major) or the swizzle atom
// (MN-major); every fixed stride of the row must match the tile, and LBO and
// SBO are read off the tile at the coordinates where the row has them. The
// whole first MMA subtile is then checked element by element against the
// instantiated form, every other subtile against the first, and the start
// offsets of all subtiles are returned, so that advancing a descriptor is an
// add to its low bits.
//
// Example (docs/layout-facts.md#subtile-offsets): the tile tile_to_shape(K_SW128<bf16>, (128,128)) with a
// 64 x 16 MMA on sm_100a gives SW128 (code 2), LBO 16, SBO 1024 and subtile
// offsets [[0,32,64,96,16384,...],[8192,8224,...]].
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_ARCH_DESCRIPTORDERIVATION_H
#define TILEC_IR_ARCH_DESCRIPTORDERIVATION_H

#include "ir/arch/DType.h"
#include "ir/arch/SmemDescriptor.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tilec {

/// A shared-memory tile as the derivation sees it: an MN x K grid of
/// elements, the element offset of each before swizzling, and the swizzle
/// Sw<B,M,S> applied to element offsets (B = 0: none). A ComposedLayout
/// `Sw<B,M,S> o L` over the shape (MN, K) is this with offset(mn, k) =
/// L(mn + MN * k).
struct SmemTileLayout {
  int64_t mnSize = 0;
  int64_t kSize = 0;
  std::function<int64_t(int64_t mn, int64_t k)> offset;
  unsigned swizzleB = 0, swizzleM = 0, swizzleS = 0;
};

/// Element-unit Swizzle<B,M,S> of an offset (CuTe's definition).
int64_t applyElementSwizzle(int64_t offset, unsigned b, unsigned m, unsigned s);

/// The byte address the tile's layout gives element (mn, k): base +
/// swizzle(offset(mn, k)) * element bytes.
uint64_t layoutByteAddress(const SmemTileLayout &tile, DTypeKind dtype,
                           uint64_t base, int64_t mn, int64_t k);

/// What to derive: the MMA operand shape and where the tile lives.
struct DerivationRequest {
  ArchKind arch = ArchKind::SM90a;
  DTypeKind dtype = DTypeKind::BF16;
  MajorKind major = MajorKind::K;
  int64_t mmaMN = 64; ///< Operand rows (M for A, N for B).
  int64_t mmaK = 16;  ///< Operand K in elements (32 bytes).
  uint64_t base = 0;  ///< Shared-memory byte address of the tile.
};

/// The descriptor of the first MMA subtile and how to reach the others.
struct DerivedDescriptor {
  SmemDescriptorFields fields; ///< Bytes, as the ISA defines them.
  uint64_t desc = 0;           ///< Encoded for the request's arch.
  /// The matched row of the canonical table and its instantiation, e.g.
  /// "((8,m),(T,2k)):((8T,SBO),(1,T)) = ((8,8),(8,2)):((64,512),(1,8))".
  std::string canonicalTemplate;
  std::string canonicalLayout;
  unsigned t = 0; ///< Elements per 128 bits.
  /// Byte offset of subtile (m, k)'s start from subtile (0, 0)'s.
  std::vector<std::vector<uint64_t>> subtileOffsets;
};

/// Matches \p tile against the canonical forms. Errors name the stride or
/// number that broke and what would be legal.
llvm::Expected<DerivedDescriptor>
deriveSmemDescriptor(const SmemTileLayout &tile, const DerivationRequest &req);

} // namespace tilec

#endif // TILEC_IR_ARCH_DESCRIPTORDERIVATION_H
