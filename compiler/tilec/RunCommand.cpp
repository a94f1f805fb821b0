//===- compiler/tilec/RunCommand.cpp - `tilec run`
//-------------------------===//
//
//   tilec run FILE.tile [--kernel NAME] [--m M --n N --k K] [--sim]
//             [--ptx FILE.ptx] [--seed S] [--json] [--integer]
//             [--alpha A --beta B] [--profile] [--sim-shape] [--batch N]
//             [--groups G]
//
// Compiles each kernel of FILE (or the one --kernel names), runs it on fresh
// random inputs with C poisoned, on the GPU or, with --sim, in the PTX
// simulator (runtime/sim/), and checks every element of C against an fp64
// CPU reference (host/KernelCheck.h). One line per kernel:
//   PASS gemm_tn_bf16 136x264x200: 0/35904 wrong (sim)
//   FAIL gemm_tn_bf16 136x264x200: 12/35904 wrong (gpu): C[0][3] = ...
// A batched kernel runs --batch problems (default 3, or the program's fixed
// batch), its size printed as BATCHxMxNxK; a grouped kernel --groups groups
// (default 4, or the program's fixed count) of random sizes, printed as
// gGROUPSxMxNxK (M: A's rows when contiguous, the rows per group when
// masked).
// --ptx runs that PTX instead of the compiled kernel's (hand-edited PTX, a
// mutation). --integer draws small integers, whose exact result is the only
// correct one. --profile (with --sim) prints the PTX lines with the most
// shared-memory wavefronts and executions.
// Exit codes: 0 every kernel passed, 1 a kernel failed or could not run, 2 a
// bad command line.
//
//===----------------------------------------------------------------------===//
#include "compiler/tilec/Command.h"

#include "compiler/Compiler.h"
#include "compiler/TuneSession.h"
#include "host/KernelCheck.h"
#include "host/SimProfileReport.h"
#include "runtime/Backend.h"
#include "runtime/Device.h"
#include "runtime/SimDriver.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>

using namespace tilec;
namespace cl = llvm::cl;

namespace {

cl::SubCommand runCommand("run", "compile each kernel, run it on random "
                                 "inputs (GPU or --sim) and check every "
                                 "element against a CPU reference");

cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                               cl::desc("<FILE.tile>"), cl::sub(runCommand),
                               cl::cat(tilecCategory()));
cl::opt<std::string> kernelName("kernel", cl::desc("run only this kernel"),
                                cl::value_desc("NAME"), cl::sub(runCommand),
                                cl::cat(tilecCategory()));
cl::opt<int64_t> optM("m",
                      cl::desc("M (rows of A and C); each of --m, --n, --k "
                               "left out is the program's fixed extent, "
                               "else the default shape's"),
                      cl::init(0), cl::sub(runCommand),
                      cl::cat(tilecCategory()));
cl::opt<int64_t> optN("n", cl::desc("N (rows of B, columns of C)"), cl::init(0),
                      cl::sub(runCommand), cl::cat(tilecCategory()));
cl::opt<int64_t> optK("k", cl::desc("K (the reduction)"), cl::init(0),
                      cl::sub(runCommand), cl::cat(tilecCategory()));
cl::opt<bool> useSim("sim",
                     cl::desc("run in the PTX simulator instead of the GPU"),
                     cl::sub(runCommand), cl::cat(tilecCategory()));
cl::opt<std::string> ptxFile("ptx",
                             cl::desc("run this PTX instead of the compiled "
                                      "kernel's (same entry and parameters)"),
                             cl::value_desc("FILE.ptx"), cl::sub(runCommand),
                             cl::cat(tilecCategory()));
cl::opt<uint64_t> seed("seed", cl::desc("random seed of the inputs"),
                       cl::init(0), cl::sub(runCommand),
                       cl::cat(tilecCategory()));
cl::opt<bool> json("json", cl::desc("print the results as JSON"),
                   cl::sub(runCommand), cl::cat(tilecCategory()));
cl::opt<bool> integer("integer",
                      cl::desc("small-integer inputs: the exact result is "
                               "the only correct one (tolerance 0)"),
                      cl::sub(runCommand), cl::cat(tilecCategory()));
cl::opt<float> alpha("alpha", cl::desc("alpha (default 1)"), cl::init(1.0f),
                     cl::sub(runCommand), cl::cat(tilecCategory()));
cl::opt<float> beta("beta", cl::desc("beta (default 0; C is random then)"),
                    cl::init(0.0f), cl::sub(runCommand),
                    cl::cat(tilecCategory()));
cl::opt<bool> simShape("sim-shape",
                       cl::desc("use the simulator's default (small, ragged) "
                                "problem on any backend, to compare a GPU run "
                                "with a --sim run"),
                       cl::sub(runCommand), cl::cat(tilecCategory()));
