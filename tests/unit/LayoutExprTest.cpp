// The layout expression language: values, environments, diagnostics with
// columns, and a bounded random-input run (the CI half of the fuzz target
// in tests/fuzz/LayoutExprFuzzer.cpp).
#include "LayoutTestSupport.h"

#include <cstring>

using namespace tilec;
using namespace tilec::test;

TEST(LayoutExprTest, HeaderExamples) {
  EXPECT_EQ(evalStr("coalesce((2,(1,6)):(1,(6,2)))"), "12:1");
  llvm::Expected<LayoutValue> v = evaluateLayoutExpr("composition(8:2, 3:1");
  ASSERT_FALSE(bool(v));
  LayoutExprDiag d = toLayoutExprDiag(v.takeError());
  EXPECT_EQ(d.column, 20u);
  EXPECT_NE(d.message.find("expected ',' or ')'"), std::string::npos);
}

TEST(LayoutExprTest, Values) {
  EXPECT_EQ(evalStr("(8,16)"), "(8,16)");
  EXPECT_TRUE(eval("(8,16)").isIntTuple());
  EXPECT_EQ(evalStr("(3:4, 8:2)"), "(3:4,8:2)");
  EXPECT_EQ(evalStr("Sw<3,4,3> o 1024:1"), "Sw<3,4,3> o 1024:1");
  EXPECT_EQ(evalStr("Swizzle<3,4,3> o 8 o (8,64):(64,1)"),
            "Sw<3,4,3> o 8 o (8,64):(64,1)");
  EXPECT_EQ(evalStr("composition(Sw<3,4,3>, (8,64):(64,1))"),
            "Sw<3,4,3> o (8,64):(64,1)");
  EXPECT_EQ(evalStr("size(K_SW128<bf16>)"), "512");
  EXPECT_EQ(evalStr("cosize((4,8):(8,1))"), "32");
  EXPECT_EQ(evalStr("rank(((4,8),(2,2)):((32,1),(16,8)))"), "2");
  EXPECT_EQ(evalStr("depth(((4,8),(2,2)):((32,1),(16,8)))"), "2");
  // A layout tiler composes as a whole, a tuple by mode.
  EXPECT_EQ(evalStr("composition((8,8):(8,1), 4:2)"), "4:16");
  EXPECT_EQ(evalStr("composition((8,8):(8,1), (4,2))"), "(4,2):(8,1)");
  EXPECT_EQ(evalStr("composition((8,8):(8,1), (3:2, 2:4))"), "(3,2):(16,4)");
  EXPECT_EQ(evalStr("logical_divide(K_SW128<bf16>, (4,16))"),
            "Sw<3,3,3> o ((4,2),(16,4)):((64,256),(1,16))");
}

// docs/language.md spells ORDER as order(1, 0); it is the tuple (1,0).
TEST(LayoutExprTest, OrderSpelling) {
  EXPECT_EQ(evalStr("order(1, 0)"), "(1,0)");
  EXPECT_EQ(evalStr("order((1,0), 2)"), "((1,0),2)");
  EXPECT_EQ(evalStr("tile_to_shape(MN_SW64<bf16>, (128, 128), order(1, 0))"),
            evalStr("tile_to_shape(MN_SW64<bf16>, (128, 128), (1, 0))"));
  EXPECT_EQ(evalStr("make_ordered((4,8), order(1, 0))"), "(4,8):(8,1)");
  // Row-major tiling of 16x16 by the 8x8 K_INTER<bf16> atom: the atom's
  // column moves first, so the second atom along K starts at 64 elements.
  EXPECT_EQ(evalStr("tile_to_shape(K_INTER<bf16>, (16,16), order(1, 0))"),
            "((8,2),(8,2)):((8,128),(1,64))");
  llvm::Expected<LayoutValue> v = evaluateLayoutExpr("order(1, 4:2)");
  ASSERT_FALSE(bool(v));
  LayoutExprDiag d = toLayoutExprDiag(v.takeError());
  EXPECT_EQ(d.column, 9u);
  EXPECT_NE(d.message.find("order: an element must be an integer"),
            std::string::npos);
}

