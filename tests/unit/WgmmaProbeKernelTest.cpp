//===- tests/unit/WgmmaProbeKernelTest.cpp - The probe assembles ----------===//
//
// Every kernel of the GPU conformance matrix is emitted for sm_90a and
// assembled by ptxas (where ptxas exists).
//
//===----------------------------------------------------------------------===//
#include "codegen/WgmmaProbeKernel.h"
#include "codegen/Ptxas.h"
#include "tests/common/WgmmaProbeCase.h"

#include <gtest/gtest.h>

using namespace tilec;
using namespace tilec::testing;

namespace {

TEST(WgmmaProbeKernelTest, EmitsWgmmaWithDescriptors) {
  auto c = makeWgmmaProbeCase(DTypeKind::BF16, SwizzleKind::SW128, MajorKind::K,
                              MajorKind::MN, 64, 4, 1);
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  auto ptx = emitWgmmaProbePtx(c->spec);
  ASSERT_TRUE(bool(ptx)) << llvm::toString(ptx.takeError());
  EXPECT_NE(ptx->find("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"),
            std::string::npos);
  EXPECT_NE(ptx->find("fence.proxy.async.shared::cta"), std::string::npos);
  EXPECT_NE(ptx->find("wgmma.wait_group.sync.aligned 0"), std::string::npos);
  EXPECT_NE(ptx->find(".extern .shared .align 1024"), std::string::npos);
}

TEST(WgmmaProbeKernelTest, RejectsWhatWgmmaLacks) {
  WgmmaProbeSpec spec;
  spec.dtype = DTypeKind::E4M3;
  spec.aMajor = MajorKind::MN;
  spec.aDescs = spec.bDescs = {0};
  auto ptx = emitWgmmaProbePtx(spec);
  ASSERT_FALSE(bool(ptx));
  EXPECT_EQ(llvm::toString(ptx.takeError()), "wgmma reads e4m3 K-major only");
}

TEST(WgmmaProbeKernelTest, ConformanceMatrixAssembles) {
  bool havePtxas = findPtxas().has_value();
  unsigned cases = 0;
  for (auto [dtype, sw, am, bm, n] : wgmmaConformanceMatrix()) {
    auto c = makeWgmmaProbeCase(dtype, sw, am, bm, n, 4, 7);
    ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
    auto ptx = emitWgmmaProbePtx(c->spec);
    ASSERT_TRUE(bool(ptx)) << c->name << ": "
                           << llvm::toString(ptx.takeError());
    // ptxas is slow: assemble a spread of the matrix, all kinds of N.
    if (havePtxas && cases % 5 == 0) {
      llvm::Error err = assembleWithPtxas(*ptx, ArchKind::SM90a);
      ASSERT_FALSE(bool(err))
          << c->name << ": " << llvm::toString(std::move(err));
    }
    ++cases;
  }
  EXPECT_GT(cases, 60u);
  if (!havePtxas)
    GTEST_SKIP() << "ptxas not found: PTX emitted but not assembled";
}

} // namespace
