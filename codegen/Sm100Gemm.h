//===- codegen/Sm100Gemm.h - TMA + tcgen05.mma GEMM with tensor memory -*- C++
//-*-===//
//
// The sm_100a GEMM kernel: C = alpha * A * B^T + beta * C with f32
// accumulation in tensor memory and C row-major. Element types:
//   A, B   f16 x f16 or bf16 x bf16 (kind::f16), tf32 x tf32 (kind::tf32),
//          e4m3 / e5m2 in any mix (kind::f8f6f4); K-major, or MN-major
//          (stored K x M, M contiguous) for the 16-bit and 8-bit types
//          through the instruction descriptor's transpose bits. tf32 is
//          K-major only: the ISA transposes tf32 only from the 128B
//          swizzle with 32-byte atomicity, which no tilec atom describes.
//   C      bf16, f16 or f32.
// One tcgen05.mma is M = 128 (cta_group::1: one CTA, D in TMEM lanes 0..127;
// or M = 64, BM = 64: rows 16 q .. 16 q + 15 in lanes 32 q .. 32 q + 15, the
// ISA's data path layout F, which each epilogue warp reads with
// tcgen05.ld.16x256b, lane l holding rows l / 4 and l / 4 + 8 of its 16)
// by N = BN (a multiple of 16 from 16 to 256; of 8 from 8 to 256 with M =
// 64, read in 8-column chunks where BN is an odd multiple of 8) by 32 bytes
// of K (k16 for 16-bit types, k8 for tf32, k32 for fp8). BK * element bytes
// is one swizzle atom row (32, 64 or 128 bytes), so a ring slot takes BK / k
// MMAs.
//
// Persistent: the grid is min(tiles, SMs) CTAs (GemmGridRule; one per
// tile when the SM count is unknown) and CTA x computes the 128 x BN output
// tiles t = x, x + gridDim.x, ... in the grouped order of
// codegen/TileOrder.h (groupM tile rows sweep N together, so the CTAs
// running at once share A and B tiles in L2). Six warps, each role a loop
// over the same tiles:
//   warps 0..3 (epilogue warpgroup): warp w owns TMEM lanes 32 w .. 32 w +
//     31, i.e. tile rows 32 w + lane; per tile it waits for the tile's
//     accumulator buffer to be full, reads its rows in chunks of 32 columns
//     (tcgen05.ld.32x32b.x32, then tcgen05.wait::ld), hands the buffer back
//     (accumulator-empty) after its last load, forms alpha * acc (+ beta *
//     C), applies the epilogue ops (codegen/EpilogueMath, as sm_80 and
//     sm_90a do) and stores directly to global memory, predicated on the
//     ragged edges; or, with storeTma (the staged epilogue,
//     Sm100StagedEpilogue.cpp), reads 16-lane halves with
//     tcgen05.ld.16x256b, stmatrix's them into a swizzled staging buffer
//     and one thread TMA-stores each chunk;
//   warp 4 (producer): one elected thread walks the K tiles of every tile,
//     waits for a free ring slot (empty mbarrier), arms the slot's full
//     mbarrier with the stage's bytes and issues the TMA loads of the A and
//     B tiles; the ring's position and phases run on across tiles, so it
//     loads the next tile while the MMAs of this one finish;
//   warp 5 (MMA): allocates the tensor memory at the start (the whole warp)
//     and frees it at the end; per tile one elected thread waits until the
//     tile's accumulator buffer is empty, then on each full mbarrier,
//     issues the slot's tcgen05.mma with descriptors it derives from the
//     slot's address, and tcgen05.commit's the slot's empty mbarrier, so
//     the slot is freed when those MMAs have read it; after the last slot,
//     one more commit arrives on the buffer's accumulator-full mbarrier.
// The first MMA of a tile overwrites D (enable-input-d false); with K = 0
// there is none and the epilogue uses zeros.
//
// Two accumulators (sm100AccumulatorBuffers: 2 x the power-of-two columns
// fits in the 512 TMEM columns for every BN <= 256; one buffer otherwise):
// tile i of a CTA uses buffer i % 2 with mbarrier parity (i / 2) & 1, so
// the epilogue of tile i overlaps the MMAs of tile i + 1. Per buffer an
// accumulator-full mbarrier (count 1: the MMA thread's commit) and an
// accumulator-empty one (count 128: every epilogue thread arrives after
// tcgen05.wait::ld and tcgen05.fence::before_thread_sync; the MMA thread
// waits and executes tcgen05.fence::after_thread_sync before its MMAs):
// the PTX ISA's canonical tcgen05 synchronization patterns (9.7.16.6.4).
//
// CTA pairs (ctaGroup = 2, `schedule cluster(2)`; docs/sm100.md): 2x1
// clusters, one tcgen05.mma.cta_group::2 of M = BM = 256 or 128 per K step
// over the pair (PTX ISA 9.7.16.10.1). Each CTA stages BM / 2 rows of A
// and BN / 2 of B and holds its BM / 2 rows of D: with M = 256 128 rows in
// lanes 0..127 (data path layout A); with M = 128 64 rows in layout B
// (9.7.16.10.5), columns 0 .. BN/2 - 1 in lanes 0..63 and BN/2 .. BN - 1
// in lanes 64..127, both at columns 0 .. BN/2 - 1 of the accumulator, so
// epilogue warp w reads rows 32 (w % 2) + lane, columns (BN / 2) (w / 2)
// .. of its lane quarter (sm100FoldedAccumulator). The even CTA (the
// leader) issues the
// MMAs, arms its full barriers with both CTAs' bytes (both CTAs' TMA loads
// carry .cta_group::2 and complete there), commits with .multicast::cluster
// to both CTAs' empty and accumulator-full barriers, and waits on its
// accumulator-empty barrier for all 256 epilogue threads of the pair. Both
// MMA warps allocate with .cta_group::2 (9.7.16.7.1); cluster barriers
// replace the CTA barrier of the TMEM handoff and the exit (9.7.16.6.4),
// and each producer drains its empty barriers before the exit.
//
// Two pairs (clusterPairs = 2, `schedule cluster(4)`; docs/sm100.md,
// "Clusters of two pairs"): 4x1 clusters, pair p = rank / 2 on the 256-row
// tile 2 t + p of cluster tile row t, both with the same n0. CTAs of equal
// pair rank stage the same BN / 2 rows of B; each loads BN / 4 of them with
// cp.async.bulk.tensor .cta_group::2 .multicast::cluster (mask 0b0101 <<
// pair rank), whose bytes complete, per destination, on that destination's
// pair leader's full barrier (PTX ISA, cp.async.bulk.tensor), so each
// leader still expects 2 x the stage. The empty barriers count 2: the slot
// commits go to all four CTAs (mask 0b1111), since each CTA's B slot is
// written by both pairs' loads; accumulator commits stay in the pair.
//
// Shared-memory descriptors come from each operand tile's layout exactly as
// on sm_90a (tmaOperandTile picks the tile, the TMA boxes and the layout);
// the sm_100 descriptor (version 1, its own layout-type codes) is derived
// from that layout for the M = 128 or N = BN MMA operand by
// ir/arch/DescriptorDerivation (tmaOperandTile with arch sm_100a), and the K
// steps advance the start address by the
// derived subtile offsets. The instruction descriptor is ir/arch/InstrDescriptor's
// encoding of (types, M = 128, N = BN, majorness).
//
// Tensor memory: per buffer the smallest power of two >= max(32, BN)
// columns, allocated at once (sm100TmemAllocColumns) by warp 5 into a
// shared word. The handoff of that address
// follows the PTX ISA's pattern (9.7.16.6.4, "Canonical synchronization
// patterns"; 9.7.16.7.1, tcgen05.alloc): alloc, relinquish_alloc_permit,
// tcgen05.fence::before_thread_sync, bar.sync 0, then every reader's
// tcgen05.fence::after_thread_sync before it reads the word. At the end
// every thread fences before a last bar.sync 0, and warp 5 fences after it
// and deallocates.
//
// Shared memory from a 1024-byte aligned base: [A ring][B ring][staging
// buffers of the staged epilogue, 1024-byte aligned][full mbarriers][empty
// mbarriers][accumulator-full x buffers][accumulator-empty x buffers][TMEM
// address].
//
// Kernel parameters, in order (the runtime builds the tensor maps with the
// same plans as sm_90a):
//   .param .align 64 .b8 tmapA[128]  grid constant: M x K of A
//   .param .align 64 .b8 tmapB[128]  grid constant: N x K of B
//   .param .align 64 .b8 tmapC[128]  staged epilogue only: M x N of C (N/2
//                                    with swiglu), a staging chunk's box
//   .param .u64 c                    cType, row-major, leading dimension ldc
//   .param .u32 rowsA, rowsB, k, ldc (rowsA = M, rowsB = N)
//   .param .f32 alpha, beta          (beta == 0 never reads C)
//   .param .u64 workspace, counters  split-K only: f32 partial tiles
//                                    (tiles x S x BM x BN) and a u32 per
//                                    tile, zero before the first launch
//                                    and left zero by the kernel
//   .param .u32 storeTma             staged epilogue only: 1 when tmapC is
//                                    a legal map, 0 for direct stores
//   then the epilogue ops' operands  (epilogueParams: bias, scale,
//                                     residual and ldr, as the ops read them)
//   .param .u32 batch                batched only: the batch count
//   .param .u64 strideC              batched only: elements between C's
//                                    batches (A's and B's strides are in
//                                    their rank-3 tensor maps)
// so tmapC sits before c and storeTma before the ops' operands, both ahead
// of batch and strideC, and an unbatched, unstaged kernel's list is the
// plain one (sm100KernelParams; the launcher binds every parameter by
// name). The staged epilogue with a batch, or on the pair's M = 128, is a
// located error (sm100EpilogueTile; docs/sm100.md).
// Grid: (min(ceil(M / 128) * ceil(N / BN) * S, SMs), 1, 1), the grid rule
// sm100GemmBinary sets (GemmGridRule); a batched kernel's grid counts batch
// x tiles (docs/sm100.md, "Batched GEMM").
//
// Batched (config.batch): the persistent units are batch x tiles, unit u
// is batch z = u / tilesPerBatch and tile u % tilesPerBatch of that batch
// in the grouped order (a CTA pair walks batch x pair tiles), so small
// batches of small GEMMs fill the machine. A batched A or B loads with
// cp.async.bulk.tensor.3d (z the third coordinate); a broadcast one
// (declared without the batch extent) with its rank-2 map; the epilogue
// reads and writes C + z * strideC (64-bit). Split-K and the residual op
// are refused with a batch.
//
// Decode schedules (docs/sm100.md, "Small M"): with swapAB the kernel's
// rows are N (rowsA = N, rowsB = M: the launcher swaps the tensor maps),
// so a small M becomes the MMA's N and the 128-row M is filled by N; the
// epilogue writes lane i of D to column n0 + i of C, each register (a
// column of D) to one row of C, a warp's 32 lanes to 32 adjacent
// elements. With splitK = S the persistent loop walks tiles x S work
// units (unit u: tile u / S, split u % S); the ring's position runs on
// by each unit's own K tile count. The epilogue of a unit stores its f32
// partial to the workspace in fragment order (16-byte stores, a warp's
// contiguous), fence.acq_rel.gpu, a named barrier over the 128 epilogue
// threads, one thread's atom.acq_rel.gpu.add on the tile's counter; the
// unit that sees S - 1 resets the counter, and its threads sum the S
// partials (ld.global.cg, z = 0 .. S - 1, so the result does not depend
// on the arrival order) and run the normal epilogue.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM100GEMM_H
#define TILEC_CODEGEN_SM100GEMM_H

