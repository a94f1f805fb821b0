//===- ir/layout/LayoutExpr.h - The layout expression language --*- C++ -*-===//
//
// Parses and evaluates the layout expressions of `tilec layout` and of .tile
// files (docs/cli.md, docs/language.md): literals in CuTe notation (`(8,64):(64,1)`, a bare shape
// `(8,16)`, `Sw<3,4,3>`, `Sw<3,4,3> o L`, `Sw<3,4,3> o 32 o L`), the atoms
// `K_SW128<bf16>` ..., and the functions of the algebra (`composition(A, B)`,
// `logical_divide(L, (8,16))`, `tile_to_shape(ATOM, SHAPE[, ORDER])`, ...);
// an ORDER may be written `(1,0)` or `order(1, 0)`.
// Errors carry the 0-based column in the text and say why.
//
// Example: evaluateLayoutExpr("coalesce((2,(1,6)):(1,(6,2)))") is the layout
// 12:1; evaluateLayoutExpr("composition(8:2, 3:1") fails at column 20 with
// "expected ')'...".
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_LAYOUT_LAYOUTEXPR_H
#define TILEC_IR_LAYOUT_LAYOUTEXPR_H

#include "ir/layout/ComposedLayout.h"
#include "ir/layout/IntTuple.h"
#include "ir/layout/Layout.h"
#include "ir/layout/Swizzle.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// The value of a layout expression.
class LayoutValue {
public:
  enum class Kind { Integer, Tuple, Layout, Swizzle, Composed };

  LayoutValue(int64_t value) : kind(Kind::Integer), integer(value) {}
  /// A tuple of values: a shape when all leaves are integers, else a
  /// by-mode tiler such as (3:4, 8:2).
  LayoutValue(std::vector<LayoutValue> elems)
      : kind(Kind::Tuple), elems(std::move(elems)) {}
  LayoutValue(tilec::Layout layout)
      : kind(Kind::Layout), layout(std::move(layout)) {}
  LayoutValue(tilec::Swizzle swizzle) : kind(Kind::Swizzle), swizzle(swizzle) {}
  LayoutValue(tilec::ComposedLayout composed)
      : kind(Kind::Composed), composed(std::move(composed)) {}

  Kind getKind() const { return kind; }
  bool isInteger() const { return kind == Kind::Integer; }
  bool isTuple() const { return kind == Kind::Tuple; }
  bool isLayout() const { return kind == Kind::Layout; }
  bool isSwizzle() const { return kind == Kind::Swizzle; }
  bool isComposed() const { return kind == Kind::Composed; }
  /// An integer or a tuple whose leaves are all integers.
  bool isIntTuple() const;

  int64_t getInteger() const { return integer; }
  const std::vector<LayoutValue> &getElems() const { return elems; }
  const tilec::Layout &getLayout() const { return layout; }
  const tilec::Swizzle &getSwizzle() const { return swizzle; }
  const tilec::ComposedLayout &getComposed() const { return composed; }
  /// The IntTuple of an integer or an all-integer tuple.
  IntTuple getIntTuple() const;

  /// One line: a layout in CuTe notation, a shape as "(8,16)", an integer,
  /// "Sw<3,4,3>", "Sw<3,3,3> o (8,64):(64,1)".
  std::string str() const;

private:
  Kind kind;
  int64_t integer = 0;
  std::vector<LayoutValue> elems;
  tilec::Layout layout;
  tilec::Swizzle swizzle;
  tilec::ComposedLayout composed;
};

/// An error at a 0-based column of the expression text.
class LayoutExprError : public llvm::ErrorInfo<LayoutExprError> {
public:
  static char ID;
  LayoutExprError(unsigned column, std::string message)
      : column(column), message(std::move(message)) {}
  unsigned getColumn() const { return column; }
  const std::string &getMessage() const { return message; }
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

private:
  unsigned column;
  std::string message;
};

/// Named values an expression may refer to (e.g. the tile sizes BM, BK of a
/// .tile kernel, or a layout declared earlier). Names are identifiers.
using LayoutEnv = std::map<std::string, LayoutValue, std::less<>>;

/// Parses and evaluates \p text. On failure, the error is a LayoutExprError.
llvm::Expected<LayoutValue> evaluateLayoutExpr(llvm::StringRef text,
                                               const LayoutEnv *env = nullptr);

/// A LayoutExprError's column and message (column 0 for other errors).
struct LayoutExprDiag {
  unsigned column = 0;
  std::string message;
};
/// Consumes \p err into a column and message.
LayoutExprDiag toLayoutExprDiag(llvm::Error err);

} // namespace tilec

#endif // TILEC_IR_LAYOUT_LAYOUTEXPR_H
