//===- tests/unit/GemmTargetTest.cpp - The table of GEMM targets ----------===//
//
// Every arch has a row that answers for it; plan-pipeline's shared-memory
// count is what each generator's kernel requests; the grids and the
// schedule choices match numbers typed by hand.
//
//===----------------------------------------------------------------------===//
#include "codegen/GemmTarget.h"

#include <gtest/gtest.h>

using namespace tilec;

namespace {

GemmSpec specFor(ArchKind arch, unsigned bm, unsigned bn, unsigned bk,
                 unsigned stages) {
  GemmSpec spec;
  spec.name = "table_test";
  spec.arch = arch;
  spec.bm = bm;
  spec.bn = bn;
  spec.bk = bk;
  spec.stages = stages;
  if (arch == ArchKind::SM80) {
    spec.warpsM = 2;
    spec.warpsN = 4;
  }
  return spec;
}

} // namespace

TEST(GemmTargetTest, EveryArchHasItsRow) {
  for (const ArchInfo &info : allArchs())
    EXPECT_EQ(gemmTarget(info.kind).arch(), info.kind) << info.name.str();
  EXPECT_FALSE(gemmTarget(ArchKind::SM80).hasDecodeSchedules());
  EXPECT_TRUE(gemmTarget(ArchKind::SM90a).hasDecodeSchedules());
  // sm_100a has swap-AB and split-K (issue 12, cta_group::1); the
  // diagnostics name the targets that do, in the arch table's order.
  EXPECT_TRUE(gemmTarget(ArchKind::SM100a).hasDecodeSchedules());
  EXPECT_EQ(decodeScheduleTargetNames(), "sm_90a, sm_100a");
}

// The kernel requests exactly the shared memory plan-pipeline checked
// against the limit (for sm_80: the budget, or the staging tile that
// extends it).
TEST(GemmTargetTest, PlannedSharedMemoryIsWhatTheKernelRequests) {
  struct Case {
    ArchKind arch;
    unsigned bm, bn, bk, stages;
  } cases[] = {{ArchKind::SM80, 128, 128, 32, 4},
               {ArchKind::SM80, 128, 256, 64, 3},
               {ArchKind::SM90a, 128, 256, 64, 4},
               {ArchKind::SM90a, 64, 64, 64, 8},
               {ArchKind::SM100a, 128, 256, 64, 4},
               {ArchKind::SM100a, 128, 64, 64, 6}};
  for (const Case &c : cases) {
    GemmSpec spec = specFor(c.arch, c.bm, c.bn, c.bk, c.stages);
    const GemmTarget &target = gemmTarget(c.arch);
    llvm::Expected<GemmSmemBudget> budget = target.sharedMemory(spec);
    ASSERT_TRUE(bool(budget)) << llvm::toString(budget.takeError());
    EXPECT_EQ(budget->stageBytes, int64_t(c.bm + c.bn) * c.bk * 2);
    EXPECT_EQ(budget->total, c.stages * (budget->stageBytes +
                                         budget->perStageExtra) +
                                 budget->staging + budget->fixed);
    llvm::Expected<std::optional<GemmWarpPlan>> warps = target.planWarps(spec);
    ASSERT_TRUE(bool(warps)) << llvm::toString(warps.takeError());
    int64_t planned =
        *warps && (*warps)->sharedBytes ? (*warps)->sharedBytes : budget->total;
    llvm::Expected<GemmKernelBinary> binary = target.emit(spec);
    ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
    EXPECT_EQ(int64_t(binary->sharedBytes), planned)
        << archInfo(c.arch).name.str() << " " << c.bm << "x" << c.bn << "x"
        << c.bk << ", " << c.stages << " stages";
  }
}

// swiglu halves C, so the staged store's tile is BN/2 wide (with BN = 64
// a 64 x 32 chunk instead of 64 x 64): the budget must see the ops to count
// what the kernel requests.
TEST(GemmTargetTest, SwigluStagingIsCountedAsTheKernelRequestsIt) {
  GemmSpec spec = specFor(ArchKind::SM90a, 128, 64, 64, 4);
  spec.storeTma = true;
  llvm::Expected<EpilogueOp> swiglu = parseEpilogueOp("swiglu");
  ASSERT_TRUE(bool(swiglu)) << llvm::toString(swiglu.takeError());
  spec.epilogueOps = {*swiglu};
  const GemmTarget &target = gemmTarget(ArchKind::SM90a);
  llvm::Expected<GemmSmemBudget> budget = target.sharedMemory(spec);
  ASSERT_TRUE(bool(budget)) << llvm::toString(budget.takeError());
  llvm::Expected<GemmKernelBinary> binary = target.emit(spec);
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  EXPECT_EQ(int64_t(binary->sharedBytes), budget->total);
  spec.epilogueOps.clear();
  llvm::Expected<GemmSmemBudget> plain = target.sharedMemory(spec);
  ASSERT_TRUE(bool(plain));
  EXPECT_LT(budget->staging, plain->staging); // half as wide
}

TEST(GemmTargetTest, Sm80WarpsAndTheirFailure) {
  const GemmTarget &sm80 = gemmTarget(ArchKind::SM80);
  auto warps = sm80.planWarps(specFor(ArchKind::SM80, 128, 128, 32, 4));
  ASSERT_TRUE(bool(warps) && *warps);
  EXPECT_EQ((*warps)->m, 2u); // the first candidate: 2 x 4 warps of 64 x 32
  EXPECT_EQ((*warps)->n, 4u);
  // 24 rows: no m16 split of the warps divides it.
  auto none = sm80.planWarps(specFor(ArchKind::SM80, 24, 128, 32, 4));
  ASSERT_FALSE(bool(none));
  EXPECT_NE(llvm::toString(none.takeError()).find("no warp arrangement"),
            std::string::npos);
  EXPECT_FALSE(*gemmTarget(ArchKind::SM90a).planWarps(
      specFor(ArchKind::SM90a, 128, 256, 64, 4)));
}

