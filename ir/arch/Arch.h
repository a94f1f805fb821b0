//===- ir/arch/Arch.h - The GPU targets tilec emits code for ----*- C++ -*-===//
//
// One table of targets: the name users write (`sm_90a`), the compute
// capability, the PTX ISA version the NVPTX backend is asked for, and the
// shared-memory limits. Every other place that needs a per-target fact reads
// it from here.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_ARCH_ARCH_H
#define TILEC_IR_ARCH_ARCH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace tilec {

/// A target architecture.
enum class ArchKind { SM80, SM90a, SM100a };

/// Facts about one target.
struct ArchInfo {
  ArchKind kind;
  llvm::StringRef name;       ///< As written by users and ptxas: "sm_90a".
  unsigned computeCapability; ///< 80, 90, 100.
  unsigned ptxVersion;        ///< PTX ISA version x 10, e.g. 80 for 8.0.
  /// Dynamic shared memory one CTA may opt in to, in bytes: 163 KB on
  /// sm_80 (A100), 227 KB on sm_90a and sm_100a.
  unsigned maxSharedBytesPerCta;
  /// Shared memory of one SM, in bytes; each resident CTA also takes 1 KB
  /// of it for the system.
  unsigned sharedBytesPerSm;
  /// What the instruction set has (the questions passes ask instead of
  /// comparing ArchKind): stmatrix (sm_90+), the TMA (cp.async.bulk.tensor,
  /// sm_90+).
  bool hasStmatrix, hasTma;
  /// Code for it runs only on its own compute capability (the `a`
  /// targets' architecture-specific instructions: wgmma, tcgen05); sm_80
  /// code runs on every later GPU.
  bool archSpecific;
  /// The GPU `tilec tune`'s cost model and its --dry-run stand in for
  /// (A100, H200, B200): dense 16-bit tensor-core flop/s, SMs, L2 bytes and
  /// memory bytes per second.
  struct ReferenceGpu {
    llvm::StringRef name;
    double denseFlops16;
    unsigned smCount;
    uint64_t l2Bytes;
    double memoryBytesPerSecond;
  } reference;
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

#endif // TILEC_IR_ARCH_ARCH_H
