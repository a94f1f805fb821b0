// The packed order of quantized weights (ir/layout/WeightPack.h) and the quantizer
// (ir/tile/WeightQuant.h): the layouts against packedWeightCode over every
// coordinate, the headers' worked examples, round trips of every format,
// words computed here from the header's prose (4-bit: lane l = 4 g + t,
// word w, nibble 4 e + 2 j + h; 8-bit: word 2 s + j, byte 2 h + e) and the
// quantization rules (fp8 by a search over all codes) without calling the
// code under test.
#include "ir/layout/WeightPack.h"
#include "ir/arch/Float16Bits.h"
#include "ir/tile/WeightQuant.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace tilec;

namespace {

const std::pair<int64_t, int64_t> kShapes[] = {
    {16, 64}, {32, 64}, {16, 128}, {48, 192}, {64, 256}};
/// The 8-bit shapes: K a multiple of 32.
const std::pair<int64_t, int64_t> kShapes8[] = {
    {16, 32}, {32, 32}, {16, 64}, {48, 96}, {64, 256}};

/// A code that is a known function of (n, k), so a misplaced nibble shows.
uint8_t codeAt(int64_t n, int64_t k) { return uint8_t((3 * n + 5 * k) % 16); }

std::vector<uint8_t> codesOf(int64_t n, int64_t k) {
  std::vector<uint8_t> codes(n * k);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c)
      codes[r * k + c] = codeAt(r, c);
  return codes;
}

std::string errorText(llvm::Error e) {
  return e ? llvm::toString(std::move(e)) : "";
}

} // namespace

TEST(WeightPackTest, LayoutIsTheCodeFunction) {
  // 4-bit: nibble offsets; 8-bit: byte offsets.
  for (unsigned bits : {4u, 8u})
    for (auto [n, k] :
         bits == 4 ? llvm::ArrayRef(kShapes) : llvm::ArrayRef(kShapes8)) {
      Layout l = packedWeightLayout(bits, n, k);
      ASSERT_EQ(l.size(), n * k);
      std::vector<bool> seen(n * k);
      for (int64_t r = 0; r < n; ++r)
        for (int64_t c = 0; c < k; ++c) {
          int64_t at = packedWeightCode(bits, r, c, k);
          ASSERT_EQ(l(IntTuple{r, c}), at)
              << bits << "-bit " << n << "x" << k << " at " << r << "," << c;
          ASSERT_GE(at, 0);
          ASSERT_LT(at, n * k);
          ASSERT_FALSE(seen[at]) << "code " << at << " twice";
          seen[at] = true;
        }
    }
}

TEST(WeightPackTest, LayoutPrints) {
  EXPECT_EQ(packedWeightLayout(8, 16, 32).str(),
            "((8,2,1),(2,4,2,2,1)):((64,4,512),(1,16,2,8,512))");
  EXPECT_EQ(packedWeightLayout(4, 16, 64).str(),
            "((8,2,1),(2,4,2,4,1)):((128,2,1024),(4,32,1,8,1024))");
  EXPECT_EQ(packedWeightLayout(4, 4096, 4096).str(),
            "((8,2,256),(2,4,2,4,64)):((128,2,65536),(4,32,1,8,1024))");
}

TEST(WeightPackTest, HeaderWorkedExamples) {
  // (n, k) = (9, 3). 4-bit, 16 x 64: nibble 166, word 20 (lane 5, w = 0),
  // nibble 6 of that word. 8-bit, 16 x 32: g = 1, j = 1, t = 1, e = 1:
  // byte 64 + 4 + 16 + 1 = 85, lane 5's word 1 (s = 0, j = 1), byte 1.
  struct {
    unsigned bits;
    int64_t k, offset, word, shift;
  } cases[] = {{4, 64, 166, 20, 24}, {8, 32, 85, 21, 8}};
  for (auto [bits, k, offset, word, shift] : cases) {
    EXPECT_EQ(packedWeightCode(bits, 9, 3, k), offset);
    EXPECT_EQ(packedWeightLayout(bits, 16, k)(IntTuple{9, 3}), offset);
    std::vector<uint8_t> codes(16 * k, 0);
    uint32_t code = bits == 4 ? 0xb : 0xab;
    codes[9 * k + 3] = uint8_t(code);
    std::vector<uint32_t> words(16 * k * bits / 32);
    packWeightCodes(bits, codes, 16, k, words);
    for (size_t i = 0; i < words.size(); ++i)
      EXPECT_EQ(words[i], int64_t(i) == word ? code << shift : 0u)
          << bits << "-bit word " << i;
  }
}

