//===- runtime/sim/PtxOpcodes.cpp - Dotted PTX opcodes to OpKind ---------===//
//
// Each instruction family's opcode ("ld.global.v4.b32",
// "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes")
// is split at its dots; the base names the family, the rest are modifiers
// that set the decoded fields. A modifier the family does not list is an
// error, so nothing the simulator does not model is silently executed as
// something else. The operand counts are checked after the operands parse.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/PtxProgram.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace tilec::sim {

const char *ptxTypeName(PtxType type) {
  switch (type) {
  case PtxType::None:
    return "none";
  case PtxType::Pred:
    return "pred";
  case PtxType::B8:
    return "b8";
  case PtxType::B16:
    return "b16";
  case PtxType::B32:
    return "b32";
  case PtxType::B64:
    return "b64";
  case PtxType::B128:
    return "b128";
  case PtxType::U8:
    return "u8";
  case PtxType::U16:
    return "u16";
  case PtxType::U32:
    return "u32";
  case PtxType::U64:
    return "u64";
  case PtxType::S8:
    return "s8";
  case PtxType::S16:
    return "s16";
  case PtxType::S32:
    return "s32";
  case PtxType::S64:
    return "s64";
  case PtxType::F16:
    return "f16";
  case PtxType::F16x2:
    return "f16x2";
  case PtxType::BF16:
    return "bf16";
  case PtxType::BF16x2:
    return "bf16x2";
  case PtxType::TF32:
    return "tf32";
  case PtxType::F32:
    return "f32";
  case PtxType::F64:
    return "f64";
  case PtxType::E4M3:
    return "e4m3";
  case PtxType::E5M2:
    return "e5m2";
  case PtxType::E4M3x2:
    return "e4m3x2";
  case PtxType::E5M2x2:
    return "e5m2x2";
  }
  return "?";
}

