//===- tests/unit/SmemDescriptorTest.cpp - Descriptor encodings and seeds -===//
//
// Expected values are typed from the seeds (PTX ISA examples, the Blackwell
// descriptor write-up, DeepGEMM, the CUTLASS wgmma notes) or worked out by
// hand from the bit table in the PTX ISA, never computed by the code here.
//
//===----------------------------------------------------------------------===//
#include "ir/arch/SmemDescriptor.h"
#include "ir/arch/DescriptorDecoder.h"
#include "ir/arch/DescriptorDerivation.h"
#include "tests/common/AtomTiles.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

using namespace tilec;
using namespace tilec::testing;

namespace {

DerivedDescriptor derive(const SmemTileLayout &tile, ArchKind arch,
                         DTypeKind dtype, MajorKind major, int64_t mn,
                         int64_t k, uint64_t base = 0) {
  DerivationRequest req{arch, dtype, major, mn, k, base};
  llvm::Expected<DerivedDescriptor> d = deriveSmemDescriptor(tile, req);
  if (!d) {
    ADD_FAILURE() << llvm::toString(d.takeError());
    return {};
  }
  return *d;
}

std::string deriveError(const SmemTileLayout &tile, ArchKind arch,
                        DTypeKind dtype, MajorKind major, int64_t mn, int64_t k,
                        uint64_t base = 0) {
  DerivationRequest req{arch, dtype, major, mn, k, base};
  llvm::Expected<DerivedDescriptor> d = deriveSmemDescriptor(tile, req);
  if (d) {
    ADD_FAILURE() << "expected an error";
    return "";
  }
  return llvm::toString(d.takeError());
}

// Header example: sm_100, SW128, start 0, LBO 16, SBO 1024.
TEST(SmemDescriptorTest, HeaderExample) {
  SmemDescriptorFields f;
  f.swizzle = SwizzleKind::SW128;
  f.lbo = 16;
  f.sbo = 1024;
  f.version = 1;
  llvm::Expected<uint64_t> d = encodeSmemDescriptor(f, ArchKind::SM100a);
  ASSERT_TRUE(bool(d));
  EXPECT_EQ(*d, 0x4000404000010000ull);
  EXPECT_EQ(formatHex64(*d), "0x4000404000010000");
}

TEST(SmemDescriptorTest, LayoutTypeCodes) {
  // PTX ISA: wgmma 0 interleave, 1 SW128, 2 SW64, 3 SW32; tcgen05 0 none,
  // 2 SW128, 4 SW64, 6 SW32.
  EXPECT_EQ(layoutTypeCode(SwizzleKind::None, ArchKind::SM90a), 0u);
  EXPECT_EQ(layoutTypeCode(SwizzleKind::SW128, ArchKind::SM90a), 1u);
  EXPECT_EQ(layoutTypeCode(SwizzleKind::SW64, ArchKind::SM90a), 2u);
  EXPECT_EQ(layoutTypeCode(SwizzleKind::SW32, ArchKind::SM90a), 3u);
  EXPECT_EQ(layoutTypeCode(SwizzleKind::None, ArchKind::SM100a), 0u);
  EXPECT_EQ(layoutTypeCode(SwizzleKind::SW128, ArchKind::SM100a), 2u);
  EXPECT_EQ(layoutTypeCode(SwizzleKind::SW64, ArchKind::SM100a), 4u);
  EXPECT_EQ(layoutTypeCode(SwizzleKind::SW32, ArchKind::SM100a), 6u);
}

TEST(SmemDescriptorTest, EncodeDecodeRoundTrip) {
  for (ArchKind arch : {ArchKind::SM90a, ArchKind::SM100a})
    for (const SwizzleInfo &sw : allSwizzles()) {
      SmemDescriptorFields f;
      f.swizzle = sw.kind;
      f.startAddress = 0x3FFF0;
      f.lbo = 8192;
      f.sbo = 0x3FFF0;
      f.baseOffset = 5;
      f.version = arch == ArchKind::SM100a ? 1 : 0;
      llvm::Expected<uint64_t> d = encodeSmemDescriptor(f, arch);
      ASSERT_TRUE(bool(d)) << llvm::toString(d.takeError());
      llvm::Expected<SmemDescriptorFields> back =
          decodeSmemDescriptor(*d, arch);
      ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
      EXPECT_EQ(back->swizzle, sw.kind);
      EXPECT_EQ(back->startAddress, 0x3FFF0u);
      EXPECT_EQ(back->lbo, 8192u);
      EXPECT_EQ(back->sbo, 0x3FFF0u);
      EXPECT_EQ(back->baseOffset, 5u);
      EXPECT_EQ(back->version, f.version);
    }
}

TEST(SmemDescriptorTest, EncodeErrors) {
  SmemDescriptorFields f;
  f.lbo = 24;
  llvm::Expected<uint64_t> d = encodeSmemDescriptor(f, ArchKind::SM90a);
  ASSERT_FALSE(bool(d));
  EXPECT_EQ(llvm::toString(d.takeError()),
            "lbo = 24 is not a multiple of 16 bytes (the descriptor stores it "
            "in 16-byte units)");
  f.lbo = 16;
  f.sbo = 1 << 18;
  d = encodeSmemDescriptor(f, ArchKind::SM90a);
  ASSERT_FALSE(bool(d));
  EXPECT_NE(llvm::toString(d.takeError()).find("sbo = 262144 does not fit"),
            std::string::npos);
  d = encodeSmemDescriptor(f, ArchKind::SM80);
  ASSERT_FALSE(bool(d));
  llvm::consumeError(d.takeError());
  // Layout type 5 is undefined on sm_100.
  llvm::Expected<SmemDescriptorFields> bad =
      decodeSmemDescriptor(uint64_t(5) << 61, ArchKind::SM100a);
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "layout type 5 is not defined for sm_100a (legal: 0, 1, 2, 4, 6)");
}

