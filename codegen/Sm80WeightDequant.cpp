//===- codegen/Sm80WeightDequant.cpp - 4-bit weights on sm_80 -------------===//
//
// See Sm80WeightDequant.h. The copies are three small 2-D tiles of 16-byte
// vectors (codes, scales, zero points) spread over the CTA's threads, each
// zero-filled past N and K like the operand copies: a zero-filled code
// dequantizes to a finite value that meets A's zero-filled K columns, and a
// zero-filled scale makes the weight 0.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm80WeightDequant.h"

#include "codegen/Sm80Gemm.h"
#include "ir/WeightPack.h"
#include "ir/WeightQuant.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/Support/FormatVariadic.h"

namespace tilec {

namespace {

llvm::Error planError(const llvm::Twine &message) {
  return llvm::createStringError(message.str());
}

unsigned roundUp128(unsigned bytes) { return (bytes + 127) / 128 * 128; }

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
llvm::Value *fmaX2(llvm::IRBuilder<> &b, DTypeKind type, llvm::Value *x,
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
llvm::Value *andOr(llvm::IRBuilder<> &b, llvm::Value *a, uint32_t mask,
                   uint32_t bits) {
  llvm::Type *i32 = b.getInt32Ty();
  auto *fnType = llvm::FunctionType::get(i32, {i32, i32, i32}, false);
  auto *asmValue =
      llvm::InlineAsm::get(fnType, "lop3.b32 $0, $1, $2, $3, 0xEA;", "=r,r,n,n",
                           /*hasSideEffects=*/false);
  return b.CreateCall(fnType, asmValue,
                      {a, b.getInt32(mask), b.getInt32(bits)});
}

/// A 16-bit value in both halves of a b32 register.
llvm::Value *splat16(llvm::IRBuilder<> &b, llvm::Value *half) {
  return b.CreateOr(half, b.CreateShl(half, 16));
}

/// One 2-D tile of 16-byte vectors copied per stage: \p rows rows of
/// \p rowBytes, row r of the tile at global row rowOrigin + r (stride
/// \p rowStride bytes) and byte colOrigin; vectors of rows >= validRows or
/// bytes >= validBytes are zero-filled.
struct VectorTile {
  unsigned rows, rowBytes;
  llvm::Value *global, *rowStride, *rowOrigin, *validRows, *colOrigin,
      *validBytes, *smemByte;
};

void copyVectorTile(Sm80Kernel &kernel, const VectorTile &tile) {
  llvm::IRBuilder<> &b = kernel.nv.ir();
  unsigned threads = kernel.plan.spec.threads();
  unsigned perRow = tile.rowBytes / 16, vectors = tile.rows * perRow;
  for (unsigned first = 0; first < vectors; first += threads) {
    llvm::Value *v = b.CreateAdd(kernel.tid, b.getInt32(first));
    llvm::BasicBlock *done = nullptr;
    if (first + threads > vectors) {
      // The last round: only the threads with a vector left copy.
      llvm::LLVMContext &context = b.getContext();
      auto *copy = llvm::BasicBlock::Create(context, "wcopy", kernel.fn);
      done = llvm::BasicBlock::Create(context, "wcopy.done", kernel.fn);
      b.CreateCondBr(b.CreateICmpULT(v, b.getInt32(vectors)), copy, done);
      b.SetInsertPoint(copy);
    }
    llvm::Value *row = b.CreateUDiv(v, b.getInt32(perRow));
    llvm::Value *col = b.CreateShl(b.CreateURem(v, b.getInt32(perRow)), 4);
    llvm::Value *gRow = b.CreateAdd(tile.rowOrigin, row);
    llvm::Value *gCol = b.CreateAdd(tile.colOrigin, col);
    llvm::Value *in = b.CreateAnd(b.CreateICmpULT(gRow, tile.validRows),
                                  b.CreateICmpULT(gCol, tile.validBytes));
    llvm::Value *offset = b.CreateAdd(
        b.CreateMul(b.CreateZExt(gRow, b.getInt64Ty()), tile.rowStride),
        b.CreateZExt(gCol, b.getInt64Ty()));
    llvm::Value *src = b.CreateSelect(
        in, b.CreateGEP(b.getInt8Ty(), tile.global, offset), tile.global);
    llvm::Value *dst =
        b.CreateGEP(b.getInt8Ty(), kernel.smem,
                    b.CreateAdd(tile.smemByte, b.CreateShl(v, 4)));
    kernel.nv.cpAsync16(dst, src,
                        b.CreateSelect(in, b.getInt32(16), b.getInt32(0)));
    if (done) {
      b.CreateBr(done);
      b.SetInsertPoint(done);
    }
  }
}

} // namespace

llvm::Expected<Sm80WeightPlan> planSm80Weight(const GemmSpec &spec) {
  const WeightQuantSpec &quant = *spec.weightQuant;
  if (spec.aType != DTypeKind::BF16 && spec.aType != DTypeKind::F16)
    return planError("a 4-bit weight multiplies bf16 or f16 activations; A "
                     "is " +
                     dtypeName(spec.aType));
  if (spec.bType != DTypeKind::U4 && spec.bType != DTypeKind::I4)
    return planError("group scales need a 4-bit weight B (u4 or i4); B is " +
                     dtypeName(spec.bType));
  if (quant.scaleType != spec.aType)
    return planError("group scales are " + dtypeName(quant.scaleType) +
                     " but A is " + dtypeName(spec.aType) +
                     "; they must be A's type");
  if (!llvm::is_contained(Int4Groups, int64_t(quant.group)))
    return planError(llvm::formatv("group({0}) is not implemented; legal: "
                                   "32, 64, 128",
                                   quant.group));
  if (quant.zeros && spec.bType != DTypeKind::U4)
    return planError("zero points apply to a u4 weight; i4 is symmetric");
  if (spec.bMajor != MajorKind::K)
    return planError("a 4-bit weight is packed along K; B must be K-major");
  if (spec.bn % PackedInt4BlockN != 0 || spec.bk % PackedInt4BlockK != 0)
    return planError(llvm::formatv(
        "a 4-bit weight needs BN a multiple of 16 and BK of 64; got BN = "
        "{0}, BK = {1}",
        spec.bn, spec.bk));
  if (spec.bk % quant.group != 0 && quant.group % spec.bk != 0)
    return planError(llvm::formatv(
        "BK = {0} and group({1}) do not nest; BK must be a multiple or a "
        "divisor of the group",
        spec.bk, quant.group));

  Sm80WeightPlan plan;
  plan.quant = quant;
  plan.packed = packedInt4Layout(spec.bn, spec.bk);
  plan.codeBytes = spec.bn * spec.bk / 2;
  plan.scaleRows = std::max(1u, spec.bk / quant.group);
  plan.scaleBytes = roundUp128(plan.scaleRows * spec.bn * 2);
  plan.zeroBytes = quant.zeros ? roundUp128(plan.scaleRows * spec.bn) : 0;

  // The fragment loads read lane l's 16 bytes of block (r, c) at byte
  // 512 (r * bk / 64 + c) + 16 l, and take nibble 4 e + 2 j + h of word w
  // for (n, k) = (16 r + 8 j + g, 64 c + 16 w + 2 t + e + 8 h): check that
  // this is the layout everywhere.
  unsigned kBlocks = spec.bk / PackedInt4BlockK;
  for (unsigned r = 0; r < spec.bn / PackedInt4BlockN; ++r)
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
            int64_t got = plan.packed(IntTuple{n, k});
            if (got != expect)
              return planError(llvm::formatv(
                  "the packed layout {0} puts (n, k) = ({1}, {2}) at nibble "
                  "{3}, but the fragment loads read it at {4}",
                  plan.packed.str(), n, k, got, expect));
          }
  return plan;
}

Sm80WeightLoads setUpSm80WeightLoads(Sm80Kernel &kernel) {
  llvm::IRBuilder<> &b = kernel.nv.ir();
  const Sm80GemmPlan &plan = kernel.plan;
  Sm80WeightLoads loads;
  loads.plan = &*plan.weight;
  // The warp's first n16 block row, then the lane's 16 bytes.
  unsigned blockRowBytes = plan.spec.bk / PackedInt4BlockK * 512;
  llvm::Value *warpRow =
      b.CreateMul(kernel.warpN, b.getInt32(plan.b.warpExtent / 16));
  loads.fragmentBase =
      b.CreateAdd(b.CreateMul(warpRow, b.getInt32(blockRowBytes)),
                  b.CreateShl(kernel.lane, 4), "w.frag");
  loads.channel =
      b.CreateAdd(b.CreateMul(kernel.warpN, b.getInt32(plan.b.warpExtent)),
                  b.CreateLShr(kernel.lane, 2), "w.channel");
  return loads;
}

void issueSm80WeightCopies(Sm80Kernel &kernel, const Sm80WeightLoads &loads,
                           llvm::Value *kt, llvm::Value *stage) {
  llvm::IRBuilder<> &b = kernel.nv.ir();
  const Sm80WeightPlan &w = *loads.plan;
  const GemmSpec &spec = kernel.plan.spec;
  kernel.at(KernelPart::SmemB);
  llvm::Type *i64 = b.getInt64Ty();
  // The k-tile in K (a split's tiles start at kTileBegin); copies past
  // kLimit (K, or the split's end) are zero-filled.
  llvm::Value *kTile = sm80KTileInK(kernel, kt);
  auto stageAt = [&](unsigned region, unsigned bytes) {
    return b.CreateAdd(b.getInt32(region),
                       b.CreateMul(stage, b.getInt32(bytes)));
  };
  // Codes: a row is one n16 block row, 8 bytes per K.
  copyVectorTile(kernel,
                 {spec.bn / 16, spec.bk * 8, kernel.b,
                  b.CreateMul(b.CreateZExt(kernel.k, i64), b.getInt64(8)),
                  b.CreateLShr(kernel.n0, 4), b.CreateLShr(kernel.n, 4),
                  b.CreateMul(kTile, b.getInt32(spec.bk * 8)),
                  b.CreateMul(kernel.kLimit, b.getInt32(8)),
                  stageAt(w.codeRegion, w.codeBytes)});
  // Scales and zero points: rows of ceil(K / group), N wide.
  llvm::Value *groupRow = b.CreateUDiv(b.CreateMul(kTile, b.getInt32(spec.bk)),
                                       b.getInt32(w.quant.group));
  llvm::Value *groups =
      b.CreateUDiv(b.CreateAdd(kernel.kLimit, b.getInt32(w.quant.group - 1)),
                   b.getInt32(w.quant.group));
  for (unsigned bytes : {2u, 1u}) {
    if (bytes == 1 && !w.quant.zeros)
      continue;
    copyVectorTile(kernel,
                   {w.scaleRows, spec.bn * bytes,
                    bytes == 2 ? kernel.sb : kernel.zb,
                    b.CreateMul(b.CreateZExt(kernel.n, i64), b.getInt64(bytes)),
                    groupRow, groups, b.CreateMul(kernel.n0, b.getInt32(bytes)),
                    b.CreateMul(kernel.n, b.getInt32(bytes)),
                    bytes == 2 ? stageAt(w.scaleRegion, w.scaleBytes)
                               : stageAt(w.zeroRegion, w.zeroBytes)});
  }
  kernel.at(KernelPart::Kernel);
}

std::vector<std::array<llvm::Value *, 4>>
loadSm80WeightFragments(Sm80Kernel &kernel, const Sm80WeightLoads &loads,
                        llvm::Value *stage, unsigned ks, Sm80WeightRegs &regs) {
  llvm::IRBuilder<> &b = kernel.nv.ir();
  const Sm80WeightPlan &w = *loads.plan;
  const GemmSpec &spec = kernel.plan.spec;
  unsigned pairs = kernel.plan.b.warpExtent / 16;
  unsigned kBlocks = spec.bk / PackedInt4BlockK;
  HalfBits bits = halfBits(spec.aType);
  kernel.at(KernelPart::SmemB);
  // Each address as (runtime part) + (constant part), the form
  // InstCombine leaves alone (an add of the constant inside the runtime
  // part is split into two GEPs, and not always in one iteration).
  auto smemAt = [&](llvm::Value *runtime, unsigned constant) {
    llvm::Value *ptr = b.CreateGEP(b.getInt8Ty(), kernel.smem,
                                   b.CreateZExt(runtime, b.getInt64Ty()));
    return constant ? b.CreateConstGEP1_64(b.getInt8Ty(), ptr, constant) : ptr;
  };
  std::vector<llvm::Value *> &words = regs.words;
  if (ks % 4 == 0) {
    words.assign(pairs, nullptr);
    llvm::Value *lane = b.CreateAdd(b.CreateMul(stage, b.getInt32(w.codeBytes)),
                                    loads.fragmentBase);
    auto *v4 = llvm::FixedVectorType::get(b.getInt32Ty(), 4);
    for (unsigned p = 0; p < pairs; ++p) {
      unsigned block = w.codeRegion + (p * kBlocks + ks / 4) * 512;
      words[p] = b.CreateAlignedLoad(v4, smemAt(lane, block), llvm::Align(16),
                                     "w.codes");
    }
  }
  // The step's group row in the stage: one row when bk <= group. The
  // lane's channel g is the runtime part; the pair, tile and row constant.
  unsigned row = w.scaleRows > 1 ? 16 * ks / w.quant.group : 0;
  if (ks == 0 || int(row) != regs.groupRow) {
    // The group row's scales and bases, kept for the steps that share it
    // (shared memory is read once a row, not once a step).
    regs.groupRow = int(row);
    regs.scaleBase.assign(pairs, {});
    llvm::Value *scaleLane =
        b.CreateAdd(b.CreateMul(stage, b.getInt32(w.scaleBytes)),
                    b.CreateShl(loads.channel, 1));
    llvm::Value *zeroLane =
        w.quant.zeros ? b.CreateAdd(b.CreateMul(stage, b.getInt32(w.zeroBytes)),
                                    loads.channel)
                      : nullptr;
    uint32_t fixedZero = spec.bType == DTypeKind::I4 ? 8 : 0;
    for (unsigned p = 0; p < pairs; ++p)
      for (unsigned j = 0; j < 2; ++j) {
        unsigned n = 16 * p + 8 * j; // Past the lane's channel.
        llvm::Value *s = b.CreateAlignedLoad(
            b.getInt16Ty(),
            smemAt(scaleLane, w.scaleRegion + (row * spec.bn + n) * 2),
            llvm::Align(2), "w.scale");
        regs.scaleBase[p][j] = splat16(b, b.CreateZExt(s, b.getInt32Ty()));
        llvm::Value *z = b.getInt32(fixedZero);
        if (zeroLane)
          z = b.CreateZExt(
              b.CreateAlignedLoad(
                  b.getInt8Ty(),
                  smemAt(zeroLane, w.zeroRegion + row * spec.bn + n),
                  llvm::Align(1), "w.zero"),
              b.getInt32Ty());
        regs.scaleBase[p][2 + j] =
            splat16(b, b.CreateOr(b.getInt32(bits.negBase), z));
      }
  }
  llvm::Value *one = b.getInt32(bits.one * 0x10001u);
  llvm::Value *negZero = b.getInt32(0x80008000u);
  std::vector<std::array<llvm::Value *, 4>> quads;
  for (unsigned p = 0; p < pairs; ++p) {
    llvm::Value *word = b.CreateExtractElement(words[p], uint64_t(ks % 4));
    const std::array<llvm::Value *, 4> &sb = regs.scaleBase[p];
    std::array<llvm::Value *, 4> quad;
    for (unsigned i = 0; i < 4; ++i) {
      unsigned j = i / 2;
      llvm::Value *x = andOr(b, i ? b.CreateLShr(word, 4 * i) : word,
                             0x000F000Fu, bits.magic * 0x10001u);
      llvm::Value *d = fmaX2(b, spec.aType, x, one, sb[2 + j]);
      quad[i] = fmaX2(b, spec.aType, d, sb[j], negZero);
    }
    quads.push_back(quad);
  }
  kernel.at(KernelPart::Kernel);
  return quads;
}

} // namespace tilec
