//===- runtime/sim/SmemMatrixDescriptor.h - What the tensor core reads from a descriptor -*- C++ -*-===//
//
// The 64-bit shared-memory matrix descriptors of wgmma (sm_90a) and tcgen05
// (sm_100a), decoded the way the PTX ISA says the tensor core reads them,
// written from the ISA alone (the compiler's own derivation in ir/ is not
// used, so a wrong derivation cannot agree with itself). The address of every
// element of an operand follows from the decoded fields: the canonical
// K-major and MN-major layouts of the ISA for no swizzle, 32-, 64- and 128-byte
// swizzles, with the swizzle applied to the address bits as the hardware does.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIM_SMEMMATRIXDESCRIPTOR_H
#define TILEC_RUNTIME_SIM_SMEMMATRIXDESCRIPTOR_H

#include <cstdint>
#include <string>

namespace tilec::sim {

/// A decoded descriptor. Byte quantities are in bytes (decoded, not the
/// encoded >> 4 values).
struct SmemMatrixDesc {
  std::uint32_t startAddress = 0;
  std::uint32_t lbo = 0; ///< Leading dimension byte offset.
  std::uint32_t sbo = 0; ///< Stride dimension byte offset.
  /// 0 (interleave / none), 32, 64 or 128: the swizzle span in bytes.
  unsigned swizzleBytes = 0;
  /// sm_100's 128-byte swizzle with 32-byte atomic base (layout type 1).
  bool swizzle128Base32 = false;
  unsigned baseOffset = 0; ///< Bits 49-51.
  unsigned version = 0;    ///< sm_100: bits 46-48 (must be 0b001).
  bool lboModeAbsolute = false; ///< sm_100: bit 52.
  /// One line: "start 0x400 lbo 16 sbo 1024 swizzle 128B base 0".
  std::string describe() const;
};

/// Decodes a wgmma descriptor; throws SimFault naming the field when it holds
/// a value the ISA reserves.
SmemMatrixDesc decodeWgmmaDescriptor(std::uint64_t desc);
/// Decodes a tcgen05 descriptor (version 1 required); throws SimFault on a
/// reserved or illegal field.
SmemMatrixDesc decodeUmmaDescriptor(std::uint64_t desc);

/// The shared byte address of element (\p mn, \p k) of the operand \p desc
/// describes: \p mn indexes M (for A) or N (for B), \p k indexes K; the
/// operand is K-major unless \p mnMajor; elements are \p elemBits wide.
std::uint32_t smemOperandAddress(const SmemMatrixDesc &desc, bool mnMajor,
                                 unsigned elemBits, unsigned mn, unsigned k);

} // namespace tilec::sim

#endif // TILEC_RUNTIME_SIM_SMEMMATRIXDESCRIPTOR_H
