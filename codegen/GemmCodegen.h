//===- codegen/GemmCodegen.h - GemmSpec to PTX, per target -------*- C++
//-*-===//
//
// The one entry the compiler calls to turn a lowered GEMM into a loadable
// kernel: PTX text plus everything a launcher needs (entry name, block size,
// dynamic shared memory, tile, parameter list). It dispatches on the spec's
// arch; a target without a GEMM generator yet is a clear error, not a crash.
//
// Kernel parameters of the sm_80 GEMM, in order:
//   A, B, C (global pointers), M, N, K (i32), lda, ldb, ldc (i32, elements),
//   alpha, beta (f32, only with EpilogueScalarKind::Runtime).
// lda is the stride between consecutive rows of the non-contiguous extent of
// A: for a K-major A (M x K, K contiguous) lda >= K, for an M-major A lda >= M.
// Same for B (N x K) and C (N-contiguous: ldc >= N).
// Grid: (ceil(M / tileM) * ceil(N / tileN), 1, 1) CTAs of blockThreads threads
// and sharedBytes bytes of dynamic shared memory (the launcher must raise
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES when it exceeds 48 KiB).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_GEMMCODEGEN_H
#define TILEC_CODEGEN_GEMMCODEGEN_H

#include "ir/GemmSpec.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace tilec {

/// One kernel parameter, in declaration order.
struct KernelParam {
  /// How the parameter is passed (and what a launcher must marshal).
  enum Kind { Pointer, I32, F32 };
  std::string name;
  Kind kind;
};

/// A compiled GEMM kernel and how to launch it.
struct GemmKernelBinary {
  std::string ptx;       ///< PTX text for the spec's arch.
  std::string entryName; ///< The .entry name in \c ptx.
  unsigned blockThreads; ///< Threads per CTA (1-D block).
  unsigned sharedBytes;  ///< Dynamic shared memory per CTA in bytes.
  unsigned tileM, tileN; ///< CTA tile: grid.x = ceil(M/tileM)*ceil(N/tileN).
  std::vector<KernelParam> params; ///< In order.

  /// Number of CTAs for an M x N problem.
  unsigned gridBlocks(unsigned m, unsigned n) const {
    return ((m + tileM - 1) / tileM) * ((n + tileN - 1) / tileN);
  }
};

/// Builds the kernel of \p spec and emits PTX for spec.arch. Errors: an
/// unsupported arch or an illegal spec (message says what would be legal).
llvm::Expected<GemmKernelBinary> emitGemm(const GemmSpec &spec);

/// The LLVM IR of the kernel of \p spec as text, before optimization
/// (`tilec compile --emit=llvm`).
llvm::Expected<std::string> emitGemmLlvmIr(const GemmSpec &spec);

/// Checks \p spec against what the generator of its arch supports; the error
/// names the offending field, its value and the legal values.
llvm::Error checkGemmSpec(const GemmSpec &spec);

/// Checks launch arguments against what the kernel of \p spec assumes: the
/// leading dimensions cover their extents and are multiples of 8 elements
/// (16-byte cp.async vectors; the buffers must be 16-byte aligned too), and
/// M, N, K fit in i32. Launchers call this before a launch.
llvm::Error checkGemmArguments(const GemmSpec &spec, int64_t m, int64_t n,
                               int64_t k, int64_t lda, int64_t ldb,
                               int64_t ldc);

} // namespace tilec

#endif // TILEC_CODEGEN_GEMMCODEGEN_H
