//===- runtime/sim/Tcgen05.cpp - Tensor memory, tcgen05.mma, ld and st ----===//
//
// Tensor memory is 128 lanes x 512 columns of 32-bit cells. Allocations are
// column ranges, a power of two from 32 to 512 columns, placed first-fit at
// a multiple of their size.
//
// tcgen05.mma writes D (f32) in the PTX ISA's data path layouts
// (9.7.16.10.5, "Matrix fragments ... data path layout organization"):
//   layout D (cta_group::1, M = 128) and layout A (cta_group::2, M = 256,
//     each CTA's 128 rows): row i of the CTA's rows in lane i, column n in
//     column (D's column) + n;
//   layout F (cta_group::1, M = 64): rows 16 q .. 16 q + 15 in lanes 32 q ..
//     32 q + 15, column n in column + n, so each warp of a warpgroup reads
//     its 16 rows with a 16xNb tcgen05.ld;
//   layout B (cta_group::2, M = 128, dense: 64 rows per CTA): row r < 64 and
//     column n < N / 2 in lane r, column + n; column n >= N / 2 in lane 64 +
//     r, column + n - N / 2. The two N / 2 column halves are folded onto the
//     two 64-lane halves, so the MMA writes N / 2 columns of all 128 lanes.
//     (CUTLASS: cute::UMMA::tmem_frg<.., 2> for M_MMA = 64, the "2x2" atom
//     (64,(N/2,2)):(1,(128,64)) in DP-stride-1 / column-stride-128 units.)
// A cta_group::2 MMA reads A's rows 0 .. M/2 - 1 from the even CTA's shared
// memory and M/2 .. M - 1 from the odd CTA's (each CTA's descriptors at the
// same offsets), B's columns 0 .. N/2 - 1 from the even CTA's and the rest
// from the odd CTA's (CUTLASS's SM100_MMA_*_2x1SM traits: ALayout and
// BLayout split M and N in halves over ThrID = 2), and each CTA's D rows go
// to its own tensor memory.
//
// tcgen05.ld / st fragments (one repetition; .xN repeats along columns, the
// registers of repetition r following those of r - 1), with t = lane id:
//   32x32b:  lane t, column 0
//   16x64b:  lane t / 4 + 8 (t % 2), column (t / 2) % 2
//   16x128b: register j: lane t / 4 + 8 j, column t % 4
//   16x256b: register j: lane t / 4 + 8 (j / 2), column 2 (t % 4) + j % 2
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/Tcgen05.h"
#include "runtime/sim/SimFault.h"
#include "runtime/sim/SmemMatrixDescriptor.h"

#include <fmt/format.h>