#include "codegen/GemmCodegen.h"
#include "codegen/warpspec/EpilogueStaging.h"
#include "codegen/warpspec/OperandTile.h"
#include "ir/arch/DType.h"
#include "ir/arch/InstrDescriptor.h"
#include "ir/arch/MajorKind.h"
#include "ir/tile/EpilogueOps.h"
#include "ir/tile/SourceLines.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// The choices that shape one sm_100a GEMM kernel.
struct Sm100GemmConfig {
  std::string name = "tilec_gemm_sm100";
  unsigned bm = 128; ///< the MMA M: 64 or 128 (::1), 128 or 256 (::2)
  unsigned bn = 256; ///< the MMA N: 8 .. 256 step 8 (::2: 16 .. 256 step 16)
  /// CTAs one tcgen05.mma spans: 1, or 2 for the CTA pair of a 2x1
  /// cluster (cta_group::2, M = bm = 256 or 128; each CTA stages bm / 2
  /// rows of A and BN / 2 rows of B and holds bm / 2 rows of D in its
  /// tensor memory: 128 lanes, or with bm = 128 64 rows folded onto all
  /// 128 lanes, sm100FoldedAccumulator).
  unsigned ctaGroup = 1;
  /// CTA pairs per cluster (ctaGroup = 2 only): 1, the 2x1 cluster of
  /// `schedule cluster(2)`; or 2, the 4x1 cluster of `cluster(4)`: pair p
  /// = rank / 2 takes the 256-row tile 2 t + p of cluster tile row t, with
  /// the same n0, and each CTA loads BN / 4 rows of B with
  /// .multicast::cluster to itself and its counterpart in the other pair
  /// (docs/sm100.md, "Clusters of two pairs").
  unsigned clusterPairs = 1;
  unsigned bk = 64;    ///< K per ring slot: one swizzle atom row
  unsigned stages = 4; ///< ring slots
  DTypeKind aType = DTypeKind::BF16;
  DTypeKind bType = DTypeKind::BF16;
  DTypeKind cType = DTypeKind::BF16;
  MajorKind aMajor = MajorKind::K;
  MajorKind bMajor = MajorKind::K;
  /// Persistent tile order (codegen/TileOrder.h): tile rows per group.
  unsigned groupM = 8;
  /// Swap-AB (decode): the kernel computes C^T = B * A^T, so its A role
  /// (the MMA's M = 128 rows) is the user's B (N x K) and its B role (the
  /// MMA's N = BN) the user's A; aType/aMajor etc. are the kernel roles'.
  /// The epilogue stores D transposed: TMEM lane i is column n0 + i of C.
  bool swapAB = false;
  /// Split-K over this many work units per output tile (1: no split). Unit
  /// z of a tile takes K tiles [numK z / S, numK (z + 1) / S); its f32
  /// partial goes to the workspace, and the unit whose counter increment
  /// is the tile's last sums the S partials in the order z = 0 .. S - 1 and
  /// runs the epilogue (ops applied once, after the sum).
  unsigned splitK = 1;
  /// A batched GEMM (ir/tile/GemmSpec.h): the persistent walk covers batch x
  /// tiles (unit u: batch u / tilesPerBatch, then the grouped order inside
  /// the batch); batched tensors load through rank-3 tensor maps (batch
  /// outermost, box extent 1, coordinate z), a broadcast one keeps its
  /// rank-2 map, and the epilogue writes C + z * strideC. Unset: the
  /// unbatched kernel, whose PTX the batch code leaves untouched.
  std::optional<BatchSpec> batch;
  /// The epilogue's element-wise ops (codegen/EpilogueMath.h), applied
  /// after alpha and beta; swiglu pairs two accumulator columns in one
  /// epilogue thread (the halves: the gate chunk at column c and the up
  /// chunk at c + BN / 2; interleaved: adjacent registers of one chunk,
  /// from the warp's first column on the pair's M = 128, which refuses
  /// the halves: they lie in different warps there).
  std::vector<EpilogueOp> epilogueOps;
  /// The staged epilogue (`epilogue stmatrix [swizzle(..)] -> tma_store`):
  /// tcgen05.ld.16x256b, stmatrix into a swizzled staging buffer, TMA
  /// stores (sm100EpilogueTile; Sm100StagedEpilogue.cpp). storeSwizzleBytes
  /// is the staging row (0: the widest that divides the tile).
  bool storeTma = false;
  unsigned storeSwizzleBytes = 0;
  /// The .tile lines of the kernel's parts; with source.emit, PTX line
  /// directives for them (tilec compile --lineinfo).
  SourceLines source;
};

