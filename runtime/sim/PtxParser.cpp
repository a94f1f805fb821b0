//===- runtime/sim/PtxParser.cpp - PTX text to the decoded program -------===//
//
// A hand-written scanner over the PTX text (comments blanked first, line
// numbers kept), a statement splitter that understands the `{ }` scopes of
// inline asm, and one decoding function per instruction family that turns
// the dotted opcode into an OpKind with its types and modifiers, rejecting
// modifiers it does not model.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/PtxParser.h"

#include "runtime/sim/SimMemory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>

namespace tilec::sim {

unsigned ptxTypeBits(PtxType type) {
  switch (type) {
  case PtxType::None:
    return 0;
  case PtxType::Pred:
    return 1;
  case PtxType::B8:
  case PtxType::U8:
  case PtxType::S8:
  case PtxType::E4M3:
  case PtxType::E5M2:
    return 8;
  case PtxType::B16:
  case PtxType::U16:
  case PtxType::S16:
  case PtxType::F16:
  case PtxType::BF16:
  case PtxType::E4M3x2:
  case PtxType::E5M2x2:
    return 16;
  case PtxType::B32:
  case PtxType::U32:
  case PtxType::S32:
  case PtxType::F32:
  case PtxType::F16x2:
  case PtxType::BF16x2:
  case PtxType::TF32:
    return 32;
  case PtxType::B64:
  case PtxType::U64:
  case PtxType::S64:
  case PtxType::F64:
    return 64;
  case PtxType::B128:
    return 128;
  }
  return 0;
}

bool ptxTypeIsSigned(PtxType type) {
  return type == PtxType::S8 || type == PtxType::S16 || type == PtxType::S32 ||
         type == PtxType::S64;
}

bool ptxTypeIsFloat(PtxType type) {
  switch (type) {
  case PtxType::F16:
  case PtxType::F16x2:
  case PtxType::BF16:
  case PtxType::BF16x2:
  case PtxType::TF32:
  case PtxType::F32:
  case PtxType::F64:
  case PtxType::E4M3:
  case PtxType::E5M2:
  case PtxType::E4M3x2:
  case PtxType::E5M2x2:
    return true;
  default:
    return false;
  }
}

namespace {

struct TypeName {
  const char *name;
  PtxType type;
};
constexpr TypeName TypeNames[] = {
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

std::optional<PtxType> lookupType(std::string_view s) {
  for (const TypeName &t : TypeNames)
    if (s == t.name)
      return t.type;
  return std::nullopt;
}

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

/// A user-visible parse error.
struct ParseError {
  unsigned line;
  std::string message;
};

[[noreturn]] void fail(unsigned line, std::string message) {
  throw ParseError{line, std::move(message)};
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> splitTopLevel(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '[' || c == '{' || c == '(')
      ++depth;
    else if (c == ']' || c == '}' || c == ')')
      --depth;
    else if (c == sep && depth == 0) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string_view last = trim(s.substr(start));
  if (!last.empty() || !out.empty())
    out.push_back(last);
  return out;
}

std::optional<std::int64_t> parseInt(std::string_view s) {
  s = trim(s);
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty())
    return std::nullopt;
  if (!s.empty() && (s.back() == 'U' || s.back() == 'u'))
    s.remove_suffix(1);
  std::uint64_t v = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    for (char c : s.substr(2)) {
      int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
              : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
              : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                          : -1;
      if (d < 0)
        return std::nullopt;
      v = v * 16 + d;
    }
  } else {
    for (char c : s) {
      if (!std::isdigit(static_cast<unsigned char>(c)))
        return std::nullopt;
      v = v * 10 + (c - '0');
    }
  }
  return neg ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
}

/// A register scope ({ } of inline asm or the function body).
struct Scope {
  std::unordered_map<std::string, std::uint32_t> regs;
  std::unordered_map<std::string, std::uint32_t> labels;
  int parent = -1;
};

/// A branch waiting for its label.
struct PendingBranch {
  std::size_t instr;
  int scope;
  std::string label;
  unsigned line;
};

/// Symbols of a state space with addresses.
struct Symbol {
  SpaceKind space;
  std::uint64_t address;
};

class Parser {
public:
  Parser(std::string_view text, PtxModule &module) : module(module) {
    source.assign(text.begin(), text.end());
    blankComments();
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i)
      if (i == text.size() || text[i] == '\n') {
        lines.emplace_back(text.substr(start, i - start));
        start = i + 1;
      }
  }

