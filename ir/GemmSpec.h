//===- ir/GemmSpec.h - A GEMM kernel as code generation sees it --*- C++ -*-===//
//
// The lowered, fully decided description of one GEMM kernel: the passes fill
// it in (types, majorness, tile, pipeline depth, smem layouts, instruction)
// and codegen/ turns it into LLVM IR for its target. Nothing in here is
// chosen by codegen.
//
//   C[M,N] = alpha * A[M,K] * B[N,K]^T + beta * C
//
// A is M x K, B is N x K (both in the "TN" logical view); majorness says which
// of the two extents is contiguous in global memory.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_GEMMSPEC_H
#define TILEC_IR_GEMMSPEC_H

#include "ir/Arch.h"
#include "ir/DType.h"

#include <string>

namespace tilec {

/// Which extent of an operand is contiguous in memory.
enum class MajorKind { K, MN };

/// The lowered GEMM kernel handed to codegen.
struct GemmSpec {
  std::string name;
  ArchKind arch = ArchKind::SM80;
  DTypeKind aType = DTypeKind::BF16;
  DTypeKind bType = DTypeKind::BF16;
  DTypeKind cType = DTypeKind::BF16;
  DTypeKind accType = DTypeKind::F32;
  MajorKind aMajor = MajorKind::K;
  MajorKind bMajor = MajorKind::K;
  MajorKind cMajor = MajorKind::MN; ///< MN here means N-contiguous rows.
  unsigned bm = 128, bn = 128, bk = 32;
  unsigned stages = 3;
};

} // namespace tilec

#endif // TILEC_IR_GEMMSPEC_H
