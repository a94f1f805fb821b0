//===- runtime/sim/PtxEntryParser.cpp - The body of one .entry ------------===//
//
// Reads a kernel: its parameter list and performance directives, the
// register and variable declarations of each `{ }` scope (inline asm opens
// its own, with its own labels), and each statement, whose opcode is decoded
// (PtxOpcodes.h) before its operands are read and checked. Branches are
// resolved to instruction indices once the body is closed.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/PtxOpcodes.h"
#include "runtime/sim/PtxParserImpl.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace tilec::sim::ptxparse {

void PtxParser::parseEntry() {
  unsigned entryLine = line;
  std::string_view name = readWord();
  module.functions.emplace_back();
  fn = &module.functions.back();
  fn->name = std::string(name);
  scopes.clear();
  branches.clear();
  symbols.clear();
  sharedTop = 0;
  skipSpace();
  if (pos < source.size() && source[pos] == '(') {
    std::size_t start = ++pos;
    unsigned listLine = line;
    while (pos < source.size() && source[pos] != ')') {
      if (source[pos] == '\n')
        ++line;
      ++pos;
    }
    if (atEnd())
      fail(entryLine, "unterminated parameter list");
    parseParams(std::string_view(source.data() + start, pos - start), listLine);
    ++pos;
  }
  // Performance directives up to the body.
  while (true) {
    skipSpace();
    if (atEnd())
      fail(entryLine, fmt::format("entry `{}` without a body", fn->name));
    if (source[pos] == '{')
      break;
    unsigned dirLine = line;
    std::string_view w = readWord();
    std::vector<unsigned> nums;
    while (true) {
      skipSpace();
      std::size_t s = pos;
      while (pos < source.size() &&
             std::isdigit(static_cast<unsigned char>(source[pos])))
        ++pos;
      if (pos == s)
        break;
      // Every entry directive's numbers are thread, CTA or register
      // counts: more than 9 digits is a typo, not a count.
      std::string_view digits(source.data() + s, pos - s);
      if (digits.size() > 9)
        fail(dirLine, fmt::format("`{}` takes counts below 10^9, not `{}`", w,
                                  digits));
      nums.push_back(static_cast<unsigned>(*parseInt(digits)));
      skipSpace();
      if (pos < source.size() && source[pos] == ',')
        ++pos;
    }
    if (w == ".maxntid" || w == ".reqntid") {
      for (std::size_t i = 0; i < 3; ++i)
        fn->maxntid[i] = i < nums.size() ? nums[i] : 1;
    } else if (w == ".reqnctapercluster" || w == ".explicitcluster") {
      for (std::size_t i = 0; i < 3 && i < nums.size(); ++i)
        fn->reqnctapercluster[i] = nums[i];
    } else if (w == ".minnctapersm" || w == ".maxnreg" ||
               w == ".maxclusterrank" || w == ".noreturn" || w == ".pragma") {
      if (w == ".pragma")
        readStatement(dirLine);
    } else {
      fail(dirLine, fmt::format("unsupported entry directive `{}`", w));
    }
  }
  for (const PtxGlobal &g : module.globals)
    symbols[g.name] = {SpaceKind::Global, g.address};
  // Shared symbols: module static ones first, then externs after them.
  for (auto &[sname, ab] : moduleShared) {
    if (ab.second == ~0u)
      continue;
    sharedTop = (sharedTop + ab.first - 1) / ab.first * ab.first;
    symbols[sname] = {SpaceKind::Shared, sharedTop};
    sharedTop += ab.second;
  }
  ++pos; // '{'
  scopes.push_back(Scope{});
  currentScope = 0;
  parseBody();
  // Externs: the dynamic window starts after every static byte.
  resolveBranches();
  fn->staticShared = sharedTop;
  fn->declaredRegs = std::min(fn->declaredRegs, 255u);
  fn = nullptr;
}

void PtxParser::parseParams(std::string_view list, unsigned listLine) {
  std::size_t offset = 0;
  for (std::string_view p : splitTopLevel(list, ',')) {
    if (p.empty())
      continue;
    std::vector<std::string_view> words = splitWords(p);
    if (words.empty() || words[0] != ".param")
      fail(listLine, fmt::format("bad parameter `{}`", p));
    auto [align, bytes, name] = parseVarDecl(
        std::vector<std::string_view>(words.begin() + 1, words.end()),
        listLine);
    if (bytes == ~0u)
      fail(listLine, fmt::format("unsized parameter `{}`", name));
    offset = (offset + align - 1) / align * align;
    fn->params.push_back({name, offset, bytes, align});
    symbols[name] = {SpaceKind::Param, offset};
    offset += bytes;
  }
  fn->paramBytes = offset;
}

