//===- codegen/warpspec/SpecBasics.cpp - What every TMA GEMM takes --------===//
#include "codegen/warpspec/SpecBasics.h"

namespace tilec {

llvm::Error checkTmaGemmBasics(const GemmSpec &spec, ArchKind arch) {
  std::string name = archInfo(arch).name.str();
  if (spec.arch != arch)
    return llvm::createStringError("the " + name +
                                   " generator got a spec for " +
                                   archInfo(spec.arch).name.str());
  if (spec.accType != DTypeKind::F32)
    return llvm::createStringError(name + " GEMM accumulates in f32, not " +
                                   dtypeInfo(spec.accType).name.str());
  if (spec.cMajor != MajorKind::MN)
    return llvm::createStringError(name +
                                   " GEMM stores C row-major (major(N)) only");
  return llvm::Error::success();
}

llvm::Error checkSwigluHalves(unsigned bn) {
  if (bn % 16 == 0)
    return llvm::Error::success();
  return llvm::createStringError(
      "epilogue op 'swiglu' pairs the two halves of each tile's BN = " +
      std::to_string(bn) +
      " columns in blocks of 8; BN must be a multiple of 16");
}

} // namespace tilec
