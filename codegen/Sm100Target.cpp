//===- codegen/Sm100Target.cpp - The sm_100a row of the GEMM targets ------===//
//
// TMA + tcgen05.mma into tensor memory (codegen/Sm100Gemm.h): the plain
// schedule, direct stores from the tcgen05.ld registers, and the shared
// memory of the generator's own count (the ring, its mbarriers, the
// accumulator barriers, the TMEM address word and the alignment slack).
//
//===----------------------------------------------------------------------===//
#include "codegen/GemmTarget.h"

#include "codegen/Sm100GemmSpec.h"

namespace tilec {

namespace {

class Sm100Target final : public GemmTarget {
public:
  ArchKind arch() const override { return ArchKind::SM100a; }

  // The generator stages operand tiles as sm_90a does (sm90OperandTile).
  bool stagesMnMajorKFirst() const override { return true; }

  // Always persistent (`persistent(G)` sets the group of tile rows);
  // `cluster(2)` is the CTA pair of tcgen05.mma.cta_group::2.
  bool hasPersistentSchedule() const override { return true; }

  GemmScheduleChoice schedule(const GemmSpec &spec,
                              bool written) const override {
    if (spec.clusterM != 2)
      return GemmTarget::schedule(spec, written);
    GemmSpec alone = spec;
    alone.clusterM = 1;
    GemmScheduleChoice choice = GemmTarget::schedule(alone, written);
    choice.why += "; 2x1 clusters: each CTA pair runs one "
                  "tcgen05.mma.cta_group::2 (M = " +
                  std::to_string(spec.bm) +
                  ") per K step, issued by the even CTA; each CTA loads " +
                  std::to_string(spec.bm / 2) + " rows of A and " +
                  std::to_string(spec.bn / 2) +
                  " of B and stores its own " + std::to_string(spec.bm / 2) +
                  " rows of C";
    return choice;
  }

  std::string epiloguePlacement(const GemmSpec &spec) const override {
    (void)spec;
    return "per accumulator in the tcgen05.ld registers (one row of the "
           "tile per thread, a chunk of columns at a time), on the direct "
           "stores";
  }

  llvm::Expected<GemmSmemBudget>
  sharedMemory(const GemmSpec &spec) const override {
    llvm::Expected<GemmSmemBudget> budget = GemmTarget::sharedMemory(spec);
    if (!budget)
      return budget.takeError();
    Sm100GemmConfig config;
    config.bm = spec.bm;
    config.bn = spec.bn;
    config.bk = spec.bk;
    config.stages = spec.stages;
    config.aType = spec.aType;
    config.bType = spec.bType;
    config.cType = spec.cType;
    config.aMajor = spec.aMajor;
    config.bMajor = spec.bMajor;
    config.ctaGroup = spec.clusterM == 2 ? 2 : 1;
    // One CTA's stage: with cta_group::2, half the pair's rows of each.
    budget->stageBytes =
        int64_t(sm100CtaRows(config, 'a')) * spec.bk *
            dtypeBits(spec.aType) / 8 +
        int64_t(sm100CtaRows(config, 'b')) * spec.bk * dtypeBits(spec.bType) /
            8;
    // A full and an empty mbarrier per stage; the rest is fixed.
    budget->perStageExtra = 16;
    budget->total = sm100SharedBytes(config);
    budget->fixed = budget->total - int64_t(spec.stages) *
                                        (budget->stageBytes +
                                         budget->perStageExtra);
    return budget;
  }

  llvm::Error check(const GemmSpec &spec) const override {
    auto config = sm100ConfigFromSpec(spec);
    return config ? llvm::Error::success() : config.takeError();
  }

  llvm::Expected<GemmKernelBinary> emit(const GemmSpec &spec) const override {
    auto config = sm100ConfigFromSpec(spec);
    if (!config)
      return config.takeError();
    auto kernel = emitSm100Gemm(*config);
    if (!kernel)
      return kernel.takeError();
    return sm100GemmBinary(std::move(*kernel));
  }

  llvm::Expected<std::string>
  emitLlvmIr(const GemmSpec &spec) const override {
    auto config = sm100ConfigFromSpec(spec);
    if (!config)
      return config.takeError();
    return emitSm100GemmLlvmIr(*config);
  }

  Dim3 grid(const GemmKernelBinary &kernel, uint64_t m, uint64_t n,
            unsigned smCount) const override {
    return sm100LaunchGrid(kernel, m, n, smCount);
  }
};

} // namespace

const GemmTarget &sm100GemmTarget() {
  static const Sm100Target target;
  return target;
}

} // namespace tilec
