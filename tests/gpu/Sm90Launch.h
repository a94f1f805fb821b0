//===- tests/gpu/Sm90Launch.h - Launch an Sm90GemmKernel via runtime/ -*- C++
//-*-===//
//
// The sm_90a GEMM's GPU test and benchmark build kernels straight from an
// Sm90GemmConfig (swap-AB, split-K, persistent, occupancy knobs). This header
// turns one such kernel and one problem into the runtime's launch: the two
// tiled tensor maps (runtime/TensorMap validates every field before the
// driver sees it), the grid, the split-K workspace and counters, and the
// parameters in the order codegen/Sm90Gemm.h documents.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TESTS_GPU_SM90LAUNCH_H
#define TILEC_TESTS_GPU_SM90LAUNCH_H

#include "codegen/Sm90Gemm.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Launch.h"
#include "runtime/TensorMap.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

namespace tilec::sm90test {

/// Everything one launch of the GEMM needs, built once per problem.
struct Sm90Launch {
  rt::TensorMap mapA, mapB;
  rt::DevicePtr c = 0;
  std::uint32_t rowsA = 0, rowsB = 0, k = 0, ldc = 0;
  float alpha = 1, beta = 0;
  rt::DeviceBuffer workspace, counters; ///< split-K only
  rt::LaunchConfig config;
};

/// A 2-D bf16 K-major tensor map over \p rows x \p k elements (row stride
/// \p k), box bk x boxRows, the operand tile's swizzle, zero fill.
inline rt::Result<rt::TensorMap> encodeSm90Operand(rt::DevicePtr base,
                                                   unsigned rows, unsigned k,
                                                   unsigned boxRows,
                                                   unsigned bk,
                                                   unsigned swizzleBytes) {
  auto swizzle = swizzleBytes == 128  ? rt::TensorMapSwizzleKind::B128
                 : swizzleBytes == 64 ? rt::TensorMapSwizzleKind::B64
                                      : rt::TensorMapSwizzleKind::B32;
  rt::TensorMapDesc desc = rt::TensorMapDesc::matrix2d(
      rt::TensorMapDTypeKind::BF16, base, rows, k, k, boxRows, bk, swizzle);
  desc.l2Promotion = rt::TensorMapL2PromotionKind::B256;
  desc.oobFill = rt::TensorMapOobFillKind::Zero;
  auto encoded = rt::encodeTensorMap(desc);
  if (!encoded)
    return encoded.error().withContext("tensor map " +
                                       rt::describeTensorMap(desc));
  return *encoded;
}

/// Prepares C = alpha * A(M x K) * B(N x K)^T + beta * C for \p kernel on a
/// GPU with \p smCount multiprocessors.
inline rt::Result<Sm90Launch>
prepareSm90Gemm(const Sm90GemmKernel &kernel, int smCount, rt::DevicePtr a,
                rt::DevicePtr b, rt::DevicePtr c, unsigned m, unsigned n,
                unsigned k, float alpha, float beta, unsigned splits = 1) {
  const Sm90GemmConfig &config = kernel.config;
  Sm90Launch launch;
  rt::DevicePtr roleA = config.swapAB ? b : a, roleB = config.swapAB ? a : b;
  launch.rowsA = config.swapAB ? n : m;
  launch.rowsB = config.swapAB ? m : n;
  launch.k = k;
  launch.ldc = n;
  launch.c = c;
  launch.alpha = alpha;
  launch.beta = beta;
  rt::Dim3 &grid = launch.config.grid;
  grid.x = (launch.rowsA + config.bm - 1) / config.bm;
  grid.y = (launch.rowsB + config.bn - 1) / config.bn;
  grid.z = config.splitK ? splits : 1;
  if (config.persistent) {
    unsigned tiles = grid.x * grid.y;
    grid.x = std::min<unsigned>(tiles, unsigned(smCount) * config.ctasPerSm);
    grid.y = 1;
  }
  launch.config.block = {kernel.blockThreads};
  launch.config.dynamicSharedBytes = kernel.sharedBytes;
  if (config.splitK) {
    std::uint64_t tiles = std::uint64_t(grid.x) * grid.y;
    auto workspace = rt::DeviceBuffer::allocate(
        sm90WorkspaceBytes(config, tiles, splits));
    if (!workspace)
      return workspace.error().withContext("split-K workspace");
    auto counters = rt::DeviceBuffer::allocate(tiles * 4);
    if (!counters)
      return counters.error().withContext("split-K counters");
    if (rt::Status s = counters->fillBytes(0); !s)
      return s.error().withContext("zero split-K counters");
    launch.workspace = workspace.take();
    launch.counters = counters.take();
  }
  auto mapA = encodeSm90Operand(roleA, launch.rowsA, k, config.bm, config.bk,
                                kernel.a.swizzleBytes);
  if (!mapA)
    return mapA.error();
  auto mapB = encodeSm90Operand(roleB, launch.rowsB, k, config.bn, config.bk,
                                kernel.b.swizzleBytes);
  if (!mapB)
    return mapB.error();
  launch.mapA = *mapA;
  launch.mapB = *mapB;
  return launch;
}

/// Launches \p fn (the kernel's entry) with \p launch.
inline rt::Status launchSm90Gemm(const rt::Function &fn,
                                 const Sm90Launch &launch) {
  return rt::launch(fn, launch.config, launch.mapA, launch.mapB, launch.c,
                    launch.rowsA, launch.rowsB, launch.k, launch.ldc,
                    launch.alpha, launch.beta, launch.workspace.ptr(),
                    launch.counters.ptr());
}

/// bf16 <-> float on the host (round to nearest even), for inputs and the
/// reference; independent of the GPU's conversion.
inline std::uint16_t floatToBf16(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffff) > 0x7f800000)
    return 0x7fc0;
  std::uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
  return std::uint16_t((bits + rounding) >> 16);
}
inline float bf16ToFloat(std::uint16_t h) {
  std::uint32_t bits = std::uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

} // namespace tilec::sm90test

#endif // TILEC_TESTS_GPU_SM90LAUNCH_H
