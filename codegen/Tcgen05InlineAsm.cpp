//===- codegen/Tcgen05InlineAsm.cpp - Blackwell tcgen05 PTX statements ----===//
//
// The statement texts of Tcgen05InlineAsm.h, built on ptx::emitAsm. Values
// read from tensor memory travel as b32 registers ("r") and are bitcast to
// f32 here, so the asm never constrains a float register class.
//
//===----------------------------------------------------------------------===//
#include "codegen/Tcgen05InlineAsm.h"

#include "codegen/PtxInlineAsm.h"

#include <cassert>

namespace tilec {
namespace ptx {

namespace {

/// `cta_group::1` or `cta_group::2`.
std::string ctaGroupText(unsigned ctaGroup) {
  assert((ctaGroup == 1 || ctaGroup == 2) && "tcgen05 .cta_group is 1 or 2");
  return "cta_group::" + std::to_string(ctaGroup);
}

} // namespace

void tcgen05Alloc(llvm::IRBuilderBase &builder, llvm::Value *dst,
                  unsigned columns, unsigned ctaGroup) {
  assert(columns >= 32 && columns <= 512 && (columns & (columns - 1)) == 0 &&
         "tensor memory is allocated in powers of two from 32 to 512");
  emitAsm(builder, builder.getVoidTy(),
          "tcgen05.alloc." + ctaGroupText(ctaGroup) +
              ".sync.aligned.shared::cta.b32 [$0], $1;",
          "r,n,~{memory}", {dst, builder.getInt32(columns)});
}

void tcgen05RelinquishAllocPermit(llvm::IRBuilderBase &builder,
                                  unsigned ctaGroup) {
  emitAsm(builder, builder.getVoidTy(),
          "tcgen05.relinquish_alloc_permit." + ctaGroupText(ctaGroup) +
              ".sync.aligned;",
          "~{memory}", {});
}

void tcgen05Dealloc(llvm::IRBuilderBase &builder, llvm::Value *taddr,
                    unsigned columns, unsigned ctaGroup) {
  emitAsm(builder, builder.getVoidTy(),
          "tcgen05.dealloc." + ctaGroupText(ctaGroup) +
              ".sync.aligned.b32 $0, $1;",
          "r,n,~{memory}", {taddr, builder.getInt32(columns)});
}

void tcgen05FenceBeforeThreadSync(llvm::IRBuilderBase &builder) {
  emitAsm(builder, builder.getVoidTy(), "tcgen05.fence::before_thread_sync;",
          "~{memory}", {});
}

void tcgen05FenceAfterThreadSync(llvm::IRBuilderBase &builder) {
  emitAsm(builder, builder.getVoidTy(), "tcgen05.fence::after_thread_sync;",
          "~{memory}", {});
}

std::string tcgen05MmaText(llvm::StringRef kind, unsigned ctaGroup) {
  return "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, $4, 0;\n\t"
         "tcgen05.mma." +
         ctaGroupText(ctaGroup) + ".kind::" + kind.str() +
         " [$0], $1, $2, $3, p;\n\t}";
}

void tcgen05Mma(llvm::IRBuilderBase &builder, llvm::StringRef kind,
                llvm::Value *dTmem, llvm::Value *descA, llvm::Value *descB,
                llvm::Value *idesc, llvm::Value *accumulate,
                unsigned ctaGroup) {
  emitAsm(builder, builder.getVoidTy(), tcgen05MmaText(kind, ctaGroup),
          "r,l,l,r,r,~{memory}", {dTmem, descA, descB, idesc, accumulate});
}

void tcgen05Commit(llvm::IRBuilderBase &builder, llvm::Value *bar) {
  emitAsm(builder, builder.getVoidTy(),
          "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::"
          "cluster.b64 [$0];",
          "r,~{memory}", {bar});
}

void tcgen05CommitMulticast(llvm::IRBuilderBase &builder, llvm::Value *bar,
                            llvm::Value *mask) {
  emitAsm(builder, builder.getVoidTy(),
          "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::"
          "cluster.multicast::cluster.b64 [$0], $1;",
          "r,h,~{memory}", {bar, mask});
}

void tmaLoad2dCtaPair(llvm::IRBuilderBase &builder, llvm::Value *dst,
                      llvm::Value *tensorMap, llvm::Value *c0, llvm::Value *c1,
                      llvm::Value *bar) {
  emitAsm(builder, builder.getVoidTy(),
          "cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global."
          "mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], [$4];",
          "r,l,r,r,r,~{memory}", {dst, tensorMap, c0, c1, bar});
}

void tmaLoad2dCtaPairMulticast(llvm::IRBuilderBase &builder, llvm::Value *dst,
                               llvm::Value *tensorMap, llvm::Value *c0,
                               llvm::Value *c1, llvm::Value *bar,
                               llvm::Value *mask) {
  emitAsm(builder, builder.getVoidTy(),
          "cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global."
          "mbarrier::complete_tx::bytes.multicast::cluster [$0], [$1, {$2, "
          "$3}], [$4], $5;",
          "r,l,r,r,r,h,~{memory}", {dst, tensorMap, c0, c1, bar, mask});
}

void tmaLoad3dCtaPair(llvm::IRBuilderBase &builder, llvm::Value *dst,
                      llvm::Value *tensorMap, llvm::Value *c0, llvm::Value *c1,
                      llvm::Value *c2, llvm::Value *bar) {
  emitAsm(builder, builder.getVoidTy(),
          "cp.async.bulk.tensor.3d.cta_group::2.shared::cluster.global."
          "mbarrier::complete_tx::bytes [$0], [$1, {$2, $3, $4}], [$5];",
          "r,l,r,r,r,r,~{memory}", {dst, tensorMap, c0, c1, c2, bar});
}

void mbarrierArriveReleaseCluster(llvm::IRBuilderBase &builder,
                                  llvm::Value *bar) {
  emitAsm(builder, builder.getVoidTy(),
          "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [$0];",
          "r,~{memory}", {bar});
}

namespace {

/// A struct of \p count i32 (or one i32), the result type of an asm that
/// writes \p count b32 registers.
llvm::Type *wordsType(llvm::IRBuilderBase &builder, unsigned count) {
  if (count == 1)
    return builder.getInt32Ty();
  llvm::SmallVector<llvm::Type *> fields(count, builder.getInt32Ty());
  return llvm::StructType::get(builder.getContext(), fields);
}

/// The \p count words of an asm result of wordsType, as f32.
llvm::SmallVector<llvm::Value *> wordsAsFloats(llvm::IRBuilderBase &builder,
                                               llvm::Value *call,
                                               unsigned count) {
  llvm::SmallVector<llvm::Value *> out;
  for (unsigned i = 0; i < count; ++i) {
    llvm::Value *word =
        count == 1 ? call : builder.CreateExtractValue(call, {i});
    out.push_back(builder.CreateBitCast(word, builder.getFloatTy()));
  }
  return out;
}

} // namespace

llvm::SmallVector<llvm::Value *> tcgen05Ld32x32b(llvm::IRBuilderBase &builder,
                                                 llvm::Value *taddr,
                                                 unsigned columns) {
  assert(columns >= 1 && columns <= 128 && (columns & (columns - 1)) == 0 &&
         "tcgen05.ld .num is x1 .. x128");
  std::string text = "tcgen05.ld.sync.aligned.32x32b.x" +
                     std::to_string(columns) + ".b32 {";
  std::string constraints;
  for (unsigned i = 0; i < columns; ++i) {
    text += (i ? ", $" : "$") + std::to_string(i);
    constraints += "=r,";
  }
  text += "}, [$" + std::to_string(columns) + "];";
  constraints += "r,~{memory}";
  llvm::Value *call = emitAsm(builder, wordsType(builder, columns), text,
                              constraints, {taddr});
  return wordsAsFloats(builder, call, columns);
}

llvm::SmallVector<llvm::Value *> tcgen05Ld16x256b(llvm::IRBuilderBase &builder,
                                                  llvm::Value *taddr,
                                                  unsigned repeats) {
  assert(repeats >= 1 && repeats <= 32 && (repeats & (repeats - 1)) == 0 &&
         "tcgen05.ld.16x256b .num is x1 .. x32");
  unsigned words = 4 * repeats;
  std::string text =
      "tcgen05.ld.sync.aligned.16x256b.x" + std::to_string(repeats) + ".b32 {";
  std::string constraints;
  for (unsigned i = 0; i < words; ++i) {
    text += (i ? ", $" : "$") + std::to_string(i);
    constraints += "=r,";
  }
  text += "}, [$" + std::to_string(words) + "];";
  constraints += "r,~{memory}";
  llvm::Value *call =
      emitAsm(builder, wordsType(builder, words), text, constraints, {taddr});
  return wordsAsFloats(builder, call, words);
}

llvm::SmallVector<llvm::Value *>
tcgen05WaitLd(llvm::IRBuilderBase &builder,
              llvm::ArrayRef<llvm::Value *> values) {
  unsigned count = values.size();
  std::string constraints;
  for (unsigned i = 0; i < count; ++i)
    constraints += "=r,";
  for (unsigned i = 0; i < count; ++i)
    constraints += std::to_string(i) + ",";
  constraints += "~{memory}";
  llvm::SmallVector<llvm::Value *> words;
  for (llvm::Value *value : values)
    words.push_back(builder.CreateBitCast(value, builder.getInt32Ty()));
  llvm::Value *call =
      emitAsm(builder, wordsType(builder, count),
              "tcgen05.wait::ld.sync.aligned;", constraints, words);
  return wordsAsFloats(builder, call, count);
}

} // namespace ptx
} // namespace tilec
