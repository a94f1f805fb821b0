//===- codegen/Sm100GemmSpec.h - GemmSpec to the sm_100a generator -*- C++
//-*-===//
//
// The one place that reads a lowered GemmSpec for the sm_100a generator, so
// that the generator (Sm100Gemm.h) stays a function of its Sm100GemmConfig;
// codegen/GemmCodegen's per-arch dispatch calls these two functions.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM100GEMMSPEC_H
#define TILEC_CODEGEN_SM100GEMMSPEC_H

#include "codegen/GemmCodegen.h"
#include "codegen/Sm100Gemm.h"
#include "ir/tile/GemmSpec.h"

#include "llvm/Support/Error.h"

namespace tilec {

/// The sm_100a config of a lowered GemmSpec: f32 accumulation, C row-major,
/// the direct-store epilogue; name, types, majorness, BM, BN, BK and stages
/// carry over, and a written smem layout must be the one the generator
/// stages. The error names the field, its value and what is legal.
llvm::Expected<Sm100GemmConfig> sm100ConfigFromSpec(const GemmSpec &spec);

/// The launch facts of an emitted sm_100a kernel in the arch-neutral form
/// launchers read: parameters, the two tensor maps (the operand tiles'
/// boxes and swizzles, as on sm_90a), persistent with one CTA per SM
/// (its GemmGridRule).
GemmKernelBinary sm100GemmBinary(Sm100GemmKernel kernel);

} // namespace tilec

#endif // TILEC_CODEGEN_SM100GEMMSPEC_H
