//===- compiler/Lexer.cpp - Tokens of .tile programs and Tile IR ----------===//
//
// A hand-written scanner over one buffer. Errors are reported once, here, and
// come back as Error tokens so the parser can skip them quietly.
//
//===----------------------------------------------------------------------===//
#include "compiler/Lexer.h"

#include "llvm/ADT/StringExtras.h"

namespace tilec {

std::string describeTokenKind(TokenKind kind) {
  switch (kind) {
  case TokenKind::Eof:
    return "end of file";
  case TokenKind::Error:
    return "invalid token";
  case TokenKind::Ident:
    return "identifier";
  case TokenKind::Int:
    return "integer";
  case TokenKind::String:
    return "string";
  case TokenKind::At:
    return "'@'";
  case TokenKind::LBrace:
    return "'{'";
  case TokenKind::RBrace:
    return "'}'";
  case TokenKind::LParen:
    return "'('";
  case TokenKind::RParen:
    return "')'";
  case TokenKind::LSquare:
    return "'['";
  case TokenKind::RSquare:
    return "']'";
  case TokenKind::Comma:
    return "','";
  case TokenKind::Colon:
    return "':'";
  case TokenKind::Equal:
    return "'='";
  case TokenKind::Plus:
    return "'+'";
  case TokenKind::Minus:
    return "'-'";
  case TokenKind::Star:
    return "'*'";
  case TokenKind::Slash:
    return "'/'";
  case TokenKind::Percent:
    return "'%'";
  case TokenKind::Less:
    return "'<'";
  case TokenKind::Greater:
    return "'>'";
  case TokenKind::Arrow:
    return "'->'";
  }
  return "token";
}

void Lexer::skipSpaceAndComments() {
  const char *end = buffer.end();
  while (cur < end) {
    char c = *cur;
    if (c == '\n') {
      sawNewline = true;
      ++cur;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++cur;
    } else if (c == '/' && cur + 1 < end && cur[1] == '/') {
      while (cur < end && *cur != '\n')
        ++cur;
    } else {
      return;
    }
  }
}

Token Lexer::make(TokenKind kind, const char *start) {
  Token tok;
  tok.kind = kind;
  tok.text = llvm::StringRef(start, cur - start);
  tok.atLineStart = sawNewline;
  sawNewline = false;
  return tok;
}

static bool isIdentStart(char c) { return llvm::isAlpha(c) || c == '_'; }
static bool isIdentBody(char c) { return llvm::isAlnum(c) || c == '_'; }

Token Lexer::next() {
  skipSpaceAndComments();
  const char *end = buffer.end();
  const char *start = cur;
  if (cur >= end)
    return make(TokenKind::Eof, start);
  char c = *cur++;
  if (isIdentStart(c)) {
    // Dotted names: a dot continues the identifier only when a letter,
    // digit or underscore follows it.
    while (cur < end) {
      if (isIdentBody(*cur))
        ++cur;
      else if (*cur == '.' && cur + 1 < end && isIdentBody(cur[1]))
        ++cur;
      else if (*cur == ':' && cur + 2 < end && cur[1] == ':' &&
               isIdentBody(cur[2]))
        cur += 2; // `kind::f16` in tcgen05 names.
      else
        break;
    }
    return make(TokenKind::Ident, start);
  }
  if (llvm::isDigit(c)) {
    while (cur < end && llvm::isDigit(*cur))
      ++cur;
    const char *digitsEnd = cur;
    // A fraction (`0.75` in `clamp(-0.5, 0.75)`) rides in the suffix: where
    // an integer is expected the suffix is an error, and option lists
    // keep the raw text.
    if (cur + 1 < end && *cur == '.' && llvm::isDigit(cur[1]))
      ++cur;
    while (cur < end && isIdentBody(*cur))
      ++cur;
    Token tok = make(TokenKind::Int, start);
    llvm::StringRef digits(start, digitsEnd - start);
    tok.suffix = llvm::StringRef(digitsEnd, cur - digitsEnd);
    uint64_t value = 0;
    for (char d : digits) {
      if (value > (uint64_t(INT64_MAX) - (d - '0')) / 10) {
        tok.overflow = true;
        value = uint64_t(INT64_MAX);
        break;
      }
      value = value * 10 + (d - '0');
    }
    tok.intValue = value;
    if (tok.overflow)
      diags.error(tok.loc(), "integer " + digits +
                                 " does not fit in 63 bits; the largest is " +
                                 llvm::Twine(INT64_MAX));
    return tok;
  }
  switch (c) {
  case '"': {
    while (cur < end && *cur != '"' && *cur != '\n') {
      if (*cur == '\\' && cur + 1 < end && cur[1] != '\n')
        ++cur;
      ++cur;
    }
    if (cur >= end || *cur != '"') {
      diags.error(llvm::SMLoc::getFromPointer(start),
                  "string is not closed on its line; add '\"'");
      return make(TokenKind::Error, start);
    }
    ++cur;
    return make(TokenKind::String, start);
  }
  case '@':
    return make(TokenKind::At, start);
  case '{':
    return make(TokenKind::LBrace, start);
  case '}':
    return make(TokenKind::RBrace, start);
  case '(':
    return make(TokenKind::LParen, start);
  case ')':
    return make(TokenKind::RParen, start);
  case '[':
    return make(TokenKind::LSquare, start);
  case ']':
    return make(TokenKind::RSquare, start);
  case ',':
    return make(TokenKind::Comma, start);
  case ':':
    return make(TokenKind::Colon, start);
  case '=':
    return make(TokenKind::Equal, start);
  case '+':
    return make(TokenKind::Plus, start);
  case '-':
    if (cur < end && *cur == '>') {
      ++cur;
      return make(TokenKind::Arrow, start);
    }
    return make(TokenKind::Minus, start);
  case '*':
    return make(TokenKind::Star, start);
  case '/':
    return make(TokenKind::Slash, start);
  case '%':
    return make(TokenKind::Percent, start);
  case '<':
    return make(TokenKind::Less, start);
  case '>':
    return make(TokenKind::Greater, start);
  default:
    break;
  }
  // Skip the rest of a multi-byte UTF-8 sequence so the caret lands once.
  while (cur < end && (static_cast<unsigned char>(*cur) & 0xC0) == 0x80)
    ++cur;
  std::string shown;
  if (llvm::isPrint(c))
    shown = std::string("'") + c + "'";
  else
    shown = "byte 0x" + llvm::utohexstr(static_cast<unsigned char>(c));
  diags.error(llvm::SMLoc::getFromPointer(start),
              "unexpected character " + shown + " in program text");
  return make(TokenKind::Error, start);
}

} // namespace tilec
