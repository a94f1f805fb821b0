//===- ir/arch/InstrTable.h - The tensor-core instruction table -------*- C++
//-*-===//
//
// One table of tensor-core MMA instructions: family (mma.sync, wgmma,
// tcgen05.mma), shape (M, the legal N range, K), A/B/accumulator types,
// whether each operand may be MN-major in shared memory, the target and the
// PTX ISA version. The verifier, the instruction-choice pass and the
// emitters all read it; nothing else lists instruction variants.
//
// Names as .tile writes them: `mma.sync.m16n8k16`, `wgmma.m64n256k16`,
// `tcgen05.mma.m128n256k16`.
//
// Example: the bf16 x bf16 -> f32 wgmma row has M = 64, N = 8..256 step 8,
// K = 16 (32 bytes), MN-major allowed, sm_90a, PTX 8.0.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_ARCH_INSTRTABLE_H
#define TILEC_IR_ARCH_INSTRTABLE_H

#include "ir/arch/Arch.h"
#include "ir/arch/DType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace tilec {

/// A tensor-core instruction family.
enum class MmaFamilyKind { MmaSync, Wgmma, Tcgen05 };

/// One row of the instruction table.
struct InstrInfo {
  MmaFamilyKind family;
  unsigned m;
  unsigned nMin, nMax, nStep; ///< Legal N: nMin, nMin + nStep, ..., nMax.
  unsigned k;
  DTypeKind aType, bType, accType;
  bool mnMajorA, mnMajorB; ///< May the operand be MN-major in smem?
  ArchKind arch;           ///< The one target this row is emitted for.
  unsigned ptxVersion;     ///< x 10: 80 is PTX 8.0.
  llvm::StringRef ptxKind; ///< tcgen05 `kind::f16`; empty elsewhere.
  /// tcgen05 `.cta_group`: 1 (one CTA), or 2 for the rows whose MMA spans
  /// a CTA pair (each CTA M / 2 rows of A and D, half of B's N).
  unsigned ctaGroup = 1;

  bool allowsN(unsigned n) const {
    return n >= nMin && n <= nMax && (n - nMin) % nStep == 0;
  }
};

/// All rows.
llvm::ArrayRef<InstrInfo> allInstrs();

/// The family's name as .tile writes it: "mma.sync", "wgmma", "tcgen05.mma".
llvm::StringRef familyName(MmaFamilyKind family);

/// The family a target issues: mma.sync for sm_80, wgmma for sm_90a,
/// tcgen05.mma for sm_100a.
MmaFamilyKind nativeFamily(ArchKind arch);

/// The first row of \p family whose A operand is \p aType, or nullptr when
/// the family takes no such A. The rows of one family and A type share K
/// and the A majorness rule, so the emitters read both from it.
/// Example: instrFor(Wgmma, TF32)->k is 8, ->mnMajorA false.
const InstrInfo *instrFor(MmaFamilyKind family, DTypeKind aType);

/// A parsed instruction name: family and shape.
struct InstrName {
  MmaFamilyKind family;
  unsigned m, n, k;
};

/// Parses `wgmma.m64n256k16` and the like; std::nullopt if the text is not
/// FAMILY.mMnNkK.
std::optional<InstrName> parseInstrName(llvm::StringRef text);

/// Formats a name: `wgmma.m64n256k16`.
std::string formatInstrName(const InstrName &name);

/// The full PTX spelling of \p row at N = \p n, e.g.
/// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`.
std::string ptxSpelling(const InstrInfo &row, unsigned n);

/// The row for an instruction with these types on \p arch, or an error
/// message that says which part does not match and what would be legal.
struct InstrLookup {
  const InstrInfo *row = nullptr;
  std::string error;
};
/// \p ctaGroup (tcgen05 only; 0: any) prefers the rows of that .cta_group
/// where one of each has the shape: tcgen05.mma.m128 is cta_group::1 in one
/// CTA and cta_group::2 over a CTA pair.
InstrLookup lookupInstr(const InstrName &name, ArchKind arch, DTypeKind aType,
                        DTypeKind bType, DTypeKind accType,
                        unsigned ctaGroup = 0);

} // namespace tilec

#endif // TILEC_IR_ARCH_INSTRTABLE_H
