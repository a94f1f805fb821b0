//===- runtime/sim/Interpreter.cpp - One step of a warp ------------------===//
//
// Executes the instruction at a warp's minimum PC for the lanes there:
// integer and float arithmetic (values kept zero-extended at their type's
// width, sign-extended when a signed type reads them), conversions through
// FloatFormats, predicates and branches, loads and stores of every state
// space through the generic-address windows, atomics, shuffles, and the
// warp-collective checks. The asynchronous units are in
// InterpreterAsync.cpp.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/Interpreter.h"

#include "runtime/sim/FloatFormats.h"
#include "runtime/sim/SimFault.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

namespace tilec::sim {

namespace {

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

std::mutex &atomicMutex() {
  static std::mutex m;
  return m;
}

template <typename F> inline void forLanes(std::uint32_t mask, F &&f) {
  while (mask) {
    unsigned lane = static_cast<unsigned>(std::countr_zero(mask));
    mask &= mask - 1;
    f(lane);
  }
}

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
std::uint64_t arith(const Instr &ins, std::uint64_t a, std::uint64_t b,
                    std::uint64_t c) {
  PtxType t = ins.type;
  unsigned bits = ptxTypeBits(t);
  if (t == PtxType::F32) {
    float x = asF32(a), y = asF32(b), z = asF32(c);
    float r;
    switch (ins.op) {
    case OpKind::Add:
      r = x + y;
      break;
    case OpKind::Sub:
      r = x - y;
      break;
    case OpKind::Mul:
      r = x * y;
      break;
    case OpKind::Div:
      r = x / y;
      break;
    case OpKind::Fma:
      r = std::fma(x, y, z);
      break;
    case OpKind::Min:
      r = std::fmin(x, y);
      break;
    case OpKind::Max:
      r = std::fmax(x, y);
      break;
    case OpKind::Abs:
      r = std::fabs(x);
      break;
    case OpKind::Neg:
      r = -x;
      break;
    case OpKind::Rcp:
      r = 1.0f / x;
      break;
    case OpKind::Sqrt:
      r = std::sqrt(x);
      break;
    case OpKind::Rsqrt:
      r = 1.0f / std::sqrt(x);
      break;
    case OpKind::Ex2:
      r = std::exp2(x);
      break;
    case OpKind::Lg2:
      r = std::log2(x);
      break;
    case OpKind::Sin:
      r = std::sin(x);
      break;
    case OpKind::Cos:
      r = std::cos(x);
      break;
    case OpKind::Copysign:
      r = std::copysign(y, x);
      break;
    default:
      throw SimFault("instruction not modelled for .f32");
    }
    if (ins.sat)
      r = std::isnan(r) ? 0.0f : std::fmin(std::fmax(r, 0.0f), 1.0f);
    return fromF32(r);
  }
  if (t == PtxType::F64) {
    double x = asF64(a), y = asF64(b), z = asF64(c), r;
    switch (ins.op) {
    case OpKind::Add:
      r = x + y;
      break;
    case OpKind::Sub:
      r = x - y;
      break;
    case OpKind::Mul:
      r = x * y;
      break;
    case OpKind::Div:
      r = x / y;
      break;
    case OpKind::Fma:
      r = std::fma(x, y, z);
      break;
    case OpKind::Min:
      r = std::fmin(x, y);
      break;
    case OpKind::Max:
      r = std::fmax(x, y);
      break;
    case OpKind::Abs:
      r = std::fabs(x);
      break;
    case OpKind::Neg:
      r = -x;
      break;
    case OpKind::Rcp:
      r = 1.0 / x;
      break;
    case OpKind::Sqrt:
      r = std::sqrt(x);
      break;
    default:
      throw SimFault("instruction not modelled for .f64");
    }
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

bool needsFullWarp(OpKind op) {
  switch (op) {
  case OpKind::Ldmatrix:
  case OpKind::Stmatrix:
  case OpKind::MmaSync:
  case OpKind::WgmmaFence:
  case OpKind::WgmmaCommit:
  case OpKind::WgmmaWait:
  case OpKind::WgmmaMma:
  case OpKind::TcAlloc:
  case OpKind::TcDealloc:
  case OpKind::TcRelinquish:
  case OpKind::TcLd:
  case OpKind::TcSt:
  case OpKind::TcWaitLd:
  case OpKind::TcWaitSt:
    return true;
  default:
    return false;
  }
}

bool needsConvergedWarp(OpKind op) {
  switch (op) {
  case OpKind::BarSync:
  case OpKind::BarArrive:
  case OpKind::BarrierClusterArrive:
  case OpKind::BarrierClusterWait:
  case OpKind::Setmaxnreg:
    return true;
  default:
    return false;
  }
}

/// Instructions the lanes of a warp execute together.
bool isCollective(OpKind op) {
  return needsFullWarp(op) || needsConvergedWarp(op) || op == OpKind::ElectSync;
}

} // namespace

ElemKind elemKindOf(PtxType type) {
  switch (type) {
  case PtxType::F16:
    return ElemKind::F16;
  case PtxType::BF16:
    return ElemKind::BF16;
  case PtxType::TF32:
    return ElemKind::TF32;
  case PtxType::F32:
    return ElemKind::F32;
  case PtxType::E4M3:
    return ElemKind::E4M3;
  case PtxType::E5M2:
    return ElemKind::E5M2;
  case PtxType::S8:
    return ElemKind::S8;
  case PtxType::U8:
    return ElemKind::U8;
  case PtxType::S32:
    return ElemKind::S32;
  default:
    throw SimFault(
        fmt::format("no tensor-core element type .{}", ptxTypeName(type)));
  }
}

std::uint64_t ClusterRun::special(const WarpState &w, SpecialRegKind k,
                                  unsigned lane) const {
  const CtaState &cta = ctas[w.cta];
  unsigned linear = w.index * 32 + lane;
  const unsigned *b = config.block;
  const unsigned *cl = config.cluster;
  switch (k) {
  case SpecialRegKind::TidX:
    return linear % b[0];
  case SpecialRegKind::TidY:
    return linear / b[0] % b[1];
  case SpecialRegKind::TidZ:
    return linear / (b[0] * b[1]);
  case SpecialRegKind::NtidX:
    return b[0];
  case SpecialRegKind::NtidY:
    return b[1];
  case SpecialRegKind::NtidZ:
    return b[2];
  case SpecialRegKind::CtaidX:
    return cta.ctaid[0];
  case SpecialRegKind::CtaidY:
    return cta.ctaid[1];
  case SpecialRegKind::CtaidZ:
    return cta.ctaid[2];
  case SpecialRegKind::NctaidX:
    return config.grid[0];
  case SpecialRegKind::NctaidY:
    return config.grid[1];
  case SpecialRegKind::NctaidZ:
    return config.grid[2];
  case SpecialRegKind::ClusteridX:
    return clusterId[0];
  case SpecialRegKind::ClusteridY:
    return clusterId[1];
  case SpecialRegKind::ClusteridZ:
    return clusterId[2];
  case SpecialRegKind::NclusteridX:
    return config.grid[0] / cl[0];
  case SpecialRegKind::NclusteridY:
    return config.grid[1] / cl[1];
  case SpecialRegKind::NclusteridZ:
    return config.grid[2] / cl[2];
  case SpecialRegKind::ClusterCtaidX:
    return cta.ctaid[0] % cl[0];
  case SpecialRegKind::ClusterCtaidY:
    return cta.ctaid[1] % cl[1];
  case SpecialRegKind::ClusterCtaidZ:
    return cta.ctaid[2] % cl[2];
  case SpecialRegKind::ClusterNctaidX:
    return cl[0];
  case SpecialRegKind::ClusterNctaidY:
    return cl[1];
  case SpecialRegKind::ClusterNctaidZ:
    return cl[2];
  case SpecialRegKind::ClusterCtarank:
    return cta.rank;
  case SpecialRegKind::ClusterNctarank:
    return cl[0] * cl[1] * cl[2];
  case SpecialRegKind::Laneid:
    return lane;
  case SpecialRegKind::Warpid:
    return w.index;
  case SpecialRegKind::Nwarpid:
    return ctas[w.cta].warps.size();
  case SpecialRegKind::Smid:
    return 0;
  case SpecialRegKind::Nsmid:
    return 132;
  case SpecialRegKind::LanemaskEq:
    return 1u << lane;
  case SpecialRegKind::LanemaskLt:
    return (1u << lane) - 1;
  case SpecialRegKind::LanemaskLe:
    return (2ull << lane) - 1;
  case SpecialRegKind::LanemaskGt:
    return ~((2ull << lane) - 1) & 0xffffffffu;
  case SpecialRegKind::LanemaskGe:
    return ~((1ull << lane) - 1) & 0xffffffffu;
  case SpecialRegKind::Clock:
  case SpecialRegKind::Clock64:
  case SpecialRegKind::Globaltimer:
    return warpInstructions;
  case SpecialRegKind::DynamicSmemSize:
    return config.dynamicSharedBytes;
  case SpecialRegKind::TotalSmemSize:
    return cta.smem.size();
  }
  return 0;
}

std::uint64_t ClusterRun::get(const WarpState &w, const Operand &o,
                              unsigned lane) const {
  switch (o.kind) {
  case OperandKind::Reg: {
    std::uint64_t v = w.regs[o.reg * 32 + lane];
    return o.neg ? (v == 0) : v;
  }
  case OperandKind::Imm:
    return static_cast<std::uint64_t>(o.imm);
  case OperandKind::Special:
    return special(w, o.special, lane);
  case OperandKind::Address:
    return address(w, o, lane);
  default:
    throw SimFault("an operand that has no value is read");
  }
}

void ClusterRun::set(WarpState &w, const Operand &o, unsigned lane,
                     std::uint64_t v, PtxType type) {
  if (o.kind == OperandKind::Sink)
    return;
  if (o.kind != OperandKind::Reg)
    throw SimFault("the destination is not a register");
  unsigned bits = ptxTypeBits(type);
  w.regs[o.reg * 32 + lane] =
      type == PtxType::Pred ? (v & 1) : truncBits(v, bits ? bits : 64);
}

std::uint64_t ClusterRun::address(const WarpState &w, const Operand &o,
                                  unsigned lane) const {
  std::uint64_t a = static_cast<std::uint64_t>(o.imm);
  if (o.hasBase)
    a += w.regs[o.reg * 32 + lane];
  return a;
}

SharedMemory &ClusterRun::clusterSmem(CtaState &cta, std::uint64_t addr,
                                      std::uint32_t &offset, unsigned &rank) {
  std::uint64_t hi = addr >> ClusterRankShift;
  if (addr >= WindowSize || hi > ctas.size())
    throw SimFault(fmt::format("shared::cluster address 0x{:x} names no CTA "
                               "of the cluster ({} CTAs)",
                               addr, ctas.size()));
  rank = hi == 0 ? cta.rank : static_cast<unsigned>(hi - 1);
  offset = static_cast<std::uint32_t>(addr & ((1u << ClusterRankShift) - 1));
  return ctas[rank].smem;
}

void ClusterRun::markGenericWrite(CtaState &cta, unsigned thread,
                                  std::uint32_t addr, unsigned bytes) {
  if (cta.writer.empty())
    return;
  for (unsigned i = 0; i < bytes && addr + i < cta.writer.size(); ++i) {
    cta.writer[addr + i] = static_cast<std::uint16_t>(thread + 1);
    cta.writerEpoch[addr + i] = cta.fenceEpoch[thread];
  }
}

void ClusterRun::load(CtaState &cta, WarpState &w, unsigned lane,
                      SpaceKind space, std::uint64_t addr, void *dst,
                      unsigned bytes, const char *what) {
  if (space == SpaceKind::Generic) {
    if (addr >= LocalGenericBase && addr < LocalGenericBase + WindowSize) {
      space = SpaceKind::Local;
      addr -= LocalGenericBase;
    } else if (addr >= ParamGenericBase &&
               addr < ParamGenericBase + WindowSize) {
      space = SpaceKind::Param;
      addr -= ParamGenericBase;
    } else if (addr >= SharedGenericBase &&
               addr < SharedGenericBase + WindowSize) {
      space = SpaceKind::SharedCluster;
      addr -= SharedGenericBase;
    } else {
      space = SpaceKind::Global;
    }
  }
  switch (space) {
  case SpaceKind::Global:
    GlobalMemory::instance().read(addr, dst, bytes);
    return;
  case SpaceKind::Shared:
    if (addr + bytes > cta.smem.size())
      throw SimFault(fmt::format("{} of {} bytes at shared 0x{:x} is outside "
                                 "the CTA's {} bytes of shared memory",
                                 what, bytes, addr, cta.smem.size()));
    cta.smem.read(static_cast<std::uint32_t>(addr), dst, bytes, what);
    return;
  case SpaceKind::SharedCluster: {
    std::uint32_t off;
    unsigned rank;
    SharedMemory &s = clusterSmem(cta, addr, off, rank);
    s.read(off, dst, bytes, what);
    return;
  }
  case SpaceKind::Param:
    if (addr + bytes > param.size())
      throw SimFault(fmt::format("{} of {} bytes at param offset {} is past "
                                 "the {} bytes of kernel parameters",
                                 what, bytes, addr, param.size()));
    std::memcpy(dst, param.data() + addr, bytes);
    return;
  case SpaceKind::Local:
    if (addr + bytes > fn.localBytes)
      throw SimFault(fmt::format("{} of {} bytes at local offset {} is past "
                                 "the {} bytes of local memory",
                                 what, bytes, addr, fn.localBytes));
    std::memcpy(dst, w.local.data() + lane * fn.localBytes + addr, bytes);
    return;
  default:
    throw SimFault(fmt::format("{}: state space not modelled", what));
  }
}

void ClusterRun::store(CtaState &cta, WarpState &w, unsigned lane,
                       SpaceKind space, std::uint64_t addr, const void *src,
                       unsigned bytes, const char *what) {
  if (space == SpaceKind::Generic) {
    if (addr >= LocalGenericBase && addr < LocalGenericBase + WindowSize) {
      space = SpaceKind::Local;
      addr -= LocalGenericBase;
    } else if (addr >= ParamGenericBase &&
               addr < ParamGenericBase + WindowSize) {
      throw SimFault(fmt::format("{} to the kernel parameters (generic "
                                 "address 0x{:x}) is illegal",
                                 what, addr));
    } else if (addr >= SharedGenericBase &&
               addr < SharedGenericBase + WindowSize) {
      space = SpaceKind::SharedCluster;
      addr -= SharedGenericBase;
    } else {
      space = SpaceKind::Global;
    }
  }
  switch (space) {
  case SpaceKind::Global:
    GlobalMemory::instance().write(addr, src, bytes);
    return;
  case SpaceKind::Shared:
    if (addr + bytes > cta.smem.size())
      throw SimFault(fmt::format("{} of {} bytes at shared 0x{:x} is outside "
                                 "the CTA's {} bytes of shared memory",
                                 what, bytes, addr, cta.smem.size()));
    cta.smem.write(static_cast<std::uint32_t>(addr), src, bytes, what);
    markGenericWrite(cta, w.index * 32 + lane, static_cast<std::uint32_t>(addr),
                     bytes);
    return;
  case SpaceKind::SharedCluster: {
    std::uint32_t off;
    unsigned rank;
    SharedMemory &s = clusterSmem(cta, addr, off, rank);
    s.write(off, src, bytes, what);
    if (rank == cta.rank)
      markGenericWrite(cta, w.index * 32 + lane, off, bytes);
    return;
  }
  case SpaceKind::Local:
    if (addr + bytes > fn.localBytes)
      throw SimFault(fmt::format("{} of {} bytes at local offset {} is past "
                                 "the {} bytes of local memory",
                                 what, bytes, addr, fn.localBytes));
    std::memcpy(w.local.data() + lane * fn.localBytes + addr, src, bytes);
    return;
  default:
    throw SimFault(fmt::format("{}: state space not writable", what));
  }
}

void ClusterRun::checkInflight(const WarpState &w, const Instr &ins) const {
  switch (ins.op) {
  case OpKind::WgmmaMma:
  case OpKind::WgmmaFence:
  case OpKind::WgmmaCommit:
  case OpKind::WgmmaWait:
    return;
  default:
    break;
  }
  auto check = [&](const Operand &o) {
    std::uint32_t r;
    if (o.kind == OperandKind::Reg)
      r = o.reg;
    else if (o.kind == OperandKind::Address && o.hasBase)
      r = o.reg;
    else
      return;
    if (w.inflight[r])
      throw SimFault(fmt::format(
          "register {} is the accumulator of a wgmma.mma_async that no "
          "wgmma.wait_group has retired yet",
          fn.slotNames[r]));
  };
  for (const Operand &o : ins.ops)
    check(o);
  for (const Operand &o : ins.elems)
    check(o);
  if (ins.hasGuard && w.inflight[ins.guard])
    check(Operand{OperandKind::Reg, false, false, SpecialRegKind::TidX,
                  ins.guard});
}

void ClusterRun::requireFullWarp(const WarpState &w, std::uint32_t active,
                                 const Instr &ins, bool allLanes) const {
  std::uint32_t need = allLanes ? 0xffffffffu : w.liveMask;
  if (active != need)
    throw SimFault(fmt::format(
        "partial warp (mask 0x{:08x}, live 0x{:08x}) executes `{}`, which the "
        "whole warp must execute together",
        active, w.liveMask, fn.texts[ins.textId]));
}

void ClusterRun::countShared(const Instr &ins, std::uint32_t pc,
                             const std::array<std::uint32_t, 32> &addrs,
                             std::uint32_t mask, unsigned bytes,
                             unsigned lanesPerPhase) {
  (void)ins;
  if (!profile || mask == 0)
    return;
  InstrCounters &c = (*profile)[pc];
  c.sharedAccesses += 1;
  std::uint64_t wavefronts = 0, ideal = 0;
  for (unsigned phase = 0; phase < 32; phase += lanesPerPhase) {
    // Distinct words per bank in this phase.
    std::uint32_t words[32][8];
    unsigned counts[32] = {};
    unsigned maxCount = 0, lanes = 0;
    for (unsigned l = phase; l < phase + lanesPerPhase && l < 32; ++l) {
      if (!(mask >> l & 1))
        continue;
      ++lanes;
      for (unsigned b = 0; b < std::max(4u, bytes); b += 4) {
        std::uint32_t word = (addrs[l] + b) / 4;
        unsigned bank = word % 32;
        bool seen = false;
        for (unsigned i = 0; i < counts[bank] && i < 8; ++i)
          if (words[bank][i] == word)
            seen = true;
        if (!seen) {
          if (counts[bank] < 8)
            words[bank][counts[bank]] = word;
          ++counts[bank];
          maxCount = std::max(maxCount, counts[bank]);
        }
      }
    }
    if (lanes) {
      wavefronts += maxCount;
      ideal += 1;
    }
  }
  c.sharedWavefronts += wavefronts;
  c.idealWavefronts += ideal;
}

bool ClusterRun::step(CtaState &cta, WarpState &w) {
  // The lanes at the minimum PC run; lanes parked at a warp-collective
  // instruction wait there while the others catch up (code placed after a
  // loop header, like an elected arrive, would otherwise split the warp).
  std::uint32_t minPc = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t minFree = minPc;
  bool converged = true;
  std::uint32_t first = w.pc[std::countr_zero(w.liveMask)];
  forLanes(w.liveMask, [&](unsigned l) {
    std::uint32_t pc = w.pc[l];
    converged &= pc == first;
    minPc = std::min(minPc, pc);
    if (pc >= fn.code.size() || !isCollective(fn.code[pc].op))
      minFree = std::min(minFree, pc);
  });
  if (!converged && minFree != std::numeric_limits<std::uint32_t>::max())
    minPc = minFree;
  std::uint32_t active = 0;
  forLanes(w.liveMask, [&](unsigned l) {
    if (w.pc[l] == minPc)
      active |= 1u << l;
  });
  curPc = minPc;
  curLane = -1;
  if (minPc >= fn.code.size()) {
    // Falling off the end exits.
    w.liveMask &= ~active;
    if (w.done())
      onWarpExit(cta, w);
    return true;
  }
  const Instr &ins = fn.code[minPc];
  std::uint32_t exec = active;
  if (ins.hasGuard) {
    exec = 0;
    forLanes(active, [&](unsigned l) {
      bool g = w.regs[ins.guard * 32 + l] != 0;
      if (g != ins.negGuard)
        exec |= 1u << l;
    });
  }
  if (w.inflightCount)
    checkInflight(w, ins);
  ++warpInstructions;
  if (profile)
    ++(*profile)[minPc].executions;
  if (needsFullWarp(ins.op))
    requireFullWarp(w, active, ins, true);
  else if (needsConvergedWarp(ins.op) && exec)
    requireFullWarp(w, active, ins, false);

  auto advance = [&]() {
    forLanes(active, [&](unsigned l) { w.pc[l] = minPc + 1; });
  };
  const std::vector<Operand> &ops = ins.ops;
  switch (ins.op) {
  case OpKind::Bra:
    forLanes(active, [&](unsigned l) {
      w.pc[l] = (exec >> l & 1) ? ins.target : minPc + 1;
    });
    return true;
  case OpKind::Ret:
  case OpKind::Exit:
    advance();
    w.liveMask &= ~exec;
    if (w.done())
      onWarpExit(cta, w);
    return true;
  case OpKind::Mov: {
    if (ops[0].kind == OperandKind::Vector ||
        ops[1].kind == OperandKind::Vector) {
      unsigned bits = ptxTypeBits(ins.type);
      bool unpack = ops[0].kind == OperandKind::Vector;
      const Operand &vec = unpack ? ops[0] : ops[1];
      unsigned n = vec.elemCount, eb = bits / n;
      forLanes(exec, [&](unsigned l) {
        curLane = static_cast<int>(l);
        if (unpack) {
          std::uint64_t v = get(w, ops[1], l);
          for (unsigned i = 0; i < n; ++i) {
            const Operand &e = ins.elems[vec.elemBegin + i];
            if (e.kind == OperandKind::Reg)
              w.regs[e.reg * 32 + l] = truncBits(v >> (i * eb), eb);
          }
        } else {
          std::uint64_t v = 0;
          for (unsigned i = 0; i < n; ++i)
            v |= truncBits(get(w, ins.elems[vec.elemBegin + i], l), eb)
                 << (i * eb);
          set(w, ops[0], l, v, ins.type);
        }
      });
    } else {
      forLanes(exec, [&](unsigned l) {
        set(w, ops[0], l, get(w, ops[1], l), ins.type);
      });
    }
    break;
  }
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::MulHi:
  case OpKind::Div:
  case OpKind::Rem:
  case OpKind::Min:
  case OpKind::Max:
  case OpKind::And:
  case OpKind::Or:
  case OpKind::Xor:
  case OpKind::Shl:
  case OpKind::Shr:
  case OpKind::Copysign: {
    if (ins.type == PtxType::Pred) {
      forLanes(exec, [&](unsigned l) {
        std::uint64_t a = get(w, ops[1], l) != 0, b = get(w, ops[2], l) != 0;
        std::uint64_t r = ins.op == OpKind::And  ? (a & b)
                          : ins.op == OpKind::Or ? (a | b)
                                                 : (a ^ b);
        set(w, ops[0], l, r, PtxType::Pred);
      });
      break;
    }
    PtxType dt = ins.type;
    forLanes(exec, [&](unsigned l) {
      set(w, ops[0], l, arith(ins, get(w, ops[1], l), get(w, ops[2], l), 0),
          dt);
    });
    break;
  }
  case OpKind::MulWide:
  case OpKind::MadWide: {
    PtxType dt = ptxTypeIsSigned(ins.type) ? PtxType::S64 : PtxType::U64;
    if (ptxTypeBits(ins.type) == 16)
      dt = ptxTypeIsSigned(ins.type) ? PtxType::S32 : PtxType::U32;
    forLanes(exec, [&](unsigned l) {
      std::uint64_t c = ops.size() > 3 ? get(w, ops[3], l) : 0;
      set(w, ops[0], l, arith(ins, get(w, ops[1], l), get(w, ops[2], l), c),
          dt);
    });
    break;
  }
  case OpKind::Mad:
  case OpKind::MadHi:
  case OpKind::Fma:
  case OpKind::Bfe:
    forLanes(exec, [&](unsigned l) {
      set(w, ops[0], l,
          arith(ins, get(w, ops[1], l), get(w, ops[2], l), get(w, ops[3], l)),
          ins.type);
    });
    break;
  case OpKind::Bfi:
    forLanes(exec, [&](unsigned l) {
      unsigned bits = ptxTypeBits(ins.type);
      std::uint64_t f = get(w, ops[1], l), b = get(w, ops[2], l);
      unsigned pos = get(w, ops[3], l) & 0xff, len = get(w, ops[4], l) & 0xff;
      std::uint64_t r = truncBits(b, bits);
      for (unsigned i = 0; i < len && pos + i < bits; ++i)
        r = (r & ~(1ull << (pos + i))) | (((f >> i) & 1) << (pos + i));
      set(w, ops[0], l, r, ins.type);
    });
    break;
  case OpKind::Not:
    if (ins.type == PtxType::Pred) {
      forLanes(exec, [&](unsigned l) {
        set(w, ops[0], l, get(w, ops[1], l) == 0, PtxType::Pred);
      });
      break;
    }
    [[fallthrough]];
  case OpKind::Abs:
  case OpKind::Neg:
  case OpKind::Cnot:
  case OpKind::Popc:
  case OpKind::Clz:
  case OpKind::Brev:
  case OpKind::Rcp:
  case OpKind::Sqrt:
  case OpKind::Rsqrt:
  case OpKind::Ex2:
  case OpKind::Lg2:
  case OpKind::Sin:
  case OpKind::Cos: {
    PtxType dt = (ins.op == OpKind::Popc || ins.op == OpKind::Clz)
                     ? PtxType::U32
                     : ins.type;
    forLanes(exec, [&](unsigned l) {
      set(w, ops[0], l, arith(ins, get(w, ops[1], l), 0, 0), dt);
    });
    break;
  }
  case OpKind::Cvt:
    if (ops.size() == 3) {
      // cvt.rn.{bf16x2,f16x2}.f32 d, a, b / cvt.rn.satfinite.e4m3x2.f32.
      ElemKind k;
      unsigned eb;
      switch (ins.type) {
      case PtxType::BF16x2:
        k = ElemKind::BF16;
        eb = 16;
        break;
      case PtxType::F16x2:
        k = ElemKind::F16;
        eb = 16;
        break;
      case PtxType::E4M3x2:
        k = ElemKind::E4M3;
        eb = 8;
        break;
      case PtxType::E5M2x2:
        k = ElemKind::E5M2;
        eb = 8;
        break;
      default:
        throw SimFault(fmt::format("`{}`: three-operand cvt to .{} is not "
                                   "modelled",
                                   fn.texts[ins.textId],
                                   ptxTypeName(ins.type)));
      }
      forLanes(exec, [&](unsigned l) {
        float a = asF32(get(w, ops[1], l)), b = asF32(get(w, ops[2], l));
        if (ins.flag) {
          a = a < 0 ? 0 : a;
          b = b < 0 ? 0 : b;
        }
        std::uint64_t hi = encodeElem(k, a, ins.sat),
                      lo = encodeElem(k, b, ins.sat);
        set(w, ops[0], l, (hi << eb) | lo, ins.type);
      });
      break;
    }
    forLanes(exec, [&](unsigned l) {
      set(w, ops[0], l, convert(ins, get(w, ops[1], l)), ins.type);
    });
    break;
  case OpKind::Setp:
    forLanes(exec, [&](unsigned l) {
      bool r = compare(ins.cmp, ins.type, get(w, ops[1], l), get(w, ops[2], l));
      bool q = !r;
      if (ins.boolOp) {
        bool c = get(w, ops[3], l) != 0;
        r = ins.boolOp == 1 ? (r && c) : ins.boolOp == 2 ? (r || c) : (r != c);
        q = ins.boolOp == 1 ? (q && c) : ins.boolOp == 2 ? (q || c) : (q != c);
      }
      if (ops[0].kind == OperandKind::Vector) {
        set(w, ins.elems[ops[0].elemBegin], l, r, PtxType::Pred);
        if (ops[0].elemCount > 1)
          set(w, ins.elems[ops[0].elemBegin + 1], l, q, PtxType::Pred);
      } else {
        set(w, ops[0], l, r, PtxType::Pred);
      }
    });
    break;
  case OpKind::Selp:
    forLanes(exec, [&](unsigned l) {
      set(w, ops[0], l,
          get(w, ops[3], l) ? get(w, ops[1], l) : get(w, ops[2], l), ins.type);
    });
    break;
  case OpKind::Cvta:
  case OpKind::CvtaTo: {
    std::uint64_t base =
        ins.space == SpaceKind::Shared || ins.space == SpaceKind::SharedCluster
            ? SharedGenericBase
        : ins.space == SpaceKind::Param ? ParamGenericBase
        : ins.space == SpaceKind::Local ? LocalGenericBase
                                        : 0;
    forLanes(exec, [&](unsigned l) {
      curLane = static_cast<int>(l);
      std::uint64_t a = get(w, ops[1], l);
      if (ins.op == OpKind::Cvta) {
        set(w, ops[0], l, base + (base ? truncBits(a, 32) : a), ins.type);
        return;
      }
      if (base && (a < base || a >= base + WindowSize))
        throw SimFault(fmt::format("cvta.to of generic address 0x{:x}, which "
                                   "is not in that state space's window",
                                   a));
      set(w, ops[0], l, a - base, ins.type);
    });
    break;
  }
  case OpKind::Ld:
  case OpKind::St: {
    unsigned eb = std::max(1u, ptxTypeBits(ins.type) / 8);
    unsigned n = ins.vec;
    bool isLd = ins.op == OpKind::Ld;
    const Operand &addrOp = isLd ? ops[1] : ops[0];
    const Operand &val = isLd ? ops[0] : ops[1];
    std::array<std::uint32_t, 32> addrs{};
    const char *what = isLd ? "load" : "store";
    std::string whatText;
    forLanes(exec, [&](unsigned l) {
      curLane = static_cast<int>(l);
      std::uint64_t a = address(w, addrOp, l);
      addrs[l] = static_cast<std::uint32_t>(a);
      if (a % (eb * n) != 0)
        throw SimFault(fmt::format("misaligned {} of {} bytes at 0x{:x}", what,
                                   eb * n, a));
      std::uint8_t buf[64];
      if (isLd) {
        load(cta, w, l, ins.space, a, buf, eb * n,
             fn.texts[ins.textId].c_str());
        for (unsigned i = 0; i < n; ++i) {
          std::uint64_t v = 0;
          std::memcpy(&v, buf + i * eb, eb);
          if (ptxTypeIsSigned(ins.type))
            v = static_cast<std::uint64_t>(sextBits(v, eb * 8));
          const Operand &d = val.kind == OperandKind::Vector
                                 ? ins.elems[val.elemBegin + i]
                                 : val;
          if (d.kind == OperandKind::Reg)
            w.regs[d.reg * 32 + l] = v;
        }
      } else {
        for (unsigned i = 0; i < n; ++i) {
          const Operand &s = val.kind == OperandKind::Vector
                                 ? ins.elems[val.elemBegin + i]
                                 : val;
          std::uint64_t v = get(w, s, l);
          std::memcpy(buf + i * eb, &v, eb);
        }
        store(cta, w, l, ins.space, a, buf, eb * n,
              fn.texts[ins.textId].c_str());
      }
    });
    if (profile && (ins.space == SpaceKind::Shared)) {
      unsigned bytes = eb * n;
      countShared(ins, minPc, addrs, exec, bytes,
                  bytes <= 4   ? 32
                  : bytes == 8 ? 16
                               : 8);
    }
    break;
  }
  case OpKind::Atom:
  case OpKind::Red: {
    std::lock_guard<std::mutex> lock(atomicMutex());
    unsigned eb = ptxTypeBits(ins.type) / 8;
    bool isAtom = ins.op == OpKind::Atom;
    const Operand &addrOp = isAtom ? ops[1] : ops[0];
    forLanes(exec, [&](unsigned l) {
      curLane = static_cast<int>(l);
      std::uint64_t a = address(w, addrOp, l);
      std::uint64_t old = 0;
      load(cta, w, l, ins.space, a, &old, eb, "atom");
      std::uint64_t b = get(w, ops[isAtom ? 2 : 1], l), r = old;
      Instr tmp;
      tmp.type = ins.type;
      switch (ins.a) {
      case 0:
        tmp.op = OpKind::Add;
        r = arith(tmp, old, b, 0);
        break;
      case 1:
        tmp.op = OpKind::Min;
        r = arith(tmp, old, b, 0);
        break;
      case 2:
        tmp.op = OpKind::Max;
        r = arith(tmp, old, b, 0);
        break;
      case 3:
        r = truncBits(old, 32) >= truncBits(b, 32) ? 0 : old + 1;
        break;
      case 4:
        r = (truncBits(old, 32) == 0 || truncBits(old, 32) > truncBits(b, 32))
                ? b
                : old - 1;
        break;
      case 5:
        r = old & b;
        break;
      case 6:
        r = old | b;
        break;
      case 7:
        r = old ^ b;
        break;
      case 8:
        r = b;
        break;
      case 9:
        if (!isAtom || ops.size() < 4)
          throw SimFault("atom.cas needs a compare and a new value");
        r = truncBits(old, eb * 8) == truncBits(b, eb * 8) ? get(w, ops[3], l)
                                                           : old;
        break;
      }
      store(cta, w, l, ins.space, a, &r, eb, "atom");
      if (isAtom)
        set(w, ops[0], l, old, ins.type);
    });
    break;
  }
  case OpKind::Prefetch:
  case OpKind::Fence:
  case OpKind::Nop:
  case OpKind::GriddepLaunch:
  case OpKind::GriddepWait:
  case OpKind::TcFence:
  case OpKind::TcWaitLd:
  case OpKind::TcWaitSt:
    if (ins.op == OpKind::Fence && ins.flag && !cta.fenceEpoch.empty())
      forLanes(exec, [&](unsigned l) { ++cta.fenceEpoch[w.index * 32 + l]; });
    break;
  case OpKind::PrefetchTensormap:
    forLanes(exec, [&](unsigned l) {
      curLane = static_cast<int>(l);
      readTensorMap(cta, w, l, address(w, ops[0], l));
    });
    break;
  case OpKind::BarSync:
  case OpKind::BarArrive: {
    if (!exec)
      break;
    unsigned lane0 = static_cast<unsigned>(std::countr_zero(exec));
    unsigned id =
        ops.empty() ? 0 : static_cast<unsigned>(get(w, ops[0], lane0));
    if (id >= 16)
      throw SimFault(fmt::format("barrier id {} is not in [0, 16)", id));
    NamedBarrier &bar = cta.barriers[id];
    unsigned expected = cta.threads;
    if (ops.size() > 1) {
      expected = static_cast<unsigned>(get(w, ops[1], lane0));
      if (expected % 32 != 0 || expected == 0)
        throw SimFault(fmt::format("barrier {} thread count {} is not a "
                                   "positive multiple of 32",
                                   id, expected));
    }
    if (bar.arrived && bar.expected != expected)
      throw SimFault(fmt::format("barrier {} used with thread count {} while "
                                 "{} threads wait with count {}",
                                 id, expected, bar.arrived, bar.expected));
    bar.expected = expected;
    bar.arrived += 32;
    advance();
    if (ins.op == OpKind::BarSync) {
      w.wait = WaitKind::Barrier;
      w.waitAddr = id;
      w.released = false;
      bar.waiting.push_back(w.index);
    }
    checkBarrierRelease(cta, id);
    return ins.op == OpKind::BarArrive || w.wait == WaitKind::None;
  }
  case OpKind::BarrierClusterArrive:
    if (exec) {
      if (w.clusterArrived)
        throw SimFault("barrier.cluster.arrive twice without a "
                       "barrier.cluster.wait between");
      w.clusterArrived = true;
      w.clusterArrivePhase = clusterPhase;
      ++clusterArrivals;
      checkClusterRelease();
    }
    break;
  case OpKind::BarrierClusterWait:
    if (exec) {
      if (!w.clusterArrived)
        throw SimFault("barrier.cluster.wait without a preceding "
                       "barrier.cluster.arrive");
      advance();
      if (clusterPhase > w.clusterArrivePhase) {
        w.clusterArrived = false;
        return true;
      }
      w.wait = WaitKind::ClusterBarrier;
      return false;
    }
    break;
  case OpKind::ElectSync: {
    std::uint32_t member = 0xffffffffu;
    if (exec) {
      unsigned lane0 = static_cast<unsigned>(std::countr_zero(exec));
      member = static_cast<std::uint32_t>(get(w, ops[1], lane0));
    }
    if ((member & active) != member)
      throw SimFault(fmt::format(
          "elect.sync with member mask 0x{:08x} executed by lanes 0x{:08x}: "
          "every member must execute it together",
          member, active));
    std::uint32_t cand = exec & member;
    unsigned leader = cand ? static_cast<unsigned>(std::countr_zero(cand)) : 0;
    const Operand &pair = ops[0];
    forLanes(exec, [&](unsigned l) {
      if (pair.kind == OperandKind::Vector) {
        set(w, ins.elems[pair.elemBegin], l, leader, PtxType::U32);
        if (pair.elemCount > 1)
          set(w, ins.elems[pair.elemBegin + 1], l, l == leader, PtxType::Pred);
      } else {
        set(w, pair, l, l == leader, PtxType::Pred);
      }
    });
    break;
  }
  case OpKind::Setmaxnreg: {
    if (!exec)
      break;
    unsigned lane0 = static_cast<unsigned>(std::countr_zero(exec));
    unsigned n = static_cast<unsigned>(get(w, ops[0], lane0));
    if (n % 8 != 0 || n < 24 || n > 256)
      throw SimFault(fmt::format("setmaxnreg count {} is not a multiple of 8 "
                                 "in [24, 256]",
                                 n));
    unsigned group = w.index / 4;
    if (cta.warps.size() < group * 4 + 4)
      throw SimFault(fmt::format("setmaxnreg in warpgroup {}, which has only "
                                 "{} warps (the CTA has {} threads)",
                                 group, cta.warps.size() - group * 4,
                                 cta.threads));
    auto &[count, value] = cta.setmaxnreg[group];
    if (count && value != n)
      throw SimFault(fmt::format("warps of warpgroup {} execute setmaxnreg "
                                 "with different counts ({} and {})",
                                 group, value, n));
    value = n;
    ++count;
    w.maxnreg = n;
    advance();
    w.wait = WaitKind::Setmaxnreg;
    w.waitAddr = group;
    checkSetmaxnregRelease(cta, group);
    return w.wait == WaitKind::None;
  }
  case OpKind::ShflSync: {
    std::array<std::uint64_t, 32> src{};
    forLanes(exec, [&](unsigned l) { src[l] = get(w, ops[1], l); });
    forLanes(exec, [&](unsigned l) {
      unsigned b = static_cast<unsigned>(get(w, ops[2], l));
      unsigned c = static_cast<unsigned>(get(w, ops[3], l));
      unsigned segMask = (c >> 8) & 0x1f, clamp = c & 0x1f;
      unsigned maxLane = (l & segMask) | (clamp & ~segMask);
      unsigned minLane = l & segMask;
      unsigned j = l;
      bool pval = true;
      switch (ins.a) {
      case 0:
        j = l - b;
        pval = static_cast<int>(j) >= static_cast<int>(maxLane);
        break;
      case 1:
        j = l + b;
        pval = j <= maxLane;
        break;
      case 2:
        j = l ^ b;
        pval = j <= maxLane;
        break;
      case 3:
        j = minLane | (b & ~segMask);
        pval = j <= maxLane;
        break;
      }
      if (!pval || j >= 32)
        j = l;
      if (!(exec >> j & 1))
        throw SimFault(fmt::format("shfl.sync lane {} reads lane {}, which "
                                   "does not execute it",
                                   l, j));
      const Operand &d = ops[0];
      if (d.kind == OperandKind::Vector) {
        set(w, ins.elems[d.elemBegin], l, src[j], ins.type);
        if (d.elemCount > 1)
          set(w, ins.elems[d.elemBegin + 1], l, pval, PtxType::Pred);
      } else {
        set(w, d, l, src[j], ins.type);
      }
    });
    break;
  }
  case OpKind::VoteSync: {
    std::uint32_t ballot = 0;
    forLanes(exec, [&](unsigned l) {
      if (get(w, ops[1], l))
        ballot |= 1u << l;
    });
    forLanes(exec, [&](unsigned l) {
      std::uint64_t r = ins.a == 0   ? ballot == exec
                        : ins.a == 1 ? ballot != 0
                        : ins.a == 2 ? (ballot == 0 || ballot == exec)
                                     : ballot;
      set(w, ops[0], l, r, ins.a == 3 ? PtxType::B32 : PtxType::Pred);
    });
    break;
  }
  case OpKind::Activemask:
    forLanes(exec,
             [&](unsigned l) { set(w, ops[0], l, active, PtxType::B32); });
    break;
  case OpKind::Mapa:
    forLanes(exec, [&](unsigned l) {
      curLane = static_cast<int>(l);
      std::uint64_t a = get(w, ops[1], l);
      unsigned rank = static_cast<unsigned>(get(w, ops[2], l));
      if (rank >= ctas.size())
        throw SimFault(fmt::format("mapa to CTA rank {} of a cluster of {}",
                                   rank, ctas.size()));
      bool generic = ins.space != SpaceKind::SharedCluster;
      std::uint64_t off = generic ? a - SharedGenericBase : a;
      off &= (1u << ClusterRankShift) - 1;
      std::uint64_t r =
          (static_cast<std::uint64_t>(rank + 1) << ClusterRankShift) | off;
      set(w, ops[0], l, generic ? SharedGenericBase + r : r, ins.type);
    });
    break;
  case OpKind::MbarInit:
  case OpKind::MbarArrive:
  case OpKind::MbarExpectTx:
  case OpKind::MbarTryWait:
  case OpKind::MbarTestWait:
  case OpKind::MbarInval: {
    bool blocked = false;
    execMbarrier(cta, w, ins, exec, blocked);
    if (blocked)
      return false;
    break;
  }
  case OpKind::CpAsync:
  case OpKind::CpAsyncCommit:
  case OpKind::CpAsyncWait:
  case OpKind::CpAsyncWaitAll:
    execCpAsync(cta, w, ins, exec);
    break;
  case OpKind::TmaLoad:
  case OpKind::TmaStore:
  case OpKind::BulkCommit:
  case OpKind::BulkWait:
    execTma(cta, w, ins, exec);
    break;
  case OpKind::WgmmaFence:
  case OpKind::WgmmaCommit:
  case OpKind::WgmmaWait:
  case OpKind::WgmmaMma:
    execWgmma(cta, w, ins, exec);
    break;
  case OpKind::Ldmatrix:
  case OpKind::Stmatrix:
  case OpKind::MmaSync:
    execMatrix(cta, w, ins, exec);
    break;
  case OpKind::TcAlloc:
  case OpKind::TcDealloc:
  case OpKind::TcRelinquish:
  case OpKind::TcMma:
  case OpKind::TcCommit:
  case OpKind::TcLd:
  case OpKind::TcSt:
    execTcgen05(cta, w, ins, exec);
    break;
  }
  advance();
  return true;
}

} // namespace tilec::sim
