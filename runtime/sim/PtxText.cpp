//===- runtime/sim/PtxText.cpp - Small text helpers of the PTX reader -----===//
//
// Words, top-level lists, dotted opcodes and integer literals, shared by the
// PTX parser and the opcode decoder.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/PtxText.h"

#include <cctype>

namespace tilec::sim {

std::string_view trimSpace(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
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
      out.push_back(trimSpace(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string_view last = trimSpace(s.substr(start));
  if (!last.empty() || !out.empty())
    out.push_back(last);
  return out;
}

std::vector<std::string_view> splitDots(std::string_view s) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == '.') {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return parts;
}

std::optional<std::int64_t> parseInt(std::string_view s) {
  s = trimSpace(s);
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

} // namespace tilec::sim
