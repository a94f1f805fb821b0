//===- tests/unit/Sm90GemmSpecTest.cpp - GemmSpec to the sm_90a config ----===//
#include "codegen/Sm90GemmSpec.h"

#include <gtest/gtest.h>

namespace tilec {
namespace {

TEST(Sm90ConfigFromSpec, CarriesTheTileAndRejectsWhatIsNotImplemented) {
  GemmSpec spec;
  spec.name = "gemm_tn_bf16";
  spec.arch = ArchKind::SM90a;
  spec.bm = 128;
  spec.bn = 256;
  spec.bk = 64;
  spec.stages = 4;
  auto config = sm90ConfigFromSpec(spec);
  ASSERT_TRUE(bool(config)) << llvm::toString(config.takeError());
  EXPECT_EQ(config->name, "gemm_tn_bf16");
  EXPECT_EQ(config->bn, 256u);
  EXPECT_EQ(config->stages, 4u);

  GemmSpec wrongArch = spec;
  wrongArch.arch = ArchKind::SM80;
  auto bad = sm90ConfigFromSpec(wrongArch);
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("sm_80"), std::string::npos);

  GemmSpec mnMajor = spec;
  mnMajor.bMajor = MajorKind::MN;
  bad = sm90ConfigFromSpec(mnMajor);
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("K-major"), std::string::npos);

  GemmSpec smallK = spec;
  smallK.bk = 48; // 96 bytes of bf16: no swizzle atom row
  bad = sm90ConfigFromSpec(smallK);
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("BK = 48"), std::string::npos);
}

} // namespace
} // namespace tilec
