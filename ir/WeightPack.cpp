//===- ir/WeightPack.cpp - The packed order of 4-bit GEMM weights ---------===//

#include "ir/WeightPack.h"

#include <cassert>
#include <fmt/format.h>

namespace tilec {

llvm::Error checkPackableInt4(int64_t n, int64_t k) {
  auto bad = [](const char *what, int64_t v, int64_t multiple) {
    return llvm::createStringError(
        fmt::format("a packed 4-bit weight needs {} > 0 and a multiple of "
                    "{}; got {} = {}",
                    what, multiple, what, v));
  };
  if (n <= 0 || n % PackedInt4BlockN)
    return bad("N", n, PackedInt4BlockN);
  if (k <= 0 || k % PackedInt4BlockK)
    return bad("K", k, PackedInt4BlockK);
  return llvm::Error::success();
}

Layout packedInt4Layout(int64_t n, int64_t k) {
  assert(n % PackedInt4BlockN == 0 && k % PackedInt4BlockK == 0);
  IntTuple shape{IntTuple{8, 2, n / PackedInt4BlockN},
                 IntTuple{2, 4, 2, 4, k / PackedInt4BlockK}};
  IntTuple stride{IntTuple{128, 2, 16 * k}, IntTuple{4, 32, 1, 8, 1024}};
  return Layout(shape, stride);
}

int64_t packedInt4Nibble(int64_t n, int64_t k, int64_t kExt) {
  int64_t g = n % 8, j = (n / 8) % 2, nb = n / 16;
  int64_t e = k % 2, t = (k / 2) % 4, h = (k / 8) % 2, w = (k / 16) % 4,
          kb = k / 64;
  return g * 128 + j * 2 + nb * 16 * kExt + e * 4 + t * 32 + h + w * 8 +
         kb * 1024;
}

void packInt4(llvm::ArrayRef<uint8_t> codes, int64_t n, int64_t k,
              llvm::MutableArrayRef<uint32_t> words) {
  assert(codes.size() == size_t(n * k) && words.size() == size_t(n * k / 8));
  std::fill(words.begin(), words.end(), 0u);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) {
      uint8_t code = codes[r * k + c];
      assert(code < 16 && "a 4-bit code");
      int64_t nib = packedInt4Nibble(r, c, k);
      words[nib / 8] |= uint32_t(code) << (4 * (nib % 8));
    }
}

void unpackInt4(llvm::ArrayRef<uint32_t> words, int64_t n, int64_t k,
                llvm::MutableArrayRef<uint8_t> codes) {
  assert(codes.size() == size_t(n * k) && words.size() == size_t(n * k / 8));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) {
      int64_t nib = packedInt4Nibble(r, c, k);
      codes[r * k + c] = (words[nib / 8] >> (4 * (nib % 8))) & 0xf;
    }
}

} // namespace tilec
