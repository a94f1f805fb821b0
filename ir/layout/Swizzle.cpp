//===- ir/layout/Swizzle.cpp - Swizzle<B,M,S> ------------------------------------===//
//
// The bit arithmetic of CuTe's Swizzle functor, on runtime integers.
//
//===----------------------------------------------------------------------===//
#include "ir/layout/Swizzle.h"

#include <cstdlib>

using namespace tilec;

llvm::Expected<Swizzle> Swizzle::get(int b, int m, int s) {
  if (b < 0 || m < 0)
    return llvm::createStringError("swizzle Sw<" + std::to_string(b) + "," +
                                   std::to_string(m) + "," + std::to_string(s) +
                                   "> needs B >= 0 and M >= 0");
  if (std::abs(s) < b)
    return llvm::createStringError("swizzle Sw<" + std::to_string(b) + "," +
                                   std::to_string(m) + "," + std::to_string(s) +
                                   "> needs |S| >= B so that the XOR fields do "
                                   "not overlap (S = " +
                                   std::to_string(b) +
                                   " or more would be legal)");
  if (b + m + std::abs(s) > 32)
    return llvm::createStringError("swizzle Sw<" + std::to_string(b) + "," +
                                   std::to_string(m) + "," + std::to_string(s) +
                                   "> reaches bit " +
                                   std::to_string(b + m + std::abs(s)) +
                                   "; B + M + |S| must be at most 32");
  return Swizzle(b, m, s);
}

int64_t Swizzle::zMask() const {
  int64_t bitMask = (int64_t(1) << bits) - 1;
  return bitMask << (base - std::min(0, shift));
}

int64_t Swizzle::yMask() const {
  int64_t bitMask = (int64_t(1) << bits) - 1;
  return bitMask << (base + std::max(0, shift));
}

int64_t Swizzle::operator()(int64_t offset) const {
  if (bits == 0)
    return offset;
  int64_t y = offset & yMask();
  return offset ^ (shift >= 0 ? (y >> shift) : (y << -shift));
}

std::string Swizzle::str() const {
  return "Sw<" + std::to_string(bits) + "," + std::to_string(base) + "," +
         std::to_string(shift) + ">";
}
