//===- tests/unit/AnnotateSourceTest.cpp - Where an MMA came from ---------===//
//
// The lower pass records the .tile lines of each kernel's mma and smem
// statements in GemmSpec::annotateSource, the text --annotate puts beside
// every wgmma; compile --annotate sets GemmSpec::annotate for codegen.
//
//===----------------------------------------------------------------------===//
#include "compiler/Compilation.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

namespace tilec {
namespace {

// Line numbers: the kernel opens on line 1; smem a is line 10, smem b line
// 11, mma line 12.
const char *kProgram = R"(kernel gemm_tn_bf16 {
  arch     sm_90a
  a        : bf16[M, K] major(K)
  b        : bf16[N, K] major(K)
  c        : bf16[M, N] major(N)
  acc      f32
  tile     (BM = 128, BN = 256, BK = 64)
  stages   4
  // line 9
  smem a   = tile_to_shape(K_SW128<bf16>, (BM, BK))
  smem b   = tile_to_shape(K_SW128<bf16>, (BN, BK))
  mma      wgmma.m64n256k16 warpgroups(2)
  epilogue stmatrix swizzle(128B) -> tma_store
}
)";

TEST(AnnotateSource, LowerRecordsTheTileLines) {
  llvm::SourceMgr sourceMgr;
  unsigned id = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(kProgram, "/some/dir/gemm.tile"),
      llvm::SMLoc());
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  DiagnosticEngine diags(sourceMgr, errorStream);
  CompilationOptions options;
  options.emit = EmitKind::Lowered;
  CompilationResult result = compileBuffer(id, options, diags);
  ASSERT_TRUE(result.ok) << errors;
  ASSERT_EQ(result.specs.size(), 1u);
  EXPECT_EQ(result.specs[0].annotateSource,
            "gemm.tile:12 (mma), gemm.tile:10 (smem a), gemm.tile:11 (smem "
            "b)");
  EXPECT_FALSE(result.specs[0].annotate);
}

} // namespace
} // namespace tilec
