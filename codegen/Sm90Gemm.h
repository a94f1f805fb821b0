//===- codegen/Sm90Gemm.h - Warp-specialized TMA + wgmma GEMM ----*- C++
//-*-===//
//
// The sm_90a GEMM kernel: C = alpha * A * B^T + beta * C with f32
// accumulation and C row-major. Element types (Sm90GemmConfig):
//   A, B   f16 or bf16, each K-major (A: M x K rows) or MN-major (A stored
//          K x M, M contiguous), through wgmma's imm-trans-a / imm-trans-b;
//          tf32 (f32 storage), e4m3 or e5m2 (any mix of the two): K-major
//          only, as wgmma transposes only 16-bit types;
//   C      bf16, f16 or f32.
// One wgmma consumes 32 bytes of K: k16 for 16-bit types, k8 for tf32, k32
// for fp8. BK * element bytes is one swizzle atom row (32, 64 or 128 bytes).
//
// One CTA computes a BM x BN tile with 1 + BM/64 warpgroups (BM = 256: 3,
// each consumer owning two 64-row blocks, see below):
//   warpgroup 0 (producer, setmaxnreg.dec 40): one elected thread walks K,
//     waits for a free ring slot (empty mbarrier), arms the slot's full
//     mbarrier with the bytes to expect and issues two TMA tile loads
//     (warp 1 copies the epilogue's column operands, Sm90ColumnStage.h;
//     warp 2 the block scales into the slot, sm90StagesBlockScales);
//   warpgroups 1.. (consumers, setmaxnreg.inc 232): each owns 64 rows; per
//     ring slot it waits on the full mbarrier, issues BK/k SS wgmma
//     m64nBNk (k = 32 bytes of K) with no wait between them, commits, waits
//     until at most one group is pending and then frees the previous slot.
// BM = 256 (sm90RowBlocks): consumer warpgroup c owns the 64-row blocks
// 2 c and 2 c + 1, each with its own accumulator (2 x BN / 2 registers), A
// rows (descriptor start advanced by the tile's 64-row atom), scales,
// staging tile and C-load barrier; per ring slot it issues both blocks'
// wgmmas (block-scaled: block by block, each promoted before the next),
// and the epilogue stores block 2 c, then 2 c + 1. Twice the rows per B
// tile and per barrier round for the same threads (DeepGEMM's large-M
// tile); not with swap-AB, split-K, groups or a batch.
//
// Shared-memory descriptors are derived from each operand tile's layout
// (K-major: K_SWx atoms stacked along the rows, one TMA box; MN-major: the
// largest MN_SWx atom dividing the rows, tiled K first, one TMA box per atom
// width along MN), and the K subtiles advance the start address in the
// descriptor's low bits.
//
// With swapAB the kernel computes C^T = B * A^T: the tensor map of B feeds
// the wgmma A operand and A the wgmma N side, and the epilogue stores
// transposed. That is how a small M (decode, M = 64 or 128) becomes the wgmma
// N while the big N fills the 64-row M atoms.
//
// Kernel parameters, in order (the runtime builds the tensor maps):
//   .param .align 64 .b8 tmapA[128]  grid constant: rows x K of the A role
//   .param .align 64 .b8 tmapB[128]  grid constant: rows x K of the B role
//   .param .align 64 .b8 tmapC[128]  grid constant, with a staging tile only:
//                                    C (M x N, ldc), box (cols, rows) of the
//                                    EpilogueStagingTile
//   .param .u64 C                    cType, row-major, leading dimension ldc
//   .param .u32 rowsA, rowsB, K, ldc
//   .param .f32 alpha, beta          (beta == 0 never reads C)
//   .param .u64 workspace            f32, split-K partial tiles (else unused)
//   .param .u64 counters             u32 per output tile, zero before the
//                                    first launch; the kernel leaves them 0
//   .param .u32 storeTma             with a staging tile only: 1 when tmapC
//                                    is valid (C 16-byte aligned, ldc and
//                                    N whole 16-byte units), else 0
//   (the epilogue ops' pointers, the block scales)
//   .param .u64 strideC              batched only: elements between C's
//                                    batches (A's and B's strides are in
//                                    their rank-3 tensor maps)
//   (grouped only: groups and the group index or row counts,
//   codegen/Sm90Group.h)
//
// Epilogue (one output tile, each consumer warpgroup its 64 rows): with a
// staging tile and storeTma != 0, per chunk: the warpgroup's leader waits
// until the store that last read the chunk's buffer is done
// (cp.async.bulk.wait_group.read) and, when beta != 0, TMA-loads C's chunk
// into it (a per-warpgroup mbarrier); a named barrier; alpha * acc (+ beta
// * C, ldmatrix'ed from the same addresses) rounded to C's type and
// stmatrix'ed (x4: four 8x8 matrices) at addresses the layout algebra
// derives from the staging layout; fence.proxy.async (generic writes ->
// async proxy); a second barrier; the leader's TMA store and commit. TMA
// clips the box at C's extents, so ragged edges need no predicates.
// Otherwise (storeTma == 0) each thread stores its accumulator pairs
// directly, predicated on the edges, reading C when beta != 0.
// Grid: (ceil(rowsA / BM), ceil(rowsB / BN), S). Without swapAB rowsA = M and
// rowsB = N; with it rowsA = N and rowsB = M. S = 1 unless splitK; a
// batched kernel (no split-K) has S = the batch, CTA z computing batch z.
// sm90GemmBinary sets the grid rule (GemmGridRule: a 2-D grid of clusters,
// split-K along z, or the persistent 1-D grid).
//
// Clusters (clusterM = 2): the two CTAs of a 2x1 cluster take neighbouring
// A-role row tiles and the same B-role tile. Each CTA's producer loads its
// own A tile and half of the B tile (BN/2 rows: the B tile's boxDims[1] is
// BN/2) with TMA multicast into the same ring slot of both CTAs, so
// the B operand crosses L2 -> SM once per pair. A slot is free only when
// the consumers of both CTAs have released it: every consumer warp arrives
// on the empty barrier of both CTAs (remote arrive through mapa), which
// therefore counts 2 x 4 x consumers arrivals. The full barrier still
// expects the whole stage (A + B) per CTA. The grid's x extent is rounded up
// to even; a CTA whose rows are all past rowsA loads zeros (TMA fills out of
// bounds) and stores nothing, but keeps the barrier protocol with its peer.
// Barrier init and exit are fenced by cluster barriers so that no remote
// arrive or multicast reaches a CTA before its init or after its exit.
//
// Column clusters (clusterN = 2) are the transpose: the two CTAs of a 1x2
// cluster take neighbouring B-role column tiles of one A-role row tile;
// each loads its own B tile and half of the A tile (BM/2 rows) multicast
// to both, the same barrier protocol. The grid's y extent is rounded up to
// even (a CTA past rowsB loads zeros and stores nothing); persistent, the
// 1-D grid's clusters are (2, 1, 1) and a cluster tile is one tile row by
// two tile columns.
//
// Persistent (persistent): the grid is (min(tiles, SMs * ctasPerSm), 1, 1) and
// CTA x takes tiles x, x + gridDim.x, ... in grouped order (groupM tile rows
// sweep N together). The ring and its phases run on across tiles, so the
// producer loads the next tile while the consumers run the epilogue.
//
// Split-K (splitK): CTA z of S takes an equal run of the K tiles, writes its
// f32 accumulators to the workspace in fragment order (16-byte coalesced
// stores), and bumps the tile's counter; the CTA that arrives last sums the S
// partials in the fixed order z = 0 .. S-1 (so the result does not depend on
// arrival order), resets the counter and runs the epilogue. Workspace size:
// tiles * S * BM * BN * 4 bytes.
//
// Split-K in a cluster (splitKCluster): the S CTAs of one output tile form
// one 1x1xS thread-block cluster (S <= 8, the portable cluster size) and
// reduce through distributed shared memory instead of the workspace. After
// the K loop (every wgmma retired, so the ring's TMA loads have all landed
// and been read) a named barrier over the consumers frees the ring, and each
// consumer thread of the CTAs of rank 1.. stores its f32 fragment into its
// own ring area from the A ring's base, in the workspace's fragment order.
// Cluster barrier round 1 (arrive.release / wait.acquire, every thread of
// every CTA, the producer's too) publishes the fragments; rank 0 then sums
// its registers and the peers' fragments (mapa + ld.shared::cluster) in the
// fixed order z = 0 .. S-1 and runs the epilogue. Round 2, at the exit of
// every thread, keeps each CTA's shared memory alive until rank 0 has read
// it. A split with no K tiles contributes zeros and still takes both
// rounds. The ring must hold BM * BN * 4 bytes; workspace and counters are
// not read. A kernel built for its split count (clusterSplits, which the
// .tile path sets) scatters the reduction instead: every CTA publishes, and
// CTA r sums, in the same z order, only its share of the tile's 8-column
// blocks (sm90SplitShares: whole staging chunks) and stores that share, so
// each reads and stores 1/S of the tile (H200, bench/EpilogueResults.md:
// 128 x 4096 x 7168 at split 2 20.2 -> 19.7 us, 128 x 2112 x 7168 at
// split 3 14.4 -> 13.7). Not with swiglu, which pairs blocks across the
// tile.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM90GEMM_H
#define TILEC_CODEGEN_SM90GEMM_H

