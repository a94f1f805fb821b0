// Layout values: construction, evaluation, coalesce, printing and parsing.
#include "LayoutTestSupport.h"

#include "ir/layout/Layout.h"
#include "ir/layout/LayoutRender.h"

using namespace tilec;
using namespace tilec::test;

TEST(IntTupleTest, HeaderExample) {
  IntTuple t({IntTuple({4, 8}), IntTuple({2, 2})});
  EXPECT_EQ(t.str(), "((4,8),(2,2))");
  EXPECT_EQ(t.rank(), 2u);
  EXPECT_EQ(t.depth(), 2);
  EXPECT_EQ(t.product(), 128);
}

TEST(IntTupleTest, CompactStrides) {
  // Examples from ir/layout/IntTuple.h.
  EXPECT_EQ(compactColMajor(IntTuple({4, IntTuple({2, 3})})).str(),
            "(1,(4,8))");
  EXPECT_EQ(compactRowMajor(IntTuple({4, IntTuple({2, 3})})).str(),
            "(6,(3,1))");
  // CuTe gives size-1 modes the stride 0.
  EXPECT_EQ(makeLayoutLeft(IntTuple({1, 4})).str(), "(1,4):(0,1)");
  EXPECT_EQ(makeLayoutRight(IntTuple({4, 8})).str(), "(4,8):(8,1)");
  EXPECT_EQ(makeLayoutLeft(IntTuple({4, 8})).str(), "(4,8):(1,4)");
  EXPECT_EQ(makeOrderedLayout(IntTuple({4, 8}), IntTuple({1, 0})).str(),
            "(4,8):(8,1)");
  EXPECT_EQ(makeOrderedLayout(IntTuple({2, 3, 4}), IntTuple({2, 0, 1})).str(),
            "(2,3,4):(12,1,3)");
}

TEST(LayoutTest, Seed000TVLayoutEvaluation) {
  // Example table in ir/layout/Layout.h and docs/layout-facts.md: TV((t0,t1),(v0,v1)) =
  // 32 t0 + t1 + 16 v0 + 8 v1.
  Layout tv = lay("((4,8),(2,2)):((32,1),(16,8))");
  EXPECT_EQ(tv(0), 0);
  EXPECT_EQ(tv(1), 32);
  EXPECT_EQ(tv(4), 1);
  EXPECT_EQ(tv(32), 16);
  for (int64_t t0 = 0; t0 < 4; ++t0)
    for (int64_t t1 = 0; t1 < 8; ++t1)
      for (int64_t v0 = 0; v0 < 2; ++v0)
        for (int64_t v1 = 0; v1 < 2; ++v1) {
          IntTuple c({IntTuple({t0, t1}), IntTuple({v0, v1})});
          EXPECT_EQ(tv(c), 32 * t0 + t1 + 16 * v0 + 8 * v1);
          // Coordinates may also be integers spread over a mode.
          IntTuple c2({t0 + 4 * t1, v0 + 2 * v1});
          EXPECT_EQ(tv(c2), 32 * t0 + t1 + 16 * v0 + 8 * v1);
        }
  EXPECT_EQ(tv.size(), 128);
  EXPECT_EQ(tv.cosize(), 128);
  EXPECT_EQ(tv.rank(), 2u);
  EXPECT_EQ(tv.depth(), 2);
}

TEST(LayoutTest, EvaluationMatchesReference) {
  std::mt19937 rng(1234);
  for (int n = 0; n < 500; ++n) {
    Layout l = randomLayout(rng, false, 40);
    for (int64_t i = 0; i < l.size(); ++i)
      ASSERT_EQ(l(i), refEval(l, i)) << l.str() << " at " << i;
  }
}

