//===- codegen/Sm80SplitReduce.cpp - Split-K on sm_80 ---------------------===//
//
// `schedule split_k(S)` on sm_80: the linear grid numbers tiles x S work
// units (GemmGridRule::splitsInUnits), split z of a tile runs k-tiles
// [z * ceil(T / S), ...) of the T = ceil(K / BK) (buildSm80GemmModule).
// After its mainloop each CTA stores its f32 accumulators to the workspace
// (unit tile * S + z, quad q of thread t at ((unit * quads + q) * threads +
// t) * 16 bytes: every store and load a coalesced 16-byte vector), takes
// the arrival protocol of codegen/SplitKArrival.h, and the last CTA of the
// tile sums the S partials in z order (codegen/SplitKSum.h, from +0: the
// result does not depend on which CTA finished last) into the accumulators
// its epilogue then stores as without a split.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm80Gemm.h"

#include "codegen/SplitKArrival.h"
#include "codegen/SplitKSum.h"

namespace tilec {

void emitSm80SplitReduce(Sm80Kernel &kernel, llvm::BasicBlock *exit) {
  llvm::IRBuilder<> &b = kernel.nv.ir();
  const Sm80GemmPlan &plan = kernel.plan;
  unsigned splits = plan.spec.splitK, threads = plan.spec.threads();
  unsigned quads = unsigned(kernel.acc.size()) / 4;
  llvm::Type *f32 = b.getFloatTy();
  auto *quadTy = llvm::StructType::get(b.getContext(), {f32, f32, f32, f32});
  llvm::Value *tile64 = b.CreateZExt(kernel.tileId, b.getInt64Ty());
  // The byte address of quad q of split z's partial of this thread.
  auto quadAt = [&](llvm::Value *z, unsigned q) {
    llvm::Value *unit = b.CreateAdd(b.CreateMul(tile64, b.getInt64(splits)),
                                    b.CreateZExt(z, b.getInt64Ty()));
    llvm::Value *index = b.CreateAdd(
        b.CreateMul(
            b.CreateAdd(b.CreateMul(unit, b.getInt64(quads)), b.getInt64(q)),
            b.getInt64(threads)),
        b.CreateZExt(kernel.tid, b.getInt64Ty()));
    return b.CreateGEP(b.getInt8Ty(), kernel.workspace,
                       b.CreateMul(index, b.getInt64(16)));
  };
  kernel.at(KernelPart::Epilogue);
  for (unsigned q = 0; q < quads; ++q) {
    llvm::Value *quad = llvm::PoisonValue::get(quadTy);
    for (unsigned e = 0; e < 4; ++e)
      quad = b.CreateInsertValue(quad, kernel.acc[4 * q + e], {e});
    b.CreateAlignedStore(quad, quadAt(kernel.splitZ, q), llvm::Align(16));
  }
  SplitKArrival arrival;
  arrival.counters = kernel.counters;
  arrival.tileId = kernel.tileId;
  arrival.splits = b.getInt32(splits);
  arrival.flagAddr = b.CreatePtrToInt(
      b.CreateConstGEP1_32(b.getInt8Ty(), kernel.smem, plan.splitFlagByte),
      b.getInt32Ty());
  arrival.tid = kernel.tid;
  arrival.leaderTid = 0;
  arrival.barrier = b.getInt32(0);
  arrival.threads = threads;
  emitSplitKArrival(b, kernel.fn, arrival, exit);
  llvm::SmallVector<llvm::Value *> zeros(kernel.acc.size(),
                                         llvm::ConstantFP::get(f32, 0.0));
  llvm::SmallVector<llvm::Value *> sums = emitSplitKSum(
      b, b.getInt32(splits), zeros, 0, [&](llvm::Value *z, llvm::Value *valid) {
        // Past the last split: read split 0 (unused).
        llvm::Value *at = b.CreateSelect(valid, z, b.getInt32(0));
        llvm::SmallVector<llvm::Value *> loaded;
        for (unsigned q = 0; q < quads; ++q)
          loaded.push_back(
              b.CreateAlignedLoad(quadTy, quadAt(at, q), llvm::Align(16)));
        return loaded;
      });
  kernel.acc.assign(sums.begin(), sums.end());
  kernel.at(KernelPart::Kernel);
}

} // namespace tilec
