//===- codegen/WeightDequant.cpp - Quantized codes to 16-bit MMA inputs ---===//
#include "codegen/WeightDequant.h"

#include "codegen/GemmCombinationRules.h"

#include "ir/layout/WeightPack.h"
#include "ir/tile/WeightQuant.h"

#include "llvm/ADT/STLExtras.h"

#include "llvm/IR/InlineAsm.h"
#include "llvm/Support/FormatVariadic.h"

namespace tilec {

namespace {

/// The half-precision bit patterns of the 4-bit and 8-bit integer paths.
struct HalfBits {
  uint32_t magic;   ///< m: 128.0 (bf16) or 1024.0 (f16); m | code = m + code.
  uint32_t negBase; ///< -m; negBase | z = -(m + z) for z < m.
  uint32_t one;     ///< 1.0.
};
HalfBits halfBits(DTypeKind type) {
  return type == DTypeKind::BF16 ? HalfBits{0x4300, 0xC300, 0x3F80}
                                 : HalfBits{0x6400, 0xE400, 0x3C00};
}

/// A side-effect-free inline-asm call (the middle end may schedule it).
llvm::Value *pureAsm(llvm::IRBuilderBase &b, llvm::StringRef text,
                     llvm::StringRef constraints,
                     llvm::ArrayRef<llvm::Value *> args) {
  llvm::Type *i32 = b.getInt32Ty();
  llvm::SmallVector<llvm::Type *> types(args.size(), i32);
  auto *fnType = llvm::FunctionType::get(i32, types, false);
  auto *asmValue = llvm::InlineAsm::get(fnType, text, constraints,
                                        /*hasSideEffects=*/false);
  return b.CreateCall(fnType, asmValue, args);
}

/// `fma.rn.{bf16x2,f16x2} d, a, b, c` on packed pairs in b32 registers.
llvm::Value *fmaX2(llvm::IRBuilderBase &b, DTypeKind type, llvm::Value *x,
                   llvm::Value *y, llvm::Value *z) {
  std::string text = std::string("fma.rn.") +
                     (type == DTypeKind::BF16 ? "bf16x2" : "f16x2") +
                     " $0, $1, $2, $3;";
  return pureAsm(b, text, "=r,r,r,r", {x, y, z});
}

/// `lop3.b32 d, a, mask, bits, 0xEA`: (a & mask) | bits in one
/// instruction (ptxas leaves the IR's and + or as two).
llvm::Value *andOr(llvm::IRBuilderBase &b, llvm::Value *a, uint32_t mask,
                   uint32_t bits) {
  return pureAsm(b, "lop3.b32 $0, $1, $2, $3, 0xEA;", "=r,r,n,n",
                 {a, b.getInt32(mask), b.getInt32(bits)});
}

/// `lop3.b32 d, a, b, mask, 0xF8`: a | (b & mask).
llvm::Value *orMasked(llvm::IRBuilderBase &b, llvm::Value *a, llvm::Value *x,
                      uint32_t mask) {
  return pureAsm(b, "lop3.b32 $0, $1, $2, $3, 0xF8;", "=r,r,r,n",
                 {a, x, b.getInt32(mask)});
}

/// `prmt.b32 d, a, b, selector`: the bytes of {b, a} picked by the
/// selector's nibbles (byte 4 is b's lowest).
llvm::Value *permute(llvm::IRBuilderBase &b, llvm::Value *a, uint32_t bBits,
                     uint32_t selector) {
  return pureAsm(b, "prmt.b32 $0, $1, $2, $3;", "=r,r,n,n",
                 {a, b.getInt32(bBits), b.getInt32(selector)});
}

/// `cvt.rn.bf16x2.f32 d, hi, lo`.
llvm::Value *packBf16x2(llvm::IRBuilderBase &b, llvm::Value *hi,
                        llvm::Value *lo) {
  return pureAsm(b, "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,r,r", {hi, lo});
}

/// Bytes 2h and 2h + 1 of \p word in the high bytes of the two halves
/// (the low bytes zero).
llvm::Value *bytesHigh(llvm::IRBuilderBase &b, llvm::Value *word, unsigned h) {
  uint32_t lo = 2 * h, hi = 2 * h + 1;
  return permute(b, word, 0, (hi << 12) | (4u << 8) | (lo << 4) | 4u);
}

/// The 8-bit fp code pair of \p x (bytesHigh) as 16-bit \p type values
/// times 2^-bias-difference: the magnitude shifted right by \p shift into
/// \p type's fields (masked by \p mask) and the sign kept.
llvm::Value *fp8Fields(llvm::IRBuilderBase &b, llvm::Value *x, unsigned shift,
                       uint32_t mask) {
  llvm::Value *magnitude = andOr(b, b.CreateLShr(x, shift), mask, 0);
  return orMasked(b, magnitude, x, 0x80008000u);
}

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(message.str());
}

} // namespace