//===----------------------------------------------------------------------===//
// Seed 001: the PTX ISA's worked examples.
//===----------------------------------------------------------------------===//

// K-major, no swizzling, tf32: Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,64)),
// LBO = 64 * 4 bytes (encoded 16), SBO = 32 * 4 bytes (encoded 8).
TEST(SmemDescriptorSeed001, KMajorInterleaveTf32) {
  SmemTileLayout tile = literalTile({{8, 4}, {2, 32}}, {{4, 1}, {4, 64}});
  DerivedDescriptor d =
      derive(tile, ArchKind::SM90a, DTypeKind::TF32, MajorKind::K, 16, 8);
  EXPECT_EQ(d.fields.swizzle, SwizzleKind::None);
  EXPECT_EQ(d.fields.lbo, 64u * 4);
  EXPECT_EQ(d.fields.sbo, 32u * 4);
  EXPECT_EQ((d.desc >> 16) & 0x3FFF, 16u);
  EXPECT_EQ((d.desc >> 32) & 0x3FFF, 8u);
  EXPECT_EQ(d.canonicalLayout, "((8,2),(4,2)):((4,32),(1,64))");
}

// K-major, 32B swizzling, tf32: Swizzle<1,4,3> o ((8,2),(4,4)):((8,64),(1,4)),
// SBO = 64 * 4 bytes (encoded 16), LBO unused (encoded 1). The ISA's K mode
// (4,4):(1,4) spans 64 bytes, wider than the 32-byte swizzle row, so it would
// overlap the next row; one MMA's 32 bytes of K, (4,2):(1,4), is what the
// hardware reads.
TEST(SmemDescriptorSeed001, KMajorSw32Tf32) {
  SmemTileLayout tile =
      literalTile({{8, 8}, {2, 64}}, {{4, 1}, {2, 4}}, 1, 2, 3);
  DerivedDescriptor d =
      derive(tile, ArchKind::SM90a, DTypeKind::TF32, MajorKind::K, 16, 8);
  EXPECT_EQ(d.fields.swizzle, SwizzleKind::SW32);
  EXPECT_EQ(d.fields.sbo, 64u * 4);
  EXPECT_EQ((d.desc >> 16) & 0x3FFF, 1u);
  EXPECT_EQ((d.desc >> 32) & 0x3FFF, 16u);
  EXPECT_EQ((d.desc >> 62), 3u); // SW32 on sm_90.
  // The ISA's literal K mode overlaps rows: the derivation says so.
  SmemTileLayout literal =
      literalTile({{8, 8}, {2, 64}}, {{4, 1}, {4, 4}}, 1, 2, 3);
  EXPECT_NE(deriveError(literal, ArchKind::SM90a, DTypeKind::TF32, MajorKind::K,
                        16, 8)
                .find("not one-to-one"),
            std::string::npos);
}

