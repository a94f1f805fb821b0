//===- compiler/Parser.cpp - Parsing .tile programs -----------------------===//
//
// One token of lookahead. Every parse function leaves the parser on the
// first token it did not use. Layout expressions are taken as raw text up to
// the end of their line (a line break inside open parentheses continues it),
// because their grammar belongs to the layout library (ir/layout/LayoutExpr.h).
//
//===----------------------------------------------------------------------===//
#include "compiler/Parser.h"

#include "compiler/Lexer.h"
#include "ir/tile/EpilogueOps.h"

#include "llvm/ADT/StringExtras.h"

namespace tilec {

namespace {

class Parser {
public:
  Parser(llvm::StringRef buffer, DiagnosticEngine &diags)
      : lexer(buffer, diags), diags(diags) {
    advance();
  }

  Program parseProgram();

private:
  void advance() {
    prevEnd = tok.text.end();
    tok = lexer.next();
  }
  /// A line break ends the statement unless brackets are open.
  bool atLineBreak() const {
    return tok.is(TokenKind::Eof) || (nesting == 0 && tok.atLineStart);
  }
  bool consumeIf(TokenKind kind) {
    if (!tok.is(kind) || atLineBreak())
      return false;
    advance();
    return true;
  }
  /// Reports "expected WHAT CONTEXT, found X" unless the token is an Error
  /// token (already reported).
  void errorExpected(llvm::StringRef what, llvm::StringRef context = "");
  bool expect(TokenKind kind, llvm::StringRef context) {
    if (consumeIf(kind))
      return true;
    errorExpected(describeTokenKind(kind), context);
    return false;
  }
  /// The current token for "found X", or "end of line" at a line break.
  std::string found() const;
  /// The current token, ignoring line breaks.
  std::string describeToken() const;
  /// Skips to the first token of the next line (or a '}' or the end).
  void skipLine();
  bool atItemEnd() const {
    return tok.atLineStart || tok.is(TokenKind::RBrace) ||
           tok.is(TokenKind::Eof);
  }
  /// After a complete item: the line must end here.
  void expectLineEnd(llvm::StringRef what);

  bool parseIdent(Ident &out, llvm::StringRef what, llvm::StringRef context);
  ExprPtr parseExpr();
  ExprPtr parseTerm();
  ExprPtr parseUnary();
  ExprPtr parsePrimary();
  LayoutText parseLayoutText(llvm::StringRef context);

  void parseTopLevel(Program &program);
  void parseKernel(TopLevel &stmt);
  bool parseItem(KernelDecl &kernel);
  bool parseOperand(KernelItem &item);
  bool parseTile(KernelItem &item);
  bool parseEpilogue(KernelItem &item);
  bool parseScale(KernelItem &item);
  bool parseOptionList(std::vector<Ident> &options, llvm::StringRef what);

