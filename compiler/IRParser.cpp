//===- compiler/IRParser.cpp - Reading the textual Tile IR ----------------===//
//
// Grammar (the printer's output):
//   op    := NAME ('@' IDENT)? ('{' attrs '}')? ('{' op* '}')?
//   attrs := (IDENT '=' value (',' IDENT '=' value)*)?
//   value := INT | '-' INT | IDENT | STRING | '[' (value (',' value)*)? ']'
// Whether an op has a region, and so whether a '{' opens its attributes or
// its region, comes from the op table (ir/tile/TileIR.h).
//
//===----------------------------------------------------------------------===//
#include "compiler/IRParser.h"

#include "compiler/Lexer.h"

#include "llvm/ADT/StringExtras.h"

namespace tilec {

namespace {

class IRParser {
public:
  IRParser(llvm::StringRef buffer, DiagnosticEngine &diags)
      : lexer(buffer, diags), diags(diags) {
    advance();
  }

  std::optional<tir::Op> parseModule();

private:
  void advance() { tok = lexer.next(); }
  bool fail(const llvm::Twine &message) {
    if (!tok.is(TokenKind::Error))
      diags.error(tok.loc(), message);
    return false;
  }
  bool expect(TokenKind kind, llvm::StringRef context) {
    if (tok.is(kind)) {
      advance();
      return true;
    }
    return fail("expected " + describeTokenKind(kind) + " " + context +
                ", found " +
                (tok.is(TokenKind::Ident) ? "'" + tok.text.str() + "'"
                                          : describeTokenKind(tok.kind)));
  }
  bool parseOp(tir::Op &op, unsigned depth);
  bool parseAttrs(tir::Op &op);
  bool parseValue(tir::Attr &attr, unsigned depth);
  bool unescape(llvm::StringRef quoted, std::string &out);

