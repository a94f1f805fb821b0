//===- bench/CompileLatency.cpp - .tile to PTX, timed in-process ----------===//
//
// Inference engines compile kernels at run time for the shapes they see, so
// a cold compile's latency is a product number. This measures:
//   sm_80: the full embedding-API path, tilec::Compiler::compile of a .tile
//     source (lexing, parsing, Sema, passes, IR building, the LLVM middle
//     end, NVPTX code generation), with the cache cleared before every run;
//   sm_90a: emitSm90Gemm of the default config (IR building, middle end,
//     NVPTX code generation).
// Each is run RUNS times after one warm-up call (target registration); the
// report is the median, min and max, and the median of each stage:
//   front end   Compiler::lower of the same source (cache cleared)
//   IR build    planSm80Gemm + buildSm80GemmModule (sm_80); for sm_90a the
//               total minus the emitPtx stages
//   target      NVPTX target machine lookup (emitPtx)
//   verify      verifyModule (emitPtx)
//   middle end  the LLVM optimization pipeline (emitPtx)
//   codegen     NVPTX instruction selection to PTX text (emitPtx)
// ptxas and driver JIT time are not included (bench/run_compile_latency.sh
// times ptxas on the PTX this writes with --ptx-dir).
//
//   CompileLatency [--runs=N] [--ptx-dir=DIR] [--sm80-only]
//                  [--tilec-middle-end=PIPELINE] [--tilec-codegen-opt=N]
//                  [TILE_FILE]
//
// --sm80-only skips the sm_90a kernel (for profiling the .tile path alone).
// --tilec-codegen-opt=N sets the NVPTX code generator's level (0..3; the
// sm_80 GEMM's Light profile uses 0, sm_90a 3).
// --tilec-middle-end picks the middle end (O3 reproduces the old default) to
// compare compile time and code.
// TILE_FILE defaults to examples/gemm_sm80.tile (relative to the current
// directory).
//
//===----------------------------------------------------------------------===//
#include "codegen/PtxEmitter.h"
#include "codegen/Sm80Gemm.h"
#include "codegen/Sm90Gemm.h"
#include "compiler/Compiler.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

using namespace tilec;

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

/// CPU time of the calling thread in ms: unlike wall time it does not grow
/// when other processes share the cores.
double threadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/// Samples of one quantity over the runs.
struct Samples {
  std::vector<double> ms;
  double median() {
    std::sort(ms.begin(), ms.end());
    return ms.empty() ? 0 : ms[ms.size() / 2];
  }
  double min() {
    return ms.empty() ? 0 : *std::min_element(ms.begin(), ms.end());
  }
  double max() {
    return ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end());
  }
};

/// The emitPtx stages of the latest compile on this thread.
struct StageSamples {
  Samples target, verify, optimize, codegen;
  void add() {
    const PtxEmitTimings &t = lastPtxEmitTimings();
    target.ms.push_back(t.targetMs);
    verify.ms.push_back(t.verifyMs);
    optimize.ms.push_back(t.optimizeMs);
    codegen.ms.push_back(t.codegenMs);
  }
};

[[noreturn]] void fail(llvm::Error err) {
  std::fprintf(stderr, "CompileLatency: %s\n",
               llvm::toString(std::move(err)).c_str());
  std::exit(1);
}

void writePtx(const std::string &dir, const char *name,
              const std::string &ptx) {
  if (dir.empty())
    return;
  std::string path = dir + "/" + name;
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    std::fprintf(stderr, "CompileLatency: cannot write %s: %s\n", path.c_str(),
                 ec.message().c_str());
    std::exit(1);
  }
  os << ptx;
}

void printStages(const char *what, Samples &frontEnd, Samples &irBuild,
                 StageSamples &stages) {
  std::printf("  %s medians: front end %.2f ms, IR build %.2f, target %.2f, "
              "verify %.2f, middle end %.2f, codegen %.2f\n",
              what, frontEnd.median(), irBuild.median(), stages.target.median(),
              stages.verify.median(), stages.optimize.median(),
              stages.codegen.median());
}

