//===- ir/layout/ComposedLayout.cpp - Swizzle o offset o layout ------------------===//
//
// Evaluation and printing of swizzled layouts.
//
//===----------------------------------------------------------------------===//
#include "ir/layout/ComposedLayout.h"

using namespace tilec;

int64_t ComposedLayout::operator()(int64_t idx) const {
  return swizzle(offset + layout(idx));
}

int64_t ComposedLayout::operator()(const IntTuple &coord) const {
  return swizzle(offset + layout(coord));
}

std::vector<int64_t> ComposedLayout::offsets() const {
  std::vector<int64_t> out = layout.offsets();
  for (int64_t &o : out)
    o = swizzle(offset + o);
  return out;
}

std::string ComposedLayout::str() const {
  // CuTe's composition(Swizzle<0,M,S>, 0, layout) is the layout itself.
  if (swizzle.isIdentity() && offset == 0)
    return layout.str();
  std::string s = swizzle.str() + " o ";
  if (offset != 0)
    s += std::to_string(offset) + " o ";
  return s + layout.str();
}
