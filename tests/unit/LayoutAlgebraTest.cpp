// The layout algebra: every layout written in the seeds, then the laws over
// every coordinate of many random layouts (fixed-seed RNG).
#include "LayoutTestSupport.h"

#include "ir/layout/LayoutAlgebra.h"

#include <set>

using namespace tilec;
using namespace tilec::test;

//===----------------------------------------------------------------------===//
// Seed values
//===----------------------------------------------------------------------===//

TEST(LayoutSeedTest, Seed000RightInverseOfTVLayout) {
  // Seed 000: right_inverse of the m16n8k8 A TV layout is the inverse TV
  // layout ((8,2),(2,4)):((4,64),(32,1)). CuTe's right_inverse coalesces,
  // so it prints the same modes flat.
  Layout tv = lay("((4,8),(2,2)):((32,1),(16,8))");
  Layout inv = rightInverse(tv);
  EXPECT_EQ(inv.str(), "(8,2,2,4):(4,64,32,1)");
  Layout seed = lay("((8,2),(2,4)):((4,64),(32,1))");
  EXPECT_EQ(flatten(seed), inv);
  ASSERT_EQ(inv.size(), 128);
  for (int64_t i = 0; i < 128; ++i) {
    EXPECT_EQ(tv(inv(i)), i);
    EXPECT_EQ(inv(i), seed(i));
    EXPECT_EQ(seed(tv(i)), i);
  }
  // Seed 000's formula: A((m0,m1),(n0,n1)) = 4 m0 + 64 m1 + 32 n0 + n1.
  for (int64_t m0 = 0; m0 < 8; ++m0)
    for (int64_t m1 = 0; m1 < 2; ++m1)
      for (int64_t n0 = 0; n0 < 2; ++n0)
        for (int64_t n1 = 0; n1 < 4; ++n1)
          EXPECT_EQ(seed(IntTuple({IntTuple({m0, m1}), IntTuple({n0, n1})})),
                    4 * m0 + 64 * m1 + 32 * n0 + n1);
}

TEST(LayoutSeedTest, Seed002KMajorSW128) {
  // Seed 002 section 3.5: 128x128 bf16 K-major SW128.
  EXPECT_EQ(evalStr("tile_to_shape(K_SW128<bf16>, (128,128))"),
            "Sw<3,3,3> o ((8,16),(64,2)):((64,512),(1,8192))");
  EXPECT_EQ(evalStr("zipped_divide(((8,16),(64,2)):((64,512),(1,8192)), "
                    "(64,16))"),
            "((64,16),(2,(4,2))):((64,1),(4096,(16,8192)))");
  EXPECT_EQ(evalStr("recast(((64,16),(2,(4,2))):((64,1),(4096,(16,8192))), "
                    "16, 128)"),
            "((64,2),(2,(4,2))):((8,1),(512,(2,1024)))");
  EXPECT_EQ(evalStr("logical_divide((64,2):(8,1), (8,1))"),
            "((8,8),(1,2)):((8,64),(0,1))");
  // The C++ variant the seed mentions: divide by (ChunkM, RestK).
  EXPECT_EQ(evalStr("logical_divide((64,2):(8,1), (8,2))"),
            "((8,8),(2,1)):((8,64),(1,0))");
}

TEST(LayoutSeedTest, Seed002MNMajorSW64) {
  // Seed 002 section 4.5: 128x128 bf16 MN-major SW64, atoms along K first.
  EXPECT_EQ(evalStr("tile_to_shape(MN_SW64<bf16>, (128,128), (1,0))"),
            "Sw<2,3,3> o ((32,4),(8,16)):((1,4096),(32,256))");
  EXPECT_EQ(evalStr("zipped_divide(((32,4),(8,16)):((1,4096),(32,256)), "
                    "(64,16))"),
            "(((32,2),16),(2,8)):(((1,4096),32),(8192,512))");
  EXPECT_EQ(evalStr("recast((((32,2),16),(2,8)):(((1,4096),32),(8192,512)), "
                    "16, 128)"),
            "(((4,2),16),(2,8)):(((1,512),4),(1024,64))");
  EXPECT_EQ(evalStr("logical_divide(((4,2),16):((1,512),4), (4,8))"),
            "((4,2),(8,2)):((1,512),(4,32))");
}

