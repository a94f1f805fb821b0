//===- tests/unit/Sm90EpilogueTest.cpp - The sm_90a staging tile ----------===//
//
// sm90EpilogueTile's choices (chunk shape, swizzle atom, buffers) and its
// errors, the staging layouts against the swizzle atoms' definitions (seed
// 000: a K-major atom row of 16 * 2^B bytes XORs its 16-byte chunk index
// with the row mod 2^B), and what the epilogue adds to the shared-memory
// budget. Expected values are worked out by hand.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90Gemm.h"
#include "ir/layout/LayoutExpr.h"

#include <gtest/gtest.h>

namespace tilec {
namespace {

Sm90GemmConfig configOf(unsigned bn, bool swap, DTypeKind c = DTypeKind::BF16,
                        unsigned swizzleBytes = 0) {
  Sm90GemmConfig config;
  config.bm = 128;
  config.bn = bn;
  config.swapAB = swap;
  config.cType = c;
  config.storeSwizzleBytes = swizzleBytes;
  return config;
}

EpilogueStagingTile tileOf(const Sm90GemmConfig &config) {
  auto tile = sm90EpilogueTile(config);
  EXPECT_TRUE(bool(tile)) << llvm::toString(tile.takeError());
  EXPECT_TRUE(tile->has_value());
  return **tile;
}

// The header's example: 128x256 bf16.
TEST(EpilogueStagingTile, HeaderExample) {
  EpilogueStagingTile tile = tileOf(configOf(256, false));
  EXPECT_EQ(tile.layout, "tile_to_shape(K_SW128<bf16>, (64,64))");
  EXPECT_EQ(tile.rows, 64u);
  EXPECT_EQ(tile.cols, 64u);
  EXPECT_EQ(tile.chunks, 4u);
  EXPECT_EQ(tile.bytes, 8192u);
  EXPECT_EQ(tile.buffers, 2u);
  EXPECT_EQ(tile.swizzleBytes, 128u);
  EXPECT_FALSE(tile.transposed);
}

TEST(EpilogueStagingTile, WidestRowThatDividesTheTile) {
  // BN 200 = 25 x 8: only 16-byte rows (8 bf16) divide it.
  EpilogueStagingTile n200 = tileOf(configOf(200, false));
  EXPECT_EQ(n200.layout, "tile_to_shape(K_INTER<bf16>, (64,8))");
  EXPECT_EQ(n200.chunks, 25u);
  EXPECT_EQ(n200.swizzleBytes, 0u);
  // BN 96 = 3 x 32: 64-byte rows.
  EpilogueStagingTile n96 = tileOf(configOf(96, false, DTypeKind::F16));
  EXPECT_EQ(n96.layout, "tile_to_shape(K_SW64<f16>, (64,32))");
  EXPECT_EQ(n96.chunks, 3u);
  // One chunk needs one buffer.
  EXPECT_EQ(tileOf(configOf(64, false)).buffers, 1u);
  // A written swizzle narrows the chunk.
  EpilogueStagingTile sw32 = tileOf(configOf(256, false, DTypeKind::BF16, 32));
  EXPECT_EQ(sw32.layout, "tile_to_shape(K_SW32<bf16>, (64,16))");
  EXPECT_EQ(sw32.chunks, 16u);
  EXPECT_EQ(sw32.bytes, 2048u);
}

TEST(EpilogueStagingTile, SwapStagesTheTransposeInRowChunks) {
  // With swap-AB the warpgroup's 64 A-role rows are C's columns (one
  // 128-byte row); the wgmma N (C's rows) goes out 64, 32, 16 or 8 rows at
  // a time.
  EpilogueStagingTile n64 = tileOf(configOf(64, true));
  EXPECT_TRUE(n64.transposed);
  EXPECT_EQ(n64.layout, "tile_to_shape(K_SW128<bf16>, (64,64))");
  EXPECT_EQ(n64.chunks, 1u);
  EpilogueStagingTile n24 = tileOf(configOf(24, true));
  EXPECT_EQ(n24.rows, 8u);
  EXPECT_EQ(n24.cols, 64u);
  EXPECT_EQ(n24.chunks, 3u);
  EXPECT_EQ(n24.layout, "tile_to_shape(K_SW128<bf16>, (8,64))");
}

TEST(EpilogueStagingTile, DirectStoresNeedNoTile) {
  auto f32 = sm90EpilogueTile(configOf(256, false, DTypeKind::F32));
  ASSERT_TRUE(bool(f32));
  EXPECT_FALSE(f32->has_value());
  Sm90GemmConfig off = configOf(256, false);
  off.storeTma = false;
  auto none = sm90EpilogueTile(off);
  ASSERT_TRUE(bool(none));
  EXPECT_FALSE(none->has_value());
}

TEST(EpilogueStagingTile, ErrorsSayWhatIsLegal) {
  auto bad = sm90EpilogueTile(configOf(200, false, DTypeKind::BF16, 128));
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "BN = 200 is not a multiple of the 64 bf16 columns of a "
            "128-byte staging row; use a row of at most 16 bytes or a BN "
            "that it divides");
  auto swapped = sm90EpilogueTile(configOf(64, true, DTypeKind::BF16, 64));
  ASSERT_FALSE(bool(swapped));
  EXPECT_NE(llvm::toString(swapped.takeError())
                .find("the epilogue takes swizzle(128B), not 64B"),
            std::string::npos);
  auto odd = sm90EpilogueTile(configOf(64, false, DTypeKind::BF16, 48));
  ASSERT_FALSE(bool(odd));
  EXPECT_NE(llvm::toString(odd.takeError()).find("legal: 16 (none), 32, 64"),
            std::string::npos);
}

// The staging layouts are the swizzle atoms TMA writes: in K_SW128<bf16>
// row r, column c (elements) sits at 64 r + 8 ((c / 8) ^ (r % 8)) + c % 8;
// in K_SW64<bf16> at 32 r + 8 ((c / 8) ^ ((r / 2) % 4)) + c % 8 within
// each 8-row atom.
TEST(EpilogueStagingTile, LayoutsAreTheTmaSwizzles) {
  auto sw128 = evaluateLayoutExpr("tile_to_shape(K_SW128<bf16>, (64,64))");
  ASSERT_TRUE(bool(sw128)) << llvm::toString(sw128.takeError());
  for (int64_t r = 0; r < 64; ++r)
    for (int64_t c = 0; c < 64; ++c)
      ASSERT_EQ(sw128->getComposed()({r, c}),
                64 * r + 8 * ((c / 8) ^ (r % 8)) + c % 8)
          << r << ", " << c;
  auto sw64 = evaluateLayoutExpr("tile_to_shape(K_SW64<bf16>, (64,32))");
  ASSERT_TRUE(bool(sw64)) << llvm::toString(sw64.takeError());
  for (int64_t r = 0; r < 64; ++r)
    for (int64_t c = 0; c < 32; ++c)
      ASSERT_EQ(sw64->getComposed()({r, c}),
                32 * r + 8 * ((c / 8) ^ ((r / 2) % 4)) + c % 8)
          << r << ", " << c;
}

TEST(EpilogueStagingTile, SharedBytesCountTheStaging) {
  // 1024 slack + 2 warpgroups x 2 buffers x 8192 + 2 C-load mbarriers (16)
  // + 4 x 49152 + 4 x 16 + 16.
  EXPECT_EQ(sm90SharedBytes(configOf(256, false)), 230496u);
  Sm90GemmConfig direct = configOf(256, false);
  direct.storeTma = false;
  EXPECT_EQ(sm90SharedBytes(direct), 197712u);
}

} // namespace
} // namespace tilec
