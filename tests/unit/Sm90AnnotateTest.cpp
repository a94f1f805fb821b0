//===- tests/unit/Sm90AnnotateTest.cpp - --annotate on the sm_90a GEMM ----===//
//
// With Sm90GemmConfig::annotate every wgmma carries `// tilec:` comments
// naming the subtile and the decoded descriptor; without it the PTX has
// none. The expected values are typed from docs/layout-facts.md#canonical-layouts: a K-major SW128
// bf16 tile has LBO 16 B, SBO 1024 B (8 rows of 128 B), k16 steps of 32 B
// and 64-row M subtiles 64 * 128 B = 8192 B apart.
//
//===----------------------------------------------------------------------===//
#include "codegen/PtxInlineAsm.h"
#include "codegen/Ptxas.h"
#include "codegen/Sm90Gemm.h"
#include "ir/ptx/PtxDescriptorScan.h"

#include <gtest/gtest.h>

namespace tilec {
namespace {

size_t countOf(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1))
    ++n;
  return n;
}

TEST(Sm90Annotate, InlineAsmComment) {
  ptx::WgmmaShape shape;
  shape.n = 8;
  std::string text = ptx::wgmmaSsText(shape, "first $line\nsecond\n");
  EXPECT_NE(text.find("// tilec: first $$line\n\t// tilec: second\n\t"
                      "wgmma.mma_async"),
            std::string::npos)
      << text;
  EXPECT_EQ(ptx::wgmmaSsText(shape, ""), ptx::wgmmaSsText(shape));
}

TEST(Sm90Annotate, TagsDecodeTheDescriptors) {
  Sm90GemmConfig config;
  llvm::Expected<Sm90GemmKernel> plain = emitSm90Gemm(config);
  ASSERT_TRUE(bool(plain)) << llvm::toString(plain.takeError());
  EXPECT_EQ(countOf(plain->ptx, "// tilec:"), 0u);

  config.annotate = true;
  config.annotateSource = "gemm.tile:14 (mma)";
  llvm::Expected<Sm90GemmKernel> annotated = emitSm90Gemm(config);
  ASSERT_TRUE(bool(annotated)) << llvm::toString(annotated.takeError());
  const std::string &ptx = annotated->ptx;
  // bk = 64: four k16 steps, each wgmma with 4 tag lines.
  EXPECT_EQ(countOf(ptx, "wgmma.mma_async"), 4u);
  EXPECT_EQ(countOf(ptx, "// tilec: from gemm.tile:14 (mma)"), 4u);
  EXPECT_NE(ptx.find("// tilec: a-desc subtile (m=consumer warpgroup, k=1) "
                     "at +32 B + m * 8192 B from the stage base; SW128 "
                     "LBO=16 SBO=1024 base_offset=0 high=0x4000004000010000; "
                     "smem tile_to_shape(K_SW128<bf16>, (128,64))"),
            std::string::npos);
  EXPECT_NE(ptx.find("// tilec: b-desc subtile (n=0, k=3) at +96 B from the "
                     "stage base; SW128 LBO=16 SBO=1024 base_offset=0"),
            std::string::npos);
  // Same input, same bytes.
  llvm::Expected<Sm90GemmKernel> again = emitSm90Gemm(config);
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(again->ptx, ptx);

  // The explanation of the annotated PTX names the subtile and the source.
  unsigned count = 0;
  std::string explained = explainPtx(ptx, std::nullopt, &count);
  EXPECT_EQ(count, 4u);
  EXPECT_NE(explained.find("// explain: a-desc %rd"), std::string::npos);
  EXPECT_NE(
      explained.find("start=<1024-byte aligned run-time smem "
                     "address>+64 (K step 2 in the 128-byte swizzle row), "
                     "subtile (m=consumer warpgroup, "
                     "k=2), from gemm.tile:14 (mma)"),
      std::string::npos)
      << explained.substr(0, 4000);

  if (!findPtxas())
    GTEST_SKIP() << "no ptxas";
  llvm::Error err = assembleWithPtxas(ptx, ArchKind::SM90a);
  EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
  llvm::Error err2 = assembleWithPtxas(explained, ArchKind::SM90a);
  EXPECT_FALSE(bool(err2)) << llvm::toString(std::move(err2));
}

// Every operand form the generator emits is explained without "not known
// statically": f16 with an MN-major A (imm-trans-a = 1), tf32 and e4m3
// (K-major only, no imm-trans operands).
TEST(Sm90Annotate, ExplainEveryDType) {
  struct Case {
    DTypeKind type;
    MajorKind aMajor;
    unsigned bk;
    const char *instruction;
  } cases[] = {
      {DTypeKind::F16, MajorKind::MN, 64,
       "wgmma m64n256k16 f32 += f16 x f16, A MN-major, B K-major"},
      {DTypeKind::TF32, MajorKind::K, 32,
       "wgmma m64n256k8 f32 += tf32 x tf32, A K-major, B K-major"},
      {DTypeKind::E4M3, MajorKind::K, 128,
       "wgmma m64n256k32 f32 += e4m3 x e4m3, A K-major, B K-major"},
  };
  for (const Case &c : cases) {
    Sm90GemmConfig config;
    config.aType = config.bType = c.type;
    config.aMajor = c.aMajor;
    config.bk = c.bk;
    config.annotate = true;
    llvm::Expected<Sm90GemmKernel> kernel = emitSm90Gemm(config);
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    unsigned count = 0;
    std::string explained = explainPtx(kernel->ptx, std::nullopt, &count);
    EXPECT_EQ(count, 4u) << c.instruction;
    EXPECT_EQ(countOf(explained, c.instruction), 4u) << c.instruction;
    EXPECT_EQ(countOf(explained, "not known statically"), 0u) << c.instruction;
    EXPECT_EQ(countOf(explained, "run-time smem address>+"), 8u)
        << c.instruction;
  }
}

} // namespace
} // namespace tilec
