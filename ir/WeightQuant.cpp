//===- ir/WeightQuant.cpp - Quantizing 4-bit GEMM weights -----------------===//

#include "ir/WeightQuant.h"

#include "ir/Float16Bits.h"
#include "ir/WeightPack.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace tilec {

llvm::StringRef int4FormatName(Int4FormatKind format) {
  return format == Int4FormatKind::I4 ? "i4" : "u4";
}

std::optional<Int4FormatKind> parseInt4Format(llvm::StringRef name) {
  if (name == "i4")
    return Int4FormatKind::I4;
  if (name == "u4")
    return Int4FormatKind::U4;
  return std::nullopt;
}

int int4MinValue(Int4FormatKind format) {
  return format == Int4FormatKind::I4 ? -8 : 0;
}

int int4MaxValue(Int4FormatKind format) {
  return format == Int4FormatKind::I4 ? 7 : 15;
}

namespace {

/// The legal extents next to a refused \p v (a multiple of \p multiple).
std::string nearestMultiples(const char *what, int64_t v, int64_t multiple) {
  int64_t below = v / multiple * multiple;
  if (below <= 0)
    return fmt::format("the smallest legal {} is {}", what, multiple);
  return fmt::format("the nearest legal {} are {} and {}", what, below,
                     below + multiple);
}

/// \p x rounded to \p type (f16, bf16; f32 unchanged).
float roundToScaleType(float x, DTypeKind type) {
  if (type == DTypeKind::F32)
    return x;
  return bits16ToFloat(floatToBits16(x, type), type);
}

/// round(x) to nearest, ties to even, clamped to [lo, hi] (NaN-free x).
int roundClamp(float x, int lo, int hi) {
  float r = std::nearbyint(x);
  return int(std::clamp(r, float(lo), float(hi)));
}

} // namespace

llvm::Error checkInt4Weight(int64_t n, int64_t k, int64_t group) {
  if (llvm::Error e = checkPackableInt4(n, k)) {
    std::string msg = llvm::toString(std::move(e));
    bool badN = n <= 0 || n % PackedInt4BlockN;
    msg += " (" +
           (badN ? nearestMultiples("N", n, PackedInt4BlockN)
                 : nearestMultiples("K", k, PackedInt4BlockK)) +
           ")";
    return llvm::createStringError(msg);
  }
  if (std::find(std::begin(Int4Groups), std::end(Int4Groups), group) ==
      std::end(Int4Groups))
    return llvm::createStringError(fmt::format(
        "the group size {} is not one of 32, 64, 128 (the K extent one "
        "scale covers)",
        group));
  if (k % group) {
    std::vector<std::string> fits;
    for (int64_t g : Int4Groups)
      if (k % g == 0)
        fits.push_back(std::to_string(g));
    return llvm::createStringError(fmt::format(
        "K = {} is not a multiple of the group size {} (groups of {} "
        "divide it)",
        k, group, fmt::join(fits, " or ")));
  }
  return llvm::Error::success();
}

llvm::Error checkInt4ScaleType(DTypeKind scaleType) {
  if (scaleType == DTypeKind::F16 || scaleType == DTypeKind::BF16 ||
      scaleType == DTypeKind::F32)
    return llvm::Error::success();
  return llvm::createStringError(
      fmt::format("scales cannot be {}; they are f16, bf16 (the "
                  "activation's type) or f32",
                  dtypeName(scaleType)));
}

llvm::Expected<QuantizedInt4> quantizeInt4(llvm::ArrayRef<float> weights,
                                           int64_t n, int64_t k, int64_t group,
                                           Int4FormatKind format,
                                           DTypeKind scaleType) {
  if (llvm::Error e = checkInt4Weight(n, k, group))
    return e;
  if (llvm::Error e = checkInt4ScaleType(scaleType))
    return e;
  if (weights.size() != size_t(n * k))
    return llvm::createStringError(
        fmt::format("{} weights for an N = {} x K = {} matrix; it needs {}",
                    weights.size(), n, k, n * k));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c)
      if (!std::isfinite(weights[r * k + c]))
        return llvm::createStringError(fmt::format(
            "the weight at (n, k) = ({}, {}) is {}; only finite weights can "
            "be quantized",
            r, c, weights[r * k + c]));

  QuantizedInt4 q;
  q.format = format;
  q.n = n;
  q.k = k;
  q.group = group;
  q.values.assign(n * k, 0);
  q.scales.assign(k / group * n, 0.0f);
  if (format == Int4FormatKind::U4)
    q.zeros.assign(k / group * n, 0);

  for (int64_t gi = 0; gi < k / group; ++gi)
    for (int64_t r = 0; r < n; ++r) {
      const float *w = weights.data() + r * k + gi * group;
      int8_t *out = q.values.data() + r * k + gi * group;
      float lo = 0.0f, hi = 0.0f;
      for (int64_t c = 0; c < group; ++c) {
        lo = std::min(lo, w[c]);
        hi = std::max(hi, w[c]);
      }
      float scale, zero = 0.0f;
      if (format == Int4FormatKind::I4)
        scale = roundToScaleType(std::max(-lo, hi) / 7.0f, scaleType);
      else
        scale = roundToScaleType((hi - lo) / 15.0f, scaleType);
      if (!std::isfinite(scale))
        return llvm::createStringError(fmt::format(
            "the scale of channel n = {}, k {}..{} ({} / {}) overflows {}", r,
            gi * group, gi * group + group - 1,
            format == Int4FormatKind::I4 ? std::max(-lo, hi) : hi - lo,
            format == Int4FormatKind::I4 ? 7 : 15, dtypeName(scaleType)));
      if (scale == 0.0f) {
        scale = 1.0f;
        std::fill(out, out + group, int8_t(0));
      } else {
        if (format == Int4FormatKind::U4)
          zero = float(roundClamp(-lo / scale, 0, 15));
        for (int64_t c = 0; c < group; ++c)
          out[c] = int8_t(
              format == Int4FormatKind::I4
                  ? roundClamp(w[c] / scale, -8, 7)
                  : roundClamp(std::nearbyint(w[c] / scale) + zero, 0, 15));
      }
      q.scales[gi * n + r] = scale;
      if (format == Int4FormatKind::U4)
        q.zeros[gi * n + r] = uint8_t(zero);
    }
  return q;
}

