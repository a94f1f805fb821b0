//===- tests/sim/TmaUnitTest.cpp - Tensor maps, TMA loads and stores
//-------===//
//
// The encode rules are the CUDA driver API's list for cuTensorMapEncodeTiled
// (one test case per rule). The swizzled shared-memory positions come from
// the CUDA programming guide's TMA swizzle tables, written out literally
// here: each row is a 128-byte shared-memory row, each entry the 16-byte
// chunk that lands in that slot.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/TmaUnit.h"
#include "runtime/sim/SimFault.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

using namespace tilec::sim;

namespace {

// CUDA programming guide, TMA swizzle: chunk index per 128-byte row.
const int Swizzle128[8][8] = {
    {0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 3, 2, 5, 4, 7, 6},
    {2, 3, 0, 1, 6, 7, 4, 5}, {3, 2, 1, 0, 7, 6, 5, 4},
    {4, 5, 6, 7, 0, 1, 2, 3}, {5, 4, 7, 6, 1, 0, 3, 2},
    {6, 7, 4, 5, 2, 3, 0, 1}, {7, 6, 5, 4, 3, 2, 1, 0}};
const int Swizzle64[4][8] = {{0, 1, 2, 3, 4, 5, 6, 7},
                             {1, 0, 3, 2, 5, 4, 7, 6},
                             {2, 3, 0, 1, 6, 7, 4, 5},
                             {3, 2, 1, 0, 7, 6, 5, 4}};
const int Swizzle32[2][8] = {{0, 1, 2, 3, 4, 5, 6, 7},
                             {1, 0, 3, 2, 5, 4, 7, 6}};
// CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B, "swizzle 32B chunks within 128B span"
// (CUDA driver API, CUtensorMapSwizzle): 32-byte chunk j of row r goes to
// slot j ^ (r % 4), i.e. 16-byte chunks move in pairs.
const int Swizzle128Atom32[4][8] = {{0, 1, 2, 3, 4, 5, 6, 7},
                                    {2, 3, 0, 1, 6, 7, 4, 5},
                                    {4, 5, 6, 7, 0, 1, 2, 3},
                                    {6, 7, 4, 5, 2, 3, 0, 1}};

/// Where the byte at dense box offset \p o lands (relative to a 1024-byte
/// aligned destination) under \p sw, by the tables above.
std::uint32_t tablePosition(std::uint32_t o, CUtensorMapSwizzle sw) {
  std::uint32_t row = o / 128, chunk = (o % 128) / 16, byte = o % 16;
  int slot = int(chunk);
  if (sw == CU_TENSOR_MAP_SWIZZLE_128B)
    slot = Swizzle128[row % 8][chunk];
  else if (sw == CU_TENSOR_MAP_SWIZZLE_64B)
    slot = Swizzle64[row % 4][chunk];
  else if (sw == CU_TENSOR_MAP_SWIZZLE_32B)
    slot = Swizzle32[row % 2][chunk];
  else if (sw == CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B)
    slot = Swizzle128Atom32[row % 4][chunk];
  return row * 128 + std::uint32_t(slot) * 16 + byte;
}

struct Tensor2D {
  std::uint64_t addr;
  std::uint64_t rows, cols; // cols innermost, u16 elements
  std::uint64_t pitch;      // bytes
  std::uint16_t *data() { return reinterpret_cast<std::uint16_t *>(addr); }
};

Tensor2D makeTensor(std::uint64_t rows, std::uint64_t cols, unsigned seed) {
  Tensor2D t{0, rows, cols, (cols * 2 + 15) / 16 * 16};
  t.addr = GlobalMemory::instance().allocate(rows * t.pitch);
  std::mt19937 rng(seed);
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = 0; c < cols; ++c)
      t.data()[r * t.pitch / 2 + c] = std::uint16_t(rng() | 1);
  return t;
}

CUtensorMap
    mapStorage; // CUtensorMap carries its own (64- or 128-byte) alignment.

