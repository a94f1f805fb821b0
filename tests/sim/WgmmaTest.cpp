//===- tests/sim/WgmmaTest.cpp - wgmma.mma_async against an fp64 GEMM
//------===//
//
// Operands are placed in shared memory by the test's own placement of the
// ISA's canonical layouts (swizzle atoms stacked along M/N, then K), the
// descriptors are built bit by bit from the ISA's field table, and D is read
// back through the ISA's accumulator figure (row 16w + g (+8), column 8j +
// 2t (+1)) and compared with an fp64 GEMM of the decoded random inputs.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/Wgmma.h"
#include "runtime/sim/SimFault.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <random>
#include <vector>

using namespace tilec::sim;

namespace {

std::uint64_t makeDesc(std::uint32_t start, std::uint32_t lbo,
                       std::uint32_t sbo, unsigned swizzleBytes) {
  unsigned type = swizzleBytes == 128  ? 1
                  : swizzleBytes == 64 ? 2
                  : swizzleBytes == 32 ? 3
                                       : 0;
  return std::uint64_t(start >> 4) | (std::uint64_t(lbo >> 4) << 16) |
         (std::uint64_t(sbo >> 4) << 32) | (std::uint64_t(type) << 62);
}

std::uint32_t sw(unsigned w, std::uint32_t x) {
  unsigned b = w == 128 ? 3 : w == 64 ? 2 : w == 32 ? 1 : 0;
  return x ^ ((x & (((1u << b) - 1) << 7)) >> 3);
}

/// An operand of rows x k elements placed in a canonical layout at base.
struct Placement {
  std::uint32_t base, lbo, sbo;
  unsigned w, eb, rows;
  bool mnMajor;
  std::uint32_t address(unsigned m, unsigned k) const {
    unsigned t = 16 / eb;
    if (!mnMajor) {
      if (w)
        return sw(w, base + (m % 8) * w + (m / 8) * sbo + k * eb);
      return base + (m % 8) * 16 + (m / 8) * sbo + (k / t) * lbo + (k % t) * eb;
    }
    if (w) {
      unsigned atom = w / eb;
      return sw(w, base + (m % atom) * eb + (m / atom) * lbo + (k % 8) * w +
                       (k / 8) * sbo);
    }
    return base + (m % t) * eb + (m / t) * sbo + (k % 8) * 16 + (k / 8) * lbo;
  }
};

Placement place(std::uint32_t base, unsigned rows, unsigned k, unsigned eb,
                unsigned w, bool mnMajor) {
  Placement p{base, 0, 0, w, eb, rows, mnMajor};
  if (!mnMajor) {
    p.sbo = w ? 8 * w : 128;
    p.lbo = w ? 16 : (rows / 8) * 128;
  } else if (w) {
    p.sbo = 8 * w;
    p.lbo = ((k + 7) / 8) * 8 * w;
  } else {
    p.sbo = 128;
    p.lbo = (rows / (16 / eb)) * 128;
  }
  return p;
}

std::uint32_t randomCode(ElemKind kind, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-2, 2);
  return encodeElem(kind, dist(rng), true);
}

