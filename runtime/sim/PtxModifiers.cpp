//===- runtime/sim/PtxModifiers.cpp - The dotted words of an opcode -------===//
//
// Sorts the words after an opcode's base ("global", "v4", "b32", "rn",
// "lt", "L2::cache_hint") into the decoded fields: types, state spaces, a
// comparison, a rounding mode, a vector width. Memory-order, scope and cache
// hints that the simulator has no use for are dropped here; everything else
// is left for the family's decoder to accept or reject.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/PtxDecoder.h"
#include "runtime/sim/PtxText.h"

#include <cctype>

namespace tilec::sim::ptxdecode {

namespace {

const std::pair<const char *, CmpKind> CmpNames[] = {
    {"eq", CmpKind::Eq},   {"ne", CmpKind::Ne},   {"lt", CmpKind::Lt},
    {"le", CmpKind::Le},   {"gt", CmpKind::Gt},   {"ge", CmpKind::Ge},
    {"lo", CmpKind::Lo},   {"ls", CmpKind::Ls},   {"hi", CmpKind::Hi},
    {"hs", CmpKind::Hs},   {"equ", CmpKind::Equ}, {"neu", CmpKind::Neu},
    {"ltu", CmpKind::Ltu}, {"leu", CmpKind::Leu}, {"gtu", CmpKind::Gtu},
    {"geu", CmpKind::Geu}, {"num", CmpKind::Num}, {"nan", CmpKind::Nan}};

const std::pair<const char *, RoundKind> RoundNames[] = {
    {"rn", RoundKind::Rn},   {"rz", RoundKind::Rz},   {"rm", RoundKind::Rm},
    {"rp", RoundKind::Rp},   {"rni", RoundKind::Rni}, {"rzi", RoundKind::Rzi},
    {"rmi", RoundKind::Rmi}, {"rpi", RoundKind::Rpi}};

const std::pair<const char *, SpaceKind> SpaceNames[] = {
    {"global", SpaceKind::Global},
    {"shared", SpaceKind::Shared},
    {"shared::cta", SpaceKind::Shared},
    {"shared::cluster", SpaceKind::SharedCluster},
    {"param", SpaceKind::Param},
    {"param::entry", SpaceKind::Param},
    {"local", SpaceKind::Local},
    {"const", SpaceKind::Const}};

const std::pair<const char *, unsigned> VectorNames[] = {
    {"v2", 2}, {"v4", 4}, {"v8", 8}};

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

} // namespace

int Mods::take(std::initializer_list<std::string_view> modes) {
  int found = -1;
  std::vector<std::string_view> rest;
  for (std::string_view w : words) {
    auto it = std::find(modes.begin(), modes.end(), w);
    if (it == modes.end())
      rest.push_back(w);
    else
      found = static_cast<int>(it - modes.begin());
  }
  words = std::move(rest);
  return found;
}

Mods splitMods(const std::vector<std::string_view> &parts, std::size_t from) {
  Mods m;
  bool allowCmp = parts[0] == "setp";
  for (std::size_t i = from; i < parts.size(); ++i) {
    std::string_view p = parts[i];
    if (std::optional<PtxType> t = ptxTypeFromName(p))
      m.types.push_back(*t);
    else if (std::optional<SpaceKind> s = lookupName(p, SpaceNames)) {
      if (!m.space)
        m.space = *s;
      else
        m.space2 = *s;
    } else if (std::optional<CmpKind> c = lookupName(p, CmpNames);
               allowCmp && c && !m.cmp)
      m.cmp = *c;
    else if (std::optional<RoundKind> r = lookupName(p, RoundNames))
      m.round = *r;
    else if (std::optional<unsigned> v = lookupName(p, VectorNames))
      m.vec = *v;
    else if (!isIgnorable(p))
      m.words.push_back(p);
  }
  return m;
}

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

std::optional<OpKind> findOp(std::string_view name,
                             std::initializer_list<NamedOp> ops) {
  for (const NamedOp &o : ops)
    if (name == o.name)
      return o.op;
  return std::nullopt;
}

} // namespace tilec::sim::ptxdecode
