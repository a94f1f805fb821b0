//===- runtime/sim/ScalarOps.cpp - Value semantics of PTX's scalar instructions
//===//
#include "runtime/sim/ScalarOps.h"

#include "runtime/sim/FloatFormats.h"
#include "runtime/sim/SimFault.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tilec::sim {

bool compare(CmpKind cmp, PtxType t, std::uint64_t a, std::uint64_t b) {
  if (ptxTypeIsFloat(t)) {
    double x = t == PtxType::F64 ? asF64(a) : asF32(a);
    double y = t == PtxType::F64 ? asF64(b) : asF32(b);
    bool unord = std::isnan(x) || std::isnan(y);
    switch (cmp) {
    case CmpKind::Eq:
      return !unord && x == y;
    case CmpKind::Ne:
      return !unord && x != y;
    case CmpKind::Lt:
      return !unord && x < y;
    case CmpKind::Le:
      return !unord && x <= y;
    case CmpKind::Gt:
      return !unord && x > y;
    case CmpKind::Ge:
      return !unord && x >= y;
    case CmpKind::Equ:
      return unord || x == y;
    case CmpKind::Neu:
      return unord || x != y;
    case CmpKind::Ltu:
      return unord || x < y;
    case CmpKind::Leu:
      return unord || x <= y;
    case CmpKind::Gtu:
      return unord || x > y;
    case CmpKind::Geu:
      return unord || x >= y;
    case CmpKind::Num:
      return !unord;
    case CmpKind::Nan:
      return unord;
    default:
      throw SimFault("setp: unsigned comparison on a float type");
    }
  }
  unsigned bits = ptxTypeBits(t);
  if (ptxTypeIsSigned(t)) {
    std::int64_t x = sextBits(a, bits), y = sextBits(b, bits);
    switch (cmp) {
    case CmpKind::Eq:
      return x == y;
    case CmpKind::Ne:
      return x != y;
    case CmpKind::Lt:
      return x < y;
    case CmpKind::Le:
      return x <= y;
    case CmpKind::Gt:
      return x > y;
    case CmpKind::Ge:
      return x >= y;
    default:
      break;
    }
  }
  std::uint64_t x = truncBits(a, bits), y = truncBits(b, bits);
  switch (cmp) {
  case CmpKind::Eq:
    return x == y;
  case CmpKind::Ne:
    return x != y;
  case CmpKind::Lt:
  case CmpKind::Lo:
    return x < y;
  case CmpKind::Le:
  case CmpKind::Ls:
    return x <= y;
  case CmpKind::Gt:
  case CmpKind::Hi:
    return x > y;
  case CmpKind::Ge:
  case CmpKind::Hs:
    return x >= y;
  default:
    throw SimFault("setp: unordered comparison on an integer type");
  }
}

namespace {

double roundTo(double v, RoundKind r) {
  switch (r) {
  case RoundKind::Rni:
  case RoundKind::Rn:
    return std::nearbyint(v);
  case RoundKind::Rzi:
  case RoundKind::Rz:
    return std::trunc(v);
  case RoundKind::Rmi:
  case RoundKind::Rm:
    return std::floor(v);
  case RoundKind::Rpi:
  case RoundKind::Rp:
    return std::ceil(v);
  default:
    return std::trunc(v);
  }
}

/// The float operations of f32 and f64 alike; false when \p op is not one.
template <typename T> bool floatArith(OpKind op, T x, T y, T z, T &r) {
  switch (op) {
  case OpKind::Add:
    r = x + y;
    return true;
  case OpKind::Sub:
    r = x - y;
    return true;
  case OpKind::Mul:
    r = x * y;
    return true;
  case OpKind::Div:
    r = x / y;
    return true;
  case OpKind::Fma:
    r = std::fma(x, y, z);
    return true;
  case OpKind::Min:
    r = std::fmin(x, y);
    return true;
  case OpKind::Max:
    r = std::fmax(x, y);
    return true;
  case OpKind::Abs:
    r = std::fabs(x);
    return true;
  case OpKind::Neg:
    r = -x;
    return true;
  case OpKind::Rcp:
    r = T(1) / x;
    return true;
  case OpKind::Sqrt:
    r = std::sqrt(x);
    return true;
  default:
    return false;
  }
}

/// The f32-only approximate functions (.approx: the host's libm).
bool f32Special(OpKind op, float x, float y, float &r) {
  switch (op) {
  case OpKind::Rsqrt:
    r = 1.0f / std::sqrt(x);
    return true;
  case OpKind::Ex2:
    r = std::exp2(x);
    return true;
  case OpKind::Lg2:
    r = std::log2(x);
    return true;
  case OpKind::Tanh:
    r = std::tanh(x);
    return true;
  case OpKind::Sin:
    r = std::sin(x);
    return true;
  case OpKind::Cos:
    r = std::cos(x);
    return true;
  case OpKind::Copysign:
    r = std::copysign(y, x);
    return true;
  default:
    return false;
  }
}

} // namespace