TEST(LayoutSeedTest, Seed002WholeChainOnSwizzledLayout) {
  // The same chain applied to the swizzled tile: the swizzle follows the
  // recast down to 16-byte units.
  EXPECT_EQ(evalStr("recast(zipped_divide(tile_to_shape(K_SW128<bf16>, "
                    "(128,128)), (64,16)), 16, 128)"),
            "Sw<3,0,3> o ((64,2),(2,(4,2))):((8,1),(512,(2,1024)))");
}

TEST(LayoutSeedTest, Seed004SmemLayouts) {
  // Seed 004: Layout_MN_SW128_Atom<half_t> over (128,64,3), and the
  // K-major one, coalesced by mode as CUTLASS prints them.
  EXPECT_EQ(evalStr("MN_SW128<f16>"), "Sw<3,3,3> o (64,8):(1,64)");
  EXPECT_EQ(evalStr("K_SW128<f16>"), "Sw<3,3,3> o (8,64):(64,1)");
  EXPECT_EQ(evalStr("tile_to_shape(MN_SW128<f16>, (128,64,3))"),
            "Sw<3,3,3> o ((64,2),(8,8),(1,3)):((1,512),(64,1024),(0,8192))");
  EXPECT_EQ(evalStr("coalesce(tile_to_shape(MN_SW128<f16>, (128,64,3)), "
                    "(1,1,1))"),
            "Sw<3,3,3> o ((64,2),(8,8),3):((1,512),(64,1024),8192)");
  EXPECT_EQ(evalStr("tile_to_shape(K_SW128<f16>, (128,64,3))"),
            "Sw<3,3,3> o ((8,16),(64,1),(1,3)):((64,512),(1,0),(0,8192))");
  EXPECT_EQ(evalStr("coalesce(tile_to_shape(K_SW128<f16>, (128,64,3)), "
                    "(1,1,1))"),
            "Sw<3,3,3> o (128,64,3):(64,1,8192)");
  // tCsA: one wgmma atom (64 x 16) per mode 0, by zipped/tiled divide.
  EXPECT_EQ(evalStr("tiled_divide(((64,2),(8,8),3):((1,512),(64,1024),8192),"
                    " (64,16))"),
            "((64,(8,2)),2,4,3):((1,(64,1024)),512,2048,8192)");
}

