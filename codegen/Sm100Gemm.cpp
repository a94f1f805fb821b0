//===- codegen/Sm100Gemm.cpp - TMA + tcgen05.mma GEMM with tensor memory --===//
//
// Builds the kernel described in Sm100Gemm.h with IRBuilder: prologue
// (barrier init, TMEM allocation and its handoff) -> one branch per role
// (epilogue warps 0..3, producer warp 4, MMA warp 5), each a loop over the
// CTA's tiles -> exit (TMEM deallocation). Unlike sm_90a, no accumulator
// lives in registers during the K loop: the MMA warp's single elected
// thread only issues instructions, and the epilogue reads D from tensor
// memory, one accumulator buffer while the MMAs fill the other.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm100Gemm.h"
#include "codegen/EpilogueMath.h"
#include "codegen/SourceLineInfo.h"

#include "codegen/PtxEmitter.h"
#include "codegen/PtxInlineAsm.h"
#include "codegen/Sm100Epilogue.h"
#include "codegen/Sm90Limits.h"
#include "codegen/Tcgen05InlineAsm.h"
#include "codegen/TileOrder.h"
#include "codegen/warpspec/KernelBuilder.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <map>
#include <optional>

namespace tilec {

namespace {

/// Warp roles (Sm100Gemm.h).
constexpr unsigned EpilogueWarps = 4, ProducerWarp = 4, MmaWarp = 5;
constexpr unsigned BlockThreads = 32 * 6;

struct Builder : WarpSpecKernelBuilder {
  const Sm100GemmConfig &config;
  Sm100OperandTile tileA, tileB;
  uint32_t idesc;

  llvm::Value *warp = nullptr, *tilesM = nullptr, *tilesN = nullptr;
  llvm::Value *accBarBase = nullptr, *tmemSlot = nullptr, *tmemBase = nullptr;
  /// The staged epilogue (sm100EpilogueTile): its tile (C's tensor map,
  /// the storeTma flag and the staging buffers' shared address are
  /// tmapC, storeTma and stagingBase).
  std::optional<EpilogueStagingTile> staging;
  /// Accumulator buffers and the TMEM columns of each.
  unsigned buffers = sm100AccumulatorBuffers(config);
  unsigned columns = sm100TmemColumns(config);
  /// cta_group::2: the CTA pair of a 2x1 cluster runs one M = 256 MMA per
  /// K step. The even CTA (rank 0, the leader) issues the MMAs and owns the
  /// pair's full and accumulator-empty mbarriers; both CTAs load their
  /// halves, read their own 128 rows of D and store them.
  bool pair = config.ctaGroup == 2;
  /// rank: %cluster_ctarank (pair only).
  /// cluster(4) (config.clusterPairs == 2): two pairs in a 4x1 cluster.
  /// rank is then the CTA's rank in its pair (%cluster_ctarank & 1),
  /// pairIndex = %cluster_ctarank / 2 and leaderRank the pair's even rank.
  bool quad = config.clusterPairs == 2;
  llvm::Value *pairIndex = nullptr, *leaderRank = nullptr;
  /// Split-K (config.splitK > 1): the workspace and counters, the current
  /// unit's tile id and split, its first K tile and K tile count (without
  /// split-K: 0 and numK), the shared flag word of the reduction, and a
  /// per-role counter of ring positions consumed (each unit takes its own
  /// count, so the position is a running sum, not i * numK).
  bool split = config.splitK > 1;
  llvm::Value *splitIndex = nullptr;
  llvm::AllocaInst *ringCount = nullptr;
  /// Batched (config.batch): the batch count (a parameter; C's batch
  /// stride is strideC), and the current unit's batch z (forTiles).
  bool batched = config.batch.has_value();
  llvm::Value *batchCount = nullptr, *batchZ = nullptr;

  Builder(const Sm100GemmConfig &config, Sm100OperandTile tileA,
          Sm100OperandTile tileB, uint32_t idesc, llvm::Module &module)
      : WarpSpecKernelBuilder(module, config.stages), config(config),
        tileA(std::move(tileA)), tileB(std::move(tileB)), idesc(idesc) {}

  /// The accumulator-full mbarrier of buffer \p buf (one tcgen05.commit
  /// per tile) and its accumulator-empty mbarrier (an arrival from each
  /// epilogue thread once its tcgen05.ld of the buffer are done).
  llvm::Value *accFullBar(llvm::Value *buf) {
    return b.CreateAdd(accBarBase, b.CreateMul(buf, i32(8)));
  }
  llvm::Value *accEmptyBar(llvm::Value *buf) {
    return b.CreateAdd(accBarBase,
                       b.CreateMul(b.CreateAdd(buf, i32(buffers)), i32(8)));
  }