/// cvt of one value.
std::uint64_t convert(const Instr &ins, std::uint64_t a) {
  PtxType dt = ins.type, st = ins.type2;
  bool df = ptxTypeIsFloat(dt), sf = ptxTypeIsFloat(st);
  unsigned db = ptxTypeBits(dt), sb = ptxTypeBits(st);
  if (!df && !sf) {
    if (ins.sat) {
      // Clamp to the destination range.
      __int128 v = ptxTypeIsSigned(st)
                       ? static_cast<__int128>(sextBits(a, sb))
                       : static_cast<__int128>(truncBits(a, sb));
      __int128 lo =
          ptxTypeIsSigned(dt) ? -(static_cast<__int128>(1) << (db - 1)) : 0;
      __int128 hi = ptxTypeIsSigned(dt)
                        ? (static_cast<__int128>(1) << (db - 1)) - 1
                        : (static_cast<__int128>(1) << db) - 1;
      v = v < lo ? lo : v > hi ? hi : v;
      return truncBits(static_cast<std::uint64_t>(v), db);
    }
    std::uint64_t v = ptxTypeIsSigned(st)
                          ? static_cast<std::uint64_t>(sextBits(a, sb))
                          : truncBits(a, sb);
    return truncBits(v, db);
  }
  // Read the source as a double (exact for every narrower format).
  double x;
  if (sf) {
    switch (st) {
    case PtxType::F32:
      x = asF32(a);
      break;
    case PtxType::F64:
      x = asF64(a);
      break;
    case PtxType::F16:
      x = decodeElem(ElemKind::F16, truncBits(a, 16));
      break;
    case PtxType::BF16:
      x = decodeElem(ElemKind::BF16, truncBits(a, 16));
      break;
    case PtxType::E4M3:
      x = decodeElem(ElemKind::E4M3, truncBits(a, 8));
      break;
    case PtxType::E5M2:
      x = decodeElem(ElemKind::E5M2, truncBits(a, 8));
      break;
    default:
      throw SimFault(
          fmt::format("cvt from .{} is not modelled", ptxTypeName(st)));
    }
  } else {
    x = ptxTypeIsSigned(st) ? static_cast<double>(sextBits(a, sb))
                            : static_cast<double>(truncBits(a, sb));
  }
  if (!df) {
    // Float to integer: round as asked, saturate, NaN to 0.
    if (std::isnan(x))
      return 0;
    double r =
        roundTo(x, ins.round == RoundKind::None ? RoundKind::Rzi : ins.round);
    double lo = ptxTypeIsSigned(dt) ? -std::ldexp(1.0, db - 1) : 0.0;
    double hi = ptxTypeIsSigned(dt) ? std::ldexp(1.0, db - 1) - 1
                                    : std::ldexp(1.0, db) - 1;
    if (r < lo)
      r = lo;
    if (r > hi)
      r = hi;
    std::uint64_t v =
        ptxTypeIsSigned(dt)
            ? static_cast<std::uint64_t>(static_cast<std::int64_t>(r))
            : static_cast<std::uint64_t>(r);
    return truncBits(v, db);
  }
  if (ins.round == RoundKind::Rni || ins.round == RoundKind::Rzi ||
      ins.round == RoundKind::Rmi || ins.round == RoundKind::Rpi)
    x = roundTo(x, ins.round);
  if (ins.flag && x < 0)
    x = 0; // .relu
  switch (dt) {
  case PtxType::F64:
    return fromF64(x);
  case PtxType::F32: {
    float f = static_cast<float>(x);
    if (ins.sat)
      f = std::isnan(f) ? 0.0f : std::fmin(std::fmax(f, 0.0f), 1.0f);
    return fromF32(f);
  }
  case PtxType::F16:
    return encodeElem(ElemKind::F16, static_cast<float>(x), ins.sat);
  case PtxType::BF16:
    return encodeElem(ElemKind::BF16, static_cast<float>(x), ins.sat);
  case PtxType::TF32:
    return encodeElem(ElemKind::TF32, static_cast<float>(x), ins.sat);
  case PtxType::E4M3:
    return encodeElem(ElemKind::E4M3, static_cast<float>(x), ins.sat);
  case PtxType::E5M2:
    return encodeElem(ElemKind::E5M2, static_cast<float>(x), ins.sat);
  default:
    throw SimFault(fmt::format("cvt to .{} is not modelled", ptxTypeName(dt)));
  }
}

