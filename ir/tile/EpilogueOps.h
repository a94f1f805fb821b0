//===- ir/tile/EpilogueOps.h - The epilogue's element-wise ops --------*- C++
//-*-===//
//
// The ops a kernel's epilogue applies to each accumulator element after
// alpha * acc + beta * C, in the order written, before the cast to C's type:
//
//   epilogue bias(col) gelu_tanh -> stmatrix swizzle(128B) -> tma_store
//   epilogue scale(row) silu -> store
//   epilogue relu clamp(-1, 1)
//
// One table holds each op's spelling, options and the operand it reads; the
// verifier, lowering, codegen (codegen/EpilogueMath.h applies them), the
// launcher (binds the operands by role) and the CPU reference all read it.
//
//   bias(col|row)   + bias[j] (col: one per column of C, length N) or
//                   bias[i] (row: one per row, length M), in C's dtype;
//   bias(col, T)    the same with the vector in T (bf16, f16 or f32)
//   scale(col|row)  * scale[j] or scale[i], f32
//   relu            max(x, 0)
//   gelu            x * (1 + erf(x / sqrt(2))) / 2
//   gelu_tanh       x * (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2
//   silu            x / (1 + exp(-x))
//   clamp(lo, hi)   min(max(x, lo), hi)
//   residual        + R[i][j]: a second tensor of C's shape and dtype,
//                   row-major with its own leading dimension ldr
//   swiglu          gated halves: silu(x[i][g]) * x[i][u], one output per
//                   pair, so C has N/2 columns. The pairing:
//                     swiglu               halves of each CTA tile: with BN
//                       accumulator columns per tile t, output column
//                       t BN/2 + r takes g = t BN + r, u = g + BN/2
//                       (r < BN/2): gate and up rows of B alternate in
//                       blocks of BN/2;
//                     swiglu(interleaved)  output column o takes g = 2 o,
//                       u = 2 o + 1.
//                   The ops before swiglu see accumulator columns (a
//                   bias(col) of length N), the ops after it C's (N/2).
//
// Example: parseEpilogueOp("clamp(-1, 1.5)") is {Clamp, None, -1, 1.5};
// "bias(diag)" is an error naming the legal axes; "bias(col, f32)" is
// {Bias, Col} with operandType f32.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_TILE_EPILOGUEOPS_H
#define TILEC_IR_TILE_EPILOGUEOPS_H

#include "ir/arch/DType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// One per line of ir/tile/EpilogueOps.def.
enum class EpilogueOpKind {
#define TILEC_EPILOGUE_OP(KIND, ...) KIND,
#include "ir/tile/EpilogueOps.def"
};

/// How many ops the table has (an array indexed by EpilogueOpKind).
inline constexpr size_t EpilogueOpCount = 0
#define TILEC_EPILOGUE_OP(KIND, ...) +1
#include "ir/tile/EpilogueOps.def"
    ;

/// The element type of the operand an op reads (ir/tile/EpilogueOps.def's
/// operandType column).
enum class EpilogueOperandType {
  None,         ///< The op reads no operand.
  OfC,          ///< C's type.
  OfCOrWritten, ///< C's, or the type written (`bias(col, f32)`).
  F32,          ///< Always f32.
};

/// How swiglu pairs the gate and up columns (the header's comment).
enum class SwigluPairingKind { TileHalves, Interleaved };

/// Which index of C an operand vector follows.
enum class EpilogueAxis {
  None, ///< The op reads no operand.
  Col,  ///< One value per column j (length N): per channel.
  Row,  ///< One value per row i (length M): per token.
};

struct EpilogueOp {
  EpilogueOpKind kind;
  EpilogueAxis axis = EpilogueAxis::None;
  float lo = 0, hi = 0; ///< clamp's bounds.
  /// bias's vector type when written (`bias(col, f32)`); unset: C's.
  std::optional<DTypeKind> operandType;
  SwigluPairingKind pairing = SwigluPairingKind::TileHalves; ///< swiglu's.

  friend bool operator==(const EpilogueOp &a, const EpilogueOp &b) {
    return a.kind == b.kind && a.axis == b.axis && a.lo == b.lo &&
           a.hi == b.hi && a.operandType == b.operandType &&
           a.pairing == b.pairing;
  }
};