/// One operand tile as the sm_100a kernel stages and describes it: the
/// layout, bytes and TMA boxes are chosen as on sm_90a (tmaOperandTile),
/// the descriptor is derived for tcgen05.
struct Sm100OperandTile {
  TmaOperandTile staged;       ///< Layout, bytes, TMA boxes; its descriptor
                               ///< fields are sm_100's.
  uint64_t descriptorHigh = 0; ///< bits 14..63 of the sm_100 descriptor
  unsigned kStepBytes = 0;     ///< start-address advance per MMA K step
  unsigned mmaMN = 0;          ///< the operand's MMA extent (128 or BN)
};

/// The operand tile of \p rows x \p bk elements for a tcgen05 operand of
/// MMA extent \p mmaMN (128 for A, BN for B).
/// Example: (128, 64, bf16, K, 128) is tile_to_shape(K_SW128<bf16>,
/// (128,64)) with descriptor high bits 0x4000404000010000 (SW128 code 2,
/// version 1, SBO 1024) and a K step of 32 bytes.
llvm::Expected<Sm100OperandTile> sm100OperandTile(unsigned rows, unsigned bk,
                                                  DTypeKind dtype,
                                                  MajorKind major,
                                                  unsigned mmaMN);

/// Elements of K one tcgen05.mma consumes (32 bytes): 16 for f16/bf16, 8
/// for tf32, 32 for e4m3/e5m2, from ir/arch/InstrTable; 0 for a type it does not
/// take.
unsigned sm100MmaK(DTypeKind dtype);

