//===- ir/tile/GemmSpec.h - A GEMM kernel as code generation sees it --*- C++
//-*-===//
//
// The lowered, fully decided description of one GEMM kernel: the passes fill
// it in (types, majorness, tile, pipeline depth, smem layouts, warp
// arrangement, epilogue scalars) and codegen/ turns it into LLVM IR for its
// target. Nothing in here is chosen by codegen.
//
//   C[M,N] = alpha * A[M,K] * B[N,K]^T + beta * C
//
// A is M x K, B is N x K (both in the "TN" logical view); majorness says which
// of the two extents is contiguous in global memory. Row/column names in the
// BLAS sense: "TN" = A K-major, B K-major; "NT" = A M-major, B N-major;
// "NN" = A M-major, B K-major; "TT" = A K-major, B N-major.
//
// M, N, K and the leading dimensions are run-time kernel arguments; the spec
// fixes only what the code depends on.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_TILE_GEMMSPEC_H
#define TILEC_IR_TILE_GEMMSPEC_H

#include "ir/arch/Arch.h"
#include "ir/arch/DType.h"
#include "ir/arch/MajorKind.h"
#include "ir/layout/ComposedLayout.h"
#include "ir/tile/EpilogueOps.h"
#include "ir/tile/SourceLines.h"

#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// How alpha and beta enter the kernel.
enum class EpilogueScalarKind {
  None,    ///< C = A * B^T (alpha = 1, beta = 0, no kernel arguments).
  Runtime, ///< C = alpha * A * B^T + beta * C, alpha/beta are f32 arguments.
};

/// DeepGEMM-style block scales of fp8 operands (`scale a f32 block(1, 128)`,
/// `scale b f32 block(128, 128)`): one f32 per block of aRows x kBlock
/// elements of A and bRows x kBlock of B, and
///   C[m, n] = sum over kb of SFA[m / aRows, kb] * SFB[n / bRows, kb] *
///             (A * B^T)[m, n] over K block kb,
/// SFA row-major f32[ceil(M / aRows), ceil(K / kBlock)], SFB row-major
/// f32[ceil(N / bRows), ceil(K / kBlock)]. The kernel sums each K block in
/// a fresh accumulator and promotes it into the f32 main accumulator with
/// the two scales (docs/layout-facts.md#fp8-accumulation).
struct BlockScaleSpec {
  unsigned aRows = 1;    ///< Rows of A one scale covers.
  unsigned bRows = 128;  ///< Rows of B (columns of C) one scale covers.
  unsigned kBlock = 128; ///< K extent of both blocks; BK equals it.
  /// SFA's contiguous extent (`scale a ... major(M)`): K, f32[M, ceil(K /
  /// kBlock)] with a row per row of A; or MN, f32[ceil(K / kBlock), M], a
  /// K block's scales contiguous (DeepGEMM's and cuBLAS's layout).
  MajorKind aMajor = MajorKind::K;
  bool operator==(const BlockScaleSpec &) const = default;
};

/// A batched GEMM (`a : bf16[B, M, K]`, `c : bf16[B, M, N]`): for every
/// batch index z < count, C_z = alpha * A_z * B_z^T + beta * C_z, where
/// operand X of batch z starts strideX elements after that of batch z - 1
/// (strides are launch arguments, 0 broadcasts an operand). An operand
/// declared without the batch extent is broadcast: the same matrix for every
/// batch (a shared weight B); C is always batched.
struct BatchSpec {
  /// The batch count the program fixes (`a : bf16[4, M, K]`), 0 where it is
  /// a run-time argument.
  int64_t fixedCount = 0;
  bool aBatched = true, bBatched = true;
  bool operator==(const BatchSpec &) const = default;
};

/// How the rows of a grouped GEMM (mixture-of-experts: one launch for all
/// experts, `group contiguous|masked`) find their group. B is `[G, N, K]`,
/// one N x K matrix per group, and C rows of group g are A's rows times
/// B_g^T (docs/language.md, "Grouped GEMM").
enum class GroupKind {
  /// A is [M, K] with the groups' rows stacked, C is [M, N]; an int32 per
  /// row of A (DeepGEMM's m_indices) names its group, -1 a padding row.
  /// Every group starts on a multiple of BM rows and its padding rows
  /// follow it. A BM block takes the group of its first row (a block whose
  /// first index is outside [0, G) is skipped); of its rows, those with
  /// that index are written, the others (padding) are not.
  Contiguous,
  /// A is [G, Mmax, K], C is [G, Mmax, N]; an int32 per group on the
  /// device counts its valid rows (DeepGEMM's masked_m). Rows from the
  /// count to Mmax are neither computed nor written.
  Masked,
};

/// A quantized weight B (`b : u4[N, K]`, `i4`, or with group scales `u8`,
/// `i8`, `e4m3`, `e5m2`, and `scale b bf16 group(128) [zero(u8)]`; the
/// formats of ir/tile/WeightQuant.h): B's codes are packed in ir/layout/WeightPack.h's
/// order and the kernel dequantizes them in registers before the MMA:
///   B[n, k] = (code[n, k] - z) * SB[k / group, n]   (integer formats)
///   B[n, k] = fp8(code[n, k]) * SB[k / group, n]     (e4m3, e5m2)
/// with z = 8 for i4 and 128 for i8 (codes stored offset binary),
/// ZB[k / group, n] for u4/u8 with zero points, 0 for u4/u8 without. SB is
/// row-major [ceil(K / group), N] of scaleType (A's type); ZB row-major u8
/// [ceil(K / group), N].
struct WeightQuantSpec {
  unsigned group = 128;                  ///< K extent one scale covers.
  DTypeKind scaleType = DTypeKind::BF16; ///< SB's element type.
  bool zeros = false;                    ///< u4 with a ZB operand.
  bool operator==(const WeightQuantSpec &) const = default;
};

/// A grouped GEMM (`group contiguous` or `group masked`).
struct GroupSpec {
  GroupKind kind = GroupKind::Contiguous;
  /// The group count the program fixes (`b : e4m3[8, N, K]`), 0 where it
  /// is a run-time argument (`b : e4m3[G, N, K]`).
  int64_t fixedCount = 0;
  bool operator==(const GroupSpec &) const = default;
};

/// The lowered GEMM kernel handed to codegen.
struct GemmSpec {
#define TILEC_SPEC_FIELD(Type, name, init) Type name{init};
#include "ir/tile/GemmSpecFields.def"

  unsigned warps() const { return warpsM * warpsN; }
  unsigned threads() const { return 32 * warps(); }
};

} // namespace tilec

#endif // TILEC_IR_TILE_GEMMSPEC_H
