//===- tests/sim/Tcgen05Test.cpp - Tensor memory, tcgen05.mma, ld and st
//---===//
//
// Instruction descriptors are built from the PTX ISA's bit table and every
// illegal field is tried; tcgen05.mma is checked against an fp64 GEMM with
// operands placed in the canonical layouts by the test; tcgen05.ld/st are
// checked on the 16x256b fragment (the mma.sync D pattern: lane t holds
// rows t/4 and t/4 + 8, columns 2 (t % 4) and + 1) and by round trips.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/Tcgen05.h"
#include "runtime/sim/SimFault.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace tilec::sim;

namespace {

std::uint32_t idescOf(unsigned dtype, unsigned atype, unsigned btype,
                      unsigned m, unsigned n, bool transA = false,
                      bool transB = false, bool negA = false,
                      bool negB = false) {
  return (dtype << 4) | (atype << 7) | (btype << 10) | (unsigned(negA) << 13) |
         (unsigned(negB) << 14) | (unsigned(transA) << 15) |
         (unsigned(transB) << 16) | ((n >> 3) << 17) | ((m >> 4) << 24);
}

std::uint64_t ummaDesc(std::uint32_t start, std::uint32_t lbo,
                       std::uint32_t sbo, unsigned swizzleBytes) {
  unsigned type = swizzleBytes == 128  ? 2
                  : swizzleBytes == 64 ? 4
                  : swizzleBytes == 32 ? 6
                                       : 0;
  return std::uint64_t(start >> 4) | (std::uint64_t(lbo >> 4) << 16) |
         (std::uint64_t(sbo >> 4) << 32) | (1ull << 46) |
         (std::uint64_t(type) << 61);
}

std::uint32_t sw(unsigned w, std::uint32_t x) {
  unsigned b = w == 128 ? 3 : w == 64 ? 2 : w == 32 ? 1 : 0;
  return x ^ ((x & (((1u << b) - 1) << 7)) >> 3);
}

/// Canonical placement (same construction as the wgmma test): K-major atoms
/// stacked along M/N (SBO = 8 rows), MN-major atoms along K (SBO) then MN
/// (LBO).
struct Placement {
  std::uint32_t base, lbo, sbo;
  unsigned w, eb;
  bool mnMajor;
  std::uint32_t address(unsigned m, unsigned k) const {
    if (!mnMajor)
      return sw(w, base + (m % 8) * w + (m / 8) * sbo + k * eb);
    unsigned atom = w / eb;
    return sw(w, base + (m % atom) * eb + (m / atom) * lbo + (k % 8) * w +
                     (k / 8) * sbo);
  }
};

Placement place(std::uint32_t base, unsigned k, unsigned eb, unsigned w,
                bool mnMajor) {
  if (!mnMajor)
    return {base, 16, 8 * w, w, eb, false};
  return {base, ((k + 7) / 8) * 8 * w, 8 * w, w, eb, true};
}

std::uint32_t randomCode(ElemKind kind, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-2, 2);
  return encodeElem(kind, dist(rng), true);
}

struct MmaCase {
  Tcgen05KindKind kind;
  ElemKind a, b;
  unsigned atype, btype, m, n, w;
  bool mnMajor;
};

