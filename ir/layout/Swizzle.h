//===- ir/layout/Swizzle.h - Swizzle<B,M,S> on offsets ----------*- C++ -*-===//
//
// A swizzle is a bijection on offsets that XORs B bits taken S positions
// above the M-bit base into the B bits just above the base (CuTe's
// Swizzle<B,M,S>, S >= B for the shifted mask not to overlap):
//
//   offset bits:  ...  [ yyy ]  ...  [ zzz ] [ M base bits ]
//                        ^ bits M+S .. M+S+B-1   ^ bits M .. M+B-1
//   result:       zzz ^= yyy
//
// Example: Sw<3,4,3> maps byte offset 0x80 (row 1 of a 128-byte-swizzled
// tile: y = 1) to 0x90, and 0x10 to 0x10.
//
// A swizzle is its own inverse. Offsets here are in whatever unit the layout
// under it produces; recasting between element widths moves M (upcast and
// downcast in LayoutAlgebra.h).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_LAYOUT_SWIZZLE_H
#define TILEC_IR_LAYOUT_SWIZZLE_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace tilec {

/// Swizzle<B,M,S>: B mask bits, M base bits, S shift.
struct Swizzle {
  int bits = 0;  ///< B
  int base = 0;  ///< M
  int shift = 0; ///< S (the YYY field is S bits above the ZZZ field)

  Swizzle() = default;
  Swizzle(int b, int m, int s) : bits(b), base(m), shift(s) {}

  /// Checks CuTe's admissibility: B >= 0, M >= 0, |S| >= B, B + M + |S| <= 32.
  static llvm::Expected<Swizzle> get(int b, int m, int s);

  /// True for Sw<0,M,S>: the identity.
  bool isIdentity() const { return bits == 0; }

  /// The mask of the ZZZ (destination) field.
  int64_t zMask() const;
  /// The mask of the YYY (source) field.
  int64_t yMask() const;

  /// Applies the swizzle to an offset.
  int64_t operator()(int64_t offset) const;

  /// "Sw<3,4,3>".
  std::string str() const;

  friend bool operator==(const Swizzle &a, const Swizzle &b) {
    return a.bits == b.bits && a.base == b.base && a.shift == b.shift;
  }
  friend bool operator!=(const Swizzle &a, const Swizzle &b) {
    return !(a == b);
  }
};

} // namespace tilec

#endif // TILEC_IR_LAYOUT_SWIZZLE_H
