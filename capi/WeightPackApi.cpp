//===- capi/WeightPackApi.cpp - 4-bit weights through the C API -----------===//
//
// tilec_quantize_int4_weights, tilec_pack_int4_weights and their inverses
// over ir/WeightQuant.h: the same quantizer and packed order as `tilec pack`
// and Python's tilec.pack_weights. Buffers are the caller's; every extent,
// group and value is checked first, with the numbers in the error.
//
// Example: values q = (3 n + 5 k) % 16 - 8 of a 16 x 64 i4 weight pack to
// 128 words whose word 20 (lane 5's word 0) is 0x2aa2d55d.
//
//===----------------------------------------------------------------------===//
#include "capi/CApi.h"

#include "ir/Float16Bits.h"
#include "ir/WeightQuant.h"

#include <cstring>

using namespace tilec;
using tilec::capi::fail;

namespace {

tilec_status invalid(const std::string &message) {
  return fail(TILEC_ERROR_INVALID_ARGUMENT, message);
}

tilec_status invalid(llvm::Error e) {
  return invalid(llvm::toString(std::move(e)));
}

/// The format, or nothing after recording the error.
std::optional<WeightFormatKind> formatOf(int format) {
  if (format == TILEC_INT4_I4)
    return WeightFormatKind::I4;
  if (format == TILEC_INT4_U4)
    return WeightFormatKind::U4;
  invalid("format " + std::to_string(format) +
          " is not TILEC_INT4_I4 (0) or TILEC_INT4_U4 (1)");
  return std::nullopt;
}

/// The extents bounded so that n * k cannot overflow, then the packed
/// order's rule (and with \p group the group's).
llvm::Error checkExtents(int64_t n, int64_t k, int64_t group) {
  const int64_t limit = int64_t(1) << 31;
  if (n >= limit || k >= limit)
    return llvm::createStringError("N = " + std::to_string(n) +
                                   ", K = " + std::to_string(k) +
                                   ": each must be below "
                                   "2^31");
  return checkWeightShape(WeightFormatKind::I4, n, k, group);
}

/// The scale type named \p name, or nothing after recording the error.
std::optional<DTypeKind> scaleTypeOf(const char *name) {
  std::optional<DTypeKind> t = parseDType(name ? name : "");
  if (!t || checkWeightScaleType(*t).operator bool()) {
    invalid(std::string("scale_dtype '") + (name ? name : "(null)") +
            "' is not one of bf16, f16, f32");
    return std::nullopt;
  }
  return t;
}

/// Pack or unpack: checks the format, the buffers and the extents, then
/// runs \p body with the format.
template <typename Body>
tilec_status convert(int format, const void *in, const void *out, int64_t n,
                     int64_t k, Body body) {
  std::optional<WeightFormatKind> f = formatOf(format);
  if (!f)
    return TILEC_ERROR_INVALID_ARGUMENT;
  if (!in || !out)
    return invalid("the input and output buffers must not be null");
  if (llvm::Error e = checkExtents(n, k, 32))
    return invalid(std::move(e));
  if (llvm::Error e = body(*f))
    return invalid(std::move(e));
  return capi::ok();
}

} // namespace

extern "C" {

tilec_status tilec_check_int4_weights(int64_t n, int64_t k, int64_t group) {
  return capi::guard([&] {
    if (llvm::Error e = checkExtents(n, k, group))
      return invalid(std::move(e));
    return capi::ok();
  });
}

tilec_status tilec_quantize_int4_weights(const float *weights, int64_t n,
                                         int64_t k, int64_t group, int format,
                                         const char *scale_dtype,
                                         int8_t *values, void *scales,
                                         uint8_t *zeros) {
  return capi::guard([&] {
    std::optional<WeightFormatKind> f = formatOf(format);
    std::optional<DTypeKind> st = f ? scaleTypeOf(scale_dtype) : std::nullopt;
    if (!st)
      return TILEC_ERROR_INVALID_ARGUMENT;
    if (!weights || !values || !scales ||
        (*f == WeightFormatKind::U4) != (zeros != nullptr))
      return invalid("weights, values and scales must not be null; zeros "
                     "must be given for u4 and null for i4");
    if (llvm::Error e = checkExtents(n, k, group))
      return invalid(std::move(e));
    llvm::Expected<QuantizedWeights> q = quantizeWeights(
        llvm::ArrayRef<float>(weights, n * k), n, k, group, *f, *st);
    if (!q)
      return invalid(q.takeError());
    std::memcpy(values, q->values.data(), q->values.size());
    for (size_t i = 0; i < q->scales.size(); ++i) {
      if (*st == DTypeKind::F32)
        static_cast<float *>(scales)[i] = q->scales[i];
      else
        static_cast<uint16_t *>(scales)[i] = floatToBits16(q->scales[i], *st);
    }
    if (zeros)
      std::memcpy(zeros, q->zeros.data(), q->zeros.size());
    return capi::ok();
  });
}

tilec_status tilec_pack_int4_weights(const int8_t *values, int64_t n, int64_t k,
                                     int format, int32_t *packed) {
  return capi::guard([&] {
    return convert(format, values, packed, n, k, [&](WeightFormatKind f) {
      return packWeightValues(
          llvm::ArrayRef<int8_t>(values, n * k), n, k, f,
          llvm::MutableArrayRef<uint32_t>(reinterpret_cast<uint32_t *>(packed),
                                          n * k / 8));
    });
  });
}

tilec_status tilec_unpack_int4_weights(const int32_t *packed, int64_t n,
                                       int64_t k, int format, int8_t *values) {
  return capi::guard([&] {
    return convert(format, packed, values, n, k, [&](WeightFormatKind f) {
      return unpackWeightValues(
          llvm::ArrayRef<uint32_t>(reinterpret_cast<const uint32_t *>(packed),
                                   n * k / 8),
          n, k, f, llvm::MutableArrayRef<int8_t>(values, n * k));
    });
  });
}

tilec_status tilec_dequantize_int4_weights(const int8_t *values, int64_t n,
                                           int64_t k, int64_t group, int format,
                                           const void *scales,
                                           const char *scale_dtype,
                                           const uint8_t *zeros, float *out) {
  return capi::guard([&] {
    std::optional<WeightFormatKind> f = formatOf(format);
    std::optional<DTypeKind> st = f ? scaleTypeOf(scale_dtype) : std::nullopt;
    if (!st)
      return TILEC_ERROR_INVALID_ARGUMENT;
    if (!values || !scales || !out)
      return invalid("values, scales and out must not be null");
    if (*f == WeightFormatKind::I4 && zeros)
      return invalid("i4 weights have no zero points (z = 8 is implied); "
                     "pass zeros = NULL");
    if (llvm::Error e = checkExtents(n, k, group))
      return invalid(std::move(e));
    size_t groups = size_t(k / group * n);
    std::vector<float> s(groups);
    for (size_t i = 0; i < groups; ++i)
      s[i] = *st == DTypeKind::F32
                 ? static_cast<const float *>(scales)[i]
                 : bits16ToFloat(static_cast<const uint16_t *>(scales)[i], *st);
    llvm::ArrayRef<uint8_t> z;
    if (zeros)
      z = llvm::ArrayRef<uint8_t>(zeros, groups);
    if (llvm::Error e = dequantizeWeights(
            llvm::ArrayRef<int8_t>(values, n * k), s, z, n, k, group, *f,
            llvm::MutableArrayRef<float>(out, n * k)))
      return invalid(std::move(e));
    return capi::ok();
  });
}

} // extern "C"