#include "codegen/GemmCodegen.h"
#include "codegen/warpspec/EpilogueStaging.h"
#include "codegen/warpspec/OperandTile.h"
#include "ir/arch/DType.h"
#include "ir/arch/MajorKind.h"
#include "ir/tile/EpilogueOps.h"
#include "ir/tile/SourceLines.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace tilec {

/// The choices that shape one sm_90a GEMM kernel.
struct Sm90GemmConfig {
  std::string name = "tilec_gemm_sm90";
  unsigned bm = 128;   ///< rows of the A role per CTA: 64 ... 256
  unsigned bn = 256;   ///< rows of the B role per CTA: the wgmma N
  unsigned bk = 64;    ///< K per ring slot: one SW128 bf16 atom
  unsigned stages = 4; ///< ring slots
  bool swapAB = false; ///< compute C^T = B A^T and store transposed
  bool splitK = false; ///< split K over gridDim.z with an in-kernel reduce
  /// With splitK: the K splits of a tile form one 1x1xS cluster and reduce
  /// through distributed shared memory (S <= 8, clusterM 1, not
  /// persistent); false: through the global workspace and counters.
  bool splitKCluster = false;
  /// With splitKCluster: the number of K splits the kernel is built for, so
  /// that each CTA of the cluster sums and stores its share of the tile's
  /// columns (sm90SplitShares); 0: any number (the launch's), and rank 0
  /// sums and stores the whole tile. The launch must match a nonzero one.
  unsigned clusterSplits = 0;
  unsigned ctasPerSm = 1;  ///< occupancy target: sets minctasm and setmaxnreg
  bool persistent = false; ///< loop over tiles; grid = SMs * ctasPerSm
  unsigned groupM = 8;     ///< persistent tile order: tile rows per group
  unsigned clusterM = 1;   ///< 1, or 2: 2x1 clusters multicasting B
  unsigned clusterN = 1;   ///< 1, or 2: 1x2 clusters multicasting A
  DTypeKind aType = DTypeKind::BF16; ///< f16, bf16, tf32, e4m3, e5m2
  DTypeKind bType = DTypeKind::BF16; ///< same family as aType
  DTypeKind cType = DTypeKind::BF16; ///< bf16, f16, f32
  MajorKind aMajor = MajorKind::K;   ///< MN: A is stored K x M (M contiguous)
  MajorKind bMajor = MajorKind::K;   ///< MN: B is stored K x N (N contiguous)
  /// 16-bit C: the epilogue stages each warpgroup's tile in swizzled shared
  /// memory with stmatrix and writes it with TMA stores (EpilogueStagingTile);
  /// the kernel keeps the direct stores for beta != 0 and for a C whose
  /// tensor map the launcher cannot encode. false (and f32 C): direct
  /// predicated stores only.
  bool storeTma = true;
  /// Bytes of one staging row and its swizzle atom: 16 (K_INTER), 32, 64
  /// or 128; 0 takes the largest whose columns divide the tile.
  unsigned storeSwizzleBytes = 0;
  /// tilec compile --annotate: a `// tilec:` comment before every wgmma
  /// with its descriptors decoded, the subtile each addresses and
  /// \p annotateSource (the .tile lines it came from); off, no comments.
  bool annotate = false;
  std::string annotateSource;
  /// The .tile lines of the kernel's parts; with source.emit, PTX line
  /// directives for them (tilec compile --lineinfo).
  SourceLines source;
  /// The epilogue's element-wise ops (ir/tile/EpilogueOps.h), applied after
  /// alpha/beta on every store path (and after split-K's reduction).
  std::vector<EpilogueOp> epilogueOps;
  /// Block-scaled fp8 (codegen/Sm90BlockScale.h): per BK = 128 block the
  /// wgmmas sum into a fresh accumulator that is promoted into the main one
  /// with SFA * SFB; std::nullopt: the plain K loop.
  std::optional<BlockScaleSpec> blockScale;
  /// A batched GEMM (ir/tile/GemmSpec.h): batch z = %ctaid.z; batched tensors
  /// have rank-3 tensor maps (batch outermost, box extent 1) and take z as
  /// the third coordinate; a broadcast one keeps its rank-2 map; the direct
  /// stores write C + z * strideC. std::nullopt: one GEMM.
  std::optional<BatchSpec> batch;
  /// A grouped GEMM (codegen/Sm90Group.h): B (and A, C when masked) have
  /// rank-3 maps with the tile's group as the third coordinate; each tile
  /// looks up its group and is skipped outside it. std::nullopt: one GEMM.
  std::optional<GroupSpec> group;
  /// A quantized weight B with group scales (codegen/Sm90WeightDequant.h): under
  /// swapAB the weight is the wgmma A role, TMA-loaded in its packed order
  /// with its scales and zero points and dequantized into the registers of
  /// RS wgmmas; std::nullopt: A and B are wgmma types.
  std::optional<WeightQuantSpec> weightQuant;
};

