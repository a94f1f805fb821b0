//===- codegen/Sm90GemmSpec.h - GemmSpec to the sm_90a generator -*- C++
//-*-===//
//
// The one place that reads a lowered GemmSpec for the sm_90a generator, kept
// apart from Sm90Gemm.h so that codegen/GemmCodegen's per-arch dispatch can
// call it without pulling the descriptor headers in (ir/GemmSpec.h and
// ir/SmemDescriptor.h each declare MajorKind until main unifies them).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM90GEMMSPEC_H
#define TILEC_CODEGEN_SM90GEMMSPEC_H

#include "codegen/Sm90Gemm.h"
#include "ir/GemmSpec.h"

#include "llvm/Support/Error.h"

namespace tilec {

/// The sm_90a config of a lowered GemmSpec: arch sm_90a, bf16 A, B, C with
/// f32 accumulation, A and B K-major, C row-major; name, BM, BN, BK and
/// stages carry over (BM = 64 * consumer warpgroups). The error names the
/// field, its value and what is legal.
llvm::Expected<Sm90GemmConfig> sm90ConfigFromSpec(const GemmSpec &spec);

} // namespace tilec

#endif // TILEC_CODEGEN_SM90GEMMSPEC_H