TEST(LayoutTest, Coalesce) {
  // Example in ir/layout/Layout.h.
  EXPECT_EQ(coalesce(lay("(2,(1,6)):(1,(6,2))")).str(), "12:1");
  EXPECT_EQ(coalesce(lay("(4,1):(1,0)")).str(), "4:1");
  EXPECT_EQ(coalesce(lay("(1,1):(3,5)")).str(), "1:0");
  EXPECT_EQ(coalesce(lay("(2,4):(1,3)")).str(), "(2,4):(1,3)");
  EXPECT_EQ(coalesce(lay("((8,16),(64,2)):((64,512),(1,8192))")).str(),
            "(128,64,2):(64,1,8192)");
  // By mode (ir/layout/Layout.h example and a coalesced K-major sA).
  llvm::Expected<Layout> byMode =
      coalesce(lay("((8,16),(64,1)):((64,512),(1,0))"), IntTuple({1, 1}));
  ASSERT_TRUE(bool(byMode));
  EXPECT_EQ(byMode->str(), "(128,64):(64,1)");
  llvm::Expected<Layout> tooMany = coalesce(lay("8:1"), IntTuple({1, 1}));
  EXPECT_FALSE(bool(tooMany));
  llvm::consumeError(tooMany.takeError());
}

TEST(LayoutTest, CoalescePreservesFunction) {
  std::mt19937 rng(99);
  for (int n = 0; n < 1000; ++n) {
    Layout l = randomLayout(rng, rng() % 2, 64);
    Layout c = coalesce(l);
    ASSERT_EQ(c.size(), l.size());
    ASSERT_LE(c.depth(), 1);
    for (int64_t i = 0; i < l.size(); ++i)
      ASSERT_EQ(c(i), refEval(l, i)) << l.str() << " -> " << c.str();
    Layout x = coalesceX(l);
    for (int64_t i = 0; i < 2 * l.size(); ++i)
      ASSERT_EQ(x(i), refEval(l, i)) << l.str() << " -> " << x.str();
  }
}

TEST(LayoutTest, PrintParseRoundTrip) {
  std::mt19937 rng(7);
  for (int n = 0; n < 500; ++n) {
    Layout l = randomLayout(rng, false, 100);
    std::string s = l.str();
    EXPECT_EQ(lay(s), l) << s;
    EXPECT_EQ(lay(s).str(), s);
  }
  for (const char *s : {"((4,8),(2,2)):((32,1),(16,8))", "(8):(1)",
                        "((8)):((1))", "8:-1", "(8,2,2,4):(4,64,32,1)",
                        "((64,16),(2,(4,2))):((64,1),(4096,(16,8192)))"})
    EXPECT_EQ(evalStr(s), s);
  for (const char *s :
       {"Sw<3,4,3> o (8,64):(64,1)",
        "Sw<2,3,3> o 32 o ((32,4),(8,16)):((1,4096),(32,256))", "Sw<3,4,3>"})
    EXPECT_EQ(evalStr(s), s);
  llvm::Expected<ComposedLayout> c =
      parseComposedLayout("Sw<3,3,3> o (8,64):(64,1)");
  ASSERT_TRUE(bool(c));
  EXPECT_EQ(c->str(), "Sw<3,3,3> o (8,64):(64,1)");
  llvm::Expected<IntTuple> t = parseIntTuple("((4,8),(2,2))");
  ASSERT_TRUE(bool(t));
  EXPECT_EQ(t->str(), "((4,8),(2,2))");
  llvm::Expected<Layout> notLayout = parseLayout("Sw<3,4,3>");
  EXPECT_FALSE(bool(notLayout));
  llvm::consumeError(notLayout.takeError());
}

TEST(LayoutRenderTest, AsciiGridAsCuTePrintLayout) {
  // Example in ir/layout/LayoutRender.h.
  llvm::Expected<std::string> grid = renderAscii(eval("(2,3):(3,1)"));
  ASSERT_TRUE(bool(grid));
  EXPECT_EQ(*grid, "      0   1   2 \n"
                   "    +---+---+---+\n"
                   " 0  | 0 | 1 | 2 |\n"
                   "    +---+---+---+\n"
                   " 1  | 3 | 4 | 5 |\n"
                   "    +---+---+---+\n");
  llvm::Expected<std::string> rank3 = renderAscii(eval("(2,2,2):(1,2,4)"));
  EXPECT_FALSE(bool(rank3));
  llvm::consumeError(rank3.takeError());
  llvm::Expected<std::string> svg =
      renderSvg(eval("recast(K_SW128<bf16>, 16, 128)"), SvgOptions{128, "t"});
  ASSERT_TRUE(bool(svg));
  EXPECT_NE(svg->find("<svg"), std::string::npos);
  EXPECT_NE(svg->find("</svg>"), std::string::npos);
}