  void run();
  std::string lineText(unsigned line) const {
    if (line == 0 || line > lines.size())
      return "";
    return std::string(trim(lines[line - 1]));
  }

private:
  PtxModule &module;
  std::string source;
  std::vector<std::string_view> lines;
  std::size_t pos = 0;
  unsigned line = 1;
  /// Module-scope .shared symbols: name -> (offset or extern), static bytes.
  std::vector<std::pair<std::string, std::pair<unsigned, unsigned>>>
      moduleShared; // name, (align, size or ~0u for extern)
  // Per-function state.
  PtxFunction *fn = nullptr;
  std::vector<Scope> scopes;
  int currentScope = -1;
  std::vector<PendingBranch> branches;
  std::map<std::string, Symbol> symbols;
  unsigned sharedTop = 0;

  void blankComments();
  void skipSpace();
  bool atEnd() const { return pos >= source.size(); }
  std::string_view readStatement(unsigned &startLine);
  std::string_view readWord();
  void parseModuleDirective(std::string_view stmt, unsigned stmtLine);
  void parseModuleGlobal(std::string_view stmt, unsigned stmtLine);
  void parseEntry();
  void parseParams(std::string_view list, unsigned stmtLine);
  void parseBody();
  void parseDeclaration(std::string_view stmt, unsigned stmtLine);
  void parseInstruction(std::string_view stmt, unsigned stmtLine);
  void resolveBranches();
  std::uint32_t newSlot(const std::string &name);
  std::optional<std::uint32_t> findReg(std::string_view name) const;
  Operand parseOperand(std::string_view s, Instr &ins, unsigned stmtLine);
  Operand parseValue(std::string_view s, unsigned stmtLine);
  Operand parseAddress(std::string_view s, Instr &ins, unsigned stmtLine);
};

void Parser::blankComments() {
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '"') {
      // Strings do not occur in the PTX we read; leave them.
      continue;
    }
    if (source.compare(i, 2, "//") == 0) {
      while (i < source.size() && source[i] != '\n')
        source[i++] = ' ';
    } else if (source.compare(i, 2, "/*") == 0) {
      while (i < source.size() && source.compare(i, 2, "*/") != 0) {
        if (source[i] != '\n')
          source[i] = ' ';
        ++i;
      }
      if (i < source.size()) {
        source[i] = ' ';
        source[i + 1] = ' ';
        ++i;
      }
    }
  }
}

void Parser::skipSpace() {
  while (pos < source.size() &&
         std::isspace(static_cast<unsigned char>(source[pos]))) {
    if (source[pos] == '\n')
      ++line;
    ++pos;
  }
}

std::string_view Parser::readStatement(unsigned &startLine) {
  skipSpace();
  startLine = line;
  std::size_t start = pos;
  while (pos < source.size() && source[pos] != ';') {
    if (source[pos] == '\n')
      ++line;
    ++pos;
  }
  if (pos >= source.size())
    fail(startLine, "statement without a terminating `;`");
  std::string_view s(source.data() + start, pos - start);
  ++pos;
  return trim(s);
}

std::string_view Parser::readWord() {
  skipSpace();
  std::size_t start = pos;
  while (pos < source.size() &&
         !std::isspace(static_cast<unsigned char>(source[pos])) &&
         source[pos] != '(' && source[pos] != '{' && source[pos] != ';' &&
         source[pos] != ',')
    ++pos;
  return std::string_view(source.data() + start, pos - start);
}

void Parser::run() {
  while (true) {
    skipSpace();
    if (atEnd())
      return;
    std::size_t save = pos;
    unsigned saveLine = line;
    std::string_view w = readWord();
    if (w == ".version" || w == ".target" || w == ".address_size") {
      while (pos < source.size() && source[pos] != '\n')
        ++pos;
      continue;
    }
    if (w == ".visible" || w == ".weak") {
      skipSpace();
      save = pos;
      saveLine = line;
      w = readWord();
    }
    if (w == ".entry") {
      parseEntry();
      continue;
    }
    if (w == ".func")
      fail(saveLine, "device functions (.func) are not supported; the "
                     "simulator runs kernels without calls");
    pos = save;
    line = saveLine;
    unsigned stmtLine;
    std::string_view stmt = readStatement(stmtLine);
    parseModuleDirective(stmt, stmtLine);
  }
}

