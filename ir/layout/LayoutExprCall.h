//===- ir/layout/LayoutExprCall.h - Calls of layout expressions -*- C++ -*-===//
//
// Internal to ir/layout/LayoutExpr*.cpp: what the parser (ir/layout/LayoutExpr.cpp) and
// the table of layout functions (ir/layout/LayoutExprFunctions.cpp) share. The
// parser reads a call's arguments into a Call and hands it to the function's
// row of the table; the conversions below turn an argument into a layout, a
// tiler, a shape or an integer, and say why not at the argument's column.
//
// Every value stays within bounds: integers |n| < 2^31, and every layout has
// size and cosize below 2^31, so that no arithmetic in the algebra can
// overflow.
//
// Example: toLayout(LayoutValue((4,8)), col, "size") is the layout
// (4,8):(1,4); toLayout of the swizzle Sw<3,4,3> fails with "size: expected
// a layout, not Sw<3,4,3>".
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_LAYOUT_LAYOUTEXPRCALL_H
#define TILEC_IR_LAYOUT_LAYOUTEXPRCALL_H

#include "ir/layout/LayoutAlgebra.h"
#include "ir/layout/LayoutExpr.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace tilec::layoutexpr {

/// Integers and layout sizes stay below this bound.
constexpr int64_t kMaxInt = int64_t(1) << 31;

/// A LayoutExprError at the 0-based column \p col.
llvm::Error errorAt(unsigned col, const llvm::Twine &msg);

/// Whether size and cosize of \p l stay below 2^31.
bool layoutFits(const Layout &l);
/// Whether the product of |leaves| of \p s stays below 2^31.
bool shapeFits(const IntTuple &s);

/// An argument as a layout: a layout, or a shape read as its column-major
/// layout. \p fn names the function in the error.
llvm::Expected<Layout> toLayout(const LayoutValue &v, unsigned col,
                                llvm::StringRef fn);
/// An argument as a tiler: a layout, an integer N (N:1) or a tuple of those
/// (by mode).
llvm::Expected<Tiler> toTiler(const LayoutValue &v, unsigned col);
/// An argument as a tuple of integers; \p what names it in the error.
llvm::Expected<IntTuple> toShape(const LayoutValue &v, unsigned col,
                                 llvm::StringRef fn, llvm::StringRef what);
/// An argument as an integer; \p what names it in the error.
llvm::Expected<int64_t> toInt(const LayoutValue &v, unsigned col,
                              llvm::StringRef fn, llvm::StringRef what);

/// One evaluated argument of a call and the column where it starts.
struct Arg {
  LayoutValue value;
  unsigned col;
};

/// One call being evaluated: the function's name and column, its evaluated
/// arguments (as many as the function's row allows), and the checks every
/// result passes before it is returned.
struct Call {
  llvm::StringRef f;
  unsigned col;
  std::vector<Arg> args;
  /// make_layout's second argument: `right` or `left`.
  bool rowMajor = false, sawMajor = false;

  const LayoutValue &arg(size_t i) const { return args[i].value; }
  unsigned argCol(size_t i) const { return args[i].col; }

  /// Wraps an algebra error with the column of the call.
  llvm::Error wrap(llvm::Error e) const;
  /// The result of the call, checked to be within bounds.
  llvm::Expected<LayoutValue> result(llvm::Expected<Layout> l) const;
  llvm::Expected<LayoutValue>
  composedResult(llvm::Expected<ComposedLayout> l) const;
};

using CallHandler = llvm::Expected<LayoutValue> (*)(const Call &);

/// One row of the table of functions: name, argument counts, evaluation. A
/// handler is called with minArgs..maxArgs arguments, never fewer.
struct FunctionInfo {
  llvm::StringRef name;
  unsigned minArgs, maxArgs;
  CallHandler eval;
};

/// The row of the function called \p name, or null if there is none.
const FunctionInfo *findLayoutFunction(llvm::StringRef name);

} // namespace tilec::layoutexpr

#endif // TILEC_IR_LAYOUT_LAYOUTEXPRCALL_H
