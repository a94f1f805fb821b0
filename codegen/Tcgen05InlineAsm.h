//===- codegen/Tcgen05InlineAsm.h - Blackwell tcgen05 PTX statements -*- C++
//-*-===//
//
// The sm_100a GEMM (Sm100Gemm.h) drives the fifth-generation tensor core
// through the tcgen05 family: tensor-memory allocation, the MMA itself, its
// completion through an mbarrier, the loads from tensor memory and the
// fences that order them against ordinary thread synchronization. LLVM 22
// has intrinsics for some of these, but their spellings are still moving,
// so, as codegen/PtxInlineAsm.h does for Hopper, each statement is one
// side-effecting inline-asm call whose text lives here and nowhere else.
//
// Operands: shared-memory addresses are 32-bit shared::cta offsets ("r");
// tensor-memory addresses are 32-bit values, lane in bits 31..16 and
// column in bits 15..0 (PTX ISA 9.7.16.2.1, "Tensor Memory Addressing").
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_TCGEN05INLINEASM_H
#define TILEC_CODEGEN_TCGEN05INLINEASM_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/IRBuilder.h"

#include <string>

namespace tilec {
namespace ptx {

/// `tcgen05.alloc.cta_group::G.sync.aligned.shared::cta.b32 [dst], cols;`
/// (the whole warp): allocates \p columns (a power of two, 32 to 512) of
/// tensor memory and writes their address to shared offset \p dst. With
/// \p ctaGroup 2 one warp of each CTA of the pair executes it, and the
/// same columns are allocated in both CTAs' tensor memory (PTX ISA
/// 9.7.16.7.1).
void tcgen05Alloc(llvm::IRBuilderBase &builder, llvm::Value *dst,
                  unsigned columns, unsigned ctaGroup = 1);
/// `tcgen05.relinquish_alloc_permit.cta_group::G.sync.aligned;`: this CTA
/// allocates no more, so other CTAs on the SM need not wait for it.
void tcgen05RelinquishAllocPermit(llvm::IRBuilderBase &builder,
                                  unsigned ctaGroup = 1);
/// `tcgen05.dealloc.cta_group::G.sync.aligned.b32 taddr, cols;` (the warp
/// that allocated, before the CTA exits).
void tcgen05Dealloc(llvm::IRBuilderBase &builder, llvm::Value *taddr,
                    unsigned columns, unsigned ctaGroup = 1);
/// `tcgen05.fence::before_thread_sync;`: orders the thread's earlier
/// tcgen05 operations before its next barrier or mbarrier operation.
void tcgen05FenceBeforeThreadSync(llvm::IRBuilderBase &builder);
/// `tcgen05.fence::after_thread_sync;`: orders the thread's later tcgen05
/// operations after its last barrier or mbarrier operation.
void tcgen05FenceAfterThreadSync(llvm::IRBuilderBase &builder);

/// The statement text of `tcgen05.mma.cta_group::1.kind::KIND [d], adesc,
/// bdesc, idesc, p;` with p = ($4 != 0) (enable-input-d: accumulate into D
/// rather than overwrite it). Operands: $0 the tensor-memory address of D,
/// $1 and $2 the shared-memory descriptors, $3 the instruction descriptor.
/// Example: kind "f16" contains `tcgen05.mma.cta_group::1.kind::f16 [$0],
/// $1, $2, $3, p;`. With \p ctaGroup 2 the MMA spans the CTA pair: A's
/// rows 0..127 and B's first N / 2 rows come from the even CTA's shared
/// memory, the rest from the odd CTA's, at the same offsets; D's rows
/// 0..127 go to the even CTA's tensor memory, 128..255 to the odd CTA's.
std::string tcgen05MmaText(llvm::StringRef kind, unsigned ctaGroup = 1);
/// Issues one tcgen05.mma of \p kind (tcgen05MmaText).
void tcgen05Mma(llvm::IRBuilderBase &builder, llvm::StringRef kind,
                llvm::Value *dTmem, llvm::Value *descA, llvm::Value *descB,
                llvm::Value *idesc, llvm::Value *accumulate,
                unsigned ctaGroup = 1);
/// `tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
/// [bar];`: one arrival on \p bar once every tcgen05.mma this thread issued
/// before it has completed.
void tcgen05Commit(llvm::IRBuilderBase &builder, llvm::Value *bar);
/// `tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.
/// multicast::cluster.b64 [bar], mask;`: once every cta_group::2
/// tcgen05.mma this thread issued before it has completed, one arrival on
/// the mbarrier at offset \p bar of every CTA whose cluster rank bit is
/// set in \p mask (an i16).
void tcgen05CommitMulticast(llvm::IRBuilderBase &builder, llvm::Value *bar,
                            llvm::Value *mask);
/// `cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::
/// complete_tx::bytes [dst], [tensorMap, {c0, c1}], [bar];`: the box lands
/// at this CTA's shared offset \p dst; its bytes complete on the mbarrier
/// at shared::cluster address \p bar, which .cta_group::2 lets be in the
/// peer CTA of the pair (the leader's full barrier, mapaShared).
void tmaLoad2dCtaPair(llvm::IRBuilderBase &builder, llvm::Value *dst,
                      llvm::Value *tensorMap, llvm::Value *c0, llvm::Value *c1,
                      llvm::Value *bar);
/// `cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::
/// complete_tx::bytes.multicast::cluster [dst], [tensorMap, {c0, c1}],
/// [bar], mask;`: the box lands at shared offset \p dst of every CTA whose
/// rank bit is set in \p mask (i16); for each destination the bytes
/// complete on the mbarrier at \p bar's offset in that destination's pair,
/// in its even CTA when \p bar is an even CTA's (PTX ISA,
/// cp.async.bulk.tensor: .cta_group::2 and .multicast::cluster).
void tmaLoad2dCtaPairMulticast(llvm::IRBuilderBase &builder, llvm::Value *dst,
                               llvm::Value *tensorMap, llvm::Value *c0,
                               llvm::Value *c1, llvm::Value *bar,
                               llvm::Value *mask);
/// The rank-3 form of tmaLoad2dCtaPair (a batched operand: c2 is the
/// batch).
void tmaLoad3dCtaPair(llvm::IRBuilderBase &builder, llvm::Value *dst,
                      llvm::Value *tensorMap, llvm::Value *c0, llvm::Value *c1,
                      llvm::Value *c2, llvm::Value *bar);
/// `mbarrier.arrive.release.cluster.shared::cluster.b64 _, [bar];`: one
/// arrival, released at cluster scope, on the mbarrier at shared::cluster
/// address \p bar (mapaShared; may be the peer CTA's).
void mbarrierArriveReleaseCluster(llvm::IRBuilderBase &builder,
                                  llvm::Value *bar);
/// `tcgen05.ld.sync.aligned.32x32b.xN.b32 {r0 .. r(N-1)}, [taddr];` (the
/// whole warp): lane i of the warp gets tensor-memory lane (taddr's lane +
/// i), columns taddr's column .. + N - 1, as N f32 values. A warp reaches
/// only the 32 lanes 32 (warp id % 4) ..; N is 1, 2, 4, ... 128. The
/// values are undefined until tcgen05WaitLd.
llvm::SmallVector<llvm::Value *> tcgen05Ld32x32b(llvm::IRBuilderBase &builder,
                                                 llvm::Value *taddr,
                                                 unsigned columns);
/// `tcgen05.ld.sync.aligned.16x256b.xN.b32 {r0 .. r(4N-1)}, [taddr];`
/// (the whole warp): 16 tensor-memory lanes from taddr's lane, 8 N
/// columns. Repetition k's registers 4 k .. 4 k + 3 of lane t are rows t /
/// 4 (registers 0, 1) and t / 4 + 8 (2, 3), columns 8 k + 2 (t % 4) + (r %
/// 2) (the PTX ISA's tcgen05.ld matrix fragment for .16x256b). N is 1 .. 32;
/// the values are undefined until tcgen05WaitLd.
llvm::SmallVector<llvm::Value *> tcgen05Ld16x256b(llvm::IRBuilderBase &builder,
                                                  llvm::Value *taddr,
                                                  unsigned repeats);
/// `tcgen05.wait::ld.sync.aligned;` with \p values passed through as tied
/// operands, so that no use of them is scheduled above the wait. Returns
/// the values after it.
llvm::SmallVector<llvm::Value *>
tcgen05WaitLd(llvm::IRBuilderBase &builder, llvm::ArrayRef<llvm::Value *> values);

} // namespace ptx
} // namespace tilec

#endif // TILEC_CODEGEN_TCGEN05INLINEASM_H
