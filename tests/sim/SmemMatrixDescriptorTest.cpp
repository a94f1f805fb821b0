//===- tests/sim/SmemMatrixDescriptorTest.cpp - Descriptor fields and addresses
//-===//
//
// Descriptors are built here bit by bit from the PTX ISA's field tables.
// Expected element addresses come from CuTe layouts written out in the test:
// the exact layouts of the ISA's worked examples and the tiles of the
// tcgen05 worked examples with their 16 subtile start offsets
// (docs/layout-facts.md), evaluated by a small layout evaluator and the byte-address swizzle
// Swizzle<B,4,3>(x) = x ^ ((x & (((1 << B) - 1) << 7)) >> 3).
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/SmemMatrixDescriptor.h"
#include "runtime/sim/SimFault.h"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

using namespace tilec::sim;

namespace {

std::uint64_t wgmmaDesc(std::uint32_t start, std::uint32_t lbo,
                        std::uint32_t sbo, unsigned layoutType,
                        unsigned base = 0) {
  return std::uint64_t((start & 0x3ffff) >> 4) |
         (std::uint64_t((lbo & 0x3ffff) >> 4) << 16) |
         (std::uint64_t((sbo & 0x3ffff) >> 4) << 32) |
         (std::uint64_t(base) << 49) | (std::uint64_t(layoutType) << 62);
}

std::uint64_t ummaDesc(std::uint32_t start, std::uint32_t lbo,
                       std::uint32_t sbo, unsigned layoutType,
                       unsigned base = 0) {
  return std::uint64_t((start & 0x3ffff) >> 4) |
         (std::uint64_t((lbo & 0x3ffff) >> 4) << 16) |
         (std::uint64_t((sbo & 0x3ffff) >> 4) << 32) | (1ull << 46) |
         (std::uint64_t(base) << 49) | (std::uint64_t(layoutType) << 61);
}

std::uint32_t swizzle(unsigned b, std::uint32_t x) {
  return x ^ ((x & (((1u << b) - 1) << 7)) >> 3);
}

/// A two-mode CuTe layout (MN mode, K mode), each mode a flat list of
/// (shape, stride) pairs, colexicographic.
struct Layout2 {
  std::vector<std::pair<unsigned, unsigned>> mn, k;
  static unsigned eval(const std::vector<std::pair<unsigned, unsigned>> &m,
                       unsigned c) {
    unsigned off = 0;
    for (auto [s, d] : m) {
      off += (c % s) * d;
      c /= s;
    }
    return off;
  }
  unsigned size(const std::vector<std::pair<unsigned, unsigned>> &m) const {
    unsigned n = 1;
    for (auto [s, d] : m)
      n *= s;
    return n;
  }
  unsigned operator()(unsigned a, unsigned b) const {
    return eval(mn, a) + eval(k, b);
  }
};

/// Checks every element of an operand of \p mnSize x \p kSize.
void checkAll(const SmemMatrixDesc &d, bool mnMajor, unsigned bits,
              unsigned mnSize, unsigned kSize,
              const std::function<std::uint32_t(unsigned, unsigned)> &want) {
  for (unsigned mn = 0; mn < mnSize; ++mn)
    for (unsigned k = 0; k < kSize; ++k)
      ASSERT_EQ(smemOperandAddress(d, mnMajor, bits, mn, k), want(mn, k))
          << d.describe() << " mn " << mn << " k " << k;
}

} // namespace

