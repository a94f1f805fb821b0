//===- ir/GemmSpec.h - A GEMM kernel as code generation sees it --*- C++
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
#ifndef TILEC_IR_GEMMSPEC_H
#define TILEC_IR_GEMMSPEC_H

#include "ir/Arch.h"
#include "ir/ComposedLayout.h"
#include "ir/DType.h"
#include "ir/EpilogueOps.h"
#include "ir/MajorKind.h"
#include "ir/SourceLines.h"

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
  std::string name = "tilec_gemm";
  ArchKind arch = ArchKind::SM80;
  DTypeKind aType = DTypeKind::BF16;
  DTypeKind bType = DTypeKind::BF16;
  DTypeKind cType = DTypeKind::BF16;
  DTypeKind accType = DTypeKind::F32;
  MajorKind aMajor = MajorKind::K;
  MajorKind bMajor = MajorKind::K;
  MajorKind cMajor = MajorKind::MN; ///< MN here means N-contiguous rows.
  /// Problem extents the program fixes (`a : f16[32, K]` fixes M = 32); 0
  /// where the extent is a run-time argument. The launcher refuses a problem
  /// that disagrees with them.
  int64_t fixedM = 0, fixedN = 0, fixedK = 0;
  /// CTA tile.
  unsigned bm = 128, bn = 128, bk = 32;
  /// Shared-memory pipeline depth (cp.async stages on sm_80).
  unsigned stages = 4;
  /// Warps per CTA along M and N; each warp owns a
  /// (bm / warpsM) x (bn / warpsN) piece of the accumulator.
  unsigned warpsM = 2, warpsN = 4;
  /// CTAs per rasterization group along M (swizzled block order for L2
  /// reuse); 1 is plain row-major block order.
  unsigned rasterGroupM = 8;
  /// How the problem maps onto CTAs (sm_90a; the `schedule` line). With
  /// swapAB the kernel computes C^T = B * A^T, so a small M becomes the MMA's
  /// N and the large N fills the 64-row M atoms (decode shapes).
  bool swapAB = false;
  /// Split K over this many CTAs per output tile, reduced in a workspace
  /// (1: no split).
  unsigned splitK = 1;
  /// `schedule persistent(G)` (sm_90a): one CTA per SM loops over the
  /// output tiles in groups of G = rasterGroupM tile rows, so the producer
  /// loads the next tile while the consumers store this one.
  bool persistent = false;
  /// `schedule cluster(2)` (sm_90a): 2x1 thread-block clusters whose two
  /// CTAs take neighbouring tile rows and multicast the shared B tile.
  unsigned clusterM = 1;
  /// sm_90a epilogue (`epilogue stmatrix [swizzle(..)] -> tma_store`): stage
  /// C in swizzled shared memory and write it with TMA stores; false
  /// (`epilogue store`): registers straight to global memory.
  bool storeTma = false;
  /// Staging row bytes from the swizzle option: 16 (none), 32, 64, 128; 0
  /// lets codegen take the widest atom whose row divides the tile.
  unsigned storeSwizzleBytes = 0;
  /// alpha/beta handling.
  EpilogueScalarKind scalars = EpilogueScalarKind::Runtime;
  /// The epilogue's element-wise ops after alpha * acc + beta * C, in order
  /// (`epilogue bias(col) gelu_tanh -> ...`); codegen/EpilogueMath applies
  /// them on every store path.
  std::vector<EpilogueOp> epilogueOps;
  /// Block scales of A and B (`scale` lines); std::nullopt: unscaled.
  std::optional<BlockScaleSpec> blockScale;
  /// The batch (a leading extent on the operand shapes); std::nullopt: one
  /// GEMM.
  std::optional<BatchSpec> batch;
  /// The grouping of a grouped GEMM (`group` line); std::nullopt: none.
  std::optional<GroupSpec> group;
  /// Shared-memory layouts of one pipeline stage of A ((bm, bk) -> element
  /// offset) and B ((bn, bk) -> element offset): mode 0 is the M (N)
  /// coordinate, mode 1 the K coordinate, e.g.
  /// tile_to_shape(K_SW64<bf16>, (128, 32)) =
  /// Sw<2,3,3> o ((8,16),(32,1)):((32,256),(1,0)). std::nullopt: codegen takes
  /// the largest swizzle atom of the operand's majorness that fits the tile
  /// (docs/layout-facts.md#swizzle-atoms) and tiles it column-major.
  std::optional<ComposedLayout> smemA, smemB;
  /// tilec compile --annotate: codegen comments each MMA with its decoded
  /// descriptors and annotateSource, the .tile lines it came from
  /// ("gemm.tile:14 (mma), gemm.tile:12 (smem a), gemm.tile:13 (smem b)").
  bool annotate = false;
  std::string annotateSource;
  /// The .tile lines of the kernel's parts, and whether to emit PTX line
  /// directives for them (tilec compile --lineinfo).
  SourceLines source;

  unsigned warps() const { return warpsM * warpsN; }
  unsigned threads() const { return 32 * warps(); }
};

} // namespace tilec

#endif // TILEC_IR_GEMMSPEC_H
