//===- ir/layout/LayoutParser.cpp - Reading CuTe notation back -------------------===//
//
// The literal readers, on top of the expression language: a literal is an
// expression, and the reader checks that its value has the kind asked for.
//
//===----------------------------------------------------------------------===//
#include "ir/layout/LayoutParser.h"

#include "ir/layout/LayoutExpr.h"

using namespace tilec;

static llvm::Error wrongKind(const LayoutValue &v, const char *what) {
  return llvm::make_error<LayoutExprError>(0, std::string("expected ") + what +
                                                  ", found " + v.str());
}

llvm::Expected<IntTuple> tilec::parseIntTuple(llvm::StringRef text) {
  llvm::Expected<LayoutValue> v = evaluateLayoutExpr(text);
  if (!v)
    return v.takeError();
  if (!v->isIntTuple())
    return wrongKind(*v, "a tuple of integers");
  return v->getIntTuple();
}

llvm::Expected<Layout> tilec::parseLayout(llvm::StringRef text) {
  llvm::Expected<LayoutValue> v = evaluateLayoutExpr(text);
  if (!v)
    return v.takeError();
  if (!v->isLayout())
    return wrongKind(*v, "a layout SHAPE:STRIDE");
  return v->getLayout();
}

llvm::Expected<Swizzle> tilec::parseSwizzle(llvm::StringRef text) {
  llvm::Expected<LayoutValue> v = evaluateLayoutExpr(text);
  if (!v)
    return v.takeError();
  if (!v->isSwizzle())
    return wrongKind(*v, "a swizzle Sw<B,M,S>");
  return v->getSwizzle();
}

llvm::Expected<ComposedLayout>
tilec::parseComposedLayout(llvm::StringRef text) {
  llvm::Expected<LayoutValue> v = evaluateLayoutExpr(text);
  if (!v)
    return v.takeError();
  if (!v->isComposed())
    return wrongKind(*v, "a swizzled layout Sw<B,M,S> o LAYOUT");
  return v->getComposed();
}