TEST(LayoutSeedTest, Seed001ExactLayouts) {
  // The PTX ISA's exact layouts (figures 166-170). They parse and print
  // back, and the tiled atoms give the same functions.
  for (const char *s : {"Sw<1,4,3> o ((8,2),(4,4)):((8,64),(1,4))",
                        "Sw<1,4,3> o ((8,2,2),(8,2)):((1,8,128),(16,256))",
                        "Sw<2,4,3> o ((8,4,2),(8,2)):((1,8,256),(32,512))"})
    EXPECT_EQ(evalStr(s), s);
  // An identity swizzle composed at offset 0 is the layout itself (CuTe's
  // composition(Swizzle<0,M,S>, 0, L) returns L), so it prints bare.
  EXPECT_EQ(evalStr("Sw<0,4,3> o ((8,2),(4,4)):((4,32),(1,64))"),
            "((8,2),(4,4)):((4,32),(1,64))");
  EXPECT_EQ(evalStr("Sw<0,4,3> o ((8,1,2),(8,2)):((1,8,64),(8,128))"),
            "((8,1,2),(8,2)):((1,8,64),(8,128))");
  // Swizzle<B,4,3> is in bytes; in elements it is Swizzle<B,4-log2(bytes),3>.
  EXPECT_EQ(evalStr("tile_to_shape(K_INTER<tf32>, (16,16))"),
            "((8,2),(4,4)):((4,32),(1,64))");
  // With an offset the identity swizzle stays (the offset must print).
  EXPECT_EQ(evalStr("Sw<0,4,3> o 8 o (4,2):(1,4)"), "Sw<0,4,3> o 8 o (4,2):(1,4)");
  EXPECT_EQ(evalStr("upcast(Sw<0,4,3>, 4)"), "Sw<0,2,3>");
  auto sameFunction = [](const std::string &a, const std::string &b) {
    Layout x = eval(a).getComposed().layout, y = lay(b);
    ASSERT_EQ(x.size(), y.size()) << a;
    for (int64_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(x(i), y(i)) << a << " at " << i;
  };
  sameFunction("tile_to_shape(MN_INTER<bf16>, (16,16))",
               "((8,1,2),(8,2)):((1,8,64),(8,128))");
  sameFunction("tile_to_shape(MN_SW32<bf16>, (32,16))",
               "((8,2,2),(8,2)):((1,8,128),(16,256))");
  sameFunction("tile_to_shape(MN_SW64<bf16>, (64,16))",
               "((8,4,2),(8,2)):((1,8,256),(32,512))");
  // K-major SW32 tf32: one swizzle atom of K (T = 4, 2 chunks).
  sameFunction("tile_to_shape(K_SW32<tf32>, (16,8))",
               "((8,2),(4,2)):((8,64),(1,4))");
}

TEST(LayoutSeedTest, CuTeDocumentationExamples) {
  // Examples in ir/layout/LayoutAlgebra.h and CuTe's documented results.
  EXPECT_EQ(evalStr("composition(20:2, (5,4):(4,1))"), "(5,4):(8,2)");
  EXPECT_EQ(evalStr("complement(4:2, 16)"), "(2,2):(1,8)");
  EXPECT_EQ(evalStr("complement(4:2, 24)"), "(2,3):(1,8)");
  EXPECT_EQ(evalStr("complement((2,2):(1,6), 24)"), "(3,2):(2,12)");
  EXPECT_EQ(evalStr("composition((6,2):(8,2), (4,3):(3,1))"),
            "((2,2),3):((24,2),8)");
  EXPECT_EQ(evalStr("logical_divide((4,2,3):(2,1,8), 4:2)"),
            "((2,2),(2,3)):((4,1),(2,8))");
  EXPECT_EQ(evalStr("logical_product((2,2):(4,1), 6:1)"),
            "((2,2),(2,3)):((4,1),(2,8))");
  EXPECT_EQ(evalStr("blocked_product((2,5):(5,1), (3,4):(1,3))"),
            "((2,3),(5,4)):((5,10),(1,30))");
  EXPECT_EQ(evalStr("raked_product((2,5):(5,1), (3,4):(1,3))"),
            "((3,2),(4,5)):((10,5),(30,1))");
  EXPECT_EQ(evalStr("make_layout((4,8), right)"), "(4,8):(8,1)");
  EXPECT_EQ(evalStr("make_layout((4,8))"), "(4,8):(1,4)");
  EXPECT_EQ(evalStr("make_ordered((2,3,4), (2,0,1))"), "(2,3,4):(12,1,3)");
  EXPECT_EQ(evalStr("max_common_vector((4,8):(1,4), (4,8):(1,4))"), "32");
  EXPECT_EQ(evalStr("max_common_vector((4,8):(8,1), (4,8):(1,4))"), "1");
  EXPECT_EQ(evalStr("max_common_vector((4,8):(1,4), (4,2,4):(1,16,4))"), "4");
  EXPECT_EQ(evalStr("max_common_layout((4,8):(1,4), (4,2,4):(1,16,4))"), "4:1");
  EXPECT_EQ(evalStr("left_inverse((4,8):(8,1))"), "(8,4):(4,1)");
  EXPECT_EQ(evalStr("right_inverse((4,8):(8,1))"), "(8,4):(4,1)");
  EXPECT_EQ(evalStr("upcast((8,64):(64,1), 8)"), "(8,8):(8,1)");
  EXPECT_EQ(evalStr("downcast((8,8):(8,1), 8)"), "(8,64):(64,1)");
  EXPECT_EQ(evalStr("flat_divide((8,16):(1,8), (2,4))"),
            "(2,4,4,4):(1,8,2,32)");
  EXPECT_EQ(evalStr("tiled_divide((8,16):(1,8), (2,4))"),
            "((2,4),4,4):((1,8),2,32)");
  // By-mode products multiply each mode on its own: mode 1 is 2:2, whose
  // complement in 2*4 is (2,2):(1,4).
  EXPECT_EQ(evalStr("zipped_product((2,2):(1,2), (3,4))"),
            "((2,2),(3,(2,2))):((1,2),(2,(1,4)))");
  EXPECT_EQ(evalStr("tiled_product((2,2):(1,2), (3,4))"),
            "((2,2),3,(2,2)):((1,2),2,(1,4))");
}

TEST(LayoutSeedTest, InadmissibleOperationsFail) {
  auto fails = [](const std::string &text) {
    llvm::Expected<LayoutValue> v = evaluateLayoutExpr(text);
    EXPECT_FALSE(bool(v)) << text << " gave " << (v ? v->str() : "");
    if (!v)
      llvm::consumeError(v.takeError());
  };
  fails("composition((4,6):(1,5), 3:2)"); // shape divisibility
  fails("composition((4,6):(1,5), 2:6)"); // stride divisibility
  fails("complement((2,2):(1,1), 8)");    // not injective
  fails("tile_to_shape(K_SW128<bf16>, (12,64))");
  fails("tile_to_shape(K_SW128<bf16>, (128))");
  fails("upcast(3:3, 2)");
  fails("downcast((4,4):(4,16), 2)");
  fails("logical_divide(8:1, (2,2))");
  fails("left_inverse((2,2):(1,-1))");
}

//===----------------------------------------------------------------------===//
// Laws over every coordinate of random layouts
//===----------------------------------------------------------------------===//

// A sub-layout of a permuted compact layout: some of its modes dropped, so
// that it is injective with gaps the complement must fill.
static Layout randomSubLayout(std::mt19937 &rng, bool pow2, int64_t &full) {
  Layout l = flatten(randomPermutedCompact(rng, pow2));
  full = l.size();
  std::vector<Layout> keep;
  for (const Layout &m : l.modes())
    if (rng() % 3 != 0)
      keep.push_back(m);
  if (keep.empty())
    keep.push_back(l.mode(0));
  return makeLayout(keep);
}

TEST(LayoutLawTest, CompositionIsFunctionComposition) {
  // CuTe distributes composition over the modes of B, so R(c) == A(B(c))
  // holds when the modes of B do not carry into each other's digits of A:
  // power-of-two layouts with B injective (disjoint bit fields), and any
  // A with a single-mode B.
  std::mt19937 rng(2024);
  int admissible = 0;
  for (int n = 0; n < 4000; ++n) {
    bool pow2 = n % 2 == 0;
    Layout a = n % 3 == 0 ? randomLayout(rng, pow2, 16)
                          : randomPermutedCompact(rng, pow2);
    int64_t full;
    Layout b = pow2 ? randomSubLayout(rng, true, full)
                    : Layout(randomExtent(rng, false), int64_t(rng() % 9));
    llvm::Expected<Layout> r = composition(a, b);
    if (!r) {
      llvm::consumeError(r.takeError());
      continue;
    }
    ++admissible;
    ASSERT_EQ(r->size(), b.size()) << a.str() << " o " << b.str();
    for (int64_t i = 0; i < b.size(); ++i)
      ASSERT_EQ((*r)(i), refEval(a, refEval(b, i)))
          << a.str() << " o " << b.str() << " = " << r->str() << " at " << i;
  }
  EXPECT_GT(admissible, 2000);
}

TEST(LayoutLawTest, InadmissibleCompositionsAreRejected) {
  // Where the composition is refused, it is because some stride or shape
  // does not divide: no random input crashes it.
  std::mt19937 rng(2025);
  int rejected = 0;
  for (int n = 0; n < 3000; ++n) {
    Layout a = randomLayout(rng, false, 12), b = randomLayout(rng, false, 12);
    llvm::Expected<Layout> r = composition(a, b);
    if (!r) {
      std::string msg = llvm::toString(r.takeError());
      ASSERT_NE(msg.find("divisibility"), std::string::npos) << msg;
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 100);
}

TEST(LayoutLawTest, RightInverseIsIdentity) {
  std::mt19937 rng(11);
  for (int n = 0; n < 2000; ++n) {
    Layout l = n % 2 ? randomPermutedCompact(rng, n % 4 == 1)
                     : randomLayout(rng, true, 32);
    Layout r = rightInverse(l);
    for (int64_t i = 0; i < r.size(); ++i)
      ASSERT_EQ(refEval(l, r(i)), i) << l.str() << " inv " << r.str();
    if (n % 2) { // A bijection has a full inverse.
      ASSERT_EQ(r.size(), l.size()) << l.str() << " inv " << r.str();
    }
    // L o right_inverse(L) is the identity on its domain.
    llvm::Expected<Layout> id = composition(l, r);
    ASSERT_TRUE(bool(id)) << l.str();
    for (int64_t i = 0; i < r.size(); ++i)
      ASSERT_EQ((*id)(i), i);
  }
}

TEST(LayoutLawTest, LeftInverseOfInjective) {
  std::mt19937 rng(12);
  for (int n = 0; n < 2000; ++n) {
    Layout l = randomPermutedCompact(rng, n % 2);
    llvm::Expected<Layout> r = leftInverse(l);
    ASSERT_TRUE(bool(r)) << l.str();
    for (int64_t i = 0; i < l.size(); ++i)
      ASSERT_EQ((*r)(refEval(l, i)), i) << l.str() << " linv " << r->str();
  }
}

TEST(LayoutLawTest, ComplementIsDisjointAndCovers) {
  std::mt19937 rng(13);
  for (int n = 0; n < 2000; ++n) {
    int64_t full;
    Layout l = randomSubLayout(rng, n % 2, full);
    llvm::Expected<Layout> c = complement(l, full);
    ASSERT_TRUE(bool(c)) << l.str();
    std::set<int64_t> seen;
    for (int64_t j = 0; j < c->size(); ++j)
      for (int64_t i = 0; i < l.size(); ++i) {
        int64_t off = refEval(l, i) + (*c)(j);
        ASSERT_TRUE(seen.insert(off).second)
            << l.str() << " and its complement " << c->str() << " overlap";
      }
    // Together they cover [0, full) exactly.
    ASSERT_EQ((int64_t)seen.size(), full) << l.str() << " / " << c->str();
    ASSERT_EQ(*seen.rbegin(), full - 1);
    // The complement is sorted: strictly increasing.
    for (int64_t j = 1; j < c->size(); ++j)
      ASSERT_LT((*c)(j - 1), (*c)(j)) << c->str();
  }
}

TEST(LayoutLawTest, DivideIsCompositionWithTilerAndComplement) {
  std::mt19937 rng(14);
  int checked = 0;
  for (int n = 0; n < 2000; ++n) {
    Layout a = randomPermutedCompact(rng, true);
    int64_t full;
    Layout b = randomSubLayout(rng, true, full);
    if (full > a.size())
      continue;
    llvm::Expected<Layout> d = logicalDivide(a, Tiler(b));
    if (!d) {
      llvm::consumeError(d.takeError());
      continue;
    }
    llvm::Expected<Layout> c = complement(b, coalesce(a).shape);
    ASSERT_TRUE(bool(c));
    ++checked;
    for (int64_t j = 0; j < c->size(); ++j)
      for (int64_t i = 0; i < b.size(); ++i)
        ASSERT_EQ((*d)(i + b.size() * j), refEval(a, b(i) + (*c)(j)))
            << a.str() << " / " << b.str() << " = " << d->str();
    // zipped, tiled and flat divide regroup the same modes.
    using DivideFn = llvm::Expected<Layout> (*)(const Layout &, const Tiler &);
    for (DivideFn fn : {(DivideFn)zippedDivide, (DivideFn)tiledDivide,
                        (DivideFn)flatDivide}) {
      llvm::Expected<Layout> z = fn(a, Tiler(b));
      ASSERT_TRUE(bool(z));
      ASSERT_EQ(z->size(), d->size());
      for (int64_t i = 0; i < z->size(); ++i)
        ASSERT_EQ((*z)(i), (*d)(i)) << z->str() << " vs " << d->str();
    }
  }
  EXPECT_GT(checked, 500);
}

TEST(LayoutLawTest, ByModeDivideMatchesModeComposition) {
  std::mt19937 rng(15);
  for (int n = 0; n < 500; ++n) {
    // (M, N) column-major, divided by (tm, tn) with tm | M and tn | N.
    int64_t m = int64_t(1) << (1 + rng() % 4), nn = int64_t(1)
                                                    << (1 + rng() % 4);
    int64_t tm = int64_t(1) << (rng() % 2), tn = int64_t(1) << (rng() % 2);
    Layout a = makeLayoutLeft(IntTuple({m, nn}));
    llvm::Expected<Layout> z =
        zippedDivide(a, Tiler::fromShape(IntTuple({tm, tn})));
    ASSERT_TRUE(bool(z));
    // z((i, j), (bi, bj)) = a(bi * tm + i, bj * tn + j).
    for (int64_t bi = 0; bi < m / tm; ++bi)
      for (int64_t bj = 0; bj < nn / tn; ++bj)
        for (int64_t i = 0; i < tm; ++i)
          for (int64_t j = 0; j < tn; ++j)
            ASSERT_EQ((*z)(IntTuple({IntTuple({i, j}), IntTuple({bi, bj})})),
                      (bi * tm + i) + m * (bj * tn + j))
                << z->str();
  }
}

TEST(LayoutLawTest, ProductIsBlockPlusRepeatedComplement) {
  std::mt19937 rng(16);
  int admissible = 0;
  for (int n = 0; n < 1000; ++n) {
    int64_t dummy;
    // Power-of-two layouts, for which the composition law holds exactly.
    Layout a = randomSubLayout(rng, true, dummy);
    Layout b = randomPermutedCompact(rng, true);
    if (a.size() * b.size() > 4096)
      continue;
    llvm::Expected<Layout> p = logicalProduct(a, Tiler(b));
    if (!p) { // e.g. a stride of B that does not divide the complement
      llvm::consumeError(p.takeError());
      continue;
    }
    ++admissible;
    llvm::Expected<Layout> c = complement(a, a.size() * b.cosize());
    ASSERT_TRUE(bool(c));
    for (int64_t j = 0; j < b.size(); ++j)
      for (int64_t i = 0; i < a.size(); ++i)
        ASSERT_EQ((*p)(i + a.size() * j), refEval(a, i) + (*c)(b(j)))
            << p->str();
    // The product of injective layouts is injective.
    std::set<int64_t> seen;
    for (int64_t i = 0; i < p->size(); ++i)
      ASSERT_TRUE(seen.insert((*p)(i)).second) << p->str();
    // blocked and raked products hit the same offsets.
    using ProductFn =
        llvm::Expected<Layout> (*)(const Layout &, const Layout &);
    for (ProductFn fn : {(ProductFn)blockedProduct, (ProductFn)rakedProduct}) {
      llvm::Expected<Layout> q = fn(a, b);
      ASSERT_TRUE(bool(q)) << a.str() << " x " << b.str() << ": "
                           << llvm::toString(q.takeError());
      std::set<int64_t> qs;
      for (int64_t i = 0; i < q->size(); ++i)
        qs.insert((*q)(i));
      ASSERT_EQ(qs, seen) << a.str() << " x " << b.str() << " = " << q->str();
    }
  }
  EXPECT_GT(admissible, 300);
}

TEST(LayoutLawTest, TileToShapeCoversTheTarget) {
  // Every atom tiled to any multiple of its shape is a bijection onto
  // [0, size), and the atom is the top-left tile.
  std::mt19937 rng(17);
  for (int n = 0; n < 300; ++n) {
    Layout atom = randomPermutedCompact(rng, true);
    if (atom.rank() > 2)
      continue;
    std::vector<IntTuple> target;
    for (size_t i = 0; i < 2; ++i) {
      int64_t s = i < atom.rank() ? atom.mode(i).size() : 1;
      target.push_back(IntTuple(int64_t(s * (1 + rng() % 3))));
    }
    std::optional<IntTuple> order;
    if (rng() % 2)
      order = IntTuple({1, 0});
    llvm::Expected<Layout> t = tileToShape(atom, IntTuple(target), order);
    ASSERT_TRUE(bool(t)) << atom.str();
    std::set<int64_t> seen;
    for (int64_t i = 0; i < t->size(); ++i)
      seen.insert((*t)(i));
    ASSERT_EQ((int64_t)seen.size(), t->size()) << t->str();
    ASSERT_EQ(*seen.rbegin(), t->size() - 1) << t->str();
  }
}

TEST(LayoutLawTest, RecastRoundTrip) {
  std::mt19937 rng(18);
  for (int n = 0; n < 500; ++n) {
    Layout l = randomPermutedCompact(rng, true);
    if (l.size() < 8)
      continue;
    // Element offsets of 16-bit data, in 128-bit units, and back.
    llvm::Expected<Layout> up = recast(l, 16, 128);
    if (!up) {
      llvm::consumeError(up.takeError());
      continue;
    }
    // Every 128-bit unit covers 8 consecutive 16-bit offsets.
    std::set<int64_t> units;
    for (int64_t i = 0; i < l.size(); ++i)
      units.insert(refEval(l, i) / 8);
    std::set<int64_t> got;
    for (int64_t i = 0; i < up->size(); ++i)
      got.insert((*up)(i));
    ASSERT_EQ(got, units) << l.str() << " -> " << up->str();
  }
}