cl::opt<int64_t> optBatch("batch",
                          cl::desc("problems of a batched kernel (default 3, "
                                   "or the program's fixed batch)"),
                          cl::init(0), cl::sub(runCommand),
                          cl::cat(tilecCategory()));
cl::opt<int64_t> optGroups("groups",
                           cl::desc("groups of a grouped kernel (default 4, "
                                    "or the program's fixed count); --m is "
                                    "then A's rows (group contiguous) or the "
                                    "rows per group (group masked)"),
                           cl::init(0), cl::sub(runCommand),
                           cl::cat(tilecCategory()));
cl::opt<bool> profile("profile",
                      cl::desc("with --sim: print the PTX lines with the most "
                               "shared-memory wavefronts and executions"),
                      cl::sub(runCommand), cl::cat(tilecCategory()));

/// The default problem: ragged against every tile; smaller in the
/// simulator, and decode-shaped for a swap-AB kernel; the program's fixed
/// extents where it has them.
RunShape defaultShape(const CompiledKernel &kernel, bool sim) {
  RunShape s =
      sim ? (kernel.swapAB ? RunShape{40, 264, 520} : RunShape{136, 264, 200})
          : (kernel.swapAB ? RunShape{64, 2112, 7168}
                           : RunShape{1000, 1304, 1024});
  // A 4-bit weight: decode-shaped, N and K whole packed blocks (16, 64),
  // ragged against the tile and the last scale group.
  if (kernel.weightQuant)
    s = sim ? RunShape{13, 272, 320} : WeightQuantGpuShape;
  if (kernel.fixedM)
    s.m = kernel.fixedM;
  if (kernel.fixedN)
    s.n = kernel.fixedN;
  if (kernel.fixedK)
    s.k = kernel.fixedK;
  // Several batches, so a wrong batch offset shows.
  if (kernel.batch)
    s.batch = kernel.batch->fixedCount ? kernel.batch->fixedCount : 3;
  // Several groups, one of them empty; contiguous: enough row blocks for a
  // padding block (KernelCheck.h).
  if (kernel.group) {
    s.groups = kernel.group->fixedCount ? kernel.group->fixedCount : 4;
    if (kernel.group->kind == GroupKind::Contiguous && !kernel.fixedM)
      s.m = sim ? 3 * int64_t(kernel.tileM) + 72 : 4000;
  }
  return s;
}

/// "" when \p shape agrees with the program's fixed extents, else what
/// disagrees.
std::string fixedExtentMismatch(const CompiledKernel &kernel,
                                const RunShape &shape) {
  std::string out;
  auto check = [&](const char *name, int64_t fixed, int64_t given) {
    if (fixed && fixed != given)
      out += llvm::formatv("{0}--{1} {2} disagrees with the program's fixed "
                           "extent {3} = {4}",
                           out.empty() ? "" : "; ",
                           llvm::StringRef(name).lower(), given, name, fixed);
  };
  check("M", kernel.fixedM, shape.m);
  check("N", kernel.fixedN, shape.n);
  check("K", kernel.fixedK, shape.k);
  if (kernel.batch)
    check("BATCH", kernel.batch->fixedCount, shape.batch);
  if (kernel.group)
    check("GROUPS", kernel.group->fixedCount, shape.groups);
  return out;
}

/// The sizes and flags that are wrong whatever the program: the exit
/// code after the message, or ExitSuccess.
int checkRunOptions() {
  for (auto [flag, value] : {std::pair{"m", optM.getValue()},
                             {"n", optN.getValue()},
                             {"k", optK.getValue()}})
    if (value < 0) {
      llvm::errs() << "tilec run: --" << flag << " " << value
                   << " must be positive (or left out: the program's fixed "
                      "extent, else the default shape)\n";
      return ExitUsage;
    }
  if (optGroups < 0 || optGroups > 65535) {
    llvm::errs() << "tilec run: --groups " << optGroups
                 << " is out of range; 1 to 65535 are legal\n";
    return ExitUsage;
  }
  if (optBatch < 0 || optBatch > 65535) {
    llvm::errs() << "tilec run: --batch " << optBatch
                 << " is out of range; 1 to 65535 are legal\n";
    return ExitUsage;
  }
  if (profile && !useSim) {
    llvm::errs() << "tilec run: --profile needs --sim (the profile comes "
                    "from the simulator)\n";
    return ExitUsage;
  }
  return ExitSuccess;
}