  /// `barrier.sync 0;`: the CTA's barrier without .aligned, so that warps
  /// whose elected thread took a longer path may arrive divergent.
  void ctaBarrier() {
    ptx::emitAsm(b, b.getVoidTy(), "barrier.sync 0;", "~{memory}", {});
  }

  /// The barrier of the thread synchronization in the canonical tcgen05
  /// patterns: the CTA's, or for a pair the cluster's
  /// (barrier.cluster.arrive.release + wait.acquire, every thread of both
  /// CTAs; not .aligned, for the same reason as ctaBarrier).
  void pairOrCtaBarrier() {
    if (pair)
      ptx::clusterSync(b);
    else
      ctaBarrier();
  }

  /// The shared::cluster address of this CTA's barrier offset \p bar in
  /// the leader of the pair (rank 0; under cluster(4) rank & ~1).
  llvm::Value *leaderBar(llvm::Value *bar) {
    return ptx::mapaShared(b, bar, quad ? leaderRank : i32(0));
  }

  /// kt = 0 .. numK - 1 around \p body(kt, slot, parity) of the ring; the
  /// ring's position continues from \p base (the K tiles of the CTA's
  /// earlier tiles), so its phases run on across tiles.
  void forK(const llvm::Twine &name, llvm::Value *base,
            const std::function<void(llvm::Value *kt, llvm::Value *slot,
                                     llvm::Value *parity)> &body) {
    loop(name, i32(0), kCount, i32(1),
         [&](llvm::Value *kt, llvm::BasicBlock *next) {
           auto [slot, parity] = ringSlot(b.CreateAdd(base, kt, "it"));
           body(kt, slot, parity);
           b.CreateBr(next);
         });
  }

  /// The CTA's tiles: t = ctaid.x, ctaid.x + nctaid.x, ... below tilesM x
  /// tilesN, in the grouped order (codegen/TileOrder.h). Sets m0 and n0 for
  /// \p body(i) with i = (t - ctaid.x) / nctaid.x, the CTA's own count of
  /// tiles; then continues at \p exit. Every role walks the same sequence.
  void forTiles(const llvm::Twine &name, llvm::BasicBlock *exit,
                const std::function<void(llvm::Value *i)> &body) {
    // A pair walks the tiles as one: its cluster's index and count.
    llvm::Value *first =
        b.CreateIntrinsic(pair ? llvm::Intrinsic::nvvm_read_ptx_sreg_clusterid_x
                               : llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
                          {});
    llvm::Value *stride = b.CreateIntrinsic(
        pair ? llvm::Intrinsic::nvvm_read_ptx_sreg_nclusterid_x
             : llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x,
        {});
    llvm::Value *units = b.CreateMul(tilesM, tilesN, "tiles");
    if (split)
      units = b.CreateMul(units, i32(config.splitK), "units");
    // Batched: batch x the units of one GEMM (the launcher keeps the
    // product below 2^31).
    llvm::Value *perBatch = units;
    if (batched)
      units = b.CreateMul(perBatch, batchCount, "batchUnits");
    loop(name, first, units, stride,
         [&](llvm::Value *u, llvm::BasicBlock *next) {
           // Batched: unit u is unit u % perBatch of batch u / perBatch.
           llvm::Value *t = u;
           if (batched) {
             batchZ = b.CreateUDiv(u, perBatch, "batchZ");
             t = b.CreateURem(u, perBatch, "batchUnit");
           }
           // Split-K: unit t is split t % S of tile t / S, K tiles
           // [numK z / S, numK (z + 1) / S) (never empty when S <= numK).
           kBegin = i32(0);
           kCount = numK;
           if (split) {
             llvm::Value *unit = t;
             t = b.CreateUDiv(unit, i32(config.splitK), "tileId");
             splitIndex = b.CreateURem(unit, i32(config.splitK), "split");
             // numK z in 64 bits: numK * S may pass 2^32 for a huge K.
             auto bound = [&](llvm::Value *z, const char *name) {
               llvm::Type *i64 = b.getInt64Ty();
               return b.CreateTrunc(
                   b.CreateUDiv(b.CreateMul(b.CreateZExt(numK, i64),
                                            b.CreateZExt(z, i64)),
                                b.getInt64(config.splitK)),
                   b.getInt32Ty(), name);
             };
             kBegin = bound(splitIndex, "kBegin");
             llvm::Value *kEnd = bound(b.CreateAdd(splitIndex, i32(1)), "kEnd");
             kCount = b.CreateSub(kEnd, kBegin, "kCount");
           }
           tileId = t;
           TilePosition tile =
               emitGroupedTile(b, t, tilesM, tilesN, config.groupM);
           // cluster(4): a tile row of the walk is two pairs' tiles.
           llvm::Value *row = tile.row;
           if (quad)
             row = b.CreateAdd(b.CreateShl(row, i32(1)), pairIndex);
           m0 = b.CreateMul(row, i32(config.bm), "m0");
           n0 = b.CreateMul(tile.col, i32(config.bn), "n0");
           body(b.CreateUDiv(b.CreateSub(u, first), stride, "i"));
           b.CreateBr(next);
         });
    b.CreateBr(exit);
  }