  Lexer lexer;
  DiagnosticEngine &diags;
  Token tok;
  const char *prevEnd = nullptr;
  unsigned nesting = 0; ///< Open brackets inside the current statement.
};

/// Counts an open bracket for the lifetime of a parse function.
struct NestingScope {
  explicit NestingScope(unsigned &nesting) : nesting(nesting) { ++nesting; }
  ~NestingScope() { --nesting; }
  unsigned &nesting;
};

std::string Parser::found() const {
  if (atLineBreak() && !tok.is(TokenKind::Eof))
    return "end of line";
  return describeToken();
}

std::string Parser::describeToken() const {
  switch (tok.kind) {
  case TokenKind::Eof:
    return "end of file";
  case TokenKind::Ident:
    return (llvm::Twine("'") + tok.text + "'").str();
  case TokenKind::Int:
    return (llvm::Twine("integer ") + tok.text).str();
  default:
    return describeTokenKind(tok.kind);
  }
}

void Parser::errorExpected(llvm::StringRef what, llvm::StringRef context) {
  if (tok.is(TokenKind::Error))
    return;
  std::string foundText = found();
  // At a line break the caret goes right after the last token of the line.
  llvm::SMLoc loc = atLineBreak() && prevEnd
                        ? llvm::SMLoc::getFromPointer(prevEnd)
                        : tok.loc();
  diags.error(loc, llvm::Twine("expected ") + what +
                       (context.empty() ? "" : " ") + context + ", found " +
                       foundText);
}

void Parser::skipLine() {
  do {
    advance();
  } while (!atItemEnd());
}

void Parser::expectLineEnd(llvm::StringRef what) {
  if (atItemEnd())
    return;
  if (!tok.is(TokenKind::Error))
    diags.error(tok.loc(), "unexpected " + found() + " after " + what +
                               "; each statement ends at the end of its line");
  while (!atItemEnd())
    advance();
}

bool Parser::parseIdent(Ident &out, llvm::StringRef what,
                        llvm::StringRef context) {
  if (!tok.is(TokenKind::Ident) || atLineBreak()) {
    errorExpected(what, context);
    return false;
  }
  out = {tok.text.str(), tok.loc()};
  advance();
  return true;
}

ExprPtr Parser::parseExpr() {
  ExprPtr lhs = parseTerm();
  while (lhs && !atLineBreak() &&
         (tok.is(TokenKind::Plus) || tok.is(TokenKind::Minus))) {
    auto node = std::make_unique<Expr>();
    node->kind = Expr::Kind::Binary;
    node->op = tok.text[0];
    node->loc = tok.loc();
    advance();
    node->lhs = std::move(lhs);
    node->rhs = parseTerm();
    if (!node->rhs)
      return nullptr;
    lhs = std::move(node);
  }
  return lhs;
}

ExprPtr Parser::parseTerm() {
  ExprPtr lhs = parseUnary();
  while (lhs && !atLineBreak() &&
         (tok.is(TokenKind::Star) || tok.is(TokenKind::Slash) ||
          tok.is(TokenKind::Percent))) {
    auto node = std::make_unique<Expr>();
    node->kind = Expr::Kind::Binary;
    node->op = tok.text[0];
    node->loc = tok.loc();
    advance();
    node->lhs = std::move(lhs);
    node->rhs = parseUnary();
    if (!node->rhs)
      return nullptr;
    lhs = std::move(node);
  }
  return lhs;
}

ExprPtr Parser::parseUnary() {
  if (tok.is(TokenKind::Minus) && !atLineBreak()) {
    auto node = std::make_unique<Expr>();
    node->kind = Expr::Kind::Neg;
    node->loc = tok.loc();
    advance();
    node->lhs = parseUnary();
    if (!node->lhs)
      return nullptr;
    return node;
  }
  return parsePrimary();
}

ExprPtr Parser::parsePrimary() {
  auto node = std::make_unique<Expr>();
  node->loc = tok.loc();
  if (atLineBreak()) {
    errorExpected("an integer expression");
    return nullptr;
  }
  if (tok.is(TokenKind::Int)) {
    if (!tok.suffix.empty()) {
      diags.error(tok.loc(), "unexpected suffix '" + tok.suffix +
                                 "' on integer " +
                                 tok.text.drop_back(tok.suffix.size()) +
                                 "; integer expressions take plain numbers");
    }
    node->kind = Expr::Kind::Int;
    node->value = static_cast<int64_t>(tok.intValue);
    advance();
    return node;
  }
  if (tok.is(TokenKind::Ident)) {
    node->kind = Expr::Kind::Name;
    node->name = tok.text.str();
    advance();
    return node;
  }
  if (tok.is(TokenKind::LParen)) {
    NestingScope scope(nesting);
    advance();
    ExprPtr inner = parseExpr();
    if (!inner)
      return nullptr;
    if (!expect(TokenKind::RParen, "to close the parenthesized expression"))
      return nullptr;
    return inner;
  }
  errorExpected("an integer expression");
  return nullptr;
}

/// Whether \p line (the text after a line break) starts with a keyword that
/// begins a statement or a kernel item, or with '}'.
static bool startsStatement(llvm::StringRef line) {
  line = line.ltrim(" \t\r");
  if (line.starts_with("}"))
    return true;
  llvm::StringRef word =
      line.take_while([](char c) { return llvm::isAlnum(c) || c == '_'; });
  for (llvm::StringRef keyword :
       {"kernel", "layout", "print", "const", "arch", "acc", "tile", "stages",
        "smem", "mma", "epilogue", "schedule", "scale", "group"})
    if (word == keyword)
      return true;
  return false;
}

LayoutText Parser::parseLayoutText(llvm::StringRef context) {
  LayoutText out;
  if (atItemEnd() || atLineBreak()) {
    errorExpected("a layout expression", context);
    return out;
  }
  const char *start = tok.text.data();
  const char *end = lexer.getBuffer().end();
  const char *cur = start;
  int depth = 0;
  // Inside open brackets the expression continues over line breaks and
  // comments; both become spaces, one for one, so offsets into the text stay
  // offsets into the source.
  std::string text;
  while (cur < end) {
    char c = *cur;
    bool comment = c == '/' && cur + 1 < end && cur[1] == '/';
    if ((c == '\n' || comment || c == '}') && depth <= 0)
      break;
    // An unclosed bracket does not swallow the next statement: a line that
    // starts with a statement keyword or '}' ends the expression.
    if (c == '\n' && startsStatement(llvm::StringRef(cur + 1, end - cur - 1)))
      break;
    if (comment) {
      while (cur < end && *cur != '\n') {
        text += ' ';
        ++cur;
      }
      continue;
    }
    if (c == '(' || c == '[')
      ++depth;
    else if (c == ')' || c == ']')
      --depth;
    text += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
    ++cur;
  }
  while (!text.empty() && llvm::isSpace(text.back()))
    text.pop_back();
  out.text = std::move(text);
  out.loc = llvm::SMLoc::getFromPointer(start);
  lexer.resetTo(cur);
  advance();
  return out;
}

Program Parser::parseProgram() {
  Program program;
  while (!tok.is(TokenKind::Eof))
    parseTopLevel(program);
  return program;
}

void Parser::parseTopLevel(Program &program) {
  TopLevel stmt;
  stmt.loc = tok.loc();
  if (tok.isIdent("kernel")) {
    stmt.kind = StmtKind::Kernel;
    advance();
    parseKernel(stmt);
    program.statements.push_back(std::move(stmt));
    return;
  }
  if (tok.isIdent("const")) {
    stmt.kind = StmtKind::Const;
    advance();
    if (parseIdent(stmt.name, "a constant name", "after 'const'") &&
        expect(TokenKind::Equal, "after the constant's name")) {
      stmt.value = parseExpr();
      if (stmt.value) {
        expectLineEnd("the constant");
        program.statements.push_back(std::move(stmt));
        return;
      }
    }
    if (!atItemEnd())
      skipLine();
    return;
  }
  if (tok.isIdent("layout")) {
    stmt.kind = StmtKind::Layout;
    advance();
    if (parseIdent(stmt.name, "a layout name", "after 'layout'") &&
        expect(TokenKind::Equal, "after the layout's name")) {
      stmt.layout = parseLayoutText("after '='");
      if (!stmt.layout.text.empty()) {
        program.statements.push_back(std::move(stmt));
        return;
      }
    }
    if (!atItemEnd())
      skipLine();
    return;
  }
  if (tok.isIdent("print")) {
    stmt.kind = StmtKind::Print;
    advance();
    stmt.printDescriptor = tok.isIdent("descriptor");
    stmt.layout = parseLayoutText("after 'print'");
    if (!stmt.layout.text.empty())
      program.statements.push_back(std::move(stmt));
    return;
  }
  if (!tok.is(TokenKind::Error))
    diags.error(tok.loc(), "expected 'kernel', 'layout', 'print' or 'const' "
                           "at the top level, found " +
                               describeToken());
  skipLine();
  // A stray '}' at the start of a line would loop forever otherwise.
  while (tok.is(TokenKind::RBrace))
    advance();
}

void Parser::parseKernel(TopLevel &stmt) {
  KernelDecl &kernel = stmt.kernel;
  if (!parseIdent(kernel.name, "a kernel name", "after 'kernel'")) {
    kernel.name = {"<unnamed>", stmt.loc};
    if (tok.is(TokenKind::Error) && !atLineBreak())
      advance();
  }
  if (!tok.is(TokenKind::LBrace)) {
    errorExpected("'{'", "to open the kernel body");
    // Assume the body follows anyway when the next line starts an item.
    if (!atItemEnd())
      skipLine();
    if (!tok.is(TokenKind::LBrace))
      return;
  }
  llvm::SMLoc open = tok.loc();
  advance();
  while (!tok.is(TokenKind::RBrace)) {
    if (tok.is(TokenKind::Eof)) {
      diags.error(tok.loc(),
                  "kernel '" + kernel.name.name + "' is not closed; add '}'");
      diags.note(open, "the kernel body opens here");
      return;
    }
    if (tok.isIdent("kernel") && tok.atLineStart) {
      diags.error(tok.loc(), "kernel '" + kernel.name.name +
                                 "' is not closed before the next kernel; "
                                 "add '}'");
      diags.note(open, "the kernel body opens here");
      return;
    }
    const char *before = tok.text.data();
    if (!parseItem(kernel) && (!atItemEnd() || tok.text.data() == before))
      skipLine();
  }
  advance();
}

bool Parser::parseItem(KernelDecl &kernel) {
  KernelItem item;
  item.loc = tok.loc();
  if (!tok.is(TokenKind::Ident)) {
    if (!tok.is(TokenKind::Error))
      diags.error(tok.loc(),
                  "expected a kernel item (arch, a/b/c operand, "
                  "acc, scale, group, tile, stages, smem, mma, epilogue, "
                  "schedule), "
                  "found " +
                      describeToken());
    return false;
  }
  llvm::StringRef keyword = tok.text;
  std::string what = (llvm::Twine("'") + keyword + "'").str();
  advance();
  if (tok.is(TokenKind::Colon)) {
    item.kind = ItemKind::Operand;
    item.name = {keyword.str(), item.loc};
    advance();
    if (!parseOperand(item))
      return false;
    what = "operand '" + keyword.str() + "'";
  } else if (keyword == "arch") {
    item.kind = ItemKind::Arch;
    if (!parseIdent(item.name,
                    "a target name ("
                    "sm_80, sm_90a, sm_100a)",
                    "after 'arch'"))
      return false;
  } else if (keyword == "acc") {
    item.kind = ItemKind::Acc;
    if (!parseIdent(item.name, "an accumulator type", "after 'acc'"))
      return false;
  } else if (keyword == "tile") {
    item.kind = ItemKind::Tile;
    if (!parseTile(item))
      return false;
  } else if (keyword == "stages") {
    item.kind = ItemKind::Stages;
    item.value = parseExpr();
    if (!item.value)
      return false;
  } else if (keyword == "smem") {
    item.kind = ItemKind::Smem;
    if (!parseIdent(item.name, "an operand name (a or b)", "after 'smem'") ||
        !expect(TokenKind::Equal, "after the operand name"))
      return false;
    item.layout = parseLayoutText("or 'auto' after '='");
    if (item.layout.text.empty())
      return false;
    kernel.items.push_back(std::move(item));
    return true;
  } else if (keyword == "mma") {
    item.kind = ItemKind::Mma;
    if (!parseIdent(item.name, "an instruction name or 'auto'", "after 'mma'"))
      return false;
    if (tok.isIdent("warpgroups") && !atLineBreak()) {
      advance();
      if (!expect(TokenKind::LParen, "after 'warpgroups'"))
        return false;
      NestingScope scope(nesting);
      item.value = parseExpr();
      if (!item.value ||
          !expect(TokenKind::RParen, "after the warpgroup count"))
        return false;
    }
  } else if (keyword == "epilogue") {
    item.kind = ItemKind::Epilogue;
    if (!parseEpilogue(item))
      return false;
  } else if (keyword == "scale") {
    item.kind = ItemKind::Scale;
    if (!parseScale(item))
      return false;
  } else if (keyword == "group") {
    // `group contiguous` or `group masked`: sema checks the word.
    item.kind = ItemKind::Group;
    if (!parseIdent(item.name, "'contiguous' or 'masked'", "after 'group'"))
      return false;
  } else if (keyword == "schedule") {
    // `schedule auto` or `schedule swap_ab split_k(4)`: sema reads the words.
    item.kind = ItemKind::Schedule;
    EpilogueStep words;
    words.name = {"schedule", item.loc};
    if (!tok.is(TokenKind::Ident) || atItemEnd()) {
      errorExpected("'auto' or schedule options (swap_ab, split_k(N), "
                    "persistent, cluster(2), cluster_n(2))",
                    "after 'schedule'");
      return false;
    }
    if (!parseOptionList(words.options, "schedule option"))
      return false;
    item.steps.push_back(std::move(words));
  } else {
    diags.error(item.loc,
                "unknown kernel item '" + keyword +
                    "'; expected arch, an operand ('a : bf16[M, K] major(K)'),"
                    " acc, scale, group, tile, stages, smem, mma, epilogue "
                    "or schedule");
    return false;
  }
  expectLineEnd(what);
  kernel.items.push_back(std::move(item));
  return true;
}

bool Parser::parseOperand(KernelItem &item) {
  if (!parseIdent(item.dtype, "an element type", "after ':'"))
    return false;
  if (!expect(TokenKind::LSquare, "to start the operand's shape"))
    return false;
  {
    NestingScope scope(nesting);
    do {
      ExprPtr dim = parseExpr();
      if (!dim)
        return false;
      item.dims.push_back(std::move(dim));
    } while (consumeIf(TokenKind::Comma));
    if (!expect(TokenKind::RSquare, "to close the operand's shape"))
      return false;
  }
  if (!tok.isIdent("major") || atLineBreak()) {
    errorExpected("'major(...)'", "after the operand's shape");
    return false;
  }
  advance();
  if (!expect(TokenKind::LParen, "after 'major'"))
    return false;
  NestingScope scope(nesting);
  return parseIdent(item.major, "the contiguous extent (e.g. K)",
                    "in 'major(...)'") &&
         expect(TokenKind::RParen, "to close 'major(...)'");
}

bool Parser::parseTile(KernelItem &item) {
  if (!expect(TokenKind::LParen, "after 'tile'"))
    return false;
  NestingScope scope(nesting);
  do {
    Ident name;
    if (!parseIdent(name, "a tile size name (BM, BN or BK)", "in 'tile'") ||
        !expect(TokenKind::Equal, "after the tile size name"))
      return false;
    ExprPtr value = parseExpr();
    if (!value)
      return false;
    item.tileSizes.emplace_back(std::move(name), std::move(value));
  } while (consumeIf(TokenKind::Comma));
  return expect(TokenKind::RParen, "to close 'tile(...)'");
}

bool Parser::parseEpilogue(KernelItem &item) {
  // The element-wise ops first (`bias(col) gelu_tanh`), then, after `->` or
  // directly, the store steps (`stmatrix swizzle(128B) -> tma_store`).
  auto isOp = [](const Ident &word) {
    return findEpilogueOp(llvm::StringRef(word.name).take_until(
               [](char c) { return c == '('; })) != nullptr;
  };
  if (!tok.is(TokenKind::Ident) || atItemEnd()) {
    errorExpected("an epilogue op (" + listEpilogueOps() +
                      ") or step (store, stmatrix, tma_store)",
                  "after 'epilogue'");
    return false;
  }
  std::vector<Ident> words;
  if (!parseOptionList(words, "epilogue op"))
    return false;
  size_t first = 0;
  while (first < words.size() && isOp(words[first]))
    item.epilogueOps.push_back(words[first++]);
  if (first < words.size()) {
    EpilogueStep step;
    step.name = words[first];
    for (size_t i = first + 1; i < words.size(); ++i) {
      if (isOp(words[i])) {
        diags.error(words[i].loc,
                    "epilogue op '" + words[i].name +
                        "' comes after the store step '" + step.name.name +
                        "'; write the ops first, e.g. 'epilogue " +
                        words[i].name + " -> " + step.name.name + "'");
        return false;
      }
      step.options.push_back(words[i]);
    }
    item.steps.push_back(std::move(step));
  }
  if (!consumeIf(TokenKind::Arrow))
    return true;
  do {
    EpilogueStep step;
    if (!parseIdent(step.name, "an epilogue step (store, stmatrix, tma_store)",
                    item.steps.empty() ? "after 'epilogue'" : "after '->'"))
      return false;
    if (!parseOptionList(step.options, "epilogue option"))
      return false;
    item.steps.push_back(std::move(step));
  } while (consumeIf(TokenKind::Arrow));
  return true;
}

bool Parser::parseScale(KernelItem &item) {
  // `scale a f32 block(1, 128) [major(M)]`: the operand, the scale type, the
  // block of operand elements (MN extent, K extent) one scale covers; or
  // `scale b bf16 group(128) [zero(u8)]`: a 4-bit weight's scale per group
  // of K and output channel, and its zero points.
  if (!parseIdent(item.name, "an operand name (a or b)", "after 'scale'") ||
      !parseIdent(item.dtype, "the scale type (f32, bf16, f16)",
                  "after the operand"))
    return false;
  if ((!tok.isIdent("block") && !tok.isIdent("group")) || atLineBreak()) {
    errorExpected("'block(MN, K)' or 'group(K)'", "after the scale type");
    return false;
  }
  item.scaleForm = Ident{tok.text.str(), tok.loc()};
  bool group = item.scaleForm.name == "group";
  advance();
  if (!expect(TokenKind::LParen, group ? "after 'group'" : "after 'block'"))
    return false;
  {
    NestingScope scope(nesting);
    do {
      ExprPtr extent = parseExpr();
      if (!extent)
        return false;
      item.dims.push_back(std::move(extent));
    } while (consumeIf(TokenKind::Comma));
    if (!expect(TokenKind::RParen,
                group ? "to close 'group(...)'" : "to close 'block(...)'"))
      return false;
  }
  // `zero(u8)` after a group; `major(M)`, the scales' contiguous extent,
  // after a block (verify checks both).
  const char *option = group ? "zero" : "major";
  if (!tok.isIdent(option) || atLineBreak())
    return true;
  advance();
  Ident &target = group ? item.zero : item.major;
  return expect(TokenKind::LParen, group ? "after 'zero'" : "after 'major'") &&
         parseIdent(target,
                    group ? "the zero points' type (u8)"
                          : "the contiguous extent (K or M)",
                    group ? "in 'zero(...)'" : "in 'major(...)'") &&
         expect(TokenKind::RParen,
                group ? "to close 'zero(...)'" : "to close 'major(...)'");
}

bool Parser::parseOptionList(std::vector<Ident> &options,
                             llvm::StringRef what) {
  // Options: `name` or `name(raw tokens)`.
  while (tok.is(TokenKind::Ident) && !atItemEnd()) {
    const char *start = tok.text.data();
    llvm::SMLoc loc = tok.loc();
    const char *stop = tok.text.end();
    advance();
    if (tok.is(TokenKind::LParen) && !tok.atLineStart) {
      while (!tok.is(TokenKind::RParen) && !atItemEnd())
        advance();
      if (!tok.is(TokenKind::RParen)) {
        errorExpected("')'", ("to close the " + what).str());
        return false;
      }
      stop = tok.text.end();
      advance();
    }
    options.push_back({std::string(start, stop), loc});
  }
  return true;
}

} // namespace

Program parseProgram(unsigned bufferId, DiagnosticEngine &diags) {
  const llvm::MemoryBuffer *buffer =
      diags.getSourceMgr().getMemoryBuffer(bufferId);
  Parser parser(buffer->getBuffer(), diags);
  return parser.parseProgram();
}

} // namespace tilec
