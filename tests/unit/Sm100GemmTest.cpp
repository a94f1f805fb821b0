//===- tests/unit/Sm100GemmTest.cpp - sm_100a GEMM codegen, ptxas, decoder ===//
//
// The sm_100a kernel over a matrix of dtypes x majorness x swizzle atom
// (BK) x tile N: every kernel assembles with ptxas -arch=sm_100a, and every
// tcgen05.mma in its PTX is checked by scanning it back: the instruction
// descriptor decodes to the kernel's types, shape and majorness, and each
// shared-memory descriptor, decoded the way the tensor core reads it
// (ir/arch/DescriptorDecoder), reproduces the operand tile's layout element by
// element for its K step.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm100Gemm.h"
#include "codegen/Ptxas.h"
#include "codegen/Sm100Epilogue.h"
#include "codegen/Sm100GemmSpec.h"
#include "codegen/Tcgen05InlineAsm.h"
#include "ir/arch/DescriptorDecoder.h"
#include "ir/arch/DescriptorDerivation.h"
#include "ir/layout/LayoutExpr.h"
#include "ir/layout/SmemTileFromLayout.h"
#include "ir/ptx/PtxDescriptorScan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace tilec {
namespace {

size_t countOf(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1))
    ++n;
  return n;
}

TEST(Sm100InlineAsm, MmaTextExample) {
  std::string text = ptx::tcgen05MmaText("f16");
  EXPECT_NE(text.find("tcgen05.mma.cta_group::1.kind::f16 [$0], $1, $2, $3, "
                      "p;"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("setp.ne.b32 p, $4, 0;"), std::string::npos) << text;
}

TEST(Sm100OperandTile, Sw128KMajorExample) {
  auto tile = sm100OperandTile(128, 64, DTypeKind::BF16, MajorKind::K, 128);
  ASSERT_TRUE(bool(tile)) << llvm::toString(tile.takeError());
  EXPECT_EQ(tile->staged.layout, "tile_to_shape(K_SW128<bf16>, (128,64))");
  EXPECT_EQ(tile->descriptorHigh, 0x4000404000010000ull);
  EXPECT_EQ(tile->kStepBytes, 32u);
  // sm_100 fields: layout type 2 (SW128) in bits 61..63, version 1 at 46.
  EXPECT_EQ(tile->descriptorHigh >> 61, 2u);
  EXPECT_EQ((tile->descriptorHigh >> 46) & 7, 1u);
  EXPECT_EQ(tile->staged.bytes, 16384u);
}

TEST(Sm100Config, TmemColumnsExample) {
  Sm100GemmConfig config;
  for (auto [bn, columns] : {std::pair{16u, 32u}, {48u, 64u}, {144u, 256u},
                             {256u, 256u}}) {
    config.bn = bn;
    EXPECT_EQ(sm100TmemColumns(config), columns) << "BN " << bn;
  }
}

TEST(Sm100Config, PairM128FoldsTheColumnsExample) {
  // cta_group::2 M = 128 (data path layout B): each lane holds BN / 2
  // columns, so the accumulator takes the power of two >= BN / 2.
  Sm100GemmConfig config;
  config.ctaGroup = 2;
  config.bm = 128;
  for (auto [bn, columns] :
       {std::pair{32u, 32u}, {64u, 32u}, {96u, 64u}, {256u, 128u}}) {
    config.bn = bn;
    EXPECT_TRUE(sm100FoldedAccumulator(config));
    EXPECT_EQ(sm100AccumulatorSpan(config), bn / 2) << "BN " << bn;
    EXPECT_EQ(sm100TmemColumns(config), columns) << "BN " << bn;
    EXPECT_EQ(sm100CtaRows(config, 'a'), 64u);
    EXPECT_EQ(sm100CtaRows(config, 'b'), bn / 2);
  }
  config.bn = 96; // 48 columns per lane half: 16-column chunks
  EXPECT_EQ(sm100EpilogueChunk(config), 16u);
  config.bm = 256; // layout A: not folded
  EXPECT_FALSE(sm100FoldedAccumulator(config));
  EXPECT_EQ(sm100AccumulatorSpan(config), 96u);
  auto idesc = sm100InstrDescriptor([] {
    Sm100GemmConfig c;
    c.ctaGroup = 2;
    c.bm = 128;
    return c;
  }());
  ASSERT_TRUE(bool(idesc));
  EXPECT_EQ(*idesc >> 24 & 31, 128u >> 4); // M = 128, not the pair's 256
}

TEST(Sm100Config, TwoAccumulatorBuffersExample) {
  Sm100GemmConfig config;
  for (auto [bn, allocated] : {std::pair{16u, 64u}, {48u, 128u},
                               {144u, 512u}, {256u, 512u}}) {
    config.bn = bn;
    EXPECT_EQ(sm100AccumulatorBuffers(config), 2u) << "BN " << bn;
    EXPECT_EQ(sm100TmemAllocColumns(config), allocated) << "BN " << bn;
  }
  // The example: 1024 alignment slack, 4 x 48 KiB ring, 4 + 4 ring and 2 + 2
  // accumulator mbarriers, the TMEM address word.
  EXPECT_EQ(sm100SharedBytes(Sm100GemmConfig{}),
            1024u + 4 * 49152 + 8 * 12 + 8);
}

TEST(Sm100Grid, PersistentOneCtaPerSmOrPerTile) {
  auto kernel = emitSm100Gemm(Sm100GemmConfig{});
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  GemmKernelBinary binary = sm100GemmBinary(std::move(*kernel));
  EXPECT_TRUE(binary.persistent);
  EXPECT_EQ(binary.ctasPerSm, 1u);
  // 4096 x 4096: 32 x 16 = 512 tiles of 128 x 256.
  EXPECT_EQ(binary.grid(4096, 4096, 64, 148).x, 148u);
  EXPECT_EQ(binary.grid(4096, 4096, 64, 0).x, 512u);
  // Fewer tiles than SMs: one CTA per tile.
  EXPECT_EQ(binary.grid(129, 257, 64, 148).x, 4u);
  EXPECT_EQ(binary.grid(129, 257, 64, 2).x, 2u);
  EXPECT_EQ(binary.grid(129, 257, 64, 2).y, 1u);
  // The CTA pair with M = 128: pairs of CTAs over 128 x BN tiles.
  Sm100GemmConfig pairConfig;
  pairConfig.ctaGroup = 2;
  pairConfig.bm = 128;
  auto pair = emitSm100Gemm(pairConfig);
  ASSERT_TRUE(bool(pair)) << llvm::toString(pair.takeError());
  GemmKernelBinary pairBinary = sm100GemmBinary(std::move(*pair));
  EXPECT_EQ(pairBinary.cluster.x, 2u);
  EXPECT_EQ(pairBinary.tileM, 128u);
  // 300 x 520: 3 x 3 = 9 pair tiles; 3 SMs hold one pair.
  EXPECT_EQ(pairBinary.grid(300, 520, 64, 0).x, 18u);
  EXPECT_EQ(pairBinary.grid(300, 520, 64, 148).x, 18u);
  EXPECT_EQ(pairBinary.grid(300, 520, 64, 3).x, 2u);
}

TEST(Sm100Config, RulesNameWhatIsLegal) {
  auto message = [](const Sm100GemmConfig &config) {
    llvm::Error err = verifySm100GemmConfig(config);
    return err ? llvm::toString(std::move(err)) : std::string();
  };
  // The rule's message names \p text (printed whole when it does not).
  auto says = [&](const Sm100GemmConfig &config,
                  const std::string &text) -> testing::AssertionResult {
    std::string got = message(config);
    if (got.find(text) != std::string::npos)
      return testing::AssertionSuccess();
    return testing::AssertionFailure() << "message: '" << got << "'";
  };
  Sm100GemmConfig config;
  config.bn = 204;
  EXPECT_TRUE(says(config, "nearest 200 or 208"));
  config = {};
  config.bm = 64; // the M = 64 tcgen05.mma (data path layout F)
  EXPECT_EQ(message(config), "");
  // cta_group::1 steps N by 8 at M = 64 and 128 (the ISA's shape table).
  config.bn = 24;
  EXPECT_EQ(message(config), "");
  config.bn = 20;
  EXPECT_TRUE(says(config, "cta_group::1 M = 64 (the PTX ISA's shape "
                           "table: a multiple of 8 from 8 to 256; "
                           "nearest 16 or 24)"));
  config.bm = 128;
  config.bn = 24;
  EXPECT_EQ(message(config), "");
  config.bn = 4;
  EXPECT_TRUE(says(config, "cta_group::1 M = 128 (the PTX ISA's shape "
                           "table: a multiple of 8 from 8 to 256; "
                           "nearest 8)"));
  config.bn = 256;
  config.bm = 192;
  EXPECT_TRUE(says(config, "BM must be 64 or 128"));
  // Both pairs step N by 16 (BN / 2 per CTA, a multiple of 8).
  config = {};
  config.bm = 128;
  config.ctaGroup = 2;
  config.bn = 40;
  EXPECT_TRUE(says(config, "cta_group::2 M = 128 (the PTX ISA's shape "
                           "table: a multiple of 16 from 16 to 256; "
                           "nearest 32 or 48)"));
  config.bn = 48;
  EXPECT_EQ(message(config), "");
  config.bn = 96;
  EXPECT_EQ(message(config), "");
  config.bm = 64;
  EXPECT_TRUE(says(config, "BM must be 256 or 128"));
  // The decode schedules run with cta_group::1 only.
  config = {};
  config.bm = 256;
  config.ctaGroup = 2;
  config.swapAB = true;
  EXPECT_TRUE(says(config, "swap_ab with cluster(2) is not implemented"));
  config.swapAB = false;
  config.splitK = 2;
  EXPECT_TRUE(says(config, "split_k with cluster(2)"));
  config = {};
  config.bk = 48;
  EXPECT_TRUE(says(config, "one swizzle atom row"));
  config = {};
  config.aType = config.bType = DTypeKind::TF32;
  config.bk = 32;
  config.bMajor = MajorKind::MN;
  EXPECT_TRUE(says(config, "store it K-major"));
  config = {};
  config.stages = 5; // 5 x 48 KiB
  EXPECT_TRUE(says(config, "fewer stages"));
  config = {};
  config.groupM = 0;
  EXPECT_TRUE(says(config, "groupM = 0"));
  config = {};
  config.aType = DTypeKind::BF16;
  config.bType = DTypeKind::F16;
  EXPECT_TRUE(says(config, "not a tcgen05.mma type pair"));
}

struct MatrixCase {
  DTypeKind a, b;
  MajorKind aMajor, bMajor;
  unsigned bk, bn;
  /// 2: the CTA pair's cta_group::2 M = 128 (BM = 128, 64 rows per CTA).
  unsigned ctaGroup = 1;
  /// 64: cta_group::1 M = 64 (data path layout F), whose N steps by 8.
  unsigned bm = 128;
  std::string name() const {
    return dtypeInfo(a).name.str() + "x" + dtypeInfo(b).name.str() + "_" +
           (aMajor == MajorKind::K ? "K" : "MN") +
           (bMajor == MajorKind::K ? "K" : "MN") + "_bk" + std::to_string(bk) +
           "_n" + std::to_string(bn) + (ctaGroup == 2 ? "_pair_m128" : "") +
           (bm == 64 ? "_m64" : "");
  }
};

/// dtypes x majorness x swizzle atom (BK = 32, 64, 128 bytes of K) x N.
std::vector<MatrixCase> matrixCases() {
  struct Types {
    DTypeKind a, b;
    bool mnMajor;
  };
  const Types types[] = {{DTypeKind::BF16, DTypeKind::BF16, true},
                         {DTypeKind::F16, DTypeKind::F16, true},
                         {DTypeKind::TF32, DTypeKind::TF32, false},
                         {DTypeKind::E4M3, DTypeKind::E4M3, true},
                         {DTypeKind::E4M3, DTypeKind::E5M2, true}};
  const unsigned ns[] = {16, 48, 144, 256};
  std::vector<MatrixCase> cases;
  unsigned next = 0;
  for (const Types &t : types)
    for (unsigned majors = 0; majors < (t.mnMajor ? 3u : 1u); ++majors)
      for (unsigned rowBytes : {32u, 64u, 128u}) {
        MatrixCase c;
        c.a = t.a;
        c.b = t.b;
        c.aMajor = majors == 1 ? MajorKind::MN : MajorKind::K;
        c.bMajor = majors == 2 ? MajorKind::MN : MajorKind::K;
        c.bk = rowBytes * 8 / dtypeBits(t.a);
        c.bn = ns[next++ % 4];
        cases.push_back(c);
      }
  // The CTA pair with M = 128 (data path layout B): every type and
  // majorness once (BN / 2 rows of B per CTA).
  const unsigned pairNs[] = {32, 96, 256, 64};
  next = 0;
  for (const Types &t : types)
    for (unsigned majors = 0; majors < (t.mnMajor ? 3u : 1u); ++majors) {
      MatrixCase c;
      c.a = t.a;
      c.b = t.b;
      c.aMajor = majors == 1 ? MajorKind::MN : MajorKind::K;
      c.bMajor = majors == 2 ? MajorKind::MN : MajorKind::K;
      c.bk = (majors == 2 ? 64 : 128) * 8 / dtypeBits(t.a);
      c.bn = pairNs[next++ % 4];
      // An MN-major B tile of BN / 2 rows needs a whole swizzle atom.
      if (c.bMajor == MajorKind::MN)
        c.bn = 256;
      c.ctaGroup = 2;
      cases.push_back(c);
    }
  // M = 64 with BN an odd multiple of 8 (B tiles of 24 and 8 rows; the
  // epilogue reads 8-column chunks with 16x256b.x1): K-major, MN-major A,
  // and MN-major B (24 and 8 bf16 rows fit only the 16-byte atom).
  const MatrixCase m64[] = {
      {DTypeKind::BF16, DTypeKind::BF16, MajorKind::K, MajorKind::K, 64, 24},
      {DTypeKind::BF16, DTypeKind::BF16, MajorKind::K, MajorKind::K, 64, 8},
      {DTypeKind::F16, DTypeKind::F16, MajorKind::MN, MajorKind::K, 32, 24},
      {DTypeKind::BF16, DTypeKind::BF16, MajorKind::K, MajorKind::MN, 64, 24},
      {DTypeKind::F16, DTypeKind::F16, MajorKind::K, MajorKind::MN, 16, 8},
      {DTypeKind::TF32, DTypeKind::TF32, MajorKind::K, MajorKind::K, 32, 8},
      {DTypeKind::TF32, DTypeKind::TF32, MajorKind::K, MajorKind::K, 16, 24},
      {DTypeKind::E4M3, DTypeKind::E4M3, MajorKind::K, MajorKind::K, 128, 40},
      {DTypeKind::E4M3, DTypeKind::E5M2, MajorKind::K, MajorKind::K, 64, 8},
  };
  for (MatrixCase c : m64) {
    c.bm = 64;
    cases.push_back(c);
  }
  // The shape table's N step 8 at cta_group::1 M = 128 (32x32b.x8 chunks)
  // and step 16 on the M = 128 pair (BN / 2 an odd multiple of 8 per CTA).
  const MatrixCase n8[] = {
      {DTypeKind::BF16, DTypeKind::BF16, MajorKind::K, MajorKind::K, 64, 24},
      {DTypeKind::F16, DTypeKind::F16, MajorKind::MN, MajorKind::K, 32, 8},
      {DTypeKind::BF16, DTypeKind::BF16, MajorKind::K, MajorKind::MN, 64, 40},
      {DTypeKind::TF32, DTypeKind::TF32, MajorKind::K, MajorKind::K, 32, 56},
      {DTypeKind::E4M3, DTypeKind::E4M3, MajorKind::K, MajorKind::K, 128, 248},
      {DTypeKind::BF16, DTypeKind::BF16, MajorKind::K, MajorKind::K, 64, 48, 2},
      {DTypeKind::TF32, DTypeKind::TF32, MajorKind::K, MajorKind::K, 32, 16, 2},
      {DTypeKind::E4M3, DTypeKind::E5M2, MajorKind::K, MajorKind::K, 128, 80, 2},
  };
  cases.insert(cases.end(), std::begin(n8), std::end(n8));
  return cases;
}

/// The tile's layout as the derivation sees it.
SmemTileLayout tileLayout(const Sm100OperandTile &tile) {
  auto value = evaluateLayoutExpr(tile.staged.layout);
  EXPECT_TRUE(bool(value)) << tile.staged.layout;
  auto smem = smemTileFromLayout(*value);
  EXPECT_TRUE(bool(smem)) << tile.staged.layout;
  return *smem;
}

/// \p desc decoded as the tensor core reads it reproduces K step \p kk of
/// \p tile, element by element.
void expectDecodesToLayout(uint64_t desc, const Sm100OperandTile &tile,
                           unsigned kk, const std::string &what) {
  unsigned mmaK = 32 * 8 / dtypeBits(tile.staged.dtype);
  auto decoded =
      decodeOperandAddresses(desc, ArchKind::SM100a, tile.staged.dtype,
                             tile.staged.major, tile.mmaMN, mmaK);
  ASSERT_TRUE(bool(decoded)) << what << ": " << llvm::toString(decoded.takeError());
  SmemTileLayout layout = tileLayout(tile);
  unsigned wrong = 0;
  for (unsigned mn = 0; mn < tile.mmaMN; ++mn)
    for (unsigned k = 0; k < mmaK; ++k)
      if (decoded->at(mn, k) !=
          layoutByteAddress(layout, tile.staged.dtype, 0, mn, kk * mmaK + k))
        ++wrong;
  EXPECT_EQ(wrong, 0u) << what << " k step " << kk << ": " << wrong << " of "
                       << tile.mmaMN * mmaK << " elements elsewhere";
}

class Sm100GemmMatrix : public ::testing::TestWithParam<MatrixCase> {};

TEST_P(Sm100GemmMatrix, DescriptorsDecodeToTheLayoutAndPtxasAccepts) {
  const MatrixCase &c = GetParam();
  Sm100GemmConfig config;
  config.aType = c.a;
  config.bType = c.b;
  config.aMajor = c.aMajor;
  config.bMajor = c.bMajor;
  config.bk = c.bk;
  config.bn = c.bn;
  config.stages = 2;
  config.cType = c.a == DTypeKind::TF32 ? DTypeKind::F32 : DTypeKind::BF16;
  const bool pair = c.ctaGroup == 2;
  if (pair) {
    config.ctaGroup = 2;
    config.bm = 128;
  }
  config.bm = c.bm;
  auto kernel = emitSm100Gemm(config);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  const std::string &ptx = kernel->ptx;
  const std::string group = pair ? "cta_group::2" : "cta_group::1";
  unsigned steps = config.bk / sm100MmaK(config.aType);
  ASSERT_EQ(countOf(ptx, "tcgen05.mma." + group + ".kind::"), steps);
  EXPECT_EQ(countOf(ptx, "tcgen05.commit." + group), 2u);
  EXPECT_EQ(countOf(ptx, "tcgen05.alloc." + group), 1u);
  EXPECT_EQ(countOf(ptx, "tcgen05.dealloc." + group), 1u);
  // Persistent with two accumulator buffers: the ring's 2 x stages
  // mbarriers plus accumulator-full and -empty per buffer; each role loops
  // over tiles (three reads of nctaid.x, or nclusterid.x for a pair); the
  // epilogue hands a buffer back once per beta path (a pair: on the
  // leader's barrier, which counts both CTAs' 128 epilogue threads).
  unsigned buffers = sm100AccumulatorBuffers(config);
  EXPECT_EQ(buffers, 2u);
  EXPECT_EQ(countOf(ptx, "mbarrier.init.shared::cta.b64"),
            2 * config.stages + 2 * buffers);
  EXPECT_EQ(countOf(ptx, pair ? "%nclusterid.x" : "%nctaid.x"), 3u);
  EXPECT_EQ(countOf(ptx, pair ? "mbarrier.arrive.release.cluster.shared::"
                                "cluster.b64"
                              : "mbarrier.arrive.shared::cta.b64"),
            2u);
  unsigned count256 = 0; // mbarriers counting 256 arrivals
  for (llvm::StringRef rest = ptx; !rest.empty();) {
    auto [line, next] = rest.split('\n');
    if (line.contains("mbarrier.init") && line.ends_with("], 256;"))
      ++count256;
    rest = next;
  }
  EXPECT_EQ(count256, pair ? buffers : 0u);
  // Layout B: each lane holds BN / 2 columns, read 32x32b in chunks
  // (twice: once per beta path), and each CTA stages 64 rows of A and
  // BN / 2 of B.
  unsigned span = pair ? config.bn / 2 : config.bn;
  EXPECT_EQ(sm100AccumulatorSpan(config), span);
  if (config.bm == 64) {
    // Data path layout F, read with 16x256b: 8 columns per repetition, in
    // chunks of 8 where BN is an odd multiple of 8 (once per beta path).
    EXPECT_EQ(kernel->a.mmaMN, 64u);
    EXPECT_EQ(kernel->b.mmaMN, config.bn);
    unsigned chunk = sm100EpilogueChunk(config);
    EXPECT_EQ(chunk, config.bn % 16 ? 8u : config.bn % 32 ? 16u : 32u);
    EXPECT_EQ(countOf(ptx, "tcgen05.ld.sync.aligned.16x256b.x" +
                               std::to_string(chunk / 8) + ".b32"),
              2 * config.bn / chunk);
    EXPECT_EQ(countOf(ptx, "tcgen05.ld.sync.aligned.32x32b."), 0u);
  }
  if (config.bm == 128 && !pair) {
    // One row per lane (32x32b), in chunks of 8 where BN is an odd
    // multiple of 8 (once per beta path).
    unsigned chunk = sm100EpilogueChunk(config);
    EXPECT_EQ(chunk, config.bn % 16 ? 8u : config.bn % 32 ? 16u : 32u);
    EXPECT_EQ(countOf(ptx, "tcgen05.ld.sync.aligned.32x32b.x" +
                               std::to_string(chunk) + ".b32"),
              2 * config.bn / chunk);
  }
  if (pair) {
    EXPECT_EQ(kernel->a.mmaMN, 64u);
    EXPECT_EQ(kernel->b.mmaMN, config.bn / 2);
    EXPECT_EQ(countOf(ptx, "tcgen05.ld.sync.aligned.32x32b."),
              2 * span / sm100EpilogueChunk(config));
  }
  size_t alloc = ptx.find("tcgen05.alloc." + group);
  std::string allocLine = ptx.substr(alloc, ptx.find('\n', alloc) - alloc);
  EXPECT_NE(allocLine.find("], " +
                           std::to_string(sm100TmemAllocColumns(config)) +
                           ";"),
            std::string::npos)
      << allocLine;

  std::vector<PtxDescriptorUse> uses = scanPtxDescriptors(ptx);
  ASSERT_EQ(uses.size(), 3 * steps);
  auto kind = mmaKindOf(config.aType, config.bType);
  ASSERT_TRUE(bool(kind));
  for (unsigned kk = 0; kk < steps; ++kk) {
    const PtxDescriptorUse &a = uses[3 * kk], &b = uses[3 * kk + 1],
                           &i = uses[3 * kk + 2];
    ASSERT_EQ(i.role, PtxDescriptorUse::RoleKind::Instr);
    ASSERT_TRUE(i.value) << i.description;
    EXPECT_EQ(*i.value, kernel->idesc);
    auto spec = decodeInstrDescriptor(uint32_t(*i.value), *kind);
    ASSERT_TRUE(bool(spec)) << llvm::toString(spec.takeError());
    EXPECT_EQ(spec->aType, config.aType);
    EXPECT_EQ(spec->bType, config.bType);
    EXPECT_EQ(spec->m, config.bm); // cta_group::1 M, or the pair's M
    EXPECT_EQ(spec->n, config.bn);
    EXPECT_EQ(spec->aMajor, config.aMajor);
    EXPECT_EQ(spec->bMajor, config.bMajor);
    for (auto [use, tile] : {std::pair{&a, &kernel->a}, {&b, &kernel->b}}) {
      const char *what = use == &a ? "a-desc" : "b-desc";
      ASSERT_TRUE(use->partial) << what << ": " << use->description;
      // The run-time part is the ring slot's base, aligned to the swizzle
      // pattern's repeat (8 rows of the atom) so that base_offset is 0:
      // no start-address bit below that repeat may be unknown.
      unsigned repeat = 8 * std::max(16u, tile->staged.swizzleBytes);
      EXPECT_EQ(use->partial->unknownMask & ((repeat >> 4) - 1), 0u) << what;
      EXPECT_EQ(use->partial->unknownMask & ~uint64_t(0x3FFF), 0u) << what;
      // Every field but the start address is known and is the derived one.
      EXPECT_EQ(use->partial->constant & ~uint64_t(0x3FFF),
                tile->descriptorHigh)
          << what;
      // The K step's start address: the scan sees it where it stays below
      // the run-time base's bits (an MN-major step of whole atoms is added
      // to the base before the shift, past what the scan can separate).
      uint64_t step = uint64_t(kk) * tile->kStepBytes;
      uint64_t lowest = use->partial->unknownMask & -use->partial->unknownMask;
      if ((step >> 4) < lowest) {
        EXPECT_EQ((use->partial->constant & 0x3FFF) << 4, step) << what;
      }
      expectDecodesToLayout(tile->descriptorHigh | (step >> 4), *tile, kk,
                            what);
    }
  }
  if (!findPtxas())
    GTEST_SKIP() << "SKIP: ptxas not found; PTX not assembled";
  llvm::Expected<PtxasRun> run = runPtxas(ptx, ArchKind::SM100a, {"-v"});
  ASSERT_TRUE(bool(run)) << llvm::toString(run.takeError());
  ASSERT_EQ(run->exitCode, 0) << run->output;
  EXPECT_NE(run->output.find("0 bytes spill stores"), std::string::npos)
      << run->output;
}

INSTANTIATE_TEST_SUITE_P(
    Matrix, Sm100GemmMatrix, ::testing::ValuesIn(matrixCases()),
    [](const ::testing::TestParamInfo<MatrixCase> &info) {
      return info.param.name();
    });

} // namespace
} // namespace tilec
