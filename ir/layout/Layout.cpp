//===- ir/layout/Layout.cpp - CuTe layouts: a shape and a stride -----------------===//
//
// Construction, evaluation, coalescing and printing of layouts. Coalescing
// follows CuTe's back-to-front merge so that results print exactly as CuTe
// prints them.
//
//===----------------------------------------------------------------------===//
#include "ir/layout/Layout.h"

#include <cassert>
#include <cstdlib>

using namespace tilec;

Layout::Layout(IntTuple shape, IntTuple stride)
    : shape(std::move(shape)), stride(std::move(stride)) {
  assert(isCongruent(this->shape, this->stride) &&
         "shape and stride must be congruent");
}

int64_t Layout::cosize() const {
  std::vector<int64_t> s = shape.leaves(), d = stride.leaves();
  int64_t c = 1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == 0)
      return 0;
    c += (s[i] - 1) * std::llabs(d[i]);
  }
  return c;
}

Layout Layout::mode(size_t i) const {
  if (shape.isLeaf())
    return *this;
  return Layout(shape[i], stride[i]);
}

std::vector<Layout> Layout::modes() const {
  std::vector<Layout> out;
  for (size_t i = 0; i < rank(); ++i)
    out.push_back(mode(i));
  return out;
}

int64_t Layout::operator()(int64_t idx) const {
  return crd2offset(IntTuple(idx), shape, stride);
}

int64_t Layout::operator()(const IntTuple &coord) const {
  return crd2offset(coord, shape, stride);
}

std::vector<int64_t> Layout::offsets() const {
  std::vector<int64_t> out;
  int64_t n = size();
  out.reserve(n > 0 ? n : 0);
  for (int64_t i = 0; i < n; ++i)
    out.push_back((*this)(i));
  return out;
}

std::string Layout::str() const { return shape.str() + ":" + stride.str(); }

Layout tilec::makeLayout(const std::vector<Layout> &modes) {
  std::vector<IntTuple> s, d;
  for (const Layout &m : modes) {
    s.push_back(m.shape);
    d.push_back(m.stride);
  }
  return Layout(IntTuple(std::move(s)), IntTuple(std::move(d)));
}

Layout tilec::makeLayoutLeft(const IntTuple &shape) {
  return Layout(shape, compactColMajor(shape));
}

Layout tilec::makeLayoutRight(const IntTuple &shape) {
  return Layout(shape, compactRowMajor(shape));
}

// CuTe's compact_order: a mode with order o starts at the product of the
// (flattened) modes of lower order, and is compact column-major inside.
static IntTuple compactOrder(const IntTuple &shape, const IntTuple &order,
                             const std::vector<int64_t> &refShape,
                             const std::vector<int64_t> &refOrder) {
  if (order.isTuple()) {
    std::vector<IntTuple> out;
    for (size_t i = 0; i < order.rank(); ++i)
      out.push_back(compactOrder(shape[i], order[i], refShape, refOrder));
    return IntTuple(std::move(out));
  }
  int64_t start = 1;
  for (size_t i = 0; i < refShape.size(); ++i)
    if (refOrder[i] < order.getValue())
      start *= refShape[i];
  return compactColMajor(shape, start);
}

// product_like(shape, order): the shape reduced to the profile of order.
static void productLike(const IntTuple &shape, const IntTuple &order,
                        std::vector<int64_t> &out) {
  if (order.isLeaf()) {
    out.push_back(shape.product());
    return;
  }
  for (size_t i = 0; i < order.rank(); ++i)
    productLike(shape[i], order[i], out);
}

Layout tilec::makeOrderedLayout(const IntTuple &shape, const IntTuple &order) {
  assert(isWeaklyCongruent(order, shape) && "order must follow the shape");
  std::vector<int64_t> refShape;
  productLike(shape, order, refShape);
  std::vector<int64_t> refOrder = order.leaves();
  return Layout(shape, compactOrder(shape, order, refShape, refOrder));
}

Layout tilec::flatten(const Layout &layout) {
  return Layout(layout.shape.flatten(), layout.stride.flatten());
}

// CuTe's bw_coalesce over flat modes, from the back. With \p keepOutside a
// trailing size-1 mode is treated as size 2, so that the result agrees with
// the layout outside its domain too (coalesce_x).
static Layout coalesceFlat(const std::vector<int64_t> &s,
                           const std::vector<int64_t> &d, bool keepOutside) {
  if (s.empty())
    return Layout(1, 0);
  size_t r = s.size();
  std::vector<int64_t> ns{s[r - 1]}, nd{d[r - 1]};
  if (keepOutside && ns[0] == 1)
    ns[0] = 2;
  for (size_t i = r - 1; i-- > 0;) {
    if (s[i] == 1)
      continue;
    if (ns.size() == 1 && ns[0] == 1) {
      ns[0] = s[i];
      nd[0] = d[i];
    } else if (s[i] * d[i] == nd[0]) {
      ns[0] *= s[i];
      nd[0] = d[i];
    } else {
      ns.insert(ns.begin(), s[i]);
      nd.insert(nd.begin(), d[i]);
    }
  }
  if (ns.size() == 1) {
    if (ns[0] == 1)
      return Layout(1, 0);
    return Layout(ns[0], nd[0]);
  }
  std::vector<IntTuple> ts, td;
  for (size_t i = 0; i < ns.size(); ++i) {
    ts.push_back(ns[i]);
    td.push_back(nd[i]);
  }
  return Layout(IntTuple(std::move(ts)), IntTuple(std::move(td)));
}

Layout tilec::coalesce(const Layout &layout) {
  return coalesceFlat(layout.shape.leaves(), layout.stride.leaves(), false);
}

Layout tilec::coalesceX(const Layout &layout) {
  return coalesceFlat(layout.shape.leaves(), layout.stride.leaves(), true);
}

llvm::Expected<Layout> tilec::coalesce(const Layout &layout,
                                       const IntTuple &profile) {
  if (profile.isLeaf())
    return coalesce(layout);
  if (profile.rank() > layout.rank())
    return llvm::createStringError("coalesce: the profile " + profile.str() +
                                   " has " + std::to_string(profile.rank()) +
                                   " modes but the layout " + layout.str() +
                                   " has " + std::to_string(layout.rank()));
  std::vector<Layout> modes;
  for (size_t i = 0; i < layout.rank(); ++i) {
    if (i < profile.rank()) {
      llvm::Expected<Layout> m = coalesce(layout.mode(i), profile[i]);
      if (!m)
        return m.takeError();
      modes.push_back(*m);
    } else {
      modes.push_back(layout.mode(i));
    }
  }
  return makeLayout(modes);
}

Layout tilec::filter(const Layout &layout) {
  std::vector<int64_t> s = layout.shape.leaves(), d = layout.stride.leaves();
  for (size_t i = 0; i < s.size(); ++i)
    if (d[i] == 0)
      s[i] = 1;
  return coalesceFlat(s, d, false);
}
