//===- codegen/GemmTarget.cpp - The table of GEMM targets -----------------===//
//
// The lookup of a row and the behaviour a row inherits unless it overrides
// it: the plain schedule, the direct-store epilogue, a shared memory of
// just the stages, one CTA per output tile.
//
//===----------------------------------------------------------------------===//
#include "codegen/GemmTarget.h"

#include "ir/arch/DType.h"

#include "llvm/Support/ErrorHandling.h"

namespace tilec {

const GemmTarget &gemmTarget(ArchKind arch) {
  switch (arch) {
#define TILEC_GEMM_TARGET(ARCH, FACTORY)                                       \
  case ArchKind::ARCH:                                                         \
    return FACTORY();
#include "codegen/GemmTargets.def"
  }
  llvm_unreachable("every ArchKind has a row in GemmTargets.def");
}

/// The names of the targets whose row answers \p has.
static std::string targetNames(bool (GemmTarget::*has)() const) {
  std::string names;
  for (const ArchInfo &info : allArchs())
    if ((gemmTarget(info.kind).*has)())
      names += (names.empty() ? "" : ", ") + info.name.str();
  return names;
}

std::string decodeScheduleTargetNames() {
  return targetNames(&GemmTarget::hasDecodeSchedules);
}

std::string splitKTargetNames() { return targetNames(&GemmTarget::hasSplitK); }

std::string persistentScheduleTargetNames() {
  return targetNames(&GemmTarget::hasPersistentSchedule);
}

std::string batchTargetNames() { return targetNames(&GemmTarget::hasBatch); }

std::string groupTargetNames() { return targetNames(&GemmTarget::hasGroup); }

std::string weightQuantTargetNames() {
  return targetNames(&GemmTarget::hasWeightQuant);
}

std::string blockScaleTargetNames() {
  return targetNames(&GemmTarget::hasBlockScale);
}

std::string libraryProgramTargetNames() {
  return targetNames(&GemmTarget::hasLibraryPrograms);
}

std::string twoPairClusterTargetNames() {
  return targetNames(&GemmTarget::hasTwoPairClusters);
}

std::string columnClusterTargetNames() {
  return targetNames(&GemmTarget::hasColumnClusters);
}

std::string GemmTarget::writtenScheduleWhy(const GemmSpec &spec,
                                           const std::string &reduction) {
  return std::string("written in the program: ") +
         (spec.swapAB ? "A and B swapped (C^T = B * A^T: M is the MMA's N, N "
                        "fills the 64-row M atoms)"
                      : "A and B as written") +
         (spec.splitK > 1 ? "; K split over " + std::to_string(spec.splitK) +
                                " CTAs per output tile, " + reduction
                          : "") +
         (spec.persistent
              ? "; persistent: one CTA per SM loops over the tiles in groups "
                "of " +
                    std::to_string(spec.rasterGroupM) +
                    " tile rows, loading the next tile while it stores this "
                    "one"
              : "") +
         (spec.clusterM > 1 ? "; 2x1 clusters: the two CTAs take "
                              "neighbouring tile rows and multicast the B "
                              "tile they share"
                            : "") +
         (spec.clusterN > 1 ? "; 1x2 clusters: the two CTAs take "
                              "neighbouring tile columns and multicast the A "
                              "tile they share"
                            : "");
}

std::string GemmTarget::describeBatch(const GemmSpec &spec) const {
  if (!spec.batch)
    return "";
  const BatchSpec &batch = *spec.batch;
  std::string count = batch.fixedCount
                          ? std::to_string(batch.fixedCount) + " (fixed)"
                          : "a run-time argument";
  std::string broadcast =
      !batch.aBatched   ? "; a has no batch extent: every batch reads the same "
                          "A (strideA 0 broadcasts it)"
      : !batch.bBatched ? "; b has no batch extent: every batch reads the "
                          "same B (strideB 0 broadcasts it)"
                        : "";
  return "grid z = the batch, " + count +
         ": CTA (x, y, z) computes C_z, its A, B and C pointers offset by z "
         "times strideA, strideB, strideC elements (i64 kernel parameters; "
         "0 broadcasts an operand)" +
         broadcast +
         "; why: the tile grid and its rasterization stay those of one GEMM, "
         "and z needs no division";
}

GemmScheduleChoice GemmTarget::schedule(const GemmSpec &spec,
                                        bool written) const {
  GemmScheduleChoice choice{spec.swapAB, spec.splitK, ""};
  choice.why = written ? writtenScheduleWhy(spec, "reduced in a workspace")
                       : "the plain schedule: " + archInfo(arch()).name.str() +
                             " has no other";
  return choice;
}

GemmEpilogueChoice GemmTarget::autoEpilogue(const GemmSpec &spec) const {
  (void)spec;
  return {{{"store"}},
          archInfo(arch()).name.str() +
              " stores registers to global memory (no TMA store)"};
}

llvm::Expected<GemmSmemBudget>
GemmTarget::sharedMemory(const GemmSpec &spec) const {
  GemmSmemBudget budget;
  budget.stageBytes = int64_t(spec.bm) * spec.bk * dtypeBits(spec.aType) / 8 +
                      int64_t(spec.bn) * spec.bk * dtypeBits(spec.bType) / 8;
  budget.total = budget.stageBytes * spec.stages;
  return budget;
}

} // namespace tilec
