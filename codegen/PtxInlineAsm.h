//===- codegen/PtxInlineAsm.h - Hopper PTX with no LLVM intrinsic -*- C++
//-*-===//
//
// The sm_90a GEMM needs PTX statements that LLVM 22's NVPTX backend either
// has no intrinsic for (wgmma.mma_async) or whose intrinsic forms we would
// have to track across LLVM releases (mbarrier with expect_tx, the bulk
// tensor copy, setmaxnreg, elect.sync, the async-proxy fence). Each helper
// here builds one such statement as a side-effecting inline-asm call, so the
// text of every statement lives in one place and the kernel builders read as
// a list of operations.
//
// Shared-memory addresses are 32-bit `shared::cta` addresses ("r"); tensor
// maps are generic addresses of a grid-constant kernel parameter ("l").
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_PTXINLINEASM_H
#define TILEC_CODEGEN_PTXINLINEASM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/IRBuilder.h"

#include <string>

namespace tilec {
namespace ptx {

/// One inline-asm statement with side effects: returns the call (void or the
/// asm's result type \p result).
llvm::Value *emitAsm(llvm::IRBuilderBase &builder, llvm::Type *result,
                     llvm::StringRef text, llvm::StringRef constraints,
                     llvm::ArrayRef<llvm::Value *> args);

/// `mbarrier.init.shared::cta.b64 [bar], count;`
void mbarrierInit(llvm::IRBuilderBase &builder, llvm::Value *bar,
                  unsigned count);
/// `fence.mbarrier_init.release.cluster;` then `fence.proxy.async.shared::cta;`
/// so the copy engine sees barriers initialized by ordinary stores.
void fenceBarrierInit(llvm::IRBuilderBase &builder);
/// `fence.proxy.async.shared::cta;`
void fenceProxyAsyncShared(llvm::IRBuilderBase &builder);
/// `mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], bytes;`
void mbarrierArriveExpectTx(llvm::IRBuilderBase &builder, llvm::Value *bar,
                            llvm::Value *bytes);
/// `mbarrier.arrive.shared::cta.b64 _, [bar];`
void mbarrierArrive(llvm::IRBuilderBase &builder, llvm::Value *bar);
/// `@p mbarrier.arrive.shared::cta.b64 _, [bar];` with p = (\p on != 0):
/// the arrival of the threads where \p on (i32) is set, without a branch.
void mbarrierArriveIf(llvm::IRBuilderBase &builder, llvm::Value *bar,
                      llvm::Value *on);
/// One `mbarrier.try_wait.parity` probe: i32 1 when the phase of parity
/// \p parity has completed, else 0. Callers loop on it.
llvm::Value *mbarrierTryWaitParity(llvm::IRBuilderBase &builder,
                                   llvm::Value *bar, llvm::Value *parity);
/// The loop around mbarrierTryWaitParity: blocks \p name and \p name.done
/// in the current function; the builder continues in the latter.
void mbarrierWaitParity(llvm::IRBuilderBase &builder, llvm::Value *bar,
                        llvm::Value *parity, const llvm::Twine &name);
/// `griddepcontrol.launch_dependents;`: the next kernel in the stream, if
/// launched as a programmatic dependent, may be scheduled once every CTA of
/// this grid has executed this (or exited).
void gridDependentsLaunch(llvm::IRBuilderBase &builder);
/// `griddepcontrol.wait;`: blocks until the grids this one depends on have
/// completed and their writes are visible (at once when there are none).
void gridDependencyWait(llvm::IRBuilderBase &builder);
/// `prefetch.tensormap [tensorMap];`: brings a kernel parameter's tensor map
/// into the TMA unit's descriptor cache ahead of its first copy.
void prefetchTensorMap(llvm::IRBuilderBase &builder, llvm::Value *tensorMap);
/// `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
/// [dst], [tensorMap, {c0, c1}], [bar];` (c0 is the innermost coordinate).
void tmaLoad2d(llvm::IRBuilderBase &builder, llvm::Value *dst,
               llvm::Value *tensorMap, llvm::Value *c0, llvm::Value *c1,
               llvm::Value *bar);
/// `cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [tensorMap, {c0,
/// c1}], [src];`: stores the box at shared offset \p src to global memory;
/// elements past the tensor's extents are not written.
void tmaStore2d(llvm::IRBuilderBase &builder, llvm::Value *tensorMap,
                llvm::Value *c0, llvm::Value *c1, llvm::Value *src);
/// The rank-3 forms of tmaLoad2d and tmaStore2d (a batched operand: c2 is
/// the batch).
void tmaLoad3d(llvm::IRBuilderBase &builder, llvm::Value *dst,
               llvm::Value *tensorMap, llvm::Value *c0, llvm::Value *c1,
               llvm::Value *c2, llvm::Value *bar);
void tmaStore3d(llvm::IRBuilderBase &builder, llvm::Value *tensorMap,
                llvm::Value *c0, llvm::Value *c1, llvm::Value *c2,
                llvm::Value *src);
/// `cp.async.bulk.commit_group;`: closes the thread's pending bulk stores
/// into one group.
void bulkCommitGroup(llvm::IRBuilderBase &builder);
/// `cp.async.bulk.wait_group.read N;` (\p readOnly: until at most \p pending
/// groups may still read their shared memory) or `cp.async.bulk.wait_group
/// N;` (until they have completed).
void bulkWaitGroup(llvm::IRBuilderBase &builder, unsigned pending,
                   bool readOnly);
/// `stmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 [addr], {r...};` with
/// N = \p regs.size() (1, 2 or 4) packed pairs of 16-bit elements: thread t
/// holds row t / 4, columns 2 (t % 4) and 2 (t % 4) + 1 of each 8x8 matrix,
/// and lane 8 q + r gives the address of row r of matrix q (of its
/// transpose with \p trans). \p annotation as for wgmmaSsText.
void stmatrix(llvm::IRBuilderBase &builder, llvm::Value *addr,
              llvm::ArrayRef<llvm::Value *> regs, bool trans,
              llvm::StringRef annotation = {});
/// `ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 {r...}, [addr];` with
/// N = \p count (1, 2 or 4): the inverse of stmatrix with the same lane
/// addresses; returns the N packed pairs.
llvm::SmallVector<llvm::Value *> ldmatrix(llvm::IRBuilderBase &builder,
                                          llvm::Value *addr, unsigned count,
                                          bool trans);
/// `bar.sync id, threads;` on named barrier \p id (i32, 0..15) with
/// \p threads (a multiple of 32); id 0 with every thread of the CTA is
/// __syncthreads.
void barSync(llvm::IRBuilderBase &builder, llvm::Value *id, unsigned threads);
/// `setmaxnreg.{inc,dec}.sync.aligned.u32 regs;` (whole warpgroup).
void setMaxNReg(llvm::IRBuilderBase &builder, bool increase, unsigned regs);
/// `elect.sync`: i32 1 in exactly one active lane of the warp, else 0.
llvm::Value *electSync(llvm::IRBuilderBase &builder);
/// `wgmma.fence.sync.aligned;`
void wgmmaFence(llvm::IRBuilderBase &builder);
/// `wgmma.commit_group.sync.aligned;`
void wgmmaCommitGroup(llvm::IRBuilderBase &builder);
/// `wgmma.wait_group.sync.aligned N;` with \p acc passed through as tied
/// operands, so no use of the accumulators can be scheduled above the wait
/// (the role of CUTLASS's warpgroup_fence_operand). Returns the new values.
llvm::SmallVector<llvm::Value *>
wgmmaWaitGroup(llvm::IRBuilderBase &builder, unsigned pending,
               llvm::ArrayRef<llvm::Value *> acc);

/// The PTX type names of a wgmma with both operands in shared memory.
struct WgmmaShape {
  unsigned m = 64, n = 256, k = 16;
  llvm::StringRef dType = "f32";       ///< accumulator
  llvm::StringRef abType = "bf16";     ///< A (and B unless bType is set)
  llvm::StringRef bType = "";          ///< B when it differs (fp8 mixes)
  bool transA = false, transB = false; ///< MN-major operands (16-bit only)
};

/// The statement text of an SS wgmma of \p shape, with the accumulator
/// registers as operands $0..$(R-1), their tied inputs next, then the two
/// descriptors and the scale-d flag (an i32 turned into the predicate p).
/// The tf32 and fp8 forms have no imm-trans operands.
/// Each line of \p annotation (tilec compile --annotate) becomes a
/// `// tilec: LINE` comment right before the instruction; empty, none.
/// Example: m64n8k16 f32 bf16 contains
/// `wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, $8,
/// $9, p, 1, 1, 0, 0;`
std::string wgmmaSsText(const WgmmaShape &shape,
                        llvm::StringRef annotation = {});

/// Issues one SS wgmma accumulating into \p acc (m*n/128 f32 values per
/// thread); returns the new accumulator values. \p annotation as for
/// wgmmaSsText. With \p overwrite the wgmma's scale-d is 0: D = A x B, and
/// \p acc is not read (pass poison, so that nothing zeroes registers).
llvm::SmallVector<llvm::Value *> wgmmaSs(llvm::IRBuilderBase &builder,
                                         const WgmmaShape &shape,
                                         llvm::ArrayRef<llvm::Value *> acc,
                                         llvm::Value *descA, llvm::Value *descB,
                                         llvm::StringRef annotation = {},
                                         bool overwrite = false);

/// The statement text of an RS wgmma of \p shape (16-bit A from four
/// registers): the accumulators $0..$(R-1) and their tied inputs, then A's
/// registers $(2R)..$(2R+3), B's descriptor and the scale-d flag. RS forms
/// take imm-trans-b only.
/// Example: m64n8k16 f32 bf16 contains
/// `wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3},
/// {$8, $9, $10, $11}, $12, p, 1, 1, 0;`
std::string wgmmaRsText(const WgmmaShape &shape);

/// Issues one RS wgmma of \p shape: A from \p a (four b32 registers of
/// packed 16-bit pairs, wgmma's A fragment), B from \p descB, into \p acc;
/// returns the new accumulator values. \p overwrite as for wgmmaSs.
llvm::SmallVector<llvm::Value *>
wgmmaRs(llvm::IRBuilderBase &builder, const WgmmaShape &shape,
        llvm::ArrayRef<llvm::Value *> acc, llvm::ArrayRef<llvm::Value *> a,
        llvm::Value *descB, bool overwrite = false);

// Thread-block clusters (sm_90).

/// `cp.async.bulk.tensor.2d...multicast::cluster [dst], [tensorMap, {c0,
/// c1}], [bar], mask;`: the box lands at offset \p dst of every CTA whose
/// rank bit is set in \p mask (i16), and completes bytes on the barrier at
/// offset \p bar of each of them.
void tmaLoad2dMulticast(llvm::IRBuilderBase &builder, llvm::Value *dst,
                        llvm::Value *tensorMap, llvm::Value *c0,
                        llvm::Value *c1, llvm::Value *bar, llvm::Value *mask);
/// tmaLoad2dMulticast, or with \p z non-null the 3-D form at {c0, c1, z}
/// (a batched or grouped operand).
void tmaLoadMulticast(llvm::IRBuilderBase &builder, llvm::Value *dst,
                      llvm::Value *tensorMap, llvm::Value *c0, llvm::Value *c1,
                      llvm::Value *z, llvm::Value *bar, llvm::Value *mask);
/// `mapa` then `mbarrier.arrive.shared::cluster.b64 _, [remote];`: one
/// arrival on the barrier at this CTA's offset \p bar in the CTA of cluster
/// rank \p rank (which may be this CTA). The default .release.cta: a
/// .release.cluster arrive fences at cluster scope, which on the H200 cost
/// about 1 us per ring slot (2x1-cluster decode GEMMs ran 7x slower).
void mbarrierArriveCluster(llvm::IRBuilderBase &builder, llvm::Value *bar,
                           llvm::Value *rank);
/// mbarrierArriveCluster at every rank 0 .. \p ctas - 1, predicated on
/// \p on (i32) != 0 instead of branched around (mbarrierArriveIf).
void mbarrierArriveClusterIf(llvm::IRBuilderBase &builder, llvm::Value *bar,
                             unsigned ctas, llvm::Value *on);
/// `barrier.cluster.arrive.release; barrier.cluster.wait.acquire;` (every
/// thread of every CTA of the cluster).
void clusterSync(llvm::IRBuilderBase &builder);
/// `mapa.shared::cluster.u32 d, addr, rank;`: the shared::cluster address
/// of this CTA's shared offset \p addr in the CTA of cluster rank \p rank.
llvm::Value *mapaShared(llvm::IRBuilderBase &builder, llvm::Value *addr,
                        llvm::Value *rank);
/// `@p ld.shared::cluster.v4.f32 {a, b, c, d}, [addr];` with p = (\p on !=
/// 0): four floats from a shared::cluster address (mapaShared), as a struct
/// of four f32 (undefined where \p on is 0).
llvm::Value *ldSharedClusterV4F32(llvm::IRBuilderBase &builder,
                                  llvm::Value *addr, llvm::Value *on);
/// `st.shared.v4.f32 [addr], {v0, v1, v2, v3};` at this CTA's shared offset
/// \p addr (16-byte aligned).
void stSharedV4F32(llvm::IRBuilderBase &builder, llvm::Value *addr,
                   llvm::ArrayRef<llvm::Value *> values);

/// `st.shared.f32 [addr], value;`
void stSharedF32(llvm::IRBuilderBase &builder, llvm::Value *addr,
                 llvm::Value *value);

/// `@p cp.async.ca.shared.global [dst], [src], 4;` with p = (\p on != 0):
/// one f32 from global address \p src (i64) to shared address \p dst
/// (i32), asynchronously, by the threads where \p on (i32) is set.
void cpAsyncF32(llvm::IRBuilderBase &builder, llvm::Value *dst,
                llvm::Value *src, llvm::Value *on);
/// `cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar];`: the
/// executing thread's cp.async copies so far land, then one of \p bar's
/// expected arrivals.
void cpAsyncMbarrierArriveNoinc(llvm::IRBuilderBase &builder, llvm::Value *bar);
/// `ld.shared.f32 value, [addr];`
llvm::Value *ldSharedF32(llvm::IRBuilderBase &builder, llvm::Value *addr);

} // namespace ptx
} // namespace tilec

#endif // TILEC_CODEGEN_PTXINLINEASM_H