  /// The ring position where the CTA's tile (unit) \p i starts: i * numK,
  /// or with split-K the running count of the role's earlier units.
  llvm::Value *ringBase(llvm::Value *i) {
    if (!split)
      return b.CreateMul(i, numK);
    return b.CreateLoad(b.getInt32Ty(), ringCount, "ringBase");
  }
  /// Split-K: the unit starting at \p base took kCount positions.
  void advanceRing(llvm::Value *base) {
    if (split)
      b.CreateStore(b.CreateAdd(base, kCount), ringCount);
  }
  /// Split-K: a role's ring count starts at 0.
  void resetRing() {
    if (split)
      b.CreateStore(i32(0), ringCount);
  }

  /// Buffer of the CTA's tile \p i and the parity of its use: i % buffers
  /// and (i / buffers) & 1.
  std::pair<llvm::Value *, llvm::Value *> accumulator(llvm::Value *i) {
    return {b.CreateURem(i, i32(buffers), "buf"),
            b.CreateAnd(b.CreateUDiv(i, i32(buffers)), i32(1), "accParity")};
  }

  void createFunction() {
    std::vector<KernelParam> params = sm100KernelParams(
        config.epilogueOps, config.splitK, batched, staging.has_value());
    // One CTA per SM (the persistent grid's ctasPerSm): without it ptxas
    // aims at a higher occupancy than shared memory allows and spills the
    // epilogue ops' temporaries to local memory (.minnctapersm 1 gives
    // them the registers; the SASS test checks for STL/LDL).
    llvm::StringMap<llvm::Value *> byName =
        declareKernel(config.name, params, BlockThreads, 1);
    if (batched)
      batchCount = byName.lookup("batch");
  }

  void emitPrologue() {
    b.SetInsertPoint(block("entry"));
    ptx::gridDependentsLaunch(b);
    tid = b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {});
    warp = b.CreateLShr(tid, i32(5), "warp");
    if (pair)
      rank = b.CreateIntrinsic(
          llvm::Intrinsic::nvvm_read_ptx_sreg_cluster_ctarank, {}, {}, "rank");
    if (quad) {
      pairIndex = b.CreateLShr(rank, i32(1), "pairIndex");
      leaderRank = b.CreateAnd(rank, i32(~1u), "leaderRank");
      rank = b.CreateAnd(rank, i32(1), "pairRank");
    }
    // cluster(4) walks rows of two pair tiles (2 BM rows of C); the second
    // pair's tile may lie past M: it loads zeros (TMA fills out-of-bounds
    // boxes and still completes their bytes), multicasts its share of B to
    // the first pair, and stores nothing.
    unsigned walkRows = config.bm * config.clusterPairs;
    tilesM = countOf(rowsA, walkRows, "tilesM");
    tilesN = countOf(rowsB, config.bn, "tilesN");
    numK = countOf(k, config.bk, "numK");
    if (split)
      ringCount = b.CreateAlloca(b.getInt32Ty(), nullptr, "ring");

    // [A ring][B ring][full][empty][acc full][acc empty][TMEM address], from
    // a base aligned for SW128 atoms.
    aBase = alignedSmemBase("aBase");
    bBase =
        b.CreateAdd(aBase, i32(config.stages * tileA.staged.bytes), "bBase");
    if (staging) {
      // [staging buffers] after the ring, 1024-byte aligned.
      stagingBase =
          b.CreateAdd(aBase, i32(sm100StagingOffset(config)), "staging");
      barBase = b.CreateAdd(stagingBase, i32(staging->buffers * staging->bytes),
                            "barBase");
    } else {
      barBase = b.CreateAdd(bBase, i32(config.stages * tileB.staged.bytes),
                            "barBase");
    }
    accBarBase = b.CreateAdd(barBase, i32(16 * config.stages), "accBars");
    tmemSlot = b.CreateAdd(accBarBase, i32(16 * buffers), "tmemSlot");
    // The TMEM address word's 8-byte slot holds the split-K flag after it.
    if (split)
      flagAddr = b.CreateAdd(tmemSlot, i32(4), "splitFlag");

