//===- codegen/Sm80Target.cpp - The sm_80 row of the GEMM targets ---------===//
//
// cp.async + ldmatrix + mma.sync (codegen/Sm80Gemm.h). The tile decides the
// warps: each warp owns whole 16 x 16 pieces of the accumulator (an m16
// tile and a pair of n8 tiles, one ldmatrix.x4), holds at most 128 f32
// accumulators per thread, and the CTA's threads split every 16-byte row of
// the smem stages evenly; the first arrangement that fits, preferring more
// warps, is taken. The epilogue stages the f32 accumulators in the stage
// buffers, extending them where the staging tile is larger. No schedule but
// the plain one, direct stores, one CTA per output tile.
//
//===----------------------------------------------------------------------===//
#include "codegen/GemmTarget.h"

#include "codegen/PtxEmitter.h"
#include "codegen/Sm80Gemm.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

namespace tilec {

namespace {

bool copiesSplit(int64_t contiguous, int64_t other, unsigned bits,
                 unsigned threads) {
  int64_t perRow = contiguous * bits / 128; // 16-byte vectors per row.
  if (perRow == 0 || contiguous * bits % 128 != 0)
    return false;
  return threads % perRow == 0 && (perRow * other) % threads == 0;
}

/// The plan of a spec and its kernel, built in a context of its own.
struct BuiltKernel {
  Sm80GemmPlan plan;
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
};

llvm::Expected<BuiltKernel> buildKernel(const GemmSpec &spec) {
  auto plan = planSm80Gemm(spec);
  if (!plan)
    return plan.takeError();
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = buildSm80GemmModule(*plan, *context);
  if (!module)
    return module.takeError();
  return BuiltKernel{std::move(*plan), std::move(context), std::move(*module)};
}

class Sm80Target final : public GemmTarget {
public:
  ArchKind arch() const override { return ArchKind::SM80; }

  std::string epiloguePlacement(const GemmSpec &spec) const override {
    (void)spec;
    return "per element of the staged f32 tile, in the copy loop to C";
  }

  llvm::Expected<std::optional<GemmWarpPlan>>
  planWarps(const GemmSpec &spec) const override {
    static const unsigned Candidates[][2] = {{2, 4}, {4, 2}, {2, 2}, {1, 4},
                                             {4, 1}, {1, 2}, {2, 1}, {1, 1}};
    bool aK = spec.aMajor == MajorKind::K, bK = spec.bMajor == MajorKind::K;
    for (const auto &candidate : Candidates) {
      unsigned wm = candidate[0], wn = candidate[1];
      unsigned threads = 32 * wm * wn;
      if (spec.bm % (16 * wm) != 0 || spec.bn % (16 * wn) != 0)
        continue;
      int64_t acc = (spec.bm / wm / 16) * (spec.bn / wn / 8) * 4;
      if (acc > 128)
        continue;
      // A 4-bit weight's copies spread any number of vectors.
      if (!copiesSplit(aK ? spec.bk : spec.bm, aK ? spec.bm : spec.bk,
                       dtypeBits(spec.aType), threads) ||
          (!spec.weightQuant &&
           !copiesSplit(bK ? spec.bk : spec.bn, bK ? spec.bn : spec.bk,
                        dtypeBits(spec.bType), threads)))
        continue;
      GemmWarpPlan plan;
      plan.m = wm;
      plan.n = wn;
      plan.why = std::to_string(wm) + " x " + std::to_string(wn) +
                 " warps: each owns a " + std::to_string(spec.bm / wm) + " x " +
                 std::to_string(spec.bn / wn) + " accumulator tile (" +
                 std::to_string(acc) + " f32 per thread)";
      // The epilogue stages the f32 accumulators in the stage buffers,
      // which it extends where the staging tile is larger.
      llvm::Expected<GemmSmemBudget> budget = sharedMemory(spec);
      if (!budget)
        return budget.takeError();
      std::optional<Sm80StagingSize> size = sm80StagingSize(
          wm, spec.bm / (16 * wm), spec.bn, spec.cMajor == MajorKind::MN);
      if (size && size->bytes > budget->total) {
        plan.why += "; the epilogue's f32 staging tile (" +
                    std::to_string(size->rows) + " x " +
                    std::to_string(spec.bn) +
                    ", padded) reuses the stage buffers and extends them to " +
                    std::to_string(size->bytes) + " bytes";
        plan.sharedBytes = size->bytes;
      }
      return plan;
    }
    return llvm::createStringError(
        "no warp arrangement fits the " + std::to_string(spec.bm) + " x " +
        std::to_string(spec.bn) + " x " + std::to_string(spec.bk) +
        " tile on sm_80: BM must be a multiple of 16 x warpsM and BN of 16 x "
        "warpsN (1 to 8 warps), with at most 128 accumulators per thread and "
        "every 16-byte row of the smem stages split evenly over the threads");
  }

