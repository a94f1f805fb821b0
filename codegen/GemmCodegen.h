//===- codegen/GemmCodegen.h - GemmSpec to PTX, per target -------*- C++
//-*-===//
//
// The one entry the compiler calls to turn a lowered GEMM into a loadable
// kernel: PTX text plus everything a launcher needs (entry name, parameters,
// grid, block, dynamic shared memory, the tensor maps to encode and the
// workspace to provide). Each entry asks the spec's row of the table of
// targets (codegen/GemmTarget.h); the parameter lists below are each
// generator's.
//
// sm_80 (codegen/Sm80Gemm.h), parameters in order:
//   A, B, C (global pointers), M, N, K (i32), lda, ldb, ldc (i32, elements),
//   alpha, beta (f32, only with EpilogueScalarKind::Runtime), the epilogue
//   ops' operands, and for a batched kernel strideA, strideB, strideC (i64,
//   elements between consecutive batches; 0 broadcasts).
// lda is the stride between consecutive rows of the non-contiguous extent of
// A: for a K-major A (M x K, K contiguous) lda >= K, for an M-major A lda >= M.
// Same for B (N x K) and C (N-contiguous: ldc >= N).
// Grid: (ceil(M / tileM) * ceil(N / tileN), 1, batch).
//
// sm_90a (codegen/Sm90Gemm.h), parameters in order:
//   tmapA, tmapB (128-byte grid-constant tensor maps), C (pointer),
//   rowsA, rowsB, K, ldc (i32), alpha, beta (f32), workspace, counters
//   (pointers, split-K only).
// With swap-AB the kernel's A role is the user's B: tmapA covers B, rowsA is
// N. Grid: (ceil(rowsA / BM), ceil(rowsB / BN), splits).
//
// sm_100a (codegen/Sm100Gemm.h), parameters in order:
//   tmapA, tmapB (tensor maps, the sm_90a plans), c (pointer), rowsA = M,
//   rowsB = N, k, ldc (i32), alpha, beta (f32), then the split-K
//   workspace and counters, the epilogue ops' operands and, batched,
//   batch (i32) and strideC (i64).
// Grid: (min(batch x ceil(M / BM) * ceil(N / BN) x splits, SMs), 1, 1):
// persistent CTAs walk batch x tiles.
//
// Every kernel: blockThreads threads per CTA and sharedBytes bytes of dynamic
// shared memory (the launcher raises the kernel's limit above 48 KiB).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_GEMMCODEGEN_H
#define TILEC_CODEGEN_GEMMCODEGEN_H

#include "ir/tile/GemmSpec.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace tilec {

/// A CUDA launch extent.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// One kernel parameter, in declaration order.
struct KernelParam {
  /// How the parameter is passed (and what a launcher must marshal).
  enum Kind {
    Pointer,  ///< .u64 global address.
    I32,      ///< .u32 / .s32.
    I64,      ///< .u64 / .s64 (a batched kernel's batch strides).
    F32,      ///< .f32.
    TensorMap ///< .param .align 64 .b8 [128], a grid-constant CUtensorMap.
  };
  std::string name;
  Kind kind;

  /// Bytes the parameter occupies: 8, 4, 8, 4 or 128.
  unsigned bytes() const {
    return kind == Pointer || kind == I64 ? 8 : kind == TensorMap ? 128 : 4;
  }
};

/// A 2-D tiled TMA tensor map the host encodes for one operand before a
/// launch, derived from the spec (dtype, majorness, CTA tile, smem swizzle).
/// In the driver's terms dimension 0 is the contiguous one: for a K-major
/// operand of R rows, globalDims = {K, R}, globalStrides = {ld * bytes}, and
/// the box is {boxInner, boxOuter} elements.
struct TensorMapPlan {
  std::string param; ///< The kernel parameter it is passed as ("tmapA").
  /// The user's matrix it covers: 'A' (M x K), 'B' (N x K) or 'C' (M x N),
  /// or a quantized weight's group scales 'S' or zero points 'Z' ([ceil(K /
  /// G), N], N contiguous: GemmProblem::sb, zb).
  char matrix = 'A';
  DTypeKind dtype = DTypeKind::BF16;
  MajorKind major = MajorKind::K;  ///< Which extent is contiguous.
  unsigned boxInner = 0;           ///< Box extent along the contiguous dim.
  unsigned boxOuter = 0;           ///< Box extent along the other dim.
  unsigned swizzleBytes = 128;     ///< 0 (none), 32, 64 or 128.
  unsigned l2PromotionBytes = 256; ///< 0, 64, 128 or 256.
  /// Non-empty: the kernel parameter (u32) that tells the kernel whether
  /// this map is valid. A problem the map cannot describe (e.g. C or ldc
  /// not 16-byte aligned) then gets a zeroed map and flag 0, and the kernel
  /// takes its fallback path, instead of an error.
  std::string fallbackFlag;
  /// The kernel stores through this map. Its innermost extent must then be
  /// whole 16-byte units: at a ragged edge the H200 writes the rest of the
  /// 16-byte unit (measured: N = 253 bf16 with ldc = 256 wrote columns 253
  /// to 255).
  bool store = false;
  /// The matrix is batched (GemmSpec::batch): the map has rank 3, {dim 0,
  /// dim 1, batch} with the batch stride (GemmProblem::strideA ..) as
  /// dimension 2's and a box extent of 1 there.
  bool batched = false;
  /// B is a packed quantized weight (ir/layout/WeightPack.h): the map is N / 16
  /// block rows of K * bits / 4 u64 elements (one u64 holds one k of 16
  /// channels of 4-bit codes, half a k of 8-bit ones), ldb = K.
  bool packedWeight = false;

