//===- codegen/Sm90SplitReduce.cpp - sm_90a split-K reductions -----------===//
#include "codegen/Sm90SplitReduce.h"

#include "codegen/PtxInlineAsm.h"
#include "codegen/Sm90Limits.h"
#include "codegen/SplitKArrival.h"
#include "codegen/SplitKSum.h"

using namespace tilec;
using namespace tilec::sm90;

namespace {

struct Reducer {
  llvm::IRBuilder<> &b;
  const Sm90GemmConfig &config;
  const Sm90SplitReduceValues &v;
  /// The staging tile (the scatter's shares follow its chunks); null for
  /// the whole-tile reductions.
  const std::optional<EpilogueStagingTile> *staging = nullptr;
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  llvm::LLVMContext &ctx = b.getContext();
  unsigned consumers = config.bm / 64;

  llvm::BasicBlock *block(const llvm::Twine &name) {
    return llvm::BasicBlock::Create(ctx, name, fn);
  }
  llvm::Value *i32(uint32_t value) { return b.getInt32(value); }

  /// Split-K: publish this CTA's partial tile, and in the CTA that arrives
  /// last, return the sum of all partials (others branch to \p exit).
  llvm::SmallVector<llvm::Value *>
  emitSplitReduce(llvm::ArrayRef<llvm::Value *> acc, llvm::BasicBlock *exit) {
    unsigned threads = 128 * consumers;
    unsigned regs = acc.size();
    llvm::Type *i64 = b.getInt64Ty();
    llvm::Type *f32 = b.getFloatTy();
    auto *v4 = llvm::FixedVectorType::get(f32, 4);
    llvm::Value *ctid = b.CreateSub(v.tid, i32(128), "ctid");
    llvm::Value *tileFloats = b.getInt64(uint64_t(config.bm) * config.bn);
    auto partialBase = [&](llvm::Value *z) {
      llvm::Value *slab = b.CreateAdd(
          b.CreateMul(b.CreateZExt(v.tileId, i64), b.CreateZExt(v.splits, i64)),
          b.CreateZExt(z, i64));
      return b.CreateAdd(b.CreateMul(slab, tileFloats),
                         b.CreateMul(b.CreateZExt(ctid, i64), b.getInt64(4)));
    };
    // Fragment order: float4 r4 of thread t at (r4 * threads + t) * 4, so a
    // warp's 16-byte stores are contiguous.
    llvm::Value *mine = partialBase(v.split);
    for (unsigned r4 = 0; r4 < regs / 4; ++r4) {
      llvm::Value *vec = llvm::PoisonValue::get(v4);
      for (unsigned e = 0; e < 4; ++e)
        vec = b.CreateInsertElement(vec, acc[4 * r4 + e], uint64_t(e));
      llvm::Value *at =
          b.CreateAdd(mine, b.getInt64(uint64_t(r4) * threads * 4));
      b.CreateAlignedStore(vec, b.CreateInBoundsGEP(f32, v.workspace, at),
                           llvm::Align(16));
    }
    SplitKArrival arrival;
    arrival.counters = v.counters;
    arrival.tileId = v.tileId;
    arrival.splits = v.splits;
    arrival.flagAddr = v.flagAddr;
    arrival.tid = v.tid;
    arrival.leaderTid = 128;
    arrival.barrier = i32(SplitKBarrier);
    arrival.threads = threads;
    emitSplitKArrival(b, fn, arrival, exit);
    return emitSplitKSum(
        b, v.splits,
        llvm::SmallVector<llvm::Value *>(regs, llvm::ConstantFP::get(f32, 0.0)),
        0, [&](llvm::Value *zu, llvm::Value *valid) {
          llvm::Value *base = partialBase(zu);
          llvm::Value *on = b.CreateZExt(valid, b.getInt32Ty());
          llvm::SmallVector<llvm::Value *> quads;
          for (unsigned r4 = 0; r4 < regs / 4; ++r4) {
            llvm::Value *at =
                b.CreateAdd(base, b.getInt64(uint64_t(r4) * threads * 4));
            llvm::Value *address = b.CreateInBoundsGEP(f32, v.workspace, at);
            // .cg: read at L2, where the other CTAs' stores are.
            quads.push_back(ptx::emitAsm(
                b, llvm::StructType::get(ctx, {f32, f32, f32, f32}),
                "{ .reg .pred p; setp.ne.u32 p, $5, 0; @p ld.global.cg.v4.f32 "
                "{$0, $1, $2, $3}, [$4]; }",
                "=f,=f,=f,=f,l,r,~{memory}", {address, on}));
          }
          return quads;
        });
  }

