//===- runtime/sim/ScalarOps.h - Value semantics of PTX's scalar instructions
//-*- C++ -*-===//
//
// What one lane's arithmetic, cvt and setp compute, as the PTX ISA defines
// them, on the interpreter's register slots: every value is kept
// zero-extended at its type's width in a 64-bit slot and sign-extended when a
// signed type reads it; floats are their bit patterns.
//
// Example: arith(add.s32 with .sat, 0x7fffffff, 1) is 0x7fffffff.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIM_SCALAROPS_H
#define TILEC_RUNTIME_SIM_SCALAROPS_H

#include "runtime/sim/PtxProgram.h"

#include <bit>
#include <cstdint>

namespace tilec::sim {

inline std::uint64_t truncBits(std::uint64_t v, unsigned bits) {
  return bits >= 64 ? v : v & ((1ull << bits) - 1);
}
inline std::int64_t sextBits(std::uint64_t v, unsigned bits) {
  if (bits >= 64)
    return static_cast<std::int64_t>(v);
  std::uint64_t m = 1ull << (bits - 1);
  v = truncBits(v, bits);
  return static_cast<std::int64_t>((v ^ m) - m);
}
inline float asF32(std::uint64_t v) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(v));
}
inline std::uint64_t fromF32(float f) {
  return std::bit_cast<std::uint32_t>(f);
}
inline double asF64(std::uint64_t v) { return std::bit_cast<double>(v); }
inline std::uint64_t fromF64(double d) {
  return std::bit_cast<std::uint64_t>(d);
}

/// setp's comparison \p cmp of \p a and \p b read as \p t.
bool compare(CmpKind cmp, PtxType t, std::uint64_t a, std::uint64_t b);
/// cvt of one value (types, rounding and .sat from \p ins).
std::uint64_t convert(const Instr &ins, std::uint64_t a);
/// The arithmetic, logic and bit instructions: \p ins's operation on
/// \p a, \p b (and \p c for fma/mad/bfe, the selector of prmt) at
/// ins.type.
/// The four-source bit instructions: bfi (a inserted into b at bit c, d
/// bits long) and lop3 (bit i is bit (a_i b_i c_i) of the table d: F(0xF0,
/// 0xCC, 0xAA) of a function F of a, b, c).
std::uint64_t bitsOf4(const Instr &ins, std::uint64_t a, std::uint64_t b,
                      std::uint64_t c, std::uint64_t d);
std::uint64_t arith(const Instr &ins, std::uint64_t a, std::uint64_t b,
                    std::uint64_t c);

} // namespace tilec::sim

#endif // TILEC_RUNTIME_SIM_SCALAROPS_H
