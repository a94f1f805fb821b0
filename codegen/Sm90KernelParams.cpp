//===- codegen/Sm90KernelParams.cpp - The sm_90a kernel's parameters -----===//
//
// One list, read by the kernel's declaration (Sm90Gemm.cpp) and by the
// launcher (sm90GemmBinary in Sm90GemmSpec.cpp).
//
//===----------------------------------------------------------------------===//
#include "codegen/EpilogueMath.h"
#include "codegen/Sm90Gemm.h"
#include "codegen/warpspec/KernelBuilder.h"

namespace tilec {

std::vector<KernelParam>
sm90KernelParams(bool staged, llvm::ArrayRef<EpilogueOp> ops, bool blockScaled,
                 bool batched, std::optional<GroupKind> group,
                 const std::optional<WeightQuantSpec> &weight) {
  using P = KernelParam;
  std::vector<KernelParam> params = tmaGemmLeadingParams(staged);
  params.insert(params.end(),
                {{"workspace", P::Pointer}, {"counters", P::Pointer}});
  if (staged)
    params.push_back({"storeTma", P::I32});
  for (KernelParam &param : epilogueParams(ops))
    params.push_back(std::move(param));
  if (blockScaled)
    params.insert(params.end(), {{"sfa", P::Pointer}, {"sfb", P::Pointer}});
  // A and B's batch strides live in their tensor maps.
  if (batched)
    params.push_back({"strideC", P::I64});
  if (group)
    params.insert(params.end(), {{"groups", P::I32},
                                 {*group == GroupKind::Contiguous ? "groupIndex"
                                                                  : "groupRows",
                                  P::Pointer}});
  if (weight) {
    params.push_back({"tmapSB", P::TensorMap});
    if (weight->zeros)
      params.push_back({"tmapZB", P::TensorMap});
  }
  return params;
}

} // namespace tilec
