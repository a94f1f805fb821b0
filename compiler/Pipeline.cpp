//===- compiler/Pipeline.cpp - Running passes over the Tile IR ------------===//
#include "compiler/Pipeline.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <chrono>

namespace tilec {

namespace {
const PassInfo PassTable[] = {
#define TILEC_PASS(NAME, ENTRY, DESCRIPTION) {NAME, ENTRY, DESCRIPTION},
#include "compiler/passes/Passes.def"
};
} // namespace

llvm::ArrayRef<PassInfo> allPasses() { return PassTable; }

std::string listPassNames() {
  std::string out;
  for (const PassInfo &pass : PassTable)
    out += (out.empty() ? "" : ", ") + pass.name.str();
  return out;
}

std::optional<std::vector<const PassInfo *>> parsePassList(llvm::StringRef text,
                                                           std::string &error) {
  std::vector<const PassInfo *> passes;
  llvm::SmallVector<llvm::StringRef> names;
  text.split(names, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef name : names) {
    name = name.trim();
    const PassInfo *found = nullptr;
    for (const PassInfo &pass : PassTable)
      if (pass.name == name)
        found = &pass;
    if (!found) {
      error = "unknown pass '" + name.str() + "'; legal: " + listPassNames();
      return std::nullopt;
    }
    passes.push_back(found);
  }
  if (passes.empty()) {
    error = "--passes names no pass; legal: " + listPassNames();
    return std::nullopt;
  }
  return passes;
}

bool runPipeline(tir::Op &module, llvm::ArrayRef<const PassInfo *> passes,
                 PassContext &context, const PipelineOptions &options) {
  using Clock = std::chrono::steady_clock;
  std::vector<std::pair<llvm::StringRef, double>> times;
  std::string previous;
  if (options.printAfterAll)
    previous = tir::printToString(module, options.printOptions);
  bool ok = true;
  for (const PassInfo *pass : passes) {
    Clock::time_point start = Clock::now();
    ok = pass->run(module, context);
    times.emplace_back(pass->name, std::chrono::duration<double, std::milli>(
                                       Clock::now() - start)
                                       .count());
    if (options.printAfterAll) {
      std::string now = tir::printToString(module, options.printOptions);
      *options.log << "// ----- IR after " << pass->name
                   << (now == previous ? " (unchanged)" : "") << " -----\n";
      if (now != previous)
        *options.log << now;
      previous = std::move(now);
    }
    if (!ok)
      break;
  }
  if (options.timePasses) {
    double total = 0;
    for (const auto &entry : times)
      total += entry.second;
    *options.log << "===-- tilec pass timing (wall clock, ms) --===\n";
    for (const auto &[name, ms] : times)
      *options.log << llvm::format("%10.3f  ", ms) << name << "\n";
    *options.log << llvm::format("%10.3f  ", total) << "total\n";
  }
  return ok;
}

} // namespace tilec
