//===- runtime/sim/PtxOperandParser.cpp - One instruction operand ---------===//
//
// An operand is a register (looked up through the enclosing scopes), a
// special register, `_`, an integer or 0f/0d float literal, a symbol (its
// address in its state space), a `[base+offset]` address (with `{ }` tensor
// coordinates for TMA), or a `{ }` / `|` vector of values.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/PtxParserImpl.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace tilec::sim::ptxparse {

namespace {

struct SregName {
  const char *name;
  SpecialRegKind kind;
};
constexpr SregName SregNames[] = {
    {"%tid.x", SpecialRegKind::TidX},
    {"%tid.y", SpecialRegKind::TidY},
    {"%tid.z", SpecialRegKind::TidZ},
    {"%ntid.x", SpecialRegKind::NtidX},
    {"%ntid.y", SpecialRegKind::NtidY},
    {"%ntid.z", SpecialRegKind::NtidZ},
    {"%ctaid.x", SpecialRegKind::CtaidX},
    {"%ctaid.y", SpecialRegKind::CtaidY},
    {"%ctaid.z", SpecialRegKind::CtaidZ},
    {"%nctaid.x", SpecialRegKind::NctaidX},
    {"%nctaid.y", SpecialRegKind::NctaidY},
    {"%nctaid.z", SpecialRegKind::NctaidZ},
    {"%clusterid.x", SpecialRegKind::ClusteridX},
    {"%clusterid.y", SpecialRegKind::ClusteridY},
    {"%clusterid.z", SpecialRegKind::ClusteridZ},
    {"%nclusterid.x", SpecialRegKind::NclusteridX},
    {"%nclusterid.y", SpecialRegKind::NclusteridY},
    {"%nclusterid.z", SpecialRegKind::NclusteridZ},
    {"%cluster_ctaid.x", SpecialRegKind::ClusterCtaidX},
    {"%cluster_ctaid.y", SpecialRegKind::ClusterCtaidY},
    {"%cluster_ctaid.z", SpecialRegKind::ClusterCtaidZ},
    {"%cluster_nctaid.x", SpecialRegKind::ClusterNctaidX},
    {"%cluster_nctaid.y", SpecialRegKind::ClusterNctaidY},
    {"%cluster_nctaid.z", SpecialRegKind::ClusterNctaidZ},
    {"%cluster_ctarank", SpecialRegKind::ClusterCtarank},
    {"%cluster_nctarank", SpecialRegKind::ClusterNctarank},
    {"%laneid", SpecialRegKind::Laneid},
    {"%warpid", SpecialRegKind::Warpid},
    {"%nwarpid", SpecialRegKind::Nwarpid},
    {"%smid", SpecialRegKind::Smid},
    {"%nsmid", SpecialRegKind::Nsmid},
    {"%lanemask_eq", SpecialRegKind::LanemaskEq},
    {"%lanemask_lt", SpecialRegKind::LanemaskLt},
    {"%lanemask_le", SpecialRegKind::LanemaskLe},
    {"%lanemask_gt", SpecialRegKind::LanemaskGt},
    {"%lanemask_ge", SpecialRegKind::LanemaskGe},
    {"%clock", SpecialRegKind::Clock},
    {"%clock64", SpecialRegKind::Clock64},
    {"%globaltimer", SpecialRegKind::Globaltimer},
    {"%dynamic_smem_size", SpecialRegKind::DynamicSmemSize},
    {"%total_smem_size", SpecialRegKind::TotalSmemSize}};

} // namespace

