// The packed order of 4-bit weights (ir/WeightPack.h) and the quantizer
// (ir/WeightQuant.h): the layout against packedInt4Nibble over every
// coordinate, the header's worked examples, round trips, and words
// computed here from the header's prose (lane l = 4 g + t, word w, nibble
// 4 e + 2 j + h) without calling the code under test.
#include "ir/WeightPack.h"
#include "ir/Float16Bits.h"
#include "ir/WeightQuant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace tilec;

namespace {

const std::pair<int64_t, int64_t> kShapes[] = {
    {16, 64}, {32, 64}, {16, 128}, {48, 192}, {64, 256}};

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

TEST(WeightPackTest, LayoutIsTheNibbleFunction) {
  for (auto [n, k] : kShapes) {
    Layout l = packedWeightLayout(4, n, k);
    ASSERT_EQ(l.size(), n * k);
    std::vector<bool> seen(n * k);
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < k; ++c) {
        int64_t nib = packedWeightCode(4, r, c, k);
        ASSERT_EQ(l(IntTuple{r, c}), nib)
            << n << "x" << k << " at " << r << "," << c;
        ASSERT_GE(nib, 0);
        ASSERT_LT(nib, n * k);
        ASSERT_FALSE(seen[nib]) << "nibble " << nib << " twice";
        seen[nib] = true;
      }
  }
}

TEST(WeightPackTest, LayoutPrints) {
  EXPECT_EQ(packedWeightLayout(4, 16, 64).str(),
            "((8,2,1),(2,4,2,4,1)):((128,2,1024),(4,32,1,8,1024))");
  EXPECT_EQ(packedWeightLayout(4, 4096, 4096).str(),
            "((8,2,256),(2,4,2,4,64)):((128,2,65536),(4,32,1,8,1024))");
}

TEST(WeightPackTest, HeaderWorkedExample) {
  // (n, k) = (9, 3) in a 16 x 64 weight: nibble 166, word 20 (lane 5,
  // w = 0), nibble 6 of that word.
  EXPECT_EQ(packedWeightCode(4, 9, 3, 64), 166);
  EXPECT_EQ(packedWeightLayout(4, 16, 64)(IntTuple{9, 3}), 166);
  std::vector<uint8_t> codes(16 * 64, 0);
  codes[9 * 64 + 3] = 0xb;
  std::vector<uint32_t> words(16 * 64 / 8);
  packWeightCodes(4, codes, 16, 64, words);
  for (size_t i = 0; i < words.size(); ++i)
    EXPECT_EQ(words[i], i == 20 ? 0xbu << 24 : 0u) << "word " << i;
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
  EXPECT_EQ(errorText(checkWeightShape(WeightFormatKind::I4, 4096, 4096, 128)), "");
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
  ASSERT_FALSE(bool(dequantizeWeights(q->values, q->scales, q->zeros, 16, 64, 32,
                                   WeightFormatKind::I4, deq)));
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

TEST(WeightQuantTest, DequantizedWithinHalfAStep) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  const int64_t n = 32, k = 256;
  std::vector<float> w(n * k);
  for (float &x : w)
    x = normal(rng);
  for (WeightFormatKind f : {WeightFormatKind::I4, WeightFormatKind::U4})
    for (int64_t group : WeightGroups)
      for (DTypeKind st : {DTypeKind::BF16, DTypeKind::F16}) {
        llvm::Expected<QuantizedWeights> q = quantizeWeights(w, n, k, group, f, st);
        ASSERT_TRUE(bool(q)) << llvm::toString(q.takeError());
        std::vector<uint32_t> words(n * k / 8);
        std::vector<int8_t> back(n * k);
        ASSERT_FALSE(bool(packWeightValues(q->values, n, k, f, words)));
        ASSERT_FALSE(bool(unpackWeightValues(words, n, k, f, back)));
        EXPECT_EQ(back, q->values);
        std::vector<float> deq(n * k);
        ASSERT_FALSE(bool(
            dequantizeWeights(back, q->scales, q->zeros, n, k, group, f, deq)));
        for (int64_t r = 0; r < n; ++r)
          for (int64_t c = 0; c < k; ++c) {
            float scale = q->scales[c / group * n + r];
            // Half a step, and the scale's own rounding at the range's end.
            ASSERT_LE(std::fabs(deq[r * k + c] - w[r * k + c]),
                      scale * (0.5f + 1.0f / 16))
                << weightFormatName(f).str() << " group " << group << " at " << r
                << "," << c;
          }
      }
}

TEST(WeightQuantTest, Errors) {
  std::vector<float> w(16 * 64, 0.0f);
  w[70] = NAN;
  EXPECT_EQ(
      errorText(quantizeWeights(w, 16, 64, 64, WeightFormatKind::I4, DTypeKind::BF16)
                    .takeError()),
      "the weight at (n, k) = (1, 6) is nan; only finite weights can be "
      "quantized");
  w[70] = 1e6f;
  EXPECT_EQ(
      errorText(quantizeWeights(w, 16, 64, 64, WeightFormatKind::I4, DTypeKind::F16)
                    .takeError()),
      "the scale of channel n = 1, k 0..63 (1000000 / 7) overflows f16");
  EXPECT_EQ(
      errorText(quantizeWeights(w, 16, 64, 64, WeightFormatKind::I4, DTypeKind::E4M3)
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
      errorText(packWeightValues(values, 16, 64, WeightFormatKind::U4, words)), "");
  values[65] = -1;
  EXPECT_EQ(
      errorText(packWeightValues(values, 16, 64, WeightFormatKind::U4, words)),
      "the value at (n, k) = (1, 1) is 255, outside u4's 0..15");
  EXPECT_EQ(
      errorText(packWeightValues(values, 16, 96, WeightFormatKind::U4, words)),
      "a packed 4-bit weight needs K > 0 and a multiple of 64; got K = "
      "96");
}
