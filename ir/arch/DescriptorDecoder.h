//===- ir/arch/DescriptorDecoder.h - Walk a descriptor like the hardware -*- C++
//-*-===//
//
// The independent check of descriptor derivation. Given a 64-bit descriptor,
// the arch, the element type, the majorness and the operand shape, this
// computes the shared-memory byte address the tensor core reads for every
// (mn, k) element, by following the PTX ISA's text: the 8-row x 16-byte core
// matrices, LBO and SBO as the ISA defines them per majorness and swizzle
// mode, then the byte-level Swizzle<B,4,3> applied to the absolute address
// (address bits [7, 7+B) XORed into bits [4, 4+B)). It never calls the
// derivation; tests compare the two element by element.
//
// Example: K-major SW128 bf16, start 0, SBO 1024: element (mn=1, k=0) is read
// at 128 ^ (1 << 4) = 144, element (9, 8) at 1024 + 128 + (16 ^ 16) = 1152.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_ARCH_DESCRIPTORDECODER_H
#define TILEC_IR_ARCH_DESCRIPTORDECODER_H

#include "ir/arch/DType.h"
#include "ir/arch/SmemDescriptor.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace tilec {

/// The byte address of element (mn, k) is at index mn + k * mnSize.
struct OperandAddresses {
  unsigned mnSize = 0;
  unsigned kSize = 0;
  std::vector<uint64_t> bytes;
  uint64_t at(unsigned mn, unsigned k) const { return bytes[mn + k * mnSize]; }
};

/// Walks \p desc over an mnSize x kSize operand of \p dtype. Fails on fields
/// the model does not cover (a non-zero base offset, sm_100's absolute LBO
/// mode or 32-byte-atom SW128) and on shapes that cannot be walked.
llvm::Expected<OperandAddresses>
decodeOperandAddresses(uint64_t desc, ArchKind arch, DTypeKind dtype,
                       MajorKind major, unsigned mnSize, unsigned kSize);

/// Byte-level tensor-core swizzle of a shared-memory address.
uint64_t applyHardwareSwizzle(uint64_t address, SwizzleKind swizzle);

} // namespace tilec

#endif // TILEC_IR_ARCH_DESCRIPTORDECODER_H