  /// The generic budget, with a 4-bit weight's stage as its plan lays it
  /// out: the packed codes and the scale (and zero-point) rows.
  llvm::Expected<GemmSmemBudget>
  sharedMemory(const GemmSpec &spec) const override {
    llvm::Expected<GemmSmemBudget> budget = GemmTarget::sharedMemory(spec);
    if (!budget || !spec.weightQuant)
      return budget;
    llvm::Expected<Sm80WeightPlan> weight = planSm80Weight(spec);
    if (!weight) { // Verify reports the tile; the generic figure stands.
      llvm::consumeError(weight.takeError());
      return budget;
    }
    budget->stageBytes =
        int64_t(spec.bm) * spec.bk * dtypeBits(spec.aType) / 8 +
        weight->stageBytes();
    budget->total = budget->stageBytes * spec.stages;
    return budget;
  }

  bool hasBatch() const override { return true; }
  TuneTiles tuneTiles() const override {
    TuneTiles t;
    t.kBytes = {64, 128};
    return t;
  }
  bool hasWeightQuant() const override { return true; }
  bool hasSplitK() const override { return true; }
  bool hasLibraryPrograms() const override { return true; }
  LibraryGemmItems
  libraryItems(const LibraryGemmProblem &problem) const override {
    return sm80LibraryItems(problem);
  }

  llvm::Error check(const GemmSpec &spec) const override {
    auto plan = planSm80Gemm(spec);
    return plan ? llvm::Error::success() : plan.takeError();
  }

  llvm::Expected<GemmKernelBinary> emit(const GemmSpec &spec) const override {
    auto built = buildKernel(spec);
    if (!built)
      return built.takeError();
    const Sm80GemmPlan &plan = built->plan;
    auto ptx = emitPtx(*built->module, spec.arch,
                       {.optimize = true, .profile = plan.profile});
    if (!ptx)
      return ptx.takeError();
    GemmKernelBinary binary;
    binary.arch = spec.arch;
    binary.aType = spec.aType;
    binary.bType = spec.bType;
    binary.cType = spec.cType;
    binary.epilogueOps = spec.epilogueOps;
    binary.aMajor = spec.aMajor;
    binary.bMajor = spec.bMajor;
    binary.ptx = std::move(*ptx);
    binary.entryName = spec.name;
    binary.blockThreads = spec.threads();
    binary.sharedBytes = plan.sharedBytes;
    binary.tileM = spec.bm;
    binary.tileN = spec.bn;
    binary.params = sm80GemmParams(spec);
    // split_k: tiles x S work units on the linear grid (Sm80SplitReduce).
    binary.splitK = spec.splitK;
    binary.gridRule.splitsInUnits = spec.splitK > 1;
    return binary;
  }

  llvm::Expected<std::string> emitLlvmIr(const GemmSpec &spec) const override {
    auto built = buildKernel(spec);
    if (!built)
      return built.takeError();
    std::string text;
    llvm::raw_string_ostream os(text);
    built->module->print(os, nullptr);
    return text;
  }
};

} // namespace

const GemmTarget &sm80GemmTarget() {
  static const Sm80Target target;
  return target;
}

} // namespace tilec
