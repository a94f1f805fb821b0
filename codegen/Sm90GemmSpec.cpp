//===- codegen/Sm90GemmSpec.cpp - GemmSpec to the sm_90a generator --------===//
//
// Checks what the sm_90a generator implements and copies the tile over; the
// generator's own verifier then checks the tile against the wgmma and
// swizzle atoms.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90GemmSpec.h"

#include "ir/LayoutExpr.h"

#include <algorithm>
#include <tuple>

namespace tilec {

llvm::Expected<Sm90GemmConfig> sm90ConfigFromSpec(const GemmSpec &spec) {
  auto fail = [](const std::string &message) {
    return llvm::createStringError(message);
  };
  if (spec.arch != ArchKind::SM90a)
    return fail("the sm_90a generator got a spec for " +
                archInfo(spec.arch).name.str());
  auto typeName = [](DTypeKind kind) { return dtypeInfo(kind).name.str(); };
  if (spec.aType != DTypeKind::BF16 || spec.bType != DTypeKind::BF16 ||
      spec.cType != DTypeKind::BF16 || spec.accType != DTypeKind::F32)
    return fail("sm_90a GEMM types a=" + typeName(spec.aType) +
                " b=" + typeName(spec.bType) + " c=" + typeName(spec.cType) +
                " acc=" + typeName(spec.accType) +
                " are not implemented; a, b, c bf16 with acc f32 are");
  if (spec.aMajor != MajorKind::K || spec.bMajor != MajorKind::K)
    return fail("sm_90a GEMM needs A and B K-major (a TN GEMM); MN-major "
                "operands (transposed wgmma descriptors) are not implemented");
  if (spec.cMajor != MajorKind::MN)
    return fail("sm_90a GEMM stores C row-major (major(N)) only");
  // The generator builds SW128 K-major stage tiles (codegen/Sm90Gemm.h); a
  // different smem layout in the spec is not silently replaced.
  for (auto [name, layout, rows] :
       {std::tuple{"a", &spec.smemA, spec.bm}, {"b", &spec.smemB, spec.bn}}) {
    if (!*layout)
      continue;
    std::string expr = "tile_to_shape(K_SW128<bf16>, (" + std::to_string(rows) +
                       ", " + std::to_string(spec.bk) + "))";
    auto expected = evaluateLayoutExpr(expr);
    if (!expected)
      return expected.takeError();
    if (!expected->isComposed() || !(expected->getComposed() == **layout))
      return fail(std::string("smem ") + name + " = " + (*layout)->str() +
                  " is not implemented by the sm_90a generator; it stages " +
                  expr + " (write that or 'auto')");
  }
  Sm90GemmConfig config;
  if (!spec.name.empty())
    config.name = spec.name;
  config.bm = spec.bm;
  config.bn = spec.bn;
  config.bk = spec.bk;
  config.stages = spec.stages;
  config.swapAB = spec.swapAB;
  if (spec.splitK == 0)
    return fail("split_k(0) is not a split; use 1 (no split) or more");
  config.splitK = spec.splitK > 1;
  if (llvm::Error err = verifySm90GemmConfig(config))
    return err;
  return config;
}

GemmKernelBinary sm90GemmBinary(Sm90GemmKernel kernel, unsigned splits) {
  const Sm90GemmConfig &config = kernel.config;
  GemmKernelBinary binary;
  binary.arch = ArchKind::SM90a;
  binary.ptx = std::move(kernel.ptx);
  binary.entryName = std::move(kernel.entry);
  binary.blockThreads = kernel.blockThreads;
  binary.sharedBytes = kernel.sharedBytes;
  // The kernel's A role is the user's B under swap-AB.
  binary.tileM = config.swapAB ? config.bn : config.bm;
  binary.tileN = config.swapAB ? config.bm : config.bn;
  binary.swapAB = config.swapAB;
  binary.splitK = config.splitK ? std::max(2u, splits) : 1;
  binary.persistent = config.persistent;
  // The epilogue stores bf16 pairs when ldc is even, else single elements.
  binary.ldcMultiple = 1;
  binary.cAlignBytes = 4;
  binary.ctasPerSm = config.ctasPerSm;
  // 2x1 clusters along grid x (the kernel's A role); see Sm90Gemm.h.
  binary.cluster = {config.clusterM, 1, 1};
  using P = KernelParam;
  binary.params = {
      {"tmapA", P::TensorMap},   {"tmapB", P::TensorMap}, {"c", P::Pointer},
      {"rowsA", P::I32},         {"rowsB", P::I32},       {"k", P::I32},
      {"ldc", P::I32},           {"alpha", P::F32},       {"beta", P::F32},
      {"workspace", P::Pointer}, {"counters", P::Pointer}};
  auto plan = [&](const char *param, bool roleA) {
    const Sm90OperandTile &tile = roleA ? kernel.a : kernel.b;
    TensorMapPlan map;
    map.param = param;
    map.matrix = (roleA != config.swapAB) ? 'A' : 'B';
    map.dtype = DTypeKind::BF16;
    map.major = MajorKind::K;
    map.boxInner = tile.boxDims[0];
    map.boxOuter = tile.boxDims[1]; // B: rows / clusterM under multicast
    map.swizzleBytes = tile.swizzleBytes;
    return map;
  };
  binary.tensorMaps = {plan("tmapA", true), plan("tmapB", false)};
  return binary;
}

} // namespace tilec