std::uint32_t PtxParser::newSlot(const std::string &name) {
  std::uint32_t slot = fn->numSlots++;
  fn->slotNames.push_back(name);
  scopes[currentScope].regs[name] = slot;
  return slot;
}

std::optional<std::uint32_t> PtxParser::findReg(std::string_view name) const {
  std::string key(name);
  for (int s = currentScope; s >= 0; s = scopes[s].parent) {
    auto it = scopes[s].regs.find(key);
    if (it != scopes[s].regs.end())
      return it->second;
  }
  return std::nullopt;
}

void PtxParser::parseBody() {
  while (true) {
    skipSpace();
    if (atEnd())
      fail(line, "unterminated function body");
    char c = source[pos];
    if (c == '}') {
      ++pos;
      currentScope = scopes[currentScope].parent;
      if (currentScope < 0)
        return;
      continue;
    }
    if (c == '{') {
      ++pos;
      Scope s;
      s.parent = currentScope;
      scopes.push_back(std::move(s));
      currentScope = static_cast<int>(scopes.size()) - 1;
      continue;
    }
    // A line directive (`.loc 1 20 1`, no semicolon): the profile's source
    // lines come from the PTX text itself, so the interpreter skips it.
    if (source.compare(pos, 4, ".loc") == 0 && pos + 4 < source.size() &&
        (source[pos + 4] == ' ' || source[pos + 4] == '\t')) {
      while (pos < source.size() && source[pos] != '\n')
        ++pos;
      continue;
    }
    // A label?
    std::size_t save = pos;
    std::size_t e = pos;
    while (e < source.size() &&
           (std::isalnum(static_cast<unsigned char>(source[e])) ||
            source[e] == '_' || source[e] == '$' || source[e] == '.'))
      ++e;
    std::size_t after = e;
    while (after < source.size() &&
           (source[after] == ' ' || source[after] == '\t'))
      ++after;
    if (e > save && source[save] != '.' && after < source.size() &&
        source[after] == ':' &&
        (after + 1 >= source.size() || source[after + 1] != ':')) {
      std::string label(source.data() + save, e - save);
      scopes[currentScope].labels[label] =
          static_cast<std::uint32_t>(fn->code.size());
      pos = after + 1;
      continue;
    }
    unsigned stmtLine;
    std::string_view stmt = readStatement(stmtLine);
    if (stmt.empty())
      continue;
    if (stmt[0] == '.')
      parseDeclaration(stmt, stmtLine);
    else
      parseInstruction(stmt, stmtLine);
  }
}

void PtxParser::parseDeclaration(std::string_view stmt, unsigned stmtLine) {
  std::vector<std::string_view> words = splitWords(stmt);
  if (words[0] == ".pragma")
    return;
  if (words[0] == ".reg") {
    if (words.size() < 3)
      fail(stmtLine, "bad .reg declaration");
    std::size_t i = 1;
    PtxType type = PtxType::None;
    for (; i < words.size() && words[i][0] == '.'; ++i) {
      if (words[i] == ".v2" || words[i] == ".v4")
        fail(stmtLine, "vector registers are not supported");
      std::optional<PtxType> t = ptxTypeFromName(words[i].substr(1));
      if (!t)
        fail(stmtLine, fmt::format("unknown register type `{}`", words[i]));
      type = *t;
    }
    std::string rest;
    for (; i < words.size(); ++i)
      rest += words[i];
    unsigned words32 = type == PtxType::Pred    ? 0
                       : ptxTypeBits(type) > 64 ? 4
                       : ptxTypeBits(type) > 32 ? 2
                                                : 1;
    for (std::string_view n : splitTopLevel(rest, ',')) {
      std::size_t lt = n.find('<');
      if (lt == std::string_view::npos) {
        newSlot(std::string(n));
        // A .b128 register: its high 64 bits in the next slot.
        if (type == PtxType::B128)
          newSlot(std::string(n) + "$hi");
        fn->declaredRegs += words32;
        continue;
      }
      if (type == PtxType::B128)
        fail(stmtLine, fmt::format("a range of .b128 registers `{}` is not "
                                   "supported; declare them one by one",
                                   n));
      std::string base(n.substr(0, lt));
      std::string_view cnt = n.substr(lt + 1);
      if (cnt.empty() || cnt.back() != '>')
        fail(stmtLine, fmt::format("bad register range `{}`", n));
      cnt.remove_suffix(1);
      std::optional<std::int64_t> v = parseInt(cnt);
      if (!v || *v < 0 || *v > (1 << 20))
        fail(stmtLine, fmt::format("bad register count `{}`", n));
      for (std::int64_t k = 0; k < *v; ++k)
        newSlot(base + std::to_string(k));
      fn->declaredRegs += words32 * static_cast<unsigned>(*v);
    }
    return;
  }
  if (words[0] == ".local" || words[0] == ".shared") {
    auto [align, bytes, name] = parseVarDecl(
        std::vector<std::string_view>(words.begin() + 1, words.end()),
        stmtLine);
    if (bytes == ~0u)
      fail(stmtLine, "unsized declaration inside a function");
    if (words[0] == ".local") {
      fn->localBytes = (fn->localBytes + align - 1) / align * align;
      symbols[name] = {SpaceKind::Local, fn->localBytes};
      fn->localBytes += bytes;
    } else {
      sharedTop = (sharedTop + align - 1) / align * align;
      symbols[name] = {SpaceKind::Shared, sharedTop};
      sharedTop += bytes;
    }
    return;
  }
  // A call's argument (OpKind::CallArg): nothing the kernel reads.
  if (words[0] == ".param")
    return;
  fail(stmtLine, fmt::format("unsupported declaration `{}`", words[0]));
}

