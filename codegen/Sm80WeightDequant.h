//===- codegen/Sm80WeightDequant.h - Quantized weights on sm_80 -*- C++ -*-===//
//
// Internal to codegen/: the sm_80 GEMM's B side when B is a quantized
// weight (GemmSpec::weightQuant: 4-bit or 8-bit codes, ir/tile/WeightQuant.h).
// Per pipeline stage the CTA copies, with cp.async,
//   - its bn x bk packed codes: (bn / 16) x (bk / blockK) blocks of 512
//     bytes (blockK 64 for 4-bit codes, 32 for 8-bit), stored as in global
//     memory (ir/layout/WeightPack.h), which is the layout packedWeightLayout(bits,
//     bn, bk) of the stage;
//   - the stage's scaleRows = max(1, bk / group) rows of bn scales (SB),
//     and as many rows of bn u8 zero points (ZB) when the weight has them.
// Each warp then loads, per block and pair of n8 tiles, its lane's 16
// bytes (one ld.shared.v4: four k16 steps of 4-bit codes, two of 8-bit)
// and per k16 step turns its one or two words into the two n8 tiles' B
// fragments (codegen/WeightDequant.h has the arithmetic per format).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM80WEIGHTDEQUANT_H
#define TILEC_CODEGEN_SM80WEIGHTDEQUANT_H

#include "codegen/WeightDequant.h"
#include "ir/layout/Layout.h"
#include "ir/tile/GemmSpec.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/Error.h"

#include <array>
#include <vector>

namespace tilec {

struct Sm80Kernel;

/// The quantized weight's stage geometry, decided with the rest of the plan.
/// The stage bytes (WeightStageBytes) are of the bn x bk tile.
struct Sm80WeightPlan : WeightStageBytes {
  WeightQuantSpec quant;
  const WeightFormatInfo *format = nullptr; ///< B's (ir/tile/WeightQuant.h).
  Layout packed; ///< packedWeightLayout(bits, bn, bk): (n, k) -> code offset.
  /// Byte offsets of the three stage rings after A's (set by the plan).
  unsigned codeRegion = 0, scaleRegion = 0, zeroRegion = 0;

  unsigned stageBytes() const { return codeBytes + scaleBytes + zeroBytes; }
};

/// Checks what the sm_80 dequantizing kernel takes (A f16/bf16, scales of
/// A's type, group 32/64/128, bn % 16, bk a multiple of the packed block's
/// K (64 for 4-bit codes, 32 for 8-bit), bk and group nested, K-major B) and
/// derives the stage geometry; verifies over every lane that the fragment loads
/// read the layout's words (lane l's 16 bytes of a block at byte 16 l). Errors
/// name the field and what is legal.
llvm::Expected<Sm80WeightPlan> planSm80Weight(const GemmSpec &spec);

/// Per-thread state of the weight's copies and fragment loads.
struct Sm80WeightLoads {
  const Sm80WeightPlan *plan = nullptr;
  llvm::Value *fragmentBase = nullptr; ///< Lane's byte offset in a stage.
  llvm::Value *channel = nullptr;      ///< Lane's channel in the warp: g.
};

Sm80WeightLoads setUpSm80WeightLoads(Sm80Kernel &kernel);

/// Issues the cp.async copies of k-tile \p kt (codes, scales, zero points)
/// into \p stage.
void issueSm80WeightCopies(Sm80Kernel &kernel, const Sm80WeightLoads &loads,
                           llvm::Value *kt, llvm::Value *stage);

/// What the k16 steps of one stage share, per pair of n8 tiles: its 16
/// bytes of the current packed block, and the two tiles' splatted scales
/// and bases (GroupScaleBase) of the current group row.
struct Sm80WeightRegs {
  std::vector<llvm::Value *> words;
  std::vector<std::array<GroupScaleBase, 2>> scaleBase; ///< Tile j's.
  int groupRow = -1; ///< The stage's group row scaleBase holds.
};

/// The B fragments of k16 step \p ks from \p stage: one quad per pair of
/// n8 tiles (tile j's registers at 2 j, 2 j + 1), as the ldmatrix path
/// returns them. \p regs holds what the stage's earlier steps loaded (the
/// previous step's, or empty at ks = 0): the words are loaded when ks
/// starts a packed block (every 4 steps of 4-bit codes, 2 of 8-bit), the scales
/// and bases when ks starts a group row (once a stage when BK <= group), and
/// reused otherwise.
std::vector<std::array<llvm::Value *, 4>>
loadSm80WeightFragments(Sm80Kernel &kernel, const Sm80WeightLoads &loads,
                        llvm::Value *stage, unsigned ks, Sm80WeightRegs &regs);

} // namespace tilec

#endif // TILEC_CODEGEN_SM80WEIGHTDEQUANT_H