/// Parses "[.align N] .type name[size]" declarations; returns (align, bytes,
/// name); bytes is ~0u for "name[]".
std::tuple<unsigned, unsigned, std::string>
parseVarDecl(std::vector<std::string_view> words, unsigned stmtLine) {
  unsigned align = 0, elemBytes = 0;
  std::string name;
  unsigned count = 1;
  bool unsized = false;
  // In `.param .u64 .ptr .global .align 1 p`, the .align after .ptr is the
  // pointee's alignment, not the parameter's (which stays the type's).
  bool afterPtr = false;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string_view w = words[i];
    if (w == ".align" && i + 1 < words.size()) {
      unsigned value =
          static_cast<unsigned>(parseInt(words[++i]).value_or(1));
      if (!afterPtr)
        align = value;
    } else if (w == ".ptr") {
      afterPtr = true;
    } else if (w == ".global" || w == ".shared" ||
               w == ".const" || w == ".local") {
      continue;
    } else if (!w.empty() && w[0] == '.') {
      std::optional<PtxType> t = lookupType(w.substr(1));
      if (!t)
        fail(stmtLine, fmt::format("unknown declaration modifier `{}`", w));
      elemBytes = std::max(1u, ptxTypeBits(*t) / 8);
    } else {
      std::size_t br = w.find('[');
      if (br == std::string_view::npos) {
        name = std::string(w);
      } else {
        name = std::string(w.substr(0, br));
        std::string_view n = w.substr(br + 1);
        if (!n.empty() && n.back() == ']')
          n.remove_suffix(1);
        if (n.empty())
          unsized = true;
        else {
          std::optional<std::int64_t> v = parseInt(n);
          if (!v || *v < 0)
            fail(stmtLine, fmt::format("bad array size in `{}`", w));
          count = static_cast<unsigned>(*v);
        }
      }
    }
  }
  if (name.empty() || elemBytes == 0)
    fail(stmtLine, "declaration without a type or a name");
  if (align == 0)
    align = elemBytes;
  return {align, unsized ? ~0u : elemBytes * count, name};
}

std::vector<std::string_view> splitWords(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
      ++i;
    std::size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])))
      ++i;
    if (i > start)
      out.push_back(s.substr(start, i - start));
  }
  return out;
}

void Parser::parseModuleDirective(std::string_view stmt, unsigned stmtLine) {
  std::vector<std::string_view> words = splitWords(stmt);
  if (words.empty())
    return;
  std::size_t first = 0;
  if (words[0] == ".extern" || words[0] == ".visible" || words[0] == ".weak")
    first = 1;
  if (first < words.size() && words[first] == ".shared") {
    auto [align, bytes, name] = parseVarDecl(
        std::vector<std::string_view>(words.begin() + first + 1, words.end()),
        stmtLine);
    moduleShared.push_back({name, {align, bytes}});
    return;
  }
  if (first < words.size() &&
      (words[first] == ".global" || words[first] == ".const")) {
    parseModuleGlobal(stmt, stmtLine);
    return;
  }
  fail(stmtLine,
       fmt::format("unsupported module-level statement `{}`", words[0]));
}

void Parser::parseModuleGlobal(std::string_view stmt, unsigned stmtLine) {
  std::string_view decl = stmt, init;
  if (std::size_t eq = stmt.find('='); eq != std::string_view::npos) {
    decl = stmt.substr(0, eq);
    init = trim(stmt.substr(eq + 1));
  }
  std::vector<std::string_view> words = splitWords(decl);
  std::size_t first = 0;
  while (first < words.size() &&
         (words[first] == ".extern" || words[first] == ".visible" ||
          words[first] == ".weak" || words[first] == ".global" ||
          words[first] == ".const"))
    ++first;
  auto [align, bytes, name] = parseVarDecl(
      std::vector<std::string_view>(words.begin() + first, words.end()),
      stmtLine);
  if (bytes == ~0u)
    fail(stmtLine, fmt::format("unsized global variable `{}`", name));
  unsigned elemBytes = 1;
  for (std::string_view w : words)
    if (!w.empty() && w[0] == '.' && w != ".align")
      if (std::optional<PtxType> t = lookupType(w.substr(1)))
        elemBytes = std::max(1u, ptxTypeBits(*t) / 8);
  std::vector<std::uint8_t> data(bytes, 0);
  if (!init.empty()) {
    if (init.front() == '{' && init.back() == '}')
      init = init.substr(1, init.size() - 2);
    std::size_t at = 0;
    for (std::string_view v : splitTopLevel(init, ',')) {
      std::optional<std::int64_t> value = parseInt(trim(v));
      if (!value)
        fail(stmtLine, fmt::format("unsupported initializer `{}`", v));
      if (at + elemBytes > data.size())
        fail(stmtLine, "more initializers than elements");
      std::memcpy(data.data() + at, &*value, elemBytes); // little endian
      at += elemBytes;
    }
  }
  PtxGlobal global;
  global.name = name;
  global.bytes = bytes;
  global.address = GlobalMemory::instance().allocate(bytes);
  GlobalMemory::instance().write(global.address, data.data(), data.size());
  module.globals.push_back(global);
}

