//===- ir/layout/LayoutParser.h - Reading CuTe notation back ----*- C++ -*-===//
//
// The inverse of the str() printers: reads an IntTuple ("((4,8),(2,2))"), a
// Layout ("((4,8),(2,2)):((32,1),(16,8))"), a Swizzle ("Sw<3,4,3>") or a
// ComposedLayout ("Sw<3,3,3> o (8,64):(64,1)") so that printing and parsing
// round-trip. Literal syntax only: no functions, no atoms (LayoutExpr.h has
// the whole language). Errors are LayoutExprErrors with a column.
//
// Example: parseLayout("(8,64):(64,1)")->str() == "(8,64):(64,1)".
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_LAYOUT_LAYOUTPARSER_H
#define TILEC_IR_LAYOUT_LAYOUTPARSER_H

#include "ir/layout/ComposedLayout.h"
#include "ir/layout/IntTuple.h"
#include "ir/layout/Layout.h"
#include "ir/layout/Swizzle.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace tilec {

llvm::Expected<IntTuple> parseIntTuple(llvm::StringRef text);
/// A layout; a bare shape is not accepted here (it has no stride).
llvm::Expected<Layout> parseLayout(llvm::StringRef text);
llvm::Expected<Swizzle> parseSwizzle(llvm::StringRef text);
/// "Sw<B,M,S> o [OFFSET o] LAYOUT".
llvm::Expected<ComposedLayout> parseComposedLayout(llvm::StringRef text);

} // namespace tilec

#endif // TILEC_IR_LAYOUT_LAYOUTPARSER_H
