//===- codegen/EpilogueMath.cpp - One element of the epilogue -------------===//
#include "codegen/EpilogueMath.h"

#include "codegen/GemmTarget.h"
#include "codegen/NvvmBuilder.h"
#include "codegen/PtxInlineAsm.h"

#include "llvm/IR/Intrinsics.h"

#include <cmath>

using namespace tilec;

namespace {

llvm::Value *f32(llvm::IRBuilder<> &b, double value) {
  return llvm::ConstantFP::get(b.getFloatTy(), value);
}

/// a / b as div.approx.f32 (2 ulp; the afn flag tells NVPTX), not the IEEE
/// div.rn.f32 whose range checks and slow path made the activations most of
/// the epilogue's time on the H200 (bench/EpilogueResults.md). Every divisor
/// here is 1 + e^y or e^y + 1, at least 1; a divisor past 2^126 gives 0,
/// the limit the formula tends to.
llvm::Value *emitFastDiv(llvm::IRBuilder<> &b, llvm::Value *a, llvm::Value *d) {
  llvm::Value *q = b.CreateFDiv(a, d);
  if (auto *inst = llvm::dyn_cast<llvm::Instruction>(q)) {
    llvm::FastMathFlags flags;
    flags.setApproxFunc();
    flags.setAllowReciprocal();
    inst->setFastMathFlags(flags);
  }
  return q;
}

/// e^x as 2^(x log2 e) (ex2.approx.f32: relative error about 2^-22).
llvm::Value *emitExp(llvm::IRBuilder<> &b, llvm::Value *x) {
  return b.CreateUnaryIntrinsic(llvm::Intrinsic::exp2,
                                b.CreateFMul(x, f32(b, M_LOG2E)));
}

/// erf(x) by Abramowitz and Stegun 7.1.26 on |x| (absolute error below
/// 1.5e-7), with the sign of x.
llvm::Value *emitErf(llvm::IRBuilder<> &b, llvm::Value *x) {
  llvm::Value *ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value *t = emitFastDiv(
      b, f32(b, 1.0),
      b.CreateFAdd(f32(b, 1.0), b.CreateFMul(f32(b, 0.3275911), ax)));
  const double a[] = {1.061405429, -1.453152027, 1.421413741, -0.284496736,
                      0.254829592};
  llvm::Value *poly = f32(b, a[0]);
  for (unsigned i = 1; i < 5; ++i)
    poly = b.CreateIntrinsic(llvm::Intrinsic::fma, {b.getFloatTy()},
                             {poly, t, f32(b, a[i])});
  poly = b.CreateFMul(poly, t);
  llvm::Value *e = emitExp(b, b.CreateFNeg(b.CreateFMul(ax, ax)));
  llvm::Value *y = b.CreateFSub(f32(b, 1.0), b.CreateFMul(poly, e));
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, y, x);
}

/// tanh(u) as tanh.approx.f32 (PTX ISA, sm_75 and later: one MUFU op,
/// maximum relative error 2^-10.987, exact limits +-1): llvm.tanh with the
/// afn flag, which NVPTX selects to it on every target. gelu_tanh's
/// 0.5 x (1 + tanh(u)) then errs by at most 0.5 |x| 2^-11: a relative
/// 2^-12 where x > 0, below half an ulp of bf16 or f16 C (measured on an
/// H100: tanh within 7.9e-6 absolute, docs/language.md).
llvm::Value *emitTanh(llvm::IRBuilder<> &b, llvm::Value *u) {
  llvm::Value *t = b.CreateUnaryIntrinsic(llvm::Intrinsic::tanh, u);
  if (auto *inst = llvm::dyn_cast<llvm::Instruction>(t)) {
    llvm::FastMathFlags flags;
    flags.setApproxFunc();
    inst->setFastMathFlags(flags);
  }
  return t;
}

/// x (1 + t) / 2 as fma(x / 2, t, x / 2): gelu's and gelu_tanh's last
/// step, two instructions.
llvm::Value *emitHalfXOnePlus(llvm::IRBuilder<> &b, llvm::Value *x,
                              llvm::Value *t) {
  llvm::Value *half = b.CreateFMul(x, f32(b, 0.5));
  return b.CreateIntrinsic(llvm::Intrinsic::fma, {b.getFloatTy()},
                           {half, t, half});
}

