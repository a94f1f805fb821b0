//===- compiler/passes/SmemAtoms.h - Swizzle atoms as the passes see them -*-
//C++ -*-===//
//
// The eight canonical shared-memory atoms (K- or MN-major; INTER, SW32,
// SW64, SW128) described by what the tile checks need: which extent is
// contiguous, how many bytes it spans, and 8 rows along the other extent.
// An atom of T spans SPAN / sizeof(T) elements along the contiguous extent:
// K_SW64<bf16> is 8 x 32 elements.
//
// The modes are the table of ir/arch/SwizzleMode.h and the layout algebra
// (ir/layout/SwizzleAtom.h) owns the atoms as layouts; this file only describes
// them for the checks and finds them in expression text.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_PASSES_SMEMATOMS_H
#define TILEC_COMPILER_PASSES_SMEMATOMS_H

#include "ir/arch/DType.h"
#include "ir/arch/SwizzleMode.h"
#include "ir/tile/GemmSpec.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace tilec {

/// A canonical atom: majorness, mode and element type.
struct SmemAtom {
  MajorKind major;
  SwizzleKind mode;
  DTypeKind dtype;

  /// Bytes along the contiguous extent: 16, 32, 64, 128.
  unsigned spanBytes() const { return swizzleInfo(mode).bytes; }
  /// Elements along the contiguous extent.
  unsigned contiguousElems() const { return spanBytes() * 8 / dtypeBits(dtype); }
  /// `K_SW64`.
  std::string name() const;
  /// `K_SW64<bf16>`.
  std::string nameWithType() const;
};

/// Finds the first atom name written in a layout expression
/// (`tile_to_shape(K_SW64<bf16>, (128, 32))` gives K_SW64<bf16>).
std::optional<SmemAtom> findAtomInText(llvm::StringRef text);

/// Parses `K_SW64` (no type) for \p dtype.
std::optional<SmemAtom> parseAtomName(llvm::StringRef name, DTypeKind dtype);

} // namespace tilec

#endif // TILEC_COMPILER_PASSES_SMEMATOMS_H