TEST(WeightPackTest, WordsFromTheProse) {
  // The header's definition, computed here: block (nb, kb) is 128 words,
  // blocks stored block row by block row (kb fastest); in a block, lane
  // l = 4 g + t holds words 4 l + w, and nibble 4 e + 2 j + h of word w is
  // the code of n = 16 nb + g + 8 j, k = 64 kb + 16 w + 2 t + e + 8 h.
  for (auto [n, k] : kShapes) {
    std::vector<uint8_t> codes = codesOf(n, k);
    std::vector<uint32_t> words(n * k / 8);
    packWeightCodes(4, codes, n, k, words);
    for (int64_t nb = 0; nb < n / 16; ++nb)
      for (int64_t kb = 0; kb < k / 64; ++kb)
        for (int lane = 0; lane < 32; ++lane)
          for (int w = 0; w < 4; ++w) {
            int g = lane / 4, t = lane % 4;
            uint32_t expect = 0;
            for (int e = 0; e < 2; ++e)
              for (int j = 0; j < 2; ++j)
                for (int h = 0; h < 2; ++h) {
                  int64_t r = 16 * nb + g + 8 * j;
                  int64_t c = 64 * kb + 16 * w + 2 * t + e + 8 * h;
                  expect |= uint32_t(codeAt(r, c)) << (4 * (4 * e + 2 * j + h));
                }
            int64_t index = (nb * (k / 64) + kb) * 128 + 4 * lane + w;
            ASSERT_EQ(words[index], expect)
                << n << "x" << k << " block (" << nb << "," << kb << ") lane "
                << lane << " word " << w;
          }
  }
}

TEST(WeightPackTest, Lane5Word0ByHand) {
  // 16 x 64, codes (3 n + 5 k) % 16. Lane 5 is g = 1, t = 1; word 0 holds
  // n in {1, 9}, k in {2, 3, 10, 11}; nibble 4 e + 2 j + h:
  //   0: (1, 2) = 13   1: (1, 10) = 5   2: (9, 2) = 5    3: (9, 10) = 13
  //   4: (1, 3) = 2    5: (1, 11) = 10  6: (9, 3) = 10   7: (9, 11) = 2
  std::vector<uint8_t> codes = codesOf(16, 64);
  std::vector<uint32_t> words(128);
  packWeightCodes(4, codes, 16, 64, words);
  EXPECT_EQ(words[20], 0x2aa2d55du);
}

TEST(WeightPackTest, RoundTripRandomCodes) {
  std::mt19937 rng(28);
  for (auto [n, k] : kShapes) {
    std::vector<uint8_t> codes(n * k), back(n * k);
    for (uint8_t &c : codes)
      c = uint8_t(rng() % 16);
    std::vector<uint32_t> words(n * k / 8);
    packWeightCodes(4, codes, n, k, words);
    unpackWeightCodes(4, words, n, k, back);
    EXPECT_EQ(codes, back) << n << "x" << k;
  }
}

TEST(WeightPackTest, CheckPackableMessages) {
  EXPECT_EQ(errorText(checkPackableWeight(4, 16, 64)), "");
  EXPECT_EQ(errorText(checkPackableWeight(4, 100, 64)),
            "a packed 4-bit weight needs N > 0 and a multiple of 16; got N = "
            "100");
  EXPECT_EQ(errorText(checkPackableWeight(4, 0, 64)),
            "a packed 4-bit weight needs N > 0 and a multiple of 16; got N = "
            "0");
  EXPECT_EQ(errorText(checkPackableWeight(4, 16, 96)),
            "a packed 4-bit weight needs K > 0 and a multiple of 64; got K = "
            "96");
  EXPECT_EQ(errorText(checkPackableWeight(4, 16, -64)),
            "a packed 4-bit weight needs K > 0 and a multiple of 64; got K = "
            "-64");
}

TEST(WeightQuantTest, CheckWeightMessages) {
  EXPECT_EQ(errorText(checkWeightShape(WeightFormatKind::I4, 4096, 4096, 128)),
            "");
  EXPECT_EQ(errorText(checkWeightShape(WeightFormatKind::I4, 100, 64, 32)),
            "a packed 4-bit weight needs N > 0 and a multiple of 16; got N = "
            "100 (the nearest legal N are 96 and 112)");
  EXPECT_EQ(errorText(checkWeightShape(WeightFormatKind::I4, 16, 32, 32)),
            "a packed 4-bit weight needs K > 0 and a multiple of 64; got K = "
            "32 (the smallest legal K is 64)");
  EXPECT_EQ(errorText(checkWeightShape(WeightFormatKind::I4, 16, 64, 96)),
            "the group size 96 is not one of 32, 64, 128 (the K extent one "
            "scale covers)");
  EXPECT_EQ(errorText(checkWeightShape(WeightFormatKind::I4, 16, 192, 128)),
            "K = 192 is not a multiple of the group size 128 (groups of 32 "
            "or 64 divide it)");
}