/// The staging tile of \p config, or std::nullopt when the epilogue stores
/// directly (storeTma off, or C f32: stmatrix moves 16-bit elements). An
/// error when storeSwizzleBytes is not a legal atom or its columns do not
/// divide the tile.
llvm::Expected<std::optional<EpilogueStagingTile>>
sm90EpilogueTile(const Sm90GemmConfig &config);

/// Bytes of the ring: stages x (BM + BN) x BK elements of A and B.
/// Example: BM 64, BN 64, BK 64 bf16, 13 stages: 212992.
unsigned sm90RingBytes(const Sm90GemmConfig &config);

/// Dynamic shared memory of \p config: sm90SmemMap(config).totalBytes()
/// (codegen/Sm90SmemMap.h has the parts).
unsigned sm90SharedBytes(const Sm90GemmConfig &config);

/// An emitted kernel and how to launch it.
struct Sm90GemmKernel {
  std::string ptx;
  std::string entry;
  unsigned blockThreads = 0;
  unsigned sharedBytes = 0; ///< dynamic shared memory to request
  unsigned clusterX = 1;    ///< cluster extent along grid x (1: no cluster)
  unsigned clusterY = 1;    ///< cluster extent along grid y
  Sm90GemmConfig config;
  TmaOperandTile a, b; ///< wgmma A and B roles (B tensor is A when swapped)
  std::optional<EpilogueStagingTile> staging; ///< The C tile of a TMA store.
};

