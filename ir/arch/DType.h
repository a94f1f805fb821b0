//===- ir/arch/DType.h - Element types of tile programs ---------------*- C++
//-*-===//
//
// One table of element types: the name users write, the width in bits, and
// how the PTX ISA spells it. The swizzle atoms (T = 128 / bits elements per
// 16-byte chunk), the descriptors and the instruction table all read widths
// from here.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_ARCH_DTYPE_H
#define TILEC_IR_ARCH_DTYPE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace tilec {

/// An element type.
/// U4 and I4 are 4-bit weights (ir/layout/WeightPack.h): only a quantized B
/// operand has them, stored packed, two per byte.
enum class DTypeKind { F16, BF16, TF32, F32, E4M3, E5M2, I8, U8, U4, I4 };

/// Facts about one element type.
struct DTypeInfo {
  DTypeKind kind;
  llvm::StringRef name;    ///< As written in .tile and on the command line.
  unsigned bits;           ///< Storage width: tf32 is stored in 32 bits.
  llvm::StringRef ptxName; ///< As PTX spells it in instruction types.
  bool isFloat;
};

/// The table row of \p kind.
const DTypeInfo &dtypeInfo(DTypeKind kind);

/// Storage width in bits.
inline unsigned dtypeBits(DTypeKind kind) { return dtypeInfo(kind).bits; }

/// Storage width in bytes (0 for the 4-bit types, which only a packed
/// quantized weight has).
inline unsigned dtypeBytes(DTypeKind kind) { return dtypeBits(kind) / 8; }

/// The name as written in .tile ("bf16"): for diagnostics.
inline std::string dtypeName(DTypeKind kind) {
  return dtypeInfo(kind).name.str();
}

/// Parses a name from the table ("bf16", "e4m3", ...).
std::optional<DTypeKind> parseDType(llvm::StringRef name);

/// "f16, bf16, tf32, f32, e4m3, e5m2, i8, u8, u4, i4": for diagnostics.
std::string listDTypeNames();

} // namespace tilec

#endif // TILEC_IR_ARCH_DTYPE_H
