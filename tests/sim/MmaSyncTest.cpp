//===- tests/sim/MmaSyncTest.cpp - mma.sync fragments, ldmatrix, stmatrix -===//
//
// Fragments are packed by the test from the PTX ISA's per-shape fragment
// tables (written out per shape, not from the simulator's general formula),
// and D is checked against an fp64 GEMM of the decoded random inputs.
// ldmatrix / stmatrix are checked against the ISA's m8n8 figure: lane l
// receives row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 of each matrix
// (transposed with .trans).
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/MmaSync.h"
#include "runtime/sim/SimFault.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

using namespace tilec::sim;

namespace {

/// (lane, register, element-in-register) -> (row, column) of a fragment.
using FragMap =
    std::function<std::pair<unsigned, unsigned>(unsigned, unsigned, unsigned)>;

/// The ISA's A fragment tables, shape by shape.
FragMap aFragment(ElemKind a, int k) {
  unsigned bits = elemBits(a);
  if (bits == 16 && k == 16) // m16n8k16 .f16/.bf16: a0..a7
    return [](unsigned l, unsigned r, unsigned j) {
      unsigned i = 2 * r + j, g = l >> 2, t = l % 4;
      unsigned row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
      unsigned col = i < 4 ? t * 2 + (i & 1) : t * 2 + (i & 1) + 8;
      return std::pair{row, col};
    };
  if (bits == 16 && k == 8) // m16n8k8 .f16/.bf16: a0..a3
    return [](unsigned l, unsigned r, unsigned j) {
      unsigned i = 2 * r + j;
      return std::pair{i < 2 ? l / 4 : l / 4 + 8, (l % 4) * 2 + (i & 1)};
    };
  if (bits == 32 && k == 8) // m16n8k8 .tf32: a0..a3
    return [](unsigned l, unsigned r, unsigned) {
      unsigned row = (r == 0 || r == 2) ? l / 4 : l / 4 + 8;
      unsigned col = r < 2 ? l % 4 : l % 4 + 4;
      return std::pair{row, col};
    };
  if (bits == 32 && k == 4) // m16n8k4 .tf32: a0, a1
    return [](unsigned l, unsigned r, unsigned) {
      return std::pair{r == 0 ? l / 4 : l / 4 + 8, l % 4};
    };
  if (bits == 8 && k == 32) // m16n8k32 .e4m3/.e5m2: a0..a15
    return [](unsigned l, unsigned r, unsigned j) {
      unsigned i = 4 * r + j, g = l / 4, t = l % 4;
      unsigned row = (i < 4 || (i >= 8 && i < 12)) ? g : g + 8;
      unsigned col = i < 8 ? t * 4 + (i & 3) : t * 4 + (i & 3) + 16;
      return std::pair{row, col};
    };
  // m16n8k16 8-bit: a0..a7
  return [](unsigned l, unsigned r, unsigned j) {
    return std::pair{r == 0 ? l / 4 : l / 4 + 8, (l % 4) * 4 + j};
  };
}

/// The ISA's B fragment tables: (k, n).
FragMap bFragment(ElemKind b, int k) {
  unsigned bits = elemBits(b);
  if (bits == 16) // b0..b3 (k16) / b0,b1 (k8)
    return [](unsigned l, unsigned r, unsigned j) {
      unsigned i = 2 * r + j;
      return std::pair{
          i < 2 ? (l % 4) * 2 + (i & 1) : (l % 4) * 2 + (i & 1) + 8, l / 4};
    };
  if (bits == 32) // tf32 b0, b1
    return [](unsigned l, unsigned r, unsigned) {
      return std::pair{r == 0 ? l % 4 : l % 4 + 4, l / 4};
    };
  (void)k; // 8-bit: b0..b7 (k32) / b0..b3 (k16)
  return [](unsigned l, unsigned r, unsigned j) {
    unsigned i = 4 * r + j;
    return std::pair{i < 4 ? (l % 4) * 4 + i : (l % 4) * 4 + (i - 4) + 16,
                     l / 4};
  };
}

/// C/D f32: c0..c3.
std::pair<unsigned, unsigned> cFragmentF32(unsigned l, unsigned i) {
  return {i < 2 ? l / 4 : l / 4 + 8, (l % 4) * 2 + (i & 1)};
}

/// Random codes of \p kind that are finite and moderate.
std::uint32_t randomCode(ElemKind kind, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-2, 2);
  return encodeElem(kind, dist(rng), true);
}

