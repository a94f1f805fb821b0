//===- tests/unit/PtxDescriptorScanTest.cpp - Descriptors found in PTX ----===//
#include "ir/ptx/PtxDescriptorScan.h"

#include <gtest/gtest.h>

using namespace tilec;

namespace {

// The header's example: 4611686293305360384 = 0x4000004000010000.
TEST(PtxDescriptorScanTest, HeaderExample) {
  const char *ptx = R"(.version 8.0
.target sm_90a
.address_size 64
  mov.b64 %rd1, 4611686293305360384;
  add.s64 %rd2, %rd1, 2;
  wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%f1, %f2}, %rd1, %rd2, p, 1, 1, 0, 0;
  wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%f1, %f2}, %rd1, %rd9, p, 1, 1, 0, 0;
)";
  std::vector<PtxDescriptorUse> uses = scanPtxDescriptors(ptx);
  ASSERT_EQ(uses.size(), 4u);
  EXPECT_EQ(uses[0].line, 6u);
  EXPECT_EQ(uses[0].role, PtxDescriptorUse::RoleKind::SmemA);
  ASSERT_TRUE(uses[0].value.has_value());
  EXPECT_EQ(*uses[0].value, 0x4000004000010000ull);
  EXPECT_EQ(uses[0].description, "SW128 start=0 LBO=16 SBO=1024 base_offset=0");
  EXPECT_EQ(uses[1].description,
            "SW128 start=32 LBO=16 SBO=1024 base_offset=0");
  EXPECT_EQ(uses[3].operand, "%rd9");
  EXPECT_EQ(uses[3].description, "not known statically");
}

TEST(PtxDescriptorScanTest, Tcgen05) {
  const char *ptx = R"(.target sm_100a
  mov.b64 %rd3, 0x4000404000010000;
  mov.b32 %r5, 138413200;
  tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd3, %rd3, %r5, %p1;
)";
  std::vector<PtxDescriptorUse> uses = scanPtxDescriptors(ptx);
  ASSERT_EQ(uses.size(), 3u);
  EXPECT_EQ(uses[0].description,
            "SW128 start=0 LBO=16 SBO=1024 base_offset=0 version=1 "
            "lbo_mode=0");
  EXPECT_EQ(uses[2].role, PtxDescriptorUse::RoleKind::Instr);
  // 138413200 = 0x08400490.
  EXPECT_EQ(uses[2].description,
            "kind::f16 bf16 x bf16 -> f32 M=128 N=256 A:K B:K");
}

// The header's example of a partially known descriptor.
TEST(PtxDescriptorScanTest, PartialHeaderExample) {
  EXPECT_EQ(describePartialSmemDescriptor({0x4000004000010002ull, 0x3FC0},
                                          ArchKind::SM90a),
            "SW128 LBO=16 SBO=1024 base_offset=0 start=<1024-byte aligned "
            "run-time smem address>+32");
  // Known values decode as plain descriptors.
  EXPECT_EQ(describePartialSmemDescriptor({0x4000004000010002ull, 0},
                                          ArchKind::SM90a),
            "SW128 start=32 LBO=16 SBO=1024 base_offset=0");
  // Run-time bits that may carry out of the 14-bit start field.
  EXPECT_NE(describePartialSmemDescriptor({0x4000004000010002ull, 0x3FFF},
                                          ArchKind::SM90a)
                .find("not known statically"),
            std::string::npos);
  EXPECT_NE(describePartialSmemDescriptor({0x4000004000010000ull, 0xFFFFF},
                                          ArchKind::SM90a)
                .find("not known statically"),
            std::string::npos);
  EXPECT_EQ(
      describeSmemDescriptorLayout(0x4000004000010000ull, ArchKind::SM90a),
      "SW128 LBO=16 SBO=1024 base_offset=0");
}

// The shape of tilec's sm_90a descriptors: (addr >> 4) & 0x3FC0, widened,
// or'ed with the high bits that carry the k16 advance (2 = 32 B).
TEST(PtxDescriptorScanTest, RunTimeBaseAddress) {
  const char *ptx = R"(.target sm_90a
.visible .entry k()
{
	shr.u32 	%r60, %r57, 4;
	and.b32 	%r61, %r60, 16320;
	cvt.u64.u32 	%rd15, %r61;
	or.b64 	%rd9, %rd15, 4611686293305360386;
	shl.b32 	%r70, %r57, 2;
	add.s64 	%rd20, %rd15, 4611686293305360384;
	add.s64 	%rd21, %rd20, 512;
	// begin inline asm
	// tilec: a-desc subtile (m=1, k=0) at +8192 B
	// tilec: from g.tile:3 (mma)
	wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%f1}, %rd9, %rd21, p, 1, 1, 0, 1;
}
)";
  std::vector<PtxDescriptorUse> uses = scanPtxDescriptors(ptx);
  ASSERT_EQ(uses.size(), 2u);
  EXPECT_FALSE(uses[0].value.has_value());
  ASSERT_TRUE(uses[0].partial.has_value());
  EXPECT_EQ(uses[0].partial->constant, 0x4000004000010002ull);
  EXPECT_EQ(uses[0].partial->unknownMask, 0x3FC0ull);
  EXPECT_EQ(uses[0].description,
            "SW128 LBO=16 SBO=1024 base_offset=0 start=<1024-byte aligned "
            "run-time smem address>+32 (K step 1 in the 128-byte swizzle "
            "row)");
  // add of 512 (16-byte units) = +8192 B to an address that may be as high
  // as 0x3FC0 units: the sum may carry into LBO, so the scan says so.
  ASSERT_TRUE(uses[1].partial.has_value());
  EXPECT_EQ(uses[1].partial->constant, 0x4000004000010200ull);
  EXPECT_NE(uses[1].description.find("not known statically"),
            std::string::npos);
  EXPECT_NE(uses[1].description.find("reach past the start address field"),
            std::string::npos);
  EXPECT_EQ(uses[0].instruction, "wgmma m64n64k16 f32 += bf16 x bf16, A "
                                 "K-major, B MN-major, scale-d p");
  ASSERT_EQ(uses[0].tags.size(), 2u);
  EXPECT_EQ(uses[0].tags[1], "from g.tile:3 (mma)");

  unsigned count = 0;
  std::string explained = explainPtx(ptx, std::nullopt, &count);
  EXPECT_EQ(count, 1u);
  EXPECT_NE(explained.find("\t// explain: a-desc %rd9 = 0x4000004000010002 + "
                           "run-time bits 0x3fc0: SW128 LBO=16 SBO=1024 "
                           "base_offset=0 start=<1024-byte aligned run-time "
                           "smem address>+32 (K step 1 in the 128-byte "
                           "swizzle row), subtile (m=1, k=0), from "
                           "g.tile:3 (mma)\n"),
            std::string::npos)
      << explained;
  // The input comes back unchanged around the added lines.
  EXPECT_NE(explained.find("\t// tilec: from g.tile:3 (mma)\n\t// explain: "
                           "wgmma m64n64k16"),
            std::string::npos)
      << explained;
}

