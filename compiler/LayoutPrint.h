//===- compiler/LayoutPrint.h - What `print` statements print ----*- C++
//-*-===//
//
// A .tile `print L` evaluates a layout expression and prints it the way
// `tilec layout` does; `print descriptor(...)` is the hook for the
// descriptor printer. Both are here, behind one function, so the compile
// driver does not depend on how either is implemented.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_LAYOUTPRINT_H
#define TILEC_COMPILER_LAYOUTPRINT_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace tilec {

/// The result of one print statement: the line to print, or an error with
/// the 0-based column in the expression text it applies to.
struct PrintResult {
  bool ok = false;
  std::string text;
  unsigned errorColumn = 0;
};

/// Evaluates a `print` statement of \p kind ("layout" or "descriptor") on
/// the (constant-substituted) expression \p expr.
PrintResult evaluatePrint(llvm::StringRef kind, llvm::StringRef expr);

} // namespace tilec

#endif // TILEC_COMPILER_LAYOUTPRINT_H
