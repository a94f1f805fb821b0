//===- ir/EpilogueOps.h - The epilogue's element-wise ops --------*- C++ -*-===//
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
//                   bias[i] (row: one per row, length M), in C's dtype
//   scale(col|row)  * scale[j] or scale[i], f32
//   relu            max(x, 0)
//   gelu            x * (1 + erf(x / sqrt(2))) / 2
//   gelu_tanh       x * (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2
//   silu            x / (1 + exp(-x))
//   clamp(lo, hi)   min(max(x, lo), hi)
//
// Example: parseEpilogueOp("clamp(-1, 1.5)") is {Clamp, None, -1, 1.5};
// "bias(diag)" is an error naming the legal axes.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_EPILOGUEOPS_H
#define TILEC_IR_EPILOGUEOPS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tilec {

enum class EpilogueOpKind { Bias, Scale, Relu, Gelu, GeluTanh, Silu, Clamp };

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

  friend bool operator==(const EpilogueOp &a, const EpilogueOp &b) {
    return a.kind == b.kind && a.axis == b.axis && a.lo == b.lo && a.hi == b.hi;
  }
};

/// One row of the op table.
struct EpilogueOpInfo {
  llvm::StringRef name;
  EpilogueOpKind kind;
  bool takesAxis;    ///< `(col)` or `(row)` required.
  bool takesBounds;  ///< `(lo, hi)` required.
  /// The kernel parameter (and launcher role) of its operand vector: "bias",
  /// "scale"; empty when it reads none.
  llvm::StringRef operand;
};

/// Every op.
llvm::ArrayRef<EpilogueOpInfo> epilogueOpTable();
/// The row named \p name, or null.
const EpilogueOpInfo *findEpilogueOp(llvm::StringRef name);
/// "bias, scale, relu, gelu, gelu_tanh, silu, clamp".
std::string listEpilogueOps();
/// The row of \p kind.
const EpilogueOpInfo &epilogueOpInfo(EpilogueOpKind kind);

/// Parses one op as written (`bias(col)`, `relu`, `clamp(-1, 1)`); the
/// error says what is legal.
llvm::Expected<EpilogueOp> parseEpilogueOp(llvm::StringRef text);
/// The spelling parseEpilogueOp reads back: "bias(col)", "clamp(-1, 1.5)".
std::string formatEpilogueOp(const EpilogueOp &op);
/// The ops joined by spaces: "bias(col) gelu_tanh".
std::string formatEpilogueOps(llvm::ArrayRef<EpilogueOp> ops);

} // namespace tilec

#endif // TILEC_IR_EPILOGUEOPS_H
