//===- runtime/TensorMap.cpp - Validate and encode TMA tensor maps --------===//
//
// The rules are those the CUDA driver API documents for
// cuTensorMapEncodeTiled (rank, alignment, dimension, stride, box, element
// stride, swizzle span, interleave and OOB-fill rules), checked in that
// order; each message names the field, its value and what would be legal.
//
//===----------------------------------------------------------------------===//
#include "runtime/TensorMap.h"

#include "runtime/DriverApi.h"

#include <fmt/format.h>

#include <cstring>

namespace tilec::rt {

namespace {
struct DTypeInfo {
  TensorMapDTypeKind kind;
  const char *name;
  unsigned bytes;
  bool isFloat;
};

/// One row per CUtensorMapDataType we expose, in enum order.
constexpr DTypeInfo DTypeTable[] = {
    {TensorMapDTypeKind::U8, "u8", 1, false},
    {TensorMapDTypeKind::U16, "u16", 2, false},
    {TensorMapDTypeKind::U32, "u32", 4, false},
    {TensorMapDTypeKind::I32, "i32", 4, false},
    {TensorMapDTypeKind::U64, "u64", 8, false},
    {TensorMapDTypeKind::I64, "i64", 8, false},
    {TensorMapDTypeKind::F16, "f16", 2, true},
    {TensorMapDTypeKind::F32, "f32", 4, true},
    {TensorMapDTypeKind::F64, "f64", 8, true},
    {TensorMapDTypeKind::BF16, "bf16", 2, true},
    {TensorMapDTypeKind::F32Ftz, "f32.ftz", 4, true},
    {TensorMapDTypeKind::TF32, "tf32", 4, true},
    {TensorMapDTypeKind::TF32Ftz, "tf32.ftz", 4, true},
};

const DTypeInfo *findDType(TensorMapDTypeKind dtype) {
  int index = static_cast<int>(dtype);
  if (index < 0 || index >= static_cast<int>(std::size(DTypeTable)))
    return nullptr;
  return &DTypeTable[index];
}

const char *swizzleName(TensorMapSwizzleKind swizzle) {
  switch (swizzle) {
  case TensorMapSwizzleKind::None:
    return "none";
  case TensorMapSwizzleKind::B32:
    return "32B";
  case TensorMapSwizzleKind::B64:
    return "64B";
  case TensorMapSwizzleKind::B128:
    return "128B";
  }
  return "invalid";
}

const char *interleaveName(TensorMapInterleaveKind interleave) {
  switch (interleave) {
  case TensorMapInterleaveKind::None:
    return "none";
  case TensorMapInterleaveKind::B16:
    return "16B";
  case TensorMapInterleaveKind::B32:
    return "32B";
  }
  return "invalid";
}

constexpr std::uint64_t MaxGlobalDim = std::uint64_t(1) << 32;
constexpr std::uint64_t StrideLimit = std::uint64_t(1) << 40;
constexpr std::uint32_t MaxBoxDim = 256;
constexpr std::uint32_t MaxElementStride = 8;
} // namespace

unsigned tensorMapElementBytes(TensorMapDTypeKind dtype) {
  const DTypeInfo *info = findDType(dtype);
  return info ? info->bytes : 0;
}

const char *tensorMapDTypeName(TensorMapDTypeKind dtype) {
  const DTypeInfo *info = findDType(dtype);
  return info ? info->name : "invalid";
}

unsigned tensorMapSwizzleBytes(TensorMapSwizzleKind swizzle) {
  switch (swizzle) {
  case TensorMapSwizzleKind::None:
    return 0;
  case TensorMapSwizzleKind::B32:
    return 32;
  case TensorMapSwizzleKind::B64:
    return 64;
  case TensorMapSwizzleKind::B128:
    return 128;
  }
  return 0;
}

TensorMapDesc TensorMapDesc::matrix2d(TensorMapDTypeKind dtype,
                                      std::uint64_t address, std::uint64_t rows,
                                      std::uint64_t cols, std::uint64_t ld,
                                      std::uint32_t boxRows,
                                      std::uint32_t boxCols,
                                      TensorMapSwizzleKind swizzle) {
  TensorMapDesc desc;
  desc.dtype = dtype;
  desc.rank = 2;
  desc.globalAddress = address;
  desc.globalDims = {cols, rows, 0, 0, 0};
  desc.globalStrides = {ld * tensorMapElementBytes(dtype), 0, 0, 0};
  desc.boxDims = {boxCols, boxRows, 0, 0, 0};
  desc.swizzle = swizzle;
  return desc;
}

std::string describeTensorMap(const TensorMapDesc &desc) {
  unsigned rank = std::min(desc.rank, 5u);
  std::string dims, strides, box, steps;
  for (unsigned i = 0; i < rank; ++i) {
    const char *sep = i ? ", " : "";
    dims += fmt::format("{}{}", sep, desc.globalDims[i]);
    box += fmt::format("{}{}", sep, desc.boxDims[i]);
    steps += fmt::format("{}{}", sep, desc.elementStrides[i]);
    if (i + 1 < rank)
      strides += fmt::format("{}{}", sep, desc.globalStrides[i]);
  }
  std::string text = fmt::format(
      "{} rank {} address 0x{:x} dims [{}] strides [{}] box [{}] swizzle {}",
      tensorMapDTypeName(desc.dtype), desc.rank, desc.globalAddress, dims,
      strides, box, swizzleName(desc.swizzle));
  if (steps.find_first_not_of("1, ") != std::string::npos)
    text += fmt::format(" element strides [{}]", steps);
  if (desc.interleave != TensorMapInterleaveKind::None)
    text += fmt::format(" interleave {}", interleaveName(desc.interleave));
  return text;
}

Status validateTensorMap(const TensorMapDesc &desc) {
  const DTypeInfo *dtype = findDType(desc.dtype);
  if (!dtype)
    return Error(fmt::format("tensor map data type {} is not one of the {} "
                             "known CUtensorMapDataType values",
                             static_cast<int>(desc.dtype),
                             std::size(DTypeTable)));
  int swizzleValue = static_cast<int>(desc.swizzle);
  if (swizzleValue < 0 || swizzleValue > 3)
    return Error(fmt::format("tensor map swizzle {} is not none, 32B, 64B or "
                             "128B",
                             swizzleValue));
  int interleaveValue = static_cast<int>(desc.interleave);
  if (interleaveValue < 0 || interleaveValue > 2)
    return Error(fmt::format("tensor map interleave {} is not none, 16B or "
                             "32B",
                             interleaveValue));
  int l2Value = static_cast<int>(desc.l2Promotion);
  if (l2Value < 0 || l2Value > 3)
    return Error(fmt::format("tensor map L2 promotion {} is not none, 64B, "
                             "128B or 256B",
                             l2Value));
  int oobValue = static_cast<int>(desc.oobFill);
  if (oobValue < 0 || oobValue > 1)
    return Error(fmt::format("tensor map OOB fill {} is not zero or "
                             "nan-request-zero-fma",
                             oobValue));

  bool interleaved = desc.interleave != TensorMapInterleaveKind::None;
  bool interleave32 = desc.interleave == TensorMapInterleaveKind::B32;
  if (desc.rank < 1 || desc.rank > 5)
    return Error(fmt::format("tensor map rank {} is out of range: it must be "
                             "1 to 5",
                             desc.rank));
  if (interleaved && desc.rank < 3)
    return Error(fmt::format("tensor map rank {} is too small for interleave "
                             "{}: interleaved layouts need rank 3 or more",
                             desc.rank, interleaveName(desc.interleave)));

  if (desc.globalAddress == 0)
    return Error("tensor map global address is null");
  unsigned addressAlign = interleave32 ? 32 : 16;
  if (desc.globalAddress % addressAlign)
    return Error(fmt::format("tensor map global address 0x{:x} is not "
                             "{}-byte aligned{}",
                             desc.globalAddress, addressAlign,
                             interleave32 ? " (interleave 32B needs 32)" : ""));

  for (unsigned i = 0; i < desc.rank; ++i)
    if (desc.globalDims[i] == 0 || desc.globalDims[i] > MaxGlobalDim)
      return Error(fmt::format("tensor map globalDims[{}] = {} is out of "
                               "range: it must be 1 to 2^32",
                               i, desc.globalDims[i]));

  unsigned strideAlign = interleave32 ? 32 : 16;
  for (unsigned i = 0; i + 1 < desc.rank; ++i) {
    std::uint64_t stride = desc.globalStrides[i];
    if (stride % strideAlign)
      return Error(fmt::format(
          "tensor map globalStrides[{}] = {} bytes is not a multiple of {} "
          "bytes{}",
          i, stride, strideAlign,
          interleave32 ? " (interleave 32B needs 32)" : ""));
    if (stride >= StrideLimit)
      return Error(fmt::format("tensor map globalStrides[{}] = {} bytes is "
                               "not less than 2^40",
                               i, stride));
    // Each stride must span the dimensions inside it.
    std::uint64_t inner = i == 0
                              ? desc.globalDims[0] * dtype->bytes
                              : desc.globalStrides[i - 1] * desc.globalDims[i];
    if (stride < inner)
      return Error(fmt::format(
          "tensor map globalStrides[{}] = {} bytes is less than the {} bytes "
          "of the dimension inside it ({}); strides must include the previous "
          "dimension",
          i, stride, inner,
          i == 0
              ? fmt::format("globalDims[0] {} x {} bytes", desc.globalDims[0],
                            dtype->bytes)
              : fmt::format("globalStrides[{}] {} x globalDims[{}] {}", i - 1,
                            desc.globalStrides[i - 1], i, desc.globalDims[i])));
  }

  for (unsigned i = 0; i < desc.rank; ++i)
    if (desc.boxDims[i] == 0 || desc.boxDims[i] > MaxBoxDim)
      return Error(fmt::format("tensor map boxDims[{}] = {} is out of range: "
                               "it must be 1 to {}",
                               i, desc.boxDims[i], MaxBoxDim));
  std::uint64_t innerBytes = std::uint64_t(desc.boxDims[0]) * dtype->bytes;
  if (!interleaved && innerBytes % 16)
    return Error(fmt::format(
        "tensor map box inner extent boxDims[0] {} x {} bytes = {} bytes is "
        "not a multiple of 16 bytes (use a multiple of {} {} elements)",
        desc.boxDims[0], dtype->bytes, innerBytes, 16 / dtype->bytes,
        dtype->name));
  unsigned span = tensorMapSwizzleBytes(desc.swizzle);
  if (!interleaved && span && innerBytes > span)
    return Error(fmt::format(
        "tensor map box inner extent boxDims[0] {} x {} bytes = {} bytes "
        "exceeds the {}-byte span of swizzle {} (at most {} {} elements)",
        desc.boxDims[0], dtype->bytes, innerBytes, span,
        swizzleName(desc.swizzle), span / dtype->bytes, dtype->name));

  for (unsigned i = 0; i < desc.rank; ++i)
    if (desc.elementStrides[i] == 0 ||
        desc.elementStrides[i] > MaxElementStride)
      return Error(fmt::format("tensor map elementStrides[{}] = {} is out of "
                               "range: it must be 1 to {}",
                               i, desc.elementStrides[i], MaxElementStride));

  if (interleave32 && desc.swizzle != TensorMapSwizzleKind::B32)
    return Error(fmt::format("tensor map interleave 32B needs swizzle 32B, "
                             "not {}",
                             swizzleName(desc.swizzle)));
  if (desc.oobFill == TensorMapOobFillKind::NanRequestZeroFma &&
      !dtype->isFloat)
    return Error(fmt::format("tensor map OOB fill nan-request-zero-fma needs "
                             "a floating-point data type, not {}",
                             dtype->name));
  return success();
}

Result<TensorMap> encodeTensorMap(const TensorMapDesc &desc) {
  if (Status s = validateTensorMap(desc); !s)
    return s.error();
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  const DriverApi &driver = **api;
  if (!driver.tensorMapEncodeTiled)
    return Error(fmt::format("tensor maps need cuTensorMapEncodeTiled (CUDA "
                             "12.0+ driver); {} lacks it",
                             driver.libraryPath));
  std::uint64_t dims[5], strides[4];
  std::uint32_t box[5], steps[5];
  for (unsigned i = 0; i < 5; ++i) {
    dims[i] = desc.globalDims[i];
    box[i] = desc.boxDims[i];
    steps[i] = desc.elementStrides[i];
    if (i < 4)
      strides[i] = desc.globalStrides[i];
  }
  CUtensorMap encoded;
  std::memset(&encoded, 0, sizeof(encoded));
  CUresult result = driver.tensorMapEncodeTiled(
      &encoded, static_cast<CUtensorMapDataType>(desc.dtype), desc.rank,
      reinterpret_cast<void *>(static_cast<std::uintptr_t>(desc.globalAddress)),
      dims, strides, box, steps,
      static_cast<CUtensorMapInterleave>(desc.interleave),
      static_cast<CUtensorMapSwizzle>(desc.swizzle),
      static_cast<CUtensorMapL2promotion>(desc.l2Promotion),
      static_cast<CUtensorMapFloatOOBfill>(desc.oobFill));
  if (Status s =
          checkCuda(driver, result,
                    "cuTensorMapEncodeTiled(" + describeTensorMap(desc) + ")");
      !s)
    return s.error();
  static_assert(sizeof(CUtensorMap) == sizeof(TensorMap));
  TensorMap map;
  std::memcpy(map.bytes.data(), &encoded, sizeof(encoded));
  return map;
}

} // namespace tilec::rt
