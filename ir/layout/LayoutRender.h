//===- ir/layout/LayoutRender.h - Layouts as text grids and SVGs -*- C++ -*-===//
//
// Draws a layout's offsets as a 2-D grid: rows are mode 0, columns mode 1
// (a rank-1 layout is one column), as CuTe's print_layout (without its
// first line, the layout itself). The SVG shows the same grid with each cell
// coloured by the shared-memory bank group of its 16-byte chunk (4-byte
// banks, 8 groups of 4 banks per 128 bytes), so the familiar pictures of
// swizzled tiles (docs/layout-facts.md#swizzle-atoms) can be drawn for any layout.
//
// Example: renderAscii of (2,3):(3,1) is
//       0   1   2
//     +---+---+---+
//  0  | 0 | 1 | 2 |
//     +---+---+---+
//  1  | 3 | 4 | 5 |
//     +---+---+---+
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_LAYOUT_LAYOUTRENDER_H
#define TILEC_IR_LAYOUT_LAYOUTRENDER_H

#include "ir/layout/LayoutExpr.h"

#include "llvm/Support/Error.h"

#include <string>

namespace tilec {

/// The 2-D offset grid of a layout or composed layout as text. Fails for a
/// value that is not a layout or for a layout of rank > 2.
llvm::Expected<std::string> renderAscii(const LayoutValue &value);

/// Options of the SVG picture.
struct SvgOptions {
  /// Element width in bits, used to colour 16-byte chunks and bank groups;
  /// 0 means "unknown" (cells coloured by offset / 8).
  unsigned elementBits = 0;
  /// Title drawn above the grid (usually the expression).
  std::string title;
};

/// The SVG picture of the offset grid.
llvm::Expected<std::string> renderSvg(const LayoutValue &value,
                                      const SvgOptions &options);

} // namespace tilec

#endif // TILEC_IR_LAYOUT_LAYOUTRENDER_H