  /// Split-K in a cluster (Sm90Gemm.h): the CTAs of v.rank 1.. publish their
  /// partial \p acc in their ring, round 1 of the cluster barrier, and v.rank
  /// 0 returns the sum of its \p acc and the peers' partials; the others
  /// branch to \p exit, where round 2 waits for v.rank 0's reads.
  llvm::SmallVector<llvm::Value *>
  emitClusterSplitReduce(llvm::ArrayRef<llvm::Value *> acc,
                         llvm::BasicBlock *exit) {
    unsigned regs = acc.size();
    // Fragment order: float4 r4 of thread t at (r4 * threads + t) * 16
    // from the A ring's base, so a warp's 16-byte stores are contiguous
    // (conflict-free) and thread t of v.rank 0 reads its own fragment's
    // places in every peer.
    llvm::Value *ctid = b.CreateSub(v.tid, i32(128), "ctid");
    llvm::Value *mine =
        b.CreateAdd(v.aBase, b.CreateMul(ctid, i32(16)), "part");
    llvm::BasicBlock *publish = block("splitk.publish");
    llvm::BasicBlock *published = block("splitk.published");
    b.CreateCondBr(b.CreateICmpNE(v.rank, i32(0)), publish, published);
    b.SetInsertPoint(publish);
    publishPartial(acc, mine);
    b.CreateBr(published);
    b.SetInsertPoint(published);
    ptx::clusterSync(b); // round 1: the peers' partials are visible
    llvm::BasicBlock *reduce = block("splitk.reduce");
    b.CreateCondBr(b.CreateICmpEQ(v.rank, i32(0)), reduce, exit);
    b.SetInsertPoint(reduce);
    return emitSplitKSum(b, v.splits, acc, 1,
                         [&](llvm::Value *zu, llvm::Value *valid) {
                           return loadPeerPartial(mine, zu, valid, 0, regs / 4);
                         });
  }

  /// This thread's fragment \p acc into its places from \p mine in the
  /// ring (emitClusterSplitReduce's order), once every consumer
  /// warpgroup's wgmmas have retired (they read the ring).
  void publishPartial(llvm::ArrayRef<llvm::Value *> acc, llvm::Value *mine) {
    unsigned threads = 128 * consumers;
    ptx::barSync(b, i32(SplitKBarrier), threads);
    for (unsigned r4 = 0; r4 < acc.size() / 4; ++r4)
      ptx::stSharedV4F32(b, b.CreateAdd(mine, i32(r4 * threads * 16)),
                         acc.slice(4 * r4, 4));
  }

  /// Quads \p first .. \p end - 1 of this thread's fragment in the ring of
  /// cluster v.rank \p z (off where \p valid is false, past the last v.split,
  /// where v.rank 0 keeps mapa legal).
  llvm::SmallVector<llvm::Value *>
  loadPeerPartial(llvm::Value *mine, llvm::Value *z, llvm::Value *valid,
                  unsigned first, unsigned end) {
    llvm::Value *peer =
        ptx::mapaShared(b, mine, b.CreateSelect(valid, z, i32(0)));
    llvm::Value *on = b.CreateZExt(valid, b.getInt32Ty());
    llvm::SmallVector<llvm::Value *> quads;
    for (unsigned r4 = first; r4 < end; ++r4)
      quads.push_back(ptx::ldSharedClusterV4F32(
          b, b.CreateAdd(peer, i32(r4 * 128 * consumers * 16)), on));
    return quads;
  }

