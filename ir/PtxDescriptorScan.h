//===- ir/PtxDescriptorScan.h - Find and decode descriptors in PTX -*- C++
//-*-===//
//
// What `tilec explain` needs to annotate PTX: every wgmma.mma_async and
// tcgen05.mma instruction's shared-memory descriptors and instruction
// descriptor, with their values where the PTX makes them known (a mov of an
// immediate, possibly followed by adds of immediates, the descriptor advance)
// and each decoded field by field.
//
// Example: in
//   mov.b64 %rd1, 4611686293305360384;
//   wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {...}, %rd1, %rd2,
//       p, 1, 1, 0, 0;
// operand a-desc is 0x4000004000010000 on sm_90a: SW128, start 0, LBO 16,
// SBO 1024.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_PTXDESCRIPTORSCAN_H
#define TILEC_IR_PTXDESCRIPTORSCAN_H

#include "ir/Arch.h"
#include "ir/InstrDescriptor.h"
#include "ir/SmemDescriptor.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// One descriptor operand of one MMA instruction.
struct PtxDescriptorUse {
  enum class RoleKind { SmemA, SmemB, Instr };
  unsigned line = 0; ///< 1-based line of the instruction.
  RoleKind role = RoleKind::SmemA;
  std::string operand;           ///< As written: "%rd12" or an immediate.
  std::optional<uint64_t> value; ///< Known statically.
  std::string description;       ///< Decoded fields, or why not.
};

/// "SW128 start=0 LBO=16 SBO=1024 base_offset=0" (sm_100 adds version and
/// lbo_mode), or the decoding error.
std::string describeSmemDescriptor(uint64_t desc, ArchKind arch);

/// "kind::f16 bf16 x bf16 -> f32 M=128 N=256 A:K B:K", or the error.
std::string describeInstrDescriptor(uint32_t idesc, MmaKindKind kind);

/// Scans \p ptx for MMA instructions. The arch comes from `.target` unless
/// \p arch is given.
std::vector<PtxDescriptorUse>
scanPtxDescriptors(llvm::StringRef ptx,
                   std::optional<ArchKind> arch = std::nullopt);

} // namespace tilec

#endif // TILEC_IR_PTXDESCRIPTORSCAN_H
