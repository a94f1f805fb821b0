//===- compiler/AST.cpp - Printing the syntax tree ------------------------===//
//
// `--emit=ast`: one node per line, children indented, expressions fully
// parenthesized so the parse (precedence, associativity) is visible.
//
//===----------------------------------------------------------------------===//
#include "compiler/AST.h"

namespace tilec {

namespace {
void printExpr(const Expr *expr, llvm::raw_ostream &os) {
  if (!expr) {
    os << "<missing>";
    return;
  }
  switch (expr->kind) {
  case Expr::Kind::Int:
    os << expr->value;
    return;
  case Expr::Kind::Name:
    os << expr->name;
    return;
  case Expr::Kind::Neg:
    os << "(-";
    printExpr(expr->lhs.get(), os);
    os << ")";
    return;
  case Expr::Kind::Binary:
    os << "(";
    printExpr(expr->lhs.get(), os);
    os << " " << expr->op << " ";
    printExpr(expr->rhs.get(), os);
    os << ")";
    return;
  }
}

void printItem(const KernelItem &item, llvm::raw_ostream &os) {
  os << "    ";
  switch (item.kind) {
  case ItemKind::Arch:
    os << "Arch " << item.name.name;
    break;
  case ItemKind::Operand: {
    os << "Operand " << item.name.name << " dtype=" << item.dtype.name
       << " shape=[";
    for (size_t i = 0; i < item.dims.size(); ++i) {
      if (i)
        os << ", ";
      printExpr(item.dims[i].get(), os);
    }
    os << "] major=" << item.major.name;
    break;
  }
  case ItemKind::Acc:
    os << "Acc " << item.name.name;
    break;
  case ItemKind::Tile:
    os << "Tile";
    for (const auto &[name, value] : item.tileSizes) {
      os << " " << name.name << "=";
      printExpr(value.get(), os);
    }
    break;
  case ItemKind::Stages:
    os << "Stages ";
    printExpr(item.value.get(), os);
    break;
  case ItemKind::Smem:
    os << "Smem " << item.name.name << " layout=\"" << item.layout.text << "\"";
    break;
  case ItemKind::Mma:
    os << "Mma " << item.name.name;
    if (item.value) {
      os << " warpgroups=";
      printExpr(item.value.get(), os);
    }
    break;
  case ItemKind::Epilogue:
    os << "Epilogue";
    for (size_t i = 0; i < item.steps.size(); ++i) {
      os << (i ? " -> " : " ") << item.steps[i].name.name;
      for (const Ident &option : item.steps[i].options)
        os << " " << option.name;
    }
    break;
  case ItemKind::Scale:
    os << "Scale " << item.name.name << " dtype=" << item.dtype.name
       << " block=(";
    for (size_t i = 0; i < item.dims.size(); ++i) {
      if (i)
        os << ", ";
      printExpr(item.dims[i].get(), os);
    }
    os << ")";
    break;
  case ItemKind::Group:
    os << "Group " << item.name.name;
    break;
  case ItemKind::Schedule:
    os << "Schedule";
    for (const EpilogueStep &words : item.steps)
      for (const Ident &option : words.options)
        os << " " << option.name;
    break;
  }
  os << "\n";
}
} // namespace

void dumpAST(const Program &program, llvm::raw_ostream &os) {
  os << "Program\n";
  for (const TopLevel &stmt : program.statements) {
    switch (stmt.kind) {
    case StmtKind::Const:
      os << "  Const " << stmt.name.name << " = ";
      printExpr(stmt.value.get(), os);
      os << "\n";
      break;
    case StmtKind::Layout:
      os << "  Layout " << stmt.name.name << " = \"" << stmt.layout.text
         << "\"\n";
      break;
    case StmtKind::Print:
      os << "  Print " << (stmt.printDescriptor ? "descriptor " : "") << "\""
         << stmt.layout.text << "\"\n";
      break;
    case StmtKind::Kernel:
      os << "  Kernel " << stmt.kernel.name.name << "\n";
      for (const KernelItem &item : stmt.kernel.items)
        printItem(item, os);
      break;
    }
  }
}

} // namespace tilec
