//===- compiler/TuneSession.h - One tune run ----------*- C++ -*-===//
//
// The one implementation behind `tilec tune`, the C API's tilec_tune and
// Python's tilec.tune: for each kernel of a program and each shape, plan
// (compiler/Tuner.h), then on the GPU compile the candidates in parallel
// threads, time them and keep the fastest, check it against the CPU
// reference (host/KernelCheck.h) and remember it (compiler/TuneCache.h).
//
// Timing (docs/tune.md): operand copies enough to exceed twice the L2,
// rotated launch by launch; each candidate replays a CUDA graph of several
// launches over the copies; its samples alternate with the current best's,
// and the medians of the paired samples decide. Without a GPU (no driver,
// or TILEC_DEVICE=sim: the simulator times nothing) only a dry run plans.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_TUNESESSION_H
#define TILEC_COMPILER_TUNESESSION_H

#include "compiler/TuneCache.h"
#include "compiler/Tuner.h"

#include "llvm/Support/JSON.h"

#include <functional>
#include <string>
#include <vector>

namespace tilec {

struct TuneRequest {
  std::string kernel; ///< Empty: every kernel of the program.
  std::vector<TuneShape> shapes;
  TuneOptions options;
  /// List what would be timed (the model's figures) without a GPU.
  bool dryRun = false;
  /// Store each checked winner in the tune cache.
  bool remember = true;
  uint64_t seed = 1;
  /// Progress: done and total candidates of the current kernel and shape.
  std::function<void(llvm::StringRef what, size_t done, size_t total)> progress;
};

/// One kernel at one shape.
struct TuneResult {
  TunePlan plan;
  TuneDevice device; ///< Planned for (the GPU, or the model's).
  /// Index of the winner in plan.candidates (0: the baseline); -1 when
  /// nothing was timed (dry run, an error).
  int winner = -1;
  size_t timed = 0;
  /// The winner's check against the CPU reference.
  bool checked = false, checkPassed = false;
  std::string checkDetail;
  bool stored = false;
  std::string skipped; ///< Why this kernel was not tuned (its arch).
  std::string error;
  double seconds = 0;
};

struct TuneReport {
  TuneDevice device;
  bool dryRun = false;
  std::vector<TuneResult> results;
  /// Every result without an error or skip had its winner pass the check.
  bool ok() const;
};

/// Tunes \p source as \p request says. Errors: the program does not compile
/// or names no such kernel, a shape disagrees with a fixed extent, or there
/// is no GPU and this is not a dry run (the message says so).
llvm::Expected<TuneReport> tuneProgram(llvm::StringRef source,
                                       const TuneRequest &request);

/// The report as JSON: the device, then per kernel and shape the plan's
/// counts, every candidate (variant, model figures, median) and the
/// winner.
llvm::json::Value tuneReportToJson(const TuneReport &report);

/// The device tuneProgram would tune on: the GPU's facts, or std::nullopt
/// and why not (no driver, the simulator backend).
std::optional<TuneDevice> currentTuneDevice(std::string &whyNot);

/// The remembered winner of kernel \p kernel (empty: the program's one
/// kernel) of \p source at \p shape on the current GPU, written into the
/// program (compiler/TuneCache.h, tunedSource); std::nullopt when the tune
/// cache is off or empty, there is no GPU, or nothing matches. A shape of
/// zeros takes the kernel's fixed extents (tilec compile, which has no
/// sizes), and finds nothing unless M, N and K are all fixed.
std::optional<TunedSource> tunedSourceForGpu(llvm::StringRef source,
                                             llvm::StringRef kernel,
                                             std::optional<ArchKind> arch,
                                             TuneShape shape);

} // namespace tilec

#endif // TILEC_COMPILER_TUNESESSION_H
