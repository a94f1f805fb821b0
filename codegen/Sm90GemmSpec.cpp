//===- codegen/Sm90GemmSpec.cpp - GemmSpec to the sm_90a generator --------===//
//
// Checks what the sm_90a generator implements and copies the tile over; the
// generator's own verifier then checks the tile against the wgmma and
// swizzle atoms.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90GemmSpec.h"

namespace tilec {

llvm::Expected<Sm90GemmConfig> sm90ConfigFromSpec(const GemmSpec &spec) {
  auto fail = [](const std::string &message) {
    return llvm::createStringError(message);
  };
  if (spec.arch != ArchKind::SM90a)
    return fail("the sm_90a generator got a spec for " +
                archInfo(spec.arch).name.str());
  auto typeName = [](DTypeKind kind) { return dtypeInfo(kind).name.str(); };
  if (spec.aType != DTypeKind::BF16 || spec.bType != DTypeKind::BF16 ||
      spec.cType != DTypeKind::BF16 || spec.accType != DTypeKind::F32)
    return fail("sm_90a GEMM types a=" + typeName(spec.aType) +
                " b=" + typeName(spec.bType) + " c=" + typeName(spec.cType) +
                " acc=" + typeName(spec.accType) +
                " are not implemented; a, b, c bf16 with acc f32 are");
  if (spec.aMajor != MajorKind::K || spec.bMajor != MajorKind::K)
    return fail("sm_90a GEMM needs A and B K-major (a TN GEMM); MN-major "
                "operands (transposed wgmma descriptors) are not implemented");
  if (spec.cMajor != MajorKind::MN)
    return fail("sm_90a GEMM stores C row-major (major(N)) only");
  Sm90GemmConfig config;
  config.annotate = spec.annotate;
  config.annotateSource = spec.annotateSource;
  if (!spec.name.empty())
    config.name = spec.name;
  config.bm = spec.bm;
  config.bn = spec.bn;
  config.bk = spec.bk;
  config.stages = spec.stages;
  if (llvm::Error err = verifySm90GemmConfig(config))
    return err;
  return config;
}

} // namespace tilec
