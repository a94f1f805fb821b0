//===- ir/arch/MajorKind.h - Which extent of an operand is contiguous -*- C++
//-*-===//
//
// One definition for the GEMM spec, the swizzle atoms and the shared-memory
// descriptors: an operand tile is K-major (K contiguous) or MN-major (M or N
// contiguous). The language writes it `major(K)` / `major(M)` / `major(N)`.
//
// Example: parseMajor("n") == MajorKind::MN, majorName(MajorKind::K) == "K".
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_ARCH_MAJORKIND_H
#define TILEC_IR_ARCH_MAJORKIND_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace tilec {

/// Which extent of an operand is contiguous in memory.
enum class MajorKind { K, MN };

/// "K" or "MN".
inline llvm::StringRef majorName(MajorKind major) {
  return major == MajorKind::K ? "K" : "MN";
}

/// "K", "MN", "M" or "N" (case-insensitive); std::nullopt otherwise.
inline std::optional<MajorKind> parseMajor(llvm::StringRef name) {
  if (name.equals_insensitive("K"))
    return MajorKind::K;
  if (name.equals_insensitive("MN") || name.equals_insensitive("M") ||
      name.equals_insensitive("N"))
    return MajorKind::MN;
  return std::nullopt;
}

} // namespace tilec

#endif // TILEC_IR_ARCH_MAJORKIND_H
