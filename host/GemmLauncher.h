//===- host/GemmLauncher.h - Launch a compiled GEMM in one call -*- C++
//-*-===//
//
// The last step of the embedding API: a GemmKernelBinary (or the
// CompiledKernel that Compiler::compile returns) plus device buffers and a
// problem size become a launch, for sm_80 and sm_90a kernels alike. The
// launcher
//   - checks the arguments first, on the CPU, and names what is wrong with
//     its numbers: sizes, leading dimensions (16-byte rows), alignment of
//     the buffers, alpha/beta on a kernel without them;
//   - builds the sm_90a tensor maps from the kernel's TensorMapPlans (dtype,
//     dims, strides, box, swizzle: derived by the compiler, not re-invented
//     here) and has runtime/TensorMap validate them;
//   - keeps a zeroed split-K workspace and tile counters, grown on demand;
//   - fills the parameters in the kernel's order, by name, and launches
//     with the kernel's grid, block, shared memory and cluster.
//
//   auto kernel = compiler.compile(source);             // .tile -> PTX
//   if (!kernel) ...;
//   rt::Status s = tilec::launchGemm(**kernel, a.ptr(), b.ptr(), c.ptr(),
//                                    m, n, k, lda, ldb, ldc, 1.0f, 0.0f);
//
// runtime/ knows nothing of the compiler; this file is where they meet.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_HOST_GEMMLAUNCHER_H
#define TILEC_HOST_GEMMLAUNCHER_H

#include "codegen/GemmCodegen.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Launch.h"
#include "runtime/Module.h"
#include "runtime/Status.h"
#include "runtime/TensorMap.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

struct CUstream_st;

namespace tilec {

/// One GEMM problem: C = alpha * A * B^T + beta * C with A M x K, B N x K
/// (stored as the kernel's majorness says) and C M x N row-major. Leading
/// dimensions are in elements.
struct GemmProblem {
  rt::DevicePtr a = 0, b = 0, c = 0;
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;
  float alpha = 1.0f, beta = 0.0f;
  /// What an epilogue op reads (ir/tile/EpilogueOps.def's operand columns): a
  /// vector (bias in C's dtype or the type `bias(col, T)` names, scale in
  /// f32; N elements for `(col)`, N/2 after swiglu, M for `(row)`), or a
  /// matrix of C's shape, row-major with leading dimension ld in elements
  /// (residual: its ldr). Unset (0) when the kernel has no such op.
  struct EpilogueOperand {
    rt::DevicePtr ptr = 0;
    int64_t ld = 0;
  };
  /// By the op that reads them: operand(EpilogueOpKind::Bias).ptr = ...
  std::array<EpilogueOperand, EpilogueOpCount> operands{};
  EpilogueOperand &operand(EpilogueOpKind kind) {
    return operands[size_t(kind)];
  }
  const EpilogueOperand &operand(EpilogueOpKind kind) const {
    return operands[size_t(kind)];
  }
  /// Block scales of a block-scaled fp8 kernel (`scale a f32 block(1,
  /// 128)`, `scale b f32 block(128, 128)`): sfa f32[M, ceil(K / 128)] and
  /// sfb f32[ceil(N / 128), ceil(K / 128)], row-major, 4-byte aligned; 0
  /// for an unscaled kernel.
  rt::DevicePtr sfa = 0, sfb = 0;
  /// A quantized weight kernel (GemmKernelBinary::weightQuant): b holds the
  /// packed codes (ir/layout/WeightPack.h, N * K * bits / 32 words, ldb = K), sb
  /// the group
  /// scales [ceil(K / group), N] in A's type and zb, with zero points, the
  /// u8 zero points [ceil(K / group), N], both row-major and 16-byte
  /// aligned; 0 for other kernels.
  rt::DevicePtr sb = 0, zb = 0;
  /// A batched kernel (GemmKernelBinary::batch): batch problems, operand X
  /// of batch z at X + z * strideX elements; a stride of 0 broadcasts the
  /// operand (the only legal stride of one declared without the batch
  /// extent). An unbatched kernel takes batch = 1 and strides 0.
  int64_t batch = 1;
  int64_t strideA = 0, strideB = 0, strideC = 0;
  /// A grouped kernel (GemmKernelBinary::group, codegen/Sm90Group.h): G
  /// groups, B the G dense N x ldb matrices [G, N, K] (and SFB f32[G,
  /// ceil(N / 128), ceil(K / 128)]).
  ///   contiguous: A [M, K], C [M, N]; groupIndex an int32[M] on the device,
  ///     each row's group, -1 for padding (every group starting on a
  ///     multiple of the kernel's tileM rows); SFA f32[M, ceil(K / 128)].
  ///   masked: M is the rows per group (Mmax): A the G dense M x lda
  ///     matrices, C the G dense M x ldc; groupRows an int32[G] on the
  ///     device, each group's valid rows; SFA f32[G, M, ceil(K / 128)].
  /// The device tensors' values are not checked (the launcher does not
  /// read them): a group index outside [0, G) marks padding, a count is
  /// clamped to [0, M]. 0 and groups 1 for an ungrouped kernel.
  int64_t groups = 1;
  rt::DevicePtr groupIndex = 0, groupRows = 0;
};

/// Checks \p problem against what \p kernel assumes, without a GPU: M, N, K
/// from 1 to 2^31 - 1; lda, ldb, ldc cover their extents and are whole
/// 16-byte rows; A, B, C non-null and 16-byte aligned; alpha = 1 and beta =
/// 0 for a kernel without epilogue scalars; the epilogue ops' operands
/// present exactly when an op reads them, aligned to their element, ldr
/// covering C's columns; with swiglu N even, C (and ldc) N / 2 wide and
/// beta = 0; sfa and sfb present (4-byte aligned) exactly when the kernel
/// is block-scaled (grouped: SFA and SFB per group, GemmProblem::groups);
/// for a grouped kernel groups from 1 to 65535, groupIndex (contiguous) or
/// groupRows (masked) present, 4-byte aligned, and beta = 0; for a batched
/// kernel a batch of 1 to 65535 (grid z),
/// non-negative strides that keep every batch 16-byte aligned, strideC at
/// least M * ldc (batches of C do not overlap) unless batch = 1. The error
/// says which argument, its value and what would be legal.
rt::Status checkGemmProblem(const GemmKernelBinary &kernel,
                            const GemmProblem &problem);

/// The tensor maps \p kernel needs for \p problem (sm_90a: A's, B's and
/// with a TMA-store epilogue C's, in parameter order; empty for sm_80),
/// validated by runtime/TensorMap. A map with a fallback flag that the
/// problem cannot have (C's, when C or ldc is not 16-byte aligned) is
/// std::nullopt; any other invalid map is an error.
rt::Result<std::vector<std::optional<rt::TensorMapDesc>>>
gemmTensorMaps(const GemmKernelBinary &kernel, const GemmProblem &problem);

/// One launch, checked and prepared (tensor maps encoded, workspace sized):
/// issue it any number of times with GemmLauncher::launch(prepared). Valid
/// while its GemmLauncher lives.
struct PreparedGemm {
  rt::LaunchConfig config;
  rt::KernelArgs args;
};

/// A GEMM kernel loaded into the current context, with its split-K
/// workspace. Movable, not copyable. Split-K launches through one launcher
/// share its tile counters, so issue them on one stream (or use one
/// launcher per stream).
class GemmLauncher {
public:
  /// JIT-loads \p kernel's PTX into the current context. \p smCount (the
  /// GPU's multiprocessors) sizes a persistent kernel's grid; 0 launches one
  /// CTA per tile.
  static rt::Result<GemmLauncher> create(GemmKernelBinary kernel,
                                         unsigned smCount = 0);

