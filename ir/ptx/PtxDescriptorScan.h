//===- ir/ptx/PtxDescriptorScan.h - Find and decode descriptors in PTX -*- C++
//-*-===//
//
// What `tilec explain` needs to annotate PTX: every wgmma.mma_async and
// tcgen05.mma instruction's shared-memory descriptors and instruction
// descriptor, with their values where the PTX makes them known (a mov of an
// immediate, possibly followed by adds of immediates, the descriptor advance)
// and each decoded field by field.
//
// The sm_90a GEMM builds its descriptors at run time: the smem address,
// shifted and masked into the 14-bit start-address field, or'ed with the
// constant high bits (plus the k-step advance folded into the low bits):
//   shr.u32 %r60, %r57, 4;  and.b32 %r61, %r60, 16320;
//   cvt.u64.u32 %rd15, %r61; or.b64 %rd9, %rd15, 4611686293305360386;
// The scan tracks each register as `constant + u` with u's bits confined to
// a known mask, so there %rd9 is 0x4000004000010002 + u, u < 2^14 and a
// multiple of 64: SW128 LBO=16 SBO=1024 base_offset=0, start = a run-time
// 1024-byte aligned smem address + 32 bytes.
//
// Example: in
//   mov.b64 %rd1, 4611686293305360384;
//   wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {...}, %rd1, %rd2,
//       p, 1, 1, 0, 0;
// operand a-desc is 0x4000004000010000 on sm_90a: SW128, start 0, LBO 16,
// SBO 1024.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_PTX_PTXDESCRIPTORSCAN_H
#define TILEC_IR_PTX_PTXDESCRIPTORSCAN_H

#include "ir/arch/Arch.h"
#include "ir/arch/DescriptorDerivation.h"
#include "ir/arch/InstrDescriptor.h"
#include "ir/arch/SmemDescriptor.h"
#include "ir/ptx/PtxMmaExplain.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// A register value as far as the PTX text makes it known: the value is
/// `constant + u` for some run-time u with no bit outside \p unknownMask.
struct PtxPartialValue {
  uint64_t constant = 0;
  uint64_t unknownMask = 0;
  bool isKnown() const { return unknownMask == 0; }
};

/// One descriptor operand of one MMA instruction.
struct PtxDescriptorUse {
  enum class RoleKind { SmemA, SmemB, Instr };
  unsigned line = 0; ///< 1-based line of the instruction.
  RoleKind role = RoleKind::SmemA;
  std::string operand;           ///< As written: "%rd12" or an immediate.
  std::optional<uint64_t> value; ///< Known statically.
  /// What is known when the value is not: constant bits plus a run-time part.
  std::optional<PtxPartialValue> partial;
  /// With \p partial: a constant (bytes) the PTX added to the run-time smem
  /// address before it was shifted into the start field, so part of the
  /// start though not of partial's constant (an MN-major K step).
  uint64_t runtimeAdvance = 0;
  std::string description; ///< Decoded fields, or why not.
  /// The instruction, decoded: "wgmma m64n256k16 f32 += bf16 x bf16, A
  /// K-major, B K-major".
  std::string instruction;
  /// The `// tilec: ...` annotation lines codegen put before the
  /// instruction (tilec compile --annotate), without the `// tilec: `.
  std::vector<std::string> tags;
  /// The operand an smem descriptor feeds, where the instruction
  /// descriptor makes it known (tcgen05.mma).
  std::optional<MmaOperandShape> operandShape;
  /// More lines on this operand, printed after all the descriptor lines of
  /// the instruction: the layout an smem descriptor encodes
  /// (ir/ptx/PtxMmaExplain.h), every raw field of an instruction descriptor.
  std::vector<std::string> details;
};

/// A tcgen05 instruction without descriptors (alloc, dealloc, ld, st,
/// wait, commit, relinquish_alloc_permit), explained.
struct PtxInstructionNote {
  unsigned line = 0; ///< 1-based.
  std::string text;  ///< "tcgen05.alloc: allocates 512 columns ...".
};

/// "SW128 start=0 LBO=16 SBO=1024 base_offset=0" (sm_100 adds version and
/// lbo_mode), or the decoding error.
std::string describeSmemDescriptor(uint64_t desc, ArchKind arch);

/// "kind::f16 bf16 x bf16 -> f32 M=128 N=256 A:K B:K", or the error.
std::string describeInstrDescriptor(uint32_t idesc, MmaKindKind kind);

/// The fields of \p desc other than the start address: "SW128 LBO=16
/// SBO=1024 base_offset=0" (sm_100 adds version and lbo_mode), or the
/// decoding error.
std::string describeSmemDescriptorLayout(uint64_t desc, ArchKind arch);

/// Describes a descriptor known up to a run-time start address: the fields
/// outside the start-address field, and the start as "run-time base + N B",
/// or why it cannot be decoded.
/// Example: {0x4000004000010002, 0x3FC0} on sm_90a is "SW128 LBO=16
/// SBO=1024 base_offset=0 start=<1024-byte aligned run-time smem
/// address>+32".
/// \p runtimeAdvance (bytes) is a constant the PTX added to the run-time
/// address before shifting it into the start field (an MN-major K step of
/// whole swizzle atoms); it is part of the start.
std::string describePartialSmemDescriptor(const PtxPartialValue &value,
                                          ArchKind arch,
                                          uint64_t runtimeAdvance = 0);

/// Scans \p ptx for MMA instructions. The arch comes from `.target` unless
/// \p arch is given.
std::vector<PtxDescriptorUse>
scanPtxDescriptors(llvm::StringRef ptx,
                   std::optional<ArchKind> arch = std::nullopt);

/// Scans \p ptx for the tcgen05 instructions that take no descriptor.
std::vector<PtxInstructionNote>
scanPtxTcgen05Notes(llvm::StringRef ptx,
                    std::optional<ArchKind> arch = std::nullopt);

/// \p ptx with a `// explain: ...` comment line before every MMA
/// instruction: the instruction decoded, then one line per descriptor
/// operand (and the tilec annotation tags' source lines when present). The
/// result is still valid PTX. \p count receives the number of instructions
/// explained.
std::string explainPtx(llvm::StringRef ptx,
                       std::optional<ArchKind> arch = std::nullopt,
                       unsigned *count = nullptr);

/// What `tilec compile --annotate` knows of a kernel beside its PTX: the
/// shared-memory tiles the layout algebra put A and B in, and the .tile
/// lines of the mma and smem statements.
struct PtxAnnotateFacts {
  struct Operand {
    std::string name;   ///< "smem a".
    std::string layout; ///< As written: "tile_to_shape(K_SW128<bf16>, ...)".
    std::optional<SmemTileLayout> tile; ///< One pipeline stage.
  };
  Operand a, b;
  std::string source; ///< "gemm.tile:20 (mma), gemm.tile:18 (smem a), ..."
};

/// tilec compile --annotate for the MMAs its code generator left without
/// `// tilec:` comments (the sm_100a generator): before each, `// tilec:`
/// lines with what `tilec explain` decodes, each smem descriptor matched
/// against the subtiles the layout algebra derives from \p facts' tiles
/// (which subtile, whether the descriptor's constant bits are the derived
/// ones), and the source lines; before every other tcgen05 instruction
/// its note. MMAs codegen annotated are left as they are. \p count
/// receives the number of MMAs annotated here.
std::string annotatePtx(llvm::StringRef ptx, const PtxAnnotateFacts &facts,
                        unsigned *count = nullptr);

} // namespace tilec

#endif // TILEC_IR_PTX_PTXDESCRIPTORSCAN_H
