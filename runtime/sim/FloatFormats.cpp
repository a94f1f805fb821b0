//===- runtime/sim/FloatFormats.cpp - Element formats of the tensor cores -===//
//
// Every narrow format is described by its exponent and mantissa widths, and
// one decoder and one encoder work from that description: decoding builds the
// exact value, encoding scales |x| to the quantum of its binade (exact in
// double), rounds the integer to nearest even and re-packs. The formats
// differ only in what they do past the largest finite value: f16, bf16 and
// e5m2 have infinities, e4m3 has only NaN (S.1111.111) and its largest finite
// value is 448 (S.1111.110).
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/FloatFormats.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace tilec::sim {

namespace {

/// A binary floating-point format narrower than f32.
struct NarrowFormat {
  unsigned expBits, manBits;
  /// True for IEEE-like formats with infinities (exponent all ones is
  /// inf/NaN); false for e4m3 (only S.1111.111 is NaN).
  bool hasInf;
  /// Encoding of the canonical NaN (positive).
  std::uint32_t nan;
  int bias() const { return (1 << (expBits - 1)) - 1; }
  unsigned bits() const { return 1 + expBits + manBits; }
  /// Largest finite magnitude's bit pattern.
  std::uint32_t maxFinite() const {
    if (hasInf)
      return ((((1u << expBits) - 2) << manBits) | ((1u << manBits) - 1));
    return ((1u << (expBits + manBits)) - 2);
  }
  std::uint32_t infinity() const { return ((1u << expBits) - 1) << manBits; }
};

constexpr NarrowFormat F16Format{5, 10, true, 0x7fff};
constexpr NarrowFormat BF16Format{8, 7, true, 0x7fff};
constexpr NarrowFormat E4M3Format{4, 3, false, 0x7f};
constexpr NarrowFormat E5M2Format{5, 2, true, 0x7f};

double decodeNarrow(const NarrowFormat &f, std::uint32_t bits) {
  std::uint32_t sign = (bits >> (f.expBits + f.manBits)) & 1;
  std::uint32_t exp = (bits >> f.manBits) & ((1u << f.expBits) - 1);
  std::uint32_t man = bits & ((1u << f.manBits) - 1);
  double value;
  std::uint32_t expAllOnes = (1u << f.expBits) - 1;
  if (f.hasInf && exp == expAllOnes)
    value = man ? std::numeric_limits<double>::quiet_NaN()
                : std::numeric_limits<double>::infinity();
  else if (!f.hasInf && exp == expAllOnes && man == (1u << f.manBits) - 1)
    value = std::numeric_limits<double>::quiet_NaN();
  else if (exp == 0)
    value = std::ldexp(double(man), 1 - f.bias() - int(f.manBits));
  else
    value = std::ldexp(double(man | (1u << f.manBits)),
                       int(exp) - f.bias() - int(f.manBits));
  return sign ? -value : value;
}

std::uint32_t encodeNarrow(const NarrowFormat &f, float value, bool satfinite) {
  std::uint32_t signBit = 1u << (f.expBits + f.manBits);
  if (std::isnan(value))
    return f.nan;
  std::uint32_t sign = std::signbit(value) ? signBit : 0;
  double mag = std::fabs(double(value));
  std::uint32_t overflow =
      satfinite ? f.maxFinite() : (f.hasInf ? f.infinity() : f.nan);
  if (std::isinf(mag))
    return sign | overflow;
  if (mag == 0)
    return sign;
  int minNormalExp = 1 - f.bias();
  int exp = std::ilogb(mag);
  if (exp < minNormalExp)
    exp = minNormalExp;
  // mag / quantum is below 2^(manBits + 1) and exact (mag has 24 bits).
  int quantumExp = exp - int(f.manBits);
  double scaled = std::nearbyint(std::ldexp(mag, -quantumExp));
  double rounded = std::ldexp(scaled, quantumExp);
  if (rounded == 0)
    return sign;
  int rexp = std::ilogb(rounded);
  std::uint32_t pattern;
  if (rexp < minNormalExp) {
    pattern =
        std::uint32_t(std::ldexp(rounded, -(minNormalExp - int(f.manBits))));
  } else {
    int biased = rexp + f.bias();
    std::uint32_t man =
        std::uint32_t(std::ldexp(rounded, -(rexp - int(f.manBits)))) &
        ((1u << f.manBits) - 1);
    if (biased >= (1 << f.expBits))
      return sign | overflow;
    pattern = (std::uint32_t(biased) << f.manBits) | man;
  }
  // Anything past the largest finite pattern (e4m3's NaN slot, or the
  // infinity exponent) has overflowed.
  if (pattern > f.maxFinite())
    return sign | overflow;
  return sign | pattern;
}

std::uint32_t floatBits(float v) { return std::bit_cast<std::uint32_t>(v); }
float bitsFloat(std::uint32_t b) { return std::bit_cast<float>(b); }

} // namespace

unsigned elemBits(ElemKind kind) {
  switch (kind) {
  case ElemKind::F16:
  case ElemKind::BF16:
    return 16;
  case ElemKind::TF32:
  case ElemKind::F32:
  case ElemKind::S32:
    return 32;
  case ElemKind::E4M3:
  case ElemKind::E5M2:
  case ElemKind::S8:
  case ElemKind::U8:
    return 8;
  }
  return 0;
}

const char *elemName(ElemKind kind) {
  switch (kind) {
  case ElemKind::F16:
    return "f16";
  case ElemKind::BF16:
    return "bf16";
  case ElemKind::TF32:
    return "tf32";
  case ElemKind::F32:
    return "f32";
  case ElemKind::E4M3:
    return "e4m3";
  case ElemKind::E5M2:
    return "e5m2";
  case ElemKind::S8:
    return "s8";
  case ElemKind::U8:
    return "u8";
  case ElemKind::S32:
    return "s32";
  }
  return "?";
}

float decodeElem(ElemKind kind, std::uint32_t bits) {
  switch (kind) {
  case ElemKind::F16:
    return float(decodeNarrow(F16Format, bits & 0xffff));
  case ElemKind::BF16:
    return bitsFloat((bits & 0xffff) << 16);
  case ElemKind::TF32:
    return bitsFloat(bits & 0xffffe000u);
  case ElemKind::F32:
    return bitsFloat(bits);
  case ElemKind::E4M3:
    return float(decodeNarrow(E4M3Format, bits & 0xff));
  case ElemKind::E5M2:
    return float(decodeNarrow(E5M2Format, bits & 0xff));
  case ElemKind::S8:
    return float(std::int8_t(bits & 0xff));
  case ElemKind::U8:
    return float(bits & 0xff);
  case ElemKind::S32:
    return float(std::int32_t(bits));
  }
  return 0;
}

std::uint32_t encodeElem(ElemKind kind, float value, bool satfinite) {
  switch (kind) {
  case ElemKind::F16:
    return encodeNarrow(F16Format, value, satfinite);
  case ElemKind::BF16:
    return encodeNarrow(BF16Format, value, satfinite);
  case ElemKind::E4M3:
    return encodeNarrow(E4M3Format, value, satfinite);
  case ElemKind::E5M2:
    return encodeNarrow(E5M2Format, value, satfinite);
  case ElemKind::TF32: {
    // tf32 is f32 with 10 mantissa bits: round the low 13 bits away.
    std::uint32_t b = floatBits(value);
    if (std::isnan(value))
      return 0x7fffffffu;
    if (std::isinf(value))
      return satfinite ? (b & 0x80000000u) | 0x7f7fe000u : b;
    std::uint32_t low = b & 0x1fffu, keep = b & ~0x1fffu;
    if (low > 0x1000u || (low == 0x1000u && (keep & 0x2000u)))
      keep += 0x2000u;
    if (satfinite && (keep & 0x7f800000u) == 0x7f800000u)
      keep = (keep & 0x80000000u) | 0x7f7fe000u;
    return keep;
  }
  case ElemKind::F32:
    return floatBits(value);
  case ElemKind::S8:
  case ElemKind::U8:
  case ElemKind::S32: {
    double lo = kind == ElemKind::S8   ? -128.0
                : kind == ElemKind::U8 ? 0.0
                                       : -2147483648.0;
    double hi = kind == ElemKind::S8   ? 127.0
                : kind == ElemKind::U8 ? 255.0
                                       : 2147483647.0;
    if (std::isnan(value))
      return 0;
    double r = std::nearbyint(double(value));
    r = r < lo ? lo : (r > hi ? hi : r);
    std::uint32_t mask = elemBits(kind) == 8 ? 0xffu : 0xffffffffu;
    return std::uint32_t(std::int64_t(r)) & mask;
  }
  }
  return 0;
}

std::uint32_t encodeTf32RoundAway(float value) {
  std::uint32_t b = floatBits(value);
  if (std::isnan(value))
    return 0x7fffffffu;
  if (std::isinf(value))
    return b;
  return (b + 0x1000u) & ~0x1fffu;
}

std::uint32_t encodeHalfFromDouble(ElemKind kind, double value) {
  bool bf16 = kind == ElemKind::BF16;
  if (std::isnan(value))
    return bf16 ? 0x7fffu : 0x7fffu; // The canonical NaN of both.
  // Significant bits, the smallest subnormal's exponent, the largest
  // finite value.
  int digits = bf16 ? 8 : 11, minExp = bf16 ? -133 : -24;
  double largest = bf16 ? 0x1.fep127 : 65504.0;
  double magnitude = std::fabs(value);
  double rounded = magnitude;
  if (magnitude != 0 && !std::isinf(magnitude)) {
    int exp;
    std::frexp(magnitude, &exp); // magnitude in [2^(exp-1), 2^exp)
    double ulp = std::ldexp(1.0, std::max(exp - digits, minExp));
    rounded = std::nearbyint(magnitude / ulp) * ulp; // ties to even
    if (rounded > largest)
      rounded = INFINITY;
  }
  // Exactly representable in f32 now: encodeElem does not round again.
  return encodeElem(kind, float(std::signbit(value) ? -rounded : rounded));
}

} // namespace tilec::sim
