//===- runtime/sim/PtxParser.cpp - PTX text to the decoded program -------===//
//
// A hand-written scanner over the PTX text (comments blanked first, line
// numbers kept) and the module level: the .version/.target header, module
// .shared, .global and .const variables, and the dispatch to each .entry
// (PtxEntryParser.cpp). Operands are read in PtxOperandParser.cpp and
// opcodes decoded in PtxOpcodes.cpp.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/PtxParser.h"

#include "runtime/sim/PtxParserImpl.h"
#include "runtime/sim/SimMemory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace tilec::sim {

namespace ptxparse {

void PtxParser::blankComments() {
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

void PtxParser::skipSpace() {
  while (pos < source.size() &&
         std::isspace(static_cast<unsigned char>(source[pos]))) {
    if (source[pos] == '\n')
      ++line;
    ++pos;
  }
}

std::string_view PtxParser::readStatement(unsigned &startLine) {
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
  return trimSpace(s);
}

std::string_view PtxParser::readWord() {
  skipSpace();
  std::size_t start = pos;
  while (pos < source.size() &&
         !std::isspace(static_cast<unsigned char>(source[pos])) &&
         source[pos] != '(' && source[pos] != '{' && source[pos] != ';' &&
         source[pos] != ',')
    ++pos;
  return std::string_view(source.data() + start, pos - start);
}

void PtxParser::run() {
  while (true) {
    skipSpace();
    if (atEnd())
      return;
    std::size_t save = pos;
    unsigned saveLine = line;
    std::string_view w = readWord();
    // One-line directives; `.file` names the source of `.loc` lines (line
    // directives change nothing the kernel computes).
    if (w == ".version" || w == ".target" || w == ".address_size" ||
        w == ".file") {
      while (pos < source.size() && source[pos] != '\n')
        ++pos;
      continue;
    }
    // Debug sections (`.section .debug_macinfo { }` with line info): data
    // for debuggers, skipped with their braces.
    if (w == ".section") {
      int depth = 0;
      for (; pos < source.size(); ++pos) {
        if (source[pos] == '\n')
          ++line;
        if (source[pos] == '{')
          ++depth;
        if (source[pos] == '}' && --depth == 0) {
          ++pos;
          break;
        }
      }
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
      unsigned value = static_cast<unsigned>(parseInt(words[++i]).value_or(1));
      if (!afterPtr)
        align = value;
    } else if (w == ".ptr") {
      afterPtr = true;
    } else if (w == ".global" || w == ".shared" || w == ".const" ||
               w == ".local") {
      continue;
    } else if (!w.empty() && w[0] == '.') {
      std::optional<PtxType> t = ptxTypeFromName(w.substr(1));
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

void PtxParser::parseModuleDirective(std::string_view stmt, unsigned stmtLine) {
  std::vector<std::string_view> words = splitWords(stmt);
  if (words.empty())
    return;
  std::size_t first = 0;
  if (words[0] == ".extern" || words[0] == ".visible" || words[0] == ".weak")
    first = 1;
  // A device function's declaration (`.extern .func __assertfail (...)`),
  // for the calls of OpKind::Call.
  if (words[0] == ".extern" && first < words.size() &&
      words[first] == ".func")
    return;
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

void PtxParser::parseModuleGlobal(std::string_view stmt, unsigned stmtLine) {
  std::string_view decl = stmt, init;
  if (std::size_t eq = stmt.find('='); eq != std::string_view::npos) {
    decl = stmt.substr(0, eq);
    init = trimSpace(stmt.substr(eq + 1));
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
      if (std::optional<PtxType> t = ptxTypeFromName(w.substr(1)))
        elemBytes = std::max(1u, ptxTypeBits(*t) / 8);
  std::vector<std::uint8_t> data(bytes, 0);
  if (!init.empty()) {
    if (init.front() == '{' && init.back() == '}')
      init = init.substr(1, init.size() - 2);
    std::size_t at = 0;
    for (std::string_view v : splitTopLevel(init, ',')) {
      std::optional<std::int64_t> value = parseInt(trimSpace(v));
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

} // namespace ptxparse

bool parsePtx(std::string_view text, PtxModule &module, std::string &error) {
  ptxparse::PtxParser parser(text, module);
  try {
    parser.run();
  } catch (const ptxparse::ParseError &e) {
    error = fmt::format("ptx:{}: {}: `{}`", e.line, e.message,
                        parser.lineText(e.line));
    return false;
  }
  return true;
}

} // namespace tilec::sim
