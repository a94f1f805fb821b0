//===- tests/unit/Sm90AnnotateTest.cpp - --annotate on the sm_90a GEMM ----===//
//
// With Sm90GemmConfig::annotate every wgmma carries `// tilec:` comments
// naming the subtile and the decoded descriptor; without it the PTX has
// none. The expected values are typed from seed 001/002: a K-major SW128
// bf16 tile has LBO 16 B, SBO 1024 B (8 rows of 128 B), k16 steps of 32 B
// and 64-row M subtiles 64 * 128 B = 8192 B apart.
//
//===----------------------------------------------------------------------===//
#include "codegen/PtxInlineAsm.h"
#include "codegen/Ptxas.h"
#include "codegen/Sm90Gemm.h"
#include "ir/PtxDescriptorScan.h"

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
  EXPECT_NE(explained.find("start=<1024-byte aligned run-time smem "
                           "address>+64, subtile (m=consumer warpgroup, "
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

} // namespace
} // namespace tilec
