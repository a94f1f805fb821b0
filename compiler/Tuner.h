//===- compiler/Tuner.h - Measured choice of open items --*- C++ -*-===//
//
// What a program leaves to the compiler (`schedule auto`, `epilogue auto`,
// and with --vary the tile and the stages, which the language requires to
// be written) is decided by rules (codegen/Sm90Heuristic, plan-pipeline's
// `schedule auto`). The tuner measures instead, per kernel and shape:
//
//   1. enumerate the variants of the open items (TuneVariant): the tile
//      BM/BN/BK, stages, swap_ab, split_k, persistent(G), cluster, the
//      store path, from per-target lists (docs/tune.md);
//   2. rank them by a cost model (waves on the SM count, shared memory, a
//      roofline: estimateTuneCost) and keep as many as the budget allows;
//   3. check each kept variant with the compiler's own passes (the program's
//      Tile IR with the variant written in, lowered and checked by the
//      target row: a refusal drops it) until the budget's count is legal;
//   4. on the GPU (compiler/TuneTiming.cpp): compile the survivors in
//      parallel, time each from CUDA graphs over operand copies rotated
//      past the L2, alternating with the current best, check the winner
//      against the CPU reference, and remember it (compiler/TuneCache.h).
//
// The program as written (the rules' pick) is always the first candidate,
// the "baseline", so a tuned kernel is never slower than the untuned one
// by measurement.
//
// Example: planTune of examples/gemm_decode_sm90.tile at 64,2112,7168
// keeps the baseline (swap_ab split_k(2)) and the schedules and store
// paths ranked by the model, each with its waves and predicted time.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_TUNER_H
#define TILEC_COMPILER_TUNER_H

#include "compiler/Compiler.h"
#include "ir/arch/Arch.h"
#include "ir/tile/GemmSpec.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// One problem size to tune for.
struct TuneShape {
  int64_t m = 0, n = 0, k = 0;
  bool operator==(const TuneShape &) const = default;
};

/// Parses `M,N,K[;M,N,K...]` (spaces allowed). The error says which shape
/// and which size is wrong and what is legal.
llvm::Expected<std::vector<TuneShape>> parseTuneShapes(llvm::StringRef text);

/// The shape bucket a tuned entry is stored under: M rounded up to a power
/// of two (decode batches vary; tiles along M are powers of two), N and K
/// exact (weights). Example: 100,4096,7168 -> 128,4096,7168.
TuneShape tuneBucket(const TuneShape &shape);

/// The items a tuner may vary (bits).
enum TuneItemBits : unsigned {
  TuneTile = 1,     ///< tile (BM, BN, BK)
  TuneStages = 2,   ///< stages
  TuneSchedule = 4, ///< schedule: swap_ab, split_k, persistent, cluster
  TuneStore = 8,    ///< the epilogue's store path
};

/// Parses `tile,stages,schedule,store` (or `all`) into TuneItemBits.
llvm::Expected<unsigned> parseTuneItems(llvm::StringRef text);
/// "tile, stages, schedule, store" of \p items; "none" for 0.
std::string describeTuneItems(unsigned items);

/// The values of the items a tuner varies.
struct TuneVariant {
  unsigned bm = 0, bn = 0, bk = 0, stages = 0;
  bool swapAB = false;
  unsigned splitK = 1;
  unsigned persistent = 0; ///< Tile rows of a persistent group; 0: off.
  unsigned clusterM = 1;   ///< cluster(2): 2x1, sharing B
  unsigned clusterN = 1;   ///< cluster_n(2): 1x2, sharing A
  bool storeTma = false;   ///< stmatrix -> tma_store; false: store.
  bool operator==(const TuneVariant &) const = default;

  /// One word per item: `128x256x64 s4 swap_ab split_k(2) persistent(8)
  /// cluster(2) cluster_n(2) tma_store` (the defaults left out; `store` for the
  /// direct store).
  std::string describe() const;
  llvm::json::Object toJson() const;
  static std::optional<TuneVariant> fromJson(const llvm::json::Object &);
};

/// The device a tune is for (the cache key's device) and what the cost
/// model reads of it.
struct TuneDevice {
  std::string name; ///< "NVIDIA H200"
  unsigned smCount = 132;
  int driverVersion = 0;
  unsigned computeCapability = 90;
  uint64_t l2Bytes = 50u << 20;
  uint64_t memoryBytes = 0; ///< Device memory (0: unknown).
  double memoryBytesPerSecond = 4.8e12;

