//===- compiler/GemmProgram.cpp - tilec.gemm's programs -------------------===//
//
// See GemmProgram.h. The text is what python/tilec/_gemm.py wrote before
// this file existed, byte for byte, so that tuned entries (keyed on the
// program's text, compiler/TuneCache.h) stay valid.
//
//===----------------------------------------------------------------------===//
#include "compiler/GemmProgram.h"

#include "codegen/GemmCombinationRules.h"
#include "codegen/GemmTarget.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace tilec {

namespace {

llvm::Error requestError(const llvm::Twine &message) {
  return llvm::createStringError(message.str());
}

/// "kernel NAME {\n" + the lines + "}\n".
std::string programText(llvm::StringRef name,
                        const std::vector<std::string> &lines) {
  std::string text = "kernel " + name.str() + " {\n";
  for (const std::string &line : lines)
    text += line + "\n";
  return text + "}\n";
}

/// C's type: the 16-bit inputs' own, f32 for tf32, bf16 for fp8.
DTypeKind outputType(DTypeKind type) {
  switch (type) {
  case DTypeKind::BF16:
  case DTypeKind::F16:
    return type;
  case DTypeKind::TF32:
    return DTypeKind::F32;
  default:
    return DTypeKind::BF16;
  }
}

/// The tile, stages, mma and schedule lines of \p items.
void addItemLines(const LibraryGemmItems &items,
                  std::vector<std::string> &lines) {
  lines.push_back(llvm::formatv("  tile     (BM = {0}, BN = {1}, BK = {2})",
                                items.bm, items.bn, items.bk));
  lines.push_back(llvm::formatv("  stages   {0}", items.stages));
  if (!items.mma.empty())
    lines.push_back("  mma      " + items.mma);
  if (!items.schedule.empty())
    lines.push_back("  schedule " + items.schedule);
}

/// The problem the row reads: the request's own, with its defaults.
LibraryGemmProblem problemOf(const GemmProgramRequest &r) {
  LibraryGemmProblem problem = r;
  if (!problem.sms)
    problem.sms = 132;
  problem.weightBits = r.weight ? weightFormatInfo(*r.weight).bits : 0;
  return problem;
}

std::string oneTypeProgram(const GemmProgramRequest &r) {
  std::string type = dtypeName(r.type);
  bool aK = r.aMajor == MajorKind::K, bK = r.bMajor == MajorKind::K;
  std::vector<std::string> lines = {
      ("  arch     " + archInfo(r.arch).name).str(),
      llvm::formatv("  a        : {0}[M, K] major({1})", type, aK ? "K" : "M"),
      llvm::formatv("  b        : {0}[N, K] major({1})", type, bK ? "K" : "N"),
      llvm::formatv("  c        : {0}[M, N] major(N)",
                    dtypeName(outputType(r.type))),
      "  acc      f32"};
  addItemLines(gemmTarget(r.arch).libraryItems(problemOf(r)), lines);
  std::string name =
      llvm::formatv("tilec_gemm_{0}_{1}{2}_{3}", type, aK ? "k" : "m",
                    bK ? "k" : "n", archInfo(r.arch).name);
  return programText(name, lines);
}

std::string blockScaledProgram(const GemmProgramRequest &r) {
  // SFA M-major only where the layouts differ.
  LibraryGemmProblem problem = problemOf(r);
  problem.sfaMMajor = r.sfaMMajor && r.m > 1 && (r.k + 127) / 128 > 1;
  // M <= 128 (the decode tiles) fixes M, N and K, so that `schedule auto`
  // sees the tile's CTAs and keeps A and B as written.
  bool fixed = r.m <= 128;
  std::string m = fixed ? std::to_string(r.m) : "M",
              n = fixed ? std::to_string(r.n) : "N",
              k = fixed ? std::to_string(r.k) : "K";
  std::vector<std::string> lines = {
      ("  arch     " + archInfo(r.arch).name).str(),
      llvm::formatv("  a        : e4m3[{0}, {1}] major(K)", m, k),
      llvm::formatv("  b        : e4m3[{0}, {1}] major(K)", n, k),
      llvm::formatv("  c        : bf16[{0}, {1}] major(N)", m, n),
      "  acc      f32",
      std::string("  scale a  f32 block(1, 128)") +
          (problem.sfaMMajor ? " major(M)" : ""),
      "  scale b  f32 block(128, 128)"};
  addItemLines(gemmTarget(r.arch).libraryItems(problem), lines);
  std::string name =
      fixed ? std::string(llvm::formatv("tilec_gemm_fp8_block_{0}x{1}x{2}", r.m,
                                        r.n, r.k))
            : std::string("tilec_gemm_fp8_block");
  return programText(name, lines);
}

/// "a: type ..." and the other refusals of a weight program's request.
llvm::Error checkWeightRequest(const GemmProgramRequest &r) {
  const WeightFormatInfo &format = weightFormatInfo(*r.weight);
  if (r.type != DTypeKind::BF16 && r.type != DTypeKind::F16)
    return requestError("a: type " + dtypeName(r.type) +
                        " (legal with a quantized weight: bf16, f16)");
  if (!gemmTarget(r.arch).hasWeightQuant())
    return requestError(
        "arch " + archInfo(r.arch).name +
        " (legal with a quantized weight: " + weightQuantTargetNames() + ")");
  if (r.zeros && !format.takesZeros)
    return requestError(llvm::Twine(format.name) +
                        " weights have no zero points (legal: zeros only "
                        "with u4 and u8)");
  if (!llvm::is_contained(WeightGroups, int64_t(r.group)))
    return requestError(
        llvm::formatv("group {0} (legal: 32, 64, 128 K per scale)", r.group));
  if (r.blockScaled)
    return requestError("a quantized weight takes no block scales");
  if (!r.tile)
    return llvm::Error::success();
  // A fixed tile: positive, and whole packed blocks of the weight
  // (GemmCombinationRules.h, the rules the verify pass would report).
  const LibraryGemmProblem::Tile &t = *r.tile;
  std::string tile = llvm::formatv("tile (BM = {0}, BN = {1}, BK = {2}), "
                                   "stages {3}, split_k {4}",
                                   t.bm, t.bn, t.bk, t.stages, t.splitK);
  constexpr unsigned Most = 1u << 16;
  for (unsigned v : {t.bm, t.bn, t.bk, t.stages, t.splitK})
    if (v < 1 || v > Most)
      return requestError(tile + ": each must be from 1 to 65536");
  bool mmaA = gemmTarget(r.arch).weightIsMmaA();
  WeightTileFacts facts{format.bits, mmaA ? t.bm : t.bn, mmaA ? "BM" : "BN",
                        t.bk, r.group};
  for (auto family : {weightRowsBreaks, weightKBreaks})
    if (std::vector<GemmCombinationBreak> breaks = family(facts);
        !breaks.empty())
      return requestError(tile + ": " + breaks.front().message);
  return llvm::Error::success();
}

std::string weightProgram(const GemmProgramRequest &r) {
  const WeightFormatInfo &format = weightFormatInfo(*r.weight);
  std::string type = dtypeName(r.type), fmt = format.name;
  LibraryGemmProblem problem = problemOf(r);
  LibraryGemmItems items = gemmTarget(r.arch).libraryItems(problem);
  std::vector<std::string> lines = {
      ("  arch     " + archInfo(r.arch).name).str(),
      llvm::formatv("  a        : {0}[M, K] major(K)", type),
      llvm::formatv("  b        : {0}[N, K] major(K)", fmt),
      llvm::formatv("  c        : {0}[M, N] major(N)", type),
      llvm::formatv("  scale b  {0} group({1}){2}", type, r.group,
                    r.zeros ? " zero(u8)" : ""),
      "  acc      f32",
      llvm::formatv("  tile     (BM = {0}, BN = {1}, BK = {2})", items.bm,
                    items.bn, items.bk),
      llvm::formatv("  stages   {0}", items.stages),
      "  smem a   = auto",
      "  smem b   = auto",
      "  mma      auto"};
  if (!items.schedule.empty())
    lines.push_back("  schedule " + items.schedule);
  lines.push_back("  epilogue " + items.epilogue);
  std::string name = llvm::formatv(
      "tilec_w{0}a16_{1}{2}_{3}{4}_g{5}_{6}x{7}x{8}x{9}{10}", format.bits,
      items.nameTag, type, fmt, r.zeros ? "z" : "", r.group, items.bm, items.bn,
      items.bk, items.stages,
      items.splitK > 1 ? "_split" + std::to_string(items.splitK) : "");
  return programText(name, lines);
}

} // namespace

