//===- codegen/WeightDequant.cpp - 4-bit codes to 16-bit MMA inputs ---------===//
#include "codegen/WeightDequant.h"

#include "ir/WeightPack.h"
#include "ir/WeightQuant.h"

#include "llvm/ADT/STLExtras.h"

#include "llvm/IR/InlineAsm.h"
#include "llvm/Support/FormatVariadic.h"

namespace tilec {

namespace {

/// The half-precision bit patterns the dequantization uses.
struct HalfBits {
  uint32_t magic;   ///< m: 128.0 (bf16) or 1024.0 (f16); m | code = m + code.
  uint32_t negBase; ///< -m; negBase | z = -(m + z) for z < 128.
  uint32_t one;     ///< 1.0.
};
HalfBits halfBits(DTypeKind type) {
  return type == DTypeKind::BF16 ? HalfBits{0x4300, 0xC300, 0x3F80}
                                 : HalfBits{0x6400, 0xE400, 0x3C00};
}

/// `fma.rn.{bf16x2,f16x2} d, a, b, c` on packed pairs in b32 registers (no
/// side effects: the middle end may schedule it).
llvm::Value *fmaX2(llvm::IRBuilderBase &b, DTypeKind type, llvm::Value *x,
                   llvm::Value *y, llvm::Value *z) {
  llvm::Type *i32 = b.getInt32Ty();
  auto *fnType = llvm::FunctionType::get(i32, {i32, i32, i32}, false);
  std::string text = std::string("fma.rn.") +
                     (type == DTypeKind::BF16 ? "bf16x2" : "f16x2") +
                     " $0, $1, $2, $3;";
  auto *asmValue = llvm::InlineAsm::get(fnType, text, "=r,r,r,r",
                                        /*hasSideEffects=*/false);
  return b.CreateCall(fnType, asmValue, {x, y, z});
}

/// `lop3.b32 d, a, mask, bits, 0xEA`: (a & mask) | bits in one
/// instruction (ptxas leaves the IR's and + or as two).
llvm::Value *andOr(llvm::IRBuilderBase &b, llvm::Value *a, uint32_t mask,
                   uint32_t bits) {
  llvm::Type *i32 = b.getInt32Ty();
  auto *fnType = llvm::FunctionType::get(i32, {i32, i32, i32}, false);
  auto *asmValue =
      llvm::InlineAsm::get(fnType, "lop3.b32 $0, $1, $2, $3, 0xEA;", "=r,r,n,n",
                           /*hasSideEffects=*/false);
  return b.CreateCall(fnType, asmValue,
                      {a, b.getInt32(mask), b.getInt32(bits)});
}

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(message.str());
}

} // namespace

llvm::Error checkInt4Weight(const QuantWeightShape &spec,
                            llvm::StringRef rowsName, unsigned rows) {
  const WeightQuantSpec &quant = spec.quant;
  if (spec.aType != DTypeKind::BF16 && spec.aType != DTypeKind::F16)
    return fail("a 4-bit weight multiplies bf16 or f16 activations; A "
                "is " +
                dtypeName(spec.aType));
  if (spec.bType != DTypeKind::U4 && spec.bType != DTypeKind::I4)
    return fail("group scales need a 4-bit weight B (u4 or i4); B is " +
                dtypeName(spec.bType));
  if (quant.scaleType != spec.aType)
    return fail("group scales are " + dtypeName(quant.scaleType) +
                " but A is " + dtypeName(spec.aType) +
                "; they must be A's type");
  if (!llvm::is_contained(WeightGroups, int64_t(quant.group)))
    return fail(llvm::formatv("group({0}) is not implemented; legal: "
                              "32, 64, 128",
                              quant.group));
  if (quant.zeros && spec.bType != DTypeKind::U4)
    return fail("zero points apply to a u4 weight; i4 is symmetric");
  if (spec.bMajor != MajorKind::K)
    return fail("a 4-bit weight is packed along K; B must be K-major");
  if (rows % PackedWeightBlockN != 0 || spec.bk % packedWeightBlockK(4) != 0)
    return fail(llvm::formatv(
        "a 4-bit weight needs {0} a multiple of 16 and BK of 64; got {0} = "
        "{1}, BK = {2}",
        rowsName, rows, spec.bk));
  if (spec.bk % quant.group != 0 && quant.group % spec.bk != 0)
    return fail(llvm::formatv(
        "BK = {0} and group({1}) do not nest; BK must be a multiple or a "
        "divisor of the group",
        spec.bk, quant.group));

  return llvm::Error::success();
}

llvm::Value *splat16(llvm::IRBuilderBase &b, llvm::Value *half) {
  return b.CreateOr(half, b.CreateShl(half, 16));
}

llvm::Value *int4Base(llvm::IRBuilderBase &b, DTypeKind type, llvm::Value *z) {
  return splat16(b, b.CreateOr(b.getInt32(halfBits(type).negBase), z));
}

llvm::Value *dequantInt4Pair(llvm::IRBuilderBase &b, DTypeKind type,
                             llvm::Value *word, unsigned i, llvm::Value *scale,
                             llvm::Value *base) {
  HalfBits bits = halfBits(type);
  llvm::Value *x = andOr(b, i ? b.CreateLShr(word, 4 * i) : word, 0x000F000Fu,
                         bits.magic * 0x10001u);
  llvm::Value *d = fmaX2(b, type, x, b.getInt32(bits.one * 0x10001u), base);
  return fmaX2(b, type, d, scale, b.getInt32(0x80008000u));
}

llvm::Error checkWeightFragmentReads(const Layout &packed, unsigned rows,
                                   unsigned bk) {
  unsigned kBlocks = bk / packedWeightBlockK(4);
  for (unsigned r = 0; r < rows / PackedWeightBlockN; ++r)
    for (unsigned c = 0; c < kBlocks; ++c)
      for (unsigned lane = 0; lane < 32; ++lane)
        for (unsigned w = 0; w < 4; ++w)
          for (unsigned nib = 0; nib < 8; ++nib) {
            unsigned g = lane / 4, t = lane % 4;
            unsigned e = nib / 4, j = (nib / 2) % 2, h = nib % 2;
            int64_t n = 16 * r + 8 * j + g,
                    k = 64 * c + 16 * w + 2 * t + e + 8 * h;
            int64_t expect =
                2 * (512 * (r * kBlocks + c) + 16 * lane + 4 * w) + nib;
            int64_t got = packed(IntTuple{n, k});
            if (got != expect)
              return llvm::createStringError(llvm::formatv(
                  "the packed layout {0} puts (n, k) = ({1}, {2}) at nibble "
                  "{3}, but the fragment loads read it at {4}",
                  packed.str(), n, k, got, expect));
          }
  return llvm::Error::success();
}

} // namespace tilec