  Lexer lexer;
  DiagnosticEngine &diags;
  Token tok;
};

std::optional<tir::Op> IRParser::parseModule() {
  tir::Op module;
  if (!tok.isIdent("tile.module")) {
    fail("expected 'tile.module' at the start of Tile IR");
    return std::nullopt;
  }
  if (!parseOp(module, 0))
    return std::nullopt;
  if (!tok.is(TokenKind::Eof)) {
    fail("expected end of file after the module");
    return std::nullopt;
  }
  return module;
}

bool IRParser::parseOp(tir::Op &op, unsigned depth) {
  if (depth > 8)
    return fail("ops nest deeper than the Tile IR allows");
  if (!tok.is(TokenKind::Ident))
    return fail("expected an op name");
  op.name = tok.text.str();
  op.loc = tok.loc();
  const tir::OpSchema *schema = tir::findOpSchema(op.name);
  if (!schema)
    return fail("unknown op '" + op.name + "'");
  advance();
  if (tok.is(TokenKind::At)) {
    advance();
    if (!tok.is(TokenKind::Ident))
      return fail("expected a symbol name after '@'");
    op.symbol = tok.text.str();
    advance();
  }
  bool wantAttrs = !schema->hasRegion || !schema->attrs.empty();
  if (wantAttrs && tok.is(TokenKind::LBrace)) {
    advance();
    if (!parseAttrs(op))
      return false;
    // tile.epilogue's ops are typed values, printed as their spelling.
    if (tir::Attr *ops = op.name == "tile.epilogue" ? op.get("ops") : nullptr;
        ops && ops->isList())
      for (tir::Attr &text : ops->list)
        if (text.isString())
          text = tir::Attr::epilogueOpOrText(text.str, text.loc);
  } else if (schema->hasRegion && wantAttrs) {
    return fail("expected '{' to open the attributes of '" + op.name + "'");
  }
  if (!schema->hasRegion)
    return true;
  if (!expect(TokenKind::LBrace, "to open the region of '" + op.name + "'"))
    return false;
  while (!tok.is(TokenKind::RBrace)) {
    if (tok.is(TokenKind::Eof))
      return fail("region of '" + op.name + "' is not closed; add '}'");
    tir::Op child;
    if (!parseOp(child, depth + 1))
      return false;
    op.body.push_back(std::move(child));
  }
  advance();
  return true;
}

bool IRParser::parseAttrs(tir::Op &op) {
  if (tok.is(TokenKind::RBrace)) {
    advance();
    return true;
  }
  while (true) {
    if (!tok.is(TokenKind::Ident))
      return fail("expected an attribute name");
    std::string name = tok.text.str();
    if (op.get(name))
      return fail("attribute '" + name + "' appears twice");
    advance();
    if (!expect(TokenKind::Equal, "after the attribute name"))
      return false;
    tir::Attr value;
    if (!parseValue(value, 0))
      return false;
    op.attrs.push_back({name, std::move(value)});
    if (tok.is(TokenKind::Comma)) {
      advance();
      continue;
    }
    return expect(TokenKind::RBrace, "to close the attributes");
  }
}

bool IRParser::parseValue(tir::Attr &attr, unsigned depth) {
  if (depth > 8)
    return fail("attribute lists nest deeper than the Tile IR allows");
  attr.loc = tok.loc();
  bool negative = false;
  if (tok.is(TokenKind::Minus)) {
    negative = true;
    advance();
    if (!tok.is(TokenKind::Int))
      return fail("expected an integer after '-'");
  }
  switch (tok.kind) {
  case TokenKind::Int:
    if (!tok.suffix.empty())
      return fail("unexpected suffix '" + tok.suffix + "' on an integer");
    attr.kind = tir::Attr::Kind::Int;
    attr.intValue = negative ? -static_cast<int64_t>(tok.intValue)
                             : static_cast<int64_t>(tok.intValue);
    advance();
    return true;
  case TokenKind::Ident:
    attr.kind = tir::Attr::Kind::Ident;
    attr.str = tok.text.str();
    advance();
    return true;
  case TokenKind::String:
    attr.kind = tir::Attr::Kind::String;
    if (!unescape(tok.text, attr.str))
      return false;
    advance();
    return true;
  case TokenKind::LSquare:
    attr.kind = tir::Attr::Kind::List;
    advance();
    if (tok.is(TokenKind::RSquare)) {
      advance();
      return true;
    }
    while (true) {
      tir::Attr element;
      if (!parseValue(element, depth + 1))
        return false;
      attr.list.push_back(std::move(element));
      if (tok.is(TokenKind::Comma)) {
        advance();
        continue;
      }
      return expect(TokenKind::RSquare, "to close the list");
    }
  default:
    return fail("expected an attribute value (integer, identifier, string "
                "or list)");
  }
}

bool IRParser::unescape(llvm::StringRef quoted, std::string &out) {
  llvm::StringRef body = quoted.drop_front().drop_back();
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (i + 1 >= body.size())
      return fail("string ends in a lone '\\'");
    char e = body[++i];
    if (e == 'n')
      out += '\n';
    else if (e == 't')
      out += '\t';
    else if (e == '"' || e == '\\')
      out += e;
    else if (e == 'x' && i + 2 < body.size() && llvm::isHexDigit(body[i + 1]) &&
             llvm::isHexDigit(body[i + 2])) {
      out += static_cast<char>(llvm::hexDigitValue(body[i + 1]) * 16 +
                               llvm::hexDigitValue(body[i + 2]));
      i += 2;
    } else {
      return fail(llvm::Twine("unknown escape '\\") + llvm::Twine(e) +
                  "' in a string; legal: \\n \\t \\\" \\\\ \\xHH");
    }
  }
  return true;
}

} // namespace

bool looksLikeTileIR(llvm::StringRef text) {
  llvm::SourceMgr sourceMgr;
  std::string sink;
  llvm::raw_string_ostream os(sink);
  DiagnosticEngine diags(sourceMgr, os);
  diags.setCapture(true);
  Lexer lexer(text, diags);
  return lexer.next().isIdent("tile.module");
}

std::optional<tir::Op> parseTileIR(unsigned bufferId, DiagnosticEngine &diags) {
  const llvm::MemoryBuffer *buffer =
      diags.getSourceMgr().getMemoryBuffer(bufferId);
  IRParser parser(buffer->getBuffer(), diags);
  return parser.parseModule();
}

} // namespace tilec
