//===- ir/layout/ComposedLayout.h - Swizzle o offset o layout ---*- C++ -*-===//
//
// A swizzled shared-memory layout: a coordinate goes through an inner layout,
// then an offset is added, then a swizzle is applied (CuTe's
// ComposedLayout<Swizzle, Offset, Layout>). Offsets are in elements, so the
// swizzle is in element units (position-independent form).
//
// Example: K_SW128<bf16> is Sw<3,3,3> o (8,64):(64,1); coordinate (1,8)
// goes to 64 + 8 = 72 = 0b1001000, whose bits 6..8 (row 1) XOR into bits
// 3..5 (chunk 1) giving 0b1000000 = 64.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_LAYOUT_COMPOSEDLAYOUT_H
#define TILEC_IR_LAYOUT_COMPOSEDLAYOUT_H

#include "ir/layout/Layout.h"
#include "ir/layout/Swizzle.h"

namespace tilec {

/// swizzle o offset o layout.
struct ComposedLayout {
  Swizzle swizzle;
  int64_t offset = 0;
  Layout layout;

  ComposedLayout() = default;
  ComposedLayout(Swizzle swizzle, int64_t offset, Layout layout)
      : swizzle(swizzle), offset(offset), layout(std::move(layout)) {}

  int64_t size() const { return layout.size(); }
  /// The cosize of the inner layout (a swizzle within it keeps the span for
  /// the canonical atoms).
  int64_t cosize() const { return layout.cosize(); }
  size_t rank() const { return layout.rank(); }
  int depth() const { return layout.depth(); }

  /// swizzle(offset + layout(idx)).
  int64_t operator()(int64_t idx) const;
  int64_t operator()(const IntTuple &coord) const;
  std::vector<int64_t> offsets() const;

  /// "Sw<3,3,3> o (8,64):(64,1)", or "Sw<B,M,S> o OFFSET o LAYOUT" when the
  /// offset is not 0. An identity swizzle (Sw<0,M,S>) with offset 0 prints
  /// as the bare layout, as CuTe's composition returns the layout itself:
  /// tile_to_shape(K_INTER<tf32>, (16,8)) is ((8,2),(4,2)):((4,32),(1,64)).
  std::string str() const;

  friend bool operator==(const ComposedLayout &a, const ComposedLayout &b) {
    return a.swizzle == b.swizzle && a.offset == b.offset &&
           a.layout == b.layout;
  }
  friend bool operator!=(const ComposedLayout &a, const ComposedLayout &b) {
    return !(a == b);
  }
};

} // namespace tilec

#endif // TILEC_IR_LAYOUT_COMPOSEDLAYOUT_H