// packed_int8(N, K): ir/layout/WeightPack.h's 8-bit order, checked here against
// the header's prose (lane l = 4 g + t at byte 16 l, word w = 2 s + j,
// byte 2 h + e; 16 x 32 blocks 512 bytes apart, block rows 16 K apart) for
// every (n, k) of a 32 x 64 weight, and its diagnostics at the argument.
TEST(LayoutExprTest, PackedInt8) {
  EXPECT_EQ(evalStr("packed_int8(16, 32)"),
            "((8,2,1),(2,4,2,2,1)):((64,4,512),(1,16,2,8,512))");
  EXPECT_EQ(evalStr("packed_int8(32, 64)"),
            "((8,2,2),(2,4,2,2,2)):((64,4,1024),(1,16,2,8,512))");
  const int64_t n = 32, k = 64;
  Layout l = eval("packed_int8(32, 64)").getLayout();
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) {
      int64_t g = r % 8, j = r / 8 % 2, nb = r / 16;
      int64_t e = c % 2, t = c / 2 % 4, h = c / 8 % 2, s = c / 16 % 2,
              kb = c / 32;
      int64_t byte = nb * 16 * k + kb * 512 + 16 * (4 * g + t) +
                     4 * (2 * s + j) + 2 * h + e;
      ASSERT_EQ(l(IntTuple{r, c}), byte) << r << "," << c;
    }
  // The header's worked example: (9, 3) of a 16 x 32 weight is byte 85.
  EXPECT_EQ(eval("packed_int8(16, 32)").getLayout()(IntTuple{9, 3}), 85);
  EXPECT_EQ(evalStr("cosize(packed_int8(16, 32))"), "512");

  llvm::Expected<LayoutValue> v = evaluateLayoutExpr("packed_int8(16, 48)");
  ASSERT_FALSE(bool(v));
  LayoutExprDiag d = toLayoutExprDiag(v.takeError());
  EXPECT_EQ(d.column, 16u); // 0-based: K's
  EXPECT_EQ(d.message, "packed_int8: a packed 8-bit weight needs K > 0 and a "
                       "multiple of 32; got K = 48");
  v = evaluateLayoutExpr("packed_int8(24, 32)");
  ASSERT_FALSE(bool(v));
  d = toLayoutExprDiag(v.takeError());
  EXPECT_EQ(d.column, 12u); // N's
  EXPECT_EQ(d.message, "packed_int8: a packed 8-bit weight needs N > 0 and a "
                       "multiple of 16; got N = 24");
  // K = 32 is one 8-bit block, half a 4-bit one.
  v = evaluateLayoutExpr("packed_int4(16, 32)");
  ASSERT_FALSE(bool(v));
  EXPECT_EQ(toLayoutExprDiag(v.takeError()).message,
            "packed_int4: a packed 4-bit weight needs K > 0 and a multiple "
            "of 64; got K = 32");
}

TEST(LayoutExprTest, Environment) {
  LayoutEnv env;
  env.emplace("BM", LayoutValue(int64_t(128)));
  env.emplace("BK", LayoutValue(int64_t(64)));
  llvm::Expected<LayoutValue> v =
      evaluateLayoutExpr("tile_to_shape(K_SW128<bf16>, (BM, BK))", &env);
  ASSERT_TRUE(bool(v));
  EXPECT_EQ(v->str(), "Sw<3,3,3> o ((8,16),(64,1)):((64,512),(1,0))");
  llvm::Expected<LayoutValue> u = evaluateLayoutExpr("(BM, BN)", &env);
  ASSERT_FALSE(bool(u));
  LayoutExprDiag d = toLayoutExprDiag(u.takeError());
  EXPECT_EQ(d.column, 5u);
  EXPECT_NE(d.message.find("unknown name 'BN'"), std::string::npos);
}

TEST(LayoutExprTest, DiagnosticsPointAtTheColumn) {
  struct Case {
    const char *text;
    unsigned column;
    const char *message;
  } cases[] = {
      {"", 0, "found the end of the input"},
      {"(8,16):(1,8", 11, "expected ',' or ')'"},
      {"(8,16):(1,(8,2))", 7, "does not have the nesting"},
      {"(8,0):(1,8)", 0, "must be positive"},
      {"8:1 9:1", 4, "after the expression"},
      {"K_SW128<bf17>", 8, "unknown element type 'bf17'"},
      {"K_SW256<bf16>", 0, "unknown name 'K_SW256'"},
      {"Sw<3,4,2>", 0, "|S| >= B"},
      {"Sw<3,4>", 6, "expected ','"},
      {"frobnicate(8:1)", 0, "unknown function 'frobnicate'"},
      {"composition(8:1)", 0, "composition takes 2 arguments, not 1"},
      {"composition((4,6):(1,5), 3:2)", 0, "shape divisibility"},
      {"tile_to_shape(K_SW128<bf16>, (100,64))", 0,
       "mode 0 of the target shape (100,64) is 100, not a multiple of the "
       "atom's 8"},
      {"complement((2,2):(1,1), 8)", 0, "not injective"},
      {"make_layout((4,8), up)", 19, "unknown name 'up'"},
      {"8:1 o 4:1", 0, "left side of 'o' must be a swizzle"},
      {"Sw<3,4,3> o Sw<1,4,3>", 12, "right side of 'o' must be a layout"},
      {"99999999999:1", 0, "too large"},
      {"(65536,65536):(1,65536)", 0, "too large"},
      {"upcast(3:3, 2)", 0, "neither a multiple nor a divisor"},
      {"logical_divide(8:1, (2,2))", 0, "has 2 modes but the layout"},
      {"8:1 $", 4, "unexpected character '$'"},
      {"recast(8:1, 16, 0)", 16, "must be between 1 and 4096"},
  };
  for (const Case &c : cases) {
    llvm::Expected<LayoutValue> v = evaluateLayoutExpr(c.text);
    ASSERT_FALSE(bool(v)) << c.text << " gave " << v->str();
    LayoutExprDiag d = toLayoutExprDiag(v.takeError());
    EXPECT_EQ(d.column, c.column) << c.text << ": " << d.message;
    EXPECT_NE(d.message.find(c.message), std::string::npos)
        << c.text << ": " << d.message;
  }
}

