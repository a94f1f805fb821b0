//===- tests/unit/Sm80GemmTest.cpp - sm_80 GEMM codegen and smem addresses ===//
#include "codegen/GemmCodegen.h"
#include "codegen/Ptxas.h"
#include "codegen/Sm80Gemm.h"
#include "codegen/SmemAddress.h"
#include "ir/layout/LayoutAlgebra.h"
#include "ir/layout/SwizzleAtom.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

namespace tilec {
namespace {

ComposedLayout tiled(MajorKind major, SwizzleKind mode, DTypeKind type,
                     int64_t mn, int64_t k) {
  auto layout = tileToShape(swizzleAtom(major, mode, type), IntTuple{mn, k});
  EXPECT_TRUE(bool(layout)) << llvm::toString(layout.takeError());
  return *layout;
}

// Example in SmemAddress.h.
TEST(SmemAddress, HeaderExample) {
  ComposedLayout layout =
      tiled(MajorKind::K, SwizzleKind::SW64, DTypeKind::BF16, 128, 32);
  EXPECT_EQ(layout.str(), "Sw<2,3,3> o ((8,16),(32,1)):((32,256),(1,0))");
  auto smem = SmemAddress::get(layout, 128, 32, "A");
  ASSERT_TRUE(bool(smem)) << llvm::toString(smem.takeError());
  EXPECT_EQ(smem->offset(1, 8), 40);
  EXPECT_EQ(smem->offset(2, 8), 64);
}

// SmemAddress evaluates the layout as the algebra does, for every atom.
TEST(SmemAddress, MatchesComposedLayoutEverywhere) {
  for (MajorKind major : {MajorKind::K, MajorKind::MN})
    for (const SwizzleInfo &mode : allSwizzles()) {
      ComposedLayout layout = tiled(major, mode.kind, DTypeKind::F16, 128, 64);
      auto smem = SmemAddress::get(layout, 128, 64, "A");
      ASSERT_TRUE(bool(smem)) << llvm::toString(smem.takeError());
      for (int64_t k = 0; k < 64; ++k)
        for (int64_t mn = 0; mn < 128; ++mn)
          ASSERT_EQ(smem->offset(mn, k), layout(IntTuple{mn, k}))
              << layout.str() << " at (" << mn << ", " << k << ")";
      EXPECT_EQ(smem->span(), 128 * 64);
    }
}

// deltaOf's claims hold at every runtime coordinate.
TEST(SmemAddress, DeltaClaimsHold) {
  ComposedLayout layout =
      tiled(MajorKind::MN, SwizzleKind::SW128, DTypeKind::BF16, 128, 32);
  auto smem = SmemAddress::get(layout, 128, 32, "A");
  ASSERT_TRUE(bool(smem));
  std::vector<TileCoord> runtime;
  for (int64_t k = 0; k < 8; ++k)
    runtime.push_back({8 * (k % 2), k});
  int kinds[3] = {0, 0, 0};
  for (int64_t cm : {0, 16, 32, 64})
    for (int64_t ck : {0, 8, 16}) {
      OffsetDelta d = smem->deltaOf(runtime, {cm, ck});
      ++kinds[d.kind];
      for (const TileCoord &r : runtime) {
        int64_t want = smem->offset(r.first + cm, r.second + ck);
        if (d.kind == OffsetDelta::Add) {
          EXPECT_EQ(smem->offset(r) + d.value, want);
        } else if (d.kind == OffsetDelta::Xor) {
          EXPECT_EQ(smem->offset(r) ^ d.value, want);
        }
      }
    }
  EXPECT_GT(kinds[OffsetDelta::Add], 0);
}

TEST(SmemAddress, RejectsWrongExtentAndBrokenVectors) {
  ComposedLayout layout =
      tiled(MajorKind::K, SwizzleKind::SW64, DTypeKind::BF16, 128, 32);
  auto wrong = SmemAddress::get(layout, 64, 32, "A");
  ASSERT_FALSE(bool(wrong));
  EXPECT_EQ(llvm::toString(wrong.takeError()),
            "smem layout of A covers 128 x 32 elements but the tile is 64 x "
            "32");
  // An MN-major layout cannot feed K-contiguous 16-byte vectors.
  ComposedLayout mn =
      tiled(MajorKind::MN, SwizzleKind::SW64, DTypeKind::BF16, 128, 32);
  auto smem = SmemAddress::get(mn, 128, 32, "A");
  ASSERT_TRUE(bool(smem));
  llvm::Error alongK = smem->checkVector({0, 0}, /*kContiguous=*/true, 8);
  EXPECT_TRUE(bool(alongK));
  llvm::consumeError(std::move(alongK));
  llvm::Error alongMn = smem->checkVector({0, 0}, /*kContiguous=*/false, 8);
  EXPECT_FALSE(bool(alongMn)) << llvm::toString(std::move(alongMn));
}

GemmSpec specOf(DTypeKind type, MajorKind a, MajorKind b, unsigned bm,
                unsigned bn, unsigned bk, unsigned stages, unsigned wm,
                unsigned wn) {
  GemmSpec spec;
  spec.name = "gemm_test";
  spec.aType = spec.bType = spec.cType = type;
  spec.aMajor = a;
  spec.bMajor = b;
  spec.bm = bm;
  spec.bn = bn;
  spec.bk = bk;
  spec.stages = stages;
  spec.warpsM = wm;
  spec.warpsN = wn;
  return spec;
}

struct Shape {
  unsigned bm, bn, bk, stages, wm, wn;
};

class Sm80GemmPtx : public ::testing::TestWithParam<
                        std::tuple<DTypeKind, MajorKind, MajorKind, Shape>> {};

TEST_P(Sm80GemmPtx, EmitsTensorCorePtxThatAssembles) {
  auto [type, a, b, s] = GetParam();
  GemmSpec spec = specOf(type, a, b, s.bm, s.bn, s.bk, s.stages, s.wm, s.wn);
  auto binary = emitGemm(spec);
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  const std::string &ptx = binary->ptx;
  EXPECT_NE(ptx.find(".entry gemm_test"), std::string::npos);
  EXPECT_NE(ptx.find("cp.async.cg.shared.global"), std::string::npos);
  EXPECT_NE(ptx.find("cp.async.wait_group"), std::string::npos);
  EXPECT_NE(ptx.find("mma.sync.aligned.m16n8k16.row.col.f32." +
                     dtypeInfo(type).name.str()),
            std::string::npos);
  bool anyMn = a == MajorKind::MN || b == MajorKind::MN;
  bool anyK = a == MajorKind::K || b == MajorKind::K;
  EXPECT_EQ(ptx.find("ldmatrix.sync.aligned.m8n8.x4.trans") !=
                std::string::npos,
            anyMn);
  EXPECT_EQ(ptx.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16") !=
                    std::string::npos ||
                ptx.find("ldmatrix.sync.aligned.m8n8.x4.b16") !=
                    std::string::npos,
            anyK);
  EXPECT_EQ(binary->blockThreads, 32 * s.wm * s.wn);
  // The epilogue's f32 staging tile (rows padded to bn + 8 f32, C is
  // N-contiguous here) reuses the pipeline's buffers.
  unsigned pipeline = s.stages * (s.bm + s.bn) * s.bk * 2;
  unsigned staging = ((s.bm - 1) * (s.bn + 8) + s.bn) * 4;
  EXPECT_EQ(binary->sharedBytes, std::max(pipeline, staging));
  // Accumulators to smem as f32 pairs, then 16-byte vectors back.
  EXPECT_NE(ptx.find("st.shared.v2.b32"), std::string::npos);
  EXPECT_NE(ptx.find("ld.shared.v4.b32"), std::string::npos);
  EXPECT_EQ(binary->params.size(), 11u);
  if (!findPtxas())
    GTEST_SKIP() << "no ptxas";
  llvm::Error err = assembleWithPtxas(ptx, ArchKind::SM80);
  EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
}

std::string shapeName(const Shape &s) {
  return llvm::formatv("{0}x{1}x{2}s{3}w{4}x{5}", s.bm, s.bn, s.bk, s.stages,
                       s.wm, s.wn);
}

/// BLAS names: A K-major is "T", B K-major is "N".
std::string
paramName(const ::testing::TestParamInfo<Sm80GemmPtx::ParamType> &info) {
  DTypeKind type = std::get<0>(info.param);
  MajorKind a = std::get<1>(info.param), b = std::get<2>(info.param);
  return dtypeInfo(type).name.str() + "_" + (a == MajorKind::K ? "T" : "N") +
         (b == MajorKind::K ? "N" : "T") + "_" +
         shapeName(std::get<3>(info.param));
}

INSTANTIATE_TEST_SUITE_P(
    AllMajornessTypesTiles, Sm80GemmPtx,
    ::testing::Combine(::testing::Values(DTypeKind::F16, DTypeKind::BF16),
                       ::testing::Values(MajorKind::K, MajorKind::MN),
                       ::testing::Values(MajorKind::K, MajorKind::MN),
                       ::testing::Values(Shape{128, 128, 32, 4, 2, 4},
                                         Shape{128, 256, 32, 3, 2, 4},
                                         Shape{64, 64, 64, 3, 2, 2})),
    paramName);

// The default layouts make every ldmatrix phase conflict-free: the 8 rows one
// 8x8 matrix reads (8 mn rows of a K-major tile, 8 k rows of an MN-major
// one) fall into 8 different 16-byte bank groups of a 128-byte line.
TEST(Sm80Gemm, DefaultLayoutsAreLdmatrixConflictFree) {
  for (DTypeKind type : {DTypeKind::F16, DTypeKind::BF16})
    for (MajorKind major : {MajorKind::K, MajorKind::MN})
      for (unsigned bk : {32u, 64u}) {
        GemmSpec spec = specOf(type, major, major, 128, 128, bk, 3, 2, 4);
        auto ir = emitGemmLlvmIr(spec); // Resolves the default layouts.
        ASSERT_TRUE(bool(ir)) << llvm::toString(ir.takeError());
        SwizzleKind mode =
            major == MajorKind::K
                ? (bk == 32 ? SwizzleKind::SW64 : SwizzleKind::SW128)
                : SwizzleKind::SW128;
        ComposedLayout layout = tiled(major, mode, type, 128, bk);
        auto smem = SmemAddress::get(layout, 128, bk, "A");
        ASSERT_TRUE(bool(smem));
        for (unsigned mn = 0; mn < 128; mn += 8)
          for (unsigned k = 0; k < bk; k += 8) {
            unsigned groups = 0;
            for (unsigned r = 0; r < 8; ++r) {
              int64_t off = major == MajorKind::K ? smem->offset(mn + r, k)
                                                  : smem->offset(mn, k + r);
              groups |= 1u << ((off * 2 / 16) % 8);
            }
            EXPECT_EQ(groups, 0xffu)
                << layout.str() << " block (" << mn << ", " << k << ")";
          }
      }
}

// Example in Sm80Gemm.h (sm80StagingLayout).
TEST(Sm80Staging, HeaderExample) {
  ComposedLayout rows = sm80StagingLayout(128, 128, /*nContiguous=*/true);
  EXPECT_EQ(rows.str(), "(128,128):(136,1)");
  EXPECT_EQ(rows(IntTuple{int64_t(1), int64_t(2)}), 138);
  ComposedLayout cols = sm80StagingLayout(128, 128, /*nContiguous=*/false);
  EXPECT_EQ(cols.str(), "(128,128):(1,132)");
  EXPECT_EQ(cols(IntTuple{int64_t(1), int64_t(2)}), 265);
}

/// The most distinct 4-byte words one bank serves in one phase of a warp's
/// shared-memory access of \p bytes per lane at the lanes' byte addresses
/// (4-byte accesses: one phase of 32 lanes; 8: two of 16; 16: four of 8).
unsigned worstBankConflict(const std::vector<int64_t> &addresses,
                           unsigned bytes) {
  unsigned lanesPerPhase = 128 / bytes, worst = 0;
  for (unsigned first = 0; first < addresses.size(); first += lanesPerPhase) {
    std::map<int64_t, std::set<int64_t>> wordsOfBank;
    for (unsigned lane = first; lane < first + lanesPerPhase; ++lane)
      for (unsigned w = 0; w < bytes / 4; ++w) {
        int64_t word = addresses[lane] / 4 + w;
        wordsOfBank[word % 32].insert(word);
      }
    for (auto &[bank, words] : wordsOfBank)
      worst = std::max(worst, unsigned(words.size()));
  }
  return worst;
}

struct StagingCase {
  unsigned bm, bn, bk, stages, wm, wn;
  MajorKind c;
  unsigned passes; ///< Expected.
};

// The staging tile, against the mma.sync m16n8 accumulator fragment (lane l:
// rows l / 4 and l / 4 + 8, columns 2 (l % 4) and + 1) and the copy loop's
// order (thread t, trip i: vector t + i * threads of the line-major tile):
// every store and every load instruction of a warp is bank-conflict free,
// every accumulator lands on a distinct offset that the copy loop reads back
// as the same C element, and the passes fit in shared memory.
TEST(Sm80Staging, ConflictFreeAndRoundTrips) {
  for (StagingCase sc :
       {StagingCase{128, 128, 32, 4, 2, 4, MajorKind::MN, 1},
        StagingCase{128, 128, 32, 4, 2, 4, MajorKind::K, 1},
        StagingCase{128, 256, 32, 3, 2, 4, MajorKind::MN, 1},
        StagingCase{128, 256, 32, 3, 2, 4, MajorKind::K, 1},
        StagingCase{64, 64, 64, 3, 2, 2, MajorKind::MN, 1},
        StagingCase{256, 256, 32, 2, 4, 4, MajorKind::MN, 2},
        StagingCase{256, 256, 32, 2, 4, 4, MajorKind::K, 2}}) {
    GemmSpec spec = specOf(DTypeKind::BF16, MajorKind::K, MajorKind::K, sc.bm,
                           sc.bn, sc.bk, sc.stages, sc.wm, sc.wn);
    spec.cMajor = sc.c;
    bool nContiguous = sc.c == MajorKind::MN;
    std::string label = llvm::formatv("{0}x{1} w{2}x{3} {4}-contiguous C",
                                      sc.bm, sc.bn, sc.wm, sc.wn,
                                      nContiguous ? "N" : "M");
    auto plan = planSm80Gemm(spec);
    ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
    const Sm80StagingPlan &st = plan->staging;
    EXPECT_EQ(st.passes, sc.passes) << label;
    unsigned warpM = sc.bm / sc.wm, warpN = sc.bn / sc.wn;
    unsigned tilesPerPass = warpM / 16 / sc.passes;
    unsigned rows = sc.wm * 16 * tilesPerPass;
    ASSERT_EQ(st.rows, rows) << label;
    unsigned span = nContiguous ? (rows - 1) * (sc.bn + 8) + sc.bn
                                : (sc.bn - 1) * (rows + 4) + rows;
    EXPECT_EQ(st.bytes, span * 4) << label;
    EXPECT_LE(st.bytes, 163u * 1024) << label;
    EXPECT_EQ(plan->sharedBytes,
              std::max(st.bytes, sc.stages * (sc.bm + sc.bn) * sc.bk * 2))
        << label;

    for (unsigned pass = 0; pass < sc.passes; ++pass) {
      // Offset -> the C tile element (row, column) stored there.
      std::map<int64_t, std::pair<unsigned, unsigned>> stored;
      for (unsigned warp = 0; warp < sc.wm * sc.wn; ++warp)
        for (unsigned t = 0; t < tilesPerPass; ++t)
          for (unsigned j = 0; j < warpN / 8; ++j)
            for (unsigned half = 0; half < 2; ++half)
              for (unsigned e = 0; e < 2; ++e) {
                unsigned wmIdx = warp % sc.wm, wnIdx = warp / sc.wm;
                std::vector<int64_t> addresses;
                for (unsigned lane = 0; lane < 32; ++lane) {
                  unsigned stagedRow =
                      wmIdx * 16 * tilesPerPass + 16 * t + 8 * half + lane / 4;
                  unsigned col = wnIdx * warpN + 8 * j + 2 * (lane % 4) + e;
                  unsigned tileRow = wmIdx * warpM +
                                     16 * (pass * tilesPerPass + t) +
                                     8 * half + lane / 4;
                  int64_t off = st.smem.offset(stagedRow, col);
                  EXPECT_TRUE(stored.insert({off, {tileRow, col}}).second)
                      << label << ": offset " << off << " stored twice";
                  addresses.push_back(off * 4);
                }
                // N-contiguous: one 8-byte store per pair (e = 0 checks it).
                if (nContiguous && e == 1)
                  continue;
                EXPECT_EQ(worstBankConflict(addresses, nContiguous ? 8 : 4),
                          1u)
                    << label << ": accumulator store warp " << warp;
              }
      ASSERT_EQ(stored.size(), size_t(rows) * sc.bn) << label;

      unsigned lines = nContiguous ? rows : sc.bn;
      unsigned perLine = (nContiguous ? sc.bn : rows) / 4;
      for (unsigned first = 0; first < lines * perLine; first += 32) {
        std::vector<int64_t> addresses;
        for (unsigned lane = 0; lane < 32; ++lane) {
          unsigned index = first + lane;
          unsigned line = index / perLine, start = 4 * (index % perLine);
          for (unsigned e = 0; e < 4; ++e) {
            unsigned stagedRow = nContiguous ? line : start + e;
            unsigned col = nContiguous ? start + e : line;
            unsigned tileRow = stagedRow / (16 * tilesPerPass) * warpM +
                               16 * pass * tilesPerPass +
                               stagedRow % (16 * tilesPerPass);
            int64_t off = st.smem.offset(stagedRow, col);
            auto it = stored.find(off);
            ASSERT_NE(it, stored.end()) << label;
            EXPECT_EQ(it->second, std::make_pair(tileRow, col)) << label;
            if (e == 0)
              addresses.push_back(off * 4);
            else
              EXPECT_EQ(off, st.smem.offset(nContiguous ? line : start,
                                            nContiguous ? start : line) +
                                 e)
                  << label;
          }
        }
        EXPECT_EQ(worstBankConflict(addresses, 16), 1u)
            << label << ": copy loop load at vector " << first;
      }
    }
  }
}

// M-contiguous C and a two-pass epilogue (a 256 x 256 tile does not fit in
// shared memory as f32 at once) assemble.
TEST(Sm80Staging, OtherEpiloguesAssemble) {
  for (auto [bm, bn, wm, wn, c] :
       {std::tuple{128u, 128u, 2u, 4u, MajorKind::K},
        std::tuple{256u, 256u, 4u, 4u, MajorKind::MN},
        std::tuple{256u, 256u, 4u, 4u, MajorKind::K}}) {
    GemmSpec spec = specOf(DTypeKind::F16, MajorKind::K, MajorKind::MN, bm,
                           bn, 32, 2, wm, wn);
    spec.cMajor = c;
    auto binary = emitGemm(spec);
    ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
    EXPECT_EQ(binary->ptx.find(".local"), std::string::npos);
    if (!findPtxas())
      GTEST_SKIP() << "no ptxas";
    llvm::Error err = assembleWithPtxas(binary->ptx, ArchKind::SM80);
    EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
  }
}

// The Light compile profile only where ptxas's register use cannot cost
// occupancy or spill (Sm80GemmPlan::profile): 33 to 64 accumulators/thread.
TEST(Sm80Gemm, CompileProfileByAccumulators) {
  struct Expect {
    unsigned bm, bn, bk, stages, wm, wn, accumulators;
    PtxOptProfileKind profile;
  };
  for (Expect e : {Expect{128, 128, 32, 4, 2, 4, 64, PtxOptProfileKind::Light},
                   Expect{128, 128, 64, 3, 2, 4, 64, PtxOptProfileKind::Light},
                   Expect{64, 128, 32, 3, 2, 2, 64, PtxOptProfileKind::Light},
                   Expect{64, 64, 64, 3, 2, 4, 16, PtxOptProfileKind::Full},
                   Expect{64, 64, 32, 3, 2, 2, 32, PtxOptProfileKind::Full},
                   Expect{128, 256, 64, 3, 2, 4, 128, PtxOptProfileKind::Full},
                   Expect{256, 128, 32, 3, 2, 4, 128,
                          PtxOptProfileKind::Full}}) {
    GemmSpec spec = specOf(DTypeKind::BF16, MajorKind::K, MajorKind::K, e.bm,
                           e.bn, e.bk, e.stages, e.wm, e.wn);
    auto plan = planSm80Gemm(spec);
    ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
    // m16 x n8 mma tiles per warp, 4 f32 each.
    EXPECT_EQ((e.bm / e.wm / 16) * (e.bn / e.wn / 8) * 4, e.accumulators);
    EXPECT_EQ(plan->profile, e.profile)
        << e.bm << "x" << e.bn << "x" << e.bk << " w" << e.wm << "x" << e.wn;
  }
}

TEST(Sm80Gemm, LaunchArgumentChecks) {
  GemmSpec spec;
  EXPECT_FALSE(bool(checkGemmArguments(spec, 127, 253, 61, 64, 64, 256)));
  auto message = [&](int64_t lda, int64_t ldc) {
    llvm::Error err = checkGemmArguments(spec, 127, 253, 61, lda, 64, ldc);
    return err ? llvm::toString(std::move(err)) : std::string("ok");
  };
  EXPECT_EQ(message(61, 256),
            "lda = 61 must be a multiple of 8 elements (16 bytes) and at least "
            "K = 61");
  EXPECT_EQ(message(64, 248),
            "ldc = 248 must be a multiple of 8 elements (16 bytes) and at "
            "least N = 253");
  llvm::Error err = checkGemmArguments(spec, -1, 8, 8, 8, 8, 8);
  EXPECT_EQ(llvm::toString(std::move(err)),
            "M = -1 is out of range; 0 to 2147483647 are legal");
}

TEST(Sm80Gemm, SameSpecSamePtx) {
  GemmSpec spec = specOf(DTypeKind::BF16, MajorKind::MN, MajorKind::K, 128, 128,
                         32, 4, 2, 4);
  auto first = emitGemm(spec);
  auto second = emitGemm(spec);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->ptx, second->ptx);
}

TEST(Sm80Gemm, LlvmIrHasIntrinsics) {
  GemmSpec spec = specOf(DTypeKind::F16, MajorKind::K, MajorKind::MN, 128, 128,
                         32, 4, 2, 4);
  auto ir = emitGemmLlvmIr(spec);
  ASSERT_TRUE(bool(ir)) << llvm::toString(ir.takeError());
  EXPECT_NE(ir->find("llvm.nvvm.cp.async.cg.shared.global.16.s"),
            std::string::npos);
  EXPECT_NE(ir->find("llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.trans.b16"),
            std::string::npos);
  EXPECT_NE(ir->find("llvm.nvvm.mma.m16n8k16.row.col.f32.f32"),
            std::string::npos);
}

TEST(Sm80Gemm, Diagnostics) {
  auto message = [](const GemmSpec &spec) {
    llvm::Error err = checkGemmSpec(spec);
    return err ? llvm::toString(std::move(err)) : std::string("ok");
  };
  GemmSpec spec;
  EXPECT_EQ(message(spec), "ok");
  GemmSpec bad = spec;
  // Every arch has a generator; sm_100a's has its own rules.
  bad.arch = ArchKind::SM100a;
  bad.bm = 192;
  EXPECT_EQ(message(bad),
            "BM = 192 is not the tcgen05.mma M of one CTA; the sm_100a "
            "generator issues cta_group::1 M = 64 or 128, so BM must be 64 "
            "or 128");
  bad = spec;
  bad.bType = DTypeKind::F16;
  EXPECT_EQ(message(bad), "sm_80 mma.sync m16n8k16 takes A and B of the same "
                          "type, f16 or bf16; got A = bf16, B = f16");
  bad = spec;
  bad.bm = 80;
  EXPECT_EQ(message(bad), "BM = 80 is not a multiple of 16 x warpsM = 32 "
                          "(each warp owns whole m16 mma tiles)");
  bad = spec;
  bad.bk = 24;
  EXPECT_EQ(message(bad), "BK = 24 is not a multiple of the mma K = 16");
  bad = spec;
  bad.stages = 12;
  EXPECT_EQ(message(bad),
            "stages = 12; the cp.async pipeline takes 2 to 8 stages");
  bad = spec;
  bad.bk = 256;
  bad.stages = 8;
  EXPECT_EQ(message(bad),
            "8 stages of 128 x 256 and 128 x 256 tiles need 1048576 bytes of "
            "shared memory; sm_80 allows 166912");
  bad = spec;
  bad.smemA =
      tiled(MajorKind::MN, SwizzleKind::SW128, DTypeKind::BF16, 128, 32);
  EXPECT_NE(message(bad).find("smem layout of A does not keep the 8 elements "
                              "from (0, 0) along K"),
            std::string::npos)
      << message(bad);
}

} // namespace
} // namespace tilec
