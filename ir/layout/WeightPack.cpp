//===- ir/layout/WeightPack.cpp - The packed order of quantized GEMM weights -----===//

#include "ir/layout/WeightPack.h"

#include <cassert>
#include <fmt/format.h>

namespace tilec {

llvm::Error checkPackableWeight(unsigned bits, int64_t n, int64_t k) {
  auto bad = [&](const char *what, int64_t v, int64_t multiple) {
    return llvm::createStringError(
        fmt::format("a packed {}-bit weight needs {} > 0 and a multiple of "
                    "{}; got {} = {}",
                    bits, what, multiple, what, v));
  };
  if (n <= 0 || n % PackedWeightBlockN)
    return bad("N", n, PackedWeightBlockN);
  if (k <= 0 || k % packedWeightBlockK(bits))
    return bad("K", k, packedWeightBlockK(bits));
  return llvm::Error::success();
}

Layout packedWeightLayout(unsigned bits, int64_t n, int64_t k) {
  int64_t blockK = packedWeightBlockK(bits);
  assert(n % PackedWeightBlockN == 0 && k % blockK == 0);
  IntTuple rows{8, 2, n / PackedWeightBlockN};
  if (bits == 4)
    return Layout(
        IntTuple{rows, IntTuple{2, 4, 2, 4, k / blockK}},
        IntTuple{IntTuple{128, 2, 16 * k}, IntTuple{4, 32, 1, 8, 1024}});
  assert(bits == 8 && "4-bit or 8-bit codes");
  return Layout(IntTuple{rows, IntTuple{2, 4, 2, 2, k / blockK}},
                IntTuple{IntTuple{64, 4, 16 * k}, IntTuple{1, 16, 2, 8, 512}});
}

int64_t packedWeightCode(unsigned bits, int64_t n, int64_t k, int64_t kExt) {
  int64_t g = n % 8, j = (n / 8) % 2, nb = n / 16;
  int64_t e = k % 2, t = (k / 2) % 4, h = (k / 8) % 2;
  if (bits == 4) {
    int64_t w = (k / 16) % 4, kb = k / 64;
    return g * 128 + j * 2 + nb * 16 * kExt + e * 4 + t * 32 + h + w * 8 +
           kb * 1024;
  }
  int64_t s = (k / 16) % 2, kb = k / 32;
  return g * 64 + j * 4 + nb * 16 * kExt + e + t * 16 + h * 2 + s * 8 +
         kb * 512;
}

void packWeightCodes(unsigned bits, llvm::ArrayRef<uint8_t> codes, int64_t n,
                     int64_t k, llvm::MutableArrayRef<uint32_t> words) {
  assert(codes.size() == size_t(n * k) &&
         words.size() == size_t(n * k * bits / 32));
  int64_t perWord = 32 / bits;
  std::fill(words.begin(), words.end(), 0u);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) {
      uint32_t code = codes[r * k + c];
      assert(code >> bits == 0 && "a code of the packed width");
      int64_t at = packedWeightCode(bits, r, c, k);
      words[at / perWord] |= code << (bits * (at % perWord));
    }
}

void unpackWeightCodes(unsigned bits, llvm::ArrayRef<uint32_t> words, int64_t n,
                       int64_t k, llvm::MutableArrayRef<uint8_t> codes) {
  assert(codes.size() == size_t(n * k) &&
         words.size() == size_t(n * k * bits / 32));
  int64_t perWord = 32 / bits;
  uint32_t mask = (1u << bits) - 1;
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) {
      int64_t at = packedWeightCode(bits, r, c, k);
      codes[r * k + c] =
          (words[at / perWord] >> (bits * (at % perWord))) & mask;
    }
}

} // namespace tilec
