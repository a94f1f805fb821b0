//===- codegen/SplitKSum.h - Split-K: summing the partials -------*- C++
//-*-===//
//
// The reducing CTA of an sm_90a split-K tile (codegen/Sm90Gemm.h, the
// workspace or the cluster's shared memory) adds the S partial tiles to its
// accumulators in the fixed order z = 0 .. S-1, so the result does not
// depend on which CTA finished first. The partials' loads go out a few at a
// time (one round trip to L2 or to the peers for each few, not for each
// one), as many as keep a thread's loaded values within 128 registers (4
// partials of m64n64's 32 accumulators, 1 of m64n256's 128) so that ptxas
// need not spill.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SPLITKSUM_H
#define TILEC_CODEGEN_SPLITKSUM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"

#include <functional>

namespace tilec {

/// Issues the loads of partial \p z (off where \p valid is false) and
/// returns its float4 quads (structs of four f32) in fragment order.
using SplitKPartialLoader = std::function<llvm::SmallVector<llvm::Value *>(
    llvm::Value *z, llvm::Value *valid)>;

/// \p init + partial[zFirst] + partial[zFirst + 1] + ... + partial[S - 1]
/// for S = \p splits (i32), added in z order, as a loop at the builder's
/// insertion point (which it leaves after the loop).
llvm::SmallVector<llvm::Value *>
emitSplitKSum(llvm::IRBuilder<> &b, llvm::Value *splits,
              llvm::ArrayRef<llvm::Value *> init, unsigned zFirst,
              const SplitKPartialLoader &loadPartial);

} // namespace tilec

#endif // TILEC_CODEGEN_SPLITKSUM_H