void runMma(const MmaCase &c, unsigned seed) {
  std::mt19937 rng(seed);
  unsigned eb = elemBits(c.a) / 8, k = 32 / eb;
  SharedMemory smem(128 * 1024);
  Placement pa = place(0, k, eb, c.w, c.mnMajor);
  Placement pb = place(0x8000, k, eb, c.w, c.mnMajor);
  std::vector<std::uint32_t> a(c.m * k), b(c.n * k);
  for (unsigned r = 0; r < c.m; ++r)
    for (unsigned kk = 0; kk < k; ++kk) {
      a[r * k + kk] = randomCode(c.a, rng);
      smem.write(pa.address(r, kk), &a[r * k + kk], eb);
    }
  for (unsigned col = 0; col < c.n; ++col)
    for (unsigned kk = 0; kk < k; ++kk) {
      b[col * k + kk] = randomCode(c.b, rng);
      smem.write(pb.address(col, kk), &b[col * k + kk], eb);
    }
  TensorMemory tmem;
  std::uint32_t d = tmem.allocate(256);
  // Initial D, accumulated onto (enable-input-d) with A negated.
  std::vector<float> init(c.m * c.n);
  auto laneOf = [&](unsigned r) {
    return c.m == 64 ? 32 * (r / 16) + r % 16 : r;
  };
  for (unsigned r = 0; r < c.m; ++r)
    for (unsigned col = 0; col < c.n; ++col) {
      init[r * c.n + col] = float(int(rng() % 17) - 8);
      tmem.write(laneOf(r), d + col,
                 encodeElem(ElemKind::F32, init[r * c.n + col]));
    }
  std::uint32_t id = idescOf(1, c.atype, c.btype, c.m, c.n, c.mnMajor,
                             c.mnMajor, /*negA=*/true);
  tcgen05Mma(c.kind, 1, id, ummaDesc(pa.base, pa.lbo, pa.sbo, c.w),
             ummaDesc(pb.base, pb.lbo, pb.sbo, c.w), d, true, smem, nullptr, 0,
             tmem);
  for (unsigned r = 0; r < c.m; ++r)
    for (unsigned col = 0; col < c.n; ++col) {
      double want = init[r * c.n + col];
      for (unsigned kk = 0; kk < k; ++kk)
        want -= double(decodeElem(c.a, a[r * k + kk])) *
                double(decodeElem(c.b, b[col * k + kk]));
      double got = decodeElem(ElemKind::F32, tmem.read(laneOf(r), d + col));
      ASSERT_NEAR(got, want, 1e-5 * (1 + std::fabs(want)))
          << elemName(c.a) << " m" << c.m << " n" << c.n << " w" << c.w
          << " mn " << c.mnMajor << " row " << r << " col " << col;
    }
  tmem.deallocate(d, 256);
  tmem.checkAllFreed();
}

} // namespace

TEST(Tcgen05InstrDesc, DecodesLegalDescriptors) {
  Tcgen05InstrDesc d = decodeTcgen05InstrDesc(
      idescOf(1, 1, 1, 128, 256, false, true, true, false),
      Tcgen05KindKind::F16, 1);
  EXPECT_EQ(d.m, 128u);
  EXPECT_EQ(d.n, 256u);
  EXPECT_EQ(d.a, ElemKind::BF16);
  EXPECT_EQ(d.d, ElemKind::F32);
  EXPECT_TRUE(d.bMnMajor);
  EXPECT_FALSE(d.aMnMajor);
  EXPECT_TRUE(d.negateA);
  d = decodeTcgen05InstrDesc(idescOf(0, 0, 0, 64, 8), Tcgen05KindKind::F16, 1);
  EXPECT_EQ(d.d, ElemKind::F16);
  d = decodeTcgen05InstrDesc(idescOf(1, 2, 2, 256, 16), Tcgen05KindKind::TF32,
                             2);
  EXPECT_EQ(d.a, ElemKind::TF32);
  d = decodeTcgen05InstrDesc(idescOf(1, 1, 0, 128, 136),
                             Tcgen05KindKind::F8F6F4, 1);
  EXPECT_EQ(d.a, ElemKind::E5M2);
  EXPECT_EQ(d.b, ElemKind::E4M3);
  EXPECT_EQ(d.n, 136u);
}

