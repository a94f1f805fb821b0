//===- compiler/Lexer.h - Tokens of .tile programs and Tile IR ---*- C++
//-*-===//
//
// One lexer serves both texts tilec reads: .tile programs and the textual
// Tile IR. Identifiers may contain dots between their parts
// (`wgmma.m64n256k16`, `tile.kernel`), so instruction and op names are one
// token. A number may carry a letter suffix (`128B`); only the places that
// accept one (epilogue options) look at it. `//` starts a comment to the end
// of the line. Statements end at a line break, so each token records whether
// it is the first on its line.
//
// Example: `tile (BM = 128)` lexes as Ident `tile`, LParen, Ident `BM`,
// Equal, Int 128, RParen.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_LEXER_H
#define TILEC_COMPILER_LEXER_H

#include "compiler/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>

namespace tilec {

/// The kinds of tokens.
enum class TokenKind {
  Eof,
  Error, ///< Already diagnosed; the parser skips it.
  Ident,
  Int,
  String,
  At,      ///< `@`
  LBrace,  ///< `{`
  RBrace,  ///< `}`
  LParen,  ///< `(`
  RParen,  ///< `)`
  LSquare, ///< `[`
  RSquare, ///< `]`
  Comma,   ///< `,`
  Colon,   ///< `:`
  Equal,   ///< `=`
  Plus,    ///< `+`
  Minus,   ///< `-`
  Star,    ///< `*`
  Slash,   ///< `/`
  Percent, ///< `%`
  Less,    ///< `<`
  Greater, ///< `>`
  Arrow,   ///< `->`
};

/// A token: its kind, its text in the source buffer and, for numbers, the
/// value.
struct Token {
  TokenKind kind = TokenKind::Eof;
  llvm::StringRef text;
  bool atLineStart = false; ///< First token on its line.
  uint64_t intValue = 0;    ///< For Int (saturates; see overflow).
  bool overflow = false;    ///< For Int: the digits do not fit 63 bits.
  llvm::StringRef suffix;   ///< For Int: letters after the digits (`B`).

  llvm::SMLoc loc() const { return llvm::SMLoc::getFromPointer(text.data()); }
  bool is(TokenKind k) const { return kind == k; }
  bool isIdent(llvm::StringRef name) const {
    return kind == TokenKind::Ident && text == name;
  }
};

/// A short name for diagnostics: "'{'", "identifier", "end of file".
std::string describeTokenKind(TokenKind kind);

/// Splits one buffer into tokens, reporting bad characters and unterminated
/// strings.
class Lexer {
public:
  Lexer(llvm::StringRef buffer, DiagnosticEngine &diags)
      : buffer(buffer), cur(buffer.begin()), diags(diags) {}

  /// Lexes and returns the next token.
  Token next();
  /// The position the next token will be lexed from.
  const char *position() const { return cur; }
  /// Continues lexing from \p pos (inside the same buffer), e.g. after the
  /// parser took raw text up to a line break.
  void resetTo(const char *pos) { cur = pos; }
  llvm::StringRef getBuffer() const { return buffer; }

private:
  Token make(TokenKind kind, const char *start);
  void skipSpaceAndComments();

  llvm::StringRef buffer;
  const char *cur;
  DiagnosticEngine &diags;
  bool sawNewline = true;
};

} // namespace tilec

#endif // TILEC_COMPILER_LEXER_H