TEST(GemmTargetTest, Sm90DecodeScheduleByHand) {
  // M = 64 fixed with N = 2112, K = 7168 and 64 x 64 tiles: swap A and B;
  // 33 output tiles for 132 SMs and 112 k-tiles split K in two.
  GemmSpec spec = specFor(ArchKind::SM90a, 64, 64, 64, 8);
  spec.fixedM = 64;
  spec.fixedN = 2112;
  spec.fixedK = 7168;
  GemmScheduleChoice choice =
      gemmTarget(ArchKind::SM90a).schedule(spec, /*written=*/false);
  EXPECT_TRUE(choice.swapAB);
  EXPECT_EQ(choice.splitK, 2u);
  EXPECT_NE(choice.why.find("33 output tiles"), std::string::npos)
      << choice.why;
  // A written schedule is kept; a target without decode schedules says its
  // plain schedule is the only one.
  spec.swapAB = false;
  spec.splitK = 1;
  choice = gemmTarget(ArchKind::SM90a).schedule(spec, /*written=*/true);
  EXPECT_FALSE(choice.swapAB);
  EXPECT_EQ(choice.splitK, 1u);
  spec.arch = ArchKind::SM80;
  choice = gemmTarget(ArchKind::SM80).schedule(spec, /*written=*/false);
  EXPECT_EQ(choice.why, "the plain schedule: sm_80 has no other");
}

TEST(GemmTargetTest, Sm100DecodeScheduleByHand) {
  // M = 64 fixed, N = 2112, K = 7168 with BM = 128, BN = 64: M is below the
  // 128 MMA rows, so A and B swap; then ceil(2112 / 128) = 17 tiles along N
  // times ceil(64 / 64) = 1 along M, 7168 / 64 = 112 k-tiles, and for 148
  // SMs (148 * 2 + 2 * 17) / (4 * 17) = 330 / 68 = 4 splits (the cap).
  GemmSpec spec = specFor(ArchKind::SM100a, 128, 64, 64, 8);
  spec.fixedM = 64;
  spec.fixedN = 2112;
  spec.fixedK = 7168;
  const GemmTarget &sm100 = gemmTarget(ArchKind::SM100a);
  GemmScheduleChoice choice = sm100.schedule(spec, /*written=*/false);
  EXPECT_TRUE(choice.swapAB);
  EXPECT_EQ(choice.splitK, 4u);
  EXPECT_NE(choice.why.find("17 output tiles for 148 SMs"), std::string::npos)
      << choice.why;
  // M = 128 fills the MMA: not swapped; 33 tiles of 128 x 64 along N.
  // (148 * 2 + 66) / 132 = 2 splits.
  spec.fixedM = 128;
  choice = sm100.schedule(spec, /*written=*/false);
  EXPECT_FALSE(choice.swapAB);
  EXPECT_EQ(choice.splitK, 2u);
  // BM = 64 (the M = 64 tcgen05.mma): M = 64 fills it, not swapped; 33
  // tiles of 64 x 64 along N, (296 + 66) / 132 = 2 splits.
  spec.fixedM = 64;
  spec.bm = 64;
  choice = sm100.schedule(spec, /*written=*/false);
  EXPECT_FALSE(choice.swapAB);
  EXPECT_EQ(choice.splitK, 2u);
  spec.bm = 128;
  // A run-time M: neither.
  spec.fixedM = 0;
  choice = sm100.schedule(spec, /*written=*/false);
  EXPECT_FALSE(choice.swapAB);
  EXPECT_EQ(choice.splitK, 1u);
  // The CTA pair (cluster(2)) takes neither either.
  spec.fixedM = 64;
  spec.bm = 256;
  spec.clusterM = 2;
  choice = sm100.schedule(spec, /*written=*/false);
  EXPECT_FALSE(choice.swapAB);
  EXPECT_EQ(choice.splitK, 1u);
  // The emitted kernel: swap-AB and 4 splits, the user's tile 64 x 128, 17
  // tiles x 4 units on 148 SMs (68 CTAs), or capped at 10 SMs.
  spec = specFor(ArchKind::SM100a, 128, 64, 64, 8);
  spec.swapAB = true;
  spec.splitK = 4;
  llvm::Expected<GemmKernelBinary> binary = sm100.emit(spec);
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  EXPECT_TRUE(binary->swapAB);
  EXPECT_EQ(binary->splitK, 4u);
  EXPECT_EQ(binary->tileM, 64u);
  EXPECT_EQ(binary->tileN, 128u);
  EXPECT_EQ(binary->grid(64, 2112, 7168, 148).x, 68u);
  EXPECT_EQ(binary->grid(64, 2112, 7168, 10).x, 10u);
  // The workspace: 17 tiles x 4 splits x 64 x 128 f32.
  EXPECT_EQ(binary->workspaceBytes(64, 2112), 17u * 4 * 64 * 128 * 4);
  EXPECT_EQ(binary->counterBytes(64, 2112), 17u * 4);
  ASSERT_EQ(binary->tensorMaps.size(), 2u);
  EXPECT_EQ(binary->tensorMaps[0].matrix, 'B'); // tmapA reads the user's B
  EXPECT_EQ(binary->tensorMaps[1].matrix, 'A');
}
