//===- codegen/Sm90GemmSpec.h - GemmSpec to the sm_90a generator -*- C++
//-*-===//
//
// The one place that reads a lowered GemmSpec for the sm_90a generator. It is
// kept apart from Sm90Gemm.h so that the generator (which several people
// tune) stays a function of its own Sm90GemmConfig and never sees the
// language's spec; codegen/GemmCodegen's per-arch dispatch calls this.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM90GEMMSPEC_H
#define TILEC_CODEGEN_SM90GEMMSPEC_H

#include "codegen/GemmCodegen.h"
#include "codegen/Sm90Gemm.h"
#include "ir/tile/GemmSpec.h"

#include "llvm/Support/Error.h"

namespace tilec {

/// The spec's fields in the sm_90a config (name, tile, stages, types,
/// majorness, swap-AB, the epilogue), unchecked: what plan-pipeline sizes
/// before code generation checks it. split-K is left to sm90ConfigFromSpec.
Sm90GemmConfig sm90ConfigOf(const GemmSpec &spec);

/// The sm_90a config of a lowered GemmSpec: arch sm_90a, bf16 A, B, C with
/// f32 accumulation, A and B K-major, C row-major; name, BM, BN, BK,
/// stages, swap-AB and split-K carry over (BM = 64 * consumer warpgroups);
/// split-K reduces in a cluster wherever sm90SplitKClusterFits, else in
/// the workspace.
/// The error names the field, its value and what is legal.
llvm::Expected<Sm90GemmConfig> sm90ConfigFromSpec(const GemmSpec &spec);

/// sm90ConfigFromSpec without the generator's own verifier
/// (verifySm90GemmConfig), for the row's emit: emitSm90Gemm verifies the
/// config it builds, so an emitted spec is verified once.
llvm::Expected<Sm90GemmConfig> sm90UnverifiedConfig(const GemmSpec &spec);

/// The launch facts of an emitted sm_90a kernel in the arch-neutral form
/// launchers read: parameters, the two tensor maps (derived from the operand
/// tiles: box = tile rows x BK, the tile's swizzle), grid rule, split-K and
/// persistence. \p splits is grid.z of a split-K kernel (at least 2 when
/// config.splitK, else ignored); with config.splitKCluster it is also the
/// cluster's z extent, and more than 8 (the portable cluster size) is an
/// error.
llvm::Expected<GemmKernelBinary> sm90GemmBinary(Sm90GemmKernel kernel,
                                                unsigned splits = 1);

} // namespace tilec

#endif // TILEC_CODEGEN_SM90GEMMSPEC_H