TEST(SmemMatrixDescriptor, DecodeFields) {
  // Seed 002: K-major SW128: layout 2, SBO 64 (1024 B), LBO 1 (16 B).
  SmemMatrixDesc d = decodeUmmaDescriptor(ummaDesc(0x2400, 16, 1024, 2));
  EXPECT_EQ(d.startAddress, 0x2400u);
  EXPECT_EQ(d.lbo, 16u);
  EXPECT_EQ(d.sbo, 1024u);
  EXPECT_EQ(d.swizzleBytes, 128u);
  EXPECT_EQ(d.version, 1u);
  EXPECT_EQ(d.describe(), "start 0x2400 lbo 16 sbo 1024 swizzle 128B base 0");
  // Seed 002: MN-major SW64: layout 4, SBO 32 (512 B), LBO 512 (8192 B).
  d = decodeUmmaDescriptor(ummaDesc(0, 8192, 512, 4));
  EXPECT_EQ(d.lbo, 8192u);
  EXPECT_EQ(d.sbo, 512u);
  EXPECT_EQ(d.swizzleBytes, 64u);
  EXPECT_EQ(decodeUmmaDescriptor(ummaDesc(0, 0, 0, 6)).swizzleBytes, 32u);
  EXPECT_EQ(decodeUmmaDescriptor(ummaDesc(0, 0, 0, 0)).swizzleBytes, 0u);
  EXPECT_TRUE(decodeUmmaDescriptor(ummaDesc(0, 0, 0, 1)).swizzle128Base32);
  // Seed 001: tf32 K-major, no swizzle: LBO encodes 16, SBO 8.
  std::uint64_t raw = wgmmaDesc(0x400, 256, 128, 0);
  EXPECT_EQ((raw >> 16) & 0x3fff, 16u);
  EXPECT_EQ((raw >> 32) & 0x3fff, 8u);
  d = decodeWgmmaDescriptor(raw);
  EXPECT_EQ(d.lbo, 256u);
  EXPECT_EQ(d.sbo, 128u);
  EXPECT_EQ(d.swizzleBytes, 0u);
  EXPECT_EQ(decodeWgmmaDescriptor(wgmmaDesc(0, 0, 0, 1)).swizzleBytes, 128u);
  EXPECT_EQ(decodeWgmmaDescriptor(wgmmaDesc(0, 0, 0, 2)).swizzleBytes, 64u);
  EXPECT_EQ(decodeWgmmaDescriptor(wgmmaDesc(0, 0, 0, 3)).swizzleBytes, 32u);
  EXPECT_EQ(decodeWgmmaDescriptor(wgmmaDesc(0, 0, 0, 1, 5)).baseOffset, 5u);
}

TEST(SmemMatrixDescriptor, RejectsIllegalUmmaFields) {
  for (unsigned layout : {3u, 5u, 7u})
    EXPECT_THROW(decodeUmmaDescriptor(ummaDesc(0, 0, 0, layout)), SimFault);
  std::uint64_t good = ummaDesc(0, 16, 1024, 2);
  EXPECT_THROW(decodeUmmaDescriptor(good & ~(1ull << 46)), SimFault);
  EXPECT_THROW(decodeUmmaDescriptor(good | (1ull << 47)), SimFault);
  EXPECT_THROW(decodeUmmaDescriptor(good | (1ull << 55)), SimFault);
  EXPECT_THROW(decodeUmmaDescriptor(good | (1ull << 14)), SimFault);
  try {
    decodeUmmaDescriptor(ummaDesc(0, 0, 0, 5));
  } catch (const SimFault &f) {
    EXPECT_NE(std::string(f.what()).find("swizzle mode 5"), std::string::npos);
  }
  // Modelled decode, but addresses of unmodelled modes are refused.
  SmemMatrixDesc atom32 = decodeUmmaDescriptor(ummaDesc(0, 0, 0, 1));
  EXPECT_THROW(smemOperandAddress(atom32, false, 16, 0, 0), SimFault);
}

