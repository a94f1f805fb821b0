//===- runtime/sim/PtxParserImpl.h - The PTX parser's state -*- C++ -*-===//
//
// The parser is one class whose members are spread over three files by what
// they read: PtxParser.cpp scans the text and reads the module-level
// directives and variables, PtxEntryParser.cpp reads an .entry's parameters,
// declarations and statements, PtxOperandParser.cpp reads one operand
// (register, literal, symbol, address, vector). Not for use outside them.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIM_PTXPARSERIMPL_H
#define TILEC_RUNTIME_SIM_PTXPARSERIMPL_H

#include "runtime/sim/PtxProgram.h"
#include "runtime/sim/PtxText.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tilec::sim::ptxparse {

/// A user-visible parse error.
struct ParseError {
  unsigned line;
  std::string message;
};

[[noreturn]] inline void fail(unsigned line, std::string message) {
  throw ParseError{line, std::move(message)};
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

class PtxParser {
public:
  PtxParser(std::string_view text, PtxModule &module) : module(module) {
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
    return std::string(trimSpace(lines[line - 1]));
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

/// Parses "[.align N] .type name[size]" declarations; returns (align, bytes,
/// name); bytes is ~0u for "name[]".
std::tuple<unsigned, unsigned, std::string>
parseVarDecl(std::vector<std::string_view> words, unsigned stmtLine);

} // namespace tilec::sim::ptxparse

#endif // TILEC_RUNTIME_SIM_PTXPARSERIMPL_H