    llvm::BasicBlock *init = block("init");
    llvm::BasicBlock *alloc = block("tmem.alloc");
    llvm::BasicBlock *sync = block("sync");
    b.CreateCondBr(b.CreateICmpEQ(tid, i32(0)), init, alloc);
    b.SetInsertPoint(init);
    for (unsigned s = 0; s < config.stages; ++s) {
      ptx::mbarrierInit(b, fullBar(i32(s)), 1); // the producer's arrive
      // One tcgen05.commit, or under cluster(4) one from each pair's
      // leader: the other pair's multicast writes this CTA's B slot too.
      ptx::mbarrierInit(b, emptyBar(i32(s)), config.clusterPairs);
    }
    for (unsigned buf = 0; buf < buffers; ++buf) {
      ptx::mbarrierInit(b, accFullBar(i32(buf)), 1); // one tcgen05.commit
      // A pair's epilogue threads of both CTAs arrive on the leader's.
      ptx::mbarrierInit(b, accEmptyBar(i32(buf)),
                        32 * EpilogueWarps * config.ctaGroup);
    }
    ptx::fenceBarrierInit(b);
    b.CreateBr(alloc);
    b.SetInsertPoint(alloc);
    // A pair: the peer's barriers are initialized (fence.mbarrier_init
    // .release.cluster, then the cluster barrier) before either CTA's TMA,
    // commit or arrive can reach them.
    if (pair)
      ptx::clusterSync(b);
    // The MMA warp allocates the accumulators' columns (the whole warp) and
    // gives up its permit to allocate more (PTX ISA 9.7.16.7.1). With
    // cta_group::2 the MMA warp of each CTA of the pair executes both, and
    // the same columns are allocated in both CTAs' tensor memory.
    llvm::BasicBlock *allocWarp = block("tmem.alloc.warp");
    b.CreateCondBr(b.CreateICmpEQ(warp, i32(MmaWarp)), allocWarp, sync);
    b.SetInsertPoint(allocWarp);
    ptx::tcgen05Alloc(b, tmemSlot, sm100TmemAllocColumns(config),
                      config.ctaGroup);
    ptx::tcgen05RelinquishAllocPermit(b, config.ctaGroup);
    b.CreateBr(sync);
    b.SetInsertPoint(sync);
    // The address handoff (PTX ISA 9.7.16.6.4, canonical synchronization
    // patterns): fence::before_thread_sync, the CTA barrier, then
    // fence::after_thread_sync before any thread reads the address. A pair
    // synchronizes the cluster instead: the leader's MMAs write the peer's
    // tensor memory, which must be allocated before the first of them.
    ptx::tcgen05FenceBeforeThreadSync(b);
    pairOrCtaBarrier();
    ptx::tcgen05FenceAfterThreadSync(b);
    tmemBase = ptx::emitAsm(b, b.getInt32Ty(), "ld.shared.u32 $0, [$1];",
                            "=r,r,~{memory}", {tmemSlot});
  }

  /// The batch coordinate of the tensor in MMA role A (\p roleA) or B:
  /// the unit's batch, or null when the kernel is not batched or the
  /// tensor is broadcast (its map stays rank 2). Under swap-AB role A is
  /// the user's b.
  llvm::Value *batchOfRole(bool roleA) {
    if (!batched)
      return nullptr;
    bool tensorA = roleA != config.swapAB;
    return (tensorA ? config.batch->aBatched : config.batch->bBatched)
               ? batchZ
               : nullptr;
  }

  /// This CTA's first row of A and of B in the tile at (m0, n0): the
  /// tile's own, or for a pair the rank's half (128 rows of A, BN / 2 of
  /// B).
  llvm::Value *ctaRow(llvm::Value *origin, char operand) {
    if (!pair)
      return origin;
    return b.CreateAdd(origin,
                       b.CreateMul(rank, i32(sm100CtaRows(config, operand))),
                       operand == 'a' ? "aRow" : "bRow");
  }