  /// {dim 0, dim 1} in elements for a matrix of \p rows x \p k (the user's
  /// M x K for A, N x K for B, M x N for C).
  std::pair<uint64_t, uint64_t> dims(uint64_t rows, uint64_t k) const {
    return major == MajorKind::K ? std::pair{k, rows} : std::pair{rows, k};
  }
};

/// How a kernel's grid follows from the problem, fixed by its generator
/// when it builds the kernel and carried by the binary, so a launch
/// evaluates it (GemmKernelBinary::grid) without rebuilding a generator
/// config. With the binary's tile, cluster, split-K and persistence facts,
/// for tilesA x tilesB output tiles in the kernel's roles (swap-AB: the A
/// role tiles the user's N):
///   columns = ceil(tilesA / tilesPerCluster) clusters of cluster.x CTAs,
///   rows    = ceil(tilesB / columnsPerCluster),
///   units   = columns x rows [x splitK where splitsInUnits],
///             at most SMs x ctasPerSm / (cluster.x x cluster.y) when
///             persistent;
///   grid    = (units x cluster.x x cluster.y, 1, 1) when linear or
///             persistent, else (columns x cluster.x, rows x cluster.y,
///             splitK).
/// sm_80: linear, one CTA per tile. sm_90a: a 2-D grid of clusters of
/// clusterM tile rows or clusterN tile columns, split-K along z, or a
/// persistent 1-D grid. sm_100a:
/// persistent over tiles x splits, a CTA pair (cluster.x = 2) per tile, two
/// pair tiles per 4x1 cluster.
struct GemmGridRule {
  bool linear = true;
  /// A-role tiles one cluster covers (sm_90a: clusterM; sm_100a: the pairs
  /// of a cluster).
  unsigned tilesPerCluster = 1;
  /// B-role tiles one cluster covers (sm_90a: clusterN); tilesB is
  /// rounded up to a multiple of it.
  unsigned columnsPerCluster = 1;
  /// The K splits are work units of the linear grid (sm_100a), not grid z.
  bool splitsInUnits = false;
  /// A batched (or masked grouped) launch is one GEMM of batch x M rows
  /// rounded up to tiles on a persistent grid (sm_100a), not grid z.
  bool batchWalksTiles = false;
  bool operator==(const GemmGridRule &) const = default;
};

/// A compiled GEMM kernel and how to launch it.
struct GemmKernelBinary {
#define TILEC_KERNEL_FIELD(Type, name, init) Type name{init};
#include "codegen/GemmKernelFields.def"

  /// The grid for an M x N x K problem of \p batchCount batches (ignored by
  /// an unbatched kernel): gridRule's grid for one GEMM, repeated
  /// batchCount times along z for a batched kernel, or, where the
  /// persistent CTAs walk batch x tiles (GemmGridRule::batchWalksTiles),
  /// its grid for batchCount x M rounded up to tiles. For a masked grouped
  /// kernel \p batchCount is the group count G and M the rows per group
  /// (Mmax): G grids along z, or a persistent grid over G x the tiles. \p
  /// smCount (the GPU's multiprocessors) caps a persistent kernel's grid; 0
  /// leaves one CTA per tile, which is also correct.
  Dim3 grid(uint64_t m, uint64_t n, uint64_t k, unsigned smCount = 0,
            uint64_t batchCount = 1) const;
  /// Total CTAs for an M x N problem (sm_80: grid.x).
  unsigned gridBlocks(unsigned m, unsigned n) const {
    Dim3 g = grid(m, n, 0);
    return g.x * g.y * g.z;
  }
  /// Bytes of f32 split-K workspace for an M x N problem (0 without split-K
  /// or with splitKCluster).
  uint64_t workspaceBytes(uint64_t m, uint64_t n) const;
  /// Bytes of split-K tile counters (u32 each, zero before the first
  /// launch; the kernel leaves them zero) for an M x N problem (0 without
  /// split-K or with splitKCluster).
  uint64_t counterBytes(uint64_t m, uint64_t n) const;
};

/// Builds the kernel of \p spec and emits PTX for spec.arch. Errors: an
/// unsupported arch or an illegal spec (message says what would be legal).
llvm::Expected<GemmKernelBinary> emitGemm(const GemmSpec &spec);

/// The LLVM IR of the kernel of \p spec as text, before optimization
/// (`tilec compile --emit=llvm`).
llvm::Expected<std::string> emitGemmLlvmIr(const GemmSpec &spec);

/// Checks \p spec against what the generator of its arch supports; the error
/// names the offending field, its value and the legal values.
llvm::Error checkGemmSpec(const GemmSpec &spec);

/// Checks launch arguments against what the kernel of \p spec assumes: the
/// leading dimensions cover their extents and are multiples of 8 elements
/// (16-byte cp.async vectors and TMA strides; the buffers must be 16-byte
/// aligned too), and M, N, K fit in i32. Launchers call this before a launch.
llvm::Error checkGemmArguments(const GemmSpec &spec, int64_t m, int64_t n,
                               int64_t k, int64_t lda, int64_t ldb,
                               int64_t ldc);

} // namespace tilec

#endif // TILEC_CODEGEN_GEMMCODEGEN_H