/// Checks \p config against the wgmma types (A/B f16, bf16, tf32, fp8; C
/// bf16, f16, f32; MN-major only for 16-bit types), the wgmma atom (BM
/// multiple of 64, at most two consumer warpgroups, BN multiple of 8 up to
/// 256), the swizzle atom (BK * element bytes = 32, 64 or 128: one atom
/// row), the TMA box (<= 256 rows) and the shared memory budget (227 KB);
/// the message says what would be legal.
llvm::Error verifySm90GemmConfig(const Sm90GemmConfig &config);

/// Elements of K one wgmma consumes (32 bytes): 16 for f16/bf16, 8 for
/// tf32, 32 for e4m3/e5m2, from ir/arch/InstrTable; 0 for a type no wgmma takes.
unsigned sm90WgmmaK(DTypeKind dtype);

/// The wgmma N of one promotion step of a block-scaled consumer
/// (codegen/Sm90BlockScale.h): each 128-deep K block runs in BN / N steps,
/// each wgmma'd into a fresh accumulator of N / 2 registers, waited for and
/// promoted into its columns of the main accumulator before the next step
/// reuses the fresh registers. N = BN, except above BN = 192, where the
/// main and fresh accumulators of one m64nBN wgmma (BN / 2 registers each)
/// would pass a consumer's 232: two halves (BN 256: 128 + 64 registers, as
/// BN 192 whole). The halves must be wgmma Ns, so BN above 192 is a
/// multiple of 16. (Issuing both halves before waiting for the first, so
/// that its promotion overlaps the second's wgmmas, was measured slower at
/// BN 128-192 on the H100: the n/2 wgmmas read A twice from shared memory;
/// bench/Fp8BlockResults.md.)
/// Example: BN 256 -> 128; BN 192 -> 192; no block scales -> BN.
unsigned sm90PromotionN(const Sm90GemmConfig &config);