TEST(Tcgen05InstrDesc, RejectsEveryIllegalField) {
  const std::uint32_t good = idescOf(1, 1, 1, 128, 128);
  auto expectFault = [](std::uint32_t idesc, Tcgen05KindKind kind,
                        unsigned group, const char *needle) {
    try {
      decodeTcgen05InstrDesc(idesc, kind, group);
      ADD_FAILURE() << "accepted: " << needle;
    } catch (const SimFault &f) {
      EXPECT_NE(std::string(f.what()).find(needle), std::string::npos)
          << f.what();
    }
  };
  auto F16 = Tcgen05KindKind::F16;
  expectFault(good | 4, F16, 1, "sparse");
  expectFault(good | 8, F16, 1, "saturate");
  expectFault(good | (1u << 6), F16, 1, "reserved");
  expectFault(good | (1u << 23), F16, 1, "reserved");
  expectFault(good | (1u << 29), F16, 1, "reserved");
  expectFault(good | (1u << 30), F16, 1, "maximum shift");
  expectFault(idescOf(2, 1, 1, 128, 128), F16, 1, "D type");
  expectFault(idescOf(0, 1, 1, 128, 128), F16, 1, "f16 D needs f16");
  expectFault(idescOf(1, 2, 2, 128, 128), F16, 1, "A/B types");
  expectFault(idescOf(1, 0, 1, 128, 128), F16, 1, "both be f16");
  expectFault(idescOf(1, 1, 1, 128, 128), Tcgen05KindKind::TF32, 1,
              "legal: 2 tf32");
  expectFault(idescOf(0, 2, 2, 128, 128), Tcgen05KindKind::TF32, 1, "D type");
  expectFault(idescOf(1, 2, 0, 128, 128), Tcgen05KindKind::F8F6F4, 1,
              "A type = 2");
  expectFault(idescOf(1, 0, 5, 128, 128), Tcgen05KindKind::F8F6F4, 1,
              "not modelled");
  expectFault(idescOf(0, 0, 0, 128, 128), Tcgen05KindKind::F8F6F4, 1, "D type");
  expectFault(idescOf(1, 1, 1, 32, 128), F16, 1, "M = 32");
  expectFault(idescOf(1, 1, 1, 256, 128), F16, 1, "M = 256");
  expectFault(idescOf(1, 1, 1, 64, 128), F16, 2, "M = 64");
  expectFault(idescOf(1, 1, 1, 128, 0), F16, 1, "N = 0");
  expectFault(idescOf(1, 1, 1, 128, 264), F16, 1, "N = 264");
  expectFault(idescOf(1, 1, 1, 256, 24), F16, 2, "N = 24");
  expectFault(good, F16, 3, "cta_group::3");
}

TEST(TensorMemory, AllocationRules) {
  TensorMemory t;
  EXPECT_THROW(t.allocate(48), SimFault);
  EXPECT_THROW(t.allocate(16), SimFault);
  EXPECT_THROW(t.allocate(1024), SimFault);
  std::uint32_t a = t.allocate(256), b = t.allocate(32), c = t.allocate(128);
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, 256u);
  EXPECT_EQ(c, 384u);
  // 0..255, 256..287 and 384..511 are taken: no aligned 128 columns left.
  EXPECT_THROW(t.allocate(128), SimFault);
  // Column 300 lies in no allocation (288..383 are free).
  EXPECT_THROW(t.write(5, 300, 7), SimFault);
  EXPECT_THROW(t.read(0, 300), SimFault);
  t.write(5, 260, 7);
  EXPECT_EQ(t.read(5, 260), 7u);
  EXPECT_THROW(t.read(128, 0), SimFault);
  EXPECT_THROW(t.deallocate(b, 64), SimFault);
  try {
    t.checkAllFreed();
    ADD_FAILURE();
  } catch (const SimFault &f) {
    EXPECT_NE(std::string(f.what()).find("32 columns at column 256"),
              std::string::npos)
        << f.what();
  }
  t.deallocate(a, 256);
  t.deallocate(b, 32);
  t.deallocate(c, 128);
  t.checkAllFreed();
  t.relinquish();
  EXPECT_THROW(t.allocate(32), SimFault);
}

