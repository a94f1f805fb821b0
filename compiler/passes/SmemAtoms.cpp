//===- compiler/passes/SmemAtoms.cpp - Swizzle atoms as the passes see them
//===//
#include "compiler/passes/SmemAtoms.h"

#include "llvm/ADT/StringExtras.h"

namespace tilec {

std::string SmemAtom::name() const {
  return swizzleAtomName(major, mode);
}

std::string SmemAtom::nameWithType() const {
  return name() + "<" + dtypeInfo(dtype).name.str() + ">";
}

std::optional<SmemAtom> parseAtomName(llvm::StringRef name, DTypeKind dtype) {
  if (auto parsed = parseSwizzleAtomName(name))
    return SmemAtom{parsed->first, parsed->second, dtype};
  return std::nullopt;
}

std::optional<SmemAtom> findAtomInText(llvm::StringRef text) {
  for (size_t pos = 0; pos < text.size(); ++pos) {
    if (pos > 0 && (llvm::isAlnum(text[pos - 1]) || text[pos - 1] == '_'))
      continue;
    llvm::StringRef rest = text.substr(pos);
    if (!rest.starts_with("K_") && !rest.starts_with("MN_"))
      continue;
    size_t open = rest.find('<');
    size_t close = rest.find('>');
    if (open == llvm::StringRef::npos || close == llvm::StringRef::npos ||
        close < open)
      continue;
    std::optional<DTypeKind> dtype =
        parseDType(rest.substr(open + 1, close - open - 1).trim());
    if (!dtype)
      continue;
    if (std::optional<SmemAtom> atom =
            parseAtomName(rest.substr(0, open).trim(), *dtype))
      return atom;
  }
  return std::nullopt;
}

} // namespace tilec
