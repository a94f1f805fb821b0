//===- compiler/tilec/TuneCommand.cpp - `tilec tune` ----------------------===//
//
//   tilec tune FILE.tile --shapes M,N,K[;M,N,K...] [--kernel NAME]
//              [--arch A] [--vary tile,stages,schedule,store|all]
//              [--budget-s S] [--top K] [--seed S] [--json] [--dry-run]
//   tilec tune --list [--json]
//   tilec tune --clear [FILE.tile [--kernel NAME]]
//
// Times the variants of what each kernel leaves to the compiler on the GPU
// and remembers the fastest (compiler/TuneSession.h; docs/tune.md). On a
// terminal a progress bar and a ranked table of the --top fastest per
// shape; otherwise one line per kernel and shape:
//   tune gemm 64x2112x7168: best 64x64x64 s13 swap_ab split_k(2) store
//     10.21 us, as written 12.02 us (1.18x); 24 timed; check 0/135168
//     wrong at 64x2112x7168; stored
// --dry-run needs no GPU: per kernel and shape, the candidates it would
// time with the cost model's figures. Without a GPU (or with
// TILEC_DEVICE=sim) anything else is an error: the simulator times
// nothing. Exit codes: 0 success, 1 an error or a winner that failed its
// check, 2 a bad command line.
//
//===----------------------------------------------------------------------===//
#include "compiler/tilec/Command.h"

#include "compiler/TuneCache.h"
#include "compiler/TuneSession.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace tilec;
namespace cl = llvm::cl;

namespace {

cl::SubCommand tuneCommand("tune",
                           "time the variants of what each kernel leaves to "
                           "the compiler on the GPU and remember the fastest");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<FILE.tile>"),
                               cl::sub(tuneCommand), cl::cat(tilecCategory()));
cl::opt<std::string> shapesText("shapes",
                                cl::desc("the problem sizes: M,N,K[;M,N,K...]"),
                                cl::value_desc("M,N,K"), cl::sub(tuneCommand),
                                cl::cat(tilecCategory()));
cl::opt<std::string> kernelName("kernel", cl::desc("tune only this kernel"),
                                cl::value_desc("NAME"), cl::sub(tuneCommand),
                                cl::cat(tilecCategory()));
cl::opt<std::string> archName("arch",
                              cl::desc("target of kernels without an arch "
                                       "line (sm_80, sm_90a, sm_100a)"),
                              cl::sub(tuneCommand), cl::cat(tilecCategory()));
cl::opt<std::string> varyText(
    "vary",
    cl::desc("items to vary beside the program's auto ones: tile, stages, "
             "schedule, store, all (the language requires tile and stages, "
             "so they vary only when named)"),
    cl::value_desc("ITEMS"), cl::sub(tuneCommand), cl::cat(tilecCategory()));
cl::opt<double> budgetS("budget-s",
                        cl::desc("seconds per kernel and shape (default 20; "
                                 "sets how many candidates are timed)"),
                        cl::init(20.0), cl::sub(tuneCommand),
                        cl::cat(tilecCategory()));
cl::opt<unsigned> top("top",
                      cl::desc("rows of the ranked table (default 5; given, "
                               "the table is printed off a terminal too)"),
                      cl::init(5), cl::sub(tuneCommand),
                      cl::cat(tilecCategory()));
cl::opt<uint64_t> seed("seed", cl::desc("random seed of the operands"),
                       cl::init(1), cl::sub(tuneCommand),
                       cl::cat(tilecCategory()));
cl::opt<bool> json("json", cl::desc("print the results as JSON"),
                   cl::sub(tuneCommand), cl::cat(tilecCategory()));
cl::opt<bool> dryRun("dry-run",
                     cl::desc("list the candidates it would time, with the "
                              "cost model's figures (no GPU needed)"),
                     cl::sub(tuneCommand), cl::cat(tilecCategory()));
cl::opt<bool> listEntries("list", cl::desc("list the remembered winners"),
                          cl::sub(tuneCommand), cl::cat(tilecCategory()));
cl::opt<bool> clearEntries("clear",
                           cl::desc("forget the remembered winners (of FILE "
                                    "and --kernel when given)"),
                           cl::sub(tuneCommand), cl::cat(tilecCategory()));

int usage(const llvm::Twine &message) {
  llvm::errs() << "tilec tune: " << message << "\n";
  return ExitUsage;
}

std::string shapeText(const TuneShape &s) {
  return llvm::formatv("{0}x{1}x{2}", s.m, s.n, s.k);
}

