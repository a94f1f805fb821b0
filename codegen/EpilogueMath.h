//===- codegen/EpilogueMath.h - One element of the epilogue -----*- C++ -*-===//
//
// The per-element arithmetic of every store path of every target (sm_80's
// staged copy, sm_90a's direct stores, its stmatrix/TMA-store tiles and
// split-K's final reduce all call it), so the targets round alike:
//
//   x = fma(beta, c_old, alpha * acc)      (alpha * acc when C is not read)
//   x = op_n(... op_1(x))                  (ir/tile/EpilogueOps.h, in order)
//
// then the caller casts x to C's type. The ops that read an operand (bias,
// scale, residual with its leading dimension ldr) take kernel parameters of
// the same name (epilogueParams); their indices are clamped into the
// operand, so a tile's out-of-range elements (computed, then not stored)
// never read past it.
//
// swiglu combines two accumulator elements into one of C: the store paths
// find the pair (swigluSources in ir/tile/EpilogueOps.h) and call
// emitSwigluElement, which applies the ops before swiglu to each at its
// accumulator column, silu(gate) * up, then the ops after it at C's column.
// C (and a residual) then has N / 2 columns; beta must be 0 (the launcher
// checks), so C is never read.
//
// Example: `epilogue bias(col) relu` turns element (i, j) into
//   max(fma(beta, c[i][j], alpha * acc) + bias[min(j, N - 1)], 0).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_EPILOGUEMATH_H
#define TILEC_CODEGEN_EPILOGUEMATH_H

#include "codegen/GemmCodegen.h"
#include "ir/arch/DType.h"
#include "ir/tile/EpilogueOps.h"
#include "ir/tile/GemmSpec.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"

#include <array>
#include <vector>

namespace tilec {

/// The kernel parameters \p ops read: one global pointer per operand role
/// ("bias", "scale", "residual": ir/tile/EpilogueOps.def), each once, in the op
/// table's order; a matrix operand's leading dimension ("ldr", i32) right
/// after it.
std::vector<KernelParam> epilogueParams(llvm::ArrayRef<EpilogueOp> ops);

/// What the ops read besides the element: each op's operand pointer and,
/// for a matrix, its leading dimension (indexed by EpilogueOpKind; null
/// when no op reads them), C's extents M and N (i32) for clamping, C's type
/// (the bias's type).
struct EpilogueInputs {
  std::array<llvm::Value *, EpilogueOpCount> operand{}, operandLd{};
  /// M and the accumulator's N (C has N / 2 columns with swiglu).
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

/// The bias and scale values of C's element that a store path loaded ahead
/// of its math: one per op of the list (null where the op loads its own).
/// A column's value serves both of a thread's rows and a row's value all
/// its columns, but LLVM cannot reuse one load across the stores to C (they
/// may alias the operand) nor hoist it over the barriers of the staged
/// store; loaded once, ahead, each costs one load and one latency.
struct EpilogueOperandValues {
  llvm::SmallVector<llvm::Value *, 4> perOp;

  /// Each op's value from \p first, else from \p second.
  static EpilogueOperandValues merge(const EpilogueOperandValues &first,
                                     const EpilogueOperandValues &second);
};

/// Loads the operands of \p ops (without swiglu) indexed by C's \p row
/// (bias(row), scale(row)) and by C's \p col (bias(col), scale(col)),
/// clamped as emitEpilogueOps clamps them; a null \p row or \p col loads
/// none of that axis.
EpilogueOperandValues emitEpilogueOperandLoads(llvm::IRBuilder<> &b,
                                               llvm::ArrayRef<EpilogueOp> ops,
                                               const EpilogueInputs &in,
                                               llvm::Value *row,
                                               llvm::Value *col);

/// \p ops (without swiglu) applied in order to the f32 \p x of C's element
/// (\p row, \p col) (i32, C's coordinates, possibly outside M x N), with
/// the operand values in \p loaded (emitEpilogueOperandLoads of the same
/// row or column) where given.
llvm::Value *emitEpilogueOps(llvm::IRBuilder<> &b,
                             llvm::ArrayRef<EpilogueOp> ops,
                             const EpilogueInputs &in, llvm::Value *x,
                             llvm::Value *row, llvm::Value *col,
                             const EpilogueOperandValues *loaded = nullptr);

/// One element of C for a kernel with swiglu in \p ops: \p gate and \p up
/// (alpha * acc each) at accumulator columns \p gateCol and \p upCol of
/// row \p row, the ops before swiglu applied to each, silu(gate) * up,
/// then the ops after it at C's column \p col.
llvm::Value *emitSwigluElement(llvm::IRBuilder<> &b,
                               llvm::ArrayRef<EpilogueOp> ops,
                               const EpilogueInputs &in, llvm::Value *gate,
                               llvm::Value *up, llvm::Value *row,
                               llvm::Value *gateCol, llvm::Value *upCol,
                               llvm::Value *col);

/// emitSwigluElement of alpha * \p gate and alpha * \p up (C is not read
/// with swiglu, so beta never enters): what every staged and direct store
/// path of sm_90a and sm_100a calls.
llvm::Value *emitScaledSwigluElement(llvm::IRBuilder<> &b,
                                     llvm::ArrayRef<EpilogueOp> ops,
                                     const EpilogueInputs &in,
                                     llvm::Value *alpha, llvm::Value *beta,
                                     llvm::Value *gate, llvm::Value *up,
                                     llvm::Value *row, llvm::Value *gateCol,
                                     llvm::Value *upCol, llvm::Value *col);

/// Where \p spec's ops are applied, for --emit=lowered: the store path
/// (sm_80's staged copy loop; sm_90a's stmatrix/TMA-store tile with its
/// direct fallback, or direct stores), after the split-K reduction, with
/// swap-AB's transposition, swiglu's pairing; "" without ops.
std::string describeEpiloguePlacement(const GemmSpec &spec);

/// tilec compile --annotate: a `// tilec: epilogue ...` comment in the PTX
/// before a store path's math, naming \p ops and \p where ("direct
/// stores"); nothing when \p ops is empty.
void emitEpilogueAnnotation(llvm::IRBuilder<> &b,
                            llvm::ArrayRef<EpilogueOp> ops,
                            llvm::StringRef where);

} // namespace tilec

#endif // TILEC_CODEGEN_EPILOGUEMATH_H
