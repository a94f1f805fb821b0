//===- ir/arch/SwizzleMode.h - The shared-memory swizzle modes --*- C++ -*-===//
//
// The one table of swizzle modes: everything that names, sizes or encodes a
// mode (the atoms K_SW64<T>, the descriptors' layout type, the epilogue's
// `swizzle(64B)` option) reads it. A mode is the byte-level Swizzle<B,4,3>
// over rows of 16 << B bytes:
//
//   mode   atom   row bytes  B  epilogue option  sm_90 code  sm_100 code
//   none   INTER  16         0  swizzle(none)    0           0
//   SW32   SW32   32         1  swizzle(32B)     3           6
//   SW64   SW64   64         2  swizzle(64B)     2           4
//   SW128  SW128  128        3  swizzle(128B)    1           2
//
// Example: swizzleOfBytes(64) is SW64, whose atom for K-major bf16 is
// K_SW64<bf16> = Sw<2,3,3> o (8,32):(32,1) (ir/layout/SwizzleAtom.h).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_ARCH_SWIZZLEMODE_H
#define TILEC_IR_ARCH_SWIZZLEMODE_H

#include "ir/arch/MajorKind.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <utility>

namespace tilec {

/// A tensor-core shared-memory swizzle mode. `None` is the PTX ISA's
/// "interleaved" (no swizzling) layout, the INTER atoms.
enum class SwizzleKind { None, SW32, SW64, SW128 };

/// Facts about one swizzle mode.
struct SwizzleInfo {
  SwizzleKind kind;
  llvm::StringRef name;     ///< "none", "SW32", "SW64", "SW128".
  llvm::StringRef atomName; ///< In atom names: "INTER", "SW32", ...
  /// The epilogue's staging option: "swizzle(none)", "swizzle(32B)", ...
  llvm::StringRef epilogueOption;
  unsigned bytes;       ///< Row width of the atom: 16 (none), 32, 64, 128.
  unsigned swizzleBits; ///< B of the byte-level Swizzle<B,4,3>.
  unsigned sm90Code;    ///< GMMA layout_type.
  unsigned sm100Code;   ///< UMMA layout_type.
};

/// All swizzle modes, in the order of SwizzleKind (smallest row first).
llvm::ArrayRef<SwizzleInfo> allSwizzles();
const SwizzleInfo &swizzleInfo(SwizzleKind kind);
/// The swizzle whose byte-level form is Swizzle<bits,4,3>.
std::optional<SwizzleKind> swizzleFromBits(unsigned bits);
/// The mode whose atom row is \p bytes wide (16 is None), if any.
std::optional<SwizzleKind> swizzleOfBytes(unsigned bytes);
/// The mode of an epilogue option ("swizzle(64B)"), if any.
std::optional<SwizzleKind> swizzleOfEpilogueOption(llvm::StringRef option);

/// "K_SW128", "MN_INTER", ...
std::string swizzleAtomName(MajorKind major, SwizzleKind mode);
/// Parses "K_SW128" / "MN_INTER" ... (without the <T>).
std::optional<std::pair<MajorKind, SwizzleKind>>
parseSwizzleAtomName(llvm::StringRef name);

} // namespace tilec

#endif // TILEC_IR_ARCH_SWIZZLEMODE_H
