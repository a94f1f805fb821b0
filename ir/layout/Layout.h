//===- ir/layout/Layout.h - CuTe layouts: a shape and a stride --*- C++ -*-===//
//
// A Layout maps coordinates to offsets: a nested shape and a congruent nested
// stride; the offset of a natural coordinate is the inner product with the
// stride, and a linear index is first split column-major over the shape. It
// is a plain value: the language, the passes, descriptor derivation, codegen
// and `tilec layout` all share this type (docs/invariants.md, invariant 1).
//
// Example: the sm_80 A-fragment thread-value layout
// (docs/layout-facts.md#swizzle-atoms) ((4,8),(2,2)):((32,1),(16,8))
//   index  0 -> coordinate ((0,0),(0,0)) -> offset  0
//   index  1 -> coordinate ((1,0),(0,0)) -> offset 32
//   index  4 -> coordinate ((0,1),(0,0)) -> offset  1
//   index 32 -> coordinate ((0,0),(1,0)) -> offset 16
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_LAYOUT_LAYOUT_H
#define TILEC_IR_LAYOUT_LAYOUT_H

#include "ir/layout/IntTuple.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tilec {

/// A shape and a congruent stride.
struct Layout {
  IntTuple shape;
  IntTuple stride;

  /// The layout 1:0.
  Layout() : shape(1), stride(0) {}
  /// A layout; \p shape and \p stride must be congruent.
  Layout(IntTuple shape, IntTuple stride);

  /// Number of coordinates (product of the shape).
  int64_t size() const { return shape.product(); }
  /// CuTe's cosize: 1 + sum over leaves of (shape - 1) * |stride|, the
  /// offset span the layout touches.
  int64_t cosize() const;
  /// Number of top-level modes.
  size_t rank() const { return shape.rank(); }
  /// Nesting depth of the shape.
  int depth() const { return shape.depth(); }

  /// Mode \p i as a layout.
  Layout mode(size_t i) const;
  /// The top-level modes.
  std::vector<Layout> modes() const;

  /// The offset of linear index \p idx (column-major over the shape).
  int64_t operator()(int64_t idx) const;
  /// The offset of a coordinate: an integer, or a tuple that is congruent to
  /// the shape or whose modes are integers spread over the shape's modes.
  int64_t operator()(const IntTuple &coord) const;
  /// L(i) for every i in [0, size).
  std::vector<int64_t> offsets() const;

  /// CuTe notation without `_`: "((4,8),(2,2)):((32,1),(16,8))".
  std::string str() const;

  friend bool operator==(const Layout &a, const Layout &b) {
    return a.shape == b.shape && a.stride == b.stride;
  }
  friend bool operator!=(const Layout &a, const Layout &b) { return !(a == b); }
};

/// A layout whose top-level modes are \p modes: (s0,s1,...):(d0,d1,...).
Layout makeLayout(const std::vector<Layout> &modes);

/// The compact column-major (left) layout of \p shape.
/// Example: makeLayoutLeft((4,8)) is (4,8):(1,4).
Layout makeLayoutLeft(const IntTuple &shape);

/// The compact row-major (right) layout of \p shape.
/// Example: makeLayoutRight((4,8)) is (4,8):(8,1).
Layout makeLayoutRight(const IntTuple &shape);

/// The compact layout of \p shape whose modes are visited in \p order
/// (congruent to \p shape; lower ranks are faster), as CuTe's
/// make_ordered_layout. Example: makeOrderedLayout((4,8), (1,0)) is
/// (4,8):(8,1).
Layout makeOrderedLayout(const IntTuple &shape, const IntTuple &order);

/// The same function with all modes flattened into one flat tuple.
Layout flatten(const Layout &layout);

/// The simplest layout with the same function on [0, size): size-1 modes
/// removed and contiguous modes merged, flat (a single mode is printed as a
/// plain integer layout, all size-1 as 1:0).
/// Example: coalesce((2,(1,6)):(1,(6,2))) is 12:1.
Layout coalesce(const Layout &layout);

/// Coalesces within the modes given by \p profile (CuTe's coalesce with a
/// profile/Step): a leaf in \p profile coalesces that whole mode; a tuple
/// recurses; modes past the profile are kept. Fails when the profile has
/// more modes than the layout. Example: coalesce(((8,16),(64,1)):((64,512),
/// (1,0)), (1,1)) is (128,64):(64,1).
llvm::Expected<Layout> coalesce(const Layout &layout, const IntTuple &profile);

/// Coalesce that also keeps the function outside the domain (CuTe's
/// coalesce_x, used by composition): a trailing size-1 mode becomes size 2.
Layout coalesceX(const Layout &layout);

/// Replaces the shape of stride-0 modes by 1 and coalesces (CuTe's filter).
Layout filter(const Layout &layout);

} // namespace tilec

#endif // TILEC_IR_LAYOUT_LAYOUT_H