TEST(LayoutExprTest, DeepNestingIsAnErrorNotAStackOverflow) {
  std::string deep(10000, '(');
  llvm::Expected<LayoutValue> v = evaluateLayoutExpr(deep);
  ASSERT_FALSE(bool(v));
  EXPECT_NE(toLayoutExprDiag(v.takeError()).message.find("nested"),
            std::string::npos);
}

// Random text from the language's own tokens, plus mutations of valid
// expressions: every input either evaluates or reports an error with a
// column inside the text. A fixed number of inputs, so that it covers the
// same inputs on every machine.
TEST(LayoutExprTest, BoundedRandomInputNeverCrashes) {
  static const char *pieces[] = {"(",
                                 ")",
                                 ",",
                                 ":",
                                 "<",
                                 ">",
                                 " o ",
                                 "0",
                                 "1",
                                 "2",
                                 "3",
                                 "4",
                                 "8",
                                 "16",
                                 "-1",
                                 "64",
                                 "1024",
                                 "Sw",
                                 "K_SW128",
                                 "MN_SW64",
                                 "K_INTER",
                                 "bf16",
                                 "e4m3",
                                 "tf32",
                                 "composition",
                                 "complement",
                                 "logical_divide",
                                 "zipped_divide",
                                 "tiled_divide",
                                 "flat_divide",
                                 "logical_product",
                                 "blocked_product",
                                 "raked_product",
                                 "right_inverse",
                                 "left_inverse",
                                 "tile_to_shape",
                                 "recast",
                                 "upcast",
                                 "downcast",
                                 "coalesce",
                                 "make_layout",
                                 "left",
                                 "right",
                                 "make_ordered",
                                 "max_common_vector",
                                 "max_common_layout",
                                 " ",
                                 "zipped_product",
                                 "tiled_product",
                                 "size",
                                 "cosize",
                                 "flatten",
                                 "packed_int4",
                                 "packed_int8"};
  static const char *seeds[] = {
      "zipped_divide(((8,16),(64,2)):((64,512),(1,8192)), (64,16))",
      "recast(((64,16),(2,(4,2))):((64,1),(4096,(16,8192))), 16, 128)",
      "tile_to_shape(MN_SW64<bf16>, (128,128), (1,0))",
      "logical_product((2,2):(4,1), 6:1)",
      "blocked_product((2,5):(5,1), (3,4):(1,3))",
      "Sw<3,4,3> o 8 o (8,64):(64,1)",
      "complement((2,2):(1,6), 24)"};
  // A fixed number of inputs from a fixed seed, not a time budget: the same
  // inputs on every machine.
  std::mt19937 rng(4242);
  constexpr int Inputs = 200000;
  int runs = 0, ok = 0;
  for (; runs < Inputs; ++runs) {
    std::string text;
    if (runs % 2) {
      int n = 1 + rng() % 24;
      for (int i = 0; i < n; ++i)
        text += pieces[rng() % (sizeof(pieces) / sizeof(*pieces))];
    } else {
      text = seeds[rng() % (sizeof(seeds) / sizeof(*seeds))];
      int edits = 1 + rng() % 4;
      for (int e = 0; e < edits && !text.empty(); ++e) {
        size_t at = rng() % text.size();
        switch (rng() % 3) {
        case 0:
          text.erase(at, 1 + rng() % 3);
          break;
        case 1:
          text.insert(at, pieces[rng() % (sizeof(pieces) / sizeof(*pieces))]);
          break;
        default:
          text[at] = "()0123456789,:<>o -x"[rng() % 20];
        }
      }
    }
    llvm::Expected<LayoutValue> v = evaluateLayoutExpr(text);
    if (v) {
      ++ok;
      // Whatever evaluates prints as a one-line value that reads back.
      std::string s = v->str();
      if (v->isLayout() || v->isComposed() || v->isSwizzle()) {
        ASSERT_EQ(evalStr(s), s) << text;
      }
      continue;
    }
    LayoutExprDiag d = toLayoutExprDiag(v.takeError());
    ASSERT_LE(d.column, text.size()) << text;
    ASSERT_FALSE(d.message.empty()) << text;
  }
  EXPECT_EQ(runs, Inputs);
  EXPECT_GT(ok, 10);
}

