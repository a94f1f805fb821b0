//===- capi/WeightPackApi.cpp - Quantized weights through the C API -------===//
//
// tilec_quantize_weights, tilec_pack_weights and their inverses for every
// format of ir/tile/WeightQuant.h (i4, u4, i8, u8, e4m3, e5m2): the same
// quantizer and packed order as `tilec pack` and Python's
// tilec.pack_weights. The tilec_*_int4_weights functions of API 11 are
// these with the format limited to i4 and u4. Buffers are the caller's;
// every extent, group and value is checked first, with the numbers in the
// error.
//
// Example: values q = (3 n + 5 k) % 16 - 8 of a 16 x 64 i4 weight pack to
// 128 words whose word 20 (lane 5's word 0) is 0x2aa2d55d.
//
//===----------------------------------------------------------------------===//
#include "capi/CApi.h"

#include "ir/arch/Float16Bits.h"
#include "ir/tile/WeightQuant.h"

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

// tilec_weight_format counts the formats in ir/tile/WeightQuant.h's order.
static_assert(int(WeightFormatKind::I4) == TILEC_WEIGHT_I4 &&
              int(WeightFormatKind::U4) == TILEC_WEIGHT_U4 &&
              int(WeightFormatKind::I8) == TILEC_WEIGHT_I8 &&
              int(WeightFormatKind::U8) == TILEC_WEIGHT_U8 &&
              int(WeightFormatKind::E4M3) == TILEC_WEIGHT_E4M3 &&
              int(WeightFormatKind::E5M2) == TILEC_WEIGHT_E5M2);

/// The format \p format (a tilec_weight_format), or nothing after recording
/// the error; \p int4 limits it to i4 and u4 (the tilec_*_int4_weights).
std::optional<WeightFormatKind> formatOf(int format, bool int4 = false) {
  if (int4) {
    if (format == TILEC_INT4_I4 || format == TILEC_INT4_U4)
      return WeightFormatKind(format);
    invalid("format " + std::to_string(format) +
            " is not TILEC_INT4_I4 (0) or TILEC_INT4_U4 (1); 8-bit formats "
            "take tilec_pack_weights and its kin");
    return std::nullopt;
  }
  if (format >= TILEC_WEIGHT_I4 && format <= TILEC_WEIGHT_E5M2)
    return WeightFormatKind(format);
  invalid("format " + std::to_string(format) +
          " is not a tilec_weight_format: 0..5 for " + weightFormatNames());
  return std::nullopt;
}

/// The extents bounded so that n * k cannot overflow, then the packed
/// order's rule for \p format (and with \p group the group's).
llvm::Error checkExtents(WeightFormatKind format, int64_t n, int64_t k,
                         int64_t group) {
  const int64_t limit = int64_t(1) << 31;
  if (n >= limit || k >= limit)
    return llvm::createStringError("N = " + std::to_string(n) +
                                   ", K = " + std::to_string(k) +
                                   ": each must be below "
                                   "2^31");
  return checkWeightShape(format, n, k, group);
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

/// The words of an [n, k] weight of \p format.
size_t wordCount(WeightFormatKind format, int64_t n, int64_t k) {
  return size_t(n * k * weightFormatInfo(format).bits / 32);
}

/// Pack or unpack: checks the buffers and the extents, then runs \p body.
template <typename Body>
tilec_status convert(WeightFormatKind format, const void *in, const void *out,
                     int64_t n, int64_t k, Body body) {
  if (!in || !out)
    return invalid("the input and output buffers must not be null");
  if (llvm::Error e = checkExtents(format, n, k, 32))
    return invalid(std::move(e));
  if (llvm::Error e = body())
    return invalid(std::move(e));
  return capi::ok();
}

tilec_status checkWeights(int64_t n, int64_t k, int64_t group, int format,
                          bool int4) {
  std::optional<WeightFormatKind> f = formatOf(format, int4);
  if (!f)
    return TILEC_ERROR_INVALID_ARGUMENT;
  if (llvm::Error e = checkExtents(*f, n, k, group))
    return invalid(std::move(e));
  return capi::ok();
}

tilec_status quantize(const float *weights, int64_t n, int64_t k, int64_t group,
                      int format, bool int4, const char *scale_dtype,
                      int8_t *values, void *scales, uint8_t *zeros) {
  std::optional<WeightFormatKind> f = formatOf(format, int4);
  std::optional<DTypeKind> st = f ? scaleTypeOf(scale_dtype) : std::nullopt;
  if (!st)
    return TILEC_ERROR_INVALID_ARGUMENT;
  const WeightFormatInfo &info = weightFormatInfo(*f);
  if (!weights || !values || !scales)
    return invalid("weights, values and scales must not be null");
  if (info.takesZeros != (zeros != nullptr))
    return invalid(std::string(info.name) +
                   (info.takesZeros
                        ? " weights take zero points: zeros must not be null"
                        : " weights have no zero points: zeros must be null") +
                   " (u4 and u8 take them; i4, i8, e4m3 and e5m2 do not)");
  if (llvm::Error e = checkExtents(*f, n, k, group))
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
}

tilec_status pack(const int8_t *values, int64_t n, int64_t k, int format,
                  bool int4, int32_t *packed) {
  std::optional<WeightFormatKind> f = formatOf(format, int4);
  if (!f)
    return TILEC_ERROR_INVALID_ARGUMENT;
  return convert(*f, values, packed, n, k, [&] {
    return packWeightValues(
        llvm::ArrayRef<int8_t>(values, n * k), n, k, *f,
        llvm::MutableArrayRef<uint32_t>(reinterpret_cast<uint32_t *>(packed),
                                        wordCount(*f, n, k)));
  });
}

tilec_status unpack(const int32_t *packed, int64_t n, int64_t k, int format,
                    bool int4, int8_t *values) {
  std::optional<WeightFormatKind> f = formatOf(format, int4);
  if (!f)
    return TILEC_ERROR_INVALID_ARGUMENT;
  return convert(*f, packed, values, n, k, [&] {
    return unpackWeightValues(
        llvm::ArrayRef<uint32_t>(reinterpret_cast<const uint32_t *>(packed),
                                 wordCount(*f, n, k)),
        n, k, *f, llvm::MutableArrayRef<int8_t>(values, n * k));
  });
}

tilec_status dequantize(const int8_t *values, int64_t n, int64_t k,
                        int64_t group, int format, bool int4,
                        const void *scales, const char *scale_dtype,
                        const uint8_t *zeros, float *out) {
  std::optional<WeightFormatKind> f = formatOf(format, int4);
  std::optional<DTypeKind> st = f ? scaleTypeOf(scale_dtype) : std::nullopt;
  if (!st)
    return TILEC_ERROR_INVALID_ARGUMENT;
  const WeightFormatInfo &info = weightFormatInfo(*f);
  if (!values || !scales || !out)
    return invalid("values, scales and out must not be null");
  if (!info.takesZeros && zeros)
    return invalid(
        std::string(info.name) + " weights have no zero points" +
        (info.codeOffset
             ? " (z = " + std::to_string(info.codeOffset) + " is implied)"
             : std::string()) +
        "; pass zeros = NULL");
  if (llvm::Error e = checkExtents(*f, n, k, group))
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
}

} // namespace