TEST(Tcgen05LdSt, FragmentsAndRoundTrips) {
  TensorMemory t;
  std::uint32_t base = t.allocate(512);
  std::mt19937 rng(3);
  for (unsigned lane = 0; lane < 128; ++lane)
    for (unsigned col = 0; col < 512; ++col)
      t.write(lane, col, (lane << 16) | col);
  // 16x256b: the mma.sync D pattern, repeated every 8 columns.
  std::vector<std::uint32_t> regs(32 * 8);
  const unsigned warp = 6; // quarter 2: lanes 64..95
  std::uint32_t taddr = base | ((64u + 16) << 16) | 24;
  tcgen05Ld(Tcgen05LdShapeKind::S16x256b, 2, warp, taddr, t, regs);
  EXPECT_EQ(tcgen05LdRegs(Tcgen05LdShapeKind::S16x256b, 2), 8u);
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned rep = 0; rep < 2; ++rep)
      for (unsigned j = 0; j < 4; ++j) {
        unsigned lane = 80 + l / 4 + (j < 2 ? 0 : 8);
        unsigned col = 24 + 8 * rep + 2 * (l % 4) + (j & 1);
        EXPECT_EQ(regs[l * 8 + rep * 4 + j], (lane << 16) | col);
      }
  // 32x32b: thread t reads lane t of the quarter, register j column j.
  std::vector<std::uint32_t> r32(32 * 4);
  tcgen05Ld(Tcgen05LdShapeKind::S32x32b, 4, 1, (32u << 16) | 100, t, r32);
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned j = 0; j < 4; ++j)
      EXPECT_EQ(r32[l * 4 + j], ((32 + l) << 16) | (100 + j));
  // Every shape: st then ld returns the registers, and each thread's
  // registers cover distinct cells.
  for (auto shape :
       {Tcgen05LdShapeKind::S32x32b, Tcgen05LdShapeKind::S16x64b,
        Tcgen05LdShapeKind::S16x128b, Tcgen05LdShapeKind::S16x256b})
    for (unsigned num : {1u, 4u, 16u}) {
      unsigned per = tcgen05LdRegs(shape, num);
      std::vector<std::uint32_t> in(32 * per), out(32 * per);
      for (auto &v : in)
        v = std::uint32_t(rng());
      tcgen05St(shape, num, 3, (96u << 16) | 64, in, t);
      tcgen05Ld(shape, num, 7, (96u << 16) | 64, t, out);
      EXPECT_EQ(in, out);
    }
  // Lane-quarter violations.
  EXPECT_THROW(tcgen05Ld(Tcgen05LdShapeKind::S32x32b, 1, 0, 32u << 16, t, r32),
               SimFault);
  EXPECT_THROW(tcgen05Ld(Tcgen05LdShapeKind::S16x64b, 1, 4, 24u << 16, t, r32),
               SimFault); // lanes 24..39 straddle quarters 0 and 1
  try {
    tcgen05Ld(Tcgen05LdShapeKind::S32x32b, 1, 5, 0, t, r32);
    ADD_FAILURE();
  } catch (const SimFault &f) {
    EXPECT_NE(std::string(f.what()).find("lanes 32..63 only"),
              std::string::npos)
        << f.what();
  }
  EXPECT_THROW(tcgen05Ld(Tcgen05LdShapeKind::S32x32b, 3, 0, 0, t, r32),
               SimFault); // .x3
  t.deallocate(base, 512);
  EXPECT_THROW(tcgen05Ld(Tcgen05LdShapeKind::S32x32b, 1, 0, 0, t, r32),
               SimFault); // nothing allocated
}

TEST(Tcgen05Mma, EveryKindSwizzleAndMajorness) {
  const MmaCase cases[] = {
      {Tcgen05KindKind::F16, ElemKind::BF16, ElemKind::BF16, 1, 1, 128, 64, 128,
       false},
      {Tcgen05KindKind::F16, ElemKind::F16, ElemKind::F16, 0, 0, 128, 256, 64,
       false},
      {Tcgen05KindKind::F16, ElemKind::BF16, ElemKind::BF16, 1, 1, 64, 32, 32,
       false},
      {Tcgen05KindKind::F16, ElemKind::BF16, ElemKind::BF16, 1, 1, 128, 64, 128,
       true},
      {Tcgen05KindKind::F16, ElemKind::F16, ElemKind::F16, 0, 0, 64, 136, 64,
       true},
      {Tcgen05KindKind::TF32, ElemKind::TF32, ElemKind::TF32, 2, 2, 128, 48,
       128, false},
      {Tcgen05KindKind::TF32, ElemKind::TF32, ElemKind::TF32, 2, 2, 128, 16, 32,
       true},
      {Tcgen05KindKind::F8F6F4, ElemKind::E4M3, ElemKind::E4M3, 0, 0, 128, 96,
       128, false},
      {Tcgen05KindKind::F8F6F4, ElemKind::E5M2, ElemKind::E4M3, 1, 0, 64, 8, 64,
       false},
      // M = 64 with N an odd multiple of 8 (tilec's BM = 64, BN = 24 / 40).
      {Tcgen05KindKind::TF32, ElemKind::TF32, ElemKind::TF32, 2, 2, 64, 24, 128,
       false},
      {Tcgen05KindKind::F8F6F4, ElemKind::E4M3, ElemKind::E4M3, 0, 0, 64, 40,
       128, false},
  };
  unsigned seed = 40;
  for (const MmaCase &c : cases) {
    runMma(c, seed++);
    if (HasFatalFailure())
      return;
  }
}