void PtxParser::resolveBranches() {
  for (const PendingBranch &b : branches) {
    bool found = false;
    for (int s = b.scope; s >= 0 && !found; s = scopes[s].parent) {
      auto it = scopes[s].labels.find(b.label);
      if (it != scopes[s].labels.end()) {
        fn->code[b.instr].target = it->second;
        found = true;
      }
    }
    if (!found)
      fail(b.line, fmt::format("branch to undefined label `{}`", b.label));
  }
  // The extern shared symbols were given offsets when first used; make sure
  // the static size covers module statics.
}

void PtxParser::parseInstruction(std::string_view stmt, unsigned stmtLine) {
  Instr ins;
  ins.line = stmtLine;
  ins.textId = static_cast<std::uint32_t>(fn->texts.size());
  {
    std::string text;
    bool space = false;
    for (char c : stmt) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        space = true;
        continue;
      }
      if (space && !text.empty())
        text += ' ';
      space = false;
      text += c;
    }
    fn->texts.push_back(text + ";");
  }
  std::string_view s = stmt;
  if (s[0] == '@') {
    s.remove_prefix(1);
    if (!s.empty() && s[0] == '!') {
      ins.negGuard = true;
      s.remove_prefix(1);
    }
    std::size_t e = 0;
    while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e])))
      ++e;
    std::optional<std::uint32_t> g = findReg(s.substr(0, e));
    if (!g)
      fail(stmtLine,
           fmt::format("undeclared guard predicate `{}`", s.substr(0, e)));
    ins.hasGuard = true;
    ins.guard = *g;
    s = trimSpace(s.substr(e));
  }
  // The opcode ends at a space or the first operand's brace or bracket
  // (nvcc writes `tcgen05.ld.sync.aligned.32x32b.x8.b32{%r1, ...}, [%r9]`
  // and `tcgen05.st.sync.aligned.32x32b.x16.b32[%r9],{...}`).
  std::size_t e = 0;
  while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e])) &&
         s[e] != '{' && s[e] != '[')
    ++e;
  std::string_view opcode = s.substr(0, e);
  std::string_view rest = trimSpace(s.substr(e));
  std::string error;
  decodeOpcode(opcode, ins, stmtLine, error);
  if (!error.empty())
    fail(stmtLine, error);
  if (ins.op == OpKind::Call || ins.op == OpKind::CallArg) {
    // The callee, its argument list and the argument stores' parameters
    // are not resolved: the call stops the kernel if it runs.
  } else if (ins.op == OpKind::Bra) {
    if (rest.empty())
      fail(stmtLine, "bra without a target");
    branches.push_back(
        {fn->code.size(), currentScope, std::string(rest), stmtLine});
  } else if (!rest.empty()) {
    for (std::string_view o : splitTopLevel(rest, ','))
      ins.ops.push_back(parseOperand(o, ins, stmtLine));
    validateOperands(ins, opcode, error);
    if (!error.empty())
      fail(stmtLine, error);
  } else {
    validateOperands(ins, opcode, error);
    if (!error.empty())
      fail(stmtLine, error);
  }
  fn->code.push_back(std::move(ins));
}

} // namespace tilec::sim::ptxparse