// LLVM may extract the 14-bit start address with bfe.u32 instead of shr +
// and: (x >> 4) & 0x3FFF. x = a run-time base in bits 12..13 + 2048, so
// the field holds 0x80 + run-time bits 0x300.
TEST(PtxDescriptorScanTest, BitFieldExtract) {
  const char *ptx = R"(.target sm_90a
	shr.u32 	%r60, %r57, 12;
	and.b32 	%r61, %r60, 3;
	shl.b32 	%r62, %r61, 12;
	add.s32 	%r64, %r62, 2048;
	bfe.u32 	%r65, %r64, 4, 14;
	cvt.u64.u32 	%rd19, %r65;
	or.b64 	%rd11, %rd19, 4611686293305294848;
	wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%f1}, %rd11, %rd11, p, 1, 1, 1, 0;
)";
  std::vector<PtxDescriptorUse> uses = scanPtxDescriptors(ptx);
  ASSERT_EQ(uses.size(), 2u);
  ASSERT_TRUE(uses[0].partial.has_value());
  EXPECT_EQ(uses[0].partial->constant, 0x4000004000000080ull);
  EXPECT_EQ(uses[0].partial->unknownMask, 0x300ull);
}

// A K-major operand's run-time offset decomposes into the K step inside the
// swizzle row (K = 32 bytes) and whole SBO strides (8-row groups): 0x202
// units = 8224 B = 32 B + 8 x 1024 B. B is MN-major here (imm-trans-b = 1):
// no decomposition.
TEST(PtxDescriptorScanTest, KMajorOffsetDecomposes) {
  const char *ptx = R"(.target sm_90a
	shr.u32 	%r60, %r57, 4;
	and.b32 	%r61, %r60, 8128;
	cvt.u64.u32 	%rd15, %r61;
	add.s64 	%rd9, %rd15, 4611686293305360898;
	wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%f1}, %rd9, %rd9, p, 1, 1, 0, 1;
)";
  std::vector<PtxDescriptorUse> uses = scanPtxDescriptors(ptx);
  ASSERT_EQ(uses.size(), 2u);
  EXPECT_EQ(uses[0].description,
            "SW128 LBO=16 SBO=1024 base_offset=0 start=<1024-byte aligned "
            "run-time smem address>+8224 (K step 1 in the 128-byte swizzle "
            "row + 8 x SBO)");
  EXPECT_EQ(uses[1].description,
            "SW128 LBO=16 SBO=1024 base_offset=0 start=<1024-byte aligned "
            "run-time smem address>+8224");
}

// PTX is not SSA: a register written twice, or under a predicate, is not
// known; registers are scoped to their function.
TEST(PtxDescriptorScanTest, OnlySingleDefinitionsAreTracked) {
  const char *ptx = R"(.target sm_90a
.visible .entry first()
{
	mov.b64 %rd1, 4611686293305360384;
	add.s64 %rd1, %rd1, 2;
	@%p1 mov.b64 %rd2, 4611686293305360384;
	mov.b64 %rd3, 4611686293305360384;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1}, %rd1, %rd2, p, 1, 1, 0, 0;
}
.visible .entry second()
{
	wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1}, %rd3, %rd3, p, 1, 1, 0, 0;
}
)";
  std::vector<PtxDescriptorUse> uses = scanPtxDescriptors(ptx);
  ASSERT_EQ(uses.size(), 4u);
  for (const PtxDescriptorUse &use : uses) {
    EXPECT_FALSE(use.value.has_value()) << use.operand;
    EXPECT_EQ(use.description, "not known statically") << use.operand;
  }
}

TEST(PtxDescriptorScanTest, NoInstructionsNoChange) {
  const char *ptx = ".target sm_90a\n\tmov.b32 %r1, 3;\n";
  unsigned count = 7;
  EXPECT_EQ(explainPtx(ptx, std::nullopt, &count), ptx);
  EXPECT_EQ(count, 0u);
}

} // namespace