void checkMma(MmaSyncShape s, unsigned seed) {
  std::mt19937 rng(seed);
  unsigned k = unsigned(s.k);
  std::vector<std::uint32_t> aCodes(16 * k), bCodes(k * 8);
  std::vector<float> cVals(16 * 8);
  for (auto &c : aCodes)
    c = randomCode(s.a, rng);
  for (auto &c : bCodes)
    c = randomCode(s.b, rng);
  for (auto &c : cVals)
    c = decodeElem(s.c, randomCode(s.c, rng));
  WarpRegs a{}, b{}, c{}, d{};
  unsigned aBits = elemBits(s.a), bBits = elemBits(s.b);
  unsigned aPer = 32 / aBits, bPer = 32 / bBits;
  unsigned aRegs = 16 * k / 32 / aPer, bRegs = 8 * k / 32 / bPer;
  FragMap af = aFragment(s.a, s.k), bf = bFragment(s.b, s.k);
  for (unsigned l = 0; l < 32; ++l) {
    for (unsigned r = 0; r < aRegs; ++r)
      for (unsigned j = 0; j < aPer; ++j) {
        auto [row, col] = af(l, r, j);
        std::uint32_t code = aCodes[row * k + col];
        a[l][r] |= aBits == 32 ? code : code << (j * aBits);
      }
    for (unsigned r = 0; r < bRegs; ++r)
      for (unsigned j = 0; j < bPer; ++j) {
        auto [kk, n] = bf(l, r, j);
        std::uint32_t code = bCodes[kk * 8 + n];
        b[l][r] |= bBits == 32 ? code : code << (j * bBits);
      }
    if (s.c == ElemKind::F32) {
      for (unsigned i = 0; i < 4; ++i) {
        auto [row, col] = cFragmentF32(l, i);
        c[l][i] = encodeElem(ElemKind::F32, cVals[row * 8 + col]);
      }
    } else {
      for (unsigned i = 0; i < 4; ++i) { // c0..c3 in two registers
        auto [row, col] = cFragmentF32(l, i);
        c[l][i / 2] |= encodeElem(ElemKind::F16, cVals[row * 8 + col])
                       << (16 * (i & 1));
      }
    }
  }
  mmaSync(s, a, b, c, d);
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned i = 0; i < 4; ++i) {
      auto [row, col] = cFragmentF32(l, i);
      double want = cVals[row * 8 + col];
      for (unsigned kk = 0; kk < k; ++kk)
        want += double(decodeElem(s.a, aCodes[row * k + kk])) *
                double(decodeElem(s.b, bCodes[kk * 8 + col]));
      double got =
          s.d == ElemKind::F32
              ? decodeElem(ElemKind::F32, d[l][i])
              : decodeElem(ElemKind::F16, d[l][i / 2] >> (16 * (i & 1)));
      double tol = s.d == ElemKind::F32 ? 1e-5 : 2e-3;
      EXPECT_NEAR(got, want, tol * (1 + std::fabs(want)))
          << elemName(s.a) << " k" << k << " lane " << l << " reg " << i;
    }
}

} // namespace

TEST(MmaSync, EveryShapeAgainstFp64) {
  const ElemKind F32 = ElemKind::F32, F16 = ElemKind::F16;
  std::vector<MmaSyncShape> shapes = {
      {16, 8, 16, ElemKind::BF16, ElemKind::BF16, F32, F32},
      {16, 8, 8, ElemKind::BF16, ElemKind::BF16, F32, F32},
      {16, 8, 16, F16, F16, F32, F32},
      {16, 8, 16, F16, F16, F16, F16},
      {16, 8, 8, F16, F16, F16, F32},
      {16, 8, 8, ElemKind::TF32, ElemKind::TF32, F32, F32},
      {16, 8, 4, ElemKind::TF32, ElemKind::TF32, F32, F32},
      {16, 8, 32, ElemKind::E4M3, ElemKind::E4M3, F32, F32},
      {16, 8, 32, ElemKind::E5M2, ElemKind::E4M3, F32, F32},
      {16, 8, 32, ElemKind::E4M3, ElemKind::E5M2, F16, F16},
      {16, 8, 16, ElemKind::E5M2, ElemKind::E5M2, F32, F32},
  };
  unsigned seed = 1;
  for (const MmaSyncShape &s : shapes)
    checkMma(s, seed++);
}