/// vector[min(index, length - 1)] as f32.
llvm::Value *emitOperandLoad(llvm::IRBuilder<> &b, llvm::Value *vector,
                             DTypeKind type, llvm::Value *index,
                             llvm::Value *length) {
  llvm::Value *last = b.CreateSub(length, b.getInt32(1));
  llvm::Value *at = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, index, last);
  llvm::Type *element = llvmFloatType(b, type);
  llvm::Value *ptr =
      b.CreateInBoundsGEP(element, vector, b.CreateZExt(at, b.getInt64Ty()));
  llvm::Value *value =
      b.CreateAlignedLoad(element, ptr, llvm::Align(dtypeBits(type) / 8));
  return element->isFloatTy() ? value : b.CreateFPExt(value, b.getFloatTy());
}

/// R[min(row, M - 1)][min(col, cols - 1)] as f32, \p op's matrix operand
/// R row-major with its leading dimension (ldr).
llvm::Value *emitOperandMatrixLoad(llvm::IRBuilder<> &b, const EpilogueOp &op,
                                   const EpilogueInputs &in, llvm::Value *row,
                                   llvm::Value *col, llvm::Value *cols) {
  auto clamp = [&](llvm::Value *index, llvm::Value *length) {
    return b.CreateZExt(
        b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, index,
                                b.CreateSub(length, b.getInt32(1))),
        b.getInt64Ty());
  };
  size_t role = size_t(op.kind);
  llvm::Value *at =
      b.CreateAdd(b.CreateMul(clamp(row, in.rows),
                              b.CreateZExt(in.operandLd[role], b.getInt64Ty())),
                  clamp(col, cols));
  DTypeKind type = epilogueOperandType(op, in.cType);
  llvm::Type *element = llvmFloatType(b, type);
  llvm::Value *value = b.CreateAlignedLoad(
      element, b.CreateInBoundsGEP(element, in.operand[role], at),
      llvm::Align(dtypeBits(type) / 8));
  return element->isFloatTy() ? value : b.CreateFPExt(value, b.getFloatTy());
}

/// silu(x) = x / (1 + e^-x).
llvm::Value *emitSilu(llvm::IRBuilder<> &b, llvm::Value *x) {
  return emitFastDiv(b, x,
                     b.CreateFAdd(f32(b, 1.0), emitExp(b, b.CreateFNeg(x))));
}

/// \p ops applied to \p x at (\p row, \p col), the column-indexed operands
/// being \p cols long, with the values in \p loaded where given.
llvm::Value *applyOps(llvm::IRBuilder<> &b, llvm::ArrayRef<EpilogueOp> ops,
                      const EpilogueInputs &in, llvm::Value *x,
                      llvm::Value *row, llvm::Value *col, llvm::Value *cols,
                      const EpilogueOperandValues *loaded = nullptr);

/// The f32 value of \p op's vector operand (bias, scale) at (\p row,
/// \p col), the column-indexed operands being \p cols long.
llvm::Value *emitOpOperand(llvm::IRBuilder<> &b, const EpilogueOp &op,
                           const EpilogueInputs &in, llvm::Value *row,
                           llvm::Value *col, llvm::Value *cols) {
  assert(readsOperandVector(op) && "only vector operands preload");
  bool byRow = op.axis == EpilogueAxis::Row;
  llvm::Value *index = byRow ? row : col;
  llvm::Value *length = byRow ? in.rows : cols;
  return emitOperandLoad(b, in.operand[size_t(op.kind)],
                         epilogueOperandType(op, in.cType), index, length);
}

} // namespace

std::vector<KernelParam> tilec::epilogueParams(llvm::ArrayRef<EpilogueOp> ops) {
  std::vector<KernelParam> params;
  for (const EpilogueOpInfo &info : epilogueOpTable()) {
    if (info.operand.empty())
      continue;
    for (const EpilogueOp &op : ops)
      if (op.kind == info.kind) {
        params.push_back({info.operand.str(), KernelParam::Pointer});
        if (!info.operandLd.empty())
          params.push_back({info.operandLd.str(), KernelParam::I32});
        break;
      }
  }
  return params;
}

