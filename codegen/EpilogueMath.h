//===- codegen/EpilogueMath.h - One element of the epilogue ------*- C++ -*-===//
//
// The per-element arithmetic of every store path of every target (sm_80's
// staged copy, sm_90a's direct stores, its stmatrix/TMA-store tiles and
// split-K's final reduce all call it), so the targets round alike:
//
//   x = fma(beta, c_old, alpha * acc)      (alpha * acc when C is not read)
//   x = op_n(... op_1(x))                  (ir/EpilogueOps.h, in order)
//
// then the caller casts x to C's type. The ops that read an operand vector
// (bias, scale) take kernel parameters of the same name (epilogueParams);
// their index is clamped into the vector, so a tile's out-of-range elements
// (computed, then not stored) never read past it.
//
// Example: `epilogue bias(col) relu` turns element (i, j) into
//   max(fma(beta, c[i][j], alpha * acc) + bias[min(j, N - 1)], 0).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_EPILOGUEMATH_H
#define TILEC_CODEGEN_EPILOGUEMATH_H

#include "codegen/GemmCodegen.h"
#include "ir/DType.h"
#include "ir/EpilogueOps.h"

#include "llvm/IR/IRBuilder.h"

#include <vector>

namespace tilec {

/// The kernel parameters \p ops read: one global pointer per operand role
/// ("bias", "scale"), each once, in the op table's order.
std::vector<KernelParam> epilogueParams(llvm::ArrayRef<EpilogueOp> ops);

/// What the ops read besides the element: the operand pointers (null when
/// no op reads them), C's extents M and N (i32) for clamping, C's type (the
/// bias's type).
struct EpilogueInputs {
  llvm::Value *bias = nullptr, *scale = nullptr;
  llvm::Value *rows = nullptr, *cols = nullptr;
  DTypeKind cType = DTypeKind::BF16;

  /// The pointer parameters of \p fn named as epilogueParams names them.
  static EpilogueInputs fromFunction(llvm::Function &fn, llvm::Value *rows,
                                     llvm::Value *cols, DTypeKind cType);
};

/// alpha * acc, plus beta * old with one rounding (fma) when \p old is
/// given; \p alpha null (a kernel without scalars) returns \p acc.
llvm::Value *emitAlphaBeta(llvm::IRBuilder<> &b, llvm::Value *alpha,
                           llvm::Value *acc, llvm::Value *beta,
                           llvm::Value *old);

/// \p ops applied in order to the f32 \p x of C's element (\p row, \p col)
/// (i32, C's coordinates, possibly outside M x N).
llvm::Value *emitEpilogueOps(llvm::IRBuilder<> &b,
                             llvm::ArrayRef<EpilogueOp> ops,
                             const EpilogueInputs &in, llvm::Value *x,
                             llvm::Value *row, llvm::Value *col);

} // namespace tilec

#endif // TILEC_CODEGEN_EPILOGUEMATH_H