Operand PtxParser::parseValue(std::string_view s, unsigned stmtLine) {
  Operand op;
  s = trimSpace(s);
  if (s.empty())
    fail(stmtLine, "empty operand");
  if (s == "_") {
    op.kind = OperandKind::Sink;
    return op;
  }
  if (s[0] == '!') {
    op = parseValue(s.substr(1), stmtLine);
    if (op.kind != OperandKind::Reg)
      fail(stmtLine, fmt::format("`!` applies to predicates, not `{}`", s));
    op.neg = true;
    return op;
  }
  if (s[0] == '%') {
    for (const SregName &r : SregNames)
      if (s == r.name) {
        op.kind = OperandKind::Special;
        op.special = r.kind;
        return op;
      }
  }
  if (std::optional<std::uint32_t> slot = findReg(s)) {
    op.kind = OperandKind::Reg;
    op.reg = *slot;
    return op;
  }
  if (s.size() > 2 && s[0] == '0' &&
      (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
    std::optional<std::int64_t> v =
        parseInt(std::string("0x") + std::string(s.substr(2)));
    if (!v)
      fail(stmtLine, fmt::format("bad float literal `{}`", s));
    op.kind = OperandKind::Imm;
    op.imm = *v;
    return op;
  }
  if (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-') {
    std::optional<std::int64_t> v = parseInt(s);
    if (!v)
      fail(stmtLine, fmt::format("bad integer literal `{}`", s));
    op.kind = OperandKind::Imm;
    op.imm = *v;
    return op;
  }
  // A symbol: its address in its state space.
  auto it = symbols.find(std::string(s));
  if (it == symbols.end()) {
    for (auto &[name, ab] : moduleShared)
      if (name == s && ab.second == ~0u) {
        // Dynamic shared memory starts after the static bytes; it is
        // aligned like the declaration asks.
        unsigned off = (sharedTop + ab.first - 1) / ab.first * ab.first;
        sharedTop = std::max(sharedTop, off);
        symbols[name] = {SpaceKind::Shared, off};
        it = symbols.find(name);
      }
  }
  if (it == symbols.end())
    fail(stmtLine, fmt::format("undeclared register or symbol `{}`", s));
  op.kind = OperandKind::Imm;
  op.imm = static_cast<std::int64_t>(it->second.address);
  op.sharedSymbol = it->second.space == SpaceKind::Shared;
  return op;
}

Operand PtxParser::parseAddress(std::string_view s, Instr &ins,
                                unsigned stmtLine) {
  // s is the inside of [ ].
  Operand op;
  op.kind = OperandKind::Address;
  std::vector<std::string_view> parts = splitTopLevel(s, ',');
  if (parts.empty())
    fail(stmtLine, "empty address");
  if (parts.size() == 2) {
    std::string_view coords = trimSpace(parts[1]);
    if (coords.size() < 2 || coords.front() != '{' || coords.back() != '}')
      fail(stmtLine, fmt::format("bad tensor coordinates `{}`", coords));
    std::vector<std::string_view> cs =
        splitTopLevel(coords.substr(1, coords.size() - 2), ',');
    op.elemBegin = static_cast<std::uint32_t>(ins.elems.size());
    op.elemCount = static_cast<std::uint32_t>(cs.size());
    for (std::string_view c : cs)
      ins.elems.push_back(parseValue(c, stmtLine));
  } else if (parts.size() > 2) {
    fail(stmtLine, fmt::format("bad address `[{}]`", s));
  }
  std::string_view a = trimSpace(parts[0]);
  // base [+|-] offset
  std::size_t split = std::string_view::npos;
  for (std::size_t i = 1; i < a.size(); ++i)
    if (a[i] == '+' || (a[i] == '-' && a[i - 1] != '+')) {
      split = i;
      break;
    }
  std::string_view base = trimSpace(a.substr(0, split));
  std::int64_t offset = 0;
  if (split != std::string_view::npos) {
    std::string_view off = trimSpace(a.substr(split));
    if (off[0] == '+')
      off.remove_prefix(1);
    std::optional<std::int64_t> v = parseInt(off);
    if (!v)
      fail(stmtLine, fmt::format("bad address offset `{}`", off));
    offset = *v;
  }
  Operand b = parseValue(base, stmtLine);
  if (b.kind == OperandKind::Reg) {
    op.hasBase = true;
    op.reg = b.reg;
    op.imm = offset;
  } else if (b.kind == OperandKind::Imm) {
    op.imm = b.imm + offset;
    op.sharedSymbol = b.sharedSymbol;
  } else {
    fail(stmtLine, fmt::format("bad address base `{}`", base));
  }
  return op;
}

Operand PtxParser::parseOperand(std::string_view s, Instr &ins,
                                unsigned stmtLine) {
  s = trimSpace(s);
  if (s.empty())
    fail(stmtLine, "empty operand");
  if (s.front() == '[') {
    if (s.back() != ']')
      fail(stmtLine, fmt::format("bad address `{}`", s));
    return parseAddress(s.substr(1, s.size() - 2), ins, stmtLine);
  }
  if (s.front() == '{' || s.find('|') != std::string_view::npos) {
    std::vector<std::string_view> items;
    if (s.front() == '{') {
      if (s.back() != '}')
        fail(stmtLine, fmt::format("bad vector `{}`", s));
      items = splitTopLevel(s.substr(1, s.size() - 2), ',');
    } else {
      items = splitTopLevel(s, '|');
    }
    Operand op;
    op.kind = OperandKind::Vector;
    op.elemBegin = static_cast<std::uint32_t>(ins.elems.size());
    op.elemCount = static_cast<std::uint32_t>(items.size());
    std::vector<Operand> vals;
    for (std::string_view it : items)
      vals.push_back(parseValue(it, stmtLine));
    ins.elems.insert(ins.elems.end(), vals.begin(), vals.end());
    return op;
  }
  return parseValue(s, stmtLine);
}

} // namespace tilec::sim::ptxparse
