//===- tests/sim/PtxParserTest.cpp - Loading PTX into a SimModule --------===//
//
// The parser against tilec's own PTX (checked in under data/) and against
// small hand-written errors: every message names the line.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/PtxParser.h"
#include "runtime/sim/SimModule.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace tilec::sim;

namespace {

std::string readData(const std::string &name) {
  std::ifstream in(std::string(TILEC_SIM_TEST_DATA) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(PtxParserTest, LoadsTilecSm80AndSm90Kernels) {
  for (const char *file : {"gemm_sm80.ptx", "gemm_sm90.ptx"}) {
    std::string ptx = readData(file);
    ASSERT_FALSE(ptx.empty()) << file;
    std::string error;
    auto m = SimModule::load(ptx, error);
    ASSERT_TRUE(m) << file << ": " << error;
    ASSERT_EQ(m->functions().size(), 1u);
  }
}

TEST(PtxParserTest, Sm90ParamsHonorAlignment) {
  std::string error;
  auto m = SimModule::load(readData("gemm_sm90.ptx"), error);
  ASSERT_TRUE(m) << error;
  const SimFunction *f = m->function("gemm_tn_bf16");
  ASSERT_TRUE(f);
  const auto &p = f->params();
  ASSERT_EQ(p.size(), 13u);
  EXPECT_EQ(p[0].offset, 0u);
  EXPECT_EQ(p[0].size, 128u);
  EXPECT_EQ(p[0].align, 64u);
  EXPECT_EQ(p[2].offset, 256u);
  EXPECT_EQ(p[3].offset, 384u);
  EXPECT_EQ(p[3].size, 8u);
  EXPECT_EQ(p[4].offset, 392u);
  EXPECT_EQ(p[4].size, 4u);
  EXPECT_EQ(p[10].offset, 416u); // after 4 u32 and 2 f32 (392 + 24), 8-aligned
  EXPECT_EQ(f->maxThreadsPerBlock(), 384u);
  EXPECT_EQ(f->staticSharedBytes(), 0u);
  EXPECT_EQ(m->function("nope"), nullptr);
}

TEST(PtxParserTest, UnknownInstructionNamesItsLine) {
  std::string ptx = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                    ".visible .entry k()\n{\n  .reg .b32 %r<2>;\n"
                    "  mov.u32 %r1, 0;\n  frobnicate.b32 %r1, %r1;\n}\n";
  std::string error;
  EXPECT_FALSE(SimModule::load(ptx, error));
  EXPECT_EQ(error, "ptx:8: unknown instruction `frobnicate.b32`: "
                   "`frobnicate.b32 %r1, %r1;`");
}

TEST(PtxParserTest, SyntaxErrorsNameTheirLine) {
  std::string base = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                     ".visible .entry k()\n{\n  .reg .b32 %r<2>;\n";
  std::string error;
  EXPECT_FALSE(SimModule::load(base + "  add.s32 %r1, %r7, 1;\n}\n", error));
  EXPECT_EQ(error, "ptx:7: undeclared register or symbol `%r7`: "
                   "`add.s32 %r1, %r7, 1;`");
  EXPECT_FALSE(SimModule::load(base + "  bra $L_nowhere;\n}\n", error));
  EXPECT_EQ(error, "ptx:7: branch to undefined label `$L_nowhere`: "
                   "`bra $L_nowhere;`");
  EXPECT_FALSE(SimModule::load(base + "  add.s32 %r1, %r0;\n}\n", error));
  EXPECT_EQ(error, "ptx:7: `add.s32` takes 3 operands, not 2: "
                   "`add.s32 %r1, %r0;`");
  EXPECT_FALSE(SimModule::load(base + "  mul.s32 %r1, %r0, 2;\n}\n", error));
  EXPECT_EQ(error, "ptx:7: `mul.s32` needs .lo, .hi or .wide: "
                   "`mul.s32 %r1, %r0, 2;`");
}

// Found by tests/fuzz/PtxFuzzer.cpp: numbers too long for their field
// threw std::out_of_range out of the parser (an abort in `tilec run --ptx`);
// now they are refused with the line.
TEST(PtxParserTest, OverlongNumbersAreRefusedNotThrown) {
  std::string head = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                     ".visible .entry k()\n";
  std::string error;
  EXPECT_FALSE(SimModule::load(
      head + ".maxntid 99999999999999999999, 1, 1\n{\n  ret;\n}\n", error));
  EXPECT_NE(error.find("`.maxntid` takes counts below 10^9"),
            std::string::npos)
      << error;
  EXPECT_EQ(error.rfind("ptx:5:", 0), 0u) << error;
  EXPECT_FALSE(SimModule::load(
      head + "{\n  .reg .b32 %r<2>;\n"
             "  tcgen05.ld.sync.aligned.32x32b.x99999999999.b32 {%r1}, [%r0];\n"
             "}\n",
      error));
  EXPECT_EQ(error.rfind("ptx:7:", 0), 0u) << error;
}

TEST(PtxParserTest, InlineAsmScopesShadowAndKeepLocalLabels) {
  std::string ptx = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                    ".visible .entry k()\n{\n  .reg .b32 %r<2>;\n"
                    "  {\n  .reg .pred p;\n  $L_in:\n  setp.eq.u32 p, %r1, 0;\n"
                    "  @!p bra $L_in;\n  }\n"
                    "  {\n  .reg .pred p;\n  $L_in:\n  setp.ne.u32 p, %r1, 0;\n"
                    "  @p bra $L_in;\n  }\n  ret;\n}\n";
  PtxModule module;
  std::string error;
  ASSERT_TRUE(parsePtx(ptx, module, error)) << error;
  const PtxFunction &f = module.functions[0];
  ASSERT_EQ(f.code.size(), 5u);
  EXPECT_EQ(f.code[1].target, 0u);
  EXPECT_EQ(f.code[3].target, 2u);
  EXPECT_NE(f.code[0].ops[0].reg, f.code[2].ops[0].reg);
}

} // namespace

// The first operand may follow the opcode without a space, as nvcc writes
// tcgen05.ld and st: `tcgen05.ld.sync.aligned.32x32b.x2.b32{%r1, %r2}, ...`,
// `tcgen05.st.sync.aligned.32x32b.x2.b32[%r3],{...}`.
TEST(PtxParserTest, VectorOperandRightAfterTheOpcode) {
  std::string ptx = ".version 8.7\n.target sm_100a\n.address_size 64\n"
                    ".visible .entry k()\n{\n.reg .b32 %r<4>;\n"
                    "tcgen05.ld.sync.aligned.32x32b.x2.b32{%r1, %r2}, [%r3];\n"
                    "tcgen05.st.sync.aligned.32x32b.x2.b32[%r3],{%r1, %r2};\n"
                    "tcgen05.wait::ld.sync.aligned;\nret;\n}\n";
  PtxModule module;
  std::string error;
  EXPECT_TRUE(parsePtx(ptx, module, error)) << error;
}
