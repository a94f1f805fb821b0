//===- runtime/sim/MmaSync.cpp - mma.sync and ldmatrix/stmatrix of one warp
//-===//
//
// The fragment layouts of mma.sync.m16n8kK follow one pattern across element
// widths (PTX ISA, "Matrix Fragments for mma.m16n8kK"): with g = lane / 4 and
// t = lane % 4 and E = 32 / bits elements per register,
//   A register r, element j: row g + 8 (r & 1), column E t + j + K/2 (r >> 1)
//   B register r, element j: row (k) E t + j + K/2 r, column (n) g
//   C/D f32 register r:      row g + 8 (r >> 1), column 2 t + (r & 1)
//   C/D f16 register r, j:   row g + 8 r, column 2 t + j
// which gives, e.g., for bf16 m16n8k16 the A registers {a0,a1} row g, cols
// 2t, 2t+1; {a2,a3} row g+8; {a4,a5} row g, cols 2t+8, 2t+9; {a6,a7} row g+8.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/MmaSync.h"
#include "runtime/sim/SimFault.h"

#include <fmt/format.h>

namespace tilec::sim {

namespace {

bool isF8(ElemKind k) { return k == ElemKind::E4M3 || k == ElemKind::E5M2; }
bool isAccum(ElemKind k) { return k == ElemKind::F32 || k == ElemKind::F16; }

/// Throws unless mma.sync.m16n8kK with these types is one the ISA defines
/// (and the simulator models).
void checkShape(const MmaSyncShape &s) {
  auto bad = [&](const char *why) {
    throw SimFault(fmt::format(
        "mma.sync.aligned.m{}n{}k{}.row.col.{}.{}.{}.{} is not supported: {}",
        s.m, s.n, s.k, elemName(s.d), elemName(s.a), elemName(s.b),
        elemName(s.c), why));
  };
  if (s.m != 16 || s.n != 8)
    bad("only m16n8 shapes are modelled");
  if (!isAccum(s.c) || !isAccum(s.d))
    bad("C and D must be f16 or f32");
  if (s.a == ElemKind::F16 || s.a == ElemKind::BF16) {
    if (s.b != s.a)
      bad("A and B must have the same 16-bit type");
    if (s.k != 16 && s.k != 8)
      bad("16-bit inputs take k = 8 or 16");
    if (s.a == ElemKind::BF16 && (s.c != ElemKind::F32 || s.d != ElemKind::F32))
      bad("bf16 inputs need f32 C and D");
    return;
  }
  if (s.a == ElemKind::TF32) {
    if (s.b != ElemKind::TF32)
      bad("tf32 A needs tf32 B");
    if (s.k != 8 && s.k != 4)
      bad("tf32 inputs take k = 4 or 8");
    if (s.c != ElemKind::F32 || s.d != ElemKind::F32)
      bad("tf32 inputs need f32 C and D");
    return;
  }
  if (isF8(s.a)) {
    if (!isF8(s.b))
      bad("an e4m3/e5m2 A needs an e4m3/e5m2 B");
    if (s.k != 32 && s.k != 16)
      bad("8-bit float inputs take k = 16 or 32");
    return;
  }
  bad("the A type is not a tensor-core float type");
}

/// Element j of a register of \p bits-wide elements.
std::uint32_t extract(std::uint32_t reg, unsigned bits, unsigned j) {
  if (bits == 32)
    return reg;
  return (reg >> (j * bits)) & ((1u << bits) - 1);
}

std::uint32_t checkedRowAddress(std::uint32_t addr, unsigned lane,
                                const char *what) {
  if (addr % 16)
    throw SimFault(fmt::format("{}: lane {} row address 0x{:x} is not "
                               "16-byte aligned",
                               what, lane, addr));
  return addr;
}

void checkNum(int num, const char *what) {
  if (num != 1 && num != 2 && num != 4)
    throw SimFault(
        fmt::format("{}: .x{} is not one of .x1, .x2, .x4", what, num));
}

} // namespace

void mmaSync(const MmaSyncShape &shape, const WarpRegs &a, const WarpRegs &b,
             const WarpRegs &c, WarpRegs &d) {
  checkShape(shape);
  const unsigned aBits = elemBits(shape.a), bBits = elemBits(shape.b);
  const unsigned aPer = 32 / aBits, bPer = 32 / bBits;
  const unsigned k = unsigned(shape.k), half = k / 2;
  const unsigned aRegs = 16 * k / (32 * aPer), bRegs = 8 * k / (32 * bPer);
  float av[16][32], bv[32][8], cv[16][8];
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned g = lane / 4, t = lane % 4;
    for (unsigned r = 0; r < aRegs; ++r)
      for (unsigned j = 0; j < aPer; ++j)
        av[g + 8 * (r & 1)][aPer * t + j + half * (r >> 1)] =
            decodeElem(shape.a, extract(a[lane][r], aBits, j));
    for (unsigned r = 0; r < bRegs; ++r)
      for (unsigned j = 0; j < bPer; ++j)
        bv[bPer * t + j + half * r][g] =
            decodeElem(shape.b, extract(b[lane][r], bBits, j));
    if (shape.c == ElemKind::F32) {
      for (unsigned r = 0; r < 4; ++r)
        cv[g + 8 * (r >> 1)][2 * t + (r & 1)] =
            decodeElem(ElemKind::F32, c[lane][r]);
    } else {
      for (unsigned r = 0; r < 2; ++r)
        for (unsigned j = 0; j < 2; ++j)
          cv[g + 8 * r][2 * t + j] =
              decodeElem(ElemKind::F16, extract(c[lane][r], 16, j));
    }
  }
  float dv[16][8];
  for (unsigned i = 0; i < 16; ++i)
    for (unsigned n = 0; n < 8; ++n) {
      double sum = 0;
      for (unsigned kk = 0; kk < k; ++kk)
        sum += double(av[i][kk]) * double(bv[kk][n]);
      dv[i][n] = float(sum + double(cv[i][n]));
    }
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned g = lane / 4, t = lane % 4;
    d[lane] = {0, 0, 0, 0};
    if (shape.d == ElemKind::F32) {
      for (unsigned r = 0; r < 4; ++r)
        d[lane][r] =
            encodeElem(ElemKind::F32, dv[g + 8 * (r >> 1)][2 * t + (r & 1)]);
    } else {
      for (unsigned r = 0; r < 2; ++r)
        d[lane][r] =
            encodeElem(ElemKind::F16, dv[g + 8 * r][2 * t]) |
            (encodeElem(ElemKind::F16, dv[g + 8 * r][2 * t + 1]) << 16);
    }
  }
}

