//===- compiler/LayoutPrint.cpp - What `print` statements print -----------===//
//
// The layout expression language (ir/LayoutExpr.h) is not part of this
// build yet, so a print statement is an honest error rather than made-up
// output. When it lands, `layout` becomes evaluateLayoutExpr(expr)->str().
//
//===----------------------------------------------------------------------===//
#include "compiler/LayoutPrint.h"

namespace tilec {

PrintResult evaluatePrint(llvm::StringRef kind, llvm::StringRef expr) {
  PrintResult result;
  if (kind == "descriptor")
    result.text = "print descriptor(...) is not available in this build of "
                  "tilec; use `tilec desc`";
  else
    result.text = "layout expressions cannot be evaluated in this build of "
                  "tilec (the layout library is not linked in yet)";
  return result;
}

} // namespace tilec