std::optional<std::string> readInput(int &exit) {
  auto buffer = inputFile == "-"
                    ? llvm::MemoryBuffer::getSTDIN()
                    : llvm::MemoryBuffer::getFile(inputFile, /*IsText=*/true);
  if (!buffer) {
    llvm::errs() << "tilec tune: error: cannot read '" << inputFile
                 << "': " << buffer.getError().message() << "\n";
    exit = ExitDiagnostic;
    return std::nullopt;
  }
  return (*buffer)->getBuffer().str();
}

int runList() {
  std::optional<TuneCache> cache = TuneCache::fromEnvironment();
  std::vector<TuneEntry> entries =
      cache ? cache->list() : std::vector<TuneEntry>{};
  if (json) {
    llvm::json::Array array;
    for (const TuneEntry &e : entries)
      array.push_back(tuneEntryToJson(e));
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(array)))
                 << "\n";
    return ExitSuccess;
  }
  if (!cache) {
    llvm::outs() << "no tune cache (the disk cache is off)\n";
    return ExitSuccess;
  }
  for (const TuneEntry &e : entries)
    llvm::outs() << llvm::formatv(
        "{0} {1} {2} bucket {3}: {4} {5:F2} us (as written {6:F2} us) on {7} "
        "({8} SMs, driver {9})\n",
        e.key.sourceHash, e.key.kernel, archInfo(e.key.arch).name,
        shapeText(e.key.bucket), e.variant.describe(), e.medianUs, e.baselineUs,
        e.key.deviceName, e.key.smCount, e.key.driverVersion);
  llvm::outs() << entries.size() << " tuned entr"
               << (entries.size() == 1 ? "y" : "ies") << " in "
               << cache->getDirectory() << "\n";
  return ExitSuccess;
}

int runClear() {
  std::optional<TuneCache> cache = TuneCache::fromEnvironment();
  if (!cache) {
    llvm::outs() << "no tune cache (the disk cache is off)\n";
    return ExitSuccess;
  }
  std::string hash;
  if (!inputFile.empty()) {
    int exit = ExitSuccess;
    std::optional<std::string> source = readInput(exit);
    if (!source)
      return exit;
    hash = tuneSourceHash(*source);
  }
  size_t removed = cache->clear(hash, kernelName);
  llvm::outs() << "removed " << removed << " tuned entr"
               << (removed == 1 ? "y" : "ies") << " from "
               << cache->getDirectory() << "\n";
  return ExitSuccess;
}

void printPlan(const TuneResult &r, const TuneDevice &device) {
  const TunePlan &p = r.plan;
  llvm::outs() << llvm::formatv(
      "tune {0} {1} on {2} ({3} SMs): varies {4}; {5} variants, {6} over "
      "shared memory, {7} refused by the compiler; {8} to time\n",
      p.kernel, shapeText(p.shape), device.name, device.smCount,
      describeTuneItems(p.items), p.enumerated, p.smemRefused, p.refused,
      p.candidates.size());
  if (!p.firstRefusal.empty())
    llvm::outs() << "  first refusal: " << p.firstRefusal << "\n";
  llvm::outs() << llvm::formatv("  {0,3} {1,-50} {2,9} {3,6} {4,5} {5,7} {6}\n",
                                "#", "variant", "model_us", "waves", "eff",
                                "smem", "bound");
  for (size_t i = 0; i < p.candidates.size(); ++i) {
    const TuneCandidate &c = p.candidates[i];
    llvm::outs() << llvm::formatv(
        "  {0,3} {1,-50} {2,9:F2} {3,6} {4,5:F2} {5,7} {6}{7}\n", i,
        c.variant.describe(), c.cost.us, int64_t(c.cost.waves),
        c.cost.waveEfficiency, c.cost.smemBytes,
        c.cost.memoryBound ? "memory" : "compute",
        c.baseline ? " (as written)" : "");
  }
}

