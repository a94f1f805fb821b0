//===- runtime/TensorMap.h - TMA tensor maps (CUtensorMap) -------*- C++
//-*-===//
//
// A tensor map tells the TMA unit how a global tensor is laid out and which
// box one cp.async.bulk.tensor copies into shared memory, with which swizzle.
// It is encoded on the host by cuTensorMapEncodeTiled and passed to the
// kernel by value as 128 bytes (KernelArgs::add(TensorMap)).
//
// The driver answers a bad description with a bare CUDA_ERROR_INVALID_VALUE,
// so every documented rule of cuTensorMapEncodeTiled is checked here first,
// on the CPU, and a broken rule is named with its numbers:
//   "box inner extent boxDims[0] * 2 bytes = 256 bytes exceeds the 128-byte
//    swizzle span of swizzle 128B (at most 64 elements of 2 bytes)".
// Dimension 0 is the innermost (contiguous) one, as in the driver API: a
// row-major M x K bf16 matrix has globalDims {K, M} and globalStrides {K*2}.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_TENSORMAP_H
#define TILEC_RUNTIME_TENSORMAP_H

#include "runtime/Status.h"

#include <array>
#include <cstdint>
#include <string>

namespace tilec::rt {

/// Element types (values of CUtensorMapDataType).
enum class TensorMapDTypeKind : int {
  U8 = 0,
  U16,
  U32,
  I32,
  U64,
  I64,
  F16,
  F32,
  F64,
  BF16,
  F32Ftz,
  TF32,
  TF32Ftz,
};

/// Shared-memory swizzle (values of CUtensorMapSwizzle).
enum class TensorMapSwizzleKind : int { None = 0, B32, B64, B128 };

/// The swizzle of a \p bytes-wide atom row: 32, 64 or 128; anything else
/// (0, 16: no swizzle) is None.
inline TensorMapSwizzleKind tensorMapSwizzleOfBytes(unsigned bytes) {
  switch (bytes) {
  case 32:
    return TensorMapSwizzleKind::B32;
  case 64:
    return TensorMapSwizzleKind::B64;
  case 128:
    return TensorMapSwizzleKind::B128;
  default:
    return TensorMapSwizzleKind::None;
  }
}

/// Interleaved layouts (values of CUtensorMapInterleave).
enum class TensorMapInterleaveKind : int { None = 0, B16, B32 };

/// L2 fetch granularity (values of CUtensorMapL2promotion).
enum class TensorMapL2PromotionKind : int { None = 0, B64, B128, B256 };

/// What out-of-bounds elements read as (values of CUtensorMapFloatOOBfill).
enum class TensorMapOobFillKind : int { Zero = 0, NanRequestZeroFma };

/// Bytes per element of \p dtype.
unsigned tensorMapElementBytes(TensorMapDTypeKind dtype);
/// "bf16", "f32", ...
const char *tensorMapDTypeName(TensorMapDTypeKind dtype);
/// Span of \p swizzle in bytes: 0 (none), 32, 64, 128.
unsigned tensorMapSwizzleBytes(TensorMapSwizzleKind swizzle);

/// Everything cuTensorMapEncodeTiled takes. Arrays are indexed by dimension,
/// innermost first; entries at or past rank are ignored.
struct TensorMapDesc {
  TensorMapDTypeKind dtype = TensorMapDTypeKind::F16;
  unsigned rank = 2; ///< 1..5.
  std::uint64_t globalAddress = 0;
  /// Elements along each dimension.
  std::array<std::uint64_t, 5> globalDims = {0, 0, 0, 0, 0};
  /// Byte stride of dimensions 1..rank-1 (globalStrides[i] is dimension
  /// i+1's; dimension 0 is contiguous).
  std::array<std::uint64_t, 4> globalStrides = {0, 0, 0, 0};
  /// Box extent along each dimension, in elements.
  std::array<std::uint32_t, 5> boxDims = {0, 0, 0, 0, 0};
  /// Traversal step along each dimension (1 = every element).
  std::array<std::uint32_t, 5> elementStrides = {1, 1, 1, 1, 1};
  TensorMapInterleaveKind interleave = TensorMapInterleaveKind::None;
  TensorMapSwizzleKind swizzle = TensorMapSwizzleKind::None;
  TensorMapL2PromotionKind l2Promotion = TensorMapL2PromotionKind::None;
  TensorMapOobFillKind oobFill = TensorMapOobFillKind::Zero;

  /// A rank-2 row-major matrix of \p rows x \p cols elements at \p address
  /// with a leading dimension of \p ld elements, copied in boxes of
  /// \p boxRows x \p boxCols.
  static TensorMapDesc matrix2d(TensorMapDTypeKind dtype, std::uint64_t address,
                                std::uint64_t rows, std::uint64_t cols,
                                std::uint64_t ld, std::uint32_t boxRows,
                                std::uint32_t boxCols,
                                TensorMapSwizzleKind swizzle);
};

/// An encoded CUtensorMap: 128 opaque bytes, 64-byte aligned, passed to a
/// kernel by value.
struct alignas(64) TensorMap {
  std::array<std::uint8_t, 128> bytes{};
  const void *data() const { return bytes.data(); }
};
static_assert(sizeof(TensorMap) == 128 && alignof(TensorMap) == 64);

/// Checks \p desc against the rules of cuTensorMapEncodeTiled; the Error
/// names the first broken rule and its numbers. Needs no driver.
Status validateTensorMap(const TensorMapDesc &desc);

/// Validates \p desc, then encodes it with the driver's
/// cuTensorMapEncodeTiled (needs a driver with CUDA 12.0+; the GPU must be
/// sm_90 or newer to use it).
Result<TensorMap> encodeTensorMap(const TensorMapDesc &desc);

/// One line describing \p desc, for error messages and logs:
/// "bf16 rank 2 dims [64, 128] strides [128] box [64, 64] swizzle 128B".
std::string describeTensorMap(const TensorMapDesc &desc);

} // namespace tilec::rt

#endif // TILEC_RUNTIME_TENSORMAP_H
