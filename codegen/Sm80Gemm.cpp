//===- codegen/Sm80Gemm.cpp - The sm_80 GEMM: plan and kernel skeleton ----===//
//
// planSm80Gemm checks the spec against what cp.async + ldmatrix + mma.sync
// m16n8k16 can do, resolves the smem layouts (the spec's, or the largest
// swizzle atom that fits, tiled over the stage) and verifies the properties
// the generated code relies on by evaluating the layout. buildSm80GemmModule
// declares the kernel, computes the CTA's tile (grouped rasterization for L2
// reuse) and the warp/lane indices, then hands over to the mainloop and the
// epilogue.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm80Gemm.h"

#include "codegen/EpilogueMath.h"
#include "codegen/PtxEmitter.h"
#include "codegen/TileOrder.h"
#include "ir/arch/Arch.h"
#include "ir/layout/LayoutAlgebra.h"
#include "ir/layout/SwizzleAtom.h"

#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/Support/FormatVariadic.h"

namespace tilec {

namespace {

/// Largest dynamic shared memory an sm_80 CTA may opt into (163 KiB). A
/// function, not a namespace-scope constant: the table of ir/arch/Arch.cpp may be
/// initialized after this file's constants.
unsigned sm80MaxSharedBytes() {
  return archInfo(ArchKind::SM80).maxSharedBytesPerCta;
}

llvm::Error specError(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

/// The largest swizzle atom of \p major whose contiguous width fits
/// \p contigElems elements and whose other extent divides \p otherElems.
llvm::Expected<ComposedLayout> defaultLayout(MajorKind major, DTypeKind dtype,
                                             unsigned mnExtent, unsigned bk) {
  unsigned contig = major == MajorKind::K ? bk : mnExtent;
  unsigned elemBytes = dtypeBits(dtype) / 8;
  for (auto it = allSwizzles().rbegin(); it != allSwizzles().rend(); ++it) {
    if (contig * elemBytes % it->bytes != 0)
      continue;
    ComposedLayout atom = swizzleAtom(major, it->kind, dtype);
    auto tiled = tileToShape(atom, IntTuple{int64_t(mnExtent), int64_t(bk)});
    if (!tiled) {
      llvm::consumeError(tiled.takeError());
      continue;
    }
    return *tiled;
  }
  return specError(llvm::formatv(
      "no swizzle atom fits a {0} x {1} tile (the contiguous extent must be "
      "a multiple of 16 bytes)",
      mnExtent, bk));
}

llvm::Expected<Sm80OperandPlan>
planOperand(const GemmSpec &spec, llvm::StringRef what, MajorKind major,
            unsigned mnExtent, unsigned warpsAlong,
            const std::optional<ComposedLayout> &given) {
  Sm80OperandPlan op;
  op.kMajor = major == MajorKind::K;
  op.mnExtent = mnExtent;
  op.warpsAlong = warpsAlong;
  op.warpExtent = mnExtent / warpsAlong;
  if (given) {
    op.layout = *given;
  } else {
    auto chosen = defaultLayout(major, spec.aType, mnExtent, spec.bk);
    if (!chosen)
      return chosen.takeError();
    op.layout = *chosen;
  }
  auto smem = SmemAddress::get(op.layout, mnExtent, spec.bk, what);
  if (!smem)
    return smem.takeError();
  op.smem = std::move(*smem);

  unsigned contig = op.kMajor ? spec.bk : mnExtent;
  unsigned other = op.kMajor ? mnExtent : spec.bk;
  op.vectorsPerRow = contig / 8;
  unsigned vectors = op.vectorsPerRow * other;
  if (spec.threads() % op.vectorsPerRow != 0 || vectors % spec.threads() != 0)
    return specError(llvm::formatv(
        "the {0} stage ({1} x {2}) is {3} 16-byte vectors, {4} per row; "
        "{5} threads must divide the vectors and be a multiple of the "
        "vectors per row",
        what, mnExtent, spec.bk, vectors, op.vectorsPerRow, spec.threads()));
  op.copiesPerThread = vectors / spec.threads();

  // Every 16-byte vector the copies write and every ldmatrix row must be 8
  // consecutive, aligned offsets.
  for (unsigned row = 0; row < other; ++row)
    for (unsigned v = 0; v < op.vectorsPerRow; ++v) {
      TileCoord start =
          op.kMajor ? TileCoord{row, 8 * v} : TileCoord{8 * v, row};
      if (llvm::Error err = op.smem.checkVector(start, op.kMajor, 8))
        return err;
    }
  unsigned elemsPer128B = 64;
  op.stageElems =
      (op.smem.span() + elemsPer128B - 1) / elemsPer128B * elemsPer128B;
  return op;
}

/// Stages all of each warp's m16 tiles at once if that fits in shared
/// memory, else the fewest passes that fit (tiles per pass dividing the
/// warp's m16 tiles).
llvm::Expected<Sm80StagingPlan> planStaging(const Sm80GemmPlan &plan) {
  const GemmSpec &spec = plan.spec;
  bool nContiguous = spec.cMajor == MajorKind::MN;
  std::optional<Sm80StagingSize> size =
      sm80StagingSize(spec.warpsM, plan.mmaTilesM, spec.bn, nContiguous);
  if (!size)
    return specError(llvm::formatv(
        "the epilogue cannot stage even {0} rows of the {1} x {2} f32 "
        "accumulator tile in {3} bytes of shared memory",
        spec.warpsM * 16, spec.bm, spec.bn, sm80MaxSharedBytes()));
  Sm80StagingPlan staging;
  staging.passes = size->passes;
  staging.tilesPerPass = plan.mmaTilesM / size->passes;
  staging.rows = size->rows;
  staging.bytes = size->bytes;
  auto smem =
      SmemAddress::get(sm80StagingLayout(staging.rows, spec.bn, nContiguous),
                       staging.rows, spec.bn, "the epilogue staging");
  if (!smem)
    return smem.takeError();
  staging.smem = std::move(*smem);
  // The copy loop reads 16-byte vectors (4 f32) along C's contiguous
  // extent; the N-contiguous accumulator stores write pairs.
  unsigned lineLength = nContiguous ? spec.bn : staging.rows;
  unsigned lines = nContiguous ? staging.rows : spec.bn;
  for (unsigned line = 0; line < lines; ++line)
    for (unsigned first = 0; first < lineLength; first += 4) {
      TileCoord start =
          nContiguous ? TileCoord{line, first} : TileCoord{first, line};
      if (llvm::Error err = staging.smem.checkVector(start, nContiguous, 4))
        return err;
    }
  return staging;
}

} // namespace

// Why the padding: a warp's accumulator store of one m16n8 half covers 8
// rows (lane / 4) x 4 column pairs (2 * (lane % 4)). N-contiguous C stores
// each pair as one 8-byte st.shared.v2, executed in two half-warp phases of
// 4 rows x 32 bytes: a row pitch of (bn + 8) * 4 bytes, 32 or 96 mod 128 for
// bn a multiple of 16, starts the 4 rows in 4 different 32-byte quarters of
// the 128-byte bank line (unpadded, bn a multiple of 32 puts all 4 rows on
// the same 8 banks: a 4-way conflict). M-contiguous C stores the pair as two
// 4-byte st.shared of 4 columns (stride 2) x 8 rows: a column pitch of
// (rows + 4) * 4 bytes makes the stride of 2 columns 32 mod 128 bytes (rows
// is a multiple of 16), again 4 distinct quarters. The copy loop's readers
// take consecutive 16-byte vectors of one line, 128 contiguous bytes per
// quarter-warp phase (conflict free while a line holds at least 8 vectors).
// A swizzle would need a power-of-two line; padding works for every bn.
ComposedLayout sm80StagingLayout(unsigned rows, unsigned bn, bool nContiguous) {
  IntTuple shape{IntTuple(int64_t(rows)), IntTuple(int64_t(bn))};
  IntTuple stride =
      nContiguous ? IntTuple{IntTuple(int64_t(bn + 8)), IntTuple(int64_t(1))}
                  : IntTuple{IntTuple(int64_t(1)), IntTuple(int64_t(rows + 4))};
  return ComposedLayout(Swizzle(), 0, Layout(shape, stride));
}

std::optional<Sm80StagingSize> sm80StagingSize(unsigned warpsM,
                                               unsigned mmaTilesM, unsigned bn,
                                               bool nContiguous) {
  for (unsigned passes = 1; passes <= mmaTilesM; ++passes) {
    if (mmaTilesM % passes != 0)
      continue;
    unsigned rows = warpsM * 16 * (mmaTilesM / passes);
    // The size needs only the layout's span, not its address arithmetic.
    uint64_t bytes =
        uint64_t(sm80StagingLayout(rows, bn, nContiguous).cosize()) * 4;
    if (bytes <= sm80MaxSharedBytes())
      return Sm80StagingSize{passes, rows, unsigned(bytes)};
  }
  return std::nullopt;
}

llvm::Expected<Sm80GemmPlan> planSm80Gemm(const GemmSpec &spec) {
  auto typeName = [](DTypeKind t) { return dtypeInfo(t).name.str(); };
  if ((spec.aType != spec.bType && !spec.weightQuant) ||
      (spec.aType != DTypeKind::F16 && spec.aType != DTypeKind::BF16))
    return specError(llvm::formatv(
        "sm_80 mma.sync m16n8k16 takes A and B of the same type, f16 or "
        "bf16; got A = {0}, B = {1}",
        typeName(spec.aType), typeName(spec.bType)));
  if (spec.accType != DTypeKind::F32)
    return specError(
        llvm::formatv("sm_80 GEMM accumulates in f32; got acc = {0}",
                      typeName(spec.accType)));
  if (spec.cType != DTypeKind::F16 && spec.cType != DTypeKind::BF16 &&
      spec.cType != DTypeKind::F32)
    return specError(
        llvm::formatv("sm_80 GEMM stores C as f16, bf16 or f32; got C = {0}",
                      typeName(spec.cType)));
  if (spec.warpsM == 0 || spec.warpsN == 0 || spec.warps() > 16)
    return specError(
        llvm::formatv("warps({0}, {1}) is {2} warps; 1 to 16 warps are legal",
                      spec.warpsM, spec.warpsN, spec.warps()));
  if (spec.bm == 0 || spec.bm % (16 * spec.warpsM) != 0)
    return specError(llvm::formatv(
        "BM = {0} is not a multiple of 16 x warpsM = {1} (each warp owns "
        "whole m16 mma tiles)",
        spec.bm, 16 * spec.warpsM));
  if (spec.bn == 0 || spec.bn % (16 * spec.warpsN) != 0)
    return specError(llvm::formatv(
        "BN = {0} is not a multiple of 16 x warpsN = {1} (each warp owns "
        "pairs of n8 mma tiles, one ldmatrix.x4 each)",
        spec.bn, 16 * spec.warpsN));
  if (spec.bk == 0 || spec.bk % 16 != 0)
    return specError(
        llvm::formatv("BK = {0} is not a multiple of the mma K = 16", spec.bk));
  if (spec.stages < 2 || spec.stages > 8)
    return specError(
        llvm::formatv("stages = {0}; the cp.async pipeline takes 2 to 8 stages",
                      spec.stages));
  if (spec.rasterGroupM == 0)
    return specError("raster group of 0 CTAs; 1 or more are legal");

  Sm80GemmPlan plan;
  plan.spec = spec;
  auto a =
      planOperand(spec, "A", spec.aMajor, spec.bm, spec.warpsM, spec.smemA);
  if (!a)
    return a.takeError();
  plan.a = std::move(*a);
  if (spec.weightQuant) {
    auto weight = planSm80Weight(spec);
    if (!weight)
      return weight.takeError();
    plan.weight = std::move(*weight);
    plan.b.kMajor = true;
    plan.b.mnExtent = spec.bn;
    plan.b.warpsAlong = spec.warpsN;
    plan.b.warpExtent = spec.bn / spec.warpsN;
    plan.b.stageElems = 0;
  } else {
    auto b =
        planOperand(spec, "B", spec.bMajor, spec.bn, spec.warpsN, spec.smemB);
    if (!b)
      return b.takeError();
    plan.b = std::move(*b);
  }

  plan.mmaTilesM = plan.a.warpExtent / 16;
  plan.mmaTilesN = plan.b.warpExtent / 8;
  plan.kSteps = spec.bk / 16;
  plan.prefetchAcrossTiles = plan.kSteps >= 4;
  unsigned accPerThread = plan.mmaTilesM * plan.mmaTilesN * 4;
  plan.profile = accPerThread > 32 && accPerThread <= 64
                     ? PtxOptProfileKind::Light
                     : PtxOptProfileKind::Full;
  if (accPerThread > 128)
    return specError(llvm::formatv(
        "each thread would hold {0} f32 accumulators ({1} x {2} warp tile); "
        "at most 128 fit the register file, use more warps or a smaller tile",
        accPerThread, plan.a.warpExtent, plan.b.warpExtent));
  uint64_t bytes = uint64_t(spec.stages) *
                   (plan.a.stageElems + plan.b.stageElems) *
                   (dtypeBits(spec.aType) / 8);
  if (plan.weight) {
    // A's ring, then the codes', the scales' and the zero points' rings.
    Sm80WeightPlan &w = *plan.weight;
    w.codeRegion = unsigned(bytes);
    w.scaleRegion = w.codeRegion + spec.stages * w.codeBytes;
    w.zeroRegion = w.scaleRegion + spec.stages * w.scaleBytes;
    bytes += uint64_t(spec.stages) * w.stageBytes();
  }
  if (bytes > sm80MaxSharedBytes())
    return specError(llvm::formatv(
        "{0} stages of {1} x {2} and {3} x {2} tiles need {4} bytes of "
        "shared memory; sm_80 allows {5}",
        spec.stages, spec.bm, spec.bk, spec.bn, bytes, sm80MaxSharedBytes()));
  llvm::Expected<Sm80StagingPlan> staging = planStaging(plan);
  if (!staging)
    return staging.takeError();
  plan.staging = std::move(*staging);
  plan.sharedBytes = std::max(unsigned(bytes), plan.staging.bytes);
  if (spec.splitK > 1) {
    plan.splitFlagByte = (plan.sharedBytes + 15) / 16 * 16;
    plan.sharedBytes = plan.splitFlagByte + 16;
    if (plan.sharedBytes > sm80MaxSharedBytes())
      return specError(llvm::formatv(
          "{0} stages and split_k's flag need {1} bytes of shared memory; "
          "sm_80 allows {2}: use fewer stages",
          spec.stages, plan.sharedBytes, sm80MaxSharedBytes()));
  }
  return plan;
}

std::vector<KernelParam> sm80GemmParams(const GemmSpec &spec) {
  std::vector<KernelParam> params = {
      {"A", KernelParam::Pointer}, {"B", KernelParam::Pointer},
      {"C", KernelParam::Pointer}, {"M", KernelParam::I32},
      {"N", KernelParam::I32},     {"K", KernelParam::I32},
      {"lda", KernelParam::I32},   {"ldb", KernelParam::I32},
      {"ldc", KernelParam::I32}};
  if (spec.scalars == EpilogueScalarKind::Runtime) {
    params.push_back({"alpha", KernelParam::F32});
    params.push_back({"beta", KernelParam::F32});
  }
  for (KernelParam &param : epilogueParams(spec.epilogueOps))
    params.push_back(std::move(param));
  if (spec.batch)
    for (const char *name : {"strideA", "strideB", "strideC"})
      params.push_back({name, KernelParam::I64});
  // split_k: the partials' workspace and the tiles' arrival counters
  // (Sm80SplitReduce.cpp; the launcher sizes both).
  if (spec.splitK > 1) {
    params.push_back({"workspace", KernelParam::Pointer});
    params.push_back({"counters", KernelParam::Pointer});
  }
  // A 4-bit weight's group scales sb and zero points zb (GemmSpec.h).
  if (spec.weightQuant) {
    params.push_back({"sb", KernelParam::Pointer});
    if (spec.weightQuant->zeros)
      params.push_back({"zb", KernelParam::Pointer});
  }
  return params;
}

llvm::Expected<std::unique_ptr<llvm::Module>>
buildSm80GemmModule(const Sm80GemmPlan &plan, llvm::LLVMContext &context) {
  const GemmSpec &spec = plan.spec;
  auto module = std::make_unique<llvm::Module>(spec.name, context);
  if (llvm::Error err = configureModuleForArch(*module, spec.arch))
    return err;

  llvm::IRBuilder<> builder(context);
  NvvmBuilder nv(builder);
  std::vector<KernelParam> params = sm80GemmParams(spec);
  llvm::SmallVector<llvm::Type *, 12> types;
  for (const KernelParam &p : params)
    types.push_back(p.kind == KernelParam::Pointer ? builder.getPtrTy(GlobalAS)
                    : p.kind == KernelParam::I32   ? builder.getInt32Ty()
                    : p.kind == KernelParam::I64   ? builder.getInt64Ty()
                                                   : builder.getFloatTy());
  auto *fnType = llvm::FunctionType::get(builder.getVoidTy(), types, false);
  auto *fn = llvm::Function::Create(fnType, llvm::GlobalValue::ExternalLinkage,
                                    spec.name, *module);
  fn->setCallingConv(llvm::CallingConv::PTX_Kernel);
  for (unsigned i = 0; i < params.size(); ++i)
    fn->getArg(i)->setName(params[i].name);
  for (unsigned i = 0; i < 3; ++i)
    fn->addParamAttr(i, llvm::Attribute::NoAlias);
  fn->addParamAttr(0, llvm::Attribute::ReadOnly);
  fn->addParamAttr(1, llvm::Attribute::ReadOnly);
  fn->addFnAttr("nvvm.maxntid", std::to_string(spec.threads()));
  fn->addFnAttr("nvvm.minctasm", "1");

  auto *smemType = llvm::ArrayType::get(builder.getInt8Ty(), 0);
  auto *smem = new llvm::GlobalVariable(
      *module, smemType, false, llvm::GlobalValue::ExternalLinkage, nullptr,
      "tilec_smem", nullptr, llvm::GlobalValue::NotThreadLocal, SharedAS);
  smem->setAlignment(llvm::Align(128));

  auto *entry = llvm::BasicBlock::Create(context, "entry", fn);
  auto *body = llvm::BasicBlock::Create(context, "tile", fn);
  auto *exit = llvm::BasicBlock::Create(context, "exit", fn);
  builder.SetInsertPoint(exit);
  builder.CreateRetVoid();

  builder.SetInsertPoint(entry);
  Sm80Kernel kernel(plan, nv, fn);
  kernel.a = fn->getArg(0);
  kernel.b = fn->getArg(1);
  kernel.c = fn->getArg(2);
  kernel.m = fn->getArg(3);
  kernel.n = fn->getArg(4);
  kernel.k = fn->getArg(5);
  kernel.lda = fn->getArg(6);
  kernel.ldb = fn->getArg(7);
  kernel.ldc = fn->getArg(8);
  if (spec.scalars == EpilogueScalarKind::Runtime) {
    kernel.alpha = fn->getArg(9);
    kernel.beta = fn->getArg(10);
  }
  kernel.smem = smem;
  for (unsigned i = 0; i < params.size(); ++i) {
    if (params[i].name == "sb")
      kernel.sb = fn->getArg(i);
    if (params[i].name == "zb")
      kernel.zb = fn->getArg(i);
    if (params[i].name == "workspace")
      kernel.workspace = fn->getArg(i);
    if (params[i].name == "counters")
      kernel.counters = fn->getArg(i);
  }
  SourceLineInfo lines(*fn, spec.source, builder);
  kernel.lines = &lines;

  // Grouped rasterization (codegen/TileOrder.h): CTAs walk rasterGroupM
  // tile rows column by column so that consecutive CTAs share A and B
  // tiles in L2.
  auto ceilDiv = [&](llvm::Value *x, unsigned d) {
    return builder.CreateUDiv(builder.CreateAdd(x, builder.getInt32(d - 1)),
                              builder.getInt32(d));
  };
  llvm::Value *pid = nv.blockIdX();
  // split_k: work unit pid is split pid % S of tile pid / S.
  if (spec.splitK > 1) {
    kernel.splitZ = builder.CreateURem(pid, builder.getInt32(spec.splitK));
    pid = builder.CreateUDiv(pid, builder.getInt32(spec.splitK));
    kernel.tileId = pid;
  }
  llvm::Value *gridM = ceilDiv(kernel.m, spec.bm);
  llvm::Value *gridN = ceilDiv(kernel.n, spec.bn);
  llvm::Value *inside =
      builder.CreateICmpULT(pid, builder.CreateMul(gridM, gridN));
  builder.CreateCondBr(inside, body, exit);

  builder.SetInsertPoint(body);
  TilePosition tile =
      emitGroupedTile(builder, pid, gridM, gridN, spec.rasterGroupM);
  llvm::Value *pidM = tile.row, *pidN = tile.col;
  if (spec.batch) {
    // Batch z = %ctaid.z: this CTA's A, B and C start z * stride elements
    // in (the strides are the last three parameters; 0 broadcasts).
    llvm::Value *z = builder.CreateZExt(nv.blockIdZ(), builder.getInt64Ty());
    unsigned first = unsigned(params.size()) - 3;
    DTypeKind types[3] = {spec.aType, spec.bType, spec.cType};
    llvm::Value **ptrs[3] = {&kernel.a, &kernel.b, &kernel.c};
    for (unsigned i = 0; i < 3; ++i) {
      llvm::Value *bytes =
          builder.CreateMul(builder.CreateMul(z, fn->getArg(first + i)),
                            builder.getInt64(dtypeBits(types[i]) / 8));
      *ptrs[i] = builder.CreateGEP(builder.getInt8Ty(), *ptrs[i], bytes,
                                   params[first + i].name + ".batch");
    }
  }
  kernel.m0 = builder.CreateMul(pidM, builder.getInt32(spec.bm), "m0");
  kernel.n0 = builder.CreateMul(pidN, builder.getInt32(spec.bn), "n0");

  kernel.tid = nv.threadIdX();
  llvm::Value *warp = builder.CreateLShr(kernel.tid, 5, "warp");
  kernel.lane = builder.CreateAnd(kernel.tid, 31, "lane");
  kernel.warpM = builder.CreateURem(warp, builder.getInt32(spec.warpsM));
  kernel.warpN = builder.CreateUDiv(warp, builder.getInt32(spec.warpsM));

  // The k-tiles of this CTA: split z's share (without a split the
  // mainloop counts them all).
  kernel.kLimit = kernel.k;
  if (spec.splitK > 1) {
    llvm::Value *kTilesAll = ceilDiv(kernel.k, spec.bk);
    auto umin = [&](llvm::Value *x, llvm::Value *y) {
      return builder.CreateBinaryIntrinsic(llvm::Intrinsic::umin, x, y);
    };
    llvm::Value *per = ceilDiv(kTilesAll, spec.splitK);
    kernel.kTileBegin = umin(builder.CreateMul(kernel.splitZ, per), kTilesAll);
    llvm::Value *end =
        umin(builder.CreateAdd(kernel.kTileBegin, per), kTilesAll);
    kernel.kTiles = builder.CreateSub(end, kernel.kTileBegin, "k.tiles");
    kernel.kLimit =
        umin(kernel.k, builder.CreateMul(end, builder.getInt32(spec.bk)));
  }

  emitSm80Mainloop(kernel);
  if (spec.splitK > 1)
    emitSm80SplitReduce(kernel, exit);
  kernel.at(KernelPart::Epilogue);
  emitSm80Epilogue(kernel);
  kernel.at(KernelPart::Kernel);
  builder.CreateBr(exit);
  lines.finish();
  return module;
}

} // namespace tilec