/// True for cta_group::2 with M = 128 (BM = 128 over a CTA pair): D is in
/// the PTX ISA's data path layout B (9.7.16.10.5), each CTA's 64 rows with
/// columns 0 .. BN/2 - 1 in lanes 0..63 and BN/2 .. BN - 1 in lanes 64..127,
/// both halves at accumulator columns 0 .. BN/2 - 1.
bool sm100FoldedAccumulator(const Sm100GemmConfig &config);

/// Accumulator columns per TMEM lane: BN, or BN / 2 when folded.
unsigned sm100AccumulatorSpan(const Sm100GemmConfig &config);

/// Tensor-memory columns one accumulator takes: the smallest power of two
/// that is at least 32 and at least sm100AccumulatorSpan. Example: BN 48
/// takes 64; the M = 128 pair's BN 256 takes 128.
unsigned sm100TmemColumns(const Sm100GemmConfig &config);

/// Accumulator buffers in tensor memory: 2 when two accumulators fit in the
/// 512 columns (always, for BN <= 256), else 1, when the epilogue of one
/// tile cannot overlap the MMAs of the next.
unsigned sm100AccumulatorBuffers(const Sm100GemmConfig &config);

/// Columns the kernel allocates: buffers x sm100TmemColumns, a power of
/// two. Example: BN 256 allocates 512, BN 48 allocates 128.
unsigned sm100TmemAllocColumns(const Sm100GemmConfig &config);

