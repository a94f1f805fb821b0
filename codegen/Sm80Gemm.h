//===- codegen/Sm80Gemm.h - The sm_80 GEMM generator's pieces ----*- C++
//-*-===//
//
// Internal to codegen/: the plan (everything derived from the GemmSpec before
// any IR is built: resolved smem layouts, warp tile, copy and fragment
// shapes, shared-memory budget) and the kernel-wide values the mainloop
// (Sm80Mainloop.cpp) and the epilogue (Sm80Epilogue.cpp) share.
//
// The kernel, per CTA of blockThreads threads (warpsM x warpsN warps):
//   - a multi-stage cp.async pipeline (16-byte vectors, zero fill past M, N,
//     K) fills `stages` smem buffers of A (bm x bk) and B (bn x bk) laid out
//     by the spec's swizzled layouts;
//   - each warp ldmatrix-loads (.trans for MN-major operands) its
//     (bm/warpsM) x (bn/warpsN) piece and issues mma.sync m16n8k16 with f32
//     accumulators;
//   - the epilogue scales by alpha/beta and stores f16/bf16/f32 with
//     predication on the ragged edges.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM80GEMM_H
#define TILEC_CODEGEN_SM80GEMM_H

#include "codegen/GemmCodegen.h"
#include "codegen/NvvmBuilder.h"
#include "codegen/SmemAddress.h"

#include "llvm/IR/Module.h"

#include <memory>
#include <vector>

namespace tilec {

/// One operand's global -> smem copy and fragment geometry.
struct Sm80OperandPlan {
  ComposedLayout layout; ///< (mnExtent, bk) -> element offset.
  SmemAddress smem;
  bool kMajor;            ///< K contiguous in global memory.
  unsigned mnExtent;      ///< bm for A, bn for B.
  unsigned warpExtent;    ///< Extent of one warp's piece along mn.
  unsigned warpsAlong;    ///< Warps along mn (warpsM for A, warpsN for B).
  unsigned vectorsPerRow; ///< 16-byte vectors along the contiguous extent.
  unsigned copiesPerThread;
  unsigned stageElems; ///< One stage, rounded up to 128 bytes.
};

/// Everything the sm_80 generator decides before building IR.
struct Sm80GemmPlan {
  GemmSpec spec;
  Sm80OperandPlan a, b;
  unsigned mmaTilesM, mmaTilesN; ///< m16 and n8 tiles per warp.
  unsigned kSteps;               ///< k16 steps per stage.
  /// Load step 0 of tile kt + 1 before the last mma step of tile kt (one
  /// barrier per tile either way). On the H200 this gained 1-3% with 4 k16
  /// steps per tile (bk = 64) and lost 5-14% with 2 (bk = 32, more registers
  /// live across the barrier), so it is on for kSteps >= 4.
  bool prefetchAcrossTiles = false;
  unsigned sharedBytes;
};

/// Checks \p spec and derives the plan; errors name the field and what is
/// legal.
llvm::Expected<Sm80GemmPlan> planSm80Gemm(const GemmSpec &spec);

/// The kernel's parameters, in order.
std::vector<KernelParam> sm80GemmParams(const GemmSpec &spec);

/// Builds the kernel into a fresh module of \p context.
llvm::Expected<std::unique_ptr<llvm::Module>>
buildSm80GemmModule(const Sm80GemmPlan &plan, llvm::LLVMContext &context);

/// Values of the kernel that the mainloop and the epilogue share.
struct Sm80Kernel {
  Sm80Kernel(const Sm80GemmPlan &plan, NvvmBuilder &nv, llvm::Function *fn)
      : plan(plan), nv(nv), fn(fn) {}
  const Sm80GemmPlan &plan;
  NvvmBuilder &nv;
  llvm::Function *fn;
  llvm::Value *a = nullptr, *b = nullptr, *c = nullptr; ///< Global pointers.
  llvm::Value *m = nullptr, *n = nullptr, *k = nullptr; ///< i32 problem size.
  llvm::Value *lda = nullptr, *ldb = nullptr,
              *ldc = nullptr;                    ///< i32 leading dimensions.
  llvm::Value *alpha = nullptr, *beta = nullptr; ///< f32 or null.
  llvm::Value *tid = nullptr, *lane = nullptr, *warpM = nullptr,
              *warpN = nullptr;             ///< i32.
  llvm::Value *m0 = nullptr, *n0 = nullptr; ///< i32 CTA tile origin.
  llvm::Value *smem = nullptr; ///< Dynamic smem base (addrspace 3).
  /// Accumulators after the mainloop: ((i * mmaTilesN + j) * 4 + r).
  std::vector<llvm::Value *> acc;
};

/// Emits the cp.async pipeline and the ldmatrix + mma loop; fills kernel.acc.
void emitSm80Mainloop(Sm80Kernel &kernel);

/// Emits alpha/beta scaling and the predicated stores of kernel.acc; leaves
/// the builder in the block after the stores.
void emitSm80Epilogue(Sm80Kernel &kernel);

} // namespace tilec

#endif // TILEC_CODEGEN_SM80GEMM_H
