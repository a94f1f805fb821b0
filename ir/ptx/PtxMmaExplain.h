//===- ir/ptx/PtxMmaExplain.h - What an MMA found in PTX reads, in words -*- C++
//-*-===//
//
// The words `tilec explain` and `tilec compile --annotate` put next to a
// tcgen05 instruction, beyond the descriptor fields of
// ir/ptx/PtxDescriptorScan.h: the operand layout a shared-memory descriptor
// encodes, every raw field of an instruction descriptor, and what the
// tensor-memory instructions (tcgen05.alloc, dealloc, ld, st, commit) do.
//
// The operand layout is found by walking the descriptor the way the PTX ISA
// says the tensor core does (ir/arch/DescriptorDecoder.h) and matching the
// addresses it reads against the ISA's canonical layouts with the same
// matcher that derives descriptors from .tile layouts
// (ir/arch/DescriptorDerivation.h); the descriptor that matcher derives back
// must be the one in the PTX.
//
// Example: the sm_100a descriptor 0x4000404000010000 feeding the A operand
// of a kind::f16 bf16 M=128 MMA (K = 16) reads the 128 x 16 tile
//   Sw<3,3,3> o ((8,16),(8,2)):((64,512),(1,8))
// (elements from the start address: rows 64 elements = 128 bytes apart, 8-row
// groups SBO = 1024 bytes apart, the 16 K elements contiguous in the 128-byte
// swizzle row), the PTX ISA's K-major SW128 form ((8,m),(T,2k)):((8T,SBO),
// (1,T)) with T = 8.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_PTX_PTXMMAEXPLAIN_H
#define TILEC_IR_PTX_PTXMMAEXPLAIN_H

#include "ir/arch/Arch.h"
#include "ir/arch/DType.h"
#include "ir/arch/DescriptorDerivation.h"
#include "ir/arch/InstrDescriptor.h"
#include "ir/arch/MajorKind.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace tilec {

/// The shared-memory operand one descriptor of an MMA feeds.
struct MmaOperandShape {
  char role = 'A'; ///< 'A' or 'B'.
  DTypeKind dtype = DTypeKind::BF16;
  MajorKind major = MajorKind::K;
  unsigned mn = 0; ///< Rows of the operand in this CTA: M (A) or N (B).
  unsigned k = 0;  ///< K of one instruction, in elements (32 bytes).
};

/// The operands of a tcgen05.mma with decoded instruction descriptor \p s
/// issued with cta_group::\p ctaGroup: A is M x K and B is N x K, and with
/// cta_group::2 each CTA of the pair holds half of each (M / 2 rows of A,
/// N / 2 rows of B; PTX ISA, "Matrix fragments for tcgen05.mma").
std::pair<MmaOperandShape, MmaOperandShape>
tcgen05OperandShapes(const InstrDescriptorSpec &s, unsigned ctaGroup);

/// The derivation request of one MMA subtile of \p shape on \p arch (base
/// address 0).
DerivationRequest derivationRequestFor(const MmaOperandShape &shape,
                                       ArchKind arch);

/// The layout \p desc (start address ignored) encodes for \p shape, checked
/// by re-deriving the descriptor from the walked addresses:
/// "A 128x16 bf16 K-major = Sw<3,3,3> o ((8,16),(8,2)):((64,512),(1,8))
/// elements, canonical Sw<3,4,3> o ((8,m),(T,2k)):((8T,SBO),(1,T)) T=8;
/// re-derived descriptor agrees", or why the walk or the match failed.
std::string describeEncodedOperand(uint64_t desc, ArchKind arch,
                                   const MmaOperandShape &shape);

/// Every field of the instruction descriptor by the field table, raw, with
/// its meaning where \p s (the decode) is given and the reserved bits:
/// "sparse_selector=0 sparse=0 (dense) saturate=0 d_format=1 (f32) ...".
std::string describeInstrDescriptorFields(uint32_t idesc,
                                          const InstrDescriptorSpec *s);

/// What a tcgen05 instruction other than mma does (alloc, dealloc,
/// relinquish_alloc_permit, ld, st, wait, commit), from its opcode and
/// operands as written; \p known gives a register operand's value where the
/// PTX makes it known, as "%r42 + 32" or "512". std::nullopt for any other
/// instruction.
std::optional<std::string> describeTcgen05Op(
    llvm::StringRef opcode, llvm::ArrayRef<llvm::StringRef> ops,
    llvm::function_ref<std::string(llvm::StringRef)> known);

} // namespace tilec

#endif // TILEC_IR_PTX_PTXMMAEXPLAIN_H