extern "C" {

tilec_status tilec_check_weights(int64_t n, int64_t k, int64_t group,
                                 int format) {
  return capi::guard([&] { return checkWeights(n, k, group, format, false); });
}

tilec_status tilec_quantize_weights(const float *weights, int64_t n, int64_t k,
                                    int64_t group, int format,
                                    const char *scale_dtype, int8_t *values,
                                    void *scales, uint8_t *zeros) {
  return capi::guard([&] {
    return quantize(weights, n, k, group, format, false, scale_dtype, values,
                    scales, zeros);
  });
}

tilec_status tilec_pack_weights(const int8_t *values, int64_t n, int64_t k,
                                int format, int32_t *packed) {
  return capi::guard([&] { return pack(values, n, k, format, false, packed); });
}

tilec_status tilec_unpack_weights(const int32_t *packed, int64_t n, int64_t k,
                                  int format, int8_t *values) {
  return capi::guard(
      [&] { return unpack(packed, n, k, format, false, values); });
}

tilec_status tilec_dequantize_weights(const int8_t *values, int64_t n,
                                      int64_t k, int64_t group, int format,
                                      const void *scales,
                                      const char *scale_dtype,
                                      const uint8_t *zeros, float *out) {
  return capi::guard([&] {
    return dequantize(values, n, k, group, format, false, scales, scale_dtype,
                      zeros, out);
  });
}

// The 4-bit spellings of API 11.

tilec_status tilec_check_int4_weights(int64_t n, int64_t k, int64_t group) {
  return capi::guard(
      [&] { return checkWeights(n, k, group, TILEC_INT4_I4, true); });
}

tilec_status tilec_quantize_int4_weights(const float *weights, int64_t n,
                                         int64_t k, int64_t group, int format,
                                         const char *scale_dtype,
                                         int8_t *values, void *scales,
                                         uint8_t *zeros) {
  return capi::guard([&] {
    return quantize(weights, n, k, group, format, true, scale_dtype, values,
                    scales, zeros);
  });
}

tilec_status tilec_pack_int4_weights(const int8_t *values, int64_t n, int64_t k,
                                     int format, int32_t *packed) {
  return capi::guard([&] { return pack(values, n, k, format, true, packed); });
}

tilec_status tilec_unpack_int4_weights(const int32_t *packed, int64_t n,
                                       int64_t k, int format, int8_t *values) {
  return capi::guard(
      [&] { return unpack(packed, n, k, format, true, values); });
}

tilec_status tilec_dequantize_int4_weights(const int8_t *values, int64_t n,
                                           int64_t k, int64_t group, int format,
                                           const void *scales,
                                           const char *scale_dtype,
                                           const uint8_t *zeros, float *out) {
  return capi::guard([&] {
    return dequantize(values, n, k, group, format, true, scales, scale_dtype,
                      zeros, out);
  });
}

} // extern "C"