llvm::Expected<std::string>
gemmProgramSource(const GemmProgramRequest &request) {
  constexpr int64_t Max = std::numeric_limits<int32_t>::max();
  if (request.m < 1 || request.n < 1 || request.k < 1 || request.m > Max ||
      request.n > Max || request.k > Max)
    return requestError(llvm::formatv(
        "M = {0}, N = {1}, K = {2}: each must be from 1 to 2^31 - 1", request.m,
        request.n, request.k));
  const GemmTarget &target = gemmTarget(request.arch);
  if (!target.hasLibraryPrograms())
    return requestError("arch " + archInfo(request.arch).name +
                        " (legal: " + libraryProgramTargetNames() + ")");
  if (request.weight) {
    if (llvm::Error err = checkWeightRequest(request))
      return err;
    return weightProgram(request);
  }
  if (request.blockScaled) {
    if (!target.hasBlockScale() || request.type != DTypeKind::E4M3 ||
        request.aMajor != MajorKind::K || request.bMajor != MajorKind::K)
      return requestError(
          "a block-scaled program is e4m3 with A and B K-major on " +
          blockScaleTargetNames() + "; got " + dtypeName(request.type) +
          " with A " + (request.aMajor == MajorKind::K ? "K" : "M") +
          "-major, B " + (request.bMajor == MajorKind::K ? "K" : "N") +
          "-major on " + archInfo(request.arch).name.str());
    return blockScaledProgram(request);
  }
  switch (request.type) {
  case DTypeKind::BF16:
  case DTypeKind::F16:
  case DTypeKind::TF32:
  case DTypeKind::E4M3:
  case DTypeKind::E5M2:
    break;
  default:
    return requestError("type " + dtypeName(request.type) +
                        " (legal: bf16, f16, tf32, e4m3, e5m2)");
  }
  return oneTypeProgram(request);
}

} // namespace tilec
