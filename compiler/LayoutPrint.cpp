//===- compiler/LayoutPrint.cpp - What `print` statements print -----------===//
//
// `print L` goes through the layout expression language (ir/LayoutExpr.h)
// and prints LayoutValue::str(), the line `tilec layout` prints. The
// descriptor printer is not linked in yet, so `print descriptor(...)` is an
// honest error rather than made-up output.
//
//===----------------------------------------------------------------------===//
#include "compiler/LayoutPrint.h"

#include "ir/LayoutExpr.h"

namespace tilec {

PrintResult evaluatePrint(llvm::StringRef kind, llvm::StringRef expr) {
  PrintResult result;
  if (kind == "descriptor") {
    result.text = "print descriptor(...) is not available in this build of "
                  "tilec; use `tilec desc`";
    return result;
  }
  llvm::Expected<LayoutValue> value = evaluateLayoutExpr(expr);
  if (!value) {
    LayoutExprDiag diag = toLayoutExprDiag(value.takeError());
    result.text = diag.message;
    result.errorColumn = diag.column;
    return result;
  }
  result.ok = true;
  result.text = value->str();
  return result;
}

} // namespace tilec