/// One row of the op table (a line of ir/tile/EpilogueOps.def).
struct EpilogueOpInfo {
  llvm::StringRef name;
  EpilogueOpKind kind;
  bool takesAxis;   ///< `(col)` or `(row)` required.
  bool takesBounds; ///< `(lo, hi)` required.
  /// The kernel parameter (and launcher role) of its operand: "bias",
  /// "scale", "residual"; empty when it reads none.
  llvm::StringRef operand;
  /// Empty for a vector operand (along the op's axis); for a matrix of C's
  /// shape, its leading dimension's parameter ("ldr").
  llvm::StringRef operandLd;
  EpilogueOperandType operandType;
  /// Computed on the GPU with approximate instructions (a fast exp2,
  /// tanh.approx.f32; docs/language.md has the bounds), so even an
  /// integer-input result is not exact.
  bool approximate;
};

/// Every op.
llvm::ArrayRef<EpilogueOpInfo> epilogueOpTable();
/// The row named \p name, or null.
const EpilogueOpInfo *findEpilogueOp(llvm::StringRef name);
/// "bias, scale, relu, gelu, gelu_tanh, silu, clamp".
std::string listEpilogueOps();
/// The row of \p kind.
const EpilogueOpInfo &epilogueOpInfo(EpilogueOpKind kind);

/// The CPU reference of \p op on \p x in double (ir/tile/EpilogueOps.def's
/// reference column); \p operand is the element of the tensor it reads
/// (bias, scale, residual), ignored by the others. swiglu returns \p x:
/// it pairs two elements (swigluSources), which its callers combine.
double referenceEpilogueOp(const EpilogueOp &op, double x, double operand);

/// The element type of the operand \p op reads in a kernel whose C is
/// \p cType (the table's operandType): bias's written type or C's, scale
/// f32, residual C's.
DTypeKind epilogueOperandType(const EpilogueOp &op, DTypeKind cType);
/// Whether \p op reads a vector operand (one value per row or column).
bool readsOperandVector(const EpilogueOp &op);
/// Whether \p op reads a matrix operand of C's shape.
bool readsOperandMatrix(const EpilogueOp &op);
/// The op table's rows that read an operand, in table order.
llvm::SmallVector<const EpilogueOpInfo *> epilogueOperandRoles();
/// The row whose operand (or its leading dimension) is the kernel
/// parameter \p name, or null (also for an empty name).
const EpilogueOpInfo *findEpilogueOperand(llvm::StringRef name);

/// The swiglu op of \p ops, or null.
const EpilogueOp *findSwiglu(llvm::ArrayRef<EpilogueOp> ops);
/// The ops before swiglu (all of them without one) and after it.
std::pair<llvm::ArrayRef<EpilogueOp>, llvm::ArrayRef<EpilogueOp>>
splitAtSwiglu(llvm::ArrayRef<EpilogueOp> ops);
/// C's columns for an accumulator of \p n columns: n / 2 with swiglu.
int64_t epilogueOutputCols(llvm::ArrayRef<EpilogueOp> ops, int64_t n);
/// The accumulator columns (gate, up) of output column \p col of a kernel
/// with \p bn accumulator columns per CTA tile (ir's formula; codegen
/// and the CPU reference both follow it).
std::pair<int64_t, int64_t> swigluSources(const EpilogueOp &swiglu, int64_t col,
                                          int64_t bn);

/// Parses one op as written (`bias(col)`, `relu`, `clamp(-1, 1)`); the
/// error says what is legal.
llvm::Expected<EpilogueOp> parseEpilogueOp(llvm::StringRef text);
/// The spelling parseEpilogueOp reads back: "bias(col)", "clamp(-1, 1.5)".
std::string formatEpilogueOp(const EpilogueOp &op);
/// The ops joined by spaces: "bias(col) gelu_tanh".
std::string formatEpilogueOps(llvm::ArrayRef<EpilogueOp> ops);

} // namespace tilec

#endif // TILEC_IR_TILE_EPILOGUEOPS_H
