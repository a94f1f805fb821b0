//===- codegen/Sm80WeightDequant.cpp - Quantized weights on sm_80 --------===//
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
#include "codegen/WeightDequant.h"
#include "ir/layout/WeightPack.h"

namespace tilec {

namespace {

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
  if (llvm::Error err = checkQuantWeight(
          {spec.aType, spec.bType, spec.bMajor, *spec.weightQuant, spec.bk},
          "BN", spec.bn))
    return err;
  const WeightQuantSpec &quant = *spec.weightQuant;
  Sm80WeightPlan plan;
  plan.quant = quant;
  plan.format = &weightFormatOfB(spec.bType);
  unsigned bits = plan.format->bits;
  plan.packed = packedWeightLayout(bits, spec.bn, spec.bk);
  static_cast<WeightStageBytes &>(plan) =
      weightStageBytes(*plan.format, quant, spec.bn, spec.bk);

  if (llvm::Error err =
          checkWeightFragmentReads(plan.packed, bits, spec.bn, spec.bk))
    return err;
  return plan;
}

Sm80WeightLoads setUpSm80WeightLoads(Sm80Kernel &kernel) {
  llvm::IRBuilder<> &b = kernel.nv.ir();
  const Sm80GemmPlan &plan = kernel.plan;
  Sm80WeightLoads loads;
  loads.plan = &*plan.weight;
  // The warp's first n16 block row, then the lane's 16 bytes.
  unsigned blockRowBytes =
      packedBlockRowBytes(*plan.weight->format, plan.spec.bk);
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
  // Codes: a row is one n16 block row, 2 bits bytes per K (16 channels).
  unsigned perK = 2 * w.format->bits;
  copyVectorTile(kernel,
                 {spec.bn / 16, spec.bk * perK, kernel.b,
                  b.CreateMul(b.CreateZExt(kernel.k, i64), b.getInt64(perK)),
                  b.CreateLShr(kernel.n0, 4), b.CreateLShr(kernel.n, 4),
                  b.CreateMul(kTile, b.getInt32(spec.bk * perK)),
                  b.CreateMul(kernel.kLimit, b.getInt32(perK)),
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
  const WeightFormatInfo &format = *w.format;
  unsigned stepsPerLoad = weightStepsPerLoad(format);
  unsigned kBlocks = spec.bk / unsigned(packedWeightBlockK(format.bits));
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
  if (ks % stepsPerLoad == 0) {
    words.assign(pairs, nullptr);
    llvm::Value *lane = b.CreateAdd(b.CreateMul(stage, b.getInt32(w.codeBytes)),
                                    loads.fragmentBase);
    auto *v4 = llvm::FixedVectorType::get(b.getInt32Ty(), 4);
    for (unsigned p = 0; p < pairs; ++p) {
      unsigned block = w.codeRegion + (p * kBlocks + ks / stepsPerLoad) *
                                          PackedWeightBlockBytes;
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
    for (unsigned p = 0; p < pairs; ++p)
      for (unsigned j = 0; j < 2; ++j) {
        unsigned n = 16 * p + 8 * j; // Past the lane's channel.
        llvm::Value *s = b.CreateAlignedLoad(
            b.getInt16Ty(),
            smemAt(scaleLane, w.scaleRegion + (row * spec.bn + n) * 2),
            llvm::Align(2), "w.scale");
        llvm::Value *z = nullptr;
        if (zeroLane)
          z = b.CreateZExt(
              b.CreateAlignedLoad(
                  b.getInt8Ty(),
                  smemAt(zeroLane, w.zeroRegion + row * spec.bn + n),
                  llvm::Align(1), "w.zero"),
              b.getInt32Ty());
        regs.scaleBase[p][j] = groupScaleBase(b, spec.aType, format, s, z);
      }
  }
  std::vector<std::array<llvm::Value *, 4>> quads;
  for (unsigned p = 0; p < pairs; ++p) {
    llvm::SmallVector<llvm::Value *, 2> step =
        stepWords(b, words[p], ks, format);
    std::array<llvm::Value *, 4> quad;
    for (unsigned i = 0; i < 4; ++i)
      quad[i] = dequantWeightPair(b, spec.aType, format, step, i,
                                  regs.scaleBase[p][i / 2]);
    quads.push_back(quad);
  }
  kernel.at(KernelPart::Kernel);
  return quads;
}

} // namespace tilec
