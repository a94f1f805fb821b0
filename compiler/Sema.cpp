//===- compiler/Sema.cpp - From the syntax tree to Tile IR ----------------===//
//
// Integer arithmetic is checked: overflow and division by zero are errors
// that point at the operator. Names are looked up in the kernel's tile sizes
// (BM, BN, BK), then the top-level constants declared above the use.
//
//===----------------------------------------------------------------------===//
#include "compiler/Sema.h"

#include "compiler/LayoutPrint.h"
#include "compiler/Lexer.h"
#include "ir/layout/LayoutExpr.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace tilec {

namespace {

class Sema {
public:
  Sema(const SemaOptions &options, DiagnosticEngine &diags)
      : options(options), diags(diags) {}

  tir::Op run(const Program &program);

private:
  std::optional<int64_t> evaluate(const Expr *expr);
  /// Substitutes constants and layout names into a layout expression.
  std::string substitute(const LayoutText &layout);
  /// Evaluates \p layout where it was written (names from the environment),
  /// reporting an error at its column.
  std::optional<LayoutValue> evaluateLayout(const LayoutText &layout);
  /// The names a layout expression may use: constants, tile sizes, layouts.
  LayoutEnv environment() const;
  void buildKernel(const KernelDecl &kernel, tir::Op &module);
  void buildSchedule(const KernelItem &item, tir::Op &op);
  void buildTile(const KernelItem &item, tir::Op &op);
  void buildEpilogue(const KernelItem &item, tir::Op &op);
  void setArch(const KernelDecl &kernel, const KernelItem *archItem,
               tir::Op &op);
  tir::Attr buildDim(const Expr *expr, bool batchExtent = false);

