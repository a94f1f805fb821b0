//===- codegen/GemmCodegen.cpp - GemmSpec to PTX, per target --------------===//
//
// The entry points of code generation. Each asks the spec's row of the
// target table (codegen/GemmTarget.h) after the rules on how the spec's
// features combine (codegen/GemmCombinationRules.h, the verify passes'
// own); this file holds only the launch arguments every kernel checks and
// the split-K workspace.
//
//===----------------------------------------------------------------------===//
#include "codegen/GemmCodegen.h"

#include "codegen/GemmCombinationRules.h"
#include "codegen/GemmTarget.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <climits>

namespace tilec {

namespace {

uint64_t ceilDiv(uint64_t a, uint64_t b) { return b ? (a + b - 1) / b : 0; }

} // namespace

/// gridRule's grid for one M x N GEMM (GemmGridRule).
static Dim3 oneGemmGrid(const GemmKernelBinary &kernel, uint64_t m, uint64_t n,
                        unsigned smCount) {
  const GemmGridRule &rule = kernel.gridRule;
  uint64_t ctas =
      uint64_t(std::max(1u, kernel.cluster.x)) * std::max(1u, kernel.cluster.y);
  uint64_t tileRowsA = kernel.swapAB ? kernel.tileN : kernel.tileM;
  uint64_t tileRowsB = kernel.swapAB ? kernel.tileM : kernel.tileN;
  uint64_t tilesA = ceilDiv(kernel.swapAB ? n : m, tileRowsA);
  uint64_t tilesB = ceilDiv(kernel.swapAB ? m : n, tileRowsB);
  uint64_t columns = ceilDiv(tilesA, std::max(1u, rule.tilesPerCluster));
  uint64_t rows = ceilDiv(tilesB, std::max(1u, rule.columnsPerCluster));
  uint64_t splits = std::max(1u, kernel.splitK);
  uint64_t units = columns * rows * (rule.splitsInUnits ? splits : 1);
  if (kernel.persistent && smCount)
    units = std::min<uint64_t>(
        units,
        std::max<uint64_t>(1, uint64_t(smCount) *
                                  std::max(1u, kernel.ctasPerSm) / ctas));
  if (rule.linear || kernel.persistent)
    return {static_cast<unsigned>(units * ctas), 1, 1};
  return {static_cast<unsigned>(columns * std::max(1u, kernel.cluster.x)),
          static_cast<unsigned>(rows * std::max(1u, kernel.cluster.y)),
          static_cast<unsigned>(rule.splitsInUnits ? 1 : splits)};
}

Dim3 GemmKernelBinary::grid(uint64_t m, uint64_t n, uint64_t k,
                            unsigned smCount, uint64_t batchCount) const {
  (void)k;
  // A masked grouped kernel (codegen/Sm90Group.h): a persistent grid
  // walks the G x tilesM x tilesN tiles, as one GEMM of G row extents
  // rounded up to tiles; else group z is CTA z, as a batch.
  uint64_t groups = std::max<uint64_t>(batchCount, 1);
  if (group && group->kind == GroupKind::Masked && persistent && tileM)
    return oneGemmGrid(*this, groups * ceilDiv(m, tileM) * tileM, n, smCount);
  // A batched kernel whose persistent CTAs walk batch x tiles: as one GEMM
  // of batchCount x M rounded up to tiles.
  if (batch && gridRule.batchWalksTiles && tileM)
    return oneGemmGrid(*this, groups * ceilDiv(m, tileM) * tileM, n, smCount);
  Dim3 g = oneGemmGrid(*this, m, n, smCount);
  if (group && group->kind == GroupKind::Masked)
    g.z *= static_cast<unsigned>(groups);
  // A batched kernel repeats one GEMM's grid along z, batch z in CTA z
  // (GemmTarget::hasBatch: no target's batched grid uses z otherwise).
  if (batch)
    g.z *= static_cast<unsigned>(std::max<uint64_t>(batchCount, 1));
  return g;
}

/// Output tiles a split-K launch numbers: the A-role tile count is rounded
/// up to whole clusters (the kernel's tile id is y * gridDim.x + x).
static uint64_t splitTiles(const GemmKernelBinary &kernel, uint64_t m,
                           uint64_t n) {
  uint64_t cx = std::max(1u, kernel.cluster.x);
  uint64_t tilesM = ceilDiv(m, kernel.tileM), tilesN = ceilDiv(n, kernel.tileN);
  if (kernel.swapAB)
    tilesN = ceilDiv(tilesN, cx) * cx;
  else
    tilesM = ceilDiv(tilesM, cx) * cx;
  return tilesM * tilesN;
}

uint64_t GemmKernelBinary::workspaceBytes(uint64_t m, uint64_t n) const {
  if (splitK <= 1 || splitKCluster)
    return 0;
  return splitTiles(*this, m, n) * splitK * tileM * tileN * 4;
}

uint64_t GemmKernelBinary::counterBytes(uint64_t m, uint64_t n) const {
  return splitK <= 1 || splitKCluster ? 0 : splitTiles(*this, m, n) * 4;
}

llvm::Error checkGemmSpec(const GemmSpec &spec) {
  if (llvm::Error err = checkGemmCombination(spec))
    return err;
  return gemmTarget(spec.arch).check(spec);
}

llvm::Error checkGemmArguments(const GemmSpec &spec, int64_t m, int64_t n,
                               int64_t k, int64_t lda, int64_t ldb,
                               int64_t ldc) {
  for (auto [name, value] : {std::pair{"M", m}, {"N", n}, {"K", k}})
    if (value < 0 || value > INT32_MAX)
      return llvm::createStringError(
          llvm::formatv("{0} = {1} is out of range; 0 to {2} are legal", name,
                        value, INT32_MAX));
  auto checkLd = [](llvm::StringRef name, int64_t ld, int64_t extent,
                    llvm::StringRef extentName) -> llvm::Error {
    if (ld < extent || ld % 8 != 0 || ld > INT32_MAX)
      return llvm::createStringError(llvm::formatv(
          "{0} = {1} must be a multiple of 8 elements (16 bytes) and at "
          "least {2} = {3}",
          name, ld, extentName, extent));
    return llvm::Error::success();
  };
  bool aK = spec.aMajor == MajorKind::K, bK = spec.bMajor == MajorKind::K;
  if (llvm::Error err = checkLd("lda", lda, aK ? k : m, aK ? "K" : "M"))
    return err;
  if (llvm::Error err = checkLd("ldb", ldb, bK ? k : n, bK ? "K" : "N"))
    return err;
  bool cRows = spec.cMajor == MajorKind::MN;
  return checkLd("ldc", ldc, cRows ? n : m, cRows ? "N" : "M");
}

llvm::Expected<GemmKernelBinary> emitGemm(const GemmSpec &spec) {
  if (llvm::Error err = checkGemmCombination(spec))
    return err;
  llvm::Expected<GemmKernelBinary> binary = gemmTarget(spec.arch).emit(spec);
  if (binary) {
    binary->fixedM = spec.fixedM;
    binary->fixedN = spec.fixedN;
    binary->fixedK = spec.fixedK;
    binary->batch = spec.batch;
    binary->group = spec.group;
    binary->weightQuant = spec.weightQuant;
    if (spec.blockScale)
      binary->sfaMajor = spec.blockScale->aMajor;
  }
  return binary;
}

llvm::Expected<std::string> emitGemmLlvmIr(const GemmSpec &spec) {
  if (llvm::Error err = checkGemmCombination(spec))
    return err;
  return gemmTarget(spec.arch).emitLlvmIr(spec);
}

} // namespace tilec