/// The shape \p kernel runs at: each size left out is the program's fixed
/// extent or the default shape's.
RunShape runShapeOf(const CompiledKernel &kernel) {
  RunShape shape = defaultShape(kernel, useSim || simShape);
  if (optM)
    shape.m = optM;
  if (optN)
    shape.n = optN;
  if (optK)
    shape.k = optK;
  if (optBatch && kernel.batch)
    shape.batch = optBatch;
  if (optGroups && kernel.group)
    shape.groups = optGroups;
  return shape;
}

/// One kernel's --json entry.
llvm::json::Object runEntry(const std::string &name, const RunShape &shape,
                            const KernelCheckResult &r,
                            const KernelCheckOptions &check, double seconds,
                            const rt::SimCounters &counters,
                            const char *where) {
  llvm::json::Object entry{{"kernel", name},
                           {"m", shape.m},
                           {"n", shape.n},
                           {"k", shape.k},
                           {"batch", shape.batch},
                           {"groups", shape.groups},
                           {"backend", where},
                           {"pass", r.pass},
                           {"wrong", int64_t(r.wrong)},
                           {"checked", int64_t(r.checked)},
                           // NaN (an element left poisoned) is not
                           // JSON: null.
                           {"max_error", std::isfinite(r.maxError)
                                             ? llvm::json::Value(r.maxError)
                                             : llvm::json::Value(nullptr)},
                           {"seed", int64_t(check.seed)},
                           {"seconds", seconds}};
  if (useSim)
    entry["warp_instructions"] = int64_t(counters.warpInstructions);
  if (!r.detail.empty())
    entry[r.checked ? "first_wrong" : "error"] = r.detail;
  if (r.nonFinite)
    entry["non_finite"] = int64_t(r.nonFinite);
  if (!r.note.empty())
    entry["note"] = r.note;
  return entry;
}

/// Why \p kernel cannot run on \p device (arch-specific code, sm_90a and
/// sm_100a, runs only on its own GPU), or empty.
std::string archMismatch(const CompiledKernel &kernel,
                         const rt::DeviceInfo &device) {
  unsigned cc = device.computeCapability();
  unsigned needs = archInfo(kernel.arch).computeCapability;
  bool exact = archInfo(kernel.arch).archSpecific;
  if (exact ? cc == needs : cc >= needs)
    return "";
  return llvm::formatv("{0} code needs compute capability {1}.{2}, the GPU "
                       "is {3}.{4}; --sim runs it",
                       archInfo(kernel.arch).name, needs / 10, needs % 10,
                       cc / 10, cc % 10);
}

/// Replaces \p kernel by the winner `tilec tune` remembered for its
/// program, \p options' kernel and \p shape on this GPU, if one matches
/// and still compiles; returns the winner's description ("" for none).
std::string useTunedWinner(Compiler &compiler, llvm::StringRef source,
                           const CompileOptions &options, const RunShape &shape,
                           CompiledKernel &kernel) {
  std::optional<TunedSource> t = tunedSourceForGpu(
      source, options.kernel, std::nullopt, {shape.m, shape.n, shape.k});
  if (!t)
    return "";
  auto compiled = compiler.compile(t->source, options);
  if (!compiled) {
    llvm::consumeError(compiled.takeError());
    return "";
  }
  kernel = **compiled;
  return t->entry.variant.describe();
}

/// "MxNxK", with the batch ("4x...") or the groups ("g4x...") in front.
std::string sizeText(const CompiledKernel &kernel, const RunShape &shape) {
  std::string size = llvm::formatv("{0}x{1}x{2}", shape.m, shape.n, shape.k);
  if (kernel.batch)
    size = std::to_string(shape.batch) + "x" + size;
  if (kernel.group) // g4x...: 4 groups
    size = "g" + std::to_string(shape.groups) + "x" + size;
  return size;
}

