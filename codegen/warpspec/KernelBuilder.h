//===- codegen/warpspec/KernelBuilder.h - The TMA kernels' builder -*- C++
//-*-===//
//
// What the warp-specialized TMA GEMM kernels of sm_90a (wgmma, accumulators
// in registers) and sm_100a (tcgen05, accumulators in tensor memory) build
// alike, written once: the kernel's declaration from its parameter list,
// the parameters every such kernel opens with, the aligned shared-memory
// base, the ring of stages with its full and empty mbarriers (slot and
// phase of a ring position), the TMA loads of one operand tile into a slot,
// and the counted loops. Each target's builder derives from it and adds
// how the MMA is issued, where the accumulator lives and how its epilogue
// reads it (codegen/Sm90Gemm.cpp, codegen/Sm100Gemm.cpp).
//
// The ring: `stages` slots, slot s holding one A and one B tile. Its
// barriers sit at barBase: the full barrier of slot s at barBase + 8 s (the
// producer's expect-tx arrive and the TMA bytes), the empty barrier at
// barBase + 8 (stages + s) (the MMA side's release). Ring position it (the
// CTA's it-th K tile over all its tiles) is slot it % stages in phase
// (it / stages) & 1.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_WARPSPEC_KERNELBUILDER_H
#define TILEC_CODEGEN_WARPSPEC_KERNELBUILDER_H

#include "codegen/GemmCodegen.h"
#include "codegen/SourceLineInfo.h"
#include "codegen/warpspec/OperandTile.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

#include <functional>
#include <optional>
#include <vector>

namespace tilec {

/// The parameters every TMA GEMM kernel (sm_90a, sm_100a) opens with:
/// tmapA, tmapB, tmapC with \p staged, then c, rowsA, rowsB, k, ldc, alpha,
/// beta. sm90KernelParams and sm100KernelParams append theirs.
std::vector<KernelParam> tmaGemmLeadingParams(bool staged);

/// Builds one kernel function into a module; the targets' builders derive.
struct WarpSpecKernelBuilder {
  llvm::LLVMContext &ctx;
  llvm::Module &module;
  llvm::IRBuilder<> b;
  llvm::Function *fn = nullptr;
  std::optional<SourceLineInfo> lines; ///< PTX line directives (--lineinfo)
  unsigned stages;                     ///< ring slots

  /// Parameters of both targets, bound by declareKernel (null when the
  /// kernel does not take them).
  llvm::Value *tmapA = nullptr, *tmapB = nullptr, *tmapC = nullptr,
              *c = nullptr, *rowsA = nullptr, *rowsB = nullptr, *k = nullptr,
              *ldc = nullptr, *alpha = nullptr, *beta = nullptr,
              *workspace = nullptr, *counters = nullptr, *storeTma = nullptr,
              *strideC = nullptr;
  /// Kernel-wide values: %tid.x, the current tile's origin (m0, n0), the K
  /// tiles (all of them, and the current unit's run kBegin + [0, kCount)),
  /// the shared-memory parts, the split-K tile id and flag word, the CTA's
  /// rank in its cluster (or pair).
  llvm::Value *tid = nullptr, *m0 = nullptr, *n0 = nullptr, *numK = nullptr,
              *kBegin = nullptr, *kCount = nullptr;
  llvm::Value *aBase = nullptr, *bBase = nullptr, *barBase = nullptr,
              *stagingBase = nullptr;
  llvm::Value *tileId = nullptr, *flagAddr = nullptr, *rank = nullptr;

  WarpSpecKernelBuilder(llvm::Module &module, unsigned stages)
      : ctx(module.getContext()), module(module), b(ctx), stages(stages) {}

  llvm::BasicBlock *block(const llvm::Twine &name) {
    return llvm::BasicBlock::Create(ctx, name, fn);
  }
  llvm::Value *i32(uint32_t v) { return b.getInt32(v); }

  /// The full and the empty mbarrier of ring slot \p slot.
  llvm::Value *fullBar(llvm::Value *slot);
  llvm::Value *emptyBar(llvm::Value *slot);

  /// Ring position \p it: its slot and the parity of its phase.
  struct RingSlot {
    llvm::Value *slot, *parity;
  };
  RingSlot ringSlot(llvm::Value *it);

  /// Declares the kernel \p name with \p params (a PTX kernel of at most
  /// \p threads threads, \p minCtas CTAs per SM; tensor maps by value,
  /// 64-byte aligned, grid constants) and binds the parameters named
  /// above. Returns every parameter by name.
  llvm::StringMap<llvm::Value *>
  declareKernel(llvm::StringRef name, llvm::ArrayRef<KernelParam> params,
                unsigned threads, unsigned minCtas);

  /// The dynamic shared memory's base (the extern `tilec_smem` array)
  /// rounded up to SmemAlignSlack, as an i32 shared address.
  llvm::Value *alignedSmemBase(const llvm::Twine &name);

  /// ceil(\p value / \p size) in i32.
  llvm::Value *countOf(llvm::Value *value, unsigned size,
                       const llvm::Twine &name);

  /// v = start, start + stride, ... while v < bound, around \p body(v,
  /// next), which must end by branching to next; continues after the loop.
  void
  loop(const llvm::Twine &name, llvm::Value *start, llvm::Value *bound,
       llvm::Value *stride,
       const std::function<void(llvm::Value *v, llvm::BasicBlock *next)> &body);

  /// The TMA loads of one ring slot of \p tile at \p dst: one box (K-major,
  /// coordinates (k, row)) or one box per swizzle atom along MN (MN-major,
  /// coordinates (row + i * box, k)), completing on \p bar.
  /// \p z non-null: the tensor is batched or grouped, its map rank 3 with
  /// \p z the outermost coordinate. \p ctaPair: .cta_group::2, the bytes
  /// complete on the pair leader's barrier (\p bar its shared::cluster
  /// address).
  void loadTile(const TmaOperandTile &tile, llvm::Value *dst, llvm::Value *tmap,
                llvm::Value *kc, llvm::Value *row, llvm::Value *bar,
                llvm::Value *z, bool ctaPair = false);
};

/// Builds a kernel into a fresh module with \p build and returns its PTX
/// for \p arch.
llvm::Expected<std::string>
kernelPtx(llvm::StringRef name, ArchKind arch,
          llvm::function_ref<llvm::Error(llvm::Module &)> build);

/// Builds a kernel into a fresh module with \p build and returns the module
/// printed as LLVM IR text (--emit=llvm).
llvm::Expected<std::string>
kernelLlvmIr(llvm::StringRef name,
             llvm::function_ref<llvm::Error(llvm::Module &)> build);

} // namespace tilec

#endif // TILEC_CODEGEN_WARPSPEC_KERNELBUILDER_H
