//===- ir/Arch.h - The GPU targets tilec emits code for ----------*- C++ -*-===//
//
// One table of targets: the name users write (`sm_90a`), the compute
// capability, the PTX ISA version the NVPTX backend is asked for, and the
// shared-memory limits. Every other place that needs a per-target fact reads
// it from here.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_ARCH_H
#define TILEC_IR_ARCH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace tilec {

/// A target architecture.
enum class ArchKind { SM80, SM90a, SM100a };

/// Facts about one target.
struct ArchInfo {
  ArchKind kind;
  llvm::StringRef name;     ///< As written by users and ptxas: "sm_90a".
  unsigned computeCapability; ///< 80, 90, 100.
  unsigned ptxVersion;      ///< PTX ISA version x 10, e.g. 80 for 8.0.
  /// Dynamic shared memory one CTA may opt in to, in bytes: 163 KB on
  /// sm_80 (A100), 227 KB on sm_90a and sm_100a.
  unsigned maxSharedBytesPerCta;
  /// Shared memory of one SM, in bytes; each resident CTA also takes 1 KB
  /// of it for the system.
  unsigned sharedBytesPerSm;
};

/// All targets, in the order of ArchKind.
llvm::ArrayRef<ArchInfo> allArchs();

/// The table row of \p kind.
const ArchInfo &archInfo(ArchKind kind);

/// Parses "sm_80", "sm_90a", "sm_100a"; std::nullopt otherwise.
std::optional<ArchKind> parseArch(llvm::StringRef name);

/// "sm_80, sm_90a, sm_100a": for diagnostics that list what is legal.
std::string listArchNames();

} // namespace tilec

#endif // TILEC_IR_ARCH_H
