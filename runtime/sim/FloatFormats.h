//===- runtime/sim/FloatFormats.h - Element formats of the tensor cores -*- C++
//-*-===//
//
// Bit-exact conversions between f32 and the narrow formats the tensor cores
// read (f16, bf16, tf32, e4m3, e5m2), as the PTX ISA defines them: decoding is
// exact; encoding rounds to nearest even, with .satfinite clamping to the
// largest finite value where asked. The simulator's cvt, mma and TMA code
// all convert through here.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIM_FLOATFORMATS_H
#define TILEC_RUNTIME_SIM_FLOATFORMATS_H

#include <cstdint>

namespace tilec::sim {

/// Element types of tensor-core operands and accumulators.
enum class ElemKind { F16, BF16, TF32, F32, E4M3, E5M2, S8, U8, S32 };

/// Bits of one element: 16, 16, 32 (tf32 is stored in 32), 32, 8, 8, 8, 8, 32.
unsigned elemBits(ElemKind kind);
/// "f16", "bf16", ...
const char *elemName(ElemKind kind);
/// The value of the low elemBits(kind) bits of \p bits (tf32: the upper 19
/// bits of an f32 pattern, the low 13 ignored, as the tensor core reads it).
float decodeElem(ElemKind kind, std::uint32_t bits);
/// \p value rounded to nearest even in \p kind; with \p satfinite, values
/// beyond the largest finite one (and infinities) clamp to it, NaN stays NaN.
std::uint32_t encodeElem(ElemKind kind, float value, bool satfinite = false);
/// \p value rounded once, to nearest even, to f16 or bf16 (\p kind): the
/// result of packed half arithmetic computed exactly (or in double, whose
/// one rounding can only matter when the exact operands span more than 53
/// bits), without going through f32.
std::uint32_t encodeHalfFromDouble(ElemKind kind, double value);
/// cvt.rna.tf32.f32: \p value rounded to tf32 with ties away from zero (the
/// low 13 bits of the result are zero).
std::uint32_t encodeTf32RoundAway(float value);

} // namespace tilec::sim

#endif // TILEC_RUNTIME_SIM_FLOATFORMATS_H
