//===- runtime/sim/PtxText.h - PTX reader text helpers -*- C++ -*-===//
//
// The PTX parser and the opcode decoder both look words up in name tables
// and cut statements into words, lists and integers. These helpers are the
// one home of that text handling, so the two readers agree on what a word,
// a list item or an integer literal is.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIM_PTXTEXT_H
#define TILEC_RUNTIME_SIM_PTXTEXT_H

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace tilec::sim {

/// Finds \p s in a table of (name, value) rows; the first match wins.
template <typename T, std::size_t N>
std::optional<T> lookupName(std::string_view s,
                            const std::pair<const char *, T> (&table)[N]) {
  for (const auto &[name, value] : table)
    if (s == name)
      return value;
  return std::nullopt;
}

/// \p s without leading and trailing white space.
std::string_view trimSpace(std::string_view s);

/// The white-space separated words of \p s.
std::vector<std::string_view> splitWords(std::string_view s);

/// \p s split at each \p sep outside `[ ]`, `{ }` and `( )`, each piece
/// trimmed. An empty \p s gives no pieces.
std::vector<std::string_view> splitTopLevel(std::string_view s, char sep);

/// \p s split at each dot: "ld.global.b32" -> {"ld", "global", "b32"}.
std::vector<std::string_view> splitDots(std::string_view s);

/// A decimal or 0x-hex integer with an optional sign and `U` suffix.
std::optional<std::int64_t> parseInt(std::string_view s);

} // namespace tilec::sim

#endif // TILEC_RUNTIME_SIM_PTXTEXT_H