TEST(WeightQuantTest, HeaderExampleI4) {
  // G = 32: the group's largest |w| is 1.75, so scale 0.25; w = -0.6 is
  // q = round(-2.4) = -2, code 6, dequantized -0.5.
  std::vector<float> w(16 * 64, 0.0f);
  w[0] = 1.75f;
  w[1] = -0.6f;
  w[2] = 0.375f; // 1.5: a tie, to even: 2
  w[3] = 0.625f; // 2.5: to even: 2
  llvm::Expected<QuantizedWeights> q =
      quantizeWeights(w, 16, 64, 32, WeightFormatKind::I4, DTypeKind::BF16);
  ASSERT_TRUE(bool(q)) << llvm::toString(q.takeError());
  EXPECT_EQ(q->scales.size(), 2u * 16);
  EXPECT_EQ(q->scales[0], 0.25f);
  EXPECT_EQ(q->scales[16], 1.0f); // k 32..63 of n = 0: all zero
  EXPECT_EQ(q->scales[1], 1.0f);  // n = 1: all zero
  EXPECT_TRUE(q->zeros.empty());
  EXPECT_EQ(q->values[0], 7);
  EXPECT_EQ(q->values[1], -2);
  EXPECT_EQ(q->values[2], 2);
  EXPECT_EQ(q->values[3], 2);
  std::vector<uint32_t> words(128);
  ASSERT_FALSE(
      bool(packWeightValues(q->values, 16, 64, WeightFormatKind::I4, words)));
  // (0, 1): g = 0, t = 0, e = 1: lane 0, word 0, nibble 4: code 8 - 2 = 6.
  EXPECT_EQ((words[0] >> 16) & 0xf, 6u);
  std::vector<float> deq(16 * 64);
  ASSERT_FALSE(bool(dequantizeWeights(q->values, q->scales, q->zeros, 16, 64,
                                      32, WeightFormatKind::I4, deq)));
  EXPECT_EQ(deq[0], 1.75f);
  EXPECT_EQ(deq[1], -0.5f);
}

TEST(WeightQuantTest, U4ZeroPoints) {
  // One group of 32 in [-1, 2]: lo = -1, hi = 2, scale 0.2 (rounded to
  // f16), zero = round(1 / scale) = 5.
  std::vector<float> w(16 * 64, 0.0f);
  for (int c = 0; c < 32; ++c)
    w[c] = -1.0f + 3.0f * float(c) / 31.0f;
  llvm::Expected<QuantizedWeights> q =
      quantizeWeights(w, 16, 64, 32, WeightFormatKind::U4, DTypeKind::F16);
  ASSERT_TRUE(bool(q)) << llvm::toString(q.takeError());
  float scale =
      bits16ToFloat(floatToBits16(0.2f, DTypeKind::F16), DTypeKind::F16);
  EXPECT_EQ(q->scales[0], scale);
  ASSERT_EQ(q->zeros.size(), 2u * 16);
  EXPECT_EQ(q->zeros[0], 5);
  EXPECT_EQ(q->values[0], 0);
  EXPECT_EQ(q->values[31], 15);
  // An all-positive group still represents 0 (lo = 0): zero point 0.
  std::vector<float> pos(16 * 64, 0.5f);
  q = quantizeWeights(pos, 16, 64, 64, WeightFormatKind::U4, DTypeKind::F32);
  ASSERT_TRUE(bool(q));
  EXPECT_EQ(q->zeros[0], 0);
  EXPECT_EQ(q->values[0], 15);
  EXPECT_EQ(q->scales[0], 0.5f / 15.0f);
}

TEST(WeightQuantTest, Errors) {
  std::vector<float> w(16 * 64, 0.0f);
  w[70] = NAN;
  EXPECT_EQ(errorText(quantizeWeights(w, 16, 64, 64, WeightFormatKind::I4,
                                      DTypeKind::BF16)
                          .takeError()),
            "the weight at (n, k) = (1, 6) is nan; only finite weights can be "
            "quantized");
  w[70] = 1e6f;
  EXPECT_EQ(errorText(quantizeWeights(w, 16, 64, 64, WeightFormatKind::I4,
                                      DTypeKind::F16)
                          .takeError()),
            "the scale of channel n = 1, k 0..63 (1000000 / 7) overflows f16");
  EXPECT_EQ(errorText(quantizeWeights(w, 16, 64, 64, WeightFormatKind::I4,
                                      DTypeKind::E4M3)
                          .takeError()),
            "scales cannot be e4m3; they are f16, bf16 (the activation's "
            "type) or f32");
  std::vector<int8_t> values(16 * 64, 0);
  values[65] = 8;
  std::vector<uint32_t> words(128);
  EXPECT_EQ(
      errorText(packWeightValues(values, 16, 64, WeightFormatKind::I4, words)),
      "the value at (n, k) = (1, 1) is 8, outside i4's -8..7");
  EXPECT_EQ(
      errorText(packWeightValues(values, 16, 64, WeightFormatKind::U4, words)),
      "");
  values[65] = -1;
  EXPECT_EQ(
      errorText(packWeightValues(values, 16, 64, WeightFormatKind::U4, words)),
      "the value at (n, k) = (1, 1) is 255, outside u4's 0..15");
  EXPECT_EQ(
      errorText(packWeightValues(values, 16, 96, WeightFormatKind::U4, words)),
      "a packed 4-bit weight needs K > 0 and a multiple of 64; got K = "
      "96");
}

