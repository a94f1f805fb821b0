//===- codegen/GemmCodegen.cpp - GemmSpec to PTX, per target --------------===//
//
// Dispatch on the spec's arch. Each target's generator lives in its own file
// (Sm80Gemm.cpp, ...); this file only routes and reports unsupported targets.
//
//===----------------------------------------------------------------------===//
#include "codegen/GemmCodegen.h"

namespace tilec {

llvm::Error checkGemmSpec(const GemmSpec &spec) {
  return llvm::createStringError(
      "GEMM code generation for " + archInfo(spec.arch).name.str() +
      " is not implemented yet (sm_80 is in progress)");
}

llvm::Expected<GemmKernelBinary> emitGemm(const GemmSpec &spec) {
  if (llvm::Error err = checkGemmSpec(spec))
    return err;
  return llvm::createStringError("unreachable");
}

llvm::Expected<std::string> emitGemmLlvmIr(const GemmSpec &spec) {
  if (llvm::Error err = checkGemmSpec(spec))
    return err;
  return llvm::createStringError("unreachable");
}

} // namespace tilec