void benchSm80(const std::string &source, const std::string &sourceName,
               int runs, const std::string &ptxDir) {
  Compiler compiler;
  compiler.setDiskCache(nullptr); // cold compiles, not reads of the disk cache
  Samples total, cpu, frontEnd, irBuild;
  StageSamples stages;
  std::string ptx;
  GemmSpec spec;
  for (int i = 0; i <= runs; ++i) {
    compiler.clearCache();
    auto start = Clock::now();
    double cpuStart = threadCpuMs();
    auto kernel = compiler.compile(source);
    double ms = msSince(start);
    double cpuMs = threadCpuMs() - cpuStart;
    if (!kernel)
      fail(kernel.takeError());
    if (i == 0) {
      ptx = (*kernel)->ptx;
      spec = (*kernel)->lowered.spec;
      continue;
    }
    if ((*kernel)->ptx != ptx) {
      std::fprintf(stderr, "CompileLatency: run %d gave different PTX\n", i);
      std::exit(1);
    }
    total.ms.push_back(ms);
    cpu.ms.push_back(cpuMs);
    stages.add();
  }
  for (int i = 0; i < runs; ++i) {
    compiler.clearCache();
    auto start = Clock::now();
    auto lowered = compiler.lower(source);
    frontEnd.ms.push_back(msSince(start));
    if (!lowered)
      fail(lowered.takeError());
  }
  for (int i = 0; i < runs; ++i) {
    auto start = Clock::now();
    auto plan = planSm80Gemm(spec);
    if (!plan)
      fail(plan.takeError());
    llvm::LLVMContext context;
    auto module = buildSm80GemmModule(*plan, context);
    if (!module)
      fail(module.takeError());
    irBuild.ms.push_back(msSince(start));
  }
  std::printf("compile %s (sm_80, .tile -> PTX via tilec::Compiler): median "
              "%.2f ms, min %.2f, max %.2f over %d runs; thread CPU median "
              "%.2f ms (%zu bytes of PTX)\n",
              sourceName.c_str(), total.median(), total.min(), total.max(),
              runs, cpu.median(), ptx.size());
  printStages("stage", frontEnd, irBuild, stages);
  writePtx(ptxDir, "gemm_sm80.ptx", ptx);
}

void benchSm90(int runs, const std::string &ptxDir) {
  Sm90GemmConfig config;
  Samples total, cpu, irBuild, frontEnd;
  StageSamples stages;
  std::string ptx;
  for (int i = 0; i <= runs; ++i) {
    auto start = Clock::now();
    double cpuStart = threadCpuMs();
    auto kernel = emitSm90Gemm(config);
    double ms = msSince(start);
    double cpuMs = threadCpuMs() - cpuStart;
    if (!kernel)
      fail(kernel.takeError());
    if (i == 0) {
      ptx = kernel->ptx;
      continue;
    }
    if (kernel->ptx != ptx) {
      std::fprintf(stderr, "CompileLatency: sm_90a run %d gave different PTX\n",
                   i);
      std::exit(1);
    }
    total.ms.push_back(ms);
    cpu.ms.push_back(cpuMs);
    stages.add();
    const PtxEmitTimings &t = lastPtxEmitTimings();
    irBuild.ms.push_back(ms - t.targetMs - t.verifyMs - t.optimizeMs -
                         t.codegenMs);
  }
  std::printf("compile emitSm90Gemm %ux%ux%u s%u (sm_90a): median %.2f ms, "
              "min %.2f, max %.2f over %d runs; thread CPU median %.2f ms "
              "(%zu bytes of PTX)\n",
              config.bm, config.bn, config.bk, config.stages, total.median(),
              total.min(), total.max(), runs, cpu.median(), ptx.size());
  printStages("stage", frontEnd, irBuild, stages);
  writePtx(ptxDir, "gemm_sm90a.ptx", ptx);
}

} // namespace

int main(int argc, char **argv) {
  int runs = 100;
  std::string ptxDir;
  std::string tileFile = "examples/gemm_sm80.tile";
  bool sm80Only = false;
  std::vector<const char *> llvmArgs = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg.consume_front("--runs=")) {
      if (arg.getAsInteger(10, runs) || runs < 1) {
        std::fprintf(stderr, "CompileLatency: --runs needs a positive count\n");
        return 2;
      }
    } else if (arg == "--sm80-only") {
      sm80Only = true;
    } else if (arg.consume_front("--ptx-dir=")) {
      ptxDir = arg.str();
    } else if (arg.starts_with("--tilec-") || arg.starts_with("-tilec-")) {
      llvmArgs.push_back(argv[i]);
    } else if (arg.starts_with("-")) {
      std::fprintf(stderr, "usage: CompileLatency [--runs=N] [--ptx-dir=DIR] "
                           "[--sm80-only] [--tilec-middle-end=PIPELINE] "
                           "[TILE_FILE]\n");
      return 2;
    } else {
      tileFile = arg.str();
    }
  }
  if (!llvm::cl::ParseCommandLineOptions(llvmArgs.size(), llvmArgs.data(), "",
                                         &llvm::errs()))
    return 2;
  auto buffer = llvm::MemoryBuffer::getFile(tileFile);
  if (!buffer) {
    std::fprintf(stderr, "CompileLatency: cannot read %s: %s\n",
                 tileFile.c_str(), buffer.getError().message().c_str());
    return 1;
  }
  benchSm80((*buffer)->getBuffer().str(), tileFile, runs, ptxDir);
  if (!sm80Only)
    benchSm90(runs, ptxDir);
  return 0;
}
