//===- codegen/warpspec/SpecBasics.h - What every TMA GEMM takes -*- C++
//-*-===//
//
// The facts of a lowered GemmSpec that the TMA warp-specialized generators
// (sm_90a, sm_100a) both require before they read anything else: the spec
// is for their arch, accumulates in f32 and stores C row-major; and the
// tile width their swiglu pairing needs.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_WARPSPEC_SPECBASICS_H
#define TILEC_CODEGEN_WARPSPEC_SPECBASICS_H

#include "ir/tile/GemmSpec.h"

#include "llvm/Support/Error.h"

namespace tilec {

/// Success, or the first of: \p spec is for another arch than \p arch, it
/// accumulates in another type than f32, C is not row-major. The message
/// names the generator ("the sm_90a generator got a spec for sm_80").
llvm::Error checkTmaGemmBasics(const GemmSpec &spec, ArchKind arch);

/// Success, or why a swiglu epilogue cannot pair a tile of \p bn columns:
/// both generators pair the two halves of each tile in blocks of 8
/// columns, so BN must be a multiple of 16.
llvm::Error checkSwigluHalves(unsigned bn);

} // namespace tilec

#endif // TILEC_CODEGEN_WARPSPEC_SPECBASICS_H