// MN-major, no swizzling, bf16: ((8,1,2),(8,2)):((1,8,64),(8,128)),
// LBO = 128 * 2 bytes (encoded 16), SBO = 64 * 2 bytes (encoded 8).
TEST(SmemDescriptorSeed001, MNMajorInterleaveBf16) {
  SmemTileLayout tile =
      literalTile({{8, 1}, {1, 8}, {2, 64}}, {{8, 8}, {2, 128}});
  DerivedDescriptor d =
      derive(tile, ArchKind::SM90a, DTypeKind::BF16, MajorKind::MN, 16, 16);
  EXPECT_EQ(d.fields.lbo, 128u * 2);
  EXPECT_EQ(d.fields.sbo, 64u * 2);
  EXPECT_EQ((d.desc >> 16) & 0x3FFF, 16u);
  EXPECT_EQ((d.desc >> 32) & 0x3FFF, 8u);
  EXPECT_EQ(d.canonicalLayout, "((8,1,2),(8,2)):((1,8,64),(8,128))");
}

// MN-major, 32B swizzling, bf16: ((8,2,2),(8,2)):((1,8,128),(16,256)),
// LBO = 128 * 2 (encoded 16), SBO = 256 * 2 (encoded 32).
TEST(SmemDescriptorSeed001, MNMajorSw32Bf16) {
  SmemTileLayout tile =
      literalTile({{8, 1}, {2, 8}, {2, 128}}, {{8, 16}, {2, 256}}, 1, 3, 3);
  DerivedDescriptor d =
      derive(tile, ArchKind::SM90a, DTypeKind::BF16, MajorKind::MN, 32, 16);
  EXPECT_EQ(d.fields.lbo, 128u * 2);
  EXPECT_EQ(d.fields.sbo, 256u * 2);
  EXPECT_EQ((d.desc >> 16) & 0x3FFF, 16u);
  EXPECT_EQ((d.desc >> 32) & 0x3FFF, 32u);
  EXPECT_EQ(d.canonicalLayout, "((8,2,2),(8,2)):((1,8,128),(16,256))");
}

// MN-major, 64B swizzling, bf16: ((8,4,2),(8,2)):((1,8,256),(32,512)),
// LBO = 256 * 2 (encoded 32), SBO = 512 * 2 (encoded 64).
TEST(SmemDescriptorSeed001, MNMajorSw64Bf16) {
  SmemTileLayout tile =
      literalTile({{8, 1}, {4, 8}, {2, 256}}, {{8, 32}, {2, 512}}, 2, 3, 3);
  DerivedDescriptor d =
      derive(tile, ArchKind::SM90a, DTypeKind::BF16, MajorKind::MN, 64, 16);
  EXPECT_EQ(d.fields.lbo, 256u * 2);
  EXPECT_EQ(d.fields.sbo, 512u * 2);
  EXPECT_EQ((d.desc >> 16) & 0x3FFF, 32u);
  EXPECT_EQ((d.desc >> 32) & 0x3FFF, 64u);
  EXPECT_EQ((d.desc >> 62), 2u); // SW64 on sm_90.
}

//===----------------------------------------------------------------------===//
// Seed 002: the Blackwell worked examples, fields and offset tables.
//===----------------------------------------------------------------------===//

TEST(SmemDescriptorSeed002, KMajorSw128Bf16) {
  // tile_to_shape(K_SW128<bf16>, (128,128)) =
  // ((8,16),(64,2)):((64,512),(1,8192))
  SmemTileLayout tile =
      literalTile({{8, 64}, {16, 512}}, {{64, 1}, {2, 8192}}, 3, 3, 3);
  DerivedDescriptor d =
      derive(tile, ArchKind::SM100a, DTypeKind::BF16, MajorKind::K, 64, 16);
  EXPECT_EQ((d.desc >> 61), 2u); // SWIZZLE_128B
  EXPECT_EQ(d.fields.sbo, 1024u);
  EXPECT_EQ(d.fields.lbo, 16u);
  EXPECT_EQ((d.desc >> 32) & 0x3FFF, 64u);
  EXPECT_EQ((d.desc >> 16) & 0x3FFF, 1u);
  EXPECT_EQ(d.desc, 0x4000404000010000ull);
  std::vector<std::vector<uint64_t>> table = {
      {0, 32, 64, 96, 16384, 16416, 16448, 16480},
      {8192, 8224, 8256, 8288, 24576, 24608, 24640, 24672}};
  EXPECT_EQ(d.subtileOffsets, table);
  // The same tile built from the atom definition agrees.
  DerivedDescriptor a =
      derive(atomTile(DTypeKind::BF16, MajorKind::K, SwizzleKind::SW128, 128,
                      128, false),
             ArchKind::SM100a, DTypeKind::BF16, MajorKind::K, 64, 16);
  EXPECT_EQ(a.desc, d.desc);
  EXPECT_EQ(a.subtileOffsets, table);
}