/// The staging tile of the staged epilogue
/// (codegen/warpspec/EpilogueStaging.h): the epilogue warpgroup's rows (64 for
/// BM = 64, else 128: each CTA of a pair stages its own 128) by one atom row of
/// C (BN / 2 columns after swiglu), double-buffered when a tile takes more than
/// one chunk; std::nullopt without storeTma. An error for what the staged path
/// does not take (f32 C, split-K, swap-AB, a batch, the pair's M = 128,
/// swiglu(interleaved)), saying what is legal.
/// Example: bf16 C, BN = 256, BM = 128: tile_to_shape(K_SW128<bf16>,
/// (128,64)), 4 chunks, 2 buffers of 16384 bytes.
llvm::Expected<std::optional<EpilogueStagingTile>>
sm100EpilogueTile(const Sm100GemmConfig &config);

/// Shared-memory offset of the staging buffers from the aligned base: the
/// ring rounded up to 1024 bytes (the 128B swizzle's repeat).
unsigned sm100StagingOffset(const Sm100GemmConfig &config);

/// Dynamic shared memory of one CTA: the alignment slack, the ring (per
/// slot bm / ctaGroup rows of A and bn / ctaGroup rows of B), the staging
/// buffers of the staged epilogue (after the ring, 1024-byte aligned),
/// 2 * stages ring mbarriers, 2 per accumulator buffer, and the TMEM
/// address word.
unsigned sm100SharedBytes(const Sm100GemmConfig &config);

