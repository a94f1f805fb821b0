//===- runtime/sim/Tcgen05.h - Tensor memory and tcgen05 of one CTA -*- C++
//-*-===//
//
// sm_100a's tensor memory: 128 lanes x 512 columns of 32-bit cells per CTA,
// allocated in columns (a power of two from 32 to 512) by tcgen05.alloc and
// freed by tcgen05.dealloc. A tensor-memory address is (lane << 16) | column.
// Every access is checked against the live allocations, warp w of a
// warpgroup may only touch lanes 32 (w % 4) .. 32 (w % 4) + 31, and an
// allocation still live when the CTA exits is an error.
//
// tcgen05.mma reads A and B through shared-memory descriptors (A from
// tensor memory in the .ts form is not modelled: tilec does not emit it),
// its shape, types and majorness through the 32-bit instruction descriptor,
// which is decoded field by field and checked against the ISA's tables.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIM_TCGEN05_H
#define TILEC_RUNTIME_SIM_TCGEN05_H

#include "runtime/sim/FloatFormats.h"
#include "runtime/sim/SimMemory.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tilec::sim {

/// One CTA's tensor memory with its allocations.
class TensorMemory {
public:
  static constexpr unsigned Lanes = 128, Columns = 512;
  TensorMemory();

  /// tcgen05.alloc of \p columns: returns the address (lane 0, first
  /// column). Throws SimFault when \p columns is not a power of two in
  /// [32, 512], when the permit was relinquished, or when no room is left.
  std::uint32_t allocate(unsigned columns);
  /// tcgen05.alloc.cta_group::2 by the first CTA of the pair to execute
  /// it: allocates the same \p columns (first fit in both) in this CTA's
  /// and \p peer's tensor memory and records in \p peer that its own
  /// tcgen05.alloc.cta_group::2 of \p columns is owed. Throws as allocate.
  std::uint32_t allocatePair(TensorMemory &peer, unsigned columns);
  /// tcgen05.alloc.cta_group::2 by the second CTA of the pair: the address
  /// of the allocation the peer made for both, or std::nullopt when the
  /// peer has not executed its alloc yet. Throws when the owed allocation
  /// has another column count or the permit was relinquished.
  std::optional<std::uint32_t> takeOwedPairAlloc(unsigned columns);
  /// tcgen05.dealloc; throws unless it matches a live allocation exactly.
  void deallocate(std::uint32_t address, unsigned columns);
  /// tcgen05.relinquish_alloc_permit.
  void relinquish() { permitRelinquished = true; }
  /// Throws SimFault listing the allocations still live (at CTA exit), or
  /// a pair allocation the peer made whose tcgen05.alloc.cta_group::2 this
  /// CTA never executed.
  void checkAllFreed() const;

  /// Cell (lane, column); throws SimFault when outside every allocation.
  std::uint32_t read(unsigned lane, unsigned column) const;
  void write(unsigned lane, unsigned column, std::uint32_t value);

private:
  std::vector<std::uint32_t> cells;
  /// Column ranges [first, first + count) that are allocated.
  std::vector<std::pair<unsigned, unsigned>> live;
  bool permitRelinquished = false;
  /// Pair allocations (first column, count) the peer made for this CTA
  /// too, awaiting this CTA's own tcgen05.alloc.cta_group::2.
  std::vector<std::pair<unsigned, unsigned>> owedPairAllocs;
  bool isFree(unsigned first, unsigned columns) const;
  void checkAllocCount(unsigned columns) const;
  void checkColumn(unsigned lane, unsigned column, const char *what) const;
};

/// tcgen05.mma's .kind.
enum class Tcgen05KindKind { F16, TF32, F8F6F4 };

/// The instruction descriptor's fields, decoded.
struct Tcgen05InstrDesc {
  unsigned m = 0, n = 0;
  ElemKind a = ElemKind::BF16, b = ElemKind::BF16, d = ElemKind::F32;
  bool negateA = false, negateB = false;
  bool aMnMajor = false, bMnMajor = false; ///< Transpose bits.
  bool sparse = false, saturate = false;
  unsigned maxShift = 0;
  std::string describe() const;
};

/// Decodes \p idesc for \p kind and \p ctaGroup (1 or 2); throws SimFault
/// naming the field and its legal values when any is reserved or the shape
/// is not in the ISA's table for that kind and CTA group.
Tcgen05InstrDesc decodeTcgen05InstrDesc(std::uint32_t idesc,
                                        Tcgen05KindKind kind,
                                        unsigned ctaGroup);

/// A set of a CTA's 128 tensor-memory lanes: bit l % 32 of word l / 32 is
/// lane l (the order of tcgen05.mma's disable-output-lane vector).
using TmemLaneMask = std::array<std::uint32_t, 4>;

/// The lanes of one CTA's tensor memory that a tcgen05.mma of \p id and
/// \p ctaGroup writes D to (data path layouts A, B, D, F), less those set
/// in \p disabled.
TmemLaneMask tcgen05MmaLanes(const Tcgen05InstrDesc &id, unsigned ctaGroup,
                             const TmemLaneMask &disabled = {});

/// tcgen05.mma.cta_group::1 (or the pair's two halves for ::2: call once per
/// CTA with its own shared memory, tensor memory and \p rank) D[tmemD] = A *
/// B (+ D when \p enableInputD). For ::2 each CTA's shared memory holds its
/// M / 2 rows of A (128 for M = 256, 64 for M = 128) and its half of B's N
/// columns; \p peerSmem is the other CTA's (null for ::1). D goes to the
/// CTA's tensor memory in the ISA's data path layout (Tcgen05.cpp: A, B, D
/// or F), except to the lanes set in \p disabled (this CTA's part of the
/// disable-output-lane operand), which keep their value.
void tcgen05Mma(Tcgen05KindKind kind, unsigned ctaGroup, std::uint32_t idesc,
                std::uint64_t descA, std::uint64_t descB, std::uint32_t tmemD,
                bool enableInputD, const SharedMemory &smem,
                const SharedMemory *peerSmem, unsigned rank, TensorMemory &tmem,
                const TmemLaneMask &disabled = {});

/// tcgen05.ld / tcgen05.st shapes.
enum class Tcgen05LdShapeKind { S32x32b, S16x64b, S16x128b, S16x256b };

/// Registers per lane of tcgen05.ld/st.sync.aligned.SHAPE.xNUM.b32.
unsigned tcgen05LdRegs(Tcgen05LdShapeKind shape, unsigned num);
/// Tensor-memory lanes tcgen05.ld/st.SHAPE spans from its address.
unsigned tcgen05LdLanes(Tcgen05LdShapeKind shape);
/// Tensor-memory columns tcgen05.ld/st.SHAPE.xNUM spans.
unsigned tcgen05LdColumns(Tcgen05LdShapeKind shape, unsigned num);

/// tcgen05.ld by warp \p warpId of the CTA at \p taddr: \p regs holds
/// 32 * tcgen05LdRegs(shape, num) registers, lane-major. Throws SimFault when
/// the lanes addressed are not the warp's quarter (warpId % 4) or outside an
/// allocation.
void tcgen05Ld(Tcgen05LdShapeKind shape, unsigned num, unsigned warpId,
               std::uint32_t taddr, const TensorMemory &tmem,
               std::span<std::uint32_t> regs);
/// tcgen05.st: the inverse.
void tcgen05St(Tcgen05LdShapeKind shape, unsigned num, unsigned warpId,
               std::uint32_t taddr, std::span<const std::uint32_t> regs,
               TensorMemory &tmem);

} // namespace tilec::sim

#endif // TILEC_RUNTIME_SIM_TCGEN05_H
