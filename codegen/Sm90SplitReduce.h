//===- codegen/Sm90SplitReduce.h - sm_90a split-K reductions -*- C++ -*-===//
//
// The three ways the K splits of an sm_90a tile are summed after the K loop
// (codegen/Sm90Gemm.h, "Split-K" and "Split-K in a cluster"): through the
// global workspace and counters, the CTA that arrives last summing; in a
// 1x1xS cluster through distributed shared memory, rank 0 summing the whole
// tile; or, for a kernel built for its split count, every CTA of the
// cluster summing and storing its share of the tile. All add the partials
// in the fixed order z = 0 .. S-1 (codegen/SplitKSum.h). Private to
// codegen/Sm90Gemm.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM90SPLITREDUCE_H
#define TILEC_CODEGEN_SM90SPLITREDUCE_H

#include "codegen/Sm90Epilogue.h"
#include "codegen/Sm90Gemm.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"

#include <optional>
#include <vector>

namespace tilec {

/// The kernel values the reductions read.
struct Sm90SplitReduceValues {
  llvm::Value *tid = nullptr;   ///< threadIdx.x
  llvm::Value *aBase = nullptr; ///< the A ring's shared offset
  llvm::Value *rank = nullptr;  ///< the CTA's rank in its cluster
  llvm::Value *splits = nullptr, *split = nullptr; ///< nctaid.z, ctaid.z
  llvm::Value *tileId = nullptr; ///< the workspace's tile index
  llvm::Value *workspace = nullptr, *counters = nullptr;
  llvm::Value *flagAddr = nullptr; ///< the shared word of the arrival flag
};

/// Split-K through the workspace: publish this CTA's partial \p acc, and
/// in the CTA that arrives last return the sum of all partials (the
/// others branch to \p exit).
llvm::SmallVector<llvm::Value *>
emitSm90SplitReduce(llvm::IRBuilder<> &b, const Sm90GemmConfig &config,
                    const Sm90SplitReduceValues &values,
                    llvm::ArrayRef<llvm::Value *> acc, llvm::BasicBlock *exit);

/// Split-K in a cluster: the CTAs of rank 1.. publish their partial \p acc
/// in their ring, round 1 of the cluster barrier, and rank 0 returns the
/// sum of its \p acc and the peers' partials; the others branch to \p exit,
/// where round 2 waits for rank 0's reads.
llvm::SmallVector<llvm::Value *>
emitSm90ClusterSplitReduce(llvm::IRBuilder<> &b, const Sm90GemmConfig &config,
                           const Sm90SplitReduceValues &values,
                           llvm::ArrayRef<llvm::Value *> acc,
                           llvm::BasicBlock *exit);

/// Where a CTA of a split-K cluster goes on with its share of the tile.
struct Sm90SplitShare {
  llvm::BasicBlock *block = nullptr;
  llvm::SmallVector<llvm::Value *> acc; ///< the share's blocks summed
  Sm90EpilogueBlocks blocks;
};

/// Split-K in a cluster built for its S splits (config.clusterSplits):
/// every CTA publishes its partial \p acc, round 1 of the cluster barrier,
/// and CTA r sums partials 0 .. S-1 of its share of the tile's 8-column
/// blocks (sm90SplitShares with \p staging) from the rings of the cluster,
/// its own included, in z order. Returns, per rank with a nonempty share,
/// the block where that CTA goes on; an empty share branches to \p done.
/// Round 2, at the exit, keeps every ring alive until the peers have read
/// it.
std::vector<Sm90SplitShare>
emitSm90ClusterSplitScatter(llvm::IRBuilder<> &b, const Sm90GemmConfig &config,
                            const std::optional<EpilogueStagingTile> &staging,
                            const Sm90SplitReduceValues &values,
                            llvm::ArrayRef<llvm::Value *> acc,
                            llvm::BasicBlock *done);

} // namespace tilec

#endif // TILEC_CODEGEN_SM90SPLITREDUCE_H
