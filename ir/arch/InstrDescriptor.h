//===- ir/arch/InstrDescriptor.h - The tcgen05 instruction descriptor -*- C++
//-*-===//
//
// tcgen05.mma takes a 32-bit instruction descriptor naming the operand
// formats, majorness, negation and the M x N shape. This file holds the
// dense kinds tilec emits (f16/bf16, tf32, f8f6f4 with e4m3/e5m2, f16 or f32
// accumulation) as two tables: the bit fields and the format codes. Encoding
// and decoding both walk the field table.
//
//   bit 31..30 29 28..24 23 22..17 16  15  14  13  12..10 9..7 6 5..4 3 2 1..0
//       shift  -  M>>4   -  N>>3   tB  tA  nB  nA  btype atype - dtype sat sp
//
// Example: bf16 x bf16 -> f32, M=128, N=256, both K-major is 0x08400490.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_ARCH_INSTRDESCRIPTOR_H
#define TILEC_IR_ARCH_INSTRDESCRIPTOR_H

#include "ir/arch/DType.h"
#include "ir/arch/SmemDescriptor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>

namespace tilec {

/// The tcgen05.mma kind an operand type pair belongs to.
enum class MmaKindKind { F16, TF32, F8F6F4 };

/// A dense tcgen05 instruction, as the descriptor describes it.
struct InstrDescriptorSpec {
  DTypeKind aType = DTypeKind::BF16;
  DTypeKind bType = DTypeKind::BF16;
  DTypeKind accType = DTypeKind::F32; ///< F16 or F32.
  unsigned m = 128;
  unsigned n = 256;
  MajorKind aMajor = MajorKind::K;
  MajorKind bMajor = MajorKind::K;
  bool negateA = false;
  bool negateB = false;
};

/// One bit field of the instruction descriptor.
struct InstrFieldInfo {
  llvm::StringRef name; ///< JSON key: "a_format", "n_dim", ...
  unsigned lowBit;
  unsigned width;
};

/// The fields, low bit first.
llvm::ArrayRef<InstrFieldInfo> instrDescriptorFields();

/// The kind of a legal (A, B) type pair, or an error that says what is legal.
llvm::Expected<MmaKindKind> mmaKindOf(DTypeKind a, DTypeKind b);
/// "f16", "tf32", "f8f6f4".
llvm::StringRef mmaKindName(MmaKindKind kind);

/// Checks \p spec and encodes it. Errors name the value and what is legal.
llvm::Expected<uint32_t> encodeInstrDescriptor(const InstrDescriptorSpec &spec);

/// Decodes \p idesc of an instruction of \p kind (the format codes overlap
/// between kinds: 0 is f16 for kind::f16 and e4m3 for kind::f8f6f4). Fails on
/// sparse, saturating or unknown format codes and on set reserved bits.
llvm::Expected<InstrDescriptorSpec> decodeInstrDescriptor(uint32_t idesc,
                                                          MmaKindKind kind);
/// Parses "f16", "tf32", "f8f6f4".
std::optional<MmaKindKind> parseMmaKind(llvm::StringRef name);

/// The raw value of one field of \p idesc.
uint32_t extractInstrField(uint32_t idesc, const InstrFieldInfo &info);

} // namespace tilec

#endif // TILEC_IR_ARCH_INSTRDESCRIPTOR_H