void Parser::parseEntry() {
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
      nums.push_back(static_cast<unsigned>(
          std::stoul(std::string(source.data() + s, pos - s))));
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

void Parser::parseParams(std::string_view list, unsigned listLine) {
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

std::uint32_t Parser::newSlot(const std::string &name) {
  std::uint32_t slot = fn->numSlots++;
  fn->slotNames.push_back(name);
  scopes[currentScope].regs[name] = slot;
  return slot;
}

std::optional<std::uint32_t> Parser::findReg(std::string_view name) const {
  std::string key(name);
  for (int s = currentScope; s >= 0; s = scopes[s].parent) {
    auto it = scopes[s].regs.find(key);
    if (it != scopes[s].regs.end())
      return it->second;
  }
  return std::nullopt;
}

void Parser::parseBody() {
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

void Parser::parseDeclaration(std::string_view stmt, unsigned stmtLine) {
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
      std::optional<PtxType> t = lookupType(words[i].substr(1));
      if (!t)
        fail(stmtLine, fmt::format("unknown register type `{}`", words[i]));
      type = *t;
    }
    std::string rest;
    for (; i < words.size(); ++i)
      rest += words[i];
    unsigned words32 = type == PtxType::Pred    ? 0
                       : ptxTypeBits(type) > 32 ? 2
                                                : 1;
    for (std::string_view n : splitTopLevel(rest, ',')) {
      std::size_t lt = n.find('<');
      if (lt == std::string_view::npos) {
        newSlot(std::string(n));
        fn->declaredRegs += words32;
        continue;
      }
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
  fail(stmtLine, fmt::format("unsupported declaration `{}`", words[0]));
}

void Parser::resolveBranches() {
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

Operand Parser::parseValue(std::string_view s, unsigned stmtLine) {
  Operand op;
  s = trim(s);
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
  return op;
}

Operand Parser::parseAddress(std::string_view s, Instr &ins,
                             unsigned stmtLine) {
  // s is the inside of [ ].
  Operand op;
  op.kind = OperandKind::Address;
  std::vector<std::string_view> parts = splitTopLevel(s, ',');
  if (parts.empty())
    fail(stmtLine, "empty address");
  if (parts.size() == 2) {
    std::string_view coords = trim(parts[1]);
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
  std::string_view a = trim(parts[0]);
  // base [+|-] offset
  std::size_t split = std::string_view::npos;
  for (std::size_t i = 1; i < a.size(); ++i)
    if (a[i] == '+' || (a[i] == '-' && a[i - 1] != '+')) {
      split = i;
      break;
    }
  std::string_view base = trim(a.substr(0, split));
  std::int64_t offset = 0;
  if (split != std::string_view::npos) {
    std::string_view off = trim(a.substr(split));
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
  } else {
    fail(stmtLine, fmt::format("bad address base `{}`", base));
  }
  return op;
}

Operand Parser::parseOperand(std::string_view s, Instr &ins,
                             unsigned stmtLine) {
  s = trim(s);
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

} // namespace

// The instruction decoder lives in PtxOpcodes.cpp.
void decodeOpcode(std::string_view opcode, Instr &ins, unsigned line,
                  std::string &error);
void validateOperands(const Instr &ins, std::string_view opcode,
                      std::string &error);

namespace {

void Parser::parseInstruction(std::string_view stmt, unsigned stmtLine) {
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
    s = trim(s.substr(e));
  }
  std::size_t e = 0;
  while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e])))
    ++e;
  std::string_view opcode = s.substr(0, e);
  std::string_view rest = trim(s.substr(e));
  std::string error;
  decodeOpcode(opcode, ins, stmtLine, error);
  if (!error.empty())
    fail(stmtLine, error);
  if (ins.op == OpKind::Bra) {
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

} // namespace

bool parsePtx(std::string_view text, PtxModule &module, std::string &error) {
  Parser parser(text, module);
  try {
    parser.run();
  } catch (const ParseError &e) {
    error = fmt::format("ptx:{}: {}: `{}`", e.line, e.message,
                        parser.lineText(e.line));
    return false;
  }
  return true;
}

} // namespace tilec::sim
