//===- tests/unit/FrontendLexerTest.cpp - The .tile lexer -----------------===//
#include "compiler/Lexer.h"

#include "FrontendTestSupport.h"

#include <gtest/gtest.h>

#include <vector>

using namespace tilec;

namespace {

std::vector<Token> lexAll(test::Harness &h) {
  Lexer lexer(h.sourceMgr.getMemoryBuffer(h.bufferId)->getBuffer(), h.diags);
  std::vector<Token> tokens;
  for (Token tok = lexer.next();; tok = lexer.next()) {
    tokens.push_back(tok);
    if (tok.is(TokenKind::Eof))
      break;
  }
  return tokens;
}

TEST(FrontendLexerTest, HeaderExample) {
  // Example from Lexer.h: `tile (BM = 128)`.
  test::Harness h("tile (BM = 128)");
  std::vector<Token> t = lexAll(h);
  ASSERT_EQ(t.size(), 7u);
  EXPECT_TRUE(t[0].isIdent("tile"));
  EXPECT_TRUE(t[1].is(TokenKind::LParen));
  EXPECT_TRUE(t[2].isIdent("BM"));
  EXPECT_TRUE(t[3].is(TokenKind::Equal));
  EXPECT_TRUE(t[4].is(TokenKind::Int));
  EXPECT_EQ(t[4].intValue, 128u);
  EXPECT_TRUE(t[5].is(TokenKind::RParen));
  EXPECT_TRUE(t[6].is(TokenKind::Eof));
  EXPECT_FALSE(h.diags.hasErrors());
}

TEST(FrontendLexerTest, DottedNamesAreOneToken) {
  test::Harness h("wgmma.m64n256k16 tcgen05.mma.cta_group::1.kind::f16 a. b");
  std::vector<Token> t = lexAll(h);
  // Two dotted names, `a`, the error for the dot, `b`, and Eof.
  ASSERT_EQ(t.size(), 6u);
  EXPECT_TRUE(t[0].isIdent("wgmma.m64n256k16"));
  EXPECT_TRUE(t[1].isIdent("tcgen05.mma.cta_group::1.kind::f16"));
  // A dot not followed by a name character ends the identifier and is not
  // a token of its own.
  EXPECT_TRUE(t[2].isIdent("a"));
  EXPECT_TRUE(t[3].is(TokenKind::Error));
  EXPECT_TRUE(t[4].isIdent("b"));
  EXPECT_EQ(h.diags.errorCount(), 1u);
}

TEST(FrontendLexerTest, NumbersSuffixesAndOverflow) {
  test::Harness h("128B 9223372036854775807 9223372036854775808");
  std::vector<Token> t = lexAll(h);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].intValue, 128u);
  EXPECT_EQ(t[0].suffix, "B");
  EXPECT_EQ(t[1].intValue, 9223372036854775807ull);
  EXPECT_FALSE(t[1].overflow);
  EXPECT_TRUE(t[2].overflow);
  EXPECT_EQ(h.diags.errorCount(), 1u);
  EXPECT_NE(h.messages().find("does not fit in 63 bits"), std::string::npos);
}

TEST(FrontendLexerTest, CommentsLinesAndArrows) {
  test::Harness h("a -> b // c d\n- >\n  e");
  std::vector<Token> t = lexAll(h);
  ASSERT_EQ(t.size(), 7u);
  EXPECT_TRUE(t[0].atLineStart);
  EXPECT_TRUE(t[1].is(TokenKind::Arrow));
  EXPECT_FALSE(t[2].atLineStart);
  EXPECT_TRUE(t[3].is(TokenKind::Minus));
  EXPECT_TRUE(t[3].atLineStart);
  EXPECT_TRUE(t[4].is(TokenKind::Greater));
  EXPECT_TRUE(t[5].isIdent("e"));
  EXPECT_TRUE(t[5].atLineStart);
}

TEST(FrontendLexerTest, BadInputIsReportedOnce) {
  test::Harness h("\"open\n$ \xc3\xa9 x");
  std::vector<Token> t = lexAll(h);
  // Unterminated string, '$', and one error for the two-byte UTF-8 letter.
  EXPECT_EQ(h.diags.errorCount(), 3u);
  ASSERT_GE(t.size(), 2u);
  EXPECT_TRUE(t.back().is(TokenKind::Eof));
  EXPECT_TRUE(t[t.size() - 2].isIdent("x"));
  EXPECT_NE(h.messages().find("string is not closed on its line"),
            std::string::npos);
  EXPECT_NE(h.messages().find("unexpected character '$'"), std::string::npos);
  EXPECT_NE(h.messages().find("byte 0xC3"), std::string::npos);
}

} // namespace