SimTensorMap encode2D(const Tensor2D &t, std::uint32_t boxCols,
                      std::uint32_t boxRows, CUtensorMapSwizzle sw) {
  std::uint64_t dims[2] = {t.cols, t.rows}, strides[1] = {t.pitch};
  std::uint32_t box[2] = {boxCols, boxRows}, es[2] = {1, 1};
  auto err = encodeSimTensorMap(&mapStorage, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                                2, reinterpret_cast<void *>(t.addr), dims,
                                strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                sw, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  EXPECT_FALSE(err) << *err;
  return decodeSimTensorMap(&mapStorage);
}

} // namespace

TEST(TmaUnit, EncodeRules) {
  alignas(16) static std::uint8_t data[4096];
  std::uint64_t dims[3] = {64, 32, 2}, strides[2] = {128, 4096};
  std::uint32_t box[3] = {64, 8, 1}, es[3] = {1, 1, 1};
  struct Case {
    const char *expect;
    std::function<void(CUtensorMapDataType &, std::uint32_t &, void *&,
                       CUtensorMapInterleave &, CUtensorMapSwizzle &,
                       CUtensorMapFloatOOBfill &)>
        mutate;
  };
  auto run = [&](auto mutate) {
    CUtensorMapDataType dt = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    std::uint32_t rank = 2;
    void *ga = data;
    CUtensorMapInterleave il = CU_TENSOR_MAP_INTERLEAVE_NONE;
    CUtensorMapSwizzle sw = CU_TENSOR_MAP_SWIZZLE_128B;
    CUtensorMapFloatOOBfill oob = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
    std::uint64_t d[3] = {dims[0], dims[1], dims[2]},
                  s[2] = {strides[0], strides[1]};
    std::uint32_t b[3] = {box[0], box[1], box[2]}, e[3] = {es[0], es[1], es[2]};
    mutate(dt, rank, ga, il, sw, oob, d, s, b, e);
    return encodeSimTensorMap(&mapStorage, dt, rank, ga, d, s, b, e, il, sw,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_128B, oob);
  };
  auto nothing = [](auto &...) {};
  EXPECT_FALSE(run(nothing));
  auto expectError = [&](const char *needle, auto mutate) {
    auto err = run(mutate);
    ASSERT_TRUE(err) << needle;
    EXPECT_NE(err->find(needle), std::string::npos) << *err;
  };
  expectError("tensorRank = 0",
              [](auto &, auto &rank, auto &...) { rank = 0; });
  expectError("tensorRank = 6",
              [](auto &, auto &rank, auto &...) { rank = 6; });
  expectError("at least 3", [](auto &, auto &, auto &, auto &il, auto &...) {
    il = CU_TENSOR_MAP_INTERLEAVE_16B;
  });
  expectError("not 16-byte aligned", [](auto &, auto &, auto &ga, auto &...) {
    ga = static_cast<std::uint8_t *>(ga) + 8;
  });
  expectError("globalDim[1] = 0", [](auto &, auto &, auto &, auto &, auto &,
                                     auto &, auto &d, auto &...) { d[1] = 0; });
  expectError("globalDim[0] = 4294967297",
              [](auto &, auto &, auto &, auto &, auto &, auto &, auto &d,
                 auto &...) { d[0] = (1ull << 32) + 1; });
  expectError("globalStrides[0] = 120 is not a multiple of 16",
              [](auto &, auto &, auto &, auto &, auto &, auto &, auto &,
                 auto &s, auto &...) { s[0] = 120; });
  expectError("below 2^40",
              [](auto &, auto &, auto &, auto &, auto &, auto &, auto &,
                 auto &s, auto &...) { s[0] = 1ull << 40; });
  expectError("boxDim[1] = 257",
              [](auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &,
                 auto &b, auto &) { b[1] = 257; });
  expectError("boxDim[1] = 0",
              [](auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &,
                 auto &b, auto &) { b[1] = 0; });
  expectError("= 14 bytes is not a multiple of 16",
              [](auto &, auto &, auto &, auto &, auto &sw, auto &, auto &,
                 auto &, auto &b, auto &) {
                sw = CU_TENSOR_MAP_SWIZZLE_NONE;
                b[0] = 7;
              });
  expectError("elementStrides[1] = 9",
              [](auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &,
                 auto &, auto &e) { e[1] = 9; });
  expectError("elementStrides[0] = 0",
              [](auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &,
                 auto &, auto &e) { e[0] = 0; });
  expectError("exceeds the 128-byte swizzle span",
              [](auto &, auto &, auto &, auto &, auto &sw, auto &, auto &,
                 auto &, auto &b, auto &) {
                sw = CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B;
                b[0] = 72; // 144 bytes
              });
  expectError("(CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B) is not modelled",
              [](auto &, auto &, auto &, auto &, auto &sw, auto &...) {
                sw = CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B;
              });
  expectError("exceeds the 64-byte swizzle span",
              [](auto &, auto &, auto &, auto &, auto &sw, auto &...) {
                sw = CU_TENSOR_MAP_SWIZZLE_64B; // box inner = 128 bytes
              });
  expectError("interleave 32B requires swizzle 32B",
              [](auto &, auto &rank, auto &, auto &il, auto &...) {
                rank = 3;
                il = CU_TENSOR_MAP_INTERLEAVE_32B;
              });
  expectError("needs a floating-point", [](auto &dt, auto &, auto &, auto &,
                                           auto &, auto &oob, auto &...) {
    dt = CU_TENSOR_MAP_DATA_TYPE_UINT16;
    oob = CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA;
  });
  // An out-of-range CUtensorMapDataType (a C caller's 99) is refused too,
  // but C++ cannot make one without undefined behaviour (UBSan's enum
  // check), so it is not exercised here.
  // The tensor map itself must be 64-byte aligned.
  alignas(64) static std::uint8_t buf[256];
  std::uint64_t d2[2] = {64, 32}, s2[1] = {128};
  std::uint32_t b2[2] = {64, 8}, e2[2] = {1, 1};
  auto err = encodeSimTensorMap(
      reinterpret_cast<CUtensorMap *>(buf + 32),
      CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, data, d2, s2, b2, e2,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("64-byte aligned"), std::string::npos);
}