/// Rows of A (\p operand 'a') or B ('b') one CTA stages per ring slot:
/// bm / ctaGroup or bn / ctaGroup. Example: the 2-CTA 256 x 256 tile
/// stages 128 rows of each.
unsigned sm100CtaRows(const Sm100GemmConfig &config, char operand);

/// The 32-bit instruction descriptor of the kernel's tcgen05.mma.
llvm::Expected<uint32_t> sm100InstrDescriptor(const Sm100GemmConfig &config);

/// Checks \p config: the tcgen05 types (kind::f16, kind::tf32,
/// kind::f8f6f4; C bf16, f16 or f32; tf32 K-major only), the MMA shape (BM
/// = 64 with BN a multiple of 8 from 8 to 256, BM = 128 or the pair's 256
/// with BN a multiple of 16 from 16 to 256, the pair's BM = 128 with BN a
/// multiple of 32), the swizzle atom (BK * element bytes = 32, 64 or 128),
/// the TMA box (<= 256 rows) and the shared memory budget; each message
/// names the rule and what would be legal.
llvm::Error verifySm100GemmConfig(const Sm100GemmConfig &config);

/// An emitted kernel and how to launch it.
struct Sm100GemmKernel {
  std::string ptx;
  std::string entry;
  unsigned blockThreads = 0;
  unsigned sharedBytes = 0;
  Sm100GemmConfig config;
  Sm100OperandTile a, b;
  uint32_t idesc = 0;
};

/// The kernel's parameters in order (the list at the top of this file):
/// with \p staged C's tensor map after B's and the storeTma flag after
/// beta (after the split-K workspace and counters when \p splitK > 1),
/// then the operands \p ops read (epilogueParams), then batch and strideC
/// when \p batched. An unbatched, unstaged kernel's list is unchanged.
std::vector<KernelParam> sm100KernelParams(llvm::ArrayRef<EpilogueOp> ops = {},
                                           unsigned splitK = 1,
                                           bool batched = false,
                                           bool staged = false);

/// Whether the config handed to the emitters was verified already
/// (sm100ConfigFromSpec verifies what it returns, so a spec is verified
/// once); a config built by hand is verified by the emitter.
enum class Sm100ConfigVerified { No, Yes };

/// Builds the kernel and returns its PTX for sm_100a.
llvm::Expected<Sm100GemmKernel>
emitSm100Gemm(const Sm100GemmConfig &config,
              Sm100ConfigVerified verified = Sm100ConfigVerified::No);

/// The kernel's LLVM IR as text, before optimization (--emit=llvm).
llvm::Expected<std::string>
emitSm100GemmLlvmIr(const Sm100GemmConfig &config,
                    Sm100ConfigVerified verified = Sm100ConfigVerified::No);

} // namespace tilec

#endif // TILEC_CODEGEN_SM100GEMM_H
