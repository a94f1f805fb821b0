//===- codegen/Sm90WeightDequant.h - Weights as wgmma A ---------*- C++ -*-===//
//
// Internal to codegen/: the sm_90a GEMM (Sm90Gemm.h) when B is a quantized
// weight of 4-bit or 8-bit codes (Sm90GemmConfig::weightQuant). The kernel runs
// swapped: the weight is the wgmma A role (BM output channels per CTA, 64 per
// consumer warpgroup), the activations the B role (BN tokens, the wgmma N), and
// C is stored transposed, so a decode M of 1-64 tokens is the wgmma N and the
// weight rows fill the M = 64 atoms.
//
// Per ring slot the producer's TMA thread loads, beside the activation
// tile, three tiles of the weight:
//   - the codes: the packed order (ir/layout/WeightPack.h) is 16-row block rows of
//     2 bits K bytes each, so the global weight is a 2-D u64 tensor of
//     N / 16 rows by K bits / 4 (one u64: one k of a block row's 16
//     channels of 4-bit codes, half a k of 8-bit ones), and a slot's BM x
//     BK codes are one box of BM / 16 rows by BK bits / 4, landing block
//     row by block row: packedWeightLayout(bits, BM, BK), the sm_80
//     stage's order;
//   - the scales SB[ceil(K / G), N] and zero points ZB (u8, same shape):
//     one box of BM channels by max(1, BK / G) group rows each.
// TMA fills past N and K with zeros: a zero code and a zero scale make a
// zero weight, which meets the activations' zero-filled K columns.
//
// Consumer warp w of warpgroup c owns block row 4 c + w (16 channels): per
// slot it loads its lane's 16 bytes of each packed block (64 K of 4-bit
// codes, 32 of 8-bit; ld.shared.v4, 512 contiguous bytes per warp: no bank
// conflict), its two channels' scale and zero point per group row, and
// turns each k16 step's one or two words into the four A registers of the
// step (codegen/WeightDequant.h): the weight's packed registers
// i = 2 j + h (n8 tile j, k half h) are the wgmma A fragment's a0..a3 in
// the order (i = 0, 2, 1, 3), since a warp's slice of the m64k16 A fragment
// is mma.sync's m16k16 A (rows g and g + 8, k halves 2 t and 2 t + 8).
// The slot's k16 steps are then issued as RS wgmmas (A from registers, B
// from the activation tile's descriptor) in one commit group, as the SS
// kernel does.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM90WEIGHTDEQUANT_H
#define TILEC_CODEGEN_SM90WEIGHTDEQUANT_H

#include "codegen/Sm90Gemm.h"
#include "codegen/WeightDequant.h"

#include "llvm/IR/IRBuilder.h"

#include <array>
#include <vector>

namespace tilec {

/// The weight's share of one ring slot: the WeightStageBytes of the BM x
/// BK tile (codeBytes the A ring's slot).
struct Sm90WeightStage : WeightStageBytes {
  /// The scales and zero points of a slot, in the kernel's scale ring.
  unsigned sideBytes() const { return scaleBytes + zeroBytes; }
};

/// The slot geometry of \p config (weightQuant set).
Sm90WeightStage sm90WeightStage(const Sm90GemmConfig &config);

/// The A-role tile of the codes (u64 elements, no swizzle, box (BK * bits
/// / 4, BM / 16)) and the scale and zero-point tiles (box (BM, scaleRows)), as
/// TMA-loaded tiles (K-major: coordinates (first element, row)).
struct Sm90WeightTiles {
  TmaOperandTile codes, scales, zeros;
};
Sm90WeightTiles sm90WeightTiles(const Sm90GemmConfig &config);

/// CTAs per SM of \p config's quantized weight kernel: 2 where two fit
/// the SM (shared memory, and registers for the accumulators beside the
/// dequantization: BM 64 with BN <= 160, or BM 128 with BN <= 32), else 1;
/// split-K or not (a split kernel at two reduces through the workspace:
/// sm90SplitKClusterFits wants one). Its loop is latency-bound at one CTA
/// (H200, 16 x 8192 x 28672: 0.57 instructions issued per scheduler cycle
/// with 3 warps each), so a second CTA's warps fill the issue slots (1 x
/// 28672 x 4096: 30.6 -> 24.7 us). Split kernels ran at one CTA until
/// session 21: at two, 1 to 3 of 20 launches of some split tiles had
/// summed a warp's outputs wrong on the H200, which was the K loop writing
/// the A registers of a pending RS wgmma (fixed in Sm90Consumer.cpp, and
/// reported by the simulator since); the fixed loop at two CTAs with
/// split-K then ran bench/w4a16_bench.py's stress (--repeat-check 30)
/// without a wrong output (bench/W4A16Results.md, session 21).
unsigned sm90WeightCtasPerSm(const Sm90GemmConfig &config);

/// What the quantized weight asks of \p config: swapAB, A (the
/// activations) bf16 or f16 with scales of its type, B of a weight format
/// K-major, BM 64 or 128 (block rows of 16 per consumer warp), BK 64 (one
/// 128-byte swizzle row of the activations: one packed block of 4-bit
/// codes, two of 8-bit ones), no block scales, batch, group or cluster;
/// the fragment reads checked against the packed layout.
llvm::Error verifySm90Weight(const Sm90GemmConfig &config);

/// The slot's A fragments of one consumer warp: per k16 step the four
/// registers of wgmma's A. \p codes, \p scales and \p zeros are the slot's
/// shared addresses (i32; zeros null without zero points), \p blockRow the
/// warp's 16-channel block row in the tile, \p lane its lane.
/// \p issue is called with each step's index and fragment as soon as it
/// is dequantized, so the caller can issue its wgmma before the next
/// step's arithmetic.
void loadSm90WeightFragments(
    llvm::IRBuilderBase &b, const Sm90GemmConfig &config, llvm::Value *codes,
    llvm::Value *scales, llvm::Value *zeros, llvm::Value *blockRow,
    llvm::Value *lane,
    llvm::function_ref<void(unsigned, const std::array<llvm::Value *, 4> &)>
        issue);

} // namespace tilec

#endif // TILEC_CODEGEN_SM90WEIGHTDEQUANT_H