TEST(SmemMatrixDescriptor, IsaWorkedExamples) {
  const std::uint32_t base = 0x1000; // 1024-byte aligned
  // K-major, none, tf32: ((8,2),(4,4)):((4,32),(1,64)).
  Layout2 l1{{{8, 4}, {2, 32}}, {{4, 1}, {4, 64}}};
  checkAll(decodeWgmmaDescriptor(wgmmaDesc(base, 64 * 4, 32 * 4, 0)), false, 32,
           16, 16, [&](unsigned m, unsigned k) { return base + 4 * l1(m, k); });
  // K-major, 32B, tf32: Sw<1,4,3> o ((8,2),(4,4)):((8,64),(1,4)).
  Layout2 l2{{{8, 8}, {2, 64}}, {{4, 1}, {4, 4}}};
  checkAll(
      decodeWgmmaDescriptor(wgmmaDesc(base, 16, 64 * 4, 3)), false, 32, 16, 8,
      [&](unsigned m, unsigned k) { return swizzle(1, base + 4 * l2(m, k)); });
  // MN-major, none, bf16: ((8,1,2),(8,2)):((1,8,64),(8,128)).
  Layout2 l3{{{8, 1}, {1, 8}, {2, 64}}, {{8, 8}, {2, 128}}};
  checkAll(decodeWgmmaDescriptor(wgmmaDesc(base, 128 * 2, 64 * 2, 0)), true, 16,
           16, 16, [&](unsigned m, unsigned k) { return base + 2 * l3(m, k); });
  // MN-major, 32B, bf16: Sw<1,4,3> o ((8,2,2),(8,2)):((1,8,128),(16,256)).
  Layout2 l4{{{8, 1}, {2, 8}, {2, 128}}, {{8, 16}, {2, 256}}};
  checkAll(decodeWgmmaDescriptor(wgmmaDesc(base, 128 * 2, 256 * 2, 3)), true,
           16, 32, 16, [&](unsigned m, unsigned k) {
             return swizzle(1, base + 2 * l4(m, k));
           });
  // MN-major, 64B, bf16: Sw<2,4,3> o ((8,4,2),(8,2)):((1,8,256),(32,512)).
  Layout2 l5{{{8, 1}, {4, 8}, {2, 256}}, {{8, 32}, {2, 512}}};
  checkAll(decodeWgmmaDescriptor(wgmmaDesc(base, 256 * 2, 512 * 2, 2)), true,
           16, 64, 16, [&](unsigned m, unsigned k) {
             return swizzle(2, base + 2 * l5(m, k));
           });
}

TEST(SmemMatrixDescriptor, Tcgen05WorkedExampleKMajorSw128) {
  // Seed 002: 128 x 128 bf16 K-major tile ((8,16),(64,2)):((64,512),(1,8192))
  // under Sw<3,4,3>; subtile (ms, ks) of 64 x 16 starts at the table's
  // offset; descriptor SBO = 1024, LBO = 16, layout 2.
  const std::uint32_t base = 0x8000;
  const std::uint32_t table[2][8] = {
      {0, 32, 64, 96, 16384, 16416, 16448, 16480},
      {8192, 8224, 8256, 8288, 24576, 24608, 24640, 24672}};
  Layout2 tile{{{8, 64}, {16, 512}}, {{64, 1}, {2, 8192}}};
  for (unsigned ms = 0; ms < 2; ++ms)
    for (unsigned ks = 0; ks < 8; ++ks) {
      SmemMatrixDesc d =
          decodeUmmaDescriptor(ummaDesc(base + table[ms][ks], 16, 1024, 2));
      checkAll(d, false, 16, 64, 16, [&](unsigned m, unsigned k) {
        return swizzle(3, base + 2 * tile(64 * ms + m, 16 * ks + k));
      });
    }
}

TEST(SmemMatrixDescriptor, Tcgen05WorkedExampleMnMajorSw64) {
  // Seed 002: 128 x 128 bf16 MN-major tile ((32,4),(8,16)):((1,4096),(32,256))
  // under Sw<2,4,3>; subtile offsets m * 16384 + k * 1024; LBO = 8192,
  // SBO = 512, layout 4.
  const std::uint32_t base = 0x4000;
  Layout2 tile{{{32, 1}, {4, 4096}}, {{8, 32}, {16, 256}}};
  for (unsigned ms = 0; ms < 2; ++ms)
    for (unsigned ks = 0; ks < 8; ++ks) {
      SmemMatrixDesc d = decodeUmmaDescriptor(
          ummaDesc(base + ms * 16384 + ks * 1024, 8192, 512, 4));
      checkAll(d, true, 16, 64, 16, [&](unsigned m, unsigned k) {
        return swizzle(2, base + 2 * tile(64 * ms + m, 16 * ks + k));
      });
    }
}

