//===- codegen/GemmCodegen.cpp - GemmSpec to PTX, per target --------------===//
//
// Dispatch on the spec's arch. Each target's generator lives in its own files
// (Sm80Gemm.cpp, Sm90Gemm.cpp with Sm90GemmSpec.cpp reading the spec); this
// file only routes, runs the PTX emitter, holds the arch-neutral launch rules
// (grid, workspace) and reports targets that have no GEMM generator yet.
//
//===----------------------------------------------------------------------===//
#include "codegen/GemmCodegen.h"

#include "codegen/PtxEmitter.h"
#include "codegen/Sm100GemmSpec.h"
#include "codegen/Sm80Gemm.h"
#include "codegen/Sm90GemmSpec.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <climits>

namespace tilec {

namespace {

llvm::Error unsupportedArch(const GemmSpec &spec) {
  return llvm::createStringError("no GEMM code generator for " +
                                 archInfo(spec.arch).name.str() +
                                 " yet (not implemented); sm_80, sm_90a "
                                 "and sm_100a are supported");
}

/// Schedules only the sm_90a generator implements.
llvm::Error checkSchedule(const GemmSpec &spec) {
  if (spec.arch == ArchKind::SM90a || (!spec.swapAB && spec.splitK <= 1))
    return llvm::Error::success();
  return llvm::createStringError(
      llvm::formatv("schedule{0}{1} is implemented for sm_90a only; {2} "
                    "kernels run with the plain schedule",
                    spec.swapAB ? " swap_ab" : "",
                    spec.splitK > 1
                        ? llvm::formatv(" split_k({0})", spec.splitK).str()
                        : "",
                    archInfo(spec.arch).name)
          .str());
}

uint64_t ceilDiv(uint64_t a, uint64_t b) { return b ? (a + b - 1) / b : 0; }

} // namespace

Dim3 GemmKernelBinary::grid(uint64_t m, uint64_t n, uint64_t k,
                            unsigned smCount) const {
  (void)k;
  if (arch == ArchKind::SM100a)
    return sm100LaunchGrid(*this, m, n, smCount);
  if (arch != ArchKind::SM90a)
    return {static_cast<unsigned>(ceilDiv(m, tileM) * ceilDiv(n, tileN)), 1,
            1};
  // The kernel's roles: A is the user's B under swap-AB (sm90GemmBinary
  // maps them the other way).
  Sm90GemmConfig roles;
  roles.bm = swapAB ? tileN : tileM;
  roles.bn = swapAB ? tileM : tileN;
  roles.clusterM = cluster.x;
  roles.splitK = splitK > 1;
  roles.persistent = persistent;
  roles.ctasPerSm = ctasPerSm;
  Sm90Grid g = sm90LaunchGrid(roles, swapAB ? n : m, swapAB ? m : n, splitK,
                              smCount);
  return {g.x, g.y, g.z};
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
  if (llvm::Error err = checkSchedule(spec))
    return err;
  if (spec.arch == ArchKind::SM90a) {
    auto config = sm90ConfigFromSpec(spec);
    return config ? llvm::Error::success() : config.takeError();
  }
  if (spec.arch == ArchKind::SM100a) {
    auto config = sm100ConfigFromSpec(spec);
    return config ? llvm::Error::success() : config.takeError();
  }
  if (spec.arch != ArchKind::SM80)
    return unsupportedArch(spec);
  auto plan = planSm80Gemm(spec);
  return plan ? llvm::Error::success() : plan.takeError();
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

static llvm::Expected<GemmKernelBinary> emitGemmForArch(const GemmSpec &spec);

llvm::Expected<GemmKernelBinary> emitGemm(const GemmSpec &spec) {
  llvm::Expected<GemmKernelBinary> binary = emitGemmForArch(spec);
  if (binary) {
    binary->fixedM = spec.fixedM;
    binary->fixedN = spec.fixedN;
    binary->fixedK = spec.fixedK;
  }
  return binary;
}

/// emitGemm for the spec's arch, before the target-independent fields.
static llvm::Expected<GemmKernelBinary> emitGemmForArch(const GemmSpec &spec) {
  if (llvm::Error err = checkSchedule(spec))
    return err;
  if (spec.arch == ArchKind::SM90a) {
    auto config = sm90ConfigFromSpec(spec);
    if (!config)
      return config.takeError();
    auto kernel = emitSm90Gemm(*config);
    if (!kernel)
      return kernel.takeError();
    return sm90GemmBinary(std::move(*kernel), spec.splitK);
  }
  if (spec.arch == ArchKind::SM100a) {
    auto config = sm100ConfigFromSpec(spec);
    if (!config)
      return config.takeError();
    auto kernel = emitSm100Gemm(*config);
    if (!kernel)
      return kernel.takeError();
    return sm100GemmBinary(std::move(*kernel));
  }
  if (spec.arch != ArchKind::SM80)
    return unsupportedArch(spec);
  auto plan = planSm80Gemm(spec);
  if (!plan)
    return plan.takeError();
  llvm::LLVMContext context;
  auto module = buildSm80GemmModule(*plan, context);
  if (!module)
    return module.takeError();
  auto ptx =
      emitPtx(**module, spec.arch, {.optimize = true, .profile = plan->profile});
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
  binary.sharedBytes = plan->sharedBytes;
  binary.tileM = spec.bm;
  binary.tileN = spec.bn;
  binary.params = sm80GemmParams(spec);
  return binary;
}

llvm::Expected<std::string> emitGemmLlvmIr(const GemmSpec &spec) {
  if (llvm::Error err = checkSchedule(spec))
    return err;
  if (spec.arch == ArchKind::SM90a) {
    auto config = sm90ConfigFromSpec(spec);
    if (!config)
      return config.takeError();
    return emitSm90GemmLlvmIr(*config);
  }
  if (spec.arch == ArchKind::SM100a) {
    auto config = sm100ConfigFromSpec(spec);
    if (!config)
      return config.takeError();
    return emitSm100GemmLlvmIr(*config);
  }
  if (spec.arch != ArchKind::SM80)
    return unsupportedArch(spec);
  auto plan = planSm80Gemm(spec);
  if (!plan)
    return plan.takeError();
  llvm::LLVMContext context;
  auto module = buildSm80GemmModule(*plan, context);
  if (!module)
    return module.takeError();
  std::string text;
  llvm::raw_string_ostream os(text);
  (*module)->print(os, nullptr);
  return text;
}

} // namespace tilec
