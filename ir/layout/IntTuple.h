//===- ir/layout/IntTuple.h - Nested integer tuples -------------*- C++ -*-===//
//
// Shapes, strides and coordinates of the layout algebra are nested tuples of
// integers: a leaf integer, or a tuple of IntTuples. They are small runtime
// values (no templates), compared with ==, printed in CuTe notation without
// CuTe's `_` prefix on integers.
//
// Example: IntTuple({IntTuple({4, 8}), IntTuple({2, 2})}).str() is
// "((4,8),(2,2))", its rank is 2, its depth 2 and its product 128.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_LAYOUT_INTTUPLE_H
#define TILEC_IR_LAYOUT_INTTUPLE_H

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace tilec {

/// A nested tuple of integers: a leaf or a (possibly empty) tuple.
class IntTuple {
public:
  /// The leaf 0.
  IntTuple() = default;
  /// A leaf.
  IntTuple(int64_t value) : leaf(true), value(value) {}
  IntTuple(int value) : leaf(true), value(value) {}
  /// A tuple of \p elems.
  IntTuple(std::vector<IntTuple> elems)
      : leaf(false), elems(std::move(elems)) {}
  IntTuple(std::initializer_list<IntTuple> elems) : leaf(false), elems(elems) {}

  /// A tuple (never a leaf) of the given elements.
  static IntTuple tuple(std::vector<IntTuple> elems) {
    return IntTuple(std::move(elems));
  }

  bool isLeaf() const { return leaf; }
  bool isTuple() const { return !leaf; }
  /// The integer of a leaf.
  int64_t getValue() const { return value; }
  /// The elements of a tuple (empty for a leaf).
  const std::vector<IntTuple> &getElems() const { return elems; }
  std::vector<IntTuple> &getElems() { return elems; }

  /// Number of top-level modes: 1 for a leaf.
  size_t rank() const { return leaf ? 1 : elems.size(); }
  /// Nesting depth: 0 for a leaf, 1 for a flat tuple.
  int depth() const;
  /// Mode \p i: the leaf itself when this is a leaf and i == 0.
  const IntTuple &operator[](size_t i) const;

  /// Product of all leaves (1 for an empty tuple).
  int64_t product() const;
  /// Sum of all leaves.
  int64_t sum() const;
  /// The leaves, depth first.
  std::vector<int64_t> leaves() const;
  /// A flat tuple of the leaves (a leaf stays a leaf).
  IntTuple flatten() const;

  /// CuTe notation: "8", "(4,8)", "((4,8),(2,2))", "()".
  std::string str() const;

  friend bool operator==(const IntTuple &a, const IntTuple &b);
  friend bool operator!=(const IntTuple &a, const IntTuple &b) {
    return !(a == b);
  }

private:
  bool leaf = true;
  int64_t value = 0;
  std::vector<IntTuple> elems;
};

/// Structural equality: same tree, same leaves.
bool operator==(const IntTuple &a, const IntTuple &b);

/// True when \p a and \p b have the same tree structure.
bool isCongruent(const IntTuple &a, const IntTuple &b);

/// True when \p shape is at least as deep as \p profile at every mode, so
/// that \p profile can describe a grouping of \p shape (CuTe's weakly
/// congruent).
bool isWeaklyCongruent(const IntTuple &profile, const IntTuple &shape);

/// Column-major (left) exclusive prefix products of \p shape, congruent to it.
/// Example: compactColMajor((4,(2,3))) is (1,(4,8)).
IntTuple compactColMajor(const IntTuple &shape, int64_t start = 1);

/// Row-major (right) exclusive suffix products of \p shape, congruent to it.
/// Example: compactRowMajor((4,(2,3))) is (6,(3,1)).
IntTuple compactRowMajor(const IntTuple &shape, int64_t start = 1);

/// The natural coordinate (congruent to \p shape) of linear index \p idx,
/// column-major (CuTe's idx2crd). Leaves wrap only at the outermost mode.
IntTuple idx2crd(int64_t idx, const IntTuple &shape);

/// Inner product of a coordinate and a stride that are congruent, or of an
/// integer coordinate spread over \p stride's modes column-major by
/// \p shape (CuTe's crd2idx with a stride).
int64_t crd2offset(const IntTuple &coord, const IntTuple &shape,
                   const IntTuple &stride);

} // namespace tilec

#endif // TILEC_IR_LAYOUT_INTTUPLE_H