// 8-bit codes (i8, u8, e4m3, e5m2): 16 x 32 blocks of 512 bytes, lane
// l = 4 g + t holds bytes 16 l .. 16 l + 15 (words 4 l + w), word
// w = 2 s + j, byte 2 h + e holds the code of n = g + 8 j, k = 16 s +
// 2 t + e + 8 h (ir/layout/WeightPack.h's prose, computed here).

namespace {

/// An 8-bit code that is a known function of (n, k).
uint8_t code8At(int64_t n, int64_t k) { return uint8_t((3 * n + 5 * k) % 256); }

/// The bf16 nearest \p x (ties to even), as a float: the scale types'
/// rounding, written here from the bit layout.
float bf16Of(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits = (bits + 0x7fff + ((bits >> 16) & 1)) & 0xffff0000u;
  std::memcpy(&x, &bits, 4);
  return x;
}

/// An fp8 format by its fields: e4m3 (fn: no infinities, S.1111.111 NaN)
/// or e5m2 (IEEE-like: exponent 31 is Inf / NaN).
struct Fp8Ref {
  int exp, man;
  bool fn;

  /// The value of \p code, NaN for the NaN patterns (and e5m2's Inf).
  double decode(uint8_t code) const {
    int bias = (1 << (exp - 1)) - 1;
    int e = (code >> man) & ((1 << exp) - 1), m = code & ((1 << man) - 1);
    if (fn ? (e == (1 << exp) - 1 && m == (1 << man) - 1) : e == (1 << exp) - 1)
      return NAN;
    double v = e == 0 ? std::ldexp(double(m), 1 - bias - man)
                      : std::ldexp(double((1 << man) + m), e - bias - man);
    return code & 0x80 ? -v : v;
  }

  /// The largest finite value.
  double largest() const {
    double best = 0;
    for (int c = 0; c < 128; ++c)
      if (std::isfinite(decode(uint8_t(c))))
        best = std::max(best, decode(uint8_t(c)));
    return best;
  }

  /// \p x rounded to the nearest finite value (ties to the even code),
  /// clamped to the largest: by searching all 256 codes.
  double round(double x) const {
    x = std::clamp(x, -largest(), largest());
    double best = NAN;
    int bestCode = -1;
    for (int c = 0; c < 256; ++c) {
      double v = decode(uint8_t(c));
      if (!std::isfinite(v))
        continue;
      double d = std::fabs(v - x), bd = std::fabs(best - x);
      if (bestCode < 0 || d < bd || (d == bd && v != best && c % 2 == 0)) {
        best = v;
        bestCode = c;
      }
    }
    return best;
  }
};

const Fp8Ref kE4M3{4, 3, true}, kE5M2{5, 2, false};

const WeightFormatKind kAllFormats[] = {
    WeightFormatKind::I4, WeightFormatKind::U4,   WeightFormatKind::I8,
    WeightFormatKind::U8, WeightFormatKind::E4M3, WeightFormatKind::E5M2};

} // namespace

TEST(WeightPackTest, Words8FromTheProse) {
  for (auto [n, k] : kShapes8) {
    std::vector<uint8_t> codes(n * k);
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < k; ++c)
        codes[r * k + c] = code8At(r, c);
    std::vector<uint32_t> words(n * k / 4);
    packWeightCodes(8, codes, n, k, words);
    for (int64_t nb = 0; nb < n / 16; ++nb)
      for (int64_t kb = 0; kb < k / 32; ++kb)
        for (int lane = 0; lane < 32; ++lane)
          for (int s = 0; s < 2; ++s)
            for (int j = 0; j < 2; ++j) {
              int g = lane / 4, t = lane % 4;
              uint32_t expect = 0;
              for (int h = 0; h < 2; ++h)
                for (int e = 0; e < 2; ++e) {
                  int64_t r = 16 * nb + g + 8 * j;
                  int64_t c = 32 * kb + 16 * s + 2 * t + e + 8 * h;
                  expect |= uint32_t(code8At(r, c)) << (8 * (2 * h + e));
                }
              int64_t index = (nb * (k / 32) + kb) * 128 + 4 * lane + 2 * s + j;
              ASSERT_EQ(words[index], expect)
                  << n << "x" << k << " block (" << nb << "," << kb << ") lane "
                  << lane << " s " << s << " j " << j;
            }
    std::vector<uint8_t> back(n * k);
    unpackWeightCodes(8, words, n, k, back);
    EXPECT_EQ(back, codes) << n << "x" << k;
  }
}