TEST(SmemDescriptorSeed002, MNMajorSw64Bf16) {
  // tile_to_shape(MN_SW64<bf16>, (128,128), order(1,0))
  //   = ((32,4),(8,16)):((1,4096),(32,256))
  SmemTileLayout tile =
      literalTile({{32, 1}, {4, 4096}}, {{8, 32}, {16, 256}}, 2, 3, 3);
  DerivedDescriptor d =
      derive(tile, ArchKind::SM100a, DTypeKind::BF16, MajorKind::MN, 64, 16);
  EXPECT_EQ((d.desc >> 61), 4u); // SWIZZLE_64B
  EXPECT_EQ(d.fields.sbo, 512u);
  EXPECT_EQ(d.fields.lbo, 8192u);
  EXPECT_EQ((d.desc >> 32) & 0x3FFF, 32u);
  EXPECT_EQ((d.desc >> 16) & 0x3FFF, 512u);
  EXPECT_EQ(d.desc, 0x8000402002000000ull);
  std::vector<std::vector<uint64_t>> table = {
      {0, 1024, 2048, 3072, 4096, 5120, 6144, 7168},
      {16384, 17408, 18432, 19456, 20480, 21504, 22528, 23552}};
  EXPECT_EQ(d.subtileOffsets, table);
  DerivedDescriptor a =
      derive(atomTile(DTypeKind::BF16, MajorKind::MN, SwizzleKind::SW64, 128,
                      128, true),
             ArchKind::SM100a, DTypeKind::BF16, MajorKind::MN, 64, 16);
  EXPECT_EQ(a.desc, d.desc);
  EXPECT_EQ(a.subtileOffsets, table);
}

//===----------------------------------------------------------------------===//
// Seed 003: DeepGEMM's SW128 K-major convention.
//===----------------------------------------------------------------------===//

// DeepGEMM builds layout_type 1 (128B swizzle), LBO 0, SBO 1024, base offset
// 0 from a 1024-byte aligned tile: 0x4000004000000000 | start >> 4.
TEST(SmemDescriptorSeed003, DeepGemmSw128KMajor) {
  SmemTileLayout tile = atomTile(DTypeKind::E4M3, MajorKind::K,
                                 SwizzleKind::SW128, 128, 128, false);
  uint64_t base = 3 * 1024;
  DerivedDescriptor d = derive(tile, ArchKind::SM90a, DTypeKind::E4M3,
                               MajorKind::K, 64, 32, base);
  EXPECT_EQ(d.desc >> 62, 1u);
  EXPECT_EQ(d.fields.sbo, 1024u);
  EXPECT_EQ(d.fields.baseOffset, 0u);
  EXPECT_EQ(d.fields.startAddress, base);
  // Ours differs from DeepGEMM's only in the unused LBO; both read the same
  // bytes.
  uint64_t deepGemm = 0x4000004000000000ull | (base >> 4);
  EXPECT_EQ(d.desc & ~(0x3FFFull << 16), deepGemm);
  auto ours = decodeOperandAddresses(d.desc, ArchKind::SM90a, DTypeKind::E4M3,
                                     MajorKind::K, 64, 32);
  auto theirs = decodeOperandAddresses(deepGemm, ArchKind::SM90a,
                                       DTypeKind::E4M3, MajorKind::K, 64, 32);
  ASSERT_TRUE(bool(ours) && bool(theirs));
  EXPECT_EQ(ours->bytes, theirs->bytes);
  // The second warpgroup's A (math_wg_idx * WGMMA::M * BLOCK_K bytes on).
  ASSERT_GE(d.subtileOffsets.size(), 2u);
  ASSERT_GE(d.subtileOffsets[1].size(), 1u);
  EXPECT_EQ(d.subtileOffsets[1][0], 64u * 128);
  // Not 1024-byte aligned: an error, not a silent base offset.
  std::string err = deriveError(tile, ArchKind::SM90a, DTypeKind::E4M3,
                                MajorKind::K, 64, 32, base + 512);
  EXPECT_EQ(err, "the tile's base address 3584 is not 1024-byte aligned, as "
                 "the SW128 swizzle pattern requires (a base offset of 4 "
                 "would be needed; tilec derives base offset 0 only)");
}

