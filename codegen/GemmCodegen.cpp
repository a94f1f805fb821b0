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
#include "llvm/Support/raw_ostream.h"

namespace tilec {

namespace {

llvm::Error unsupportedArch(const GemmSpec &spec) {
  return llvm::createStringError(
      "no GEMM code generator for " + archInfo(spec.arch).name.str() +
      " yet; sm_80 is supported");
}

} // namespace

llvm::Error checkGemmSpec(const GemmSpec &spec) {
  if (spec.arch != ArchKind::SM80)
    return unsupportedArch(spec);
  auto plan = planSm80Gemm(spec);
  return plan ? llvm::Error::success() : plan.takeError();
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
