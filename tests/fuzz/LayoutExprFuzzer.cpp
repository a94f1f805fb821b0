// libFuzzer target for the layout expression language: any input must
// either evaluate or give an error with a column inside the text, and
// whatever evaluates must print a line that reads back to the same text.
// Build: see tests/fuzz/CMakeLists.txt.
#include "ir/layout/LayoutExpr.h"
#include "ir/layout/LayoutRender.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096)
    return 0;
  std::string text(reinterpret_cast<const char *>(data), size);
  llvm::Expected<tilec::LayoutValue> v = tilec::evaluateLayoutExpr(text);
  if (!v) {
    tilec::LayoutExprDiag d = tilec::toLayoutExprDiag(v.takeError());
    if (d.column > text.size() || d.message.empty())
      std::abort();
    return 0;
  }
  std::string printed = v->str();
  if (v->isLayout() || v->isComposed() || v->isSwizzle()) {
    llvm::Expected<tilec::LayoutValue> again =
        tilec::evaluateLayoutExpr(printed);
    if (!again || again->str() != printed)
      std::abort();
  }
  // The renderers must not crash either (small layouts only).
  if ((v->isLayout() && v->getLayout().size() <= 4096) ||
      (v->isComposed() && v->getComposed().size() <= 4096)) {
    llvm::Expected<std::string> ascii = tilec::renderAscii(*v);
    if (!ascii)
      llvm::consumeError(ascii.takeError());
    llvm::Expected<std::string> svg = tilec::renderSvg(*v, tilec::SvgOptions());
    if (!svg)
      llvm::consumeError(svg.takeError());
  }
  return 0;
}