  /// Split-K in a cluster built for its S v.splits (clusterSplits): every
  /// CTA publishes its partial \p acc in its ring (the fragment order of
  /// emitClusterSplitReduce), round 1 of the cluster barrier, and CTA r
  /// sums partials 0 .. S-1 of its share of the tile's 8-column blocks
  /// (sm90SplitShares) from the rings of the cluster, its own included,
  /// in z order. Returns, per v.rank with a nonempty share, the block where
  /// that CTA goes on; an empty share branches to \p done. Round 2, at the
  /// exit, keeps every ring alive until the peers have read it. Against
  /// v.rank 0 summing and storing the whole tile, each CTA reads and stores
  /// 1/S of it.
  std::vector<Sm90SplitShare>
  emitClusterSplitScatter(llvm::ArrayRef<llvm::Value *> acc,
                          llvm::BasicBlock *done) {
    unsigned splitCount = config.clusterSplits;
    llvm::Value *ctid = b.CreateSub(v.tid, i32(128), "ctid");
    llvm::Value *mine =
        b.CreateAdd(v.aBase, b.CreateMul(ctid, i32(16)), "part");
    publishPartial(acc, mine);
    ptx::clusterSync(b); // round 1: every partial is visible
    std::vector<Sm90EpilogueBlocks> blocks =
        sm90SplitShares(config, *staging, splitCount);
    std::vector<Sm90SplitShare> shares;
    for (unsigned r = 0; r < splitCount; ++r) {
      llvm::BasicBlock *share = block("splitk.share");
      llvm::BasicBlock *next = nullptr;
      if (r + 1 < splitCount) {
        next = block("splitk.rank");
        b.CreateCondBr(b.CreateICmpEQ(v.rank, i32(r)), share, next);
      } else {
        b.CreateBr(share);
      }
      b.SetInsertPoint(share);
      auto [first, end] = blocks[r];
      if (first == end) {
        b.CreateBr(done);
      } else {
        llvm::SmallVector<llvm::Value *> zeros(
            4 * (end - first), llvm::ConstantFP::get(b.getFloatTy(), 0.0));
        llvm::SmallVector<llvm::Value *> sum = emitSplitKSum(
            b, v.splits, zeros, 0, [&](llvm::Value *zu, llvm::Value *valid) {
              return loadPeerPartial(mine, zu, valid, first, end);
            });
        Sm90SplitShare out{b.GetInsertBlock(),
                           llvm::SmallVector<llvm::Value *>(acc),
                           {first, end}};
        for (unsigned i = 0; i < sum.size(); ++i)
          out.acc[4 * first + i] = sum[i];
        shares.push_back(std::move(out));
      }
      if (next)
        b.SetInsertPoint(next);
    }
    return shares;
  }
};

} // namespace

llvm::SmallVector<llvm::Value *>
tilec::emitSm90SplitReduce(llvm::IRBuilder<> &b, const Sm90GemmConfig &config,
                           const Sm90SplitReduceValues &values,
                           llvm::ArrayRef<llvm::Value *> acc,
                           llvm::BasicBlock *exit) {
  return Reducer{b, config, values}.emitSplitReduce(acc, exit);
}

llvm::SmallVector<llvm::Value *> tilec::emitSm90ClusterSplitReduce(
    llvm::IRBuilder<> &b, const Sm90GemmConfig &config,
    const Sm90SplitReduceValues &values, llvm::ArrayRef<llvm::Value *> acc,
    llvm::BasicBlock *exit) {
  return Reducer{b, config, values}.emitClusterSplitReduce(acc, exit);
}

std::vector<Sm90SplitShare> tilec::emitSm90ClusterSplitScatter(
    llvm::IRBuilder<> &b, const Sm90GemmConfig &config,
    const std::optional<EpilogueStagingTile> &staging,
    const Sm90SplitReduceValues &values, llvm::ArrayRef<llvm::Value *> acc,
    llvm::BasicBlock *done) {
  return Reducer{b, config, values, &staging}.emitClusterSplitScatter(acc,
                                                                      done);
}