int runRun() {
  if (int exit = checkRunOptions(); exit != ExitSuccess)
    return exit;
  if (useSim)
    if (rt::Status s = rt::setBackend(rt::BackendKind::Sim); !s) {
      llvm::errs() << "tilec run: " << s.error().getMessage() << "\n";
      return ExitDiagnostic;
    }
  auto buffer = llvm::MemoryBuffer::getFile(inputFile, /*IsText=*/true);
  if (!buffer) {
    llvm::errs() << "tilec run: error: cannot read '" << inputFile
                 << "': " << buffer.getError().message() << "\n";
    return ExitDiagnostic;
  }
  std::optional<std::string> replacementPtx;
  if (!ptxFile.empty()) {
    auto ptx = llvm::MemoryBuffer::getFile(ptxFile, /*IsText=*/true);
    if (!ptx) {
      llvm::errs() << "tilec run: error: cannot read '" << ptxFile
                   << "': " << ptx.getError().message() << "\n";
      return ExitDiagnostic;
    }
    replacementPtx = (*ptx)->getBuffer().str();
  }
  llvm::StringRef source = (*buffer)->getBuffer();
  auto withFileName = [&](llvm::Error error) {
    std::string text = llvm::toString(std::move(error));
    for (size_t at; (at = text.find("<source>")) != std::string::npos;)
      text.replace(at, 8, inputFile);
    return text;
  };
  Compiler compiler;
  std::vector<std::string> names;
  if (!kernelName.empty()) {
    names.push_back(kernelName);
  } else {
    auto all = compiler.kernelNames(source);
    if (!all) {
      llvm::errs() << withFileName(all.takeError());
      return ExitDiagnostic;
    }
    names = *all;
  }
  if (names.empty()) {
    llvm::errs() << "tilec run: error: '" << inputFile
                 << "' declares no kernel\n";
    return ExitDiagnostic;
  }
  if (replacementPtx && names.size() != 1) {
    llvm::errs() << "tilec run: --ptx replaces one kernel's PTX; name it "
                    "with --kernel ('"
                 << inputFile << "' has " << names.size() << " kernels)\n";
    return ExitUsage;
  }

  auto ctx = rt::Context::create(0);
  if (!ctx) {
    llvm::errs() << "tilec run: error: no usable GPU ("
                 << ctx.error().getMessage()
                 << "); add --sim to run in the PTX simulator\n";
    return ExitDiagnostic;
  }
  const char *where = rt::backendName(rt::activeBackend());
  if (profile)
    rt::setSimProfiling(true);

  bool allPassed = true;
  llvm::json::Array results;
  for (const std::string &name : names) {
    CompileOptions options;
    options.kernel = name;
    options.lineInfo = profile; // the profile names .tile lines
    auto compiled = compiler.compile(source, options);
    if (!compiled) {
      std::string text = withFileName(compiled.takeError());
      llvm::outs() << "FAIL " << name << ": compile error\n";
      llvm::errs() << text;
      results.push_back(llvm::json::Object{
          {"kernel", name}, {"pass", false}, {"error", text}});
      allPassed = false;
      continue;
    }
    CompiledKernel kernel = **compiled;
    if (std::string why = archMismatch(kernel, ctx->device());
        !useSim && !why.empty()) {
      results.push_back(llvm::json::Object{
          {"kernel", name}, {"pass", true}, {"skipped", why}});
      if (!json)
        llvm::outs() << "SKIP " << name << ": " << why << "\n";
      continue;
    }
    if (replacementPtx)
      kernel.ptx = *replacementPtx;
    RunShape shape = runShapeOf(kernel);
    if (std::string bad = fixedExtentMismatch(kernel, shape); !bad.empty()) {
      llvm::errs() << "tilec run: error: kernel '" << name << "': " << bad
                   << "\n";
      return ExitDiagnostic;
    }
    std::string tuned;
    if (!useSim && !replacementPtx)
      tuned = useTunedWinner(compiler, source, options, shape, kernel);
    KernelCheckOptions check;
    check.seed =
        seed ? uint64_t(seed)
             : uint64_t(
                   std::chrono::steady_clock::now().time_since_epoch().count());
    check.integerInputs = integer;
    check.alpha = alpha;
    check.beta = beta;
    check.smCount = ctx->device().smCount;
    rt::takeSimCounters();
    auto begin = std::chrono::steady_clock::now();
    KernelCheckResult r = checkKernel(kernel, shape, check);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
            .count();
    rt::SimCounters counters = rt::takeSimCounters();
    allPassed &= r.pass;
    std::string size = sizeText(kernel, shape);
    results.push_back(
        runEntry(name, shape, r, check, seconds, counters, where));
    if (!tuned.empty())
      (*results.back().getAsObject())["tuned"] = tuned;
    if (json)
      continue;
    llvm::outs() << (r.pass ? "PASS " : "FAIL ") << name << " " << size << ": "
                 << r.wrong << "/" << r.checked << " wrong (" << where << ")";
    if (!r.detail.empty())
      llvm::outs() << ": " << r.detail;
    if (!r.note.empty())
      llvm::outs() << " (" << r.note << ")";
    if (!tuned.empty())
      llvm::outs() << " (tuned: " << tuned << ")";
    llvm::outs() << "\n";
    if (profile)
      printSimProfile(llvm::outs(), llvm::sys::path::filename(inputFile));
  }
  if (json)
    llvm::outs() << llvm::formatv("{0:2}",
                                  llvm::json::Value(std::move(results)))
                 << "\n";
  return allPassed ? ExitSuccess : ExitDiagnostic;
}

CommandRegistration registration(runCommand, runRun);

} // namespace