TEST(TmaUnit, DecodeRoundTripAndForeignBytes) {
  Tensor2D t = makeTensor(40, 72, 3);
  SimTensorMap m = encode2D(t, 64, 8, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(m.rank, 2u);
  EXPECT_EQ(m.globalAddress, t.addr);
  EXPECT_EQ(m.globalDims[0], 72u);
  EXPECT_EQ(m.globalDims[1], 40u);
  EXPECT_EQ(m.globalStrides[0], 2u);
  EXPECT_EQ(m.globalStrides[1], t.pitch);
  EXPECT_EQ(m.boxBytes(), 64u * 8 * 2);
  alignas(64) std::uint8_t junk[128] = {1, 2, 3};
  EXPECT_THROW(decodeSimTensorMap(junk), SimFault);
  std::uint8_t copy[128];
  std::memcpy(copy, &mapStorage, 128);
  copy[20] ^= 1; // a flipped address bit
  EXPECT_THROW(decodeSimTensorMap(copy), SimFault);
  GlobalMemory::instance().free(t.addr);
}

TEST(TmaUnit, SwizzlePatternsMatchTheGuide) {
  for (auto [sw, span] :
       {std::pair{CU_TENSOR_MAP_SWIZZLE_NONE, 0u},
        std::pair{CU_TENSOR_MAP_SWIZZLE_32B, 32u},
        std::pair{CU_TENSOR_MAP_SWIZZLE_64B, 64u},
        std::pair{CU_TENSOR_MAP_SWIZZLE_128B, 128u},
        std::pair{CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B, 128u}}) {
    Tensor2D t = makeTensor(64, 160, 5 + span);
    std::uint32_t boxCols = span ? span / 2 : 64, boxRows = 16;
    SimTensorMap m = encode2D(t, boxCols, boxRows, sw);
    SharedMemory smem(8192);
    const std::uint32_t dst = 2048;
    std::int32_t c0 = 24, r0 = 9;
    EXPECT_EQ(
        tmaLoad(m, {c0, r0, 0, 0, 0}, GlobalMemory::instance(), smem, dst),
        boxCols * boxRows * 2);
    for (std::uint32_t r = 0; r < boxRows; ++r)
      for (std::uint32_t c = 0; c < boxCols; ++c) {
        std::uint32_t pos = dst + tablePosition((r * boxCols + c) * 2, sw);
        std::uint16_t got;
        smem.read(pos, &got, 2);
        EXPECT_EQ(got, t.data()[(r0 + r) * t.pitch / 2 + c0 + c])
            << "swizzle " << sw << " r " << r << " c " << c;
      }
    // Stored back elsewhere, the same box comes out unswizzled.
    Tensor2D out = makeTensor(64, 160, 77);
    SimTensorMap mo = encode2D(out, boxCols, boxRows, sw);
    tmaStore(mo, {c0, r0, 0, 0, 0}, smem, dst, GlobalMemory::instance());
    for (std::uint32_t r = 0; r < boxRows; ++r)
      for (std::uint32_t c = 0; c < boxCols; ++c)
        EXPECT_EQ(out.data()[(r0 + r) * out.pitch / 2 + c0 + c],
                  t.data()[(r0 + r) * t.pitch / 2 + c0 + c]);
    GlobalMemory::instance().free(t.addr);
    GlobalMemory::instance().free(out.addr);
  }
}

TEST(TmaUnit, OutOfBoundsZeroFillAndRaggedStore) {
  Tensor2D t = makeTensor(20, 40, 11); // 20 x 40, box 64 x 8 is ragged
  SimTensorMap m = encode2D(t, 64, 8, CU_TENSOR_MAP_SWIZZLE_128B);
  SharedMemory smem(4096);
  for (auto [c0, r0] : {std::pair{-8, -3}, std::pair{16, 16}, std::pair{-70, 0},
                        std::pair{0, 25}}) {
    tmaLoad(m, {c0, r0, 0, 0, 0}, GlobalMemory::instance(), smem, 1024);
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 64; ++c) {
        std::uint16_t got;
        smem.read(1024 + tablePosition(std::uint32_t(r * 64 + c) * 2,
                                       CU_TENSOR_MAP_SWIZZLE_128B),
                  &got, 2);
        int gr = r0 + r, gc = c0 + c;
        bool in = gr >= 0 && gr < 20 && gc >= 0 && gc < 40;
        EXPECT_EQ(got, in ? t.data()[gr * t.pitch / 2 + gc] : 0)
            << c0 << "," << r0 << " r " << r << " c " << c;
      }
  }
  // Ragged store: only the in-bounds part of the box is written.
  Tensor2D out = makeTensor(20, 40, 12);
  std::vector<std::uint16_t> before(out.data(),
                                    out.data() + 20 * out.pitch / 2);
  SimTensorMap mo = encode2D(out, 64, 8, CU_TENSOR_MAP_SWIZZLE_128B);
  tmaLoad(m, {0, 0, 0, 0, 0}, GlobalMemory::instance(), smem, 1024);
  tmaStore(mo, {-5, 15, 0, 0, 0}, smem, 1024, GlobalMemory::instance());
  for (int gr = 0; gr < 20; ++gr)
    for (int gc = 0; gc < 40; ++gc) {
      int r = gr - 15, c = gc + 5;
      bool inBox = r >= 0 && r < 8 && c >= 0 && c < 64;
      // The box was loaded from (0, 0): its columns past 40 are zero fill.
      std::uint16_t boxValue =
          inBox && c < 40 ? t.data()[r * t.pitch / 2 + c] : 0;
      std::uint16_t want = inBox ? boxValue : before[gr * out.pitch / 2 + gc];
      EXPECT_EQ(out.data()[gr * out.pitch / 2 + gc], want) << gr << "," << gc;
    }
  GlobalMemory::instance().free(t.addr);
  GlobalMemory::instance().free(out.addr);
}

TEST(TmaUnit, LoadFaults) {
  Tensor2D t = makeTensor(16, 64, 13);
  SimTensorMap m = encode2D(t, 64, 8, CU_TENSOR_MAP_SWIZZLE_128B);
  SharedMemory smem(2048);
  EXPECT_THROW(tmaLoad(m, {0, 0, 0, 0, 0}, GlobalMemory::instance(), smem, 64),
               SimFault); // misaligned destination
  EXPECT_THROW(
      tmaLoad(m, {0, 0, 0, 0, 0}, GlobalMemory::instance(), smem, 1920),
      SimFault); // past the end of shared memory
  GlobalMemory::instance().free(t.addr);
  // The allocation is gone: in-bounds elements now fault.
  EXPECT_THROW(tmaLoad(m, {0, 0, 0, 0, 0}, GlobalMemory::instance(), smem, 0),
               SimFault);
}