  /// cluster(4): this CTA's share of the B rows its pair's slot holds,
  /// BN / 4 of them (the map's box, sm100GemmBinary), multicast to the
  /// same slot offset in this CTA and its counterpart of the other pair
  /// (mask 0b0101 << pair rank): CTAs of equal pair rank stage the same
  /// BN / 2 rows n0 + BN / 2 rank. For each destination the bytes
  /// complete on its pair leader's full barrier (\p bar is this pair's
  /// leader's; PTX ISA, cp.async.bulk.tensor, .cta_group::2 with
  /// .multicast::cluster), so each leader still counts its pair's 2 x the
  /// stage bytes, half of B's from the other pair's loads.
  void loadSharedB(llvm::Value *dst, llvm::Value *kc, llvm::Value *bar) {
    unsigned quarter = config.bn / 4;
    unsigned half = tileB.staged.bytes / 2;
    llvm::Value *row = b.CreateAdd(
        ctaRow(n0, 'b'), b.CreateMul(pairIndex, i32(quarter)), "bQuarter");
    llvm::Value *to = b.CreateAdd(dst, b.CreateMul(pairIndex, i32(half)));
    llvm::Value *mask =
        b.CreateTrunc(b.CreateShl(i32(0x5), rank), b.getInt16Ty(), "bMask");
    ptx::tmaLoad2dCtaPairMulticast(b, to, tmapB, kc, row, bar, mask);
  }

  /// cluster(4)'s commit masks: a slot's empty barrier in all four CTAs
  /// (\p slot; each CTA's B slot is written by both pairs' loads, so it
  /// may be refilled once both pairs' MMAs have read it: count 2), an
  /// accumulator-full barrier in the pair's two CTAs only. Null for a
  /// single pair (mask 0b11).
  llvm::Value *quadCommitMask(bool slot) {
    if (!quad)
      return nullptr;
    if (slot)
      return b.getInt16(0xF);
    return b.CreateTrunc(b.CreateShl(i32(0x3), leaderRank), b.getInt16Ty(),
                         "pairMask");
  }