TEST(LayoutExprTest, FuzzerFindingsStayFixed) {
  // Inputs the libFuzzer target found: each is a diagnostic now.
  for (const char *text :
       {"Sw<3,4,3> o 9 o (64,0)", "Sw<0,4,3> o(5,656506564,1)",
        "blocked_product((1,5):(5,1), (9,4,(1),((24096,816,8, 1281),"
        "(4096,(16,8192))), 164,2)))"}) {
    llvm::Expected<LayoutValue> v = evaluateLayoutExpr(text);
    ASSERT_FALSE(bool(v)) << text;
    LayoutExprDiag d = toLayoutExprDiag(v.takeError());
    EXPECT_LE(d.column, strlen(text));
  }
}

//===----------------------------------------------------------------------===//
// CuTe's corner cases (include/cute/swizzle_layout.hpp, layout.hpp): tilec
// agrees with CuTe, and each case has a law checked over every offset.
//===----------------------------------------------------------------------===//

// recast_layout<Old, New>(Swizzle<B,M,S>) moves M by log2 of the width ratio
// (upcast lowers M, and below 0 trades bits of B; downcast raises M).
TEST(LayoutExprCuTeTest, RecastOfABareSwizzle) {
  EXPECT_EQ(evalStr("recast(Sw<3,4,3>, 8, 16)"), "Sw<3,3,3>");
  EXPECT_EQ(evalStr("recast(Sw<3,3,3>, 16, 8)"), "Sw<3,4,3>");
  EXPECT_EQ(evalStr("recast(Sw<3,4,3>, 8, 8)"), "Sw<3,4,3>");
  EXPECT_EQ(evalStr("recast(Sw<3,4,3>, 8, 256)"), "Sw<2,0,3>");
  EXPECT_FALSE(bool(evaluateLayoutExpr("recast(Sw<3,4,3>, 16, 24)")));
  // Law: recasting the bare swizzle gives the swizzle of the recast
  // composed layout, and both map every element offset alike.
  for (auto [from, to] : {std::pair{8, 16}, {16, 8}, {8, 32}, {32, 16}}) {
    std::string sw = "recast(Sw<3,4,3>, " + std::to_string(from) + ", " +
                     std::to_string(to) + ")";
    std::string composed = "recast(Sw<3,4,3> o 1024:1, " +
                           std::to_string(from) + ", " + std::to_string(to) +
                           ")";
    LayoutValue bare = eval(sw), full = eval(composed);
    ASSERT_TRUE(bare.isSwizzle() && full.isComposed()) << sw;
    EXPECT_EQ(bare.getSwizzle().str(), full.getComposed().swizzle.str());
    const ComposedLayout &c = full.getComposed();
    for (int64_t i = 0; i < c.size(); ++i)
      ASSERT_EQ(c(i), bare.getSwizzle()(c.layout(i))) << sw << " at " << i;
  }
}

// tiled_divide is result(_, repeat<R1>(_)) over zipped_divide, and
// repeat<1>(_) is `_`: with a one-mode tuple tiler on a rank-1 layout the
// rest mode stays a tuple, ((4),(4)):((1),(4)), as CuTe prints it.
TEST(LayoutExprCuTeTest, TiledDivideByAOneModeTupleOfARankOneLayout) {
  EXPECT_EQ(evalStr("tiled_divide(16:1, (4))"), "((4),(4)):((1),(4))");
  EXPECT_EQ(evalStr("zipped_divide(16:1, (4))"), "((4),(4)):((1),(4))");
  EXPECT_EQ(evalStr("flat_divide(16:1, (4))"), "((4),(4)):((1),(4))");
  EXPECT_EQ(evalStr("tiled_divide(16:1, 4:1)"), "(4,4):(1,4)");
  // Rest modes of rank > 1 are still unpacked.
  EXPECT_EQ(evalStr("tiled_divide((16,8):(1,16), (4,2))"),
            "((4,2),4,4):((1,16),4,32)");
  // Law: every divide is the same function of the flat index.
  for (const char *tiler : {"(4)", "(2)", "(8)", "4:1", "(2:2)"}) {
    Layout zipped =
        eval(std::string("zipped_divide(16:1, ") + tiler + ")").getLayout();
    for (const char *fn : {"tiled_divide", "flat_divide"}) {
      Layout other =
          eval(std::string(fn) + "(16:1, " + tiler + ")").getLayout();
      ASSERT_EQ(other.size(), zipped.size()) << fn << tiler;
      for (int64_t i = 0; i < zipped.size(); ++i)
        ASSERT_EQ(other(i), zipped(i)) << fn << tiler << " at " << i;
    }
  }
}