TEST(WeightPackTest, Lane5Word1ByHand8) {
  // 16 x 32, codes (3 n + 5 k) % 256. Lane 5 is g = 1, t = 1; word 1 is
  // s = 0, j = 1: n = 9, k in {2, 3, 10, 11} in bytes 2 h + e:
  //   0: (9, 2) = 37   1: (9, 3) = 42   2: (9, 10) = 77   3: (9, 11) = 82
  std::vector<uint8_t> codes(16 * 32);
  for (int64_t r = 0; r < 16; ++r)
    for (int64_t c = 0; c < 32; ++c)
      codes[r * 32 + c] = code8At(r, c);
  std::vector<uint32_t> words(128);
  packWeightCodes(8, codes, 16, 32, words);
  EXPECT_EQ(words[21], 0x524d2a25u);
  // Word 0 of lane 5 is j = 0: n = 1: (1, 2) = 13, (1, 3) = 18, (1, 10) =
  // 53, (1, 11) = 58.
  EXPECT_EQ(words[20], 0x3a35120du);
}

TEST(WeightPackTest, ValuesRoundTripEveryFormat) {
  // Every legal value of each format packs and unpacks to itself, and the
  // code stored is the value plus the format's offset (i4 8, i8 128).
  std::mt19937 rng(29);
  for (WeightFormatKind f : kAllFormats) {
    const WeightFormatInfo &info = weightFormatInfo(f);
    unsigned bits = info.bits;
    int64_t n = 32, k = bits == 4 ? 128 : 64;
    std::vector<int8_t> values(n * k), back(n * k);
    for (int8_t &v : values) {
      if (info.isFloat) {
        const Fp8Ref &ref = f == WeightFormatKind::E4M3 ? kE4M3 : kE5M2;
        uint8_t c;
        do
          c = uint8_t(rng());
        while (!std::isfinite(ref.decode(c)));
        v = int8_t(c);
      } else {
        v = int8_t(info.minValue +
                   int(rng() % unsigned(info.maxValue - info.minValue + 1)));
      }
    }
    std::vector<uint32_t> words(n * k * bits / 32);
    ASSERT_EQ(errorText(packWeightValues(values, n, k, f, words)), "")
        << info.name;
    ASSERT_EQ(errorText(unpackWeightValues(words, n, k, f, back)), "");
    EXPECT_EQ(back, values) << info.name;
    int offset = f == WeightFormatKind::I4   ? 8
                 : f == WeightFormatKind::I8 ? 128
                                             : 0;
    for (int64_t r = 0; r < n; r += 7)
      for (int64_t c = 0; c < k; c += 5) {
        int64_t at = packedWeightCode(bits, r, c, k);
        uint32_t code =
            (words[at / (32 / bits)] >> (bits * (at % (32 / bits)))) &
            ((1u << bits) - 1);
        int q = info.minValue < 0 ? int(values[r * k + c])
                                  : int(uint8_t(values[r * k + c]));
        ASSERT_EQ(code, uint32_t((q + offset) & ((1 << bits) - 1)))
            << info.name << " at " << r << "," << c;
      }
  }
}

TEST(WeightQuantTest, IntegerRulesByHand8) {
  // i8, G = 32: the group's largest |w| is 31.75 = 127 * 0.25, so scale
  // 0.25; w = -1.3 is q = round(-5.2) = -5 (code 123); ties to even:
  // 0.625 -> 2.5 -> 2, 0.875 -> 3.5 -> 4.
  std::vector<float> w(16 * 32, 0.0f);
  w[0] = 31.75f;
  w[1] = -1.3f;
  w[2] = 0.625f;
  w[3] = 0.875f;
  llvm::Expected<QuantizedWeights> q =
      quantizeWeights(w, 16, 32, 32, WeightFormatKind::I8, DTypeKind::BF16);
  ASSERT_TRUE(bool(q)) << llvm::toString(q.takeError());
  EXPECT_EQ(q->scales[0], 0.25f);
  EXPECT_EQ(q->scales[1], 1.0f); // n = 1: all zero
  EXPECT_TRUE(q->zeros.empty());
  EXPECT_EQ(q->values[0], 127);
  EXPECT_EQ(q->values[1], -5);
  EXPECT_EQ(q->values[2], 2);
  EXPECT_EQ(q->values[3], 4);
  std::vector<uint32_t> words(128);
  ASSERT_EQ(errorText(packWeightValues(q->values, 16, 32, WeightFormatKind::I8,
                                       words)),
            "");
  // (0, 1): lane 0, word 0, byte 1: code -5 + 128 = 123.
  EXPECT_EQ((words[0] >> 8) & 0xff, 123u);
  std::vector<float> deq(16 * 32);
  ASSERT_EQ(errorText(dequantizeWeights(q->values, q->scales, q->zeros, 16, 32,
                                        32, WeightFormatKind::I8, deq)),
            "");
  EXPECT_EQ(deq[0], 31.75f);
  EXPECT_EQ(deq[1], -1.25f);

  // u8, f32 scales: a group in [-1, 2]: scale = 3 / 255, zero =
  // round(1 / scale) = 85, w = -1 is q 0, w = 2 is q 255.
  std::vector<float> u(16 * 32, 0.0f);
  for (int c = 0; c < 32; ++c)
    u[c] = -1.0f + 3.0f * float(c) / 31.0f;
  q = quantizeWeights(u, 16, 32, 32, WeightFormatKind::U8, DTypeKind::F32);
  ASSERT_TRUE(bool(q)) << llvm::toString(q.takeError());
  float scale = 3.0f / 255.0f;
  EXPECT_EQ(q->scales[0], scale);
  ASSERT_EQ(q->zeros.size(), 16u);
  EXPECT_EQ(q->zeros[0], 85);
  EXPECT_EQ(uint8_t(q->values[0]), 0);
  EXPECT_EQ(uint8_t(q->values[31]), 255);
  for (int c = 0; c < 32; ++c) {
    float want = std::clamp(std::nearbyint(u[c] / scale) + 85.0f, 0.0f, 255.0f);
    EXPECT_EQ(uint8_t(q->values[c]), uint8_t(want)) << c;
  }
  // u8 codes are q: (0, 31) is lane 3 (t = 3), s = 1, h = 1, e = 1: word
  // 4 * 3 + 2 = 14, byte 3.
  ASSERT_EQ(errorText(packWeightValues(q->values, 16, 32, WeightFormatKind::U8,
                                       words)),
            "");
  EXPECT_EQ(words[14] >> 24, 255u);
}

