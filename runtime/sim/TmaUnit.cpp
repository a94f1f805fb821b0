//===- runtime/sim/TmaUnit.cpp - Tensor maps and TMA copies ---------------===//
//
// cuTensorMapEncodeTiled's rules as the CUDA driver API documents them, in
// the order it lists them; the simulator's 128-byte map layout; and the box
// copies. A box is laid out densely in shared memory, innermost dimension
// first; with a swizzle, the 16-byte chunk at shared byte address a is moved
// to a ^ (((a >> 7) & (span / 16 - 1)) << 4), i.e. its chunk index (bits 4..)
// is XORed with the address bits 7.. (one 128-byte row each), so the pattern
// repeats every 256, 512 or 1024 bytes for the 32-, 64- and 128-byte spans.
// CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B ("swizzle 32B chunks within 128B
// span", the driver API; CuTe's Swizzle<2,5,2> in bytes) moves whole 32-byte
// chunks: a ^ (((a >> 7) & 3) << 5), repeating every 512 bytes.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/TmaUnit.h"
#include "runtime/sim/SimFault.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <vector>

namespace tilec::sim {

namespace {

constexpr std::uint32_t TensorMapMagic = 0x504d5453; // "STMP"

/// The simulator's CUtensorMap bytes.
struct PackedMap {
  std::uint32_t magic;
  std::uint8_t dtype, rank, interleave, swizzle;
  std::uint8_t oobFill, l2Promotion, pad0[6];
  std::uint64_t address;
  std::uint64_t dims[5];
  std::uint64_t strides[4]; ///< Of dimensions 1 .. 4.
  std::uint16_t box[5];
  std::uint8_t elementStrides[5];
  std::uint8_t pad1[9];
  std::uint64_t checksum;
};
static_assert(sizeof(PackedMap) == 128, "a CUtensorMap is 128 bytes");

std::uint64_t checksumOf(const PackedMap &p) {
  const auto *bytes = reinterpret_cast<const std::uint8_t *>(&p);
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < offsetof(PackedMap, checksum); ++i)
    h = (h ^ bytes[i]) * 1099511628211ull;
  return h;
}

/// Element bytes, 0 for the packed sub-byte types and unknown values.
unsigned dtypeBytes(CUtensorMapDataType t) {
  switch (t) {
  case CU_TENSOR_MAP_DATA_TYPE_UINT8:
    return 1;
  case CU_TENSOR_MAP_DATA_TYPE_UINT16:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
  case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
    return 2;
  case CU_TENSOR_MAP_DATA_TYPE_UINT32:
  case CU_TENSOR_MAP_DATA_TYPE_INT32:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ:
  case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
  case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ:
    return 4;
  case CU_TENSOR_MAP_DATA_TYPE_UINT64:
  case CU_TENSOR_MAP_DATA_TYPE_INT64:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT64:
    return 8;
  default:
    return 0;
  }
}

bool isFloatType(CUtensorMapDataType t) {
  switch (t) {
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT64:
  case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ:
  case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
  case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ:
    return true;
  default:
    return false;
  }
}

/// A swizzle mode's span (the most bytes of a box row; 0: none or not
/// modelled) and the chunk it permutes within each 128-byte row.
struct SwizzleShape {
  unsigned span = 0, chunk = 16;
};

SwizzleShape swizzleShape(CUtensorMapSwizzle s) {
  switch (s) {
  case CU_TENSOR_MAP_SWIZZLE_32B:
    return {32, 16};
  case CU_TENSOR_MAP_SWIZZLE_64B:
    return {64, 16};
  case CU_TENSOR_MAP_SWIZZLE_128B:
    return {128, 16};
  case CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B:
    return {128, 32};
  default:
    return {};
  }
}

unsigned swizzleSpan(CUtensorMapSwizzle s) { return swizzleShape(s).span; }

/// The shared address the TMA unit writes the byte at dense box offset
/// \p addr (already absolute) to: the chunk index (address bits
/// log2(chunk)..) XORed with the 128-byte row (bits 7..), modulo the
/// chunks per span.
std::uint32_t swizzled(std::uint32_t addr, SwizzleShape shape) {
  if (!shape.span)
    return addr;
  unsigned shift = static_cast<unsigned>(std::countr_zero(shape.chunk));
  return addr ^ (((addr >> 7) & (shape.span / shape.chunk - 1)) << shift);
}

/// The NaN the driver's NAN_REQUEST_ZERO_FMA fill writes, per element size.
void nanPattern(unsigned bytes, std::uint8_t *out) {
  std::uint64_t v = bytes == 2   ? 0x7fffu
                    : bytes == 4 ? 0x7fffffffu
                                 : 0x7fffffffffffffffull;
  std::memcpy(out, &v, bytes);
}

/// Walks the box: calls \p fn(boxByteOffset, globalAddress, inBounds) for
/// each element, innermost dimension fastest.
template <typename Fn>
void forEachBoxElement(const SimTensorMap &map,
                       const std::array<std::int32_t, 5> &coords, Fn fn) {
  unsigned eb = map.elementBytes();
  std::array<std::uint32_t, 5> count{1, 1, 1, 1, 1};
  for (unsigned d = 0; d < map.rank; ++d) {
    std::uint32_t es = d == 0 ? 1 : map.elementStrides[d];
    count[d] = (map.boxDims[d] + es - 1) / es;
  }
  std::uint32_t offset = 0;
  for (std::uint32_t i4 = 0; i4 < count[4]; ++i4)
    for (std::uint32_t i3 = 0; i3 < count[3]; ++i3)
      for (std::uint32_t i2 = 0; i2 < count[2]; ++i2)
        for (std::uint32_t i1 = 0; i1 < count[1]; ++i1) {
          std::array<std::uint32_t, 5> idx{0, i1, i2, i3, i4};
          bool outerIn = true;
          std::uint64_t rowAddr = map.globalAddress;
          for (unsigned d = 1; d < map.rank; ++d) {
            std::int64_t c = std::int64_t(coords[d]) +
                             std::int64_t(idx[d]) * map.elementStrides[d];
            if (c < 0 || std::uint64_t(c) >= map.globalDims[d])
              outerIn = false;
            else
              rowAddr += std::uint64_t(c) * map.globalStrides[d];
          }
          for (std::uint32_t i0 = 0; i0 < count[0]; ++i0, offset += eb) {
            std::int64_t c = std::int64_t(coords[0]) + i0;
            bool in = outerIn && c >= 0 && std::uint64_t(c) < map.globalDims[0];
            fn(offset, in ? rowAddr + std::uint64_t(c) * eb : 0, in);
          }
        }
}

void checkSmemDestination(const SimTensorMap &map, std::uint32_t smemAddress,
                          const SharedMemory &smem, const char *what) {
  if (smemAddress % 128)
    throw SimFault(fmt::format("{}: shared address 0x{:x} is not 128-byte "
                               "aligned",
                               what, smemAddress));
  smem.checkRange(smemAddress, map.boxBytes(), what);
  if (map.interleave != CU_TENSOR_MAP_INTERLEAVE_NONE)
    throw SimFault(fmt::format("{}: interleaved tensor maps are not modelled "
                               "by the simulator",
                               what));
}

} // namespace