TEST(MmaSync, Bf16KnownLanes) {
  // The ISA figure for m16n8k16 A: lane l holds rows l/4 and l/4 + 8,
  // columns (l%4)*2 + {0,1} and + 8. A = identity-like probe: A(i, kk) = 1
  // only at (5, 11); B(kk, n) = kk + 16 n, small integers exact in bf16.
  WarpRegs a{}, b{}, c{}, d{};
  // Element (5, 11): row 5 = l/4 -> lanes 20..23; col 11 = (l%4)*2+1+8 ->
  // l%4 = 1: lane 21, register 2 (a4, a5), high half.
  a[21][2] = 0x3f80u << 16;
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned r = 0; r < 2; ++r)
      for (unsigned j = 0; j < 2; ++j) {
        unsigned kk = (l % 4) * 2 + j + 8 * r, n = l / 4;
        b[l][r] |= encodeElem(ElemKind::BF16, float(kk + 16 * n)) << (16 * j);
      }
  mmaSync({}, a, b, c, d);
  // D row 5 = lanes 20..23 registers 0, 1: D(5, n) = 11 + 16 n.
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned i = 0; i < 4; ++i) {
      auto [row, col] =
          std::pair{i < 2 ? l / 4 : l / 4 + 8, (l % 4) * 2 + (i & 1)};
      float want = row == 5 ? float(11 + 16 * col) : 0.0f;
      EXPECT_EQ(decodeElem(ElemKind::F32, d[l][i]), want) << l << " " << i;
    }
}

TEST(MmaSync, RejectsIllegalShapes) {
  WarpRegs r{}, d{};
  MmaSyncShape s;
  s.k = 32;
  EXPECT_THROW(mmaSync(s, r, r, r, d), SimFault);
  s = {};
  s.c = s.d = ElemKind::F16; // bf16 needs f32 accumulators
  EXPECT_THROW(mmaSync(s, r, r, r, d), SimFault);
  s = {};
  s.a = s.b = ElemKind::TF32;
  s.k = 16;
  try {
    mmaSync(s, r, r, r, d);
    FAIL();
  } catch (const SimFault &f) {
    EXPECT_NE(std::string(f.what()).find("k = 4 or 8"), std::string::npos)
        << f.what();
  }
}

namespace {

/// Eight rows of eight b16 values per matrix at addresses with a gap, so
/// the row addresses are not contiguous.
std::array<std::uint32_t, 32> rowAddresses(int num) {
  std::array<std::uint32_t, 32> addr{};
  for (unsigned l = 0; l < 32; ++l)
    addr[l] = l < 8u * unsigned(num) ? 64 + 48 * ((l * 5) % (8 * num)) : 0;
  return addr;
}

} // namespace

TEST(LdMatrix, FragmentAndTrans) {
  std::mt19937 rng(7);
  for (int num : {1, 2, 4})
    for (bool trans : {false, true}) {
      SharedMemory smem(4096);
      auto addr = rowAddresses(num);
      // value[m][row][col]
      std::uint16_t val[4][8][8];
      for (int m = 0; m < num; ++m)
        for (unsigned r = 0; r < 8; ++r) {
          for (unsigned c = 0; c < 8; ++c)
            val[m][r][c] = std::uint16_t(rng());
          smem.write(addr[8 * m + r], val[m][r], 16);
        }
      WarpRegs out{};
      ldmatrix(num, trans, addr, smem, out);
      for (unsigned l = 0; l < 32; ++l)
        for (int m = 0; m < num; ++m) {
          // Figure: lane l holds row l/4, cols 2(l%4), 2(l%4)+1; with
          // .trans the matrix is transposed first.
          unsigned row = l / 4, c0 = 2 * (l % 4);
          std::uint32_t want =
              trans ? val[m][c0][row] | (val[m][c0 + 1][row] << 16)
                    : val[m][row][c0] | (val[m][row][c0 + 1] << 16);
          EXPECT_EQ(out[l][m], want) << num << trans << l << m;
        }
      // stmatrix is the inverse: storing the registers rebuilds the rows.
      SharedMemory back(4096);
      stmatrix(num, trans, addr, out, back);
      for (int m = 0; m < num; ++m)
        for (unsigned r = 0; r < 8; ++r) {
          std::uint16_t row[8];
          back.read(addr[8 * m + r], row, 16);
          for (unsigned c = 0; c < 8; ++c)
            EXPECT_EQ(row[c], val[m][r][c]);
        }
    }
}

TEST(LdMatrix, Faults) {
  SharedMemory smem(256);
  std::array<std::uint32_t, 32> addr{};
  WarpRegs out{};
  // Unwritten shared memory.
  EXPECT_THROW(ldmatrix(1, false, addr, smem, out), SimFault);
  std::vector<std::uint8_t> bytes(256, 1);
  smem.write(0, bytes.data(), 256);
  ldmatrix(1, false, addr, smem, out);
  addr[3] = 8; // misaligned row
  EXPECT_THROW(ldmatrix(1, false, addr, smem, out), SimFault);
  addr[3] = 0;
  addr[1] = 256; // past the end
  EXPECT_THROW(ldmatrix(1, false, addr, smem, out), SimFault);
  EXPECT_THROW(ldmatrix(3, false, addr, smem, out), SimFault);
}
