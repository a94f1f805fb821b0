//===- runtime/sim/PtxOpcodes.cpp - Dotted PTX opcodes to OpKind ---------===//
//
// Each instruction family's opcode ("ld.global.v4.b32",
// "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes")
// is split at its dots; the base names the family, the rest are modifiers
// that set the decoded fields. A modifier the family does not list is an
// error, so nothing the simulator does not model is silently executed as
// something else. This file dispatches on the base and decodes the scalar,
// memory and synchronization families; PtxTensorOpcodes.cpp decodes the
// asynchronous copies and the tensor cores, PtxOperandShapes.cpp checks the
// operands after they parse.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/PtxOpcodes.h"
#include "runtime/sim/PtxDecoder.h"
#include "runtime/sim/PtxText.h"

#include <fmt/format.h>

namespace tilec::sim {

namespace ptxdecode {

namespace {

/// Arithmetic and bit opcodes whose base alone names the op.
const std::pair<const char *, OpKind> ArithOps[] = {
    {"add", OpKind::Add},
    {"sub", OpKind::Sub},
    {"div", OpKind::Div},
    {"rem", OpKind::Rem},
    {"min", OpKind::Min},
    {"max", OpKind::Max},
    {"abs", OpKind::Abs},
    {"neg", OpKind::Neg},
    {"and", OpKind::And},
    {"or", OpKind::Or},
    {"xor", OpKind::Xor},
    {"not", OpKind::Not},
    {"cnot", OpKind::Cnot},
    {"shl", OpKind::Shl},
    {"shr", OpKind::Shr},
    {"bfe", OpKind::Bfe},
    {"bfi", OpKind::Bfi},
    {"lop3", OpKind::Lop3},
    {"prmt", OpKind::Prmt},
    {"popc", OpKind::Popc},
    {"clz", OpKind::Clz},
    {"brev", OpKind::Brev},
    {"fma", OpKind::Fma},
    {"rcp", OpKind::Rcp},
    {"sqrt", OpKind::Sqrt},
    {"rsqrt", OpKind::Rsqrt},
    {"ex2", OpKind::Ex2},
    {"lg2", OpKind::Lg2},
    {"tanh", OpKind::Tanh},
    {"sin", OpKind::Sin},
    {"cos", OpKind::Cos},
    {"copysign", OpKind::Copysign},
    {"mul", OpKind::Mul},
    {"mad", OpKind::Mad}};

/// Bases decoded by Decoder::decodeSync.
constexpr std::string_view SyncBases[] = {
    "bar",        "barrier",        "fence", "membar", "elect",
    "setmaxnreg", "griddepcontrol", "shfl",  "vote",   "activemask",
    "mapa"};

} // namespace

bool Decoder::unknown() {
  return bad(fmt::format("unknown instruction `{}`", opcode));
}

bool Decoder::badModifier(std::string_view w) {
  return bad(fmt::format("unsupported modifier .{} of `{}`", w, opcode));
}

bool Decoder::only(const Mods &m,
                   std::initializer_list<std::string_view> allowed) {
  for (std::string_view w : m.words)
    if (std::find(allowed.begin(), allowed.end(), w) == allowed.end())
      return badModifier(w);
  return true;
}

bool Decoder::oneType(const Mods &m) {
  if (m.types.size() != 1)
    return bad(fmt::format("`{}` needs exactly one type", opcode));
  ins.type = m.types[0];
  return true;
}

bool Decoder::decodeArith(std::string_view base, const Mods &m) {
  std::optional<OpKind> op = lookupName(base, ArithOps);
  if (!op)
    return unknown();
  ins.op = *op;
  // Mixed precision (PTX ISA 8.6, sm_100+): add/sub{.rnd}{.sat}.f32.atype
  // d, a, c and fma.rnd{.sat}.f32.abtype d, a, b, c with atype f16 or bf16:
  // the 16-bit sources are widened exactly, the arithmetic is f32's.
  if (m.types.size() == 2 && m.types[0] == PtxType::F32 &&
      (m.types[1] == PtxType::F16 || m.types[1] == PtxType::BF16) &&
      (ins.op == OpKind::Add || ins.op == OpKind::Sub ||
       ins.op == OpKind::Fma)) {
    Mods f32 = m;
    f32.types = {PtxType::F32};
    if (!decodeArith(base, f32))
      return false;
    ins.type2 = m.types[1];
    return true;
  }
  if (!oneType(m) || !only(m, {"lo", "hi", "wide", "sat", "NaN"}))
    return false;
  ins.sat = m.has("sat");
  // min/max.NaN.f32 (sm_80+): a NaN input gives NaN, not the other input.
  ins.flag = m.has("NaN");
  if (ins.flag && (ins.type != PtxType::F32 ||
                   (ins.op != OpKind::Min && ins.op != OpKind::Max)))
    return bad(
        fmt::format("`{}`: .NaN is only modelled on min/max.f32", opcode));
  if (m.round)
    ins.round = *m.round;
  PtxType t = ins.type;
  bool isFloat = ptxTypeIsFloat(t);
  // Packed halves: {add,sub,mul,fma}.rn.{f16x2,bf16x2}, each half rounded
  // once to nearest even (ScalarOps arith).
  if (t == PtxType::F16x2 || t == PtxType::BF16x2) {
    bool op = ins.op == OpKind::Fma || ins.op == OpKind::Add ||
              ins.op == OpKind::Sub || ins.op == OpKind::Mul;
    if (!op || ins.sat || ins.round != RoundKind::Rn)
      return bad(fmt::format("`{}`: on .{} only add, sub, mul and fma with "
                             ".rn (no .sat) are modelled",
                             opcode, ptxTypeName(t)));
    return true;
  }
  if (isFloat && t != PtxType::F32 && t != PtxType::F64)
    return bad(fmt::format("`{}`: arithmetic on .{} is not supported (only "
                           ".f32 and .f64)",
                           opcode, ptxTypeName(t)));
  if (t == PtxType::Pred && ins.op != OpKind::And && ins.op != OpKind::Or &&
      ins.op != OpKind::Xor && ins.op != OpKind::Not)
    return bad(fmt::format("`{}` on .pred is not supported", opcode));
  if (ins.op == OpKind::Mul || ins.op == OpKind::Mad) {
    bool mad = ins.op == OpKind::Mad;
    if (m.has("hi"))
      ins.op = mad ? OpKind::MadHi : OpKind::MulHi;
    else if (m.has("wide"))
      ins.op = mad ? OpKind::MadWide : OpKind::MulWide;
    else if (mad && isFloat)
      ins.op = OpKind::Fma;
    else if (!isFloat && !m.has("lo"))
      return bad(fmt::format("`{}` needs .lo, .hi or .wide", opcode));
  }
  return true;
}

bool Decoder::decodeMem(std::string_view base, const Mods &m) {
  if (base == "ld" || base == "st") {
    ins.op = base == "ld" ? OpKind::Ld : OpKind::St;
    if (!oneType(m) || !only(m, {"mmio"}))
      return false;
    ins.space = m.space.value_or(SpaceKind::Generic);
    ins.vec = static_cast<std::uint8_t>(m.vec);
    if (ins.vec > 4)
      return bad(fmt::format("`{}`: .v8 is not supported", opcode));
    if (ins.space == SpaceKind::Param && ins.op == OpKind::St) {
      // The argument of a device-function call (OpKind::Call).
      ins.op = OpKind::CallArg;
      return true;
    }
    return true;
  }
  // atom, red: "and"/"or"/"min"/"max" parse as operations here.
  ins.op = base == "atom" ? OpKind::Atom : OpKind::Red;
  Mods rest = m;
  ins.a = rest.take(
      {"add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas"});
  if (ins.a < 0)
    return bad(fmt::format("`{}` without an operation", opcode));
  if (!oneType(rest) || !only(rest, {}))
    return false;
  ins.space = m.space.value_or(SpaceKind::Generic);
  if (ins.space != SpaceKind::Global && ins.space != SpaceKind::Shared &&
      ins.space != SpaceKind::Generic)
    return bad(
        fmt::format("`{}`: atomics on this space are not supported", opcode));
  return true;
}

bool Decoder::decodeSync(std::string_view base, Mods &m) {
  if (base == "bar" || base == "barrier") {
    if (parts.size() > 1 && parts[1] == "cluster") {
      if (m.has("arrive"))
        return simple(OpKind::BarrierClusterArrive, m, {"arrive"});
      if (m.has("wait"))
        return simple(OpKind::BarrierClusterWait, m, {"wait"});
      return unknown();
    }
    if (parts.size() > 1 && parts[1] == "warp")
      return simple(OpKind::BarWarpSync, m, {"warp", "sync"});
    if (m.has("arrive"))
      return simple(OpKind::BarArrive, m, {"arrive"});
    if (m.has("sync") || parts.size() == 1 ||
        (parts.size() == 2 && parts[1] == "sync") ||
        std::find(parts.begin(), parts.end(), "sync") != parts.end())
      return simple(OpKind::BarSync, m, {});
    return bad(fmt::format("unsupported barrier `{}`", opcode));
  }
  if (base == "fence" || base == "membar") {
    ins.op = OpKind::Fence;
    for (std::string_view p : parts)
      if (p.rfind("proxy", 0) == 0)
        ins.flag = parts.size() > 2 && parts[2].rfind("async", 0) == 0;
    return true;
  }
  if (base == "elect")
    return simple(OpKind::ElectSync, m, {});
  if (base == "setmaxnreg") {
    ins.op = OpKind::Setmaxnreg;
    ins.flag = m.has("inc");
    if (!m.has("inc") && !m.has("dec"))
      return bad(fmt::format("`{}` needs .inc or .dec", opcode));
    return only(m, {"inc", "dec"});
  }
  if (base == "griddepcontrol")
    return simple(m.has("wait") ? OpKind::GriddepWait : OpKind::GriddepLaunch,
                  m, {"wait", "launch_dependents"});
  if (base == "shfl" || base == "vote") {
    bool shfl = base == "shfl";
    ins.op = shfl ? OpKind::ShflSync : OpKind::VoteSync;
    ins.a = shfl ? m.take({"up", "down", "bfly", "idx"})
                 : m.take({"all", "any", "uni", "ballot"});
    if (ins.a < 0)
      return bad(fmt::format("`{}` without a mode", opcode));
    // vote ignores its other words.
    return oneType(m) && (!shfl || only(m, {}));
  }
  if (base == "activemask") {
    ins.op = OpKind::Activemask;
    return oneType(m);
  }
  if (base == "mapa") {
    ins.op = OpKind::Mapa;
    ins.space = m.space.value_or(SpaceKind::Generic);
    return oneType(m) && only(m, {});
  }
  return unknown();
}

bool Decoder::decode() {
  parts = splitDots(opcode);
  std::string_view base = parts[0];
  Mods m = splitMods(parts, 1);
  if (base == "mov" || base == "selp") {
    ins.op = base == "mov" ? OpKind::Mov : OpKind::Selp;
    return oneType(m) && only(m, {});
  }
  if (base == "setp") {
    ins.op = OpKind::Setp;
    if (!m.cmp)
      return bad(fmt::format("`{}` without a comparison", opcode));
    ins.cmp = *m.cmp;
    // A second cmp-like word ("and", "or", "xor") is the bool op.
    if (int boolOp = m.take({"and", "or", "xor"}); boolOp >= 0)
      ins.boolOp = static_cast<std::uint8_t>(boolOp + 1);
    return oneType(m) && only(m, {});
  }
  if (base == "cvt") {
    ins.op = OpKind::Cvt;
    if (m.types.size() != 2)
      return bad(fmt::format("`{}` needs two types", opcode));
    ins.type = m.types[0];
    ins.type2 = m.types[1];
    if (m.round)
      ins.round = *m.round;
    ins.sat = m.has("sat") || m.has("satfinite");
    ins.flag = m.has("relu");
    return only(m, {"sat", "satfinite", "relu"});
  }
  if (base == "cvta") {
    ins.op = m.has("to") ? OpKind::CvtaTo : OpKind::Cvta;
    if (!m.space)
      return bad(fmt::format("`{}` without a state space", opcode));
    ins.space = *m.space;
    return oneType(m) && only(m, {"to"});
  }
  if (base == "ld" || base == "st" || base == "atom" || base == "red")
    return decodeMem(base, m);
  if (base == "prefetch" || base == "prefetchu")
    return simple(m.has("tensormap") ? OpKind::PrefetchTensormap
                                     : OpKind::Prefetch,
                  m, {"tensormap", "L1", "L2"});
  if (std::optional<OpKind> op = findOp(
          base,
          {{"bra", OpKind::Bra}, {"ret", OpKind::Ret}, {"exit", OpKind::Exit}}))
    return simple(*op, m, {});
  if (std::find(std::begin(SyncBases), std::end(SyncBases), base) !=
      std::end(SyncBases))
    return decodeSync(base, m);
  if (base == "mbarrier")
    return decodeMbarrier(m);
  if (base == "cp" && parts.size() > 2 && parts[1] == "async")
    return decodeCpAsync();
  if (base == "ldmatrix" || base == "stmatrix")
    return decodeMatrix(base, m);
  if (base == "mma")
    return decodeMma(m);
  if (base == "wgmma")
    return decodeWgmma(m);
  if (base == "tcgen05")
    return decodeTcgen05();
  if (base == "clusterlaunchcontrol") {
    std::string_view p1 = parts.size() > 1 ? parts[1] : "";
    if (p1 == "try_cancel") {
      ins.op = OpKind::ClcTryCancel;
      ins.flag = std::find(parts.begin(), parts.end(),
                           "multicast::cluster::all") != parts.end();
      return true;
    }
    if (p1 == "query_cancel" && parts.size() > 2) {
      if (parts[2] == "is_canceled") {
        ins.op = OpKind::ClcIsCanceled;
        return true;
      }
      if (parts[2] == "get_first_ctaid") {
        ins.op = OpKind::ClcFirstCtaid;
        return true;
      }
    }
    return unknown();
  }
  if (base == "call") {
    ins.op = OpKind::Call;
    return true;
  }
  if (base == "trap" || base == "brkpt") {
    ins.op = OpKind::Trap;
    return true;
  }
  if (base == "nop" || base == "pmevent") {
    ins.op = OpKind::Nop;
    return true;
  }
  return decodeArith(base, m);
}

} // namespace ptxdecode

void decodeOpcode(std::string_view opcode, Instr &ins, unsigned line,
                  std::string &error) {
  (void)line;
  ptxdecode::Decoder d{opcode, ins, error, {}};
  if (!d.decode() && error.empty())
    error = fmt::format("unknown instruction `{}`", opcode);
}

} // namespace tilec::sim