llvm::Error packInt4Values(llvm::ArrayRef<int8_t> values, int64_t n, int64_t k,
                           Int4FormatKind format,
                           llvm::MutableArrayRef<uint32_t> words) {
  if (llvm::Error e = checkPackableInt4(n, k))
    return e;
  if (values.size() != size_t(n * k) || words.size() != size_t(n * k / 8))
    return llvm::createStringError(fmt::format(
        "packing N = {} x K = {} takes {} values into {} words; got {} and {}",
        n, k, n * k, n * k / 8, values.size(), words.size()));
  int lo = int4MinValue(format), hi = int4MaxValue(format);
  int bias = format == Int4FormatKind::I4 ? 8 : 0;
  std::vector<uint8_t> codes(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] < lo || values[i] > hi)
      return llvm::createStringError(fmt::format(
          "the value at (n, k) = ({}, {}) is {}, outside {}'s {}..{}",
          int64_t(i) / k, int64_t(i) % k, int(values[i]),
          int4FormatName(format), lo, hi));
    codes[i] = uint8_t(values[i] + bias);
  }
  packInt4(codes, n, k, words);
  return llvm::Error::success();
}

llvm::Error unpackInt4Values(llvm::ArrayRef<uint32_t> words, int64_t n,
                             int64_t k, Int4FormatKind format,
                             llvm::MutableArrayRef<int8_t> values) {
  if (llvm::Error e = checkPackableInt4(n, k))
    return e;
  if (values.size() != size_t(n * k) || words.size() != size_t(n * k / 8))
    return llvm::createStringError(fmt::format(
        "unpacking N = {} x K = {} takes {} words into {} values; got {} and "
        "{}",
        n, k, n * k / 8, n * k, words.size(), values.size()));
  std::vector<uint8_t> codes(values.size());
  unpackInt4(words, n, k, codes);
  int bias = format == Int4FormatKind::I4 ? 8 : 0;
  for (size_t i = 0; i < codes.size(); ++i)
    values[i] = int8_t(int(codes[i]) - bias);
  return llvm::Error::success();
}

llvm::Error dequantizeInt4(llvm::ArrayRef<int8_t> values,
                           llvm::ArrayRef<float> scales,
                           llvm::ArrayRef<uint8_t> zeros, int64_t n, int64_t k,
                           int64_t group, Int4FormatKind format,
                           llvm::MutableArrayRef<float> weights) {
  if (llvm::Error e = checkInt4Weight(n, k, group))
    return e;
  size_t groups = size_t(k / group * n);
  if (values.size() != size_t(n * k) || weights.size() != size_t(n * k) ||
      scales.size() != groups)
    return llvm::createStringError(fmt::format(
        "dequantizing N = {} x K = {} in groups of {} takes {} values and {} "
        "scales; got {} values, {} scales",
        n, k, group, n * k, groups, values.size(), scales.size()));
  if (format == Int4FormatKind::I4 && !zeros.empty())
    return llvm::createStringError(
        "i4 weights have no zero points (z = 8 is implied)");
  if (!zeros.empty() && zeros.size() != groups)
    return llvm::createStringError(fmt::format(
        "{} zero points for N = {} x K = {} in groups of {}; it needs {}",
        zeros.size(), n, k, group, groups));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) {
      size_t g = size_t(c / group * n + r);
      int zero = zeros.empty() ? 0 : zeros[g];
      if (zero > 15)
        return llvm::createStringError(fmt::format(
            "the zero point of channel n = {}, k {}..{} is {}, above 15", r,
            c / group * group, c / group * group + group - 1, zero));
      weights[r * k + c] = float(values[r * k + c] - zero) * scales[g];
    }
  return llvm::Error::success();
}

} // namespace tilec