namespace {

std::optional<PtxType> typeOf(std::string_view s) {
  static const std::pair<const char *, PtxType> names[] = {
      {"pred", PtxType::Pred},    {"b8", PtxType::B8},
      {"b16", PtxType::B16},      {"b32", PtxType::B32},
      {"b64", PtxType::B64},      {"b128", PtxType::B128},
      {"u8", PtxType::U8},        {"u16", PtxType::U16},
      {"u32", PtxType::U32},      {"u64", PtxType::U64},
      {"s8", PtxType::S8},        {"s16", PtxType::S16},
      {"s32", PtxType::S32},      {"s64", PtxType::S64},
      {"f16", PtxType::F16},      {"f16x2", PtxType::F16x2},
      {"bf16", PtxType::BF16},    {"bf16x2", PtxType::BF16x2},
      {"tf32", PtxType::TF32},    {"f32", PtxType::F32},
      {"f64", PtxType::F64},      {"e4m3", PtxType::E4M3},
      {"e5m2", PtxType::E5M2},    {"e4m3x2", PtxType::E4M3x2},
      {"e5m2x2", PtxType::E5M2x2}};
  for (auto &[n, t] : names)
    if (s == n)
      return t;
  return std::nullopt;
}

std::optional<CmpKind> cmpOf(std::string_view s) {
  static const std::pair<const char *, CmpKind> names[] = {
      {"eq", CmpKind::Eq},   {"ne", CmpKind::Ne},   {"lt", CmpKind::Lt},
      {"le", CmpKind::Le},   {"gt", CmpKind::Gt},   {"ge", CmpKind::Ge},
      {"lo", CmpKind::Lo},   {"ls", CmpKind::Ls},   {"hi", CmpKind::Hi},
      {"hs", CmpKind::Hs},   {"equ", CmpKind::Equ}, {"neu", CmpKind::Neu},
      {"ltu", CmpKind::Ltu}, {"leu", CmpKind::Leu}, {"gtu", CmpKind::Gtu},
      {"geu", CmpKind::Geu}, {"num", CmpKind::Num}, {"nan", CmpKind::Nan}};
  for (auto &[n, c] : names)
    if (s == n)
      return c;
  return std::nullopt;
}

std::optional<RoundKind> roundOf(std::string_view s) {
  static const std::pair<const char *, RoundKind> names[] = {
      {"rn", RoundKind::Rn},   {"rz", RoundKind::Rz},   {"rm", RoundKind::Rm},
      {"rp", RoundKind::Rp},   {"rni", RoundKind::Rni}, {"rzi", RoundKind::Rzi},
      {"rmi", RoundKind::Rmi}, {"rpi", RoundKind::Rpi}};
  for (auto &[n, r] : names)
    if (s == n)
      return r;
  return std::nullopt;
}

std::optional<SpaceKind> spaceOf(std::string_view s) {
  if (s == "global")
    return SpaceKind::Global;
  if (s == "shared" || s == "shared::cta")
    return SpaceKind::Shared;
  if (s == "shared::cluster")
    return SpaceKind::SharedCluster;
  if (s == "param" || s == "param::entry")
    return SpaceKind::Param;
  if (s == "local")
    return SpaceKind::Local;
  if (s == "const")
    return SpaceKind::Const;
  return std::nullopt;
}

/// Memory-order, scope and cache modifiers with no effect in the simulator
/// (it executes in program order and has no caches).
bool isIgnorable(std::string_view s) {
  static const char *names[] = {"weak",        "volatile", "relaxed",
                                "acquire",     "release",  "acq_rel",
                                "sc",          "cta",      "gpu",
                                "sys",         "cluster",  "nc",
                                "ca",          "cg",       "cs",
                                "lu",          "cv",       "wb",
                                "wt",          "ftz",      "aligned",
                                "sync",        "uni",      "approx",
                                "full",        "noftz",    "L2::cache_hint",
                                "cta_group::1"};
  for (const char *n : names)
    if (s == n)
      return true;
  return s.rfind("L1::", 0) == 0 || s.rfind("L2::", 0) == 0;
}

/// Collects the decoded modifiers of one opcode.
struct Mods {
  std::vector<PtxType> types;
  std::optional<SpaceKind> space, space2;
  std::optional<CmpKind> cmp;
  std::optional<RoundKind> round;
  unsigned vec = 1;
  std::vector<std::string_view> words; ///< Everything else, in order.
  bool has(std::string_view w) const {
    return std::find(words.begin(), words.end(), w) != words.end();
  }
};

Mods splitMods(const std::vector<std::string_view> &parts, std::size_t from) {
  Mods m;
  bool allowCmp = parts[0] == "setp";
  for (std::size_t i = from; i < parts.size(); ++i) {
    std::string_view p = parts[i];
    if (std::optional<PtxType> t = typeOf(p))
      m.types.push_back(*t);
    else if (std::optional<SpaceKind> s = spaceOf(p)) {
      if (!m.space)
        m.space = *s;
      else
        m.space2 = *s;
    } else if (std::optional<CmpKind> c = cmpOf(p); allowCmp && c && !m.cmp)
      m.cmp = *c;
    else if (std::optional<RoundKind> r = roundOf(p))
      m.round = *r;
    else if (p == "v2")
      m.vec = 2;
    else if (p == "v4")
      m.vec = 4;
    else if (p == "v8")
      m.vec = 8;
    else if (!isIgnorable(p))
      m.words.push_back(p);
  }
  return m;
}

struct Decoder {
  std::string_view opcode;
  Instr &ins;
  std::string &error;
  std::vector<std::string_view> parts;

