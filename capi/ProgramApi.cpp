//===- capi/ProgramApi.cpp - The programs tilec.gemm compiles, in C -------===//
//
// tilec_gemm_program: compiler/GemmProgram.h's program for a request, or
// the winner `tilec tune` remembered for it on the current GPU
// (compiler/TuneSession.h's tunedSourceForGpu), the call behind
// python's tilec.gemm.
//
// Example: {arch "sm_90a", dtype "bf16", 64 x 2112 x 7168} gives the
// program `kernel tilec_gemm_bf16_kk_sm_90a` with `tile (BM = 64, BN = 64,
// BK = 64)`, `stages 13`, `schedule swap_ab split_k(2)`; with weight "u4",
// zeros 1 at 16 x 4096 x 4096 `kernel
// tilec_w4a16_sm90_bf16_u4z_g128_64x16x64x16_split4`.
//
//===----------------------------------------------------------------------===//
#include "capi/CApi.h"

#include "codegen/GemmTarget.h"
#include "compiler/GemmProgram.h"
#include "compiler/TuneSession.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

using namespace tilec;

namespace {

thread_local std::string programText, programNote;

/// \p text as a major: "K", or \p other ("M" for A, "N" for B) as MN.
std::optional<MajorKind> parseMajor(const char *text, const char *other) {
  if (!text || llvm::StringRef(text) == "K")
    return MajorKind::K;
  if (llvm::StringRef(text) == other)
    return MajorKind::MN;
  return std::nullopt;
}

} // namespace

extern "C" {

tilec_status tilec_gemm_program(const tilec_gemm_program_request *request,
                                const char **out_source,
                                const char **out_note) {
  return capi::guard([&] {
    if (!request || !out_source)
      return capi::fail(TILEC_ERROR_INVALID_ARGUMENT,
                        "request and out_source must not be null");
    *out_source = nullptr;
    if (out_note)
      *out_note = nullptr;
    // Fields past the caller's struct_size read as zero (tilec.h's ABI).
    tilec_gemm_program_request r{};
    size_t size = std::min(request->struct_size, sizeof r);
    if (size < sizeof(size_t))
      return capi::fail(TILEC_ERROR_INVALID_ARGUMENT,
                        "request->struct_size is unset");
    std::memcpy(&r, request, size);
    GemmProgramRequest program;
    // A field the writer does not take: its name, value and what is legal.
    auto bad = [](const char *field, const char *value, const char *legal) {
      return capi::fail(TILEC_ERROR_INVALID_ARGUMENT,
                        std::string("request->") + field + " " +
                            (value ? value : "NULL") + " (legal: " + legal +
                            ")");
    };
    std::optional<ArchKind> arch = r.arch ? parseArch(r.arch) : std::nullopt;
    if (!arch || !gemmTarget(*arch).hasLibraryPrograms())
      return bad("arch", r.arch, libraryProgramTargetNames().c_str());
    std::optional<DTypeKind> type =
        r.dtype ? parseDType(r.dtype) : std::nullopt;
    // A weight program's activations: gemmProgramSource names the legal
    // ones ("a: type ...").
    if (r.weight && !type)
      return bad("dtype", r.dtype, "bf16, f16 with a weight");
    if (!r.weight &&
        (!type ||
         !llvm::is_contained({DTypeKind::BF16, DTypeKind::F16, DTypeKind::TF32,
                              DTypeKind::E4M3, DTypeKind::E5M2},
                             *type)))
      return bad("dtype", r.dtype, "bf16, f16, tf32, e4m3, e5m2");
    std::optional<MajorKind> aMajor = parseMajor(r.a_major, "M");
    if (!aMajor)
      return bad("a_major", r.a_major, "K, M");
    std::optional<MajorKind> bMajor = parseMajor(r.b_major, "N");
    if (!bMajor)
      return bad("b_major", r.b_major, "K, N");
    program.arch = *arch;
    program.type = *type;
    program.aMajor = *aMajor;
    program.bMajor = *bMajor;
    program.m = r.m;
    program.n = r.n;
    program.k = r.k;
    program.sms = r.sms;
    program.blockScaled = r.block_scaled != 0;
    program.sfaMMajor = r.sfa_m_major != 0;
    if (r.weight) {
      program.weight = parseWeightFormat(r.weight);
      if (!program.weight)
        return capi::fail(TILEC_ERROR_INVALID_ARGUMENT,
                          std::string("request->weight: format '") + r.weight +
                              "' (legal: " + weightFormatNames() + ")");
      if (*aMajor != MajorKind::K || *bMajor != MajorKind::K)
        return capi::fail(TILEC_ERROR_INVALID_ARGUMENT,
                          "request->a_major, b_major: a weight program's A "
                          "and B are K-major (legal: K)");
      program.group = r.group ? r.group : 128;
      program.zeros = r.zeros != 0;
      if (r.tile[0])
        program.tile =
            LibraryGemmProblem::Tile{r.tile[0], r.tile[1], r.tile[2], r.tile[3],
                                     std::max(1u, r.tile[4])};
    }
    llvm::Expected<std::string> source = gemmProgramSource(program);
    if (!source)
      return capi::fail(TILEC_ERROR_INVALID_ARGUMENT,
                        "request: " + llvm::toString(source.takeError()));
    programText = std::move(*source);
    programNote.clear();
    if (r.tuned)
      if (std::optional<TunedSource> tuned =
              tunedSourceForGpu(programText, "", *arch, {r.m, r.n, r.k})) {
        programText = std::move(tuned->source);
        programNote = std::move(tuned->note);
      }
    *out_source = programText.c_str();
    if (out_note && !programNote.empty())
      *out_note = programNote.c_str();
    return capi::ok();
  });
}

} // extern "C"
