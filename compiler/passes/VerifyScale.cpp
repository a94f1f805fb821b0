//===- compiler/passes/VerifyScale.cpp - Rules of block-scaled kernels ----===//
//
// One function per rule group: the scale lines themselves, then what they
// ask of the rest of the kernel. Every message names the value written and
// what would be legal.
//
//===----------------------------------------------------------------------===//
#include "compiler/passes/VerifyScale.h"

#include "codegen/GemmTarget.h"
#include "ir/arch/DType.h"

namespace tilec {

namespace {

/// The one legal block per operand: DeepGEMM's 1 x 128 activation scales
/// and 128 x 128 weight scales (ir/tile/GemmSpec.h, BlockScaleSpec).
struct ScaleRule {
  llvm::StringRef operand;
  int64_t mn, k;
  llvm::StringRef why;
};
const ScaleRule Rules[] = {
    {"a", 1, 128, "one f32 per row of A and 128 of K"},
    {"b", 128, 128, "one f32 per 128 rows of B and 128 of K"},
};

void verifyScaleLine(const tir::Op &op, DiagnosticEngine &diags) {
  const ScaleRule *rule = nullptr;
  for (const ScaleRule &r : Rules)
    if (r.operand == op.symbol)
      rule = &r;
  if (!rule) {
    diags.error(op.loc, "scale takes operand a or b, not '" + op.symbol +
                            "'; write 'scale a f32 block(1, 128)' and "
                            "'scale b f32 block(128, 128)'");
    return;
  }
  llvm::StringRef dtype = op.getText("dtype");
  if (dtype != "f32")
    diags.error(attrLoc(op, "dtype"),
                "scale " + op.symbol + " has type '" + dtype + "'; legal: f32");
  const tir::Attr *block = op.get("block");
  std::string legal = "block(" + std::to_string(rule->mn) + ", " +
                      std::to_string(rule->k) + ")";
  if (!block || !block->isList() || block->list.size() != 2 ||
      !block->list[0].isInt() || !block->list[1].isInt()) {
    diags.error(attrLoc(op, "block"),
                "scale " + op.symbol +
                    " takes a block of two extents (rows, K); legal: " + legal);
    return;
  }
  int64_t mn = block->list[0].intValue, k = block->list[1].intValue;
  if (mn != rule->mn || k != rule->k)
    diags.error(attrLoc(op, "block"),
                "scale " + op.symbol + " block(" + llvm::Twine(mn) + ", " +
                    llvm::Twine(k) + ") is not implemented; legal: " + legal +
                    " (" + rule->why + ")");
  // major(K): a row of scales per row of the operand (the default);
  // major(M), SFA only: a K block's scales contiguous.
  llvm::StringRef major = op.getText("major");
  bool a = op.symbol == "a";
  if (!major.empty() && major != "K" && !(a && major == "M"))
    diags.error(
        attrLoc(op, "major"),
        "scale " + op.symbol + " major(" + major + ") is not a layout; " +
            (a ? "legal: major(K) (SFA f32[M, ceil(K/128)]) or major(M) "
                 "(f32[ceil(K/128), M], a K block's scales contiguous)"
               : "legal: major(K) (SFB f32[ceil(N/128), ceil(K/128)])"));
}

/// What scales ask of the kernel they are in.
void verifyScaledKernel(const tir::Op &kernel, const tir::Op &where,
                        std::optional<ArchKind> arch, const KernelView &view,
                        DiagnosticEngine &diags) {
  if (arch && !gemmTarget(*arch).hasBlockScale())
    diags.error(where.loc, llvm::Twine("block-scaled GEMM is not "
                                       "implemented for ") +
                               archInfo(*arch).name + "; legal: arch " +
                               blockScaleTargetNames());
  for (char operand : {'a', 'b'}) {
    const tir::Op *op = kernel.find("tile.operand", std::string(1, operand));
    DTypeKind type = view.operandType(operand);
    if (type != DTypeKind::E4M3 && type != DTypeKind::E5M2)
      diags.error(op ? attrLoc(*op, "dtype") : where.loc,
                  llvm::Twine("block scales apply to fp8 operands; ") +
                      llvm::Twine(operand) + " is " + dtypeInfo(type).name +
                      " (legal: e4m3, e5m2)");
    if (view.operandMajor(operand) != MajorKind::K)
      diags.error(op ? attrLoc(*op, "major") : where.loc,
                  llvm::Twine("block-scaled ") + llvm::Twine(operand) +
                      " must be K-major (wgmma reads fp8 K-major only); "
                      "write major(K)");
  }
  if (where.symbol == "a" && where.getText("major") == "M") {
    if (kernel.find("tile.group"))
      diags.error(attrLoc(where, "major"),
                  "scale a major(M) is not implemented with a group; legal: "
                  "major(K) (SFA f32[M, ceil(K/128)] stacked, or [G, Mmax, "
                  "ceil(K/128)] when masked)");
  }
  const tir::Op *tile = kernel.find("tile.tile");
  if (view.bk != 128)
    diags.error(tile ? attrLoc(*tile, "bk") : where.loc,
                "BK = " + llvm::Twine(view.bk) +
                    " but a scale block spans 128 of K; BK must be 128 (one "
                    "promotion into the f32 accumulator per scale block)");
}

} // namespace

void verifyBlockScales(const tir::Op &kernel, std::optional<ArchKind> arch,
                       const KernelView *view, DiagnosticEngine &diags) {
  const tir::Op *scale[2] = {nullptr, nullptr};
  for (const tir::Op &op : kernel.body) {
    if (op.name != "tile.scale")
      continue;
    verifyScaleLine(op, diags);
    if (op.symbol == "a" && !scale[0])
      scale[0] = &op;
    if (op.symbol == "b" && !scale[1])
      scale[1] = &op;
  }
  if (!scale[0] && !scale[1])
    return;
  for (int i = 0; i < 2; ++i)
    if (!scale[i])
      diags.error(scale[1 - i]->loc, "kernel '" + kernel.symbol + "' scales " +
                                         Rules[1 - i].operand + " but not " +
                                         Rules[i].operand + "; add 'scale " +
                                         Rules[i].operand + " f32 block(" +
                                         llvm::Twine(Rules[i].mn) + ", " +
                                         llvm::Twine(Rules[i].k) + ")'");
  if (view)
    verifyScaledKernel(kernel, scale[0] ? *scale[0] : *scale[1], arch, *view,
                       diags);
}

} // namespace tilec