/// Whether \p config's block-scaled consumers overlap each K block's
/// promotion with the next block's wgmmas: they issue block k + 1 into a
/// second fresh accumulator before waiting for block k (wgmma.wait_group 1)
/// and promoting it, so the tensor core has queued work while the FMAs run
/// and a lone consumer warpgroup (the decode tiles) no longer stalls on
/// every block's wait. It needs the main and two fresh accumulators in a
/// consumer's registers (3 BN / 2 + 24 <= the consumer's share: BN <= 128
/// at 232; under swap-AB also the BN / 2 shuffled column scales: BN <= 104),
/// one 64-row block per consumer warpgroup and the whole BN promoted at
/// once; each ring slot is then freed one block later.
/// Example: block-scaled BM 128, BN 128 -> true; BN 128 under swap-AB, BN
/// 192 or BM 256 -> false; no block scales -> false.
bool sm90OverlapsPromotion(const Sm90GemmConfig &config);

/// Whether \p config's block scales travel through the ring: per K block
/// the producer's warp 2 copies the tile's BM A scales and its B scales
/// (sm90BlockScaleSlots) into the slot's scale area with 4-byte cp.async,
/// and the slot's full barrier waits for them beside the TMA bytes
/// (cp.async.mbarrier.arrive.noinc: 32 more expected arrivals). The
/// consumers then read a K block's scales with ld.shared after the full
/// wait instead of loading them from global memory a block ahead: no scale
/// addresses or prefetched scales held beside the accumulators
/// (Sm90BlockScale.h). Measured on the H200 (issue 26,
/// bench/Fp8BlockResults.md) it pays where one consumer warpgroup of 64
/// rows promotes the whole BN (the BM 64 decode tiles: 3-21% faster) and
/// loses elsewhere (BM 128 BN 64: up to 20% slower, BN 192 at M = 4096:
/// 2-5%, BN 256 in halves: 9-26%), so only those stage, and the 256-row
/// tiles (two row blocks per consumer warpgroup; no cluster or a 1x2
/// cluster, whose A rows are the same in both CTAs), whose
/// consumers release each slot with a predicated arrival and tie the
/// second row block's wgmmas to the first's waited registers
/// (Sm90Consumer.cpp): 4-8% faster than unstaged at 256 x 128 (H200,
/// session 15). Swap-AB keeps the global loads (its A scales follow the
/// columns and are shuffled between lanes).
/// Example: block-scaled BM 64 BN 32 -> true; BM 256 BN 128 -> true; BM
/// 128 or BN 256 or swap-AB -> false; no block scales -> false.
bool sm90StagesBlockScales(const Sm90GemmConfig &config);

/// The CTAs of one thread-block cluster: clusterM x clusterN (at most one
/// of them 2). Example: clusterM 2 -> 2; clusterN 2 -> 2; neither -> 1.
unsigned sm90ClusterCtas(const Sm90GemmConfig &config);