  /// Checks \p problem (checkGemmProblem), prepares the tensor maps and
  /// workspace and launches on \p stream (null: the default stream).
  /// Asynchronous: a fault shows up at the next synchronize.
  rt::Status launch(const GemmProblem &problem, CUstream_st *stream = nullptr);

  /// Everything launch() does before the launch itself, for a problem that
  /// is launched many times (benchmarks, an engine's fixed shapes).
  rt::Result<PreparedGemm> prepare(const GemmProblem &problem,
                                   CUstream_st *stream = nullptr);
  /// Launches a prepared problem: one driver call, no checks (prepare()
  /// checked the launch once, rt::checkLaunch). A PreparedGemm whose config
  /// or arguments are changed afterwards must pass rt::checkLaunch again.
  rt::Status launch(const PreparedGemm &prepared) const;

  /// The kernel being launched.
  const GemmKernelBinary &kernel() const { return *binary; }
  /// The loaded kernel.
  const rt::Function &function() const { return fn; }

private:
  GemmLauncher(std::unique_ptr<GemmKernelBinary> binary, rt::Module module,
               rt::Function fn, unsigned smCount)
      : binary(std::move(binary)), module(std::move(module)), fn(std::move(fn)),
        smCount(smCount) {}

  std::unique_ptr<GemmKernelBinary> binary;
  rt::Module module;
  rt::Function fn;
  unsigned smCount = 0;
  rt::DeviceBuffer workspace, counters;
  /// Outgrown workspaces, kept so that earlier PreparedGemms stay valid.
  std::vector<rt::DeviceBuffer> retired;
};

/// Launches \p kernel on one problem: C = alpha * A * B^T + beta * C. The
/// loaded module is cached per (current context, kernel PTX), so repeated
/// calls cost a lookup; the cache lives until the process exits.
rt::Status launchGemm(const GemmKernelBinary &kernel, rt::DevicePtr a,
                      rt::DevicePtr b, rt::DevicePtr c, int64_t m, int64_t n,
                      int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                      float alpha = 1.0f, float beta = 0.0f,
                      CUstream_st *stream = nullptr);

} // namespace tilec

#endif // TILEC_HOST_GEMMLAUNCHER_H
