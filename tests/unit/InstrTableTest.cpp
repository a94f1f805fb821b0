//===- tests/unit/InstrTableTest.cpp - The tensor-core instruction table --===//
//
// Checks rows against facts written here from the PTX ISA, not computed by
// the table: spellings, the 32-byte K of every MMA, the N ranges.
//
//===----------------------------------------------------------------------===//
#include "ir/arch/InstrTable.h"

#include <gtest/gtest.h>

using namespace tilec;

namespace {

TEST(InstrTableTest, HeaderExample) {
  // Example from InstrTable.h: bf16 x bf16 -> f32 wgmma.
  InstrLookup lookup =
      lookupInstr({MmaFamilyKind::Wgmma, 64, 256, 16}, ArchKind::SM90a,
                  DTypeKind::BF16, DTypeKind::BF16, DTypeKind::F32);
  ASSERT_TRUE(lookup.row) << lookup.error;
  EXPECT_EQ(lookup.row->m, 64u);
  EXPECT_EQ(lookup.row->nMin, 8u);
  EXPECT_EQ(lookup.row->nMax, 256u);
  EXPECT_EQ(lookup.row->nStep, 8u);
  EXPECT_EQ(lookup.row->k, 16u);
  EXPECT_TRUE(lookup.row->mnMajorA);
  EXPECT_EQ(lookup.row->ptxVersion, 80u);
}

TEST(InstrTableTest, EveryRowReadsThirtyTwoBytesOfK) {
  for (const InstrInfo &row : allInstrs()) {
    EXPECT_EQ(row.k * dtypeBits(row.aType), 256u) << ptxSpelling(row, row.nMin);
    EXPECT_EQ(dtypeBits(row.aType), dtypeBits(row.bType));
    EXPECT_TRUE(row.allowsN(row.nMin));
    EXPECT_TRUE(row.allowsN(row.nMax));
    EXPECT_FALSE(row.allowsN(row.nMax + row.nStep));
    EXPECT_EQ(row.arch == ArchKind::SM80, row.family == MmaFamilyKind::MmaSync);
  }
}

TEST(InstrTableTest, PtxSpellings) {
  InstrLookup sync =
      lookupInstr({MmaFamilyKind::MmaSync, 16, 8, 16}, ArchKind::SM80,
                  DTypeKind::BF16, DTypeKind::BF16, DTypeKind::F32);
  ASSERT_TRUE(sync.row);
  EXPECT_EQ(ptxSpelling(*sync.row, 8),
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
  InstrLookup wg =
      lookupInstr({MmaFamilyKind::Wgmma, 64, 128, 32}, ArchKind::SM90a,
                  DTypeKind::E4M3, DTypeKind::E5M2, DTypeKind::F32);
  ASSERT_TRUE(wg.row) << wg.error;
  EXPECT_EQ(ptxSpelling(*wg.row, 128),
            "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2");
  InstrLookup tc =
      lookupInstr({MmaFamilyKind::Tcgen05, 128, 256, 16}, ArchKind::SM100a,
                  DTypeKind::F16, DTypeKind::F16, DTypeKind::F32);
  ASSERT_TRUE(tc.row) << tc.error;
  EXPECT_EQ(ptxSpelling(*tc.row, 256), "tcgen05.mma.cta_group::1.kind::f16");
}

TEST(InstrTableTest, ParsesAndFormatsNames) {
  std::optional<InstrName> name = parseInstrName("tcgen05.mma.m128n256k16");
  ASSERT_TRUE(name);
  EXPECT_EQ(name->family, MmaFamilyKind::Tcgen05);
  EXPECT_EQ(name->m, 128u);
  EXPECT_EQ(name->n, 256u);
  EXPECT_EQ(name->k, 16u);
  EXPECT_EQ(formatInstrName(*name), "tcgen05.mma.m128n256k16");
  for (const char *bad :
       {"wgmma", "wgmma.m64", "wgmma.m64n0k16", "mma.m16n8k16",
        "wgmma.m64nXk16", "wgmma.m64n8k16x", ""})
    EXPECT_FALSE(parseInstrName(bad)) << bad;
}

TEST(InstrTableTest, LookupErrorsSayWhatIsLegal) {
  auto error = [](InstrName name, ArchKind arch, DTypeKind a, DTypeKind acc) {
    return lookupInstr(name, arch, a, a, acc).error;
  };
  EXPECT_EQ(
      error({MmaFamilyKind::Tcgen05, 128, 128, 16}, ArchKind::SM90a,
            DTypeKind::F16, DTypeKind::F32),
      "tcgen05.mma is issued on sm_100a, not on sm_90a; sm_90a uses wgmma");
  EXPECT_EQ(error({MmaFamilyKind::Wgmma, 64, 128, 16}, ArchKind::SM90a,
                  DTypeKind::BF16, DTypeKind::F16),
            "wgmma has no bf16 x bf16 -> f16 form; legal accumulators: f32");
  EXPECT_EQ(error({MmaFamilyKind::Wgmma, 64, 128, 32}, ArchKind::SM90a,
                  DTypeKind::BF16, DTypeKind::F32),
            "wgmma.m64n128k32 does not exist for bf16; wgmma takes M = 64 with "
            "K = 16");
  EXPECT_EQ(error({MmaFamilyKind::Tcgen05, 128, 20, 16}, ArchKind::SM100a,
                  DTypeKind::BF16, DTypeKind::F32),
            "N = 20 is not legal for tcgen05.mma with M = 128; N must be "
            "8..256 in steps of 8");
  EXPECT_EQ(error({MmaFamilyKind::Tcgen05, 256, 24, 16}, ArchKind::SM100a,
                  DTypeKind::BF16, DTypeKind::F32),
            "N = 24 is not legal for tcgen05.mma with M = 256; N must be "
            "16..256 in steps of 16");
  EXPECT_EQ(error({MmaFamilyKind::MmaSync, 16, 8, 32}, ArchKind::SM80,
                  DTypeKind::I8, DTypeKind::F32),
            "mma.sync on sm_80 has no i8 x i8 form; legal A types: bf16, f16, "
            "tf32");
}

TEST(InstrTableTest, InstrForGivesTheFamilysKAndMajorness) {
  // K is 32 bytes of A on every family (the PTX ISA's shape tables).
  const InstrInfo *tf32 = instrFor(MmaFamilyKind::Wgmma, DTypeKind::TF32);
  ASSERT_NE(tf32, nullptr);
  EXPECT_EQ(tf32->k, 8u);
  EXPECT_FALSE(tf32->mnMajorA);
  const InstrInfo *bf16 = instrFor(MmaFamilyKind::Wgmma, DTypeKind::BF16);
  ASSERT_NE(bf16, nullptr);
  EXPECT_EQ(bf16->k, 16u);
  EXPECT_TRUE(bf16->mnMajorA && bf16->mnMajorB);
  const InstrInfo *e5m2 = instrFor(MmaFamilyKind::Tcgen05, DTypeKind::E5M2);
  ASSERT_NE(e5m2, nullptr);
  EXPECT_EQ(e5m2->k, 32u);
  EXPECT_EQ(instrFor(MmaFamilyKind::Wgmma, DTypeKind::F32), nullptr);
  EXPECT_EQ(instrFor(MmaFamilyKind::MmaSync, DTypeKind::E4M3), nullptr);
}

} // namespace