TEST(Tcgen05Mma, CtaPairSplitsB) {
  // cta_group::2, M = 256: each CTA holds its 128 rows of A and half of B's
  // N = 64 columns; each computes its rows against all of B.
  std::mt19937 rng(9);
  const unsigned k = 16, n = 64;
  SharedMemory smem[2] = {SharedMemory(64 * 1024), SharedMemory(64 * 1024)};
  std::vector<std::uint32_t> a(256 * k), b(n * k);
  Placement pa = place(0, k, 2, 128, false),
            pb = place(0x8000, k, 2, 128, false);
  for (unsigned r = 0; r < 256; ++r)
    for (unsigned kk = 0; kk < k; ++kk) {
      a[r * k + kk] = randomCode(ElemKind::BF16, rng);
      smem[r / 128].write(pa.address(r % 128, kk), &a[r * k + kk], 2);
    }
  for (unsigned c = 0; c < n; ++c)
    for (unsigned kk = 0; kk < k; ++kk) {
      b[c * k + kk] = randomCode(ElemKind::BF16, rng);
      smem[c / 32].write(pb.address(c % 32, kk), &b[c * k + kk], 2);
    }
  for (unsigned rank = 0; rank < 2; ++rank) {
    TensorMemory tmem;
    std::uint32_t d = tmem.allocate(64);
    tcgen05Mma(Tcgen05KindKind::F16, 2, idescOf(1, 1, 1, 256, n),
               ummaDesc(pa.base, pa.lbo, pa.sbo, 128),
               ummaDesc(pb.base, pb.lbo, pb.sbo, 128), d, false, smem[rank],
               &smem[1 - rank], rank, tmem);
    for (unsigned r = 0; r < 128; ++r)
      for (unsigned c = 0; c < n; ++c) {
        double want = 0;
        for (unsigned kk = 0; kk < k; ++kk)
          want +=
              double(decodeElem(ElemKind::BF16, a[(128 * rank + r) * k + kk])) *
              double(decodeElem(ElemKind::BF16, b[c * k + kk]));
        ASSERT_NEAR(decodeElem(ElemKind::F32, tmem.read(r, d + c)), want,
                    1e-5 * (1 + std::fabs(want)))
            << "rank " << rank << " row " << r << " col " << c;
      }
    tmem.deallocate(d, 64);
  }
}

