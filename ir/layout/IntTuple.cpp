//===- ir/layout/IntTuple.cpp - Nested integer tuples ----------------------------===//
//
// Structure queries, printing and the index/coordinate arithmetic shared by
// Layout and the algebra.
//
//===----------------------------------------------------------------------===//
#include "ir/layout/IntTuple.h"

#include <algorithm>
#include <cassert>

using namespace tilec;

int IntTuple::depth() const {
  if (leaf)
    return 0;
  int d = 0;
  for (const IntTuple &e : elems)
    d = std::max(d, e.depth());
  return d + 1;
}

const IntTuple &IntTuple::operator[](size_t i) const {
  if (leaf) {
    assert(i == 0 && "mode of a leaf");
    return *this;
  }
  assert(i < elems.size() && "mode out of range");
  return elems[i];
}

int64_t IntTuple::product() const {
  if (leaf)
    return value;
  int64_t p = 1;
  for (const IntTuple &e : elems)
    p *= e.product();
  return p;
}

int64_t IntTuple::sum() const {
  if (leaf)
    return value;
  int64_t s = 0;
  for (const IntTuple &e : elems)
    s += e.sum();
  return s;
}

static void collectLeaves(const IntTuple &t, std::vector<int64_t> &out) {
  if (t.isLeaf()) {
    out.push_back(t.getValue());
    return;
  }
  for (const IntTuple &e : t.getElems())
    collectLeaves(e, out);
}

std::vector<int64_t> IntTuple::leaves() const {
  std::vector<int64_t> out;
  collectLeaves(*this, out);
  return out;
}

IntTuple IntTuple::flatten() const {
  if (leaf)
    return *this;
  std::vector<IntTuple> flat;
  for (int64_t v : leaves())
    flat.push_back(IntTuple(v));
  return IntTuple(std::move(flat));
}

std::string IntTuple::str() const {
  if (leaf)
    return std::to_string(value);
  std::string s = "(";
  for (size_t i = 0; i < elems.size(); ++i) {
    if (i)
      s += ',';
    s += elems[i].str();
  }
  return s + ")";
}

bool tilec::operator==(const IntTuple &a, const IntTuple &b) {
  if (a.leaf != b.leaf)
    return false;
  if (a.leaf)
    return a.value == b.value;
  return a.elems == b.elems;
}

bool tilec::isCongruent(const IntTuple &a, const IntTuple &b) {
  if (a.isLeaf() || b.isLeaf())
    return a.isLeaf() && b.isLeaf();
  if (a.rank() != b.rank())
    return false;
  for (size_t i = 0; i < a.rank(); ++i)
    if (!isCongruent(a[i], b[i]))
      return false;
  return true;
}

bool tilec::isWeaklyCongruent(const IntTuple &profile, const IntTuple &shape) {
  if (profile.isLeaf())
    return true;
  if (shape.isLeaf() || profile.rank() != shape.rank())
    return false;
  for (size_t i = 0; i < profile.rank(); ++i)
    if (!isWeaklyCongruent(profile[i], shape[i]))
      return false;
  return true;
}

// CuTe gives a size-1 mode of a compact layout the stride 0 (its stride is
// never used), e.g. make_layout((1,4)) is (1,4):(0,1).
static IntTuple compactLeft(const IntTuple &shape, int64_t &current) {
  if (shape.isLeaf()) {
    if (shape.getValue() == 1)
      return IntTuple(0);
    IntTuple stride(current);
    current *= shape.getValue();
    return stride;
  }
  std::vector<IntTuple> out;
  for (const IntTuple &e : shape.getElems())
    out.push_back(compactLeft(e, current));
  return IntTuple(std::move(out));
}

static IntTuple compactRight(const IntTuple &shape, int64_t &current) {
  if (shape.isLeaf()) {
    if (shape.getValue() == 1)
      return IntTuple(0);
    IntTuple stride(current);
    current *= shape.getValue();
    return stride;
  }
  std::vector<IntTuple> out(shape.rank());
  for (size_t i = shape.rank(); i-- > 0;)
    out[i] = compactRight(shape[i], current);
  return IntTuple(std::move(out));
}

IntTuple tilec::compactColMajor(const IntTuple &shape, int64_t start) {
  return compactLeft(shape, start);
}

IntTuple tilec::compactRowMajor(const IntTuple &shape, int64_t start) {
  return compactRight(shape, start);
}

IntTuple tilec::idx2crd(int64_t idx, const IntTuple &shape) {
  if (shape.isLeaf())
    return IntTuple(idx);
  std::vector<IntTuple> out;
  size_t r = shape.rank();
  for (size_t i = 0; i < r; ++i) {
    int64_t s = shape[i].product();
    if (i + 1 == r || s == 0) {
      out.push_back(idx2crd(idx, shape[i]));
      idx = 0;
    } else {
      out.push_back(idx2crd(idx % s, shape[i]));
      idx /= s;
    }
  }
  return IntTuple(std::move(out));
}

int64_t tilec::crd2offset(const IntTuple &coord, const IntTuple &shape,
                          const IntTuple &stride) {
  if (coord.isTuple()) {
    // A tuple coordinate walks the shape mode by mode.
    if (shape.isLeaf()) {
      assert(coord.rank() == 1 && "coordinate deeper than the shape");
      return crd2offset(coord[0], shape, stride);
    }
    assert(coord.rank() == shape.rank() && "coordinate rank mismatch");
    int64_t off = 0;
    for (size_t i = 0; i < shape.rank(); ++i)
      off += crd2offset(coord[i], shape[i], stride[i]);
    return off;
  }
  int64_t idx = coord.getValue();
  if (shape.isLeaf())
    return idx * stride.getValue();
  int64_t off = 0;
  size_t r = shape.rank();
  for (size_t i = 0; i < r; ++i) {
    int64_t s = shape[i].product();
    if (i + 1 == r || s == 0) {
      off += crd2offset(IntTuple(idx), shape[i], stride[i]);
      break;
    }
    off += crd2offset(IntTuple(idx % s), shape[i], stride[i]);
    idx /= s;
  }
  return off;
}
