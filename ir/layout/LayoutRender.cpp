//===- ir/layout/LayoutRender.cpp - Layouts as text grids and SVG pictures -------===//
//
// Both renderers walk the same (row, column) -> offset grid: mode 0 of the
// layout gives the rows, mode 1 the columns.
//
//===----------------------------------------------------------------------===//
#include "ir/layout/LayoutRender.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace tilec;

namespace {

constexpr int64_t kMaxCells = 1 << 16;

struct Grid {
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> offsets; // row-major: offsets[r * cols + c]
  int64_t cosize = 0;
};

llvm::Expected<Grid> makeGrid(const LayoutValue &value) {
  Layout layout;
  std::optional<ComposedLayout> composed;
  if (value.isLayout())
    layout = value.getLayout();
  else if (value.isComposed()) {
    composed = value.getComposed();
    layout = composed->layout;
  } else if (value.isIntTuple())
    layout = makeLayoutLeft(value.getIntTuple());
  else
    return llvm::createStringError(
        "cannot draw " + value.str() +
        ": it is not a layout (give a swizzle a domain: Sw<3,4,3> o 1024:1)");
  if (layout.shape.isTuple() && layout.rank() == 0)
    return llvm::createStringError("cannot draw the empty layout " +
                                   layout.str());
  if (layout.rank() > 2)
    return llvm::createStringError(llvm::formatv(
        "cannot draw {0}: it has rank {1}; a grid needs rank 1 or 2 (group "
        "the modes first, e.g. with coalesce and a profile)",
        layout.str(), layout.rank()));
  Grid g;
  g.rows = layout.mode(0).size();
  g.cols =
      layout.rank() == 2 && layout.shape.isTuple() ? layout.mode(1).size() : 1;
  if (g.rows * g.cols > kMaxCells)
    return llvm::createStringError(llvm::formatv(
        "cannot draw {0}: {1} cells is more than the {2} a picture allows",
        layout.str(), g.rows * g.cols, kMaxCells));
  g.cosize = layout.cosize();
  for (int64_t r = 0; r < g.rows; ++r)
    for (int64_t c = 0; c < g.cols; ++c) {
      IntTuple coord =
          g.cols == 1 && layout.rank() == 1 && layout.shape.isLeaf()
              ? IntTuple(r)
              : (layout.rank() == 1 ? IntTuple({IntTuple(r)})
                                    : IntTuple({r, c}));
      int64_t off = composed ? (*composed)(coord) : layout(coord);
      g.offsets.push_back(off);
    }
  return g;
}

int numDigits(int64_t x) {
  int d = x < 0 ? 2 : 1;
  x = x < 0 ? -x : x;
  while (x >= 10) {
    x /= 10;
    ++d;
  }
  return d;
}

std::string padLeft(int64_t v, int w) {
  std::string s = std::to_string(v);
  if ((int)s.size() < w)
    s.insert(0, w - s.size(), ' ');
  return s;
}

std::string xmlEscape(llvm::StringRef s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

} // namespace

llvm::Expected<std::string> tilec::renderAscii(const LayoutValue &value) {
  llvm::Expected<Grid> g = makeGrid(value);
  if (!g)
    return g.takeError();
  // As CuTe's print_layout: cells as wide as the cosize has digits.
  int64_t widest = g->cosize;
  for (int64_t o : g->offsets)
    widest = std::max(widest, o);
  int w = std::max(numDigits(widest), numDigits(g->cosize));
  for (int64_t o : g->offsets)
    w = std::max(w, numDigits(o));
  std::string out = "    ";
  for (int64_t c = 0; c < g->cols; ++c)
    out.append("  ").append(padLeft(c, w)).append(" ");
  out += "\n";
  std::string rule = "    ";
  for (int64_t c = 0; c < g->cols; ++c)
    rule.append("+").append(w + 2, '-');
  rule += "+\n";
  for (int64_t r = 0; r < g->rows; ++r) {
    out += rule;
    out.append(padLeft(r, 2)).append("  ");
    for (int64_t c = 0; c < g->cols; ++c)
      out.append("| ")
          .append(padLeft(g->offsets[r * g->cols + c], w))
          .append(" ");
    out += "|\n";
  }
  out += rule;
  return out;
}

llvm::Expected<std::string> tilec::renderSvg(const LayoutValue &value,
                                             const SvgOptions &options) {
  llvm::Expected<Grid> g = makeGrid(value);
  if (!g)
    return g.takeError();
  // Eight colours, one per 16-byte bank group of a 128-byte shared-memory
  // row (banks 4g .. 4g+3).
  static const char *kColours[8] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072",
                                    "#80b1d3", "#fdb462", "#b3de69", "#fccde5"};
  unsigned bits = options.elementBits ? options.elementBits : 16;
  int64_t elemsPerChunk = std::max<int64_t>(1, 128 / bits);
  int digits = 1;
  for (int64_t o : g->offsets)
    digits = std::max(digits, numDigits(o));
  int cellW = std::max(28, 8 * digits + 10), cellH = 22;
  int left = 40, top = 64;
  int width = std::max<int>(left + cellW * g->cols + 20, left + 8 * 124 + 20);
  int height = top + cellH * g->rows + 60;
  std::string s;
  s += llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                     "width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
                     "font-family=\"monospace\" font-size=\"11\">\n",
                     width, height);
  s += llvm::formatv("<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n",
                     width, height);
  s += llvm::formatv("<text x=\"{0}\" y=\"18\" font-size=\"13\">{1}</text>\n",
                     left, xmlEscape(options.title));
  s += llvm::formatv(
      "<text x=\"{0}\" y=\"36\" font-size=\"10\">colour: shared-memory bank "
      "group of the 16-byte chunk (banks 4g..4g+3, {1}-bit elements, {2} per "
      "chunk); bold: chunk start</text>\n",
      left, bits, elemsPerChunk);
  for (int64_t c = 0; c < g->cols; ++c)
    s += llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" "
                       "fill=\"#666\">{2}</text>\n",
                       left + c * cellW + cellW / 2, top - 6, c);
  for (int64_t r = 0; r < g->rows; ++r) {
    s += llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\" "
                       "fill=\"#666\">{2}</text>\n",
                       left - 6, top + r * cellH + 15, r);
    for (int64_t c = 0; c < g->cols; ++c) {
      int64_t off = g->offsets[r * g->cols + c];
      int64_t chunk = (off >= 0 ? off : -off) / elemsPerChunk;
      bool chunkStart = elemsPerChunk > 1 && off % elemsPerChunk == 0;
      s += llvm::formatv(
          "<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" "
          "fill=\"{4}\" stroke=\"#333\" stroke-width=\"0.5\"/>\n",
          left + c * cellW, top + r * cellH, cellW, cellH, kColours[chunk % 8]);
      s += llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\"{3}>"
                         "{2}</text>\n",
                         left + c * cellW + cellW / 2, top + r * cellH + 15,
                         off, chunkStart ? " font-weight=\"bold\"" : "");
    }
  }
  int ly = top + cellH * g->rows + 16;
  for (int k = 0; k < 8; ++k) {
    s += llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"14\" height=\"14\" "
                       "fill=\"{2}\" stroke=\"#333\" stroke-width=\"0.5\"/>\n",
                       left + k * 124, ly, kColours[k]);
    s += llvm::formatv("<text x=\"{0}\" y=\"{1}\">g{2}: banks {3}-{4}</text>\n",
                       left + k * 124 + 18, ly + 11, k, 4 * k, 4 * k + 3);
  }
  s += "</svg>\n";
  return s;
}