/// One ring slot's scale area when sm90StagesBlockScales, else 0: f32
/// SFA of tile rows 0 .. BM - 1, then the tile's B scales, in 16-byte
/// units. Example: BM 64, BN 32 -> 272; BM 64, BN 96 -> 272; BM 128 -> 0.
unsigned sm90ScaleStageBytes(const Sm90GemmConfig &config);

/// Above this BN a block-scaled kernel promotes in sequential halves.
inline constexpr unsigned Sm90MaxWholePromotionN = 192;

/// Consumer warpgroups of \p config's kernel: BM / 64 for BM 64, 128 and
/// 192 (three consumers at 152 registers each), and 2 for BM 256, where
/// each owns two 64-row wgmma blocks
/// (sm90RowBlocks), DeepGEMM's large-M tile: twice the rows per B tile
/// and per barrier round for the same threads and registers.
unsigned sm90ConsumerWarpgroups(const Sm90GemmConfig &config);

/// The 64-row wgmma blocks one consumer warpgroup owns: 1, or 2 at BM 256
/// (warpgroup c owns blocks 2 c and 2 c + 1, rows 128 c .. 128 c + 127;
/// each block has its own accumulator, staging tile and C-load barrier).
unsigned sm90RowBlocks(const Sm90GemmConfig &config);

/// setmaxnreg targets of \p config: {producer, consumer} registers.
std::pair<unsigned, unsigned> sm90RegisterSplit(const Sm90GemmConfig &config);

/// The registers a thread of \p config's kernel may use at its launch
/// (threads and CTAs per SM), rounded down to 8: ptxas compiles the whole
/// kernel under it, setmaxnreg or not.
unsigned sm90LaunchRegisterCap(const Sm90GemmConfig &config);

/// Whether split-K over \p splits CTAs can reduce in a cluster
/// (splitKCluster) for \p config's tile: 2 to 8 splits (the portable
/// cluster size), clusterM 1, not persistent, one CTA per SM, and a ring
/// of at least one f32 tile (BM * BN * 4 bytes) to hold a CTA's partial.
/// (Two-CTA W4A16 kernels summed a few 16-channel rows wrong on the H200,
/// session 20, from a race in their K loop since fixed; until the fixed
/// kernel has run there, two CTAs per SM reduce in the workspace.)
/// Example: BM 64, BN 64, 13 stages (212992 ring bytes) with 4 splits: true;
/// with 9 splits: false.
bool sm90SplitKClusterFits(const Sm90GemmConfig &config, unsigned splits);

/// The operand tiles of \p config in their wgmma roles (A role, B role).
/// With swapAB the tensor B plays the wgmma A role and A the B role; each
/// keeps its type and majorness. Under a cluster each CTA loads 1/clusterM
/// of the K-major B tile.
llvm::Expected<std::pair<TmaOperandTile, TmaOperandTile>>
sm90RoleTiles(const Sm90GemmConfig &config);

/// Builds the kernel and returns its PTX for sm_90a.
llvm::Expected<Sm90GemmKernel> emitSm90Gemm(const Sm90GemmConfig &config);

/// The kernel's parameters in order (the list at the top of this file):
/// tmapC and storeTma only with a staging tile (\p staged), then the
/// pointers the epilogue ops read (epilogueParams), then sfa and sfb when
/// \p blockScaled (codegen/Sm90BlockScale.h), then strideC (i64) when
/// \p batched, then groups and groupIndex (contiguous) or groupRows
/// (masked) when \p group is set (codegen/Sm90Group.h), then tmapSB (and
/// tmapZB with zero points) for a quantized weight \p weight
/// (codegen/Sm90WeightDequant.h). The kernel is
/// declared from this list and sm90GemmBinary hands the same list to the
/// launcher.
std::vector<KernelParam>
sm90KernelParams(bool staged, llvm::ArrayRef<EpilogueOp> ops = {},
                 bool blockScaled = false, bool batched = false,
                 std::optional<GroupKind> group = std::nullopt,
                 const std::optional<WeightQuantSpec> &weight = std::nullopt);

/// The kernel's LLVM IR as text, before optimization (--emit=llvm).
llvm::Expected<std::string> emitSm90GemmLlvmIr(const Sm90GemmConfig &config);

} // namespace tilec

#endif // TILEC_CODEGEN_SM90GEMM_H
