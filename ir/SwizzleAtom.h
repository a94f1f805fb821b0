//===- ir/SwizzleAtom.h - The canonical swizzle atoms -----------*- C++ -*-===//
//
// The eight layouts the tensor cores read from shared memory (seed 001's
// swizzle-atom table, seed 004): K- or MN-major, times no swizzle
// (interleave), 32-, 64- or 128-byte swizzle. In units of elements of T bits
// (T = 128 / bits elements per 16-byte chunk):
//
//   K_INTER<T>   Sw<0,4-L,3> o (8,T):(T,1)         L = log2(bytes/elem)
//   K_SW32<T>    Sw<1,4-L,3> o (8,2T):(2T,1)
//   K_SW64<T>    Sw<2,4-L,3> o (8,4T):(4T,1)
//   K_SW128<T>   Sw<3,4-L,3> o (8,8T):(8T,1)
//   MN_*<T>      the same with the shape transposed: (kT,8):(1,kT)
//
// Example: K_SW128<bf16> is Sw<3,3,3> o (8,64):(64,1), K_SW128<e4m3> is
// Sw<3,4,3> o (8,128):(128,1), MN_SW64<bf16> is Sw<2,3,3> o (32,8):(1,32).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_SWIZZLEATOM_H
#define TILEC_IR_SWIZZLEATOM_H

#include "ir/ComposedLayout.h"
#include "ir/DType.h"
#include "ir/GemmSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace tilec {

/// The shared-memory swizzle mode of an atom.
enum class SwizzleModeKind { Interleave, SW32, SW64, SW128 };

/// Facts about one swizzle mode.
struct SwizzleModeInfo {
  SwizzleModeKind kind;
  llvm::StringRef name; ///< "INTER", "SW32", "SW64", "SW128".
  unsigned bytes;       ///< Row width of the atom in bytes: 16, 32, 64, 128.
  int swizzleBits;      ///< B of the byte-level Swizzle<B,4,3>: 0..3.
};

/// All swizzle modes, in the order of SwizzleModeKind.
llvm::ArrayRef<SwizzleModeInfo> allSwizzleModes();
const SwizzleModeInfo &swizzleModeInfo(SwizzleModeKind kind);

/// The atom for \p major, \p mode and element type \p dtype, in elements.
ComposedLayout swizzleAtom(MajorKind major, SwizzleModeKind mode,
                           DTypeKind dtype);

/// The mode whose atom row is \p bytes wide (16 is Interleave), if any.
std::optional<SwizzleModeKind> swizzleModeOfBytes(unsigned bytes);

/// "K_SW128", "MN_INTER", ...
std::string swizzleAtomName(MajorKind major, SwizzleModeKind mode);

/// Parses "K_SW128" / "MN_INTER" ... (without the <T>).
std::optional<std::pair<MajorKind, SwizzleModeKind>>
parseSwizzleAtomName(llvm::StringRef name);

} // namespace tilec

#endif // TILEC_IR_SWIZZLEATOM_H