unsigned SimTensorMap::elementBytes() const { return dtypeBytes(dtype); }

std::uint32_t SimTensorMap::boxBytes() const {
  std::uint32_t bytes = elementBytes();
  for (unsigned d = 0; d < rank; ++d) {
    std::uint32_t es = d == 0 ? 1 : elementStrides[d];
    bytes *= (boxDims[d] + es - 1) / es;
  }
  return bytes;
}

std::optional<std::string> encodeSimTensorMap(
    CUtensorMap *out, CUtensorMapDataType dtype, std::uint32_t rank,
    void *globalAddress, const std::uint64_t *globalDims,
    const std::uint64_t *globalStrides, const std::uint32_t *boxDims,
    const std::uint32_t *elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
    CUtensorMapFloatOOBfill oobFill) {
  auto addr = reinterpret_cast<std::uintptr_t>(out);
  if (addr % 64)
    return fmt::format("the tensor map address 0x{:x} is not 64-byte aligned",
                       addr);
  if (unsigned(dtype) > unsigned(CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B))
    return fmt::format("tensorDataType {} is not a CUtensorMapDataType",
                       unsigned(dtype));
  unsigned eb = dtypeBytes(dtype);
  if (!eb)
    return fmt::format("tensorDataType {} (a packed 4- or 6-bit type) is not "
                       "modelled by the simulator",
                       unsigned(dtype));
  if (rank == 0 || rank > 5)
    return fmt::format("tensorRank = {} must be in 1..5", rank);
  if (unsigned(interleave) > unsigned(CU_TENSOR_MAP_INTERLEAVE_32B))
    return fmt::format("interleave {} is not a CUtensorMapInterleave",
                       unsigned(interleave));
  if (interleave != CU_TENSOR_MAP_INTERLEAVE_NONE && rank < 3)
    return fmt::format("tensorRank = {} must be at least 3 with an "
                       "interleaved layout",
                       rank);
  auto g = reinterpret_cast<std::uintptr_t>(globalAddress);
  unsigned gAlign = interleave == CU_TENSOR_MAP_INTERLEAVE_32B ? 32 : 16;
  if (g % gAlign)
    return fmt::format("globalAddress 0x{:x} is not {}-byte aligned", g,
                       gAlign);
  for (unsigned d = 0; d < rank; ++d)
    if (globalDims[d] == 0 || globalDims[d] > (1ull << 32))
      return fmt::format("globalDim[{}] = {} must be in 1..2^32", d,
                         globalDims[d]);
  for (unsigned d = 0; d + 1 < rank; ++d) {
    std::uint64_t s = globalStrides[d];
    unsigned sAlign = interleave == CU_TENSOR_MAP_INTERLEAVE_32B ? 32 : 16;
    if (s % sAlign)
      return fmt::format("globalStrides[{}] = {} is not a multiple of {}", d, s,
                         sAlign);
    if (s >= (1ull << 40))
      return fmt::format("globalStrides[{}] = {} is not below 2^40", d, s);
  }
  for (unsigned d = 0; d < rank; ++d)
    if (boxDims[d] == 0 || boxDims[d] > 256)
      return fmt::format("boxDim[{}] = {} must be in 1..256", d, boxDims[d]);
  if (interleave == CU_TENSOR_MAP_INTERLEAVE_NONE && (boxDims[0] * eb) % 16)
    return fmt::format("boxDim[0] * element size = {} * {} = {} bytes is not "
                       "a multiple of 16",
                       boxDims[0], eb, boxDims[0] * eb);
  for (unsigned d = 0; d < rank; ++d)
    if (elementStrides[d] == 0 || elementStrides[d] > 8)
      return fmt::format("elementStrides[{}] = {} must be in 1..8", d,
                         elementStrides[d]);
  if (unsigned(swizzle) > unsigned(CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B))
    return fmt::format("swizzle {} is not a CUtensorMapSwizzle",
                       unsigned(swizzle));
  if (swizzle != CU_TENSOR_MAP_SWIZZLE_NONE && !swizzleSpan(swizzle))
    return fmt::format(
        "swizzle {} (CU_TENSOR_MAP_SWIZZLE_128B_ATOM_{}) is "
        "not modelled by the simulator",
        unsigned(swizzle),
        swizzle == CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B ? "64B" : "32B_FLIP_8B");
  if (interleave == CU_TENSOR_MAP_INTERLEAVE_NONE && swizzleSpan(swizzle) &&
      boxDims[0] * eb > swizzleSpan(swizzle))
    return fmt::format("the box inner dimension boxDim[0] * element size = "
                       "{} bytes exceeds the {}-byte swizzle span",
                       boxDims[0] * eb, swizzleSpan(swizzle));
  if (interleave == CU_TENSOR_MAP_INTERLEAVE_32B &&
      swizzle != CU_TENSOR_MAP_SWIZZLE_32B)
    return std::string("interleave 32B requires swizzle 32B");
  if (unsigned(l2Promotion) > unsigned(CU_TENSOR_MAP_L2_PROMOTION_L2_256B))
    return fmt::format("l2Promotion {} is not a CUtensorMapL2promotion",
                       unsigned(l2Promotion));
  if (unsigned(oobFill) >
      unsigned(CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA))
    return fmt::format("oobFill {} is not a CUtensorMapFloatOOBfill",
                       unsigned(oobFill));
  if (oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA &&
      !isFloatType(dtype))
    return fmt::format("oobFill NAN_REQUEST_ZERO_FMA needs a floating-point "
                       "tensorDataType, not {}",
                       unsigned(dtype));

  PackedMap p{};
  p.magic = TensorMapMagic;
  p.dtype = std::uint8_t(dtype);
  p.rank = std::uint8_t(rank);
  p.interleave = std::uint8_t(interleave);
  p.swizzle = std::uint8_t(swizzle);
  p.oobFill = std::uint8_t(oobFill);
  p.l2Promotion = std::uint8_t(l2Promotion);
  p.address = g;
  for (unsigned d = 0; d < rank; ++d) {
    p.dims[d] = globalDims[d];
    p.box[d] = std::uint16_t(boxDims[d]);
    p.elementStrides[d] = std::uint8_t(elementStrides[d]);
    if (d > 0)
      p.strides[d - 1] = globalStrides[d - 1];
  }
  p.checksum = checksumOf(p);
  static_assert(sizeof(CUtensorMap) == 128, "CUtensorMap is 128 bytes");
  std::memcpy(out, &p, sizeof p);
  return std::nullopt;
}