TEST(WeightQuantTest, IntegerRules8Random) {
  // i8 and u8 on random groups against the rules written here, bf16
  // scales rounded by bf16Of.
  std::mt19937 rng(31);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  const int64_t n = 32, k = 128, group = 64;
  std::vector<float> w(n * k);
  for (float &x : w)
    x = normal(rng) + (rng() % 3 == 0 ? 0.02f : 0.0f);
  for (WeightFormatKind f : {WeightFormatKind::I8, WeightFormatKind::U8}) {
    llvm::Expected<QuantizedWeights> q =
        quantizeWeights(w, n, k, group, f, DTypeKind::BF16);
    ASSERT_TRUE(bool(q)) << llvm::toString(q.takeError());
    for (int64_t r = 0; r < n; ++r)
      for (int64_t gi = 0; gi < k / group; ++gi) {
        const float *g = w.data() + r * k + gi * group;
        float lo = 0, hi = 0;
        for (int64_t c = 0; c < group; ++c) {
          lo = std::min(lo, g[c]);
          hi = std::max(hi, g[c]);
        }
        bool sym = f == WeightFormatKind::I8;
        float scale =
            bf16Of(sym ? std::max(-lo, hi) / 127.0f : (hi - lo) / 255.0f);
        ASSERT_EQ(q->scales[gi * n + r], scale) << r << "," << gi;
        float zero =
            sym ? 0.0f : std::clamp(std::nearbyint(-lo / scale), 0.0f, 255.0f);
        if (!sym) {
          ASSERT_EQ(q->zeros[gi * n + r], uint8_t(zero));
        }
        for (int64_t c = 0; c < group; ++c) {
          float want = std::nearbyint(g[c] / scale) + zero;
          want = sym ? std::clamp(want, -128.0f, 127.0f)
                     : std::clamp(want, 0.0f, 255.0f);
          int8_t got = q->values[r * k + gi * group + c];
          ASSERT_EQ(sym ? float(got) : float(uint8_t(got)), want)
              << weightFormatName(f).str() << " at " << r << ","
              << gi * group + c;
        }
      }
  }
}

