//===- codegen/SplitKArrival.h - Split-K: the last CTA reduces ---*- C++ -*-===//
//
// The arrival protocol of a split-K reduction through a global workspace,
// shared by sm_90a (one CTA per split) and sm_100a (one work unit per
// split): each participant has written its f32 partial tile, then
//
//   fence.acq_rel.gpu; bar.sync                (every partial visible)
//   leader: old = atom.acq_rel.gpu.add(counter[tile], 1)
//           flag = old == splits - 1           (in shared memory)
//           the last one resets counter[tile] to 0 for the next launch
//   bar.sync; flag ? fence.acq_rel.gpu, reduce : exit
//
// so exactly one participant per tile sums the partials and runs the
// epilogue, whatever order they finish in.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SPLITKARRIVAL_H
#define TILEC_CODEGEN_SPLITKARRIVAL_H

#include "llvm/IR/IRBuilder.h"

namespace tilec {

/// What emitSplitKArrival needs: the per-tile counters (u32, global), the
/// tile, the number of splits (i32), the shared word for the flag, the
/// thread id and the leader's, and the named barrier the participating
/// threads sync on.
struct SplitKArrival {
  llvm::Value *counters = nullptr, *tileId = nullptr, *splits = nullptr;
  llvm::Value *flagAddr = nullptr, *tid = nullptr;
  unsigned leaderTid = 0;
  llvm::Value *barrier = nullptr;
  unsigned threads = 0;
};

/// Emits the protocol in \p fn; leaves the builder at the start of the
/// block where the last participant reduces (after its fence); the others
/// branch to \p exit.
void emitSplitKArrival(llvm::IRBuilder<> &b, llvm::Function *fn,
                       const SplitKArrival &in, llvm::BasicBlock *exit);

} // namespace tilec

#endif // TILEC_CODEGEN_SPLITKARRIVAL_H