void printResult(const TuneResult &r, bool table) {
  const TunePlan &p = r.plan;
  std::string head = "tune " + p.kernel + " " + shapeText(p.shape) + ": ";
  if (!r.skipped.empty()) {
    llvm::outs() << head << "skipped: " << r.skipped << "\n";
    return;
  }
  if (r.winner < 0) {
    llvm::outs() << head << "error: " << r.error << "\n";
    return;
  }
  if (table) {
    std::vector<const TuneCandidate *> timed;
    for (const TuneCandidate &c : p.candidates)
      if (c.medianUs > 0)
        timed.push_back(&c);
    std::stable_sort(timed.begin(), timed.end(),
                     [](const TuneCandidate *a, const TuneCandidate *b) {
                       return a->medianUs < b->medianUs;
                     });
    llvm::outs() << llvm::formatv("tune {0} {1}:\n  {2,4} {3,-50} {4,10} "
                                  "{5,9}\n",
                                  p.kernel, shapeText(p.shape), "rank",
                                  "variant", "median_us", "model_us");
    for (size_t i = 0; i < timed.size() && i < top; ++i)
      llvm::outs() << llvm::formatv("  {0,4} {1,-50} {2,10:F2} {3,9:F2}{4}\n",
                                    i + 1, timed[i]->variant.describe(),
                                    timed[i]->medianUs, timed[i]->cost.us,
                                    timed[i]->baseline ? " (as written)" : "");
  }
  const TuneCandidate &best = p.candidates[size_t(r.winner)];
  const TuneCandidate &base = p.candidates[0];
  llvm::outs() << head << "best " << best.variant.describe()
               << llvm::formatv(
                      " {0:F2} us, as written {1:F2} us ({2:F2}x); "
                      "{3} timed",
                      best.medianUs, base.medianUs,
                      best.medianUs > 0 ? base.medianUs / best.medianUs : 0.0,
                      r.timed);
  if (r.checked)
    llvm::outs() << "; check " << (r.checkPassed ? "" : "FAILED ")
                 << r.checkDetail << (r.stored ? "; stored" : "; not stored");
  if (!r.error.empty())
    llvm::outs() << "; error: " << r.error;
  llvm::outs() << "\n";
}

int runTune() {
  if (listEntries && clearEntries)
    return usage("--list and --clear do not go together");
  if (listEntries)
    return runList();
  if (clearEntries)
    return runClear();
  if (inputFile.empty())
    return usage("give a .tile file to tune (or --list, --clear)");
  if (shapesText.getNumOccurrences() == 0)
    return usage("give the problem sizes with --shapes M,N,K[;M,N,K...]");
  llvm::Expected<std::vector<TuneShape>> shapes = parseTuneShapes(shapesText);
  if (!shapes)
    return usage(llvm::toString(shapes.takeError()));
  if (!(budgetS > 0) || budgetS > 86400)
    return usage(llvm::formatv("--budget-s {0} is out of range; 0 < S <= "
                               "86400 seconds",
                               double(budgetS)));
  TuneRequest request;
  request.kernel = kernelName;
  request.shapes = *shapes;
  request.dryRun = dryRun;
  request.seed = seed;
  request.options.budgetS = budgetS;
  request.options.top = top;
  if (!archName.empty()) {
    request.options.arch = parseArch(archName);
    if (!request.options.arch)
      return usage("--arch " + archName +
                   " is not a target; legal: " + listArchNames());
  }
  if (!varyText.empty()) {
    llvm::Expected<unsigned> items = parseTuneItems(varyText);
    if (!items)
      return usage(llvm::toString(items.takeError()));
    request.options.extraItems = *items;
  }
  int exit = ExitSuccess;
  std::optional<std::string> source = readInput(exit);
  if (!source)
    return exit;
  bool terminal = llvm::sys::Process::StandardErrIsDisplayed();
  if (terminal && !dryRun && !json)
    request.progress = [](llvm::StringRef what, size_t done, size_t total) {
      unsigned filled = total ? unsigned(30 * done / total) : 30;
      llvm::errs() << "\r[" << std::string(filled, '#')
                   << std::string(30 - filled, '.') << "] " << done << "/"
                   << total << " " << what.take_front(40)
                   << std::string(40 - std::min<size_t>(40, what.size()), ' ')
                   << (done == total ? "\n" : "");
    };
  llvm::Expected<TuneReport> report = tuneProgram(*source, request);
  if (!report) {
    std::string text = llvm::toString(report.takeError());
    for (size_t at; (at = text.find("<source>")) != std::string::npos;)
      text.replace(at, 8, inputFile);
    llvm::errs() << "tilec tune: error: " << text
                 << (llvm::StringRef(text).ends_with("\n") ? "" : "\n");
    return ExitDiagnostic;
  }
  if (json) {
    llvm::outs() << llvm::formatv("{0:2}", tuneReportToJson(*report)) << "\n";
    return report->ok() ? ExitSuccess : ExitDiagnostic;
  }
  bool table = llvm::sys::Process::StandardOutIsDisplayed() ||
               top.getNumOccurrences() > 0;
  for (const TuneResult &r : report->results) {
    if (dryRun)
      printPlan(r, r.device);
    else
      printResult(r, table);
  }
  return report->ok() ? ExitSuccess : ExitDiagnostic;
}

CommandRegistration registration(tuneCommand, runTune);

} // namespace