/// Runs the four warps of one wgmma (SS, or RS with \p rs) with random
/// inputs and random initial accumulators, checks D against fp64.
void runWgmma(WgmmaShape s, unsigned swA, unsigned swB, unsigned seed,
              bool scaleD = true) {
  std::mt19937 rng(seed);
  unsigned n = unsigned(s.n), k = unsigned(s.k);
  unsigned ea = elemBits(s.a) / 8, ebB = elemBits(s.b) / 8;
  SharedMemory smem(96 * 1024);
  Placement pa = place(0x0, 64, k, ea, swA, s.transA);
  Placement pb = place(0x4000, n, k, ebB, swB, s.transB);
  std::vector<std::uint32_t> aCode(64 * k), bCode(n * k);
  for (unsigned m = 0; m < 64; ++m)
    for (unsigned kk = 0; kk < k; ++kk) {
      aCode[m * k + kk] = randomCode(s.a, rng);
      if (!s.aFromRegs)
        smem.write(pa.address(m, kk), &aCode[m * k + kk], ea);
    }
  for (unsigned c = 0; c < n; ++c)
    for (unsigned kk = 0; kk < k; ++kk) {
      bCode[c * k + kk] = randomCode(s.b, rng);
      smem.write(pb.address(c, kk), &bCode[c * k + kk], ebB);
    }
  std::uint64_t da = makeDesc(pa.base, pa.lbo, pa.sbo, swA);
  std::uint64_t db = makeDesc(pb.base, pb.lbo, pb.sbo, swB);
  unsigned regs = wgmmaAccRegs(s);
  bool f16d = s.d == ElemKind::F16;
  EXPECT_EQ(regs, f16d ? n / 4 : n / 2);
  for (unsigned w = 0; w < 4; ++w) {
    std::vector<std::uint32_t> acc(32 * regs);
    std::vector<double> c(16 * n);
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned i = 0; i < regs; ++i)
        acc[lane * regs + i] =
            f16d ? randomCode(ElemKind::F16, rng) |
                       (randomCode(ElemKind::F16, rng) << 16)
                 : encodeElem(ElemKind::F32,
                              decodeElem(ElemKind::BF16,
                                         randomCode(ElemKind::BF16, rng)));
    // Remember C by the ISA figure's positions.
    auto position = [&](unsigned lane, unsigned v) {
      // v-th accumulator value of the lane (f16: two per register).
      unsigned g = lane / 4, t = lane % 4;
      return std::pair{g + 8 * ((v % 4) / 2), 8 * (v / 4) + 2 * t + v % 2};
    };
    auto valueOf = [&](const std::vector<std::uint32_t> &regsV, unsigned lane,
                       unsigned v) -> double {
      if (!f16d)
        return decodeElem(ElemKind::F32, regsV[lane * regs + v]);
      return decodeElem(ElemKind::F16,
                        regsV[lane * regs + v / 2] >> (16 * (v % 2)));
    };
    unsigned values = n / 2; // per lane
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned v = 0; v < values; ++v) {
        auto [r, col] = position(lane, v);
        c[r * n + col] = scaleD ? valueOf(acc, lane, v) : 0.0;
      }
    WarpRegs aRegs{};
    if (s.aFromRegs) // mma.sync A fragment of rows 16w..16w+15
      for (unsigned lane = 0; lane < 32; ++lane)
        for (unsigned r = 0; r < 4; ++r)
          for (unsigned j = 0; j < 4 / ea; ++j) {
            unsigned row = lane / 4 + 8 * (r & 1);
            unsigned col = (4 / ea) * (lane % 4) + j + (k / 2) * (r >> 1);
            aRegs[lane][r] |= aCode[(16 * w + row) * k + col]
                              << (8 * ea * j % 32);
          }
    wgmmaWarp(s, w, da, s.aFromRegs ? &aRegs : nullptr, db, smem, scaleD, acc);
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned v = 0; v < values; ++v) {
        auto [r, col] = position(lane, v);
        double want = c[r * n + col];
        double dot = 0;
        for (unsigned kk = 0; kk < k; ++kk)
          dot += double(decodeElem(s.a, aCode[(16 * w + r) * k + kk])) *
                 double(decodeElem(s.b, bCode[col * k + kk]));
        want += s.scaleA * s.scaleB * dot;
        double tol = f16d ? 4e-3 : 1e-5;
        ASSERT_NEAR(valueOf(acc, lane, v), want, tol * (1 + std::fabs(want)))
            << elemName(s.a) << " n" << n << " swA " << swA << " swB " << swB
            << " warp " << w << " lane " << lane << " v " << v;
      }
  }
}

WgmmaShape shapeOf(ElemKind a, ElemKind b, ElemKind d, int n) {
  WgmmaShape s;
  s.a = a;
  s.b = b;
  s.d = d;
  s.n = n;
  s.k = elemBits(a) == 16 ? 16 : elemBits(a) == 32 ? 8 : 32;
  return s;
}

} // namespace

