//===- runtime/sim/TmaUnit.h - Tensor maps and TMA copies -*- C++ -*-===//
//
// The simulated driver's cuTensorMapEncodeTiled: the same validation rules as
// the driver documents (rank, alignment, strides, box extents, the swizzle
// span, element strides), then the description packed into the 128-byte
// CUtensorMap (the simulator's own format, with a magic word, so a kernel
// that reads any other 128 bytes as a tensor map is caught). And the TMA unit:
// cp.async.bulk.tensor loads of a box into shared memory (out-of-bounds
// elements zero-filled, the 32/64/128-byte swizzle applied to the shared
// addresses as CUDA documents it) and stores back (out-of-bounds elements
// not written).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIM_TMAUNIT_H
#define TILEC_RUNTIME_SIM_TMAUNIT_H

#include "runtime/sim/SimMemory.h"

#include <cuda.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec::sim {

/// A tensor map as the TMA unit reads it.
struct SimTensorMap {
  CUtensorMapDataType dtype = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  unsigned rank = 0;
  std::uint64_t globalAddress = 0;
  std::array<std::uint64_t, 5> globalDims{};
  /// Byte strides of every dimension (globalStrides[0] = element bytes).
  std::array<std::uint64_t, 5> globalStrides{};
  std::array<std::uint32_t, 5> boxDims{};
  std::array<std::uint32_t, 5> elementStrides{};
  CUtensorMapInterleave interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapFloatOOBfill oobFill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  unsigned elementBytes() const;
  /// Bytes one box copies (the mbarrier transaction count of a load).
  std::uint32_t boxBytes() const;
};

/// cuTensorMapEncodeTiled's checks and encoding; on a broken rule returns
/// its description (and writes nothing). The driver's argument order.
std::optional<std::string>
encodeSimTensorMap(CUtensorMap *out, CUtensorMapDataType dtype,
                   std::uint32_t rank, void *globalAddress,
                   const std::uint64_t *globalDims,
                   const std::uint64_t *globalStrides,
                   const std::uint32_t *boxDims,
                   const std::uint32_t *elementStrides,
                   CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                   CUtensorMapL2promotion l2Promotion,
                   CUtensorMapFloatOOBfill oobFill);

/// Reads the 128 bytes at \p bytes as a tensor map; throws SimFault when
/// they are not one encodeSimTensorMap wrote.
SimTensorMap decodeSimTensorMap(const void *bytes);

/// cp.async.bulk.tensor.Nd load of the box at \p coords (element
/// coordinates, innermost first, may be negative or past the end) into
/// shared memory at \p smemAddress; returns the bytes written (boxBytes()).
/// Throws SimFault when the destination is misaligned for the swizzle (128
/// bytes; 1024 for swizzled maps' pattern repeat is not required) or outside
/// shared memory, or when an in-bounds element is outside every allocation.
std::uint32_t tmaLoad(const SimTensorMap &map,
                      const std::array<std::int32_t, 5> &coords,
                      const GlobalMemory &global, SharedMemory &smem,
                      std::uint32_t smemAddress);

/// The two halves of a cp.async.bulk.tensor.Nd store, which the interpreter
/// performs at different points: tmaStoreRead reads the box from shared
/// memory at \p smemAddress (boxBytes() bytes in box order, the swizzle
/// undone); tmaStoreWrite writes it to the box at \p coords, skipping the
/// elements outside the tensor.
std::vector<std::uint8_t> tmaStoreRead(const SimTensorMap &map,
                                       const SharedMemory &smem,
                                       std::uint32_t smemAddress);
void tmaStoreWrite(const SimTensorMap &map,
                   const std::array<std::int32_t, 5> &coords,
                   const std::vector<std::uint8_t> &box, GlobalMemory &global);

/// cp.async.bulk.tensor.Nd store of the box at \p coords from shared
/// memory at \p smemAddress, both halves at once; elements outside the
/// tensor are skipped.
void tmaStore(const SimTensorMap &map,
              const std::array<std::int32_t, 5> &coords,
              const SharedMemory &smem, std::uint32_t smemAddress,
              GlobalMemory &global);

} // namespace tilec::sim

#endif // TILEC_RUNTIME_SIM_TMAUNIT_H
