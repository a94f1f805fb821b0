//===- codegen/NvvmBuilder.h - IRBuilder helpers for NVVM intrinsics -*- C++
//-*-===//
//
// The llvm.nvvm.* intrinsics the tensor-core code generators call, each behind
// a small typed function, so the generators read as the PTX they produce:
// special registers, barriers, cp.async with zero fill, ldmatrix and mma.sync.
// Only LLVM intrinsics: no inline assembly.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_NVVMBUILDER_H
#define TILEC_CODEGEN_NVVMBUILDER_H

#include "ir/arch/DType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/IRBuilder.h"

#include <array>

namespace tilec {

/// Address spaces of the NVPTX backend.
enum NvptxAddressSpace : unsigned { GlobalAS = 1, SharedAS = 3 };

/// The LLVM type of an f16, bf16 or f32 element (C and the epilogues'
/// operands): half, bfloat, float.
llvm::Type *llvmFloatType(llvm::IRBuilderBase &b, DTypeKind type);

/// Thin wrappers over NVVM intrinsics on one IRBuilder.
class NvvmBuilder {
public:
  explicit NvvmBuilder(llvm::IRBuilder<> &builder) : b(builder) {}

  llvm::IRBuilder<> &ir() { return b; }

  /// %tid.x, %ctaid.x (i32).
  llvm::Value *threadIdX();
  llvm::Value *blockIdX();
  /// %ctaid.z (a batched kernel's batch).
  llvm::Value *blockIdZ();

  /// bar.sync 0 over the whole CTA.
  void barrier();

  /// cp.async.cg.shared.global [dst], [src], 16, srcBytes: copies srcBytes
  /// (0..16) bytes and zero-fills the rest of the 16-byte vector.
  void cpAsync16(llvm::Value *sharedDst, llvm::Value *globalSrc,
                 llvm::Value *srcBytes);
  /// cp.async.commit_group.
  void cpAsyncCommit();
  /// cp.async.wait_group N: all but the newest N groups have landed.
  void cpAsyncWait(unsigned pending);

  /// ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16: four 8x8 b16
  /// matrices, lane l giving the address of row l % 8 of matrix l / 8.
  std::array<llvm::Value *, 4> ldmatrixX4(llvm::Value *sharedRow, bool trans);

  /// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32: D = A B
  /// + C with A in 4 and B in 2 b32 registers (packed pairs, as ldmatrix
  /// returns them), C and D in 4 f32.
  std::array<llvm::Value *, 4> mmaM16N8K16(DTypeKind inType,
                                           llvm::ArrayRef<llvm::Value *> a,
                                           llvm::ArrayRef<llvm::Value *> b,
                                           llvm::ArrayRef<llvm::Value *> c);

private:
  llvm::IRBuilder<> &b;
};

} // namespace tilec

#endif // TILEC_CODEGEN_NVVMBUILDER_H
