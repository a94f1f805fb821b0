//===- host/KernelCheck.h - Run a compiled GEMM and check every element -*-
// C++ -*-===//
//
// What `tilec run` does for one kernel, on whichever backend the runtime
// drives (the GPU or the simulator): fresh random inputs rounded to the
// operand types on the CPU (ir/arch/ElementCodec), C poisoned with all-ones bytes
// (NaN in every float type) or, with beta != 0, random too; one launch
// through GemmLauncher; every element of C compared with an fp64 CPU
// reference of the same rounded inputs. With integerInputs the inputs are
// small integers whose every product and sum is exact in f32, so the only
// correct output is the exact one (tolerance 0): two backends that pass
// agree bit for bit: they are drawn from [-2, 2], or [-1, 1] where the
// exact result of [-2, 2] could pass C's largest finite value (f16's 65504:
// K = 16384 with alpha 1), and a kernel whose result could overflow even
// then is refused with the bound and what would fit. An element that is
// Inf or NaN in the reference too (a real-input result beyond C's range)
// is counted apart, not as wrong. A batched kernel gets shape.batch problems,
// each operand's batches a stride apart with a 16-byte gap between them (a
// broadcast operand, declared without the batch extent, once with stride
// 0), one reference per batch, and the gaps of C checked still poisoned.
// A grouped kernel (codegen/Sm90Group.h) gets random groups: contiguous,
// random block counts per group (group 1 none, a whole padding block after
// group 0) and a random number of valid rows in each group's last block,
// the rest -1; masked, random row counts (group 1 none, group 2 full). Its
// B (and SFB) is one random matrix per group, and every row outside a
// group must keep C's poison.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_HOST_KERNELCHECK_H
#define TILEC_HOST_KERNELCHECK_H

#include "codegen/GemmCodegen.h"

#include <cstdint>
#include <string>

namespace tilec {

/// A problem size; batch problems of it for a batched kernel (1 for
/// others).
struct RunShape {
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;
  /// Groups of a grouped kernel (1 for others); m is then the rows of A
  /// (contiguous) or the rows per group, Mmax (masked).
  int64_t groups = 1;
};

/// The GPU problem of a quantized weight kernel when none is given (tilec run,
/// examples/run_tile): decode-shaped, N and K whole packed blocks (16, 64),
/// ragged against the tiles and the last scale group.
inline constexpr RunShape WeightQuantGpuShape{13, 2064, 4160};

struct KernelCheckOptions {
  std::uint64_t seed = 1;
  bool integerInputs = false;
  /// With integerInputs: the largest |value| drawn (checkKernel lowers 2
  /// to 1 where 2 could overflow C's type).
  int integerMagnitude = 2;
  float alpha = 1.0f, beta = 0.0f;
  /// Multiprocessors for a persistent kernel's grid (0: one CTA per tile).
  unsigned smCount = 0;
  /// Print at most this many wrong elements.
  unsigned maxReported = 5;
};

struct KernelCheckResult {
  bool pass = false;
  std::size_t wrong = 0, checked = 0;
  /// Why it failed: the first wrong elements, or the runtime's error.
  std::string detail;
  /// The largest |got - reference| over the checked elements.
  double maxError = 0;
  /// Elements that are Inf or NaN in the reference and alike in C (beyond
  /// C's range): neither right nor wrong.
  std::size_t nonFinite = 0;
  /// What the check chose that a reader should know (the integer range,
  /// the non-finite elements); empty when nothing.
  std::string note;
};

/// Runs \p kernel on an \p shape problem in the current context and checks
/// every element of C. Needs a current context (rt::Context::create).
KernelCheckResult checkKernel(const GemmKernelBinary &kernel,
                              const RunShape &shape,
                              const KernelCheckOptions &options);

} // namespace tilec

#endif // TILEC_HOST_KERNELCHECK_H
