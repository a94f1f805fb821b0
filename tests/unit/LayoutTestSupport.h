//===- tests/unit/LayoutTestSupport.h - Layout test helpers -----*- C++ -*-===//
//
// Parsing helpers that fail the test on bad text, an evaluator written
// independently of Layout::operator() (flatten, then split the index
// column-major), and the random layout generators the law tests share.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TESTS_UNIT_LAYOUTTESTSUPPORT_H
#define TILEC_TESTS_UNIT_LAYOUTTESTSUPPORT_H

#include "ir/layout/LayoutExpr.h"
#include "ir/layout/LayoutParser.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>

namespace tilec::test {

/// The value of \p text; fails the test (and returns 0) on an error.
inline LayoutValue eval(const std::string &text) {
  llvm::Expected<LayoutValue> v = evaluateLayoutExpr(text);
  if (!v) {
    ADD_FAILURE() << text << ": " << llvm::toString(v.takeError());
    return LayoutValue(int64_t(0));
  }
  return *v;
}

/// The printed value of \p text.
inline std::string evalStr(const std::string &text) { return eval(text).str(); }

/// A layout literal.
inline Layout lay(const std::string &text) {
  llvm::Expected<Layout> l = parseLayout(text);
  if (!l) {
    ADD_FAILURE() << text << ": " << llvm::toString(l.takeError());
    return Layout();
  }
  return *l;
}

/// L(i), computed from the flattened shape and stride (an evaluator that
/// shares no code with Layout::operator()).
inline int64_t refEval(const Layout &l, int64_t idx) {
  std::vector<int64_t> s = l.shape.leaves(), d = l.stride.leaves();
  int64_t off = 0;
  for (size_t k = 0; k < s.size(); ++k) {
    int64_t c = k + 1 == s.size() ? idx : idx % s[k];
    idx = k + 1 == s.size() ? 0 : idx / s[k];
    off += c * d[k];
  }
  return off;
}

/// A random shape leaf from a small set that mixes powers of two and not.
inline int64_t randomExtent(std::mt19937 &rng, bool powersOfTwo) {
  static const int64_t pow2[] = {1, 2, 2, 4, 4, 8};
  static const int64_t any[] = {1, 2, 3, 4, 5, 6, 8};
  if (powersOfTwo)
    return pow2[rng() % 6];
  return any[rng() % 7];
}

/// A random shape of rank 1-3 and depth up to 2 (any size).
inline IntTuple randomShapeAnySize(std::mt19937 &rng, bool powersOfTwo,
                                   int depth = 0) {
  if (depth >= 2 || rng() % 3 == 0)
    return IntTuple(randomExtent(rng, powersOfTwo));
  std::vector<IntTuple> modes;
  int rank = 1 + rng() % 3;
  for (int i = 0; i < rank; ++i)
    modes.push_back(randomShapeAnySize(rng, powersOfTwo, depth + 1));
  return IntTuple(std::move(modes));
}

/// A random shape of rank 1-3, depth up to 2 and size at most 2048, so that
/// checks over every coordinate stay fast.
inline IntTuple randomShape(std::mt19937 &rng, bool powersOfTwo) {
  while (true) {
    IntTuple s = randomShapeAnySize(rng, powersOfTwo);
    if (s.product() <= 2048)
      return s;
  }
}

/// Replaces the leaves of \p t, in order, by \p values.
inline IntTuple replaceLeaves(const IntTuple &t,
                              const std::vector<int64_t> &values,
                              size_t &next) {
  if (t.isLeaf())
    return IntTuple(values[next++]);
  std::vector<IntTuple> out;
  for (const IntTuple &e : t.getElems())
    out.push_back(replaceLeaves(e, values, next));
  return IntTuple(std::move(out));
}

/// A compact layout of a random shape whose leaves are visited in a random
/// order: a bijection onto [0, size).
inline Layout randomPermutedCompact(std::mt19937 &rng, bool powersOfTwo) {
  IntTuple shape = randomShape(rng, powersOfTwo);
  std::vector<int64_t> s = shape.leaves();
  std::vector<size_t> order(s.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<int64_t> d(s.size());
  int64_t cur = 1;
  for (size_t k : order) {
    d[k] = cur;
    cur *= s[k];
  }
  size_t next = 0;
  return Layout(shape, replaceLeaves(shape, d, next));
}

/// A random layout with strides in [0, maxStride].
inline Layout randomLayout(std::mt19937 &rng, bool powersOfTwo,
                           int64_t maxStride) {
  IntTuple shape = randomShape(rng, powersOfTwo);
  std::vector<int64_t> d;
  for (size_t i = 0; i < shape.leaves().size(); ++i) {
    if (powersOfTwo) {
      int64_t x = int64_t(1) << (rng() % 6);
      d.push_back(rng() % 8 == 0 ? 0 : std::min(x, maxStride));
    } else {
      d.push_back(rng() % (maxStride + 1));
    }
  }
  size_t next = 0;
  return Layout(shape, replaceLeaves(shape, d, next));
}

} // namespace tilec::test

#endif // TILEC_TESTS_UNIT_LAYOUTTESTSUPPORT_H
