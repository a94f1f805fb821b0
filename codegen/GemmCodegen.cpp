//===- codegen/GemmCodegen.cpp - GemmSpec to PTX, per target --------------===//
//
// Dispatch on the spec's arch. Each target's generator lives in its own files
// (Sm80Gemm.cpp, ...); this file only routes, runs the PTX emitter and
// reports targets that have no GEMM generator yet.
//
//===----------------------------------------------------------------------===//
#include "codegen/GemmCodegen.h"

#include "codegen/PtxEmitter.h"
#include "codegen/Sm80Gemm.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <climits>

namespace tilec {

namespace {

llvm::Error unsupportedArch(const GemmSpec &spec) {
  return llvm::createStringError("no GEMM code generator for " +
                                 archInfo(spec.arch).name.str() +
                                 " yet; sm_80 is supported");
}

} // namespace

llvm::Error checkGemmSpec(const GemmSpec &spec) {
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

llvm::Expected<GemmKernelBinary> emitGemm(const GemmSpec &spec) {
  if (spec.arch != ArchKind::SM80)
    return unsupportedArch(spec);
  auto plan = planSm80Gemm(spec);
  if (!plan)
    return plan.takeError();
  llvm::LLVMContext context;
  auto module = buildSm80GemmModule(*plan, context);
  if (!module)
    return module.takeError();
  auto ptx = emitPtx(**module, spec.arch);
  if (!ptx)
    return ptx.takeError();
  GemmKernelBinary binary;
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
