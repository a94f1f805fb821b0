//===- compiler/AST.h - The syntax tree of a .tile program -------*- C++
//-*-===//
//
// What the parser builds and sema reads: top-level constants, layouts, print
// statements and kernels, each node with the source location diagnostics
// point at. Layout expressions stay source text (with their location) here;
// sema substitutes constants into them and the layout library evaluates them.
// `tilec compile --emit=ast` prints this tree with dumpAST().
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_AST_H
#define TILEC_COMPILER_AST_H

#include "llvm/Support/SMLoc.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tilec {

/// A name with where it was written.
struct Ident {
  std::string name;
  llvm::SMLoc loc;
};

/// An integer expression: literals, names of constants, + - * / %, unary
/// minus and parentheses.
struct Expr {
  enum class Kind { Int, Name, Neg, Binary };
  Kind kind = Kind::Int;
  llvm::SMLoc loc;
  int64_t value = 0;              ///< Int.
  std::string name;               ///< Name.
  char op = 0;                    ///< Binary: one of + - * / %.
  std::unique_ptr<Expr> lhs, rhs; ///< Neg uses lhs.
};
using ExprPtr = std::unique_ptr<Expr>;

/// A layout expression kept as text: `tile_to_shape(K_SW128<bf16>, (BM, BK))`.
struct LayoutText {
  std::string text; ///< Trimmed, without a trailing comment.
  llvm::SMLoc loc;  ///< Its first character.
};

/// One step of an epilogue: `stmatrix swizzle(128B)`.
struct EpilogueStep {
  Ident name;
  std::vector<Ident> options; ///< Raw `swizzle(128B)` texts with locations.
};

/// The kinds of lines inside a kernel.
enum class ItemKind {
  Arch,
  Operand,
  Acc,
  Tile,
  Stages,
  Smem,
  Mma,
  Epilogue,
  Schedule,
  Scale,
  Group
};

/// One line of a kernel body. Which fields are set depends on kind.
struct KernelItem {
  ItemKind kind;
  llvm::SMLoc loc;           ///< The keyword (or the operand name).
  Ident name;                ///< Arch: target; Operand: a|b|c; Acc: dtype;
                             ///< Group: contiguous|masked;
                             ///< Smem, Scale: operand; Mma: instruction or
                             ///< `auto`.
  Ident dtype;               ///< Operand, Scale.
  std::vector<ExprPtr> dims; ///< Operand: one per extent; Scale: the block
                             ///< `block(1, 128)`, (MN, K) extents.
  Ident major;               ///< Operand: the contiguous extent.
  /// Scale: `block` (block scales, dims = the block) or `group` (a 4-bit
  /// weight's group scales, dims = the group's K extent), as written.
  Ident scaleForm;
  /// Scale with `group`: the zero points' type of `zero(u8)`; empty: none.
  Ident zero;
  std::vector<std::pair<Ident, ExprPtr>> tileSizes; ///< Tile.
  ExprPtr value;     ///< Stages: the count; Mma: warpgroups (may be null).
  LayoutText layout; ///< Smem: the expression or `auto`.
  /// Epilogue: the steps; Schedule: one step "schedule" holding the words.
  std::vector<EpilogueStep> steps;
  /// Epilogue: the element-wise ops before the steps, as written
  /// (`bias(col)`, `relu`; ir/tile/EpilogueOps.h).
  std::vector<Ident> epilogueOps;
};

/// `kernel NAME { ... }`.
struct KernelDecl {
  Ident name;
  std::vector<KernelItem> items;
};

/// The kinds of top-level statements.
enum class StmtKind { Const, Layout, Print, Kernel };

/// One top-level statement.
struct TopLevel {
  StmtKind kind;
  llvm::SMLoc loc;
  Ident name;                   ///< Const, Layout.
  ExprPtr value;                ///< Const.
  LayoutText layout;            ///< Layout; Print (the expression).
  bool printDescriptor = false; ///< Print: `print descriptor(...)`; layout
                                ///< holds the whole call text.
  KernelDecl kernel;            ///< Kernel.
};

/// A whole .tile file.
struct Program {
  std::vector<TopLevel> statements;
};

/// Prints \p program as an indented tree (`--emit=ast`).
void dumpAST(const Program &program, llvm::raw_ostream &os);

} // namespace tilec

#endif // TILEC_COMPILER_AST_H