EpilogueInputs EpilogueInputs::fromFunction(llvm::Function &fn,
                                            llvm::Value *rows,
                                            llvm::Value *cols,
                                            DTypeKind cType) {
  EpilogueInputs in;
  in.rows = rows;
  in.cols = cols;
  in.cType = cType;
  for (llvm::Argument &arg : fn.args())
    if (const EpilogueOpInfo *info = findEpilogueOperand(arg.getName()))
      (arg.getName() == info->operand ? in.operand
                                      : in.operandLd)[size_t(info->kind)] =
          &arg;
  return in;
}

llvm::Value *tilec::emitAlphaBeta(llvm::IRBuilder<> &b, llvm::Value *alpha,
                                  llvm::Value *acc, llvm::Value *beta,
                                  llvm::Value *old) {
  if (!alpha)
    return acc;
  llvm::Value *scaled = b.CreateFMul(alpha, acc);
  if (!old)
    return scaled;
  return b.CreateIntrinsic(llvm::Intrinsic::fma, {scaled->getType()},
                           {beta, old, scaled});
}

EpilogueOperandValues
EpilogueOperandValues::merge(const EpilogueOperandValues &first,
                             const EpilogueOperandValues &second) {
  assert(first.perOp.size() == second.perOp.size() && "values of one op list");
  EpilogueOperandValues values = first;
  for (size_t k = 0; k < values.perOp.size(); ++k)
    if (!values.perOp[k])
      values.perOp[k] = second.perOp[k];
  return values;
}

EpilogueOperandValues tilec::emitEpilogueOperandLoads(
    llvm::IRBuilder<> &b, llvm::ArrayRef<EpilogueOp> ops,
    const EpilogueInputs &in, llvm::Value *row, llvm::Value *col) {
  assert(!findSwiglu(ops) && "swiglu goes through emitSwigluElement");
  EpilogueOperandValues values;
  for (const EpilogueOp &op : ops) {
    bool operand = readsOperandVector(op);
    bool have = op.axis == EpilogueAxis::Row ? row != nullptr : col != nullptr;
    values.perOp.push_back(operand && have
                               ? emitOpOperand(b, op, in, row, col, in.cols)
                               : nullptr);
  }
  return values;
}

llvm::Value *tilec::emitEpilogueOps(llvm::IRBuilder<> &b,
                                    llvm::ArrayRef<EpilogueOp> ops,
                                    const EpilogueInputs &in, llvm::Value *x,
                                    llvm::Value *row, llvm::Value *col,
                                    const EpilogueOperandValues *loaded) {
  assert(!findSwiglu(ops) && "swiglu goes through emitSwigluElement");
  assert((!loaded || loaded->perOp.size() == ops.size()) &&
         "values loaded for this op list");
  return applyOps(b, ops, in, x, row, col, in.cols, loaded);
}

llvm::Value *tilec::emitSwigluElement(llvm::IRBuilder<> &b,
                                      llvm::ArrayRef<EpilogueOp> ops,
                                      const EpilogueInputs &in,
                                      llvm::Value *gate, llvm::Value *up,
                                      llvm::Value *row, llvm::Value *gateCol,
                                      llvm::Value *upCol, llvm::Value *col) {
  auto [before, after] = splitAtSwiglu(ops);
  gate = applyOps(b, before, in, gate, row, gateCol, in.cols);
  up = applyOps(b, before, in, up, row, upCol, in.cols);
  llvm::Value *x = b.CreateFMul(emitSilu(b, gate), up);
  return applyOps(b, after, in, x, row, col,
                  b.CreateLShr(in.cols, b.getInt32(1)));
}

llvm::Value *tilec::emitScaledSwigluElement(
    llvm::IRBuilder<> &b, llvm::ArrayRef<EpilogueOp> ops,
    const EpilogueInputs &in, llvm::Value *alpha, llvm::Value *beta,
    llvm::Value *gate, llvm::Value *up, llvm::Value *row, llvm::Value *gateCol,
    llvm::Value *upCol, llvm::Value *col) {
  return emitSwigluElement(
      b, ops, in, emitAlphaBeta(b, alpha, gate, beta, nullptr),
      emitAlphaBeta(b, alpha, up, beta, nullptr), row, gateCol, upCol, col);
}