void ldmatrix(int num, bool trans, const std::array<std::uint32_t, 32> &rowAddr,
              const SharedMemory &smem, WarpRegs &out) {
  const char *what = trans ? "ldmatrix .trans" : "ldmatrix";
  checkNum(num, what);
  // rows[m][r]: the 8 b16 elements of row r of matrix m.
  std::uint16_t rows[4][8][8];
  for (int m = 0; m < num; ++m)
    for (unsigned r = 0; r < 8; ++r) {
      unsigned lane = 8 * unsigned(m) + r;
      smem.read(checkedRowAddress(rowAddr[lane], lane, what), rows[m][r], 16,
                what);
    }
  for (unsigned lane = 0; lane < 32; ++lane) {
    out[lane] = {0, 0, 0, 0};
    for (int m = 0; m < num; ++m) {
      std::uint32_t lo, hi;
      if (!trans) {
        lo = rows[m][lane / 4][2 * (lane % 4)];
        hi = rows[m][lane / 4][2 * (lane % 4) + 1];
      } else {
        lo = rows[m][2 * (lane % 4)][lane / 4];
        hi = rows[m][2 * (lane % 4) + 1][lane / 4];
      }
      out[lane][m] = lo | (hi << 16);
    }
  }
}

void stmatrix(int num, bool trans, const std::array<std::uint32_t, 32> &rowAddr,
              const WarpRegs &in, SharedMemory &smem) {
  const char *what = trans ? "stmatrix .trans" : "stmatrix";
  checkNum(num, what);
  std::uint16_t rows[4][8][8];
  for (unsigned lane = 0; lane < 32; ++lane)
    for (int m = 0; m < num; ++m) {
      std::uint16_t lo = in[lane][m] & 0xffff, hi = in[lane][m] >> 16;
      if (!trans) {
        rows[m][lane / 4][2 * (lane % 4)] = lo;
        rows[m][lane / 4][2 * (lane % 4) + 1] = hi;
      } else {
        rows[m][2 * (lane % 4)][lane / 4] = lo;
        rows[m][2 * (lane % 4) + 1][lane / 4] = hi;
      }
    }
  for (int m = 0; m < num; ++m)
    for (unsigned r = 0; r < 8; ++r) {
      unsigned lane = 8 * unsigned(m) + r;
      smem.write(checkedRowAddress(rowAddr[lane], lane, what), rows[m][r], 16,
                 what);
    }
}

} // namespace tilec::sim
