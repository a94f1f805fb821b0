//===- tests/unit/DescriptorDerivationLayoutTest.cpp - Algebra tiles ------===//
//
// The property test again, on tiles the layout algebra builds
// (tile_to_shape of every swizzle atom, both stacking orders), through the
// same bridge `tilec desc` uses: for every subtile, the decoder's walk of the
// advanced descriptor reproduces the layout's byte addresses element by
// element. Also checks the algebra's tiles agree with the atom definitions of
// tests/common/AtomTiles.h.
//
//===----------------------------------------------------------------------===//
#include "ir/arch/DescriptorDecoder.h"
#include "ir/arch/DescriptorDerivation.h"
#include "ir/layout/LayoutExpr.h"
#include "ir/layout/SmemTileFromLayout.h"
#include "tests/common/AtomTiles.h"

#include <gtest/gtest.h>

using namespace tilec;
using namespace tilec::testing;

namespace {

TEST(DescriptorDerivationLayoutTest, DecoderReproducesAlgebraTiles) {
  unsigned checked = 0;
  for (DTypeKind dtype : {DTypeKind::E4M3, DTypeKind::BF16, DTypeKind::TF32})
    for (MajorKind major : {MajorKind::K, MajorKind::MN})
      for (const SwizzleInfo &sw : allSwizzles())
        for (bool kFirst : {false, true})
          for (int64_t mma : {64, 128}) {
            int64_t e = dtypeBits(dtype) / 8, mmaK = 32 / e;
            int64_t width = sw.bytes / e;
            if (major == MajorKind::MN && mma % width != 0)
              continue;
            int64_t tileMN = 2 * mma;
            int64_t tileK = std::max<int64_t>(
                2 * mmaK, major == MajorKind::K ? 2 * width : 16);
            std::string atom =
                std::string(major == MajorKind::K ? "K_" : "MN_") +
                (sw.kind == SwizzleKind::None ? "INTER" : sw.name.str()) + "<" +
                dtypeInfo(dtype).name.str() + ">";
            std::string expr =
                "tile_to_shape(" + atom + ", (" + std::to_string(tileMN) + "," +
                std::to_string(tileK) + ")" + (kFirst ? ", (1,0))" : ")");
            auto value = evaluateLayoutExpr(expr);
            ASSERT_TRUE(bool(value)) << expr;
            auto tile = smemTileFromLayout(*value);
            ASSERT_TRUE(bool(tile)) << llvm::toString(tile.takeError());
            // The algebra's tile is the atom-definition tile.
            SmemTileLayout ref =
                atomTile(dtype, major, sw.kind, tileMN, tileK, kFirst);
            for (int64_t k = 0; k != tileK; ++k)
              for (int64_t mn = 0; mn != tileMN; ++mn)
                ASSERT_EQ(layoutByteAddress(*tile, dtype, 0, mn, k),
                          layoutByteAddress(ref, dtype, 0, mn, k))
                    << expr << " at (" << mn << "," << k << ")";
            for (ArchKind arch : {ArchKind::SM90a, ArchKind::SM100a}) {
              if (arch == ArchKind::SM90a && major == MajorKind::MN && e != 2)
                continue;
              uint64_t base = 8192;
              auto d = deriveSmemDescriptor(
                  *tile, {arch, dtype, major, mma, mmaK, base});
              ASSERT_TRUE(bool(d))
                  << expr << ": " << llvm::toString(d.takeError());
              for (size_t i = 0; i != d->subtileOffsets.size(); ++i)
                for (size_t j = 0; j != d->subtileOffsets[i].size(); ++j) {
                  auto got = decodeOperandAddresses(
                      d->desc + (d->subtileOffsets[i][j] >> 4), arch, dtype,
                      major, mma, mmaK);
                  ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
                  for (int64_t k = 0; k != mmaK; ++k)
                    for (int64_t mn = 0; mn != mma; ++mn)
                      ASSERT_EQ(got->at(mn, k),
                                layoutByteAddress(*tile, dtype, base,
                                                  i * mma + mn, j * mmaK + k))
                          << expr << " subtile (" << i << "," << j << ")";
                  ++checked;
                }
            }
          }
  EXPECT_GT(checked, 300u);
}

} // namespace