TEST(WeightQuantTest, FloatRulesByHand) {
  // e4m3, f32 scales: the group's largest |w| is 224 = 448 * 0.5, so
  // scale 0.5 and q = e4m3(2 w). Ties to even: 1.0625 lies between 1
  // (mantissa 000) and 1.125 (001): 1; 1.1875 between 1.125 and 1.25
  // (010): 1.25. Subnormals (2^-9 apart): 2^-10 -> 0, 3 * 2^-10 -> 2^-8.
  std::vector<float> w(16 * 32, 0.0f);
  const float x[] = {448,
                     -448,
                     1.0625f,
                     1.1875f,
                     std::ldexp(1.0f, -10),
                     3 * std::ldexp(1.0f, -10),
                     -0.3f,
                     100};
  const uint8_t want[] = {0x7e, 0xfe, 0x38, 0x3a, 0x00, 0x02, 0xaa, 0x6c};
  for (int c = 0; c < 8; ++c)
    w[c] = x[c] / 2;
  llvm::Expected<QuantizedWeights> q =
      quantizeWeights(w, 16, 32, 32, WeightFormatKind::E4M3, DTypeKind::F32);
  ASSERT_TRUE(bool(q)) << llvm::toString(q.takeError());
  EXPECT_EQ(q->scales[0], 0.5f);
  EXPECT_TRUE(q->zeros.empty());
  for (int c = 0; c < 8; ++c) {
    EXPECT_EQ(uint8_t(q->values[c]), want[c]) << c;
    EXPECT_EQ(kE4M3.round(x[c]), kE4M3.decode(want[c])) << c;
  }
  std::vector<float> deq(16 * 32);
  ASSERT_EQ(errorText(dequantizeWeights(q->values, q->scales, {}, 16, 32, 32,
                                        WeightFormatKind::E4M3, deq)),
            "");
  EXPECT_EQ(deq[0], 224.0f);
  EXPECT_EQ(deq[2], 0.5f);
  EXPECT_EQ(deq[6], -0.15625f); // -0.3 -> -0.3125 (0xaa), times 0.5

  // e5m2: largest |w| 57344 * 2^-10 gives scale 2^-10 (exact in bf16);
  // x = w / scale: 57344 is 0x7b, 1.125 a tie between 1 (00) and 1.25
  // (01): 1 (0x3c); 1.375 between 1.25 and 1.5 (10): 1.5 (0x3e).
  std::vector<float> v(16 * 32, 0.0f);
  const float y[] = {57344, -57344, 1.125f, 1.375f};
  const uint8_t wantE5[] = {0x7b, 0xfb, 0x3c, 0x3e};
  for (int c = 0; c < 4; ++c)
    v[c] = std::ldexp(y[c], -10);
  q = quantizeWeights(v, 16, 32, 32, WeightFormatKind::E5M2, DTypeKind::BF16);
  ASSERT_TRUE(bool(q)) << llvm::toString(q.takeError());
  EXPECT_EQ(q->scales[0], std::ldexp(1.0f, -10));
  for (int c = 0; c < 4; ++c) {
    EXPECT_EQ(uint8_t(q->values[c]), wantE5[c]) << c;
    EXPECT_EQ(kE5M2.round(y[c]), kE5M2.decode(wantE5[c])) << c;
  }
}

TEST(WeightQuantTest, FloatRulesRandom) {
  // e4m3 and e5m2 on random groups: scale = bf16(max |w| / largest), each
  // value the nearest fp8 (ties to the even code, clamped to the largest
  // finite), by a search over all codes here. Compared as values (the
  // quantizer never writes -0).
  std::mt19937 rng(37);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  const int64_t n = 32, k = 128, group = 32;
  std::vector<float> w(n * k);
  for (float &x : w)
    x = normal(rng);
  for (WeightFormatKind f : {WeightFormatKind::E4M3, WeightFormatKind::E5M2}) {
    const Fp8Ref &ref = f == WeightFormatKind::E4M3 ? kE4M3 : kE5M2;
    EXPECT_EQ(ref.largest(), f == WeightFormatKind::E4M3 ? 448.0 : 57344.0);
    llvm::Expected<QuantizedWeights> q =
        quantizeWeights(w, n, k, group, f, DTypeKind::BF16);
    ASSERT_TRUE(bool(q)) << llvm::toString(q.takeError());
    for (int64_t r = 0; r < n; ++r)
      for (int64_t gi = 0; gi < k / group; ++gi) {
        const float *g = w.data() + r * k + gi * group;
        float top = 0;
        for (int64_t c = 0; c < group; ++c)
          top = std::max(top, std::fabs(g[c]));
        float scale = bf16Of(top / float(ref.largest()));
        ASSERT_EQ(q->scales[gi * n + r], scale);
        for (int64_t c = 0; c < group; ++c) {
          uint8_t got = uint8_t(q->values[r * k + gi * group + c]);
          ASSERT_EQ(ref.decode(got), ref.round(double(g[c]) / scale))
              << weightFormatName(f).str() << " at " << r << ","
              << gi * group + c;
        }
      }
  }
}