  const SemaOptions &options;
  DiagnosticEngine &diags;
  llvm::StringMap<int64_t> constants;   ///< Top-level and tile sizes.
  llvm::StringMap<std::string> layouts; ///< Top-level `layout` texts.
  std::map<std::string, LayoutValue> layoutValues; ///< Their values.
  llvm::StringMap<llvm::SMLoc> defined; ///< For "defined twice" notes.
};

std::optional<int64_t> Sema::evaluate(const Expr *expr) {
  if (!expr)
    return std::nullopt;
  switch (expr->kind) {
  case Expr::Kind::Int:
    return expr->value;
  case Expr::Kind::Name: {
    auto it = constants.find(expr->name);
    if (it != constants.end())
      return it->second;
    diags.error(expr->loc, "unknown name '" + expr->name +
                               "'; integer constants are declared above "
                               "their use with 'const " +
                               expr->name + " = ...'");
    return std::nullopt;
  }
  case Expr::Kind::Neg: {
    std::optional<int64_t> value = evaluate(expr->lhs.get());
    if (!value)
      return std::nullopt;
    return -*value; // |value| < 2^63 - 1 always: literals are non-negative.
  }
  case Expr::Kind::Binary: {
    std::optional<int64_t> lhs = evaluate(expr->lhs.get());
    std::optional<int64_t> rhs = evaluate(expr->rhs.get());
    if (!lhs || !rhs)
      return std::nullopt;
    int64_t result = 0;
    bool overflow = false;
    switch (expr->op) {
    case '+':
      overflow = llvm::AddOverflow(*lhs, *rhs, result);
      break;
    case '-':
      overflow = llvm::SubOverflow(*lhs, *rhs, result);
      break;
    case '*':
      overflow = llvm::MulOverflow(*lhs, *rhs, result);
      break;
    case '/':
    case '%':
      if (*rhs == 0) {
        diags.error(expr->loc,
                    llvm::Twine(expr->op == '/' ? "division" : "remainder") +
                        " by zero");
        return std::nullopt;
      }
      if (*lhs == INT64_MIN && *rhs == -1) {
        overflow = true;
        break;
      }
      result = expr->op == '/' ? *lhs / *rhs : *lhs % *rhs;
      break;
    default:
      llvm_unreachable("parser made an unknown operator");
    }
    if (overflow) {
      diags.error(expr->loc, "integer overflow: " + llvm::Twine(*lhs) + " " +
                                 llvm::Twine(expr->op) + " " +
                                 llvm::Twine(*rhs) +
                                 " does not fit in 64 bits");
      return std::nullopt;
    }
    return result;
  }
  }
  return std::nullopt;
}

std::string Sema::substitute(const LayoutText &layout) {
  // Lex the text on its own; lexing errors are the layout library's to
  // report when it evaluates the expression.
  llvm::SourceMgr scratchMgr;
  std::string sink;
  llvm::raw_string_ostream sinkStream(sink);
  DiagnosticEngine scratch(scratchMgr, sinkStream);
  scratch.setCapture(true);
  Lexer lexer(layout.text, scratch);
  std::string out;
  const char *copied = layout.text.data();
  for (Token tok = lexer.next(); !tok.is(TokenKind::Eof); tok = lexer.next()) {
    if (!tok.is(TokenKind::Ident))
      continue;
    std::string replacement;
    auto c = constants.find(tok.text);
    auto l = layouts.find(tok.text);
    if (c != constants.end())
      replacement = std::to_string(c->second);
    else if (l != layouts.end())
      replacement = l->second;
    else
      continue;
    out.append(copied, tok.text.data());
    out += replacement;
    copied = tok.text.end();
  }
  out.append(copied, layout.text.data() + layout.text.size());
  return out;
}

LayoutEnv Sema::environment() const {
  LayoutEnv env;
  for (const auto &entry : constants)
    env.emplace(entry.getKey().str(), LayoutValue(entry.getValue()));
  for (const auto &[name, value] : layoutValues)
    env.insert_or_assign(name, value);
  return env;
}

std::optional<LayoutValue> Sema::evaluateLayout(const LayoutText &layout) {
  LayoutEnv env = environment();
  llvm::Expected<LayoutValue> value = evaluateLayoutExpr(layout.text, &env);
  if (value)
    return std::move(*value);
  LayoutExprDiag diag = toLayoutExprDiag(value.takeError());
  unsigned column = std::min<size_t>(diag.column, layout.text.size());
  diags.error(llvm::SMLoc::getFromPointer(layout.loc.getPointer() + column),
              diag.message);
  return std::nullopt;
}

tir::Attr Sema::buildDim(const Expr *expr, bool batchExtent) {
  // A bare M, N or K that is not a constant is a run-time extent; so is any
  // bare name as the leading (batch) extent of a 3-extent shape.
  if (expr && expr->kind == Expr::Kind::Name && !constants.count(expr->name) &&
      (batchExtent || expr->name == "M" || expr->name == "N" ||
       expr->name == "K"))
    return tir::Attr::ident(expr->name, expr->loc);
  std::optional<int64_t> value = evaluate(expr);
  return tir::Attr::integer(value.value_or(0),
                            expr ? expr->loc : llvm::SMLoc());
}

/// `schedule auto` -> mode = auto; `schedule swap_ab split_k(4)` -> mode =
/// fixed, swap_ab = 1, split_k = 4; `schedule persistent cluster(2)` ->
/// persistent = 8 (the tile rows of a group), cluster_m = 2 (plan-pipeline
/// decides `auto`).
void Sema::buildSchedule(const KernelItem &item, tir::Op &op) {
  op.set("mode", tir::Attr::ident("auto", item.loc)); // First when printed.
  const Ident *autoWord = nullptr;
  bool fixed = false;
  for (const EpilogueStep &words : item.steps)
    for (const Ident &word : words.options) {
      llvm::StringRef text = word.name;
      if (text == "auto") {
        autoWord = &word;
        continue;
      }
      fixed = true;
      if (text == "swap_ab") {
        op.set("swap_ab", tir::Attr::integer(1, word.loc));
        continue;
      }
      // `persistent` or `persistent(G)`: G tile rows per group (8).
      if (text == "persistent" ||
          (text.starts_with("persistent(") && text.ends_with(")"))) {
        int64_t group = 8;
        llvm::StringRef arg =
            text.drop_front(strlen("persistent(")).drop_back().trim();
        if (text != "persistent" &&
            (arg.getAsInteger(10, group) || group < 1 || group > 64))
          diags.error(word.loc, "persistent takes the tile rows of a group, "
                                "an integer from 1 to 64, not '" +
                                    arg + "'");
        op.set("persistent", tir::Attr::integer(group, word.loc));
        continue;
      }
      // `cluster_n(2)`: two CTAs along N sharing (multicasting) A.
      if (text.consume_front("cluster_n(") && text.consume_back(")")) {
        int64_t ctas = 0;
        if (text.trim().getAsInteger(10, ctas) || (ctas != 1 && ctas != 2))
          diags.error(word.loc, "cluster_n takes the CTAs of a cluster along "
                                "N, 1 or 2, not '" +
                                    text.trim() + "'");
        op.set("cluster_n", tir::Attr::integer(ctas, word.loc));
        continue;
      }
      if (text.consume_front("cluster(") && text.consume_back(")")) {
        int64_t ctas = 0;
        // 4: two sm_100a CTA pairs sharing B (verify checks the target).
        if (text.trim().getAsInteger(10, ctas) ||
            (ctas != 1 && ctas != 2 && ctas != 4))
          diags.error(word.loc, "cluster takes the CTAs of a cluster along "
                                "M, 1 or 2 (or 4 on sm_100a: two CTA "
                                "pairs), not '" +
                                    text.trim() + "'");
        op.set("cluster_m", tir::Attr::integer(ctas, word.loc));
        continue;
      }
      int64_t splits = 0;
      if (text.consume_front("split_k(") && text.consume_back(")")) {
        if (text.trim().getAsInteger(10, splits) || splits < 1 || splits > 64)
          diags.error(word.loc, "split_k takes an integer from 1 to 64 (CTAs "
                                "sharing one output tile's K), not '" +
                                    text.trim() + "'");
        op.set("split_k", tir::Attr::integer(splits, word.loc));
        continue;
      }
      diags.error(word.loc, "unknown schedule option '" + word.name +
                                "'; legal: auto, or any of swap_ab, "
                                "split_k(N), persistent[(G)], cluster(2), "
                                "cluster_n(2)");
    }
  if (autoWord && fixed)
    diags.error(autoWord->loc, "'schedule auto' lets the compiler choose; "
                               "drop 'auto' or the other options");
  op.set("mode", tir::Attr::ident(fixed ? "fixed" : "auto", item.loc));
}

/// `tile (BM = .., BN = .., BK = ..)`: each size once, all three, and
/// each a constant of the kernel from here on.
void Sema::buildTile(const KernelItem &item, tir::Op &op) {
  op.name = "tile.tile";
  static const char *const names[] = {"BM", "BN", "BK"};
  static const char *const keys[] = {"bm", "bn", "bk"};
  const Ident *given[3] = {nullptr, nullptr, nullptr};
  std::optional<int64_t> values[3];
  for (const auto &[name, value] : item.tileSizes) {
    int index = -1;
    for (int i = 0; i < 3; ++i)
      if (name.name == names[i])
        index = i;
    if (index < 0) {
      diags.error(name.loc, "unknown tile size '" + name.name +
                                "'; the tile takes BM, BN and BK");
      continue;
    }
    if (given[index]) {
      diags.error(name.loc, llvm::Twine(names[index]) + " is given twice");
      diags.note(given[index]->loc, "the first is here");
      continue;
    }
    given[index] = &name;
    values[index] = evaluate(value.get());
  }
  for (int i = 0; i < 3; ++i) {
    if (!given[i]) {
      diags.error(item.loc, llvm::Twine("the tile does not give ") + names[i] +
                                "; write tile (BM = .., BN = .., BK = ..)");
      continue;
    }
    op.set(keys[i], tir::Attr::integer(values[i].value_or(0), given[i]->loc));
    if (values[i])
      constants[names[i]] = *values[i];
  }
}

/// `epilogue ops -> steps`: the steps as written (only ops: `auto`'s
/// store) and the ops, typed (an op that does not parse stays text, which
/// verify reports).
void Sema::buildEpilogue(const KernelItem &item, tir::Op &op) {
  op.name = "tile.epilogue";
  std::vector<tir::Attr> steps;
  for (const EpilogueStep &step : item.steps) {
    std::vector<tir::Attr> parts;
    parts.push_back(tir::Attr::ident(step.name.name, step.name.loc));
    for (const Ident &option : step.options)
      parts.push_back(tir::Attr::string(option.name, option.loc));
    steps.push_back(tir::Attr::makeList(std::move(parts), step.name.loc));
  }
  // Only the ops: the store is chosen as for `epilogue auto`.
  if (steps.empty())
    steps.push_back(tir::Attr::makeList({tir::Attr::ident("auto", item.loc)}));
  op.set("steps", tir::Attr::makeList(std::move(steps), item.loc));
  if (!item.epilogueOps.empty()) {
    std::vector<tir::Attr> ops;
    for (const Ident &op : item.epilogueOps)
      ops.push_back(tir::Attr::epilogueOpOrText(op.name, op.loc));
    op.set("ops", tir::Attr::makeList(std::move(ops), item.loc));
  }
}

/// The target: the kernel's own `arch` line, else --arch.
void Sema::setArch(const KernelDecl &kernel, const KernelItem *archItem,
                   tir::Op &op) {
  if (archItem) {
    op.set("arch", tir::Attr::ident(archItem->name.name, archItem->name.loc));
    std::optional<ArchKind> written = parseArch(archItem->name.name);
    if (options.arch && written && *written != *options.arch) {
      diags.error(archItem->name.loc,
                  "kernel '" + kernel.name.name + "' is written for " +
                      archItem->name.name + " but --arch asks for " +
                      archInfo(*options.arch).name);
    }
  } else if (options.arch) {
    op.set("arch", tir::Attr::ident(archInfo(*options.arch).name));
  } else {
    diags.error(kernel.name.loc, "kernel '" + kernel.name.name +
                                     "' names no target; add an 'arch' line (" +
                                     listArchNames() + ") or pass --arch");
    op.set("arch", tir::Attr::ident("sm_80"));
  }
}

/// The items a kernel may leave out (`smem a|b = auto`, `mma auto`,
/// `epilogue auto`), then the kernel's items in canonical order.
static void addDefaultsAndSort(tir::Op &op, const bool sawSmem[2], bool sawMma,
                               bool sawEpilogue) {
  for (int i = 0; i < 2; ++i) {
    if (sawSmem[i])
      continue;
    tir::Op smem;
    smem.name = "tile.smem";
    smem.symbol = i == 0 ? "a" : "b";
    smem.set("layout", tir::Attr::ident("auto"));
    op.body.push_back(std::move(smem));
  }
  if (!sawMma) {
    tir::Op mma;
    mma.name = "tile.mma";
    mma.set("instr", tir::Attr::ident("auto"));
    op.body.push_back(std::move(mma));
  }
  if (!sawEpilogue) {
    tir::Op epilogue;
    epilogue.name = "tile.epilogue";
    epilogue.set(
        "steps",
        tir::Attr::makeList({tir::Attr::makeList({tir::Attr::ident("auto")})}));
    op.body.push_back(std::move(epilogue));
  }
  // Canonical order: the op table's, then by operand; duplicates keep
  // their source order so "declared twice" points at the second one.
  auto rank = [](const tir::Op &o) {
    unsigned index = 0;
    for (const tir::OpSchema &schema : tir::opSchemas()) {
      if (schema.name == o.name)
        break;
      ++index;
    }
    return std::make_pair(index, o.symbol);
  };
  std::stable_sort(
      op.body.begin(), op.body.end(),
      [&](const tir::Op &x, const tir::Op &y) { return rank(x) < rank(y); });
}

void Sema::buildKernel(const KernelDecl &kernel, tir::Op &module) {
  tir::Op op;
  op.name = "tile.kernel";
  op.symbol = kernel.name.name;
  op.loc = kernel.name.loc;

  // Tile sizes are names inside this kernel only.
  llvm::StringMap<int64_t> savedConstants = constants;

  const KernelItem *archItem = nullptr;
  bool sawSmem[2] = {false, false}, sawMma = false, sawEpilogue = false;
  for (const KernelItem &item : kernel.items) {
    tir::Op child;
    child.loc = item.loc;
    switch (item.kind) {
    case ItemKind::Arch:
      if (archItem) {
        diags.error(item.loc,
                    "kernel '" + kernel.name.name + "' names its target twice");
        diags.note(archItem->loc, "the first 'arch' is here");
        continue;
      }
      archItem = &item;
      continue;
    case ItemKind::Operand: {
      child.name = "tile.operand";
      child.symbol = item.name.name;
      child.set("dtype", tir::Attr::ident(item.dtype.name, item.dtype.loc));
      std::vector<tir::Attr> dims;
      for (const ExprPtr &dim : item.dims)
        dims.push_back(
            buildDim(dim.get(), item.dims.size() == 3 && dims.empty()));
      child.set("shape", tir::Attr::makeList(std::move(dims), item.loc));
      child.set("major", tir::Attr::ident(item.major.name, item.major.loc));
      break;
    }
    case ItemKind::Acc:
      child.name = "tile.acc";
      child.set("dtype", tir::Attr::ident(item.name.name, item.name.loc));
      break;
    case ItemKind::Tile:
      buildTile(item, child);
      break;
    case ItemKind::Stages: {
      child.name = "tile.stages";
      std::optional<int64_t> count = evaluate(item.value.get());
      child.set("count",
                tir::Attr::integer(count.value_or(0),
                                   item.value ? item.value->loc : item.loc));
      break;
    }
    case ItemKind::Smem:
      child.name = "tile.smem";
      child.symbol = item.name.name;
      if (item.name.name == "a")
        sawSmem[0] = true;
      if (item.name.name == "b")
        sawSmem[1] = true;
      if (item.layout.text == "auto") {
        child.set("layout", tir::Attr::ident("auto", item.layout.loc));
      } else {
        evaluateLayout(item.layout);
        child.set("layout",
                  tir::Attr::string(substitute(item.layout), item.layout.loc));
      }
      break;
    case ItemKind::Mma: {
      sawMma = true;
      child.name = "tile.mma";
      child.set("instr", tir::Attr::ident(item.name.name, item.name.loc));
      if (item.value) {
        std::optional<int64_t> count = evaluate(item.value.get());
        child.set("warpgroups",
                  tir::Attr::integer(count.value_or(0), item.value->loc));
      }
      break;
    }
    case ItemKind::Epilogue:
      sawEpilogue = true;
      buildEpilogue(item, child);
      break;
    case ItemKind::Scale: {
      // `block(..)`: tile.scale (VerifyScale); `group(..)`: a 4-bit
      // weight's tile.group_scale (VerifyWeightQuant).
      bool group = item.scaleForm.name == "group";
      child.name = group ? "tile.group_scale" : "tile.scale";
      child.symbol = item.name.name;
      child.set("dtype", tir::Attr::ident(item.dtype.name, item.dtype.loc));
      std::vector<tir::Attr> extents;
      for (const ExprPtr &extent : item.dims) {
        std::optional<int64_t> value = evaluate(extent.get());
        extents.push_back(tir::Attr::integer(value.value_or(0), extent->loc));
      }
      child.set(group ? "group" : "block",
                tir::Attr::makeList(std::move(extents), item.loc));
      if (!item.major.name.empty())
        child.set("major", tir::Attr::ident(item.major.name, item.major.loc));
      if (!item.zero.name.empty())
        child.set("zero", tir::Attr::ident(item.zero.name, item.zero.loc));
      break;
    }
    case ItemKind::Group:
      // `group contiguous|masked`: verify checks the mode (VerifyGroup).
      child.name = "tile.group";
      child.set("mode", tir::Attr::ident(item.name.name, item.name.loc));
      break;
    case ItemKind::Schedule:
      child.name = "tile.schedule";
      buildSchedule(item, child);
      break;
    }
    op.body.push_back(std::move(child));
  }

  setArch(kernel, archItem, op);

  addDefaultsAndSort(op, sawSmem, sawMma, sawEpilogue);
  constants = std::move(savedConstants);
  module.body.push_back(std::move(op));
}

tir::Op Sema::run(const Program &program) {
  tir::Op module;
  module.name = "tile.module";
  for (const TopLevel &stmt : program.statements) {
    if (stmt.kind != StmtKind::Kernel && stmt.kind != StmtKind::Print) {
      auto it = defined.find(stmt.name.name);
      if (it != defined.end()) {
        diags.error(stmt.name.loc,
                    "'" + stmt.name.name + "' is already defined");
        diags.note(it->second, "the first definition is here");
        continue;
      }
      defined[stmt.name.name] = stmt.name.loc;
    }
    tir::Op op;
    op.loc = stmt.loc;
    switch (stmt.kind) {
    case StmtKind::Const: {
      std::optional<int64_t> value = evaluate(stmt.value.get());
      if (!value)
        continue;
      constants[stmt.name.name] = *value;
      op.name = "tile.const";
      op.symbol = stmt.name.name;
      op.set("value", tir::Attr::integer(*value, stmt.value->loc));
      break;
    }
    case StmtKind::Layout: {
      std::string text = substitute(stmt.layout);
      layouts[stmt.name.name] = text;
      if (std::optional<LayoutValue> value = evaluateLayout(stmt.layout))
        layoutValues.insert_or_assign(stmt.name.name, std::move(*value));
      op.name = "tile.layout";
      op.symbol = stmt.name.name;
      op.set("expr", tir::Attr::string(text, stmt.layout.loc));
      break;
    }
    case StmtKind::Print:
      if (!stmt.printDescriptor) {
        evaluateLayout(stmt.layout);
      } else {
        PrintResult hook = evaluatePrint("descriptor", substitute(stmt.layout));
        if (!hook.ok)
          diags.error(stmt.layout.loc, hook.text);
      }
      op.name = "tile.print";
      op.set("expr",
             tir::Attr::string(substitute(stmt.layout), stmt.layout.loc));
      op.set("kind",
             tir::Attr::ident(stmt.printDescriptor ? "descriptor" : "layout"));
      break;
    case StmtKind::Kernel:
      buildKernel(stmt.kernel, module);
      continue;
    }
    module.body.push_back(std::move(op));
  }
  return module;
}

} // namespace

tir::Op buildTileIR(const Program &program, const SemaOptions &options,
                    DiagnosticEngine &diags) {
  Sema sema(options, diags);
  return sema.run(program);
}

} // namespace tilec