namespace tilec::sim {

TensorMemory::TensorMemory() : cells(std::size_t(Lanes) * Columns, 0) {}

void TensorMemory::checkAllocCount(unsigned columns) const {
  if (columns < 32 || columns > 512 || (columns & (columns - 1)))
    throw SimFault(fmt::format("tcgen05.alloc of {} columns: the count must "
                               "be a power of two in 32..512",
                               columns));
  if (permitRelinquished)
    throw SimFault(fmt::format("tcgen05.alloc of {} columns after "
                               "tcgen05.relinquish_alloc_permit",
                               columns));
}

bool TensorMemory::isFree(unsigned first, unsigned columns) const {
  for (auto [f, n] : live)
    if (first < f + n && f < first + columns)
      return false;
  for (auto [f, n] : owedPairAllocs)
    if (first < f + n && f < first + columns)
      return false;
  return true;
}

std::uint32_t TensorMemory::allocatePair(TensorMemory &peer, unsigned columns) {
  checkAllocCount(columns);
  // PTX ISA 9.7.16.7.1: with .cta_group::2 one warp of each CTA of the pair
  // executes tcgen05.alloc, and the same columns are allocated in both.
  for (unsigned first = 0; first + columns <= Columns; first += columns)
    if (isFree(first, columns) && peer.isFree(first, columns)) {
      live.push_back({first, columns});
      peer.owedPairAllocs.push_back({first, columns});
      peer.live.push_back({first, columns});
      return first;
    }
  throw SimFault(fmt::format("tcgen05.alloc.cta_group::2 of {} columns: no "
                             "column range is free in both CTAs of the pair",
                             columns));
}

std::optional<std::uint32_t> TensorMemory::takeOwedPairAlloc(unsigned columns) {
  if (owedPairAllocs.empty())
    return std::nullopt;
  checkAllocCount(columns);
  auto [first, count] = owedPairAllocs.front();
  if (count != columns)
    throw SimFault(fmt::format("tcgen05.alloc.cta_group::2 of {} columns, but "
                               "the peer CTA's allocated {}: both CTAs of the "
                               "pair must allocate the same count",
                               columns, count));
  owedPairAllocs.erase(owedPairAllocs.begin());
  return first;
}

std::uint32_t TensorMemory::allocate(unsigned columns) {
  checkAllocCount(columns);
  for (unsigned first = 0; first + columns <= Columns; first += columns) {
    if (isFree(first, columns)) {
      live.push_back({first, columns});
      return first;
    }
  }
  unsigned used = 0;
  for (auto [f, n] : live)
    used += n;
  throw SimFault(fmt::format("tcgen05.alloc of {} columns: no room left ({} of "
                             "512 columns allocated in {} allocations)",
                             columns, used, live.size()));
}

void TensorMemory::deallocate(std::uint32_t address, unsigned columns) {
  unsigned lane = address >> 16, column = address & 0xffff;
  for (auto it = live.begin(); it != live.end(); ++it)
    if (lane == 0 && it->first == column && it->second == columns) {
      live.erase(it);
      return;
    }
  throw SimFault(fmt::format("tcgen05.dealloc of {} columns at tensor-memory "
                             "address 0x{:08x} matches no live allocation",
                             columns, address));
}

void TensorMemory::checkAllFreed() const {
  if (!owedPairAllocs.empty())
    throw SimFault(fmt::format(
        "the peer CTA executed tcgen05.alloc.cta_group::2 of {} columns, but "
        "this CTA of the pair never executed its own (PTX ISA 9.7.16.7.1: "
        "one warp of each CTA of the pair allocates)",
        owedPairAllocs.front().second));
  if (live.empty())
    return;
  std::string list;
  for (auto [f, n] : live)
    list += fmt::format("{}{} columns at column {}", list.empty() ? "" : ", ",
                        n, f);
  throw SimFault("the CTA exited with tensor memory still allocated (" + list +
                 "); every tcgen05.alloc needs a tcgen05.dealloc");
}

void TensorMemory::checkColumn(unsigned lane, unsigned column,
                               const char *what) const {
  if (lane >= Lanes)
    throw SimFault(
        fmt::format("{}: tensor-memory lane {} is past lane 127", what, lane));
  for (auto [f, n] : live)
    if (column >= f && column < f + n)
      return;
  throw SimFault(fmt::format("{}: tensor-memory column {} (lane {}) is "
                             "outside every allocation",
                             what, column, lane));
}

std::uint32_t TensorMemory::read(unsigned lane, unsigned column) const {
  checkColumn(lane, column, "tensor-memory read");
  return cells[std::size_t(lane) * Columns + column];
}

void TensorMemory::write(unsigned lane, unsigned column, std::uint32_t value) {
  checkColumn(lane, column, "tensor-memory write");
  cells[std::size_t(lane) * Columns + column] = value;
}

namespace {

/// The tensor-memory lane of D's row \p r (of this CTA's rows) and column
/// \p c: data path layouts A and D put row r at lane r, layout F (M = 64)
/// rows 16 q .. 16 q + 15 at lanes 32 q .. 32 q + 15, and layout B
/// (cta_group::2 M = 128) folds the second half of the columns onto lanes
/// 64..127.
unsigned mmaLane(const Tcgen05InstrDesc &id, unsigned ctaGroup, unsigned r,
                 unsigned c) {
  if (ctaGroup == 2 && id.m == 128)
    return r + 64 * (c / (id.n / 2));
  return id.m == 64 ? 32 * (r / 16) + r % 16 : r;
}

bool laneIn(const TmemLaneMask &mask, unsigned lane) {
  return mask[lane / 32] >> (lane % 32) & 1;
}

} // namespace

TmemLaneMask tcgen05MmaLanes(const Tcgen05InstrDesc &id, unsigned ctaGroup,
                             const TmemLaneMask &disabled) {
  TmemLaneMask lanes{};
  const unsigned rows = ctaGroup == 2 ? id.m / 2 : id.m;
  for (unsigned r = 0; r < rows; ++r)
    for (unsigned c : {0u, id.n - 1}) {
      unsigned lane = mmaLane(id, ctaGroup, r, c);
      if (!laneIn(disabled, lane))
        lanes[lane / 32] |= 1u << (lane % 32);
    }
  return lanes;
}

void tcgen05Mma(Tcgen05KindKind kind, unsigned ctaGroup, std::uint32_t idesc,
                std::uint64_t descA, std::uint64_t descB, std::uint32_t tmemD,
                bool enableInputD, const SharedMemory &smem,
                const SharedMemory *peerSmem, unsigned rank, TensorMemory &tmem,
                const TmemLaneMask &disabled) {
  Tcgen05InstrDesc id = decodeTcgen05InstrDesc(idesc, kind, ctaGroup);
  if (id.d != ElemKind::F32)
    throw SimFault("tcgen05.mma with an f16 D in tensor memory is not "
                   "modelled by the simulator");
  // decodeTcgen05InstrDesc admits cta_group::2 M = 128 and 256 only.
  if (ctaGroup == 2 && (!peerSmem || rank > 1))
    throw SimFault("tcgen05.mma.cta_group::2 needs the peer CTA's shared "
                   "memory and a rank of 0 or 1");
  if (tmemD >> 16)
    throw SimFault(fmt::format("tcgen05.mma: D's tensor-memory address "
                               "0x{:08x} must be at lane 0",
                               tmemD));
  const unsigned k = 256 / elemBits(id.a); // 32 bytes of K
  const unsigned rows = ctaGroup == 2 ? id.m / 2 : id.m;
  const unsigned n = id.n, column0 = tmemD & 0xffff;
  // Layout B: cta_group::2 M = 128 folds the column halves onto the lane
  // halves.
  const bool folded = ctaGroup == 2 && id.m == 128;
  const unsigned aBits = elemBits(id.a), bBits = elemBits(id.b);
  SmemMatrixDesc da = decodeUmmaDescriptor(descA);
  SmemMatrixDesc db = decodeUmmaDescriptor(descB);
  const char *what = "tcgen05.mma operand read";
  auto read = [&](const SharedMemory &s, std::uint32_t addr, ElemKind e) {
    std::uint32_t bits = 0;
    s.read(addr, &bits, elemBits(e) / 8, what);
    return double(decodeElem(e, bits));
  };
  std::vector<double> a(std::size_t(rows) * k), b(std::size_t(n) * k);
  for (unsigned r = 0; r < rows; ++r)
    for (unsigned kk = 0; kk < k; ++kk)
      a[r * k + kk] =
          read(smem, smemOperandAddress(da, id.aMnMajor, aBits, r, kk), id.a);
  // cta_group::2: each CTA's shared memory holds N / 2 columns of B.
  const unsigned half = ctaGroup == 2 ? n / 2 : n;
  for (unsigned c = 0; c < n; ++c) {
    const SharedMemory &src =
        ctaGroup == 1 ? smem : ((c < half) == (rank == 0) ? smem : *peerSmem);
    for (unsigned kk = 0; kk < k; ++kk)
      b[c * k + kk] = read(
          src, smemOperandAddress(db, id.bMnMajor, bBits, c % half, kk), id.b);
  }
  const double sign = (id.negateA ? -1.0 : 1.0) * (id.negateB ? -1.0 : 1.0);
  for (unsigned r = 0; r < rows; ++r) {
    for (unsigned c = 0; c < n; ++c) {
      unsigned lane = mmaLane(id, ctaGroup, r, c);
      unsigned column = folded ? column0 + c % half : column0 + c;
      // disable-output-lane (PTX ISA, tcgen05.mma): "if a bit in the mask
      // is 1, then the corresponding lane in the Tensor Memory for the
      // resultant matrix D will not be updated".
      if (laneIn(disabled, lane))
        continue;
      double sum = 0;
      for (unsigned kk = 0; kk < k; ++kk)
        sum += a[r * k + kk] * b[c * k + kk];
      double acc = enableInputD
                       ? decodeElem(ElemKind::F32, tmem.read(lane, column))
                       : 0.0;
      tmem.write(lane, column,
                 encodeElem(ElemKind::F32, float(sign * sum + acc)));
    }
  }
}

namespace {

/// One repetition of a tcgen05.ld/st shape: columns it spans, registers per
/// lane, and the (lane, column) of register j of thread t.
struct LdShape {
  unsigned lanes, columns, regs;
  std::pair<unsigned, unsigned> at(Tcgen05LdShapeKind s, unsigned t,
                                   unsigned j) const {
    switch (s) {
    case Tcgen05LdShapeKind::S32x32b:
      return {t, 0};
    case Tcgen05LdShapeKind::S16x64b:
      return {t / 4 + 8 * (t % 2), (t / 2) % 2};
    case Tcgen05LdShapeKind::S16x128b:
      return {t / 4 + 8 * j, t % 4};
    case Tcgen05LdShapeKind::S16x256b:
      return {t / 4 + 8 * (j / 2), 2 * (t % 4) + j % 2};
    }
    return {0, 0};
  }
};

LdShape ldShape(Tcgen05LdShapeKind s) {
  switch (s) {
  case Tcgen05LdShapeKind::S32x32b:
    return {32, 1, 1};
  case Tcgen05LdShapeKind::S16x64b:
    return {16, 2, 1};
  case Tcgen05LdShapeKind::S16x128b:
    return {16, 4, 2};
  case Tcgen05LdShapeKind::S16x256b:
    return {16, 8, 4};
  }
  return {32, 1, 1};
}

const char *ldShapeName(Tcgen05LdShapeKind s) {
  switch (s) {
  case Tcgen05LdShapeKind::S32x32b:
    return "32x32b";
  case Tcgen05LdShapeKind::S16x64b:
    return "16x64b";
  case Tcgen05LdShapeKind::S16x128b:
    return "16x128b";
  case Tcgen05LdShapeKind::S16x256b:
    return "16x256b";
  }
  return "?";
}

/// Checks the shape, count, register span and lane quarter; returns the
/// shape.
LdShape checkLdSt(const char *op, Tcgen05LdShapeKind shape, unsigned num,
                  unsigned warpId, std::uint32_t taddr, std::size_t regsGiven) {
  LdShape s = ldShape(shape);
  if (num == 0 || num > 128 || (num & (num - 1)) || s.regs * num > 128)
    throw SimFault(fmt::format("{}.{}.x{}: .num must be a power of two with "
                               "at most 128 registers per thread",
                               op, ldShapeName(shape), num));
  unsigned regs = s.regs * num;
  if (regsGiven < 32 * regs)
    throw SimFault(fmt::format("{}.{}.x{}: {} registers per lane given, {} "
                               "needed",
                               op, ldShapeName(shape), num, regsGiven / 32,
                               regs));
  unsigned lane = taddr >> 16, quarter = warpId % 4;
  if (lane < 32 * quarter || lane + s.lanes > 32 * quarter + 32)
    throw SimFault(fmt::format(
        "{}.{}: warp {} may access lanes {}..{} only (its quarter {}), but "
        "the address 0x{:08x} names lanes {}..{}",
        op, ldShapeName(shape), warpId, 32 * quarter, 32 * quarter + 31,
        quarter, taddr, lane, lane + s.lanes - 1));
  return s;
}

} // namespace

unsigned tcgen05LdRegs(Tcgen05LdShapeKind shape, unsigned num) {
  return ldShape(shape).regs * num;
}

unsigned tcgen05LdLanes(Tcgen05LdShapeKind shape) {
  return ldShape(shape).lanes;
}

unsigned tcgen05LdColumns(Tcgen05LdShapeKind shape, unsigned num) {
  return ldShape(shape).columns * num;
}

void tcgen05Ld(Tcgen05LdShapeKind shape, unsigned num, unsigned warpId,
               std::uint32_t taddr, const TensorMemory &tmem,
               std::span<std::uint32_t> regs) {
  LdShape s = checkLdSt("tcgen05.ld", shape, num, warpId, taddr, regs.size());
  unsigned perLane = s.regs * num, lane0 = taddr >> 16, col0 = taddr & 0xffff;
  for (unsigned t = 0; t < 32; ++t)
    for (unsigned rep = 0; rep < num; ++rep)
      for (unsigned j = 0; j < s.regs; ++j) {
        auto [l, c] = s.at(shape, t, j);
        regs[t * perLane + rep * s.regs + j] =
            tmem.read(lane0 + l, col0 + rep * s.columns + c);
      }
}

void tcgen05St(Tcgen05LdShapeKind shape, unsigned num, unsigned warpId,
               std::uint32_t taddr, std::span<const std::uint32_t> regs,
               TensorMemory &tmem) {
  LdShape s = checkLdSt("tcgen05.st", shape, num, warpId, taddr, regs.size());
  unsigned perLane = s.regs * num, lane0 = taddr >> 16, col0 = taddr & 0xffff;
  for (unsigned t = 0; t < 32; ++t)
    for (unsigned rep = 0; rep < num; ++rep)
      for (unsigned j = 0; j < s.regs; ++j) {
        auto [l, c] = s.at(shape, t, j);
        tmem.write(lane0 + l, col0 + rep * s.columns + c,
                   regs[t * perLane + rep * s.regs + j]);
      }
}

} // namespace tilec::sim