TEST(Wgmma, EveryTypeSwizzleAndMajorness) {
  const ElemKind F32 = ElemKind::F32, F16 = ElemKind::F16;
  struct T {
    ElemKind a, b, d;
  };
  const T types[] = {{ElemKind::BF16, ElemKind::BF16, F32},
                     {F16, F16, F32},
                     {F16, F16, F16},
                     {ElemKind::TF32, ElemKind::TF32, F32},
                     {ElemKind::E4M3, ElemKind::E4M3, F32},
                     {ElemKind::E5M2, ElemKind::E4M3, F16}};
  unsigned seed = 100;
  for (const T &ty : types)
    for (int n : {8, 64, 256})
      for (auto [w, wB] : {std::pair{0u, 128u}, std::pair{32u, 64u},
                           std::pair{64u, 32u}, std::pair{128u, 0u}})
        for (bool mn : {false, true}) {
          WgmmaShape s = shapeOf(ty.a, ty.b, ty.d, n);
          if (mn && elemBits(ty.a) != 16)
            continue;
          s.transA = s.transB = mn;
          SCOPED_TRACE(testing::Message()
                       << elemName(ty.a) << " n " << n << " swA " << w
                       << " swB " << wB << " mn-major " << mn);
          runWgmma(s, w, wB, seed++);
          if (HasFatalFailure())
            return;
        }
}

TEST(Wgmma, RegisterAScalesAndZeroAccumulator) {
  for (ElemKind a : {ElemKind::BF16, ElemKind::TF32, ElemKind::E4M3}) {
    WgmmaShape s = shapeOf(a, a, ElemKind::F32, 24);
    s.aFromRegs = true;
    runWgmma(s, 0, 64, 7);
    s.transB = elemBits(a) == 16;
    s.scaleA = -1;
    runWgmma(s, 0, 128, 8, /*scaleD=*/false);
    s.aFromRegs = false;
    s.scaleB = -1;
    s.scaleA = 1;
    runWgmma(s, 32, 32, 9);
  }
}

TEST(Wgmma, RejectsIllegalInstructions) {
  SharedMemory smem(1024);
  std::vector<std::uint32_t> acc(32 * 128);
  auto expectFault = [&](WgmmaShape s, const char *needle) {
    try {
      wgmmaWarp(s, 0, 0, nullptr, 0, smem, false, acc);
      ADD_FAILURE() << "no fault for " << needle;
    } catch (const SimFault &f) {
      EXPECT_NE(std::string(f.what()).find(needle), std::string::npos)
          << f.what();
    }
  };
  WgmmaShape s = shapeOf(ElemKind::BF16, ElemKind::BF16, ElemKind::F32, 12);
  expectFault(s, "N = 12");
  s = shapeOf(ElemKind::TF32, ElemKind::TF32, ElemKind::F32, 64);
  s.transB = true;
  expectFault(s, "MN-major");
  s = shapeOf(ElemKind::BF16, ElemKind::BF16, ElemKind::F16, 64);
  expectFault(s, "D must be f32");
  s = shapeOf(ElemKind::BF16, ElemKind::BF16, ElemKind::F32, 64);
  s.k = 32;
  expectFault(s, "K must be 16");
  // Operands nothing wrote.
  s = shapeOf(ElemKind::BF16, ElemKind::BF16, ElemKind::F32, 8);
  expectFault(s, "nothing has written");
}

TEST(Wgmma, Gemm256Performance) {
  // 256 x 256 x 256 bf16: 4 M-tiles x 16 K-steps of m64n256k16, 4 warps.
  SharedMemory smem(96 * 1024);
  std::vector<std::uint8_t> bytes(96 * 1024, 0x3c);
  smem.write(0, bytes.data(), bytes.size());
  WgmmaShape s = shapeOf(ElemKind::BF16, ElemKind::BF16, ElemKind::F32, 256);
  std::vector<std::uint32_t> acc(32 * 128);
  auto start = std::chrono::steady_clock::now();
  for (int mt = 0; mt < 4; ++mt)
    for (int ks = 0; ks < 16; ++ks)
      for (unsigned w = 0; w < 4; ++w)
        wgmmaWarp(s, w, makeDesc(0, 16, 1024, 128), nullptr,
                  makeDesc(0x4000, 16, 1024, 128), smem, ks > 0, acc);
  double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_LT(secs, 1.0) << secs;
}
