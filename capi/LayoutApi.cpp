//===- capi/LayoutApi.cpp - Layout expressions through the C API ----------===//
//
// tilec_layout_eval and friends over ir/layout/LayoutExpr.h and ir/layout/LayoutRender.h:
// the same evaluator, printer and pictures as `tilec layout`.
//
// Example: tilec_layout_eval("(4,2):(2,1)", &l); tilec_layout_str(l) is
// "(4,2):(2,1)" and its offsets are 0 2 4 6 1 3 5 7.
//
//===----------------------------------------------------------------------===//
#include "capi/CApi.h"

#include "ir/layout/LayoutRender.h"

using namespace tilec;
using tilec::capi::fail;
using tilec::capi::guard;

namespace {

/// L(0), L(1), ... of a layout, a composed layout or a shape (its
/// column-major layout); nothing for an integer, a swizzle or a tiler.
std::vector<int64_t> offsetsOf(const LayoutValue &value) {
  if (value.isLayout())
    return value.getLayout().offsets();
  if (value.isComposed())
    return value.getComposed().offsets();
  if (value.isTuple() && value.isIntTuple())
    return makeLayoutLeft(value.getIntTuple()).offsets();
  return {};
}

} // namespace

extern "C" {

tilec_status tilec_layout_eval(const char *expr, tilec_layout *out) {
  return guard([&] {
    if (!expr || !out)
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  "expr and out must not be null");
    *out = nullptr;
    llvm::Expected<LayoutValue> value = evaluateLayoutExpr(expr);
    if (!value) {
      LayoutExprDiag diag = toLayoutExprDiag(value.takeError());
      return fail(TILEC_ERROR_LAYOUT,
                  "column " + std::to_string(diag.column + 1) +
                      ": error: " + diag.message,
                  diag.column);
    }
    std::string text = value->str();
    *out = new tilec_layout_impl{std::move(*value), expr, std::move(text),
                                 std::nullopt};
    return capi::ok();
  });
}

void tilec_layout_destroy(tilec_layout layout) { delete layout; }

const char *tilec_layout_str(tilec_layout layout) {
  return layout ? layout->text.c_str() : nullptr;
}

size_t tilec_layout_size(tilec_layout layout) {
  return layout ? offsetsOf(layout->value).size() : 0;
}

size_t tilec_layout_offsets(tilec_layout layout, int64_t *out,
                            size_t capacity) {
  if (!layout || !out)
    return 0;
  std::vector<int64_t> offsets = offsetsOf(layout->value);
  size_t count = std::min(capacity, offsets.size());
  std::copy_n(offsets.begin(), count, out);
  return count;
}

tilec_status tilec_layout_svg(tilec_layout layout, const char **out) {
  return guard([&] {
    if (!layout || !out)
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  "layout and out must not be null");
    if (!layout->svg) {
      SvgOptions options;
      options.title = layout->expr + "  =  " + layout->text;
      llvm::Expected<std::string> svg = renderSvg(layout->value, options);
      if (!svg)
        return fail(TILEC_ERROR_LAYOUT, llvm::toString(svg.takeError()));
      layout->svg = std::move(*svg);
    }
    *out = layout->svg->c_str();
    return capi::ok();
  });
}

} // extern "C"
