//===- ir/tile/WeightQuant.cpp - Quantizing GEMM weights -----------------------===//

#include "ir/tile/WeightQuant.h"

#include "ir/arch/ElementCodec.h"
#include "ir/arch/Float16Bits.h"
#include "ir/layout/WeightPack.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>

namespace tilec {

namespace {

constexpr WeightFormatInfo kFormats[] = {
    {WeightFormatKind::I4, "i4", DTypeKind::I4, 4, -8, 7, 8, false, false},
    {WeightFormatKind::U4, "u4", DTypeKind::U4, 4, 0, 15, 0, true, false},
    {WeightFormatKind::I8, "i8", DTypeKind::I8, 8, -128, 127, 128, false,
     false},
    {WeightFormatKind::U8, "u8", DTypeKind::U8, 8, 0, 255, 0, true, false},
    {WeightFormatKind::E4M3, "e4m3", DTypeKind::E4M3, 8, 0, 0, 0, false, true},
    {WeightFormatKind::E5M2, "e5m2", DTypeKind::E5M2, 8, 0, 0, 0, false, true},
};

} // namespace

const WeightFormatInfo &weightFormatInfo(WeightFormatKind format) {
  return kFormats[size_t(format)];
}

llvm::StringRef weightFormatName(WeightFormatKind format) {
  return weightFormatInfo(format).name;
}

std::optional<WeightFormatKind> parseWeightFormat(llvm::StringRef name) {
  for (const WeightFormatInfo &info : kFormats)
    if (name == info.name)
      return info.kind;
  return std::nullopt;
}

std::optional<WeightFormatKind> weightFormatOf(DTypeKind dtype) {
  for (const WeightFormatInfo &info : kFormats)
    if (dtype == info.dtype)
      return info.kind;
  return std::nullopt;
}

std::string weightFormatNames() {
  std::string names;
  for (const WeightFormatInfo &info : kFormats)
    names += (names.empty() ? "" : ", ") + std::string(info.name);
  return names;
}

double weightValue(WeightFormatKind format, int8_t byte) {
  const WeightFormatInfo &info = weightFormatInfo(format);
  if (info.isFloat)
    return ElementCodec(info.dtype).decode(uint8_t(byte));
  return info.minValue < 0 ? double(byte) : double(uint8_t(byte));
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

llvm::Error checkWeightShape(WeightFormatKind format, int64_t n, int64_t k,
                             int64_t group) {
  unsigned bits = weightFormatInfo(format).bits;
  if (llvm::Error e = checkPackableWeight(bits, n, k)) {
    std::string msg = llvm::toString(std::move(e));
    bool badN = n <= 0 || n % PackedWeightBlockN;
    msg += " (" +
           (badN ? nearestMultiples("N", n, PackedWeightBlockN)
                 : nearestMultiples("K", k, packedWeightBlockK(bits))) +
           ")";
    return llvm::createStringError(msg);
  }
  if (std::find(std::begin(WeightGroups), std::end(WeightGroups), group) ==
      std::end(WeightGroups))
    return llvm::createStringError(fmt::format(
        "the group size {} is not one of 32, 64, 128 (the K extent one "
        "scale covers)",
        group));
  if (k % group) {
    std::vector<std::string> fits;
    for (int64_t g : WeightGroups)
      if (k % g == 0)
        fits.push_back(std::to_string(g));
    return llvm::createStringError(fmt::format(
        "K = {} is not a multiple of the group size {} (groups of {} "
        "divide it)",
        k, group, fmt::join(fits, " or ")));
  }
  return llvm::Error::success();
}

llvm::Error checkWeightScaleType(DTypeKind scaleType) {
  if (scaleType == DTypeKind::F16 || scaleType == DTypeKind::BF16 ||
      scaleType == DTypeKind::F32)
    return llvm::Error::success();
  return llvm::createStringError(
      fmt::format("scales cannot be {}; they are f16, bf16 (the "
                  "activation's type) or f32",
                  dtypeName(scaleType)));
}

namespace {

/// The bytes (values) of one group of \p format with the \p scale chosen:
/// \p w / scale rounded by the format's rule.
void quantizeGroup(const WeightFormatInfo &info, const float *w, int64_t size,
                   float scale, float zero, const ElementCodec *codec,
                   int8_t *out) {
  double largest = info.isFloat ? codec->largestFinite() : 0.0;
  for (int64_t c = 0; c < size; ++c) {
    if (info.isFloat) {
      double x = std::clamp(double(w[c]) / scale, -largest, largest);
      out[c] = int8_t(uint8_t(codec->encode(x).first));
    } else if (!info.takesZeros) {
      out[c] = int8_t(roundClamp(w[c] / scale, info.minValue, info.maxValue));
    } else {
      out[c] = int8_t(uint8_t(
          roundClamp(std::nearbyint(w[c] / scale) + zero, 0, info.maxValue)));
    }
  }
}

} // namespace

llvm::Expected<QuantizedWeights>
quantizeWeights(llvm::ArrayRef<float> weights, int64_t n, int64_t k,
                int64_t group, WeightFormatKind format, DTypeKind scaleType) {
  if (llvm::Error e = checkWeightShape(format, n, k, group))
    return e;
  if (llvm::Error e = checkWeightScaleType(scaleType))
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

  const WeightFormatInfo &info = weightFormatInfo(format);
  std::optional<ElementCodec> codec;
  if (info.isFloat)
    codec.emplace(info.dtype);
  // The divisor of the range: the largest q (symmetric and fp8) or the
  // span of q (with zero points).
  double top = info.isFloat ? codec->largestFinite() : double(info.maxValue);
  QuantizedWeights q;
  q.format = format;
  q.n = n;
  q.k = k;
  q.group = group;
  q.values.assign(n * k, 0);
  q.scales.assign(k / group * n, 0.0f);
  if (info.takesZeros)
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
      float range = info.takesZeros ? hi - lo : std::max(-lo, hi);
      float scale = roundToScaleType(range / float(top), scaleType);
      if (!std::isfinite(scale))
        return llvm::createStringError(fmt::format(
            "the scale of channel n = {}, k {}..{} ({} / {}) overflows {}", r,
            gi * group, gi * group + group - 1, range, top,
            dtypeName(scaleType)));
      float zero = 0.0f;
      if (scale == 0.0f) {
        scale = 1.0f;
        std::fill(out, out + group, int8_t(0));
      } else {
        if (info.takesZeros)
          zero = float(roundClamp(-lo / scale, 0, info.maxValue));
        quantizeGroup(info, w, group, scale, zero, codec ? &*codec : nullptr,
                      out);
      }
      q.scales[gi * n + r] = scale;
      if (info.takesZeros)
        q.zeros[gi * n + r] = uint8_t(zero);
    }
  return q;
}

namespace {

/// The code of stored \p byte, or an error naming (n, k) of index \p i
/// when the byte is outside the format (an fp8 NaN; \p finite says which
/// fp8 patterns are finite).
llvm::Expected<uint8_t> codeOf(const WeightFormatInfo &info, int8_t byte,
                               size_t i, int64_t k,
                               const std::array<bool, 256> &finite) {
  if (info.isFloat) {
    if (!finite[uint8_t(byte)])
      return llvm::createStringError(fmt::format(
          "the value at (n, k) = ({}, {}) is the {} pattern {:#04x}, which "
          "is not finite",
          int64_t(i) / k, int64_t(i) % k, info.name, uint8_t(byte)));
    return uint8_t(byte);
  }
  int q = info.minValue < 0 ? int(byte) : int(uint8_t(byte));
  if (q < info.minValue || q > info.maxValue)
    return llvm::createStringError(
        fmt::format("the value at (n, k) = ({}, {}) is {}, outside {}'s {}..{}",
                    int64_t(i) / k, int64_t(i) % k, q, info.name, info.minValue,
                    info.maxValue));
  return uint8_t(q + int(info.codeOffset));
}

} // namespace

llvm::Error packWeightValues(llvm::ArrayRef<int8_t> values, int64_t n,
                             int64_t k, WeightFormatKind format,
                             llvm::MutableArrayRef<uint32_t> words) {
  const WeightFormatInfo &info = weightFormatInfo(format);
  if (llvm::Error e = checkPackableWeight(info.bits, n, k))
    return e;
  size_t wordCount = size_t(n * k * info.bits / 32);
  if (values.size() != size_t(n * k) || words.size() != wordCount)
    return llvm::createStringError(fmt::format(
        "packing N = {} x K = {} takes {} values into {} words; got {} and {}",
        n, k, n * k, wordCount, values.size(), words.size()));
  std::array<bool, 256> finite{};
  for (int byte = 0; byte < 256; ++byte)
    finite[byte] = std::isfinite(weightValue(format, int8_t(uint8_t(byte))));
  std::vector<uint8_t> codes(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    llvm::Expected<uint8_t> code = codeOf(info, values[i], i, k, finite);
    if (!code)
      return code.takeError();
    codes[i] = *code;
  }
  packWeightCodes(info.bits, codes, n, k, words);
  return llvm::Error::success();
}

llvm::Error unpackWeightValues(llvm::ArrayRef<uint32_t> words, int64_t n,
                               int64_t k, WeightFormatKind format,
                               llvm::MutableArrayRef<int8_t> values) {
  const WeightFormatInfo &info = weightFormatInfo(format);
  if (llvm::Error e = checkPackableWeight(info.bits, n, k))
    return e;
  size_t wordCount = size_t(n * k * info.bits / 32);
  if (values.size() != size_t(n * k) || words.size() != wordCount)
    return llvm::createStringError(fmt::format(
        "unpacking N = {} x K = {} takes {} words into {} values; got {} and "
        "{}",
        n, k, wordCount, n * k, words.size(), values.size()));
  std::vector<uint8_t> codes(values.size());
  unpackWeightCodes(info.bits, words, n, k, codes);
  for (size_t i = 0; i < codes.size(); ++i)
    values[i] = int8_t(uint8_t(int(codes[i]) - int(info.codeOffset)));
  return llvm::Error::success();
}

llvm::Error dequantizeWeights(llvm::ArrayRef<int8_t> values,
                              llvm::ArrayRef<float> scales,
                              llvm::ArrayRef<uint8_t> zeros, int64_t n,
                              int64_t k, int64_t group, WeightFormatKind format,
                              llvm::MutableArrayRef<float> weights) {
  if (llvm::Error e = checkWeightShape(format, n, k, group))
    return e;
  const WeightFormatInfo &info = weightFormatInfo(format);
  size_t groups = size_t(k / group * n);
  if (values.size() != size_t(n * k) || weights.size() != size_t(n * k) ||
      scales.size() != groups)
    return llvm::createStringError(fmt::format(
        "dequantizing N = {} x K = {} in groups of {} takes {} values and {} "
        "scales; got {} values, {} scales",
        n, k, group, n * k, groups, values.size(), scales.size()));
  if (!info.takesZeros && !zeros.empty())
    return llvm::createStringError(fmt::format(
        "{} weights have no zero points{}", info.name,
        info.codeOffset ? fmt::format(" (z = {} is implied)", info.codeOffset)
                        : std::string()));
  if (!zeros.empty() && zeros.size() != groups)
    return llvm::createStringError(fmt::format(
        "{} zero points for N = {} x K = {} in groups of {}; it needs {}",
        zeros.size(), n, k, group, groups));
  // One decode table for the 256 bytes.
  double table[256];
  for (int byte = 0; byte < 256; ++byte)
    table[byte] = weightValue(format, int8_t(uint8_t(byte)));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) {
      size_t g = size_t(c / group * n + r);
      int zero = zeros.empty() ? 0 : zeros[g];
      if (zero > info.maxValue)
        return llvm::createStringError(fmt::format(
            "the zero point of channel n = {}, k {}..{} is {}, above {}", r,
            c / group * group, c / group * group + group - 1, zero,
            info.maxValue));
      weights[r * k + c] =
          float((table[uint8_t(values[r * k + c])] - zero) * scales[g]);
    }
  return llvm::Error::success();
}

} // namespace tilec