const WeightFormatInfo &weightFormatOfB(DTypeKind bType) {
  std::optional<WeightFormatKind> format = weightFormatOf(bType);
  assert(format && "a quantized weight's type");
  return weightFormatInfo(*format);
}

unsigned weightWordsPerStep(const WeightFormatInfo &format) {
  return format.bits / 4;
}

llvm::Error checkQuantWeight(const QuantWeightShape &spec,
                             llvm::StringRef rowsName, unsigned rows) {
  const WeightQuantSpec &quant = spec.quant;
  if (spec.aType != DTypeKind::BF16 && spec.aType != DTypeKind::F16)
    return fail("a quantized weight multiplies bf16 or f16 activations; A "
                "is " +
                dtypeName(spec.aType));
  std::optional<WeightFormatKind> format = weightFormatOf(spec.bType);
  if (!format)
    return fail("group scales need a quantized weight B (" +
                weightFormatNames() + "); B is " + dtypeName(spec.bType));
  const WeightFormatInfo &info = weightFormatInfo(*format);
  if (quant.scaleType != spec.aType)
    return fail("group scales are " + dtypeName(quant.scaleType) +
                " but A is " + dtypeName(spec.aType) +
                "; they must be A's type");
  if (!llvm::is_contained(WeightGroups, int64_t(quant.group)))
    return fail(llvm::formatv("group({0}) is not implemented; legal: "
                              "32, 64, 128",
                              quant.group));
  if (quant.zeros && !info.takesZeros)
    return fail(llvm::Twine("zero points apply to a u4 or u8 weight; ") +
                info.name + " takes none");
  if (spec.bMajor != MajorKind::K)
    return fail("a quantized weight is packed along K; B must be K-major");
  // The tile's rules, as the verify pass reports them at the .tile lines.
  WeightTileFacts tile{info.bits, rows, rowsName, spec.bk, quant.group};
  for (auto family : {weightRowsBreaks, weightKBreaks})
    if (std::vector<GemmCombinationBreak> breaks = family(tile);
        !breaks.empty())
      return fail(breaks.front().message);
  return llvm::Error::success();
}

WeightStageBytes weightStageBytes(const WeightFormatInfo &format,
                                  const WeightQuantSpec &quant, unsigned rows,
                                  unsigned bk) {
  auto roundUp128 = [](unsigned bytes) { return (bytes + 127) / 128 * 128; };
  WeightStageBytes s;
  s.codeBytes = rows * bk * format.bits / 8;
  s.scaleRows = std::max(1u, bk / quant.group);
  s.scaleBytes = roundUp128(s.scaleRows * rows * 2);
  s.zeroBytes = quant.zeros ? roundUp128(s.scaleRows * rows) : 0;
  return s;
}

unsigned packedBlockRowBytes(const WeightFormatInfo &format, unsigned bk) {
  return bk / unsigned(packedWeightBlockK(format.bits)) *
         unsigned(PackedWeightBlockBytes);
}

llvm::SmallVector<llvm::Value *, 2> stepWords(llvm::IRBuilderBase &b,
                                              llvm::Value *loaded, unsigned ks,
                                              const WeightFormatInfo &format) {
  unsigned perStep = weightWordsPerStep(format);
  unsigned first = ks % weightStepsPerLoad(format) * perStep;
  llvm::SmallVector<llvm::Value *, 2> words;
  for (unsigned x = 0; x < perStep; ++x)
    words.push_back(b.CreateExtractElement(loaded, uint64_t(first + x)));
  return words;
}

llvm::Value *splat16(llvm::IRBuilderBase &b, llvm::Value *half) {
  return b.CreateOr(half, b.CreateShl(half, 16));
}

GroupScaleBase groupScaleBase(llvm::IRBuilderBase &b, DTypeKind type,
                              const WeightFormatInfo &format,
                              llvm::Value *scale, llvm::Value *zero) {
  GroupScaleBase sb;
  sb.scale = splat16(b, b.CreateZExt(scale, b.getInt32Ty()));
  if (format.isFloat)
    return sb;
  llvm::Value *z = zero ? zero : b.getInt32(format.codeOffset);
  if (format.bits == 8 && type == DTypeKind::BF16)
    // -(2^23 + z) as an f32 pattern.
    sb.base = b.CreateOr(b.getInt32(0xCB000000u), z);
  else
    sb.base = splat16(b, b.CreateOr(b.getInt32(halfBits(type).negBase), z));
  return sb;
}

