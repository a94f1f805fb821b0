//===- capi/TuneApi.cpp - `tilec tune` and its remembered winners in C ----===//
//
// tilec_tune: compiler/TuneSession.h's tuneProgram with the options as a
// JSON object and the report as JSON text (the same as `tilec tune
// --json`), so C and Python callers get the one implementation.
// tilec_tuned_source: the program with a remembered winner's items written
// in, for a caller that compiles `auto` programs for the shapes it sees.
//
// Example: tilec_tune(src, len, "{\"shapes\": \"64,2112,7168\", "
// "\"dry_run\": true}", &json) lists the candidates it would time.
//
//===----------------------------------------------------------------------===//
#include "capi/CApi.h"

#include "compiler/TuneCache.h"
#include "compiler/TuneSession.h"

#include "llvm/Support/FormatVariadic.h"

using namespace tilec;

namespace {

thread_local std::string tuneReportText, tunedText, tunedNote;

/// The TuneRequest \p json describes, or the error.
llvm::Expected<TuneRequest> requestFromJson(llvm::StringRef json) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(json);
  if (!value)
    return llvm::createStringError("options_json: " +
                                   llvm::toString(value.takeError()));
  const llvm::json::Object *o = value->getAsObject();
  if (!o)
    return llvm::createStringError("options_json is not a JSON object");
  static const char *const known[] = {"shapes", "kernel",   "arch",
                                      "vary",   "budget_s", "dry_run",
                                      "seed",   "remember"};
  for (const auto &[key, unused] : *o)
    if (!llvm::is_contained(known, llvm::StringRef(key)))
      return llvm::createStringError(
          "options_json: unknown key '" + key.str() +
          "'; legal: shapes, kernel, arch, vary, budget_s, dry_run, seed, "
          "remember");
  TuneRequest request;
  std::optional<llvm::StringRef> shapes = o->getString("shapes");
  if (!shapes)
    return llvm::createStringError(
        "options_json: \"shapes\" (a string M,N,K[;M,N,K...]) is required");
  llvm::Expected<std::vector<TuneShape>> parsed = parseTuneShapes(*shapes);
  if (!parsed)
    return parsed.takeError();
  request.shapes = *parsed;
  if (std::optional<llvm::StringRef> kernel = o->getString("kernel"))
    request.kernel = kernel->str();
  if (std::optional<llvm::StringRef> arch = o->getString("arch")) {
    request.options.arch = parseArch(*arch);
    if (!request.options.arch)
      return llvm::createStringError(
          "options_json: arch '" + arch->str() +
          "' is not a target; legal: " + listArchNames());
  }
  if (std::optional<llvm::StringRef> vary = o->getString("vary")) {
    llvm::Expected<unsigned> items = parseTuneItems(*vary);
    if (!items)
      return items.takeError();
    request.options.extraItems = *items;
  }
  if (std::optional<double> budget = o->getNumber("budget_s")) {
    if (!(*budget > 0) || *budget > 86400)
      return llvm::createStringError(llvm::formatv(
          "options_json: budget_s {0} is out of range; 0 < S <= 86400",
          *budget));
    request.options.budgetS = *budget;
  }
  request.dryRun = o->getBoolean("dry_run").value_or(false);
  request.remember = o->getBoolean("remember").value_or(true);
  if (std::optional<int64_t> seed = o->getInteger("seed"))
    request.seed = uint64_t(*seed);
  return request;
}

} // namespace

extern "C" {

tilec_status tilec_tune(const char *source, size_t len,
                        const char *options_json, const char **out_json) {
  return capi::guard([&] {
    if (!source || !options_json || !out_json)
      return capi::fail(TILEC_ERROR_INVALID_ARGUMENT,
                        "source, options_json and out_json must not be null");
    *out_json = nullptr;
    llvm::Expected<TuneRequest> request = requestFromJson(options_json);
    if (!request)
      return capi::fail(TILEC_ERROR_INVALID_ARGUMENT,
                        llvm::toString(request.takeError()));
    llvm::Expected<TuneReport> report =
        tuneProgram(llvm::StringRef(source, len), *request);
    if (!report) {
      std::string message = llvm::toString(report.takeError());
      bool noGpu = message.find("tilec tune times kernels on the GPU") !=
                   std::string::npos;
      return capi::fail(noGpu ? TILEC_ERROR_RUNTIME : TILEC_ERROR_COMPILE,
                        message);
    }
    llvm::raw_string_ostream os(tuneReportText);
    tuneReportText.clear();
    os << tuneReportToJson(*report);
    os.flush();
    *out_json = tuneReportText.c_str();
    return capi::ok();
  });
}

tilec_status tilec_tuned_source(const char *source, size_t len,
                                const char *kernel, int64_t m, int64_t n,
                                int64_t k, const char **out_source,
                                const char **out_note) {
  return capi::guard([&] {
    if (!source || !kernel || !out_source)
      return capi::fail(TILEC_ERROR_INVALID_ARGUMENT,
                        "source, kernel and out_source must not be null");
    *out_source = nullptr;
    if (out_note)
      *out_note = nullptr;
    std::optional<TunedSource> tuned = tunedSourceForGpu(
        llvm::StringRef(source, len), kernel, std::nullopt, {m, n, k});
    if (!tuned)
      return capi::ok();
    tunedText = std::move(tuned->source);
    tunedNote = std::move(tuned->note);
    *out_source = tunedText.c_str();
    if (out_note)
      *out_note = tunedNote.c_str();
    return capi::ok();
  });
}

} // extern "C"