SimTensorMap decodeSimTensorMap(const void *bytes) {
  PackedMap p;
  std::memcpy(&p, bytes, sizeof p);
  if (p.magic != TensorMapMagic || p.checksum != checksumOf(p))
    throw SimFault(fmt::format(
        "the 128 bytes used as a tensor map are not one cuTensorMapEncodeTiled "
        "wrote (magic 0x{:08x}{})",
        p.magic, p.magic == TensorMapMagic ? ", checksum mismatch" : ""));
  SimTensorMap m;
  m.dtype = CUtensorMapDataType(p.dtype);
  m.rank = p.rank;
  m.globalAddress = p.address;
  m.interleave = CUtensorMapInterleave(p.interleave);
  m.swizzle = CUtensorMapSwizzle(p.swizzle);
  m.oobFill = CUtensorMapFloatOOBfill(p.oobFill);
  for (unsigned d = 0; d < 5; ++d) {
    m.globalDims[d] = d < m.rank ? p.dims[d] : 1;
    m.boxDims[d] = d < m.rank ? p.box[d] : 1;
    m.elementStrides[d] = d < m.rank ? p.elementStrides[d] : 1;
    m.globalStrides[d] = d == 0 ? m.elementBytes() : p.strides[d - 1];
  }
  return m;
}

