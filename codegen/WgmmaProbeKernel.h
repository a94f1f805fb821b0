//===- codegen/WgmmaProbeKernel.h - One wgmma product on the GPU -*- C++
//-*-===//
//
// The hardware check of descriptor derivation: a one-warpgroup sm_90a kernel
// that copies two shared-memory images (A: 64 x K, B: N x K, each laid out by
// the host from the layout algebra) verbatim from global into dynamic shared
// memory, issues wgmma.mma_async over every K step with the descriptors the
// derivation produced (offset by the runtime shared-memory base, an add to
// their low bits), and stores the f32 accumulators by the documented wgmma
// D-fragment layout as a row-major 64 x N matrix. Built with IRBuilder; the
// wgmma instructions are inline PTX (LLVM has no intrinsic for them).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_WGMMAPROBEKERNEL_H
#define TILEC_CODEGEN_WGMMAPROBEKERNEL_H

#include "ir/arch/DType.h"
#include "ir/arch/SmemDescriptor.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilec {

/// The kernel's entry name: tilec_wgmma_probe(const u8 *a, const u8 *b,
/// float *d), launched with 128 threads and WgmmaProbeSpec::smemBytes() of
/// dynamic shared memory. d holds 64 * N + 1 floats: D row-major, then the
/// shared-memory base address the kernel saw.
inline constexpr const char *WgmmaProbeKernelName = "tilec_wgmma_probe";

/// One 64 x N x K product.
struct WgmmaProbeSpec {
  DTypeKind dtype = DTypeKind::BF16; ///< bf16, f16, tf32, e4m3 or e5m2.
  unsigned n = 64;
  MajorKind aMajor = MajorKind::K;
  MajorKind bMajor = MajorKind::K;
  uint64_t aImageBytes = 0; ///< Multiple of 16.
  uint64_t bImageBytes = 0;
  /// Descriptors per K step for smem base 0 (A at 0, B at bSmemOffset()).
  std::vector<uint64_t> aDescs, bDescs;

  /// Where B's image starts in shared memory: A's size rounded up to 1024.
  uint64_t bSmemOffset() const { return (aImageBytes + 1023) / 1024 * 1024; }
  uint64_t smemBytes() const { return bSmemOffset() + bImageBytes; }
};

/// PTX for \p spec (sm_90a). Fails on an N, type or majorness wgmma lacks.
llvm::Expected<std::string> emitWgmmaProbePtx(const WgmmaProbeSpec &spec);

} // namespace tilec

#endif // TILEC_CODEGEN_WGMMAPROBEKERNEL_H
