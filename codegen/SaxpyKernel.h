//===- codegen/SaxpyKernel.h - The pipeline's smoke-test kernel --*- C++ -*-===//
//
// y[i] = a * x[i] + y[i] for i < n, built with IRBuilder: the smallest kernel
// that exercises module set-up, kernel annotation, special registers, a ragged
// bound and PTX emission for every target, and that the runtime can launch.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SAXPYKERNEL_H
#define TILEC_CODEGEN_SAXPYKERNEL_H

#include "ir/arch/Arch.h"

#include "llvm/Support/Error.h"

#include <string>

namespace tilec {

/// The kernel's entry name in the emitted PTX.
inline constexpr const char *SaxpyKernelName = "tilec_saxpy";

/// PTX of `tilec_saxpy(float a, const float *x, float *y, uint32 n)`, one
/// element per thread.
llvm::Expected<std::string> emitSaxpyPtx(ArchKind arch);

} // namespace tilec

#endif // TILEC_CODEGEN_SAXPYKERNEL_H
