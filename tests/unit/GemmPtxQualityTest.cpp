//===- tests/unit/GemmPtxQualityTest.cpp - PTX properties the GPU needs ---===//
//
// The compile-latency work trims the LLVM pipeline and the IR; these pin what
// must survive for the kernels to stay fast: no local memory (a register
// array that spilled or was indexed dynamically), the expected number of
// tensor-core instructions per k-tile, and every one of them inside the k
// loop (the k16 steps unrolled, the k-tile loop not).
//
//===----------------------------------------------------------------------===//
#include "codegen/GemmCodegen.h"
#include "codegen/Sm90Gemm.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tilec {
namespace {

/// Lines of \p ptx that contain \p needle.
unsigned countLines(llvm::StringRef ptx, llvm::StringRef needle) {
  unsigned count = 0;
  llvm::SmallVector<llvm::StringRef> lines;
  ptx.split(lines, '\n');
  for (llvm::StringRef line : lines)
    count += line.contains(needle);
  return count;
}

/// True when every line containing \p needle lies between a label and a
/// later branch back to that label, i.e. inside a loop.
bool allInsideLoops(llvm::StringRef ptx, llvm::StringRef needle) {
  llvm::SmallVector<llvm::StringRef> lines;
  ptx.split(lines, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].contains(needle))
      continue;
    bool inLoop = false;
    for (size_t j = 0; j < i && !inLoop; ++j) {
      llvm::StringRef label = lines[j].trim();
      if (!label.consume_back(":") || label.contains(' '))
        continue;
      for (size_t k = i + 1; k < lines.size() && !inLoop; ++k) {
        llvm::StringRef line = lines[k].trim();
        inLoop = line.contains("bra") && line.ends_with((label + ";").str());
      }
    }
    if (!inLoop)
      return false;
  }
  return true;
}

/// Local memory in any form: a .local declaration, ld.local, st.local.
void expectNoLocalMemory(llvm::StringRef ptx) {
  EXPECT_EQ(countLines(ptx, ".local"), 0u);
  EXPECT_EQ(countLines(ptx, "ld.local"), 0u);
  EXPECT_EQ(countLines(ptx, "st.local"), 0u);
  EXPECT_EQ(countLines(ptx, "__local_depot"), 0u);
}

// Example: the helpers see a loop only with a backward branch.
TEST(GemmPtxQuality, LoopDetector) {
  llvm::StringRef loop = "$L__BB0_1:\n\tmma.sync x;\n\t@%p1 bra \t$L__BB0_1;\n";
  llvm::StringRef straight = "$L__BB0_1:\n\tmma.sync x;\n\tret;\n";
  EXPECT_TRUE(allInsideLoops(loop, "mma.sync"));
  EXPECT_FALSE(allInsideLoops(straight, "mma.sync"));
  EXPECT_EQ(countLines(loop, "mma.sync"), 1u);
}

struct Sm80Case {
  unsigned bm, bn, bk, stages, warpsM, warpsN;
  MajorKind aMajor, bMajor;
};

class Sm80GemmPtxQuality : public ::testing::TestWithParam<Sm80Case> {};

TEST_P(Sm80GemmPtxQuality, NoLocalMemoryAndMmaPerKTile) {
  const Sm80Case &c = GetParam();
  GemmSpec spec;
  spec.bm = c.bm;
  spec.bn = c.bn;
  spec.bk = c.bk;
  spec.stages = c.stages;
  spec.warpsM = c.warpsM;
  spec.warpsN = c.warpsN;
  spec.aMajor = c.aMajor;
  spec.bMajor = c.bMajor;
  auto binary = emitGemm(spec);
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  llvm::StringRef ptx = binary->ptx;
  expectNoLocalMemory(ptx);
  // One warp's share of a k-tile in m16n8k16 atoms; the k-tile loop is not
  // unrolled, so the whole kernel holds exactly one k-tile's worth.
  unsigned perKTile =
      (c.bm / c.warpsM / 16) * (c.bn / c.warpsN / 8) * (c.bk / 16);
  EXPECT_EQ(countLines(ptx, "mma.sync.aligned.m16n8k16"), perKTile);
  EXPECT_TRUE(allInsideLoops(ptx, "mma.sync.aligned"));
  EXPECT_GT(countLines(ptx, "cp.async.cg.shared.global"), 0u);
  EXPECT_GT(countLines(ptx, "ldmatrix.sync.aligned"), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Configs, Sm80GemmPtxQuality,
    ::testing::Values(
        Sm80Case{128, 128, 32, 4, 2, 4, MajorKind::K, MajorKind::K},
        Sm80Case{128, 128, 32, 4, 2, 4, MajorKind::MN, MajorKind::MN},
        Sm80Case{128, 256, 64, 3, 2, 4, MajorKind::K, MajorKind::K}));

TEST(Sm90GemmPtxQuality, NoLocalMemoryAndWgmmaPerKTile) {
  Sm90GemmConfig config;
  auto kernel = emitSm90Gemm(config);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  llvm::StringRef ptx = kernel->ptx;
  expectNoLocalMemory(ptx);
  // Each consumer warpgroup issues BK/16 m64nBNk16 per ring slot, once.
  std::string atom =
      "wgmma.mma_async.sync.aligned.m64n" + std::to_string(config.bn) + "k16";
  EXPECT_EQ(countLines(ptx, atom), config.bk / 16);
  EXPECT_TRUE(allInsideLoops(ptx, "wgmma.mma_async"));
}

} // namespace
} // namespace tilec