//===----------------------------------------------------------------------===//
// Seed 004: descriptor-iterator strides of the MN-major SW128 example.
//===----------------------------------------------------------------------===//

// sA = ((64,2),(8,8),3):((1,512),(64,1024),8192) in half_t, 64 x 16 MMA:
// the iterator strides are 64 (MMA_M), 256 (MMA_K), 1024 (PIPE) in 16-byte
// units.
TEST(SmemDescriptorSeed004, MNMajorSw128IteratorStrides) {
  SmemTileLayout tile =
      literalTile({{64, 1}, {2, 512}}, {{8, 64}, {8, 1024}}, 3, 3, 3);
  DerivedDescriptor d0 =
      derive(tile, ArchKind::SM90a, DTypeKind::F16, MajorKind::MN, 64, 16);
  ASSERT_GE(d0.subtileOffsets.size(), 2u);
  ASSERT_GE(d0.subtileOffsets[0].size(), 2u);
  ASSERT_GE(d0.subtileOffsets[1].size(), 1u);
  EXPECT_EQ(d0.subtileOffsets[1][0] / 16, 64u);
  EXPECT_EQ(d0.subtileOffsets[0][1] / 16, 256u);
  DerivedDescriptor d1 = derive(tile, ArchKind::SM90a, DTypeKind::F16,
                                MajorKind::MN, 64, 16, 8192 * 2);
  EXPECT_EQ(d1.desc - d0.desc, 1024u);
  EXPECT_EQ(d0.fields.sbo, 2048u);
}

//===----------------------------------------------------------------------===//
// Errors, not silent garbage.
//===----------------------------------------------------------------------===//

TEST(SmemDescriptorErrors, Messages) {
  SmemTileLayout kSw128 = atomTile(DTypeKind::BF16, MajorKind::K,
                                   SwizzleKind::SW128, 128, 64, false);
  EXPECT_EQ(deriveError(kSw128, ArchKind::SM90a, DTypeKind::BF16, MajorKind::K,
                        64, 32),
            "MMA K = 32 bf16 is 64 bytes; a tensor-core operand is 32 bytes "
            "along K (K = 16 for bf16)");
  EXPECT_EQ(deriveError(kSw128, ArchKind::SM90a, DTypeKind::BF16, MajorKind::K,
                        48, 16),
            "the tile's MN = 128 is not a multiple of the MMA MN = 48");
  SmemTileLayout narrow =
      atomTile(DTypeKind::BF16, MajorKind::K, SwizzleKind::SW64, 64, 32, false);
  narrow.swizzleB = 3; // SW128 claims a 64-element row; the tile has 32.
  EXPECT_EQ(deriveError(narrow, ArchKind::SM90a, DTypeKind::BF16, MajorKind::K,
                        64, 16),
            "the 64 x 32 tile does not cover whole SW128 K-major atoms of 8 x "
            "64 bf16 (MN must be a multiple of 8 and K of 64)");
  SmemTileLayout wide =
      atomTile(DTypeKind::BF16, MajorKind::K, SwizzleKind::SW64, 64, 64, false);
  wide.swizzleB = 3; // Rows of 64 bytes under a 128-byte swizzle.
  EXPECT_EQ(
      deriveError(wide, ArchKind::SM90a, DTypeKind::BF16, MajorKind::K, 64, 16),
      "the stride between the 8 rows of a core matrix (one atom row) is "
      "64 bytes; the canonical K-major SW128 layout needs 128 bytes");
  SmemTileLayout mn = atomTile(DTypeKind::E4M3, MajorKind::MN,
                               SwizzleKind::SW128, 128, 64, false);
  EXPECT_EQ(
      deriveError(mn, ArchKind::SM90a, DTypeKind::E4M3, MajorKind::MN, 64, 32),
      "wgmma reads MN-major operands only for 16-bit types (f16, bf16); "
      "e4m3 must be K-major");
  SmemTileLayout mnBf16 = atomTile(DTypeKind::BF16, MajorKind::MN,
                                   SwizzleKind::SW128, 128, 64, false);
  EXPECT_EQ(deriveError(mnBf16, ArchKind::SM90a, DTypeKind::BF16, MajorKind::MN,
                        32, 16),
            "MMA MN = 32 does not cover a whole SW128 MN-major atom (64 bf16 "
            "along MN); use MN a multiple of 64 or a narrower swizzle");
  SmemTileLayout badSwizzle = kSw128;
  badSwizzle.swizzleM = 4;
  EXPECT_EQ(deriveError(badSwizzle, ArchKind::SM90a, DTypeKind::BF16,
                        MajorKind::K, 64, 16),
            "Sw<3,4,3> is not a tensor-core swizzle for bf16 (legal: "
            "Sw<1,3,3>, Sw<2,3,3>, Sw<3,3,3> or none)");
  // A row-major (K-contiguous) tile claimed MN-major.
  SmemTileLayout rowMajor = literalTile({{64, 64}}, {{64, 1}});
  EXPECT_EQ(deriveError(rowMajor, ArchKind::SM90a, DTypeKind::BF16,
                        MajorKind::MN, 64, 16),
            "the MN stride inside a 16-byte chunk is 128 bytes; the canonical "
            "MN-major none layout needs 2 bytes");
  // Uneven 8-row groups: no canonical form.
  SmemTileLayout uneven =
      literalTile({{8, 8}, {2, 64}, {2, 192}}, {{8, 1}, {2, 512}});
  std::string err = deriveError(uneven, ArchKind::SM90a, DTypeKind::BF16,
                                MajorKind::K, 32, 16);
  EXPECT_NE(err.find("element (mn=16, k=0) of the MMA subtile is at byte 384"),
            std::string::npos)
      << err;
}