TEST(WeightQuantTest, EveryFormatWithinHalfAStep) {
  // quantize -> pack -> unpack -> dequantize for every format and group:
  // the values survive the packing, and the integer formats land within
  // half a step (plus the rounding of the scale and the zero point where q
  // is clamped), fp8 within half its spacing at the value (2^-4 / 2^-3
  // relative, or half the smallest subnormal step).
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  const int64_t n = 32, k = 256;
  std::vector<float> w(n * k);
  for (float &x : w)
    x = normal(rng);
  for (WeightFormatKind f : kAllFormats)
    for (auto [group, st] : {std::pair{int64_t(32), DTypeKind::BF16},
                             {int64_t(64), DTypeKind::F16},
                             {int64_t(128), DTypeKind::BF16},
                             {int64_t(128), DTypeKind::F16}}) {
      const WeightFormatInfo &info = weightFormatInfo(f);
      llvm::Expected<QuantizedWeights> q =
          quantizeWeights(w, n, k, group, f, st);
      ASSERT_TRUE(bool(q)) << llvm::toString(q.takeError());
      std::vector<uint32_t> words(n * k * info.bits / 32);
      std::vector<int8_t> back(n * k);
      ASSERT_EQ(errorText(packWeightValues(q->values, n, k, f, words)), "");
      ASSERT_EQ(errorText(unpackWeightValues(words, n, k, f, back)), "");
      EXPECT_EQ(back, q->values) << info.name;
      std::vector<float> deq(n * k);
      ASSERT_EQ(errorText(dequantizeWeights(back, q->scales, q->zeros, n, k,
                                            group, f, deq)),
                "");
      for (int64_t r = 0; r < n; ++r)
        for (int64_t c = 0; c < k; ++c) {
          float scale = q->scales[c / group * n + r];
          float err = std::fabs(deq[r * k + c] - w[r * k + c]);
          float bound;
          if (!info.isFloat) {
            // Half a step where q is inside the range; at its ends (q
            // clamped) also the 16-bit scale's rounding (2^-9 of the span)
            // and, with zero points, the zero point's (half a step).
            int value = int(weightValue(f, q->values[r * k + c]));
            bool end = value == info.minValue || value == info.maxValue;
            bound = scale * (0.5f + 1.0f / 1024 +
                             (end ? float(info.maxValue - info.minValue) / 512 +
                                        (info.takesZeros ? 0.5f : 0.0f)
                                  : 0.0f));
          } else {
            bool e4 = f == WeightFormatKind::E4M3;
            float rel = e4 ? 1.0f / 16 : 1.0f / 8;
            float sub = std::ldexp(1.0f, e4 ? -10 : -17) * scale;
            bound = std::max(std::fabs(w[r * k + c]) * rel * 1.01f, sub) +
                    std::fabs(w[r * k + c]) / 256;
          }
          ASSERT_LE(err, bound)
              << info.name << " group " << group << " at " << r << "," << c;
        }
    }
}

TEST(WeightQuantTest, Errors8) {
  EXPECT_EQ(errorText(checkWeightShape(WeightFormatKind::I8, 16, 32, 32)), "");
  EXPECT_EQ(errorText(checkWeightShape(WeightFormatKind::E4M3, 16, 48, 32)),
            "a packed 8-bit weight needs K > 0 and a multiple of 32; got K = "
            "48 (the nearest legal K are 32 and 64)");
  EXPECT_EQ(errorText(checkWeightShape(WeightFormatKind::U8, 24, 32, 32)),
            "a packed 8-bit weight needs N > 0 and a multiple of 16; got N = "
            "24 (the nearest legal N are 16 and 32)");
  EXPECT_EQ(errorText(checkWeightShape(WeightFormatKind::E5M2, 16, 96, 64)),
            "K = 96 is not a multiple of the group size 64 (groups of 32 "
            "divide it)");

  std::vector<int8_t> values(16 * 32, 0);
  std::vector<uint32_t> words(128);
  values[33] = int8_t(0x7f); // e4m3's NaN; e5m2's NaN too
  EXPECT_EQ(
      errorText(
          packWeightValues(values, 16, 32, WeightFormatKind::E4M3, words)),
      "the value at (n, k) = (1, 1) is the e4m3 pattern 0x7f, which is not "
      "finite");
  values[33] = int8_t(0xfc); // e5m2's -Inf; e4m3's -256
  EXPECT_EQ(
      errorText(
          packWeightValues(values, 16, 32, WeightFormatKind::E5M2, words)),
      "the value at (n, k) = (1, 1) is the e5m2 pattern 0xfc, which is not "
      "finite");
  EXPECT_EQ(errorText(packWeightValues(values, 16, 32, WeightFormatKind::E4M3,
                                       words)),
            "");
  EXPECT_EQ(
      errorText(packWeightValues(values, 16, 32, WeightFormatKind::I8, words)),
      "");
  // The word count follows the code width: 16 x 32 8-bit is 128 words.
  std::vector<uint32_t> fewer(64);
  EXPECT_EQ(
      errorText(packWeightValues(values, 16, 32, WeightFormatKind::U8, fewer)),
      "packing N = 16 x K = 32 takes 512 values into 128 words; got 512 and "
      "64");

  std::vector<float> scales(16, 1.0f), out(16 * 32);
  std::vector<uint8_t> zeros(16, 3);
  EXPECT_EQ(errorText(dequantizeWeights(values, scales, zeros, 16, 32, 32,
                                        WeightFormatKind::I8, out)),
            "i8 weights have no zero points (z = 128 is implied)");
  EXPECT_EQ(errorText(dequantizeWeights(values, scales, zeros, 16, 32, 32,
                                        WeightFormatKind::E5M2, out)),
            "e5m2 weights have no zero points");
  std::vector<float> w(16 * 32, 0.0f);
  w[40] = 1e30f;
  EXPECT_EQ(errorText(quantizeWeights(w, 16, 32, 32, WeightFormatKind::E5M2,
                                      DTypeKind::F16)
                          .takeError()),
            "the scale of channel n = 1, k 0..31 (1e+30 / 57344) overflows "
            "f16");
}
