//===- runtime/sim/Interpreter.cpp - One step of a warp ------------------===//
//
// Executes the instruction at a warp's minimum PC for the lanes there (of
// those not parked on an mbarrier wait: a diverged warp's blocked lanes
// park so that its other lanes go on, WarpState::parkedMask):
// arithmetic, conversions and comparisons (their value semantics are in
// ScalarOps.cpp), predicates and branches, loads and stores (the address
// windows are in InterpreterMemory.cpp), atomics, shuffles, and the
// warp-collective checks. The asynchronous units are in
// InterpreterAsync.cpp.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/Interpreter.h"

#include "runtime/sim/FloatFormats.h"
#include "runtime/sim/ScalarOps.h"
#include "runtime/sim/SimFault.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

namespace tilec::sim {

namespace {

std::mutex &atomicMutex() {
  static std::mutex m;
  return m;
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
    return o.sharedSymbol ? clusterAddress(ctas[w.cta].rank,
                                           static_cast<std::uint64_t>(o.imm))
                          : static_cast<std::uint64_t>(o.imm);
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

void ClusterRun::unparkLanes(WarpState &w) {
  forLanes(w.parkedMask, [&](unsigned l) {
    CtaState &t = ctas[w.parkAddr[l] >> ClusterRankShift];
    auto it = t.mbars.find(w.parkAddr[l] & ClusterOffsetMask);
    if (it == t.mbars.end() || it->second.phase != w.parkPhase[l])
      w.parkedMask &= ~(1u << l);
  });
}

bool ClusterRun::parkWarpIfNoLaneIsFree(WarpState &w, std::uint32_t free) {
  if (free || !w.parkedMask)
    return false;
  unsigned l = static_cast<unsigned>(std::countr_zero(w.parkedMask));
  w.wait = WaitKind::MBarrier;
  w.waitAddr = w.parkAddr[l];
  w.waitPhase = w.parkPhase[l];
  return true;
}

bool ClusterRun::step(CtaState &cta, WarpState &w) {
  // Lanes parked on an mbarrier wait (WarpState::parkedMask) run again once
  // its phase has moved on; while none of the others can run, the warp
  // waits on the first one's barrier.
  if (w.parkedMask) {
    unparkLanes(w);
    if (parkWarpIfNoLaneIsFree(w, w.liveMask & ~w.parkedMask))
      return false;
  }
  std::uint32_t live = w.liveMask & ~w.parkedMask;
  // The lanes at the minimum PC run; lanes parked at a warp-collective
  // instruction wait there while the others catch up (code placed after a
  // loop header, like an elected arrive, would otherwise split the warp).
  std::uint32_t minPc = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t minFree = minPc;
  bool converged = true;
  std::uint32_t first = w.pc[std::countr_zero(live)];
  forLanes(live, [&](unsigned l) {
    std::uint32_t pc = w.pc[l];
    converged &= pc == first;
    minPc = std::min(minPc, pc);
    if (pc >= fn.code.size() || !isCollective(fn.code[pc].op))
      minFree = std::min(minFree, pc);
  });
  if (!converged && minFree != std::numeric_limits<std::uint32_t>::max())
    minPc = minFree;
  // A warp-collective instruction waits for the parked lanes too.
  if (w.parkedMask && minPc < fn.code.size() &&
      isCollective(fn.code[minPc].op) && parkWarpIfNoLaneIsFree(w, 0))
    return false;
  std::uint32_t active = 0;
  forLanes(live, [&](unsigned l) {
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
  case OpKind::Call:
    throw SimFault(
        "a device-function call: the simulator runs kernels without calls "
        "(a call of __assertfail is a failed device-side assert)");
  case OpKind::Trap:
    throw SimFault("the kernel stopped itself (trap or brkpt)");
  case OpKind::CallArg:
    advance();
    return true;
  case OpKind::ClcTryCancel:
    forLanes(exec, [&](unsigned l) {
      curLane = static_cast<int>(l);
      std::uint32_t response =
          ctaOffset(cta, sharedOffsetOf(address(w, ops[0], l)));
      std::uint32_t mbar =
          ctaOffset(cta, sharedOffsetOf(address(w, ops[1], l)));
      const std::uint8_t notCanceled[16] = {};
      for (CtaState &target : ctas) {
        if (!ins.flag && &target != &cta)
          continue;
        target.smem.write(response, notCanceled, 16,
                          "clusterlaunchcontrol.try_cancel response");
        mbarArrive(target, mbar, 0, -16,
                   "clusterlaunchcontrol.try_cancel complete_tx");
      }
    });
    break;
  case OpKind::ClcIsCanceled:
  case OpKind::ClcFirstCtaid: {
    if (ops[1].kind != OperandKind::Reg)
      throw SimFault("clusterlaunchcontrol.query_cancel reads a .b128 "
                     "register");
    forLanes(exec, [&](unsigned l) {
      std::uint64_t lo = w.regs[ops[1].reg * 32 + l];
      std::uint64_t hi = w.regs[(ops[1].reg + 1) * 32 + l];
      if (ins.op == OpKind::ClcIsCanceled) {
        set(w, ops[0], l, lo & 1, PtxType::Pred);
        return;
      }
      std::uint64_t words[3] = {lo >> 32, hi & 0xffffffffu, hi >> 32};
      const Operand &vec = ops[0];
      for (unsigned i = 0;
           i < 3 && vec.kind == OperandKind::Vector && i < vec.elemCount; ++i)
        set(w, ins.elems[vec.elemBegin + i], l, words[i], PtxType::B32);
    });
    break;
  }
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
  case OpKind::Prmt:
    forLanes(exec, [&](unsigned l) {
      set(w, ops[0], l,
          arith(ins, get(w, ops[1], l), get(w, ops[2], l), get(w, ops[3], l)),
          ins.type);
    });
    break;
  case OpKind::Bfi:
  case OpKind::Lop3:
    forLanes(exec, [&](unsigned l) {
      set(w, ops[0], l,
          bitsOf4(ins, get(w, ops[1], l), get(w, ops[2], l), get(w, ops[3], l),
                  get(w, ops[4], l)),
          ins.type);
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
  case OpKind::Tanh:
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
      if (eb == 16) {
        // A .b128 register (one, not a vector): low half in its slot, high
        // half in the next (the parser declares them so).
        if (n != 1 || val.kind != OperandKind::Reg)
          throw SimFault("a .b128 access takes one .b128 register");
        std::uint64_t half[2] = {};
        if (isLd) {
          load(cta, w, l, ins.space, a, buf, 16, fn.texts[ins.textId].c_str());
          std::memcpy(half, buf, 16);
          w.regs[val.reg * 32 + l] = half[0];
          w.regs[(val.reg + 1) * 32 + l] = half[1];
        } else {
          half[0] = w.regs[val.reg * 32 + l];
          half[1] = w.regs[(val.reg + 1) * 32 + l];
          std::memcpy(buf, half, 16);
          store(cta, w, l, ins.space, a, buf, 16, fn.texts[ins.textId].c_str());
        }
        return;
      }
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
  case OpKind::BarWarpSync:
  case OpKind::GriddepLaunch:
  case OpKind::GriddepWait:
  case OpKind::TcFence:
  case OpKind::TcWaitLd:
  case OpKind::TcWaitSt:
    if (ins.op == OpKind::TcWaitLd)
      retireTmemLoads(cta, w);
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
      std::uint64_t r =
          clusterAddress(rank, generic ? a - SharedGenericBase : a);
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
    if (!blocked)
      break;
    // Diverged: these lanes park on the barrier and the warp's other lanes
    // go on, as independent thread scheduling lets them on the GPU (a lane
    // that branched around a copy must still reach its own wait or arrive).
    if (active != w.liveMask && w.wait == WaitKind::MBarrier) {
      forLanes(active, [&](unsigned l) {
        w.parkAddr[l] = w.waitAddr;
        w.parkPhase[l] = w.waitPhase;
      });
      w.parkedMask |= active;
      w.wait = WaitKind::None;
      return true;
    }
    return false;
  }
  case OpKind::CpAsync:
  case OpKind::CpAsyncCommit:
  case OpKind::CpAsyncWait:
  case OpKind::CpAsyncWaitAll:
  case OpKind::CpAsyncMbarArrive:
    execCpAsync(cta, w, ins, exec);
    break;
  case OpKind::TmaLoad:
  case OpKind::TmaStore:
    execTma(cta, w, ins, exec);
    break;
  case OpKind::BulkCommit:
  case OpKind::BulkWait:
    execBulkGroup(cta, w, ins, exec);
    break;
  case OpKind::WgmmaFence:
  case OpKind::WgmmaCommit:
  case OpKind::WgmmaWait:
  case OpKind::WgmmaMma:
    if (!execWgmma(cta, w, ins, exec))
      return false;
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