/// Integer or float arithmetic of one lane.
std::uint64_t bitsOf4(const Instr &ins, std::uint64_t a, std::uint64_t b,
                      std::uint64_t c, std::uint64_t d) {
  if (ins.op == OpKind::Lop3) {
    std::uint64_t r = 0, lut = d & 0xff;
    for (unsigned i = 0; i < 32; ++i) {
      unsigned index =
          unsigned(((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1));
      r |= ((lut >> index) & 1) << i;
    }
    return r;
  }
  // bfi
  unsigned bits = ptxTypeBits(ins.type);
  unsigned pos = c & 0xff, len = d & 0xff;
  std::uint64_t r = truncBits(b, bits);
  for (unsigned i = 0; i < len && pos + i < bits; ++i)
    r = (r & ~(1ull << (pos + i))) | (((a >> i) & 1) << (pos + i));
  return r;
}

std::uint64_t arith(const Instr &ins, std::uint64_t a, std::uint64_t b,
                    std::uint64_t c) {
  if (ins.op == OpKind::Prmt) {
    // prmt.b32 (default mode): result byte i is byte (c >> 4 i) & 7 of
    // {b, a}, or, with bit 3 of that nibble set, its sign bit replicated.
    std::uint64_t bytes = (b & 0xffffffffu) << 32 | (a & 0xffffffffu), r = 0;
    for (unsigned i = 0; i < 4; ++i) {
      unsigned sel = unsigned(c >> (4 * i)) & 0xf;
      std::uint64_t byte = (bytes >> (8 * (sel & 7))) & 0xff;
      if (sel & 8)
        byte = (byte & 0x80) ? 0xff : 0;
      r |= byte << (8 * i);
    }
    return r;
  }
  PtxType t = ins.type;
  unsigned bits = ptxTypeBits(t);
  if (t == PtxType::F16x2 || t == PtxType::BF16x2) {
    // Each 16-bit half on its own: the inputs widen exactly, the product
    // and sum are exact in double but for operands spanning more than 53
    // bits, and the result rounds once to the half format.
    ElemKind kind = t == PtxType::F16x2 ? ElemKind::F16 : ElemKind::BF16;
    std::uint64_t out = 0;
    for (unsigned half = 0; half < 2; ++half) {
      auto at = [&](std::uint64_t v) {
        return double(decodeElem(
            kind, static_cast<std::uint32_t>(v >> 16 * half) & 0xffff));
      };
      double x = at(a), y = at(b), z = at(c), r;
      if (!floatArith(ins.op, x, y, z, r))
        throw SimFault("instruction not modelled for packed halves");
      out |= std::uint64_t(encodeHalfFromDouble(kind, r)) << 16 * half;
    }
    return out;
  }
  if (t == PtxType::F32) {
    float x = asF32(a), y = asF32(b), z = asF32(c), r;
    // Mixed precision: a (and fma's b) are f16 or bf16, widened exactly.
    if (ins.type2 == PtxType::F16 || ins.type2 == PtxType::BF16) {
      ElemKind kind =
          ins.type2 == PtxType::F16 ? ElemKind::F16 : ElemKind::BF16;
      x = decodeElem(kind, static_cast<std::uint32_t>(a & 0xffff));
      if (ins.op == OpKind::Fma)
        y = decodeElem(kind, static_cast<std::uint32_t>(b & 0xffff));
    }
    if (!floatArith(ins.op, x, y, z, r) && !f32Special(ins.op, x, y, r))
      throw SimFault("instruction not modelled for .f32");
    // min/max.NaN (ins.flag): NaN when either input is.
    if (ins.flag && (std::isnan(x) || std::isnan(y)))
      r = std::numeric_limits<float>::quiet_NaN();
    if (ins.sat)
      r = std::isnan(r) ? 0.0f : std::fmin(std::fmax(r, 0.0f), 1.0f);
    return fromF32(r);
  }
  if (t == PtxType::F64) {
    double r;
    if (!floatArith(ins.op, asF64(a), asF64(b), asF64(c), r))
      throw SimFault("instruction not modelled for .f64");
    return fromF64(r);
  }
  bool sgn = ptxTypeIsSigned(t);
  std::uint64_t ua = truncBits(a, bits), ub = truncBits(b, bits),
                uc = truncBits(c, bits);
  std::int64_t sa = sextBits(a, bits), sb = sextBits(b, bits);
  switch (ins.op) {
  case OpKind::Add: {
    if (ins.sat && sgn) {
      __int128 r = static_cast<__int128>(sa) + sb;
      __int128 lo = -(static_cast<__int128>(1) << (bits - 1)),
               hi = (static_cast<__int128>(1) << (bits - 1)) - 1;
      return truncBits(static_cast<std::uint64_t>(r < lo   ? lo
                                                  : r > hi ? hi
                                                           : r),
                       bits);
    }
    return truncBits(ua + ub, bits);
  }
  case OpKind::Sub:
    return truncBits(ua - ub, bits);
  case OpKind::Mul:
    return truncBits(ua * ub, bits);
  case OpKind::MulHi: {
    __int128 r =
        sgn ? static_cast<__int128>(sa) * sb
            : static_cast<__int128>(static_cast<unsigned __int128>(ua) * ub);
    return truncBits(
        static_cast<std::uint64_t>(static_cast<unsigned __int128>(r) >> bits),
        bits);
  }
  case OpKind::MulWide:
    return sgn ? static_cast<std::uint64_t>(sa * sb) : ua * ub;
  case OpKind::Mad:
    return truncBits(ua * ub + uc, bits);
  case OpKind::MadWide:
    return sgn ? static_cast<std::uint64_t>(sa * sb) + c : ua * ub + c;
  case OpKind::MadHi: {
    __int128 r =
        sgn ? static_cast<__int128>(sa) * sb
            : static_cast<__int128>(static_cast<unsigned __int128>(ua) * ub);
    return truncBits(
        static_cast<std::uint64_t>(static_cast<unsigned __int128>(r) >> bits) +
            uc,
        bits);
  }
  case OpKind::Div:
    if (ub == 0)
      return truncBits(~0ull, bits);
    if (sgn) {
      if (sb == -1)
        return truncBits(static_cast<std::uint64_t>(-sa), bits);
      return truncBits(static_cast<std::uint64_t>(sa / sb), bits);
    }
    return ua / ub;
  case OpKind::Rem:
    if (ub == 0)
      return ua;
    if (sgn) {
      if (sb == -1)
        return 0;
      return truncBits(static_cast<std::uint64_t>(sa % sb), bits);
    }
    return ua % ub;
  case OpKind::Min:
    return sgn ? truncBits(static_cast<std::uint64_t>(std::min(sa, sb)), bits)
               : std::min(ua, ub);
  case OpKind::Max:
    return sgn ? truncBits(static_cast<std::uint64_t>(std::max(sa, sb)), bits)
               : std::max(ua, ub);
  case OpKind::Abs:
    return truncBits(static_cast<std::uint64_t>(sa < 0 ? -sa : sa), bits);
  case OpKind::Neg:
    return truncBits(0 - ua, bits);
  case OpKind::And:
    return ua & ub;
  case OpKind::Or:
    return ua | ub;
  case OpKind::Xor:
    return ua ^ ub;
  case OpKind::Not:
    return truncBits(~ua, bits);
  case OpKind::Cnot:
    return ua == 0 ? 1 : 0;
  case OpKind::Shl: {
    std::uint64_t s = truncBits(b, 32);
    return s >= bits ? 0 : truncBits(ua << s, bits);
  }
  case OpKind::Shr: {
    std::uint64_t s = truncBits(b, 32);
    if (sgn)
      return truncBits(
          static_cast<std::uint64_t>(sa >> (s >= bits ? bits - 1 : s)), bits);
    return s >= bits ? 0 : ua >> s;
  }
  case OpKind::Bfe: {
    unsigned pos = static_cast<unsigned>(b & 0xff),
             len = static_cast<unsigned>(c & 0xff);
    unsigned msb = bits - 1;
    unsigned sbit = 0;
    if (sgn && len > 0)
      sbit = (ua >> std::min(pos + len - 1, msb)) & 1;
    std::uint64_t r = 0;
    for (unsigned i = 0; i < bits; ++i) {
      unsigned bit = (i < len && pos + i <= msb) ? (ua >> (pos + i)) & 1 : sbit;
      r |= static_cast<std::uint64_t>(bit) << i;
    }
    return r;
  }
  case OpKind::Popc:
    return static_cast<std::uint64_t>(std::popcount(ua));
  case OpKind::Clz:
    return static_cast<std::uint64_t>(std::countl_zero(ua) - (64 - bits));
  case OpKind::Brev: {
    std::uint64_t r = 0;
    for (unsigned i = 0; i < bits; ++i)
      r |= ((ua >> i) & 1) << (bits - 1 - i);
    return r;
  }
  default:
    throw SimFault(
        fmt::format("instruction not modelled for .{}", ptxTypeName(t)));
  }
}

} // namespace tilec::sim