  /// The model's stand-in without a GPU (--dry-run): an H200-like sm_90,
  /// an A100-like sm_80, a B200-like sm_100a device.
  static TuneDevice modelFor(ArchKind arch);
};

/// The cost model's figures for one variant at one shape (docs/tune.md).
struct TuneCost {
  int64_t ctas = 0;          ///< Output tiles x K splits.
  double waves = 0;          ///< ctas / SMs, rounded up.
  double waveEfficiency = 0; ///< ctas / (waves x SMs).
  int64_t smemBytes = 0;     ///< Dynamic shared memory of one CTA.
  double computeUs = 0, memoryUs = 0, l2Us = 0;
  double us = 0;            ///< The predicted time.
  bool memoryBound = false; ///< The L2 or memory side dominates.
};

/// The model's time of \p spec (the variant written in) at \p shape on
/// \p device; an error when the shared memory does not fit.
llvm::Expected<TuneCost> estimateTuneCost(const GemmSpec &spec,
                                          const TuneShape &shape,
                                          const TuneDevice &device);

/// One variant the tuner considers.
struct TuneCandidate {
  TuneVariant variant;
  TuneCost cost;
  bool baseline = false; ///< The program as written.
  /// The compiled form's source: the program's Tile IR with the variant
  /// written in (empty for the baseline: the program itself).
  std::string source;
  /// Filled by timing: the median microseconds of one launch; 0 untimed.
  double medianUs = 0;
  std::string error; ///< Why timing failed, when it did.
};

struct TuneOptions {
  std::optional<ArchKind> arch; ///< --arch for kernels without one
  /// Items to vary beyond the program's `auto` ones (TuneItemBits).
  unsigned extraItems = 0;
  /// Seconds of tuning per kernel and shape; the number of candidates
  /// timed is budgetS / TuneSecondsPerCandidate, from 2 to 64.
  double budgetS = 20;
  /// Rows of the ranked table.
  unsigned top = 5;
};

/// The estimated seconds one candidate costs (compile, load, time).
constexpr double TuneSecondsPerCandidate = 0.5;

/// Candidates timed within \p budgetS seconds.
unsigned tuneCandidateCount(double budgetS);

/// What the tuner will time for one kernel at one shape.
struct TunePlan {
  std::string kernel;
  ArchKind arch = ArchKind::SM80;
  TuneShape shape;
  unsigned items = 0;      ///< TuneItemBits varied.
  int64_t enumerated = 0;  ///< Variants the lists give.
  int64_t smemRefused = 0; ///< Of those, too big for shared memory.
  int64_t refused = 0;     ///< Checked and refused by the compiler.
  /// The baseline first, then the survivors in the model's order.
  std::vector<TuneCandidate> candidates;
  /// The first refusal's message (for a reader wondering why few survive).
  std::string firstRefusal;
};

/// Plans kernel \p kernel of \p source at \p shape for \p device. Errors:
/// the program does not compile, no such kernel, a shape that disagrees
/// with a fixed extent.
llvm::Expected<TunePlan> planTune(Compiler &compiler, llvm::StringRef source,
                                  llvm::StringRef kernel,
                                  const TuneShape &shape,
                                  const TuneOptions &options,
                                  const TuneDevice &device);

/// \p source's Tile IR (after sema) with \p variant's \p items written into
/// kernel \p kernel: the tile, stages, a fixed schedule, the store steps.
llvm::Expected<std::string> applyTuneVariant(llvm::StringRef source,
                                             llvm::StringRef kernel,
                                             const TuneVariant &variant,
                                             unsigned items,
                                             std::optional<ArchKind> arch);

/// The variant \p spec (a lowered kernel) is.
TuneVariant variantOfSpec(const GemmSpec &spec);

/// The items of kernel \p kernel of \p source that the program leaves to
/// the compiler: TuneSchedule for `schedule auto` (or none) on a target
/// with decode or persistent schedules, TuneStore for `epilogue auto` on
/// sm_90a and sm_100a.
llvm::Expected<unsigned> openTuneItems(llvm::StringRef source,
                                       llvm::StringRef kernel,
                                       std::optional<ArchKind> arch);

} // namespace tilec

#endif // TILEC_COMPILER_TUNER_H