  bool bad(std::string message) {
    if (error.empty())
      error = std::move(message);
    return false;
  }
  /// Every leftover word must be in \p allowed.
  bool only(const Mods &m, std::initializer_list<std::string_view> allowed) {
    for (std::string_view w : m.words)
      if (std::find(allowed.begin(), allowed.end(), w) == allowed.end())
        return bad(fmt::format("unsupported modifier .{} of `{}`", w, opcode));
    return true;
  }
  bool oneType(const Mods &m) {
    if (m.types.size() != 1)
      return bad(fmt::format("`{}` needs exactly one type", opcode));
    ins.type = m.types[0];
    return true;
  }
  bool decode();
  bool decodeArith(std::string_view base, const Mods &m);
  bool decodeMem(std::string_view base, const Mods &m);
  bool decodeMbarrier(const Mods &m);
  bool decodeCpAsync();
  bool decodeTcgen05();
  bool decodeMma(const Mods &m);
  bool decodeWgmma(const Mods &m);
};

bool parseShape(std::string_view s, int &m, int &n, int &k) {
  if (s.empty() || s[0] != 'm')
    return false;
  unsigned vals[3] = {0, 0, 0};
  int idx = 0;
  for (std::size_t i = 1; i < s.size(); ++i) {
    char c = s[i];
    if (c == 'n' && idx == 0)
      idx = 1;
    else if (c == 'k' && idx == 1)
      idx = 2;
    else if (std::isdigit(static_cast<unsigned char>(c)))
      vals[idx] = vals[idx] * 10 + (c - '0');
    else
      return false;
  }
  if (idx != 2)
    return false;
  m = static_cast<int>(vals[0]);
  n = static_cast<int>(vals[1]);
  k = static_cast<int>(vals[2]);
  return true;
}

bool Decoder::decodeArith(std::string_view base, const Mods &m) {
  static const std::pair<const char *, OpKind> simple[] = {
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
      {"popc", OpKind::Popc},
      {"clz", OpKind::Clz},
      {"brev", OpKind::Brev},
      {"fma", OpKind::Fma},
      {"rcp", OpKind::Rcp},
      {"sqrt", OpKind::Sqrt},
      {"rsqrt", OpKind::Rsqrt},
      {"ex2", OpKind::Ex2},
      {"lg2", OpKind::Lg2},
      {"sin", OpKind::Sin},
      {"cos", OpKind::Cos},
      {"copysign", OpKind::Copysign},
      {"mul", OpKind::Mul},
      {"mad", OpKind::Mad}};
  bool found = false;
  for (auto &[n, op] : simple)
    if (base == n) {
      ins.op = op;
      found = true;
    }
  if (!found)
    return bad(fmt::format("unknown instruction `{}`", opcode));
  if (!oneType(m) || !only(m, {"lo", "hi", "wide", "sat"}))
    return false;
  ins.sat = m.has("sat");
  if (m.round)
    ins.round = *m.round;
  PtxType t = ins.type;
  bool isFloat = ptxTypeIsFloat(t);
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
    if (ins.space == SpaceKind::Param && ins.op == OpKind::St)
      return bad("st.param is not supported in kernels");
    return true;
  }
  if (base == "atom" || base == "red") {
    ins.op = base == "atom" ? OpKind::Atom : OpKind::Red;
    static const char *ops[] = {"add", "min", "max", "inc",  "dec",
                                "and", "or",  "xor", "exch", "cas"};
    Mods rest = m;
    rest.words.clear();
    ins.a = -1;
    for (std::string_view w : m.words) {
      bool isOp = false;
      for (int i = 0; i < 10; ++i)
        if (w == ops[i]) {
          ins.a = i;
          isOp = true;
        }
      if (!isOp)
        rest.words.push_back(w);
    }
    // "and"/"or" parse as ops here; "min"/"max" too.
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
  return false;
}

bool Decoder::decodeMbarrier(const Mods &m) {
  std::string_view what = parts.size() > 1 ? parts[1] : "";
  ins.space = m.space.value_or(SpaceKind::Shared);
  if (what == "init") {
    ins.op = OpKind::MbarInit;
    return only(m, {"init"});
  }
  if (what == "inval") {
    ins.op = OpKind::MbarInval;
    return only(m, {"inval"});
  }
  if (what == "arrive" || what == "arrive_drop") {
    ins.op = OpKind::MbarArrive;
    ins.flag = m.has("expect_tx");
    ins.flag2 = what == "arrive_drop";
    return only(m, {"arrive", "arrive_drop", "expect_tx", "noComplete"});
  }
  if (what == "expect_tx") {
    ins.op = OpKind::MbarExpectTx;
    return only(m, {"expect_tx"});
  }
  if (what == "try_wait" || what == "test_wait") {
    ins.op = what == "try_wait" ? OpKind::MbarTryWait : OpKind::MbarTestWait;
    ins.flag = m.has("parity");
    return only(m, {"try_wait", "test_wait", "parity"});
  }
  return bad(fmt::format("unknown instruction `{}`", opcode));
}

bool Decoder::decodeCpAsync() {
  // cp.async.{ca,cg}.shared.global, cp.async.commit_group,
  // cp.async.wait_group, cp.async.wait_all, cp.async.bulk.*
  std::string_view p2 = parts.size() > 2 ? parts[2] : "";
  if (p2 == "commit_group") {
    ins.op = OpKind::CpAsyncCommit;
    return parts.size() == 3 || bad(fmt::format("bad `{}`", opcode));
  }
  if (p2 == "wait_group") {
    ins.op = OpKind::CpAsyncWait;
    return parts.size() == 3 || bad(fmt::format("bad `{}`", opcode));
  }
  if (p2 == "wait_all") {
    ins.op = OpKind::CpAsyncWaitAll;
    return true;
  }
  if (p2 == "ca" || p2 == "cg") {
    ins.op = OpKind::CpAsync;
    Mods m = splitMods(parts, 3);
    if (!only(m, {}))
      return false;
    if (m.space != SpaceKind::Shared || m.space2 != SpaceKind::Global)
      return bad(
          fmt::format("`{}`: only shared <- global is modelled", opcode));
    return true;
  }
  if (p2 == "bulk") {
    std::string_view p3 = parts.size() > 3 ? parts[3] : "";
    if (p3 == "commit_group") {
      ins.op = OpKind::BulkCommit;
      return parts.size() == 4 || bad(fmt::format("bad `{}`", opcode));
    }
    if (p3 == "wait_group") {
      ins.op = OpKind::BulkWait;
      ins.flag = parts.size() > 4 && parts[4] == "read";
      return parts.size() <= 5 || bad(fmt::format("bad `{}`", opcode));
    }
    if (p3 == "tensor") {
      std::string_view dim = parts.size() > 4 ? parts[4] : "";
      if (dim.size() != 2 || dim[1] != 'd' || dim[0] < '1' || dim[0] > '5')
        return bad(fmt::format("`{}`: bad dimension", opcode));
      ins.a = dim[0] - '0';
      Mods m = splitMods(parts, 5);
      if (m.space == SpaceKind::Global && (m.space2 == SpaceKind::Shared)) {
        ins.op = OpKind::TmaStore;
        return only(m, {"bulk_group", "tile"});
      }
      if ((m.space == SpaceKind::SharedCluster ||
           m.space == SpaceKind::Shared) &&
          m.space2 == SpaceKind::Global) {
        ins.op = OpKind::TmaLoad;
        ins.flag = m.has("multicast::cluster");
        if (!m.has("mbarrier::complete_tx::bytes"))
          return bad(fmt::format("`{}`: only the mbarrier::complete_tx form "
                                 "is modelled",
                                 opcode));
        return only(
            m, {"mbarrier::complete_tx::bytes", "multicast::cluster", "tile"});
      }
      return bad(fmt::format("`{}`: unsupported direction", opcode));
    }
  }
  return bad(fmt::format("unknown instruction `{}`", opcode));
}

bool Decoder::decodeMma(const Mods &m) {
  // mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
  ins.op = OpKind::MmaSync;
  bool shape = false;
  for (std::string_view w : m.words)
    if (parseShape(w, ins.a, ins.b, ins.c))
      shape = true;
  if (!shape || !m.has("row") || !m.has("col") || m.types.size() != 4)
    return bad(fmt::format("`{}`: only mma.sync.aligned.mMnNkK.row.col with "
                           "four types is modelled",
                           opcode));
  ins.typeD = m.types[0];
  ins.typeA = m.types[1];
  ins.typeB = m.types[2];
  ins.typeC = m.types[3];
  for (std::string_view w : m.words)
    if (w != "row" && w != "col" && w.substr(0, 1) != "m")
      return bad(fmt::format("unsupported modifier .{} of `{}`", w, opcode));
  return true;
}

bool Decoder::decodeWgmma(const Mods &m) {
  std::string_view what = parts.size() > 1 ? parts[1] : "";
  if (what == "fence") {
    ins.op = OpKind::WgmmaFence;
    return only(m, {"fence"});
  }
  if (what == "commit_group") {
    ins.op = OpKind::WgmmaCommit;
    return only(m, {"commit_group"});
  }
  if (what == "wait_group") {
    ins.op = OpKind::WgmmaWait;
    return only(m, {"wait_group"});
  }
  if (what == "mma_async") {
    ins.op = OpKind::WgmmaMma;
    bool shape = false;
    for (std::string_view w : m.words)
      if (w != "mma_async") {
        if (!parseShape(w, ins.a, ins.b, ins.c))
          return bad(
              fmt::format("unsupported modifier .{} of `{}`", w, opcode));
        shape = true;
      }
    if (!shape || m.types.size() != 3)
      return bad(fmt::format("`{}`: needs a shape and three types", opcode));
    ins.typeD = m.types[0];
    ins.typeA = m.types[1];
    ins.typeB = m.types[2];
    return true;
  }
  return bad(fmt::format("unknown instruction `{}`", opcode));
}

bool Decoder::decodeTcgen05() {
  std::string_view what = parts.size() > 1 ? parts[1] : "";
  Mods m = splitMods(parts, 2);
  ins.b = 1; // cta group
  std::vector<std::string_view> words;
  for (std::string_view w : m.words) {
    if (w == "cta_group::2")
      ins.b = 2;
    else
      words.push_back(w);
  }
  m.words = words;
  if (what == "alloc" || what == "dealloc" ||
      what == "relinquish_alloc_permit") {
    ins.op = what == "alloc"     ? OpKind::TcAlloc
             : what == "dealloc" ? OpKind::TcDealloc
                                 : OpKind::TcRelinquish;
    return only(m, {});
  }
  if (what == "mma") {
    ins.op = OpKind::TcMma;
    for (std::string_view w : m.words) {
      if (w == "kind::f16")
        ins.a = 0;
      else if (w == "kind::tf32")
        ins.a = 1;
      else if (w == "kind::f8f6f4")
        ins.a = 2;
      else
        return bad(fmt::format("unsupported modifier .{} of `{}`", w, opcode));
    }
    if (m.words.empty())
      return bad(fmt::format("`{}` without .kind", opcode));
    return true;
  }
  if (what == "commit") {
    ins.op = OpKind::TcCommit;
    ins.flag = m.has("multicast::cluster");
    return only(m, {"mbarrier::arrive::one", "multicast::cluster"});
  }
  if (what == "ld" || what == "st") {
    ins.op = what == "ld" ? OpKind::TcLd : OpKind::TcSt;
    ins.a = -1;
    for (std::string_view w : m.words) {
      if (w == "32x32b")
        ins.a = 0;
      else if (w == "16x64b")
        ins.a = 1;
      else if (w == "16x128b")
        ins.a = 2;
      else if (w == "16x256b")
        ins.a = 3;
      else if (w.size() > 1 && w[0] == 'x' &&
               std::all_of(w.begin() + 1, w.end(),
                           [](char c) { return std::isdigit(c); }))
        ins.c = std::stoi(std::string(w.substr(1)));
      else
        return bad(fmt::format("unsupported modifier .{} of `{}`", w, opcode));
    }
    if (ins.a < 0 || ins.c == 0)
      return bad(fmt::format("`{}` needs a shape and .xN", opcode));
    return true;
  }
  if (what == "wait::ld" || what == "wait::st") {
    ins.op = what == "wait::ld" ? OpKind::TcWaitLd : OpKind::TcWaitSt;
    return only(m, {});
  }
  if (what == "fence::before_thread_sync" ||
      what == "fence::after_thread_sync") {
    ins.op = OpKind::TcFence;
    return only(m, {});
  }
  return bad(fmt::format("unknown instruction `{}`", opcode));
}

bool Decoder::decode() {
  std::size_t start = 0;
  for (std::size_t i = 0; i <= opcode.size(); ++i)
    if (i == opcode.size() || opcode[i] == '.') {
      parts.push_back(opcode.substr(start, i - start));
      start = i + 1;
    }
  std::string_view base = parts[0];
  Mods m = splitMods(parts, 1);
  if (base == "mov") {
    ins.op = OpKind::Mov;
    return oneType(m) && only(m, {});
  }
  if (base == "selp") {
    ins.op = OpKind::Selp;
    return oneType(m) && only(m, {});
  }
  if (base == "setp") {
    ins.op = OpKind::Setp;
    if (!m.cmp)
      return bad(fmt::format("`{}` without a comparison", opcode));
    ins.cmp = *m.cmp;
    // A second cmp-like word ("and", "or", "xor") is the bool op.
    std::vector<std::string_view> rest;
    for (std::string_view w : m.words) {
      if (w == "and")
        ins.boolOp = 1;
      else if (w == "or")
        ins.boolOp = 2;
      else if (w == "xor")
        ins.boolOp = 3;
      else
        rest.push_back(w);
    }
    m.words = rest;
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
    ins.op = OpKind::Cvta;
    if (m.has("to"))
      ins.op = OpKind::CvtaTo;
    if (!m.space)
      return bad(fmt::format("`{}` without a state space", opcode));
    ins.space = *m.space;
    return oneType(m) && only(m, {"to"});
  }
  if (base == "ld" || base == "st" || base == "atom" || base == "red")
    return decodeMem(base, m);
  if (base == "prefetch" || base == "prefetchu") {
    ins.op = m.has("tensormap") ? OpKind::PrefetchTensormap : OpKind::Prefetch;
    return only(m, {"tensormap", "L1", "L2"});
  }
  if (base == "bra") {
    ins.op = OpKind::Bra;
    return only(m, {});
  }
  if (base == "ret" || base == "exit") {
    ins.op = base == "ret" ? OpKind::Ret : OpKind::Exit;
    return only(m, {});
  }
  if (base == "bar" || base == "barrier") {
    if (parts.size() > 1 && parts[1] == "cluster") {
      if (m.has("arrive")) {
        ins.op = OpKind::BarrierClusterArrive;
        return only(m, {"arrive"});
      }
      if (m.has("wait")) {
        ins.op = OpKind::BarrierClusterWait;
        return only(m, {"wait"});
      }
      return bad(fmt::format("unknown instruction `{}`", opcode));
    }
    if (m.has("arrive")) {
      ins.op = OpKind::BarArrive;
      return only(m, {"arrive"});
    }
    if (m.has("sync") || parts.size() == 1 ||
        (parts.size() == 2 && parts[1] == "sync") ||
        std::find(parts.begin(), parts.end(), "sync") != parts.end()) {
      ins.op = OpKind::BarSync;
      return only(m, {});
    }
    return bad(fmt::format("unsupported barrier `{}`", opcode));
  }
  if (base == "fence" || base == "membar") {
    ins.op = OpKind::Fence;
    for (std::string_view p : parts)
      if (p.rfind("proxy", 0) == 0)
        ins.flag = parts.size() > 2 && parts[2].rfind("async", 0) == 0;
    return true;
  }
  if (base == "elect") {
    ins.op = OpKind::ElectSync;
    return only(m, {});
  }
  if (base == "setmaxnreg") {
    ins.op = OpKind::Setmaxnreg;
    ins.flag = m.has("inc");
    if (!m.has("inc") && !m.has("dec"))
      return bad(fmt::format("`{}` needs .inc or .dec", opcode));
    return only(m, {"inc", "dec"});
  }
  if (base == "griddepcontrol") {
    ins.op = m.has("wait") ? OpKind::GriddepWait : OpKind::GriddepLaunch;
    return only(m, {"wait", "launch_dependents"});
  }
  if (base == "shfl") {
    ins.op = OpKind::ShflSync;
    static const char *modes[] = {"up", "down", "bfly", "idx"};
    ins.a = -1;
    std::vector<std::string_view> rest;
    for (std::string_view w : m.words) {
      bool isMode = false;
      for (int i = 0; i < 4; ++i)
        if (w == modes[i]) {
          ins.a = i;
          isMode = true;
        }
      if (!isMode)
        rest.push_back(w);
    }
    m.words = rest;
    if (ins.a < 0)
      return bad(fmt::format("`{}` without a mode", opcode));
    return oneType(m) && only(m, {});
  }
  if (base == "vote") {
    ins.op = OpKind::VoteSync;
    static const char *modes[] = {"all", "any", "uni", "ballot"};
    ins.a = -1;
    for (std::string_view w : m.words)
      for (int i = 0; i < 4; ++i)
        if (w == modes[i])
          ins.a = i;
    if (ins.a < 0)
      return bad(fmt::format("`{}` without a mode", opcode));
    return oneType(m);
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
  if (base == "mbarrier")
    return decodeMbarrier(m);
  if (base == "cp" && parts.size() > 2 && parts[1] == "async")
    return decodeCpAsync();
  if (base == "ldmatrix" || base == "stmatrix") {
    ins.op = base == "ldmatrix" ? OpKind::Ldmatrix : OpKind::Stmatrix;
    ins.trans = m.has("trans");
    ins.space = m.space.value_or(SpaceKind::Generic);
    ins.a = 0;
    for (std::string_view w : m.words)
      if (w == "x1" || w == "x2" || w == "x4")
        ins.a = w[1] - '0';
    if (!m.has("m8n8") || ins.a == 0 || m.types.size() != 1 ||
        m.types[0] != PtxType::B16)
      return bad(fmt::format("`{}`: only .m8n8.x1/x2/x4[.trans].b16 is "
                             "modelled",
                             opcode));
    if (ins.space != SpaceKind::Shared)
      return bad(
          fmt::format("`{}`: only the .shared form is modelled", opcode));
    return only(m, {"m8n8", "x1", "x2", "x4", "trans"});
  }
  if (base == "mma")
    return decodeMma(m);
  if (base == "wgmma")
    return decodeWgmma(m);
  if (base == "tcgen05")
    return decodeTcgen05();
  if (base == "nop" || base == "pmevent") {
    ins.op = OpKind::Nop;
    return true;
  }
  return decodeArith(base, m);
}

/// Minimum and maximum operand counts per op.
std::pair<unsigned, unsigned> operandCounts(const Instr &ins) {
  switch (ins.op) {
  case OpKind::Abs:
  case OpKind::Neg:
  case OpKind::Not:
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
  case OpKind::Cos:
  case OpKind::Mov:
  case OpKind::Cvta:
  case OpKind::CvtaTo:
    return {2, 2};
  case OpKind::Cvt:
    return {2, 3};
  case OpKind::Mad:
  case OpKind::MadHi:
  case OpKind::MadWide:
  case OpKind::Fma:
  case OpKind::Bfe:
  case OpKind::Selp:
    return {4, 4};
  case OpKind::Mapa:
    return {3, 3};
  case OpKind::Bfi:
    return {5, 5};
  case OpKind::Setp:
    return {3, 4};
  case OpKind::Ld:
  case OpKind::St:
    return {2, 3};
  case OpKind::Atom:
    return {3, 5};
  case OpKind::Red:
    return {2, 3};
  case OpKind::Prefetch:
  case OpKind::PrefetchTensormap:
    return {1, 1};
  case OpKind::Bra:
  case OpKind::Ret:
  case OpKind::Exit:
  case OpKind::Nop:
  case OpKind::Fence:
  case OpKind::BarrierClusterArrive:
  case OpKind::BarrierClusterWait:
  case OpKind::GriddepLaunch:
  case OpKind::GriddepWait:
  case OpKind::CpAsyncCommit:
  case OpKind::CpAsyncWaitAll:
  case OpKind::WgmmaFence:
  case OpKind::WgmmaCommit:
  case OpKind::BulkCommit:
  case OpKind::TcRelinquish:
  case OpKind::TcWaitLd:
  case OpKind::TcWaitSt:
  case OpKind::TcFence:
    return {0, 0};
  case OpKind::BarSync:
  case OpKind::BarArrive:
    return {ins.op == OpKind::BarSync ? 0u : 1u, 2};
  case OpKind::ElectSync:
  case OpKind::Activemask:
    return {ins.op == OpKind::Activemask ? 1u : 2u,
            ins.op == OpKind::Activemask ? 1u : 2u};
  case OpKind::Setmaxnreg:
  case OpKind::CpAsyncWait:
  case OpKind::WgmmaWait:
  case OpKind::BulkWait:
    return {1, 1};
  case OpKind::ShflSync:
    return {5, 5};
  case OpKind::VoteSync:
    return {3, 3};
  case OpKind::MbarInit:
  case OpKind::MbarExpectTx:
    return {2, 2};
  case OpKind::MbarInval:
    return {1, 1};
  case OpKind::MbarArrive:
    return {2, 3};
  case OpKind::MbarTryWait:
  case OpKind::MbarTestWait:
    return {3, 4};
  case OpKind::CpAsync:
    return {3, 5};
  case OpKind::Ldmatrix:
  case OpKind::Stmatrix:
    return {2, 2};
  case OpKind::MmaSync:
    return {4, 4};
  case OpKind::WgmmaMma:
    return {5, 9};
  case OpKind::TmaLoad:
    return {3, 5};
  case OpKind::TmaStore:
    return {2, 2};
  case OpKind::TcAlloc:
  case OpKind::TcDealloc:
  case OpKind::TcLd:
  case OpKind::TcSt:
    return {2, 2};
  case OpKind::TcMma:
    return {5, 7};
  case OpKind::TcCommit:
    return {1, 2};
  default:
    return {3, 3};
  }
}

bool isOperandKind(const Operand &o, std::initializer_list<OperandKind> ks) {
  return std::find(ks.begin(), ks.end(), o.kind) != ks.end();
}

} // namespace

void decodeOpcode(std::string_view opcode, Instr &ins, unsigned line,
                  std::string &error) {
  (void)line;
  Decoder d{opcode, ins, error, {}};
  if (!d.decode() && error.empty())
    error = fmt::format("unknown instruction `{}`", opcode);
}

/// Checks operand counts and kinds after the operands parsed.
void validateOperands(const Instr &ins, std::string_view opcode,
                      std::string &error) {
  auto [lo, hi] = operandCounts(ins);
  if (ins.ops.size() < lo || ins.ops.size() > hi) {
    error = lo == hi ? fmt::format("`{}` takes {} operands, not {}", opcode, lo,
                                   ins.ops.size())
                     : fmt::format("`{}` takes {} to {} operands, not {}",
                                   opcode, lo, hi, ins.ops.size());
    return;
  }
  auto need = [&](std::size_t i, std::initializer_list<OperandKind> ks,
                  const char *what) {
    if (error.empty() && i < ins.ops.size() && !isOperandKind(ins.ops[i], ks))
      error = fmt::format("operand {} of `{}` must be {}", i + 1, opcode, what);
  };
  using K = OperandKind;
  switch (ins.op) {
  case OpKind::Ld:
    need(0, {K::Reg, K::Vector}, "a register or a vector");
    need(1, {K::Address}, "an address");
    break;
  case OpKind::St:
    need(0, {K::Address}, "an address");
    need(1, {K::Reg, K::Vector, K::Imm}, "a value");
    break;
  case OpKind::Atom:
    need(0, {K::Reg}, "a register");
    need(1, {K::Address}, "an address");
    break;
  case OpKind::Red:
  case OpKind::MbarInit:
  case OpKind::MbarExpectTx:
  case OpKind::MbarInval:
  case OpKind::Prefetch:
  case OpKind::PrefetchTensormap:
  case OpKind::CpAsync:
  case OpKind::TcAlloc:
  case OpKind::TcSt:
    need(0, {K::Address}, "an address");
    break;
  case OpKind::MbarArrive:
  case OpKind::MbarTryWait:
  case OpKind::MbarTestWait:
  case OpKind::Ldmatrix:
  case OpKind::TcLd:
    need(1, {K::Address}, "an address");
    break;
  case OpKind::Stmatrix:
    need(0, {K::Address}, "an address");
    need(1, {K::Vector}, "a vector");
    break;
  case OpKind::MmaSync:
    for (int i = 0; i < 4; ++i)
      need(i, {K::Vector}, "a vector");
    break;
  case OpKind::WgmmaMma:
    need(0, {K::Vector}, "a vector");
    break;
  case OpKind::TmaLoad:
    need(0, {K::Address}, "an address");
    need(1, {K::Address}, "an address");
    need(2, {K::Address}, "an address");
    break;
  case OpKind::TmaStore:
    need(0, {K::Address}, "an address");
    need(1, {K::Address}, "an address");
    break;
  case OpKind::TcMma:
  case OpKind::TcCommit:
    need(0, {K::Address}, "an address");
    break;
  default:
    break;
  }
  if (error.empty() && !ins.ops.empty()) {
    // Destinations must be registers (or a sink / vector).
    switch (ins.op) {
    case OpKind::St:
    case OpKind::Red:
    case OpKind::Bra:
    case OpKind::Ret:
    case OpKind::MbarInit:
    case OpKind::MbarExpectTx:
    case OpKind::MbarInval:
    case OpKind::Prefetch:
    case OpKind::PrefetchTensormap:
    case OpKind::CpAsync:
    case OpKind::TmaLoad:
    case OpKind::TmaStore:
    case OpKind::Stmatrix:
    case OpKind::BarSync:
    case OpKind::BarArrive:
    case OpKind::Setmaxnreg:
    case OpKind::CpAsyncWait:
    case OpKind::WgmmaWait:
    case OpKind::BulkWait:
    case OpKind::TcAlloc:
    case OpKind::TcDealloc:
    case OpKind::TcMma:
    case OpKind::TcCommit:
    case OpKind::TcSt:
      break;
    default:
      need(0, {K::Reg, K::Vector, K::Sink}, "a destination register");
    }
  }
}

} // namespace tilec::sim
