//===- compiler/passes/SmemAtoms.cpp - Swizzle atoms as the passes see them
//===//
#include "compiler/passes/SmemAtoms.h"

#include "llvm/ADT/StringExtras.h"

namespace tilec {

namespace {
const SwizzleMode Modes[] = {
    {"SW128", 128}, {"SW64", 64}, {"SW32", 32}, {"INTER", 16}};
} // namespace

llvm::ArrayRef<SwizzleMode> swizzleModesLargestFirst() { return Modes; }

std::string SmemAtom::name() const {
  return (major == MajorKind::K ? "K_" : "MN_") + mode.name.str();
}

std::string SmemAtom::nameWithType() const {
  return name() + "<" + dtypeInfo(dtype).name.str() + ">";
}

std::optional<SmemAtom> parseAtomName(llvm::StringRef name, DTypeKind dtype) {
  MajorKind major;
  if (name.consume_front("K_"))
    major = MajorKind::K;
  else if (name.consume_front("MN_"))
    major = MajorKind::MN;
  else
    return std::nullopt;
  for (const SwizzleMode &mode : Modes)
    if (mode.name == name)
      return SmemAtom{major, mode, dtype};
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
