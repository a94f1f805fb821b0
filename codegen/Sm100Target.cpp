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
