//===- tests/gpu/Sm90DTypeHost.h - Launch a typed sm_90a GEMM -----*- C++ -*-===//
//
// The host side of one sm_90a GEMM launch through runtime/, for any of the
// generator's element types and majornesses: the two tensor maps (element
// type, global extents and box from the kernel's derived operand tiles), the
// kernel parameters in order, grid and shared memory. Shared by the dtype
// GPU test and the fp8 benchmark; single-CTA-per-tile kernels only (no
// split-K, no persistent grid, no clusters: compiler/GemmLauncher has those).
//
// Global layouts: A K-major is M x K (K contiguous), MN-major K x M (M
// contiguous); B likewise with N; C is M x N row-major of config.cType.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TESTS_GPU_SM90DTYPEHOST_H
#define TILEC_TESTS_GPU_SM90DTYPEHOST_H

#include "codegen/Sm90Gemm.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Launch.h"
#include "runtime/TensorMap.h"

#include <string>

namespace tilec::sm90host {

/// The TMA element type that copies \p dtype bit for bit (tf32 as f32,
/// fp8 as u8).
inline rt::TensorMapDTypeKind tmaType(DTypeKind dtype) {
  switch (dtype) {
  case DTypeKind::F16:
    return rt::TensorMapDTypeKind::F16;
  case DTypeKind::BF16:
    return rt::TensorMapDTypeKind::BF16;
  case DTypeKind::TF32:
  case DTypeKind::F32:
    return rt::TensorMapDTypeKind::F32;
  default:
    return rt::TensorMapDTypeKind::U8;
  }
}

/// The tensor map of one operand role: \p rows along MN, \p k along K.
inline rt::Result<rt::TensorMap> encodeOperand(const Sm90OperandTile &tile,
                                               rt::DevicePtr base,
                                               unsigned rows, unsigned k) {
  auto swizzle = rt::tensorMapSwizzleOfBytes(tile.swizzleBytes);
  rt::TensorMapDesc desc =
      tile.major == MajorKind::K
          ? rt::TensorMapDesc::matrix2d(tmaType(tile.dtype), base, rows, k, k,
                                        tile.boxDims[1], tile.boxDims[0],
                                        swizzle)
          : rt::TensorMapDesc::matrix2d(tmaType(tile.dtype), base, k, rows,
                                        rows, tile.boxDims[1], tile.boxDims[0],
                                        swizzle);
  desc.l2Promotion = rt::TensorMapL2PromotionKind::B256;
  desc.oobFill = rt::TensorMapOobFillKind::Zero;
  auto map = rt::encodeTensorMap(desc);
  if (!map)
    return map.error().withContext("tensor map " +
                                   rt::describeTensorMap(desc));
  return map;
}

/// One prepared launch of \p kernel.
struct Sm90Launch {
  rt::KernelArgs args;
  rt::LaunchConfig config;
};

/// C = alpha * A * B^T + beta * C on M x N x K.
inline rt::Result<Sm90Launch>
prepareLaunch(const Sm90GemmKernel &kernel, rt::DevicePtr a, rt::DevicePtr b,
              rt::DevicePtr c, unsigned m, unsigned n, unsigned k, float alpha,
              float beta) {
  const Sm90GemmConfig &config = kernel.config;
  if (config.splitK || config.persistent || config.clusterM != 1)
    return rt::Error("sm90host launches neither split-K, persistent nor "
                     "clustered kernels");
  rt::DevicePtr roleA = config.swapAB ? b : a, roleB = config.swapAB ? a : b;
  unsigned rowsA = config.swapAB ? n : m, rowsB = config.swapAB ? m : n;
  auto mapA = encodeOperand(kernel.a, roleA, rowsA, k);
  if (!mapA)
    return mapA.error().withContext("A role");
  auto mapB = encodeOperand(kernel.b, roleB, rowsB, k);
  if (!mapB)
    return mapB.error().withContext("B role");
  Sm90Launch launch;
  launch.args.add(*mapA).add(*mapB);
  bool storeTma = false;
  if (kernel.staging) {
    // C is M x N row-major (ldc = N); box and swizzle of the staging tile.
    // A C the TMA cannot address or store exactly (N * element bytes not a
    // multiple of 16: the TMA writes whole 16-byte units) gets a zeroed map
    // and storeTma = 0: the kernel stores directly.
    const Sm90EpilogueTile &tile = *kernel.staging;
    rt::TensorMapDesc desc = rt::TensorMapDesc::matrix2d(
        tmaType(config.cType), c, m, n, n, tile.rows, tile.cols,
        rt::tensorMapSwizzleOfBytes(tile.swizzleBytes));
    rt::TensorMap mapC;
    if (rt::validateTensorMap(desc) && n * 2 % 16 == 0) {
      auto encoded = rt::encodeTensorMap(desc);
      if (!encoded)
        return encoded.error().withContext("C (" +
                                           rt::describeTensorMap(desc) + ")");
      mapC = *encoded;
      storeTma = true;
    }
    launch.args.add(mapC);
  }
  launch.args.add(c)
      .add(rowsA)
      .add(rowsB)
      .add(k)
      .add(n) // ldc
      .add(alpha)
      .add(beta)
      .add(rt::DevicePtr(0))
      .add(rt::DevicePtr(0));
  if (kernel.staging)
    launch.args.add(uint32_t(storeTma));
  launch.config.grid = {(rowsA + config.bm - 1) / config.bm,
                        (rowsB + config.bn - 1) / config.bn, 1};
  launch.config.block = {kernel.blockThreads};
  launch.config.dynamicSharedBytes = kernel.sharedBytes;
  return launch;
}

} // namespace tilec::sm90host

#endif // TILEC_TESTS_GPU_SM90DTYPEHOST_H