TEST(Tcgen05Mma, CtaPairM128FoldsColumnHalvesOntoLaneHalves) {
  // cta_group::2, M = 128 (PTX ISA 9.7.16.10.5, data path layout B): each
  // CTA supplies 64 rows of A (the even CTA rows 0..63, the odd 64..127)
  // and N / 2 rows of B (even: columns 0..N/2-1), and holds its 64 rows of
  // D with the column halves folded onto the lane halves. Written out from
  // the ISA's figure for layout B, for N = 64 (32 columns per half):
  //   D(r, c), r < 64, c < 32   -> lane r,      column c
  //   D(r, c), r < 64, c >= 32  -> lane 64 + r, column c - 32
  // so the MMA writes columns 0..31 of all 128 lanes and nothing beyond.
  struct Spot {
    unsigned row, col, lane, column;
  };
  const Spot spots[] = {{0, 0, 0, 0},    {5, 3, 5, 3},    {63, 31, 63, 31},
                        {0, 32, 64, 0},  {17, 40, 81, 8}, {63, 63, 127, 31},
                        {32, 33, 96, 1}, {31, 62, 95, 30}};
  std::mt19937 rng(12);
  const unsigned k = 16, n = 64;
  SharedMemory smem[2] = {SharedMemory(64 * 1024), SharedMemory(64 * 1024)};
  std::vector<std::uint32_t> a(128 * k), b(n * k);
  Placement pa = place(0, k, 2, 128, false),
            pb = place(0x8000, k, 2, 128, false);
  for (unsigned r = 0; r < 128; ++r)
    for (unsigned kk = 0; kk < k; ++kk) {
      a[r * k + kk] = randomCode(ElemKind::BF16, rng);
      smem[r / 64].write(pa.address(r % 64, kk), &a[r * k + kk], 2);
    }
  for (unsigned c = 0; c < n; ++c)
    for (unsigned kk = 0; kk < k; ++kk) {
      b[c * k + kk] = randomCode(ElemKind::BF16, rng);
      smem[c / 32].write(pb.address(c % 32, kk), &b[c * k + kk], 2);
    }
  auto want = [&](unsigned rank, unsigned r, unsigned c) {
    double sum = 0;
    for (unsigned kk = 0; kk < k; ++kk)
      sum += double(decodeElem(ElemKind::BF16, a[(64 * rank + r) * k + kk])) *
             double(decodeElem(ElemKind::BF16, b[c * k + kk]));
    return sum;
  };
  const std::uint32_t sentinel = encodeElem(ElemKind::F32, 12345.0f);
  for (unsigned rank = 0; rank < 2; ++rank) {
    TensorMemory tmem;
    std::uint32_t d = tmem.allocate(64);
    for (unsigned lane = 0; lane < 128; ++lane)
      for (unsigned col = 0; col < 64; ++col)
        tmem.write(lane, d + col, sentinel);
    tcgen05Mma(Tcgen05KindKind::F16, 2, idescOf(1, 1, 1, 128, n),
               ummaDesc(pa.base, pa.lbo, pa.sbo, 128),
               ummaDesc(pb.base, pb.lbo, pb.sbo, 128), d, false, smem[rank],
               &smem[1 - rank], rank, tmem);
    for (const Spot &s : spots)
      ASSERT_NEAR(decodeElem(ElemKind::F32, tmem.read(s.lane, d + s.column)),
                  want(rank, s.row, s.col),
                  1e-5 * (1 + std::fabs(want(rank, s.row, s.col))))
          << "rank " << rank << " D(" << s.row << ", " << s.col << ")";
    for (unsigned r = 0; r < 64; ++r)
      for (unsigned c = 0; c < n; ++c) {
        unsigned lane = c < 32 ? r : 64 + r, column = c % 32;
        ASSERT_NEAR(decodeElem(ElemKind::F32, tmem.read(lane, d + column)),
                    want(rank, r, c), 1e-5 * (1 + std::fabs(want(rank, r, c))))
            << "rank " << rank << " row " << r << " col " << c;
      }
    // Columns 32..63 are not D's: layout B writes N / 2 columns.
    for (unsigned lane = 0; lane < 128; ++lane)
      for (unsigned col = 32; col < 64; ++col)
        ASSERT_EQ(tmem.read(lane, d + col), sentinel)
            << "lane " << lane << " column " << col;
    tmem.deallocate(d, 64);
  }
  // N = 64 folded needs only 32 columns: a 32-column allocation suffices,
  // N = 128 (64 columns per half) runs past it.
  TensorMemory tmem;
  std::uint32_t d = tmem.allocate(32);
  EXPECT_NO_THROW(tcgen05Mma(Tcgen05KindKind::F16, 2, idescOf(1, 1, 1, 128, n),
                             ummaDesc(pa.base, pa.lbo, pa.sbo, 128),
                             ummaDesc(pb.base, pb.lbo, pb.sbo, 128), d, false,
                             smem[0], &smem[1], 0, tmem));
  EXPECT_THROW(tcgen05Mma(Tcgen05KindKind::F16, 2, idescOf(1, 1, 1, 128, 128),
                          ummaDesc(pa.base, pa.lbo, pa.sbo, 128),
                          ummaDesc(pb.base, pb.lbo, pb.sbo, 128), d, false,
                          smem[0], &smem[1], 0, tmem),
               SimFault);
  tmem.deallocate(d, 32);
}

TEST(Tcgen05Mma, Faults) {
  SharedMemory smem(1024);
  TensorMemory tmem;
  std::uint32_t d = tmem.allocate(32);
  // D columns past the allocation (N = 64 > 32 columns); operands unwritten.
  EXPECT_THROW(tcgen05Mma(Tcgen05KindKind::F16, 1, idescOf(1, 1, 1, 128, 64),
                          ummaDesc(0, 16, 1024, 128),
                          ummaDesc(0, 16, 1024, 128), d, false, smem, nullptr,
                          0, tmem),
               SimFault);
  EXPECT_THROW(tcgen05Mma(Tcgen05KindKind::F16, 2, idescOf(1, 1, 1, 256, 64),
                          ummaDesc(0, 16, 1024, 128),
                          ummaDesc(0, 16, 1024, 128), d, false, smem, nullptr,
                          0, tmem),
               SimFault); // no peer
  tmem.deallocate(d, 32);
}