TEST(SmemMatrixDescriptor, EverySwizzleBothMajornessEveryWidth) {
  const std::uint32_t base = 0x2000;
  for (unsigned bits : {8u, 16u, 32u})
    for (unsigned w : {0u, 32u, 64u, 128u}) {
      unsigned t = 128 / bits, eb = bits / 8;
      unsigned b = w == 32 ? 1 : w == 64 ? 2 : w == 128 ? 3 : 0;
      unsigned type = w == 32 ? 3 : w == 64 ? 2 : w == 128 ? 1 : 0;
      unsigned kSize = 32 / eb; // one MMA's K: 32 bytes
      if (!w) {
        // K-major interleave: 8x16B core matrices, M cores 128 B apart (SBO),
        // K cores 8 * 128 B apart (LBO); a 64-row operand.
        Layout2 k{{{8, t}, {8, 8 * t}}, {{t, 1}, {2, 64 * t}}};
        checkAll(
            decodeWgmmaDescriptor(wgmmaDesc(base, 64 * t * eb, 8 * t * eb, 0)),
            false, bits, 64, kSize,
            [&](unsigned m, unsigned kk) { return base + eb * k(m, kk); });
        // MN-major interleave: 16-byte MN runs, 8 K rows of 16 B; MN cores
        // 128 B apart (SBO), K groups 1024 B apart (LBO).
        Layout2 mnl{{{t, 1}, {8, 8 * t}}, {{8, t}, {kSize / 8 + 1, 64 * t}}};
        checkAll(
            decodeWgmmaDescriptor(wgmmaDesc(base, 64 * t * eb, 8 * t * eb, 0)),
            true, bits, 8 * t, kSize,
            [&](unsigned m, unsigned kk) { return base + eb * mnl(m, kk); });
        continue;
      }
      unsigned rowElems = w / eb;
      // K-major atom Sw<b,4,3> o (8,rowElems):(rowElems,1), atoms stacked
      // along M (SBO = 8 rows).
      Layout2 k{{{8, rowElems}, {8, 8 * rowElems}}, {{rowElems, 1}}};
      checkAll(decodeWgmmaDescriptor(wgmmaDesc(base, 16, 8 * w, type)), false,
               bits, 64, kSize, [&](unsigned m, unsigned kk) {
                 return swizzle(b, base + eb * k(m, kk));
               });
      // MN-major atom Sw<b,4,3> o (rowElems,8):(1,rowElems), two atoms along
      // MN (LBO) then along K (SBO).
      unsigned atom = 8 * rowElems;
      Layout2 mnl{{{rowElems, 1}, {2, 2 * kSize / 8 * atom}},
                  {{8, rowElems}, {kSize / 8 + 1, atom}}};
      checkAll(decodeWgmmaDescriptor(
                   wgmmaDesc(base, 2 * kSize / 8 * atom * eb, atom * eb, type)),
               true, bits, 2 * rowElems, kSize, [&](unsigned m, unsigned kk) {
                 return swizzle(b, base + eb * mnl(m, kk));
               });
    }
}

TEST(SmemMatrixDescriptor, BaseOffsetShiftsThePattern) {
  // A 128B-swizzled K-major bf16 atom whose repeating pattern starts at
  // P = 0x1180 (not 1024-aligned): row r's chunks are XORed with r, counted
  // from P. Base offset = (P >> 7) & 7 = 3.
  const std::uint32_t p = 0x1180;
  SmemMatrixDesc d = decodeWgmmaDescriptor(wgmmaDesc(p, 16, 1024, 1, 3));
  checkAll(d, false, 16, 8, 16, [&](unsigned m, unsigned k) {
    std::uint32_t linear = m * 128 + k * 2;
    return p + (linear ^ (((linear >> 7) & 7) << 4));
  });
}