std::uint32_t tmaLoad(const SimTensorMap &map,
                      const std::array<std::int32_t, 5> &coords,
                      const GlobalMemory &global, SharedMemory &smem,
                      std::uint32_t smemAddress) {
  const char *what = "cp.async.bulk.tensor load";
  checkSmemDestination(map, smemAddress, smem, what);
  unsigned eb = map.elementBytes();
  std::vector<std::uint8_t> box(map.boxBytes());
  std::uint8_t fill[8] = {};
  if (map.oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)
    nanPattern(eb, fill);
  // Consecutive in-bounds elements of a row are read in one access.
  std::uint64_t runAddr = 0;
  std::uint32_t runOffset = 0, runBytes = 0;
  auto flush = [&] {
    if (runBytes)
      global.read(runAddr, box.data() + runOffset, runBytes);
    runBytes = 0;
  };
  forEachBoxElement(map, coords,
                    [&](std::uint32_t off, std::uint64_t addr, bool in) {
                      if (!in) {
                        flush();
                        std::memcpy(box.data() + off, fill, eb);
                        return;
                      }
                      if (runBytes && runAddr + runBytes == addr &&
                          runOffset + runBytes == off) {
                        runBytes += eb;
                        return;
                      }
                      flush();
                      runAddr = addr;
                      runOffset = off;
                      runBytes = eb;
                    });
  flush();
  SwizzleShape shape = swizzleShape(map.swizzle);
  for (std::uint32_t off = 0; off < box.size(); off += 16) {
    std::uint32_t n = std::min<std::uint32_t>(16, box.size() - off);
    smem.write(swizzled(smemAddress + off, shape), box.data() + off, n, what);
  }
  return std::uint32_t(box.size());
}

std::vector<std::uint8_t> tmaStoreRead(const SimTensorMap &map,
                                       const SharedMemory &smem,
                                       std::uint32_t smemAddress) {
  const char *what = "cp.async.bulk.tensor store";
  checkSmemDestination(map, smemAddress, smem, what);
  std::vector<std::uint8_t> box(map.boxBytes());
  SwizzleShape shape = swizzleShape(map.swizzle);
  for (std::uint32_t off = 0; off < box.size(); off += 16) {
    std::uint32_t n = std::min<std::uint32_t>(16, box.size() - off);
    smem.read(swizzled(smemAddress + off, shape), box.data() + off, n, what);
  }
  return box;
}

void tmaStoreWrite(const SimTensorMap &map,
                   const std::array<std::int32_t, 5> &coords,
                   const std::vector<std::uint8_t> &box, GlobalMemory &global) {
  unsigned eb = map.elementBytes();
  // Consecutive in-bounds elements of a row are written in one access.
  std::uint64_t runAddr = 0;
  std::uint32_t runOffset = 0, runBytes = 0;
  auto flush = [&] {
    if (runBytes)
      global.write(runAddr, box.data() + runOffset, runBytes);
    runBytes = 0;
  };
  forEachBoxElement(map, coords,
                    [&](std::uint32_t off, std::uint64_t addr, bool in) {
                      if (!in) {
                        flush();
                        return;
                      }
                      if (runBytes && runAddr + runBytes == addr &&
                          runOffset + runBytes == off) {
                        runBytes += eb;
                        return;
                      }
                      flush();
                      runAddr = addr;
                      runOffset = off;
                      runBytes = eb;
                    });
  flush();
}

void tmaStore(const SimTensorMap &map,
              const std::array<std::int32_t, 5> &coords,
              const SharedMemory &smem, std::uint32_t smemAddress,
              GlobalMemory &global) {
  tmaStoreWrite(map, coords, tmaStoreRead(map, smem, smemAddress), global);
}

} // namespace tilec::sim