//===----------------------------------------------------------------------===//
// Property: the decoder reproduces the layout for every subtile.
//===----------------------------------------------------------------------===//

TEST(SmemDescriptorProperty, DecoderReproducesLayout) {
  unsigned checked = 0;
  for (ArchKind arch : {ArchKind::SM90a, ArchKind::SM100a})
    for (DTypeKind dtype : {DTypeKind::E4M3, DTypeKind::BF16, DTypeKind::TF32})
      for (MajorKind major : {MajorKind::K, MajorKind::MN})
        for (const SwizzleInfo &sw : allSwizzles())
          for (bool kFirst : {false, true})
            for (int64_t mma : {64, 128, 256}) {
              if (arch == ArchKind::SM90a && major == MajorKind::MN &&
                  dtypeBits(dtype) != 16)
                continue;
              int64_t e = dtypeBits(dtype) / 8, mmaK = 32 / e;
              int64_t width = sw.bytes / e;
              if (major == MajorKind::MN && mma % width != 0)
                continue;
              int64_t tileMN = 2 * std::max<int64_t>(mma, 64);
              int64_t tileK = std::max<int64_t>(
                  2 * mmaK, major == MajorKind::K ? 2 * width : 16);
              for (uint64_t base : {uint64_t(0), uint64_t(4096)}) {
                SmemTileLayout tile =
                    atomTile(dtype, major, sw.kind, tileMN, tileK, kFirst);
                DerivedDescriptor d =
                    derive(tile, arch, dtype, major, mma, mmaK, base);
                for (size_t i = 0; i != d.subtileOffsets.size(); ++i)
                  for (size_t j = 0; j != d.subtileOffsets[i].size(); ++j) {
                    uint64_t desc = d.desc + (d.subtileOffsets[i][j] >> 4);
                    auto got = decodeOperandAddresses(desc, arch, dtype, major,
                                                      mma, mmaK);
                    ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
                    for (int64_t k = 0; k != mmaK; ++k)
                      for (int64_t mn = 0; mn != mma; ++mn)
                        ASSERT_EQ(got->at(mn, k),
                                  layoutByteAddress(tile, dtype, base,
                                                    i * mma + mn, j * mmaK + k))
                            << archInfo(arch).name.str() << " "
                            << dtypeInfo(dtype).name.str() << " "
                            << majorName(major).str() << " " << sw.name.str()
                            << " subtile (" << i << "," << j << ") elem (" << mn
                            << "," << k << ")";
                    ++checked;
                  }
              }
            }
  EXPECT_GT(checked, 500u);
}

// The decoder's own header example.
TEST(DescriptorDecoderTest, HeaderExample) {
  SmemDescriptorFields f;
  f.swizzle = SwizzleKind::SW128;
  f.lbo = 16;
  f.sbo = 1024;
  uint64_t desc = *encodeSmemDescriptor(f, ArchKind::SM90a);
  auto a = decodeOperandAddresses(desc, ArchKind::SM90a, DTypeKind::BF16,
                                  MajorKind::K, 64, 16);
  ASSERT_TRUE(bool(a));
  EXPECT_EQ(a->at(1, 0), 144u);
  EXPECT_EQ(a->at(9, 8), 1152u);
}

} // namespace