  /// The pair's producer tail: waits, for each ring slot, until the MMAs'
  /// last multicast commit has arrived on it, so that no arrival from the
  /// leader is still in flight to this CTA's shared memory when it exits
  /// (the ring positions after the CTA's last, as if loading on).
  void emitProducerTail(llvm::BasicBlock *exit) {
    llvm::Value *first =
        b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_clusterid_x, {});
    llvm::Value *stride =
        b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_nclusterid_x, {});
    llvm::Value *tiles = b.CreateMul(tilesM, tilesN);
    if (batched)
      tiles = b.CreateMul(tiles, batchCount);
    // The pair's tile count: ceil((tiles - first) / stride), 0 past the end.
    llvm::Value *mine = b.CreateSelect(
        b.CreateICmpULT(first, tiles),
        b.CreateAdd(b.CreateUDiv(b.CreateSub(b.CreateSub(tiles, first), i32(1)),
                                 stride),
                    i32(1)),
        i32(0), "pairTiles");
    llvm::Value *base = b.CreateMul(mine, numK, "ringEnd");
    for (unsigned j = 0; j < config.stages; ++j) {
      auto [slot, parity] = ringSlot(b.CreateAdd(base, i32(j)));
      ptx::mbarrierWaitParity(b, emptyBar(slot), b.CreateXor(parity, i32(1)),
                              "wait.tail");
    }
    b.CreateBr(exit);
  }

  /// Branches to a block run by one elected thread of the warp; the other
  /// threads go to \p exit.
  void electOne(const llvm::Twine &name, llvm::BasicBlock *exit) {
    llvm::BasicBlock *elected = block(name);
    b.CreateCondBr(b.CreateICmpNE(ptx::electSync(b), i32(0)), elected, exit);
    b.SetInsertPoint(elected);
  }

  void emitProducer(llvm::BasicBlock *exit) {
    electOne("producer.elected", exit);
    ptx::prefetchTensorMap(b, tmapA);
    ptx::prefetchTensorMap(b, tmapB);
    // Under a programmatic dependent launch the previous kernel may still
    // be writing A or B.
    ptx::gridDependencyWait(b);
    const TmaOperandTile &a = tileA.staged, &bt = tileB.staged;
    llvm::BasicBlock *tail = pair ? block("produce.tail") : exit;
    resetRing();
    forTiles("produce.tile", tail, [&](llvm::Value *i) {
      llvm::Value *base = ringBase(i);
      forK("produce", base,
           [&](llvm::Value *kt, llvm::Value *slot, llvm::Value *parity) {
             // A fresh barrier counts as having completed the phase before
             // phase 0, so the first pass over the ring waits on parity 1 and
             // passes.
             ptx::mbarrierWaitParity(b, emptyBar(slot),
                                     b.CreateXor(parity, i32(1)), "wait.empty");
             llvm::Value *full = fullBar(slot);
             if (!pair) {
               ptx::mbarrierArriveExpectTx(b, full, i32(a.bytes + bt.bytes));
             } else {
               // The leader arms its full barrier with both CTAs' bytes;
               // the peer's loads complete on it too (the leader's MMA
               // thread is the only one that waits for the slot). The
               // peer may reach the slot first: its complete_tx then
               // lands before the arrival, which the phase awaits.
               llvm::BasicBlock *arm = block("produce.arm");
               llvm::BasicBlock *load = block("produce.load");
               b.CreateCondBr(b.CreateICmpEQ(rank, i32(0)), arm, load);
               b.SetInsertPoint(arm);
               ptx::mbarrierArriveExpectTx(b, full,
                                           i32(2 * (a.bytes + bt.bytes)));
               b.CreateBr(load);
               b.SetInsertPoint(load);
               full = leaderBar(full);
             }
             llvm::Value *kc = b.CreateMul(split ? b.CreateAdd(kBegin, kt) : kt,
                                           i32(config.bk));
             lines->at(KernelPart::SmemA);
             loadTile(a, b.CreateAdd(aBase, b.CreateMul(slot, i32(a.bytes))),
                      tmapA, kc, ctaRow(m0, 'a'), full, batchOfRole(true),
                      pair);
             lines->at(KernelPart::SmemB);
             llvm::Value *bDst =
                 b.CreateAdd(bBase, b.CreateMul(slot, i32(bt.bytes)));
             if (quad)
               loadSharedB(bDst, kc, full);
             else
               loadTile(bt, bDst, tmapB, kc, ctaRow(n0, 'b'), full,
                        batchOfRole(false), pair);
             lines->at(KernelPart::Kernel);
           });
      advanceRing(base);
    });
    if (pair) {
      b.SetInsertPoint(tail);
      emitProducerTail(exit);
    }
  }

  /// The sm_100 descriptor of \p tile at shared offset \p address: the
  /// derived high bits or'ed with (address >> 4) in the start-address field.
  llvm::Value *descriptor(const Sm100OperandTile &tile, llvm::Value *address) {
    llvm::Value *low =
        b.CreateZExt(b.CreateAnd(b.CreateLShr(address, i32(4)), i32(0x3FFF)),
                     b.getInt64Ty());
    return b.CreateOr(low, b.getInt64(tile.descriptorHigh));
  }

  /// tcgen05.commit of the MMAs issued so far to \p bar: this CTA's, or
  /// for a pair multicast to the barrier at the same offset in both CTAs
  /// (mask 0b11), since both CTAs' slots are read and both CTAs' D written.
  /// Under cluster(4) \p mask is the CTAs to signal (quadCommitMask).
  void commit(llvm::Value *bar, llvm::Value *mask = nullptr) {
    if (pair)
      ptx::tcgen05CommitMulticast(b, bar, mask ? mask : b.getInt16(0x3));
    else
      ptx::tcgen05Commit(b, bar);
  }

  void emitMma(llvm::BasicBlock *exit) {
    // A pair's MMAs are issued by the leader (even rank) alone; the peer's
    // MMA warp only allocates and frees its tensor memory.
    if (pair) {
      llvm::BasicBlock *leader = block("mma.leader");
      b.CreateCondBr(b.CreateICmpEQ(rank, i32(0)), leader, exit);
      b.SetInsertPoint(leader);
    }
    electOne("mma.elected", exit);
    llvm::StringRef kind =
        mmaKindName(llvm::cantFail(mmaKindOf(config.aType, config.bType)));
    unsigned steps = config.bk / sm100MmaK(config.aType);
    llvm::Value *idescValue = i32(idesc);
    resetRing();
    forTiles("mma.tile", exit, [&](llvm::Value *i) {
      // The buffer is free once the epilogue of the tile that used it last
      // has read it: each epilogue thread waited for its tcgen05.ld, fenced
      // (tcgen05.fence::before_thread_sync) and arrived; this thread waits
      // and fences after (PTX ISA 9.7.16.6.4, canonical synchronization
      // patterns). A fresh mbarrier passes parity 1, so the first use of each
      // buffer does not wait.
      auto [buf, accParity] = accumulator(i);
      ptx::mbarrierWaitParity(b, accEmptyBar(buf),
                              b.CreateXor(accParity, i32(1)), "wait.acc.empty");
      ptx::tcgen05FenceAfterThreadSync(b);
      llvm::Value *d =
          b.CreateAdd(tmemBase, b.CreateMul(buf, i32(columns)), "d");
      llvm::Value *base = ringBase(i);
      forK("mma", base,
           [&](llvm::Value *kt, llvm::Value *slot, llvm::Value *parity) {
             ptx::mbarrierWaitParity(b, fullBar(slot), parity, "wait.full");
             ptx::tcgen05FenceAfterThreadSync(b);
             llvm::Value *aSlot =
                 b.CreateAdd(aBase, b.CreateMul(slot, i32(tileA.staged.bytes)));
             llvm::Value *bSlot =
                 b.CreateAdd(bBase, b.CreateMul(slot, i32(tileB.staged.bytes)));
             lines->at(KernelPart::Mma);
             for (unsigned kk = 0; kk < steps; ++kk) {
               llvm::Value *descA = descriptor(
                   tileA, b.CreateAdd(aSlot, i32(kk * tileA.kStepBytes)));
               llvm::Value *descB = descriptor(
                   tileB, b.CreateAdd(bSlot, i32(kk * tileB.kStepBytes)));
               // The tile's first MMA overwrites D; every later one
               // accumulates.
               llvm::Value *accumulate =
                   kk ? i32(1)
                      : b.CreateZExt(b.CreateICmpNE(kt, i32(0)),
                                     b.getInt32Ty());
               ptx::tcgen05Mma(b, kind, d, descA, descB, idescValue, accumulate,
                               config.ctaGroup);
             }
             // The slot is free once these MMAs have read it.
             commit(emptyBar(slot), quadCommitMask(true));
             lines->at(KernelPart::Kernel);
           });
      advanceRing(base);
      // Every MMA of the tile has completed: D is final.
      commit(accFullBar(buf), quadCommitMask(false));
    });
  }

  void emitExit(llvm::BasicBlock *exit) {
    b.SetInsertPoint(exit);
    // Every tcgen05.ld (waited) and MMA (committed and waited on) is done;
    // the MMA warp frees the columns after the barrier.
    // A pair synchronizes the cluster: no CTA frees its tensor memory or
    // exits while the leader's MMAs, commits or the peer's arrivals may
    // still reach the other's memory.
    ptx::tcgen05FenceBeforeThreadSync(b);
    pairOrCtaBarrier();
    llvm::BasicBlock *dealloc = block("tmem.dealloc");
    llvm::BasicBlock *done = block("done");
    b.CreateCondBr(b.CreateICmpEQ(warp, i32(MmaWarp)), dealloc, done);
    b.SetInsertPoint(dealloc);
    ptx::tcgen05FenceAfterThreadSync(b);
    ptx::tcgen05Dealloc(b, tmemBase, sm100TmemAllocColumns(config),
                        config.ctaGroup);
    b.CreateBr(done);
    b.SetInsertPoint(done);
    b.CreateRetVoid();
  }

  void build() {
    createFunction();
    lines.emplace(*fn, config.source, b);
    emitPrologue();
    llvm::BasicBlock *epilogue = block("epilogue");
    llvm::BasicBlock *roles = block("roles");
    llvm::BasicBlock *producer = block("producer");
    llvm::BasicBlock *mma = block("mma");
    llvm::BasicBlock *exit = block("exit");
    b.CreateCondBr(b.CreateICmpULT(warp, i32(EpilogueWarps)), epilogue, roles);
    b.SetInsertPoint(roles);
    b.CreateCondBr(b.CreateICmpEQ(warp, i32(ProducerWarp)), producer, mma);
    b.SetInsertPoint(producer);
    emitProducer(exit);
    b.SetInsertPoint(mma);
    emitMma(exit);
    b.SetInsertPoint(epilogue);
    // The epilogue writes C, which the previous kernel may still access.
    ptx::gridDependencyWait(b);
    // The staged epilogue drains its TMA stores before the exit.
    llvm::BasicBlock *epilogueDone = staging ? block("epilogue.drain") : exit;
    forTiles("epilogue.tile", epilogueDone, [&](llvm::Value *i) {
      auto [buf, accParity] = accumulator(i);
      Sm100EpilogueValues values;
      values.fn = fn;
      values.tid = tid;
      values.m0 = ctaRow(m0, 'a');
      values.n0 = n0;
      values.c = c;
      if (batched) // Batch z's C: C + z * strideC, a 64-bit offset.
        values.c = b.CreateInBoundsGEP(
            b.getInt8Ty(), c,
            b.CreateMul(
                b.CreateMul(b.CreateZExt(batchZ, b.getInt64Ty()), strideC),
                b.getInt64(dtypeBits(config.cType) / 8)),
            "c.batch");
      values.ldc = ldc;
      values.rowsA = rowsA;
      values.rowsB = rowsB;
      values.alpha = alpha;
      values.beta = beta;
      values.numK = kCount;
      values.swapAB = config.swapAB;
      if (split) {
        values.workspace = workspace;
        values.counters = counters;
        values.tileId = tileId;
        values.split = splitIndex;
        values.flagAddr = flagAddr;
      }
      values.tmemBase =
          b.CreateAdd(tmemBase, b.CreateMul(buf, i32(columns)), "accTmem");
      values.accFullBar = accFullBar(buf);
      // A pair hands the buffer back on the leader's barrier.
      values.accEmptyBar =
          pair ? leaderBar(accEmptyBar(buf)) : accEmptyBar(buf);
      values.accEmptyCluster = pair;
      values.accParity = accParity;
      if (staging) {
        values.tmapC = tmapC;
        values.storeTma = storeTma;
        values.staging = stagingBase;
      }
      lines->at(KernelPart::Epilogue);
      llvm::BasicBlock *stored = block("epilogue.tile.stored");
      emitSm100Epilogue(b, config, staging, values, stored);
      b.SetInsertPoint(stored);
      lines->at(KernelPart::Kernel);
    });
    if (staging) {
      b.SetInsertPoint(epilogueDone);
      emitSm100StagedDrain(b, tid, exit);
    }
    emitExit(exit);
    lines->finish();
  }
};