std::string tilec::describeEpiloguePlacement(const GemmSpec &spec) {
  if (spec.epilogueOps.empty())
    return "";
  std::string text = gemmTarget(spec.arch).epiloguePlacement(spec);
  if (spec.splitK > 1)
    text += "; once, after the split-K reduction of " +
            std::to_string(spec.splitK) + " partials";
  if (spec.swapAB)
    text += "; swap-AB: the kernel's rows are C's columns";
  if (const EpilogueOp *swiglu = findSwiglu(spec.epilogueOps))
    text += swiglu->pairing == SwigluPairingKind::Interleaved
                ? "; swiglu pairs columns 2j, 2j + 1: C is M x N/2"
                : "; swiglu pairs column j of each " + std::to_string(spec.bn) +
                      "-column tile with j + " + std::to_string(spec.bn / 2) +
                      ": C is M x N/2";
  return text;
}

void tilec::emitEpilogueAnnotation(llvm::IRBuilder<> &b,
                                   llvm::ArrayRef<EpilogueOp> ops,
                                   llvm::StringRef where) {
  if (ops.empty())
    return;
  // No '$' (an operand in asm text) or line break can occur in the text.
  ptx::emitAsm(b, b.getVoidTy(),
               "// tilec: epilogue " + formatEpilogueOps(ops) + " (" +
                   where.str() + ")",
               "", {});
}

namespace {

llvm::Value *applyOps(llvm::IRBuilder<> &b, llvm::ArrayRef<EpilogueOp> ops,
                      const EpilogueInputs &in, llvm::Value *x,
                      llvm::Value *row, llvm::Value *col, llvm::Value *cols,
                      const EpilogueOperandValues *loaded) {
  for (size_t k = 0; k < ops.size(); ++k) {
    const EpilogueOp &op = ops[k];
    auto operand = [&] {
      if (loaded && loaded->perOp[k])
        return loaded->perOp[k];
      return emitOpOperand(b, op, in, row, col, cols);
    };
    switch (op.kind) {
    case EpilogueOpKind::Bias:
      x = b.CreateFAdd(x, operand());
      break;
    case EpilogueOpKind::Residual:
      x = b.CreateFAdd(x, emitOperandMatrixLoad(b, op, in, row, col, cols));
      break;
    case EpilogueOpKind::Swiglu:
      llvm_unreachable("swiglu pairs two elements (emitSwigluElement)");
    case EpilogueOpKind::Scale:
      x = b.CreateFMul(x, operand());
      break;
    case EpilogueOpKind::Relu:
      // llvm.maximum, max.NaN.f32 (sm_80+, one instruction): relu keeps a
      // NaN, as torch does (maxnum(NaN, 0) would be 0).
      x = b.CreateBinaryIntrinsic(llvm::Intrinsic::maximum, x, f32(b, 0.0));
      break;
    case EpilogueOpKind::Gelu:
      x = emitHalfXOnePlus(b, x,
                           emitErf(b, b.CreateFMul(x, f32(b, M_SQRT1_2))));
      break;
    case EpilogueOpKind::GeluTanh: {
      // sqrt(2/pi) (x + 0.044715 x^3) as x fma(x^2, k1, k0).
      const double k0 = std::sqrt(2.0 / M_PI), k1 = k0 * 0.044715;
      llvm::Value *inner = b.CreateFMul(
          x, b.CreateIntrinsic(llvm::Intrinsic::fma, {b.getFloatTy()},
                               {b.CreateFMul(x, x), f32(b, k1), f32(b, k0)}));
      x = emitHalfXOnePlus(b, x, emitTanh(b, inner));
      break;
    }
    case EpilogueOpKind::Silu:
      x = emitSilu(b, x);
      break;
    case EpilogueOpKind::Clamp:
      // max.NaN then min.NaN: NaN stays NaN (torch.clamp keeps it).
      x = b.CreateBinaryIntrinsic(llvm::Intrinsic::maximum, x, f32(b, op.lo));
      x = b.CreateBinaryIntrinsic(llvm::Intrinsic::minimum, x, f32(b, op.hi));
      break;
    }
  }
  return x;
}

} // namespace