llvm::Value *dequantWeightPair(llvm::IRBuilderBase &b, DTypeKind type,
                               const WeightFormatInfo &format,
                               llvm::ArrayRef<llvm::Value *> words, unsigned i,
                               const GroupScaleBase &sb) {
  assert(words.size() == weightWordsPerStep(format));
  llvm::Value *negZero = b.getInt32(0x80008000u);
  bool bf16 = type == DTypeKind::BF16;
  HalfBits bits = halfBits(type);
  if (format.bits == 4) {
    llvm::Value *word = words[0];
    llvm::Value *x = andOr(b, i ? b.CreateLShr(word, 4 * i) : word, 0x000F000Fu,
                           bits.magic * 0x10001u);
    llvm::Value *d =
        fmaX2(b, type, x, b.getInt32(bits.one * 0x10001u), sb.base);
    return fmaX2(b, type, d, sb.scale, negZero);
  }
  llvm::Value *word = words[i / 2];
  unsigned h = i % 2;
  if (!format.isFloat && !bf16) {
    // 1024 + code in each half: byte 2h (2h + 1) under 0x64.
    llvm::Value *x = permute(
        b, word, 0x64, (4u << 12) | ((2 * h + 1) << 8) | (4u << 4) | (2 * h));
    llvm::Value *d =
        fmaX2(b, type, x, b.getInt32(bits.one * 0x10001u), sb.base);
    return fmaX2(b, type, d, sb.scale, negZero);
  }
  if (!format.isFloat) {
    // Each byte as the f32 2^23 + code, less 2^23 + z: exact.
    llvm::Type *f32 = b.getFloatTy();
    llvm::Value *base = b.CreateBitCast(sb.base, f32);
    llvm::Value *half[2];
    for (unsigned e = 0; e < 2; ++e) {
      llvm::Value *f = permute(
          b, word, 0x4B00, (5u << 12) | (4u << 8) | (4u << 4) | (2 * h + e));
      half[e] = b.CreateBitCast(b.CreateFAdd(b.CreateBitCast(f, f32), base),
                                b.getInt32Ty());
    }
    return fmaX2(b, type, packBf16x2(b, half[1], half[0]), sb.scale, negZero);
  }
  llvm::Value *x = bytesHigh(b, word, h);
  llvm::Value *value;
  uint32_t power; // 2^(bias of type - bias of the code), splatted.
  if (format.kind == WeightFormatKind::E5M2 && !bf16) {
    value = x, power = 0;
  } else if (format.kind == WeightFormatKind::E4M3 && !bf16) {
    value = fp8Fields(b, x, 1, 0x3F803F80u), power = 0x5C00; // 2^8
  } else if (format.kind == WeightFormatKind::E4M3) {
    value = fp8Fields(b, x, 4, 0x07F007F0u), power = 0x7B80; // 2^120
  } else {
    value = fp8Fields(b, x, 3, 0x0FE00FE0u), power = 0x7780; // 2^112
  }
  if (power)
    value = fmaX2(b, type, value, b.getInt32(power * 0x10001u), negZero);
  return fmaX2(b, type, value, sb.scale, negZero);
}

llvm::Error checkWeightFragmentReads(const Layout &packed, unsigned bits,
                                     unsigned rows, unsigned bk) {
  unsigned blockK = unsigned(packedWeightBlockK(bits));
  unsigned kBlocks = bk / blockK, steps = blockK / 16;
  unsigned wordsPerStep = bits / 4;
  for (unsigned r = 0; r < rows / PackedWeightBlockN; ++r)
    for (unsigned c = 0; c < kBlocks; ++c)
      for (unsigned lane = 0; lane < 32; ++lane)
        for (unsigned s = 0; s < steps; ++s)
          for (unsigned j = 0; j < 2; ++j)
            for (unsigned h = 0; h < 2; ++h)
              for (unsigned e = 0; e < 2; ++e) {
                unsigned g = lane / 4, t = lane % 4;
                int64_t n = 16 * r + 8 * j + g,
                        k = blockK * c + 16 * s + 2 * t + e + 8 * h;
                int64_t byte = 512 * (r * kBlocks + c) + 16 * lane +
                               4 * (s * wordsPerStep + (bits == 8 ? j : 0));
                // The code's place in its word: nibble 4 e + 2 j + h, or
                // byte 2 h + e.
                int64_t expect =
                    bits == 4 ? 2 * byte + 4 * e + 2 * j + h : byte + 2 * h + e;
                int64_t got = packed(IntTuple{n, k});
                if (got != expect)
                  return llvm::createStringError(llvm::formatv(
                      "the packed layout {0} puts (n, k) = ({1}, {2}) at "
                      "code {3}, but the fragment loads read it at {4}",
                      packed.str(), n, k, got, expect));
              }
  return llvm::Error::success();
}

} // namespace tilec