/// The operand tiles and the instruction descriptor of a verified config.
struct Sm100Parts {
  Sm100OperandTile a, b;
  uint32_t idesc = 0;
};

llvm::Expected<Sm100Parts> buildSm100Module(const Sm100GemmConfig &config,
                                            llvm::Module &module,
                                            Sm100ConfigVerified verified) {
  if (verified == Sm100ConfigVerified::No)
    if (llvm::Error err = verifySm100GemmConfig(config))
      return err;
  if (llvm::Error err = configureModuleForArch(module, ArchKind::SM100a))
    return err;
  unsigned rowsA = sm100CtaRows(config, 'a'), rowsB = sm100CtaRows(config, 'b');
  auto a =
      sm100OperandTile(rowsA, config.bk, config.aType, config.aMajor, rowsA);
  if (!a)
    return a.takeError();
  auto bt =
      sm100OperandTile(rowsB, config.bk, config.bType, config.bMajor, rowsB);
  if (!bt)
    return bt.takeError();
  auto idesc = sm100InstrDescriptor(config);
  if (!idesc)
    return idesc.takeError();
  auto staging = sm100EpilogueTile(config);
  if (!staging)
    return staging.takeError();
  Builder builder(config, *a, *bt, *idesc, module);
  builder.staging = *staging;
  builder.build();
  return Sm100Parts{std::move(*a), std::move(*bt), *idesc};
}

} // namespace

