// Swizzles and the canonical swizzle atoms: bijection, involution, the
// byte-level Sw<B,4,3> of the hardware, 16-byte chunk atomicity.
#include "LayoutTestSupport.h"

#include "ir/layout/ComposedLayout.h"
#include "ir/layout/SwizzleAtom.h"

#include <set>

using namespace tilec;
using namespace tilec::test;

TEST(SwizzleTest, HeaderExamples) {
  // ir/layout/Swizzle.h: Sw<3,4,3> maps 0x80 to 0x90 and 0x10 to 0x10.
  Swizzle sw(3, 4, 3);
  EXPECT_EQ(sw(0x80), 0x90);
  EXPECT_EQ(sw(0x10), 0x10);
  EXPECT_EQ(sw.str(), "Sw<3,4,3>");
  // ir/layout/ComposedLayout.h: K_SW128<bf16> maps (1,8) to 64.
  ComposedLayout atom =
      swizzleAtom(MajorKind::K, SwizzleKind::SW128, DTypeKind::BF16);
  EXPECT_EQ(atom(IntTuple({1, 8})), 64);
  EXPECT_EQ(atom.str(), "Sw<3,3,3> o (8,64):(64,1)");
}

TEST(SwizzleTest, BijectionAndInvolution) {
  for (int b = 0; b <= 4; ++b)
    for (int m = 0; m <= 5; ++m)
      for (int s = b; s <= b + 3; ++s)
        for (int sign : {1, -1}) {
          if (sign < 0 && s == 0)
            continue;
          llvm::Expected<Swizzle> sw = Swizzle::get(b, m, sign * s);
          ASSERT_TRUE(bool(sw));
          int64_t n = int64_t(1) << (b + m + s + 1);
          std::set<int64_t> image;
          for (int64_t x = 0; x < n; ++x) {
            int64_t y = (*sw)(x);
            ASSERT_GE(y, 0);
            ASSERT_LT(y, n) << sw->str();
            ASSERT_EQ((*sw)(y), x) << sw->str() << " is not an involution";
            image.insert(y);
          }
          ASSERT_EQ((int64_t)image.size(), n) << sw->str();
        }
}

TEST(SwizzleTest, RejectsOverlappingFields) {
  llvm::Expected<Swizzle> sw = Swizzle::get(3, 4, 2);
  ASSERT_FALSE(bool(sw));
  EXPECT_NE(llvm::toString(sw.takeError()).find("|S| >= B"), std::string::npos);
}

struct DTypeCase {
  const char *name;
  int bytesLog2; // log2 of the bytes per element
};

TEST(SwizzleAtomTest, EveryAtomForEveryWidth) {
  // Independent of SwizzleAtom.cpp: in bytes, every atom is 8 rows of
  // 16/32/64/128 bytes under the hardware's Swizzle<B,4,3>.
  const DTypeCase dtypes[] = {{"f16", 1},  {"bf16", 1}, {"tf32", 2}, {"f32", 2},
                              {"e4m3", 0}, {"e5m2", 0}, {"i8", 0},   {"u8", 0}};
  const struct {
    const char *mode;
    int rowBytes, b;
  } modes[] = {
      {"INTER", 16, 0}, {"SW32", 32, 1}, {"SW64", 64, 2}, {"SW128", 128, 3}};
  for (const DTypeCase &d : dtypes)
    for (const auto &m : modes)
      for (bool kMajor : {true, false}) {
        std::string text =
            std::string(kMajor ? "K_" : "MN_") + m.mode + "<" + d.name + ">";
        LayoutValue v = eval(text);
        ASSERT_TRUE(v.isComposed()) << text;
        const ComposedLayout &atom = v.getComposed();
        int64_t rowElems = m.rowBytes >> d.bytesLog2;
        int64_t t = 16 >> d.bytesLog2; // elements per 16-byte chunk
        // The printed form.
        std::string shape =
            kMajor ? std::string("(8,") + std::to_string(rowElems) + "):(" +
                         std::to_string(rowElems) + ",1)"
                   : std::string("(") + std::to_string(rowElems) + ",8):(1," +
                         std::to_string(rowElems) + ")";
        // An INTER atom's identity swizzle prints bare, as in CuTe.
        EXPECT_EQ(atom.str(),
                  (m.b == 0 ? std::string()
                            : std::string("Sw<") + std::to_string(m.b) + "," +
                                  std::to_string(4 - d.bytesLog2) + ",3> o ") +
                      shape)
            << text;
        Swizzle bytes(m.b, 4, 3);
        std::set<int64_t> image;
        for (int64_t row = 0; row < 8; ++row)
          for (int64_t e = 0; e < rowElems; ++e) {
            IntTuple c = kMajor ? IntTuple({row, e}) : IntTuple({e, row});
            int64_t plain = row * rowElems + e;
            int64_t off = atom(c);
            // Element offset times width is the hardware's byte swizzle.
            ASSERT_EQ(off << d.bytesLog2, bytes(plain << d.bytesLog2)) << text;
            // 16-byte chunks move as a whole.
            ASSERT_EQ(off % t, plain % t) << text;
            image.insert(off);
          }
        // A bijection onto the atom's 8 * rowBytes bytes.
        ASSERT_EQ((int64_t)image.size(), 8 * rowElems) << text;
        ASSERT_EQ(*image.rbegin(), 8 * rowElems - 1) << text;
      }
}

TEST(SwizzleAtomTest, DesignExamples) {
  EXPECT_EQ(evalStr("K_SW128<bf16>"), "Sw<3,3,3> o (8,64):(64,1)");
  EXPECT_EQ(evalStr("K_SW128<e4m3>"), "Sw<3,4,3> o (8,128):(128,1)");
  EXPECT_EQ(evalStr("MN_SW64<bf16>"), "Sw<2,3,3> o (32,8):(1,32)");
  EXPECT_EQ(swizzleAtomName(MajorKind::MN, SwizzleKind::None),
            "MN_INTER");
  EXPECT_EQ(swizzleInfo(SwizzleKind::SW64).bytes, 64u);
}

TEST(SwizzleAtomTest, SW128ColumnOfChunksHitsEveryBankGroup) {
  // Seed 000: ldmatrix reads one 16-byte chunk from each of 8 rows; under
  // 128-byte swizzling the 8 chunks land in 8 different bank groups.
  ComposedLayout atom =
      swizzleAtom(MajorKind::K, SwizzleKind::SW128, DTypeKind::BF16);
  for (int64_t chunk = 0; chunk < 8; ++chunk) {
    std::set<int64_t> groups;
    for (int64_t row = 0; row < 8; ++row)
      groups.insert((atom(IntTuple({row, chunk * 8})) * 2 / 16) % 8);
    EXPECT_EQ(groups.size(), 8u) << "chunk column " << chunk;
  }
}
