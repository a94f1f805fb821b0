//===- ir/arch/SwizzleMode.cpp - The tensor cores' shared-memory swizzle modes -===//
#include "ir/arch/SwizzleMode.h"

#include <cassert>

namespace tilec {

namespace {
const SwizzleInfo SwizzleTable[] = {
    {SwizzleKind::None, "none", "INTER", "swizzle(none)", 16, 0, 0, 0},
    {SwizzleKind::SW32, "SW32", "SW32", "swizzle(32B)", 32, 1, 3, 6},
    {SwizzleKind::SW64, "SW64", "SW64", "swizzle(64B)", 64, 2, 2, 4},
    {SwizzleKind::SW128, "SW128", "SW128", "swizzle(128B)", 128, 3, 1, 2},
};
} // namespace

llvm::ArrayRef<SwizzleInfo> allSwizzles() { return SwizzleTable; }

const SwizzleInfo &swizzleInfo(SwizzleKind kind) {
  const SwizzleInfo &info = SwizzleTable[static_cast<unsigned>(kind)];
  assert(info.kind == kind && "table out of order");
  return info;
}

std::optional<SwizzleKind> swizzleFromBits(unsigned bits) {
  for (const SwizzleInfo &info : SwizzleTable)
    if (info.swizzleBits == bits)
      return info.kind;
  return std::nullopt;
}

std::optional<SwizzleKind> swizzleOfBytes(unsigned bytes) {
  for (const SwizzleInfo &info : SwizzleTable)
    if (info.bytes == bytes)
      return info.kind;
  return std::nullopt;
}

std::optional<SwizzleKind> swizzleOfEpilogueOption(llvm::StringRef option) {
  for (const SwizzleInfo &info : SwizzleTable)
    if (info.epilogueOption == option)
      return info.kind;
  return std::nullopt;
}

std::string swizzleAtomName(MajorKind major, SwizzleKind mode) {
  return std::string(major == MajorKind::K ? "K_" : "MN_") +
         swizzleInfo(mode).atomName.str();
}

std::optional<std::pair<MajorKind, SwizzleKind>>
parseSwizzleAtomName(llvm::StringRef name) {
  MajorKind major;
  if (name.consume_front("K_"))
    major = MajorKind::K;
  else if (name.consume_front("MN_"))
    major = MajorKind::MN;
  else
    return std::nullopt;
  for (const SwizzleInfo &info : SwizzleTable)
    if (info.atomName == name)
      return std::make_pair(major, info.kind);
  return std::nullopt;
}

} // namespace tilec