std::vector<KernelParam> sm100KernelParams(llvm::ArrayRef<EpilogueOp> ops,
                                           unsigned splitK, bool batched,
                                           bool staged) {
  using P = KernelParam;
  std::vector<KernelParam> params = tmaGemmLeadingParams(staged);
  if (splitK > 1) {
    params.push_back({"workspace", P::Pointer});
    params.push_back({"counters", P::Pointer});
  }
  if (staged)
    params.push_back({"storeTma", P::I32});
  for (KernelParam &param : epilogueParams(ops))
    params.push_back(std::move(param));
  // A and B's batch strides live in their tensor maps.
  if (batched)
    params.insert(params.end(), {{"batch", P::I32}, {"strideC", P::I64}});
  return params;
}

llvm::Expected<Sm100GemmKernel> emitSm100Gemm(const Sm100GemmConfig &config,
                                              Sm100ConfigVerified verified) {
  Sm100GemmKernel kernel;
  auto ptxText = kernelPtx(
      config.name, ArchKind::SM100a, [&](llvm::Module &module) -> llvm::Error {
        auto parts = buildSm100Module(config, module, verified);
        if (!parts)
          return parts.takeError();
        kernel.a = std::move(parts->a);
        kernel.b = std::move(parts->b);
        kernel.idesc = parts->idesc;
        return llvm::Error::success();
      });
  if (!ptxText)
    return ptxText.takeError();
  kernel.ptx = std::move(*ptxText);
  kernel.entry = config.name;
  kernel.blockThreads = BlockThreads;
  kernel.sharedBytes = sm100SharedBytes(config);
  kernel.config = config;
  return kernel;
}

llvm::Expected<std::string> emitSm100GemmLlvmIr(const Sm100GemmConfig &config,
                                                Sm100ConfigVerified verified) {
  return kernelLlvmIr(config.name, [&](llvm::Module &module) {
    return buildSm100Module(config, module, verified).takeError();
  });
}

} // namespace tilec
