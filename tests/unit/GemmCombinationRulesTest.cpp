//===- tests/unit/GemmCombinationRulesTest.cpp - One message per rule ----===//
//
// A GemmSpec built in C++ (no verify pass sees it) and a `.tile` program
// that writes the same combination are refused with the same message: the
// spec of a legal program is lowered, one field is changed, and codegen's
// refusal must appear verbatim among the program's diagnostics when the
// program writes that change.
//
//===----------------------------------------------------------------------===//
#include "codegen/GemmCodegen.h"
#include "compiler/Compiler.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

using namespace tilec;

namespace {

struct Case {
  const char *what;
  std::string legal;   ///< A program that compiles.
  std::string written; ///< The same program writing the combination.
  std::function<void(GemmSpec &)> change;
  const char *expect; ///< A part of the message.
};

std::string kernel(const std::string &items) {
  return "kernel k {\n" + items + "}\n";
}

const std::string Batched90 = "  arch sm_90a\n"
                              "  a : bf16[B, M, K] major(K)\n"
                              "  b : bf16[N, K] major(K)\n"
                              "  c : bf16[B, M, N] major(N)\n"
                              "  acc f32\n"
                              "  tile (BM = 128, BN = 128, BK = 64)\n"
                              "  stages 4\n";

const std::string Grouped90 = "  arch sm_90a\n"
                              "  a : e4m3[G, M, K] major(K)\n"
                              "  b : e4m3[G, N, K] major(K)\n"
                              "  c : bf16[G, M, N] major(N)\n"
                              "  acc f32\n"
                              "  scale a f32 block(1, 128)\n"
                              "  scale b f32 block(128, 128)\n"
                              "  group masked\n"
                              "  tile (BM = 128, BN = 128, BK = 128)\n"
                              "  stages 5\n";

const std::string Plain80 = "  arch sm_80\n"
                            "  a : bf16[M, K] major(K)\n"
                            "  b : bf16[N, K] major(K)\n"
                            "  c : bf16[M, N] major(N)\n"
                            "  acc f32\n"
                            "  tile (BM = 128, BN = 128, BK = 32)\n"
                            "  stages 4\n";

std::string weight(const std::string &arch) {
  return "  arch " + arch +
         "\n"
         "  a : bf16[M, K] major(K)\n"
         "  b : u4[N, K] major(K)\n"
         "  c : bf16[M, N] major(N)\n"
         "  scale b bf16 group(128) zero(u8)\n"
         "  acc f32\n"
         "  tile (BM = 64, BN = 16, BK = 64)\n"
         "  stages 12\n"
         "  schedule swap_ab split_k(2)\n";
}

TEST(GemmCombinationRulesTest, CodegenRefusesWithTheVerifyPassesMessage) {
  Case cases[] = {
      {"a batch beside split-K", kernel(Batched90),
       kernel(Batched90 + "  schedule split_k(2)\n"),
       [](GemmSpec &s) { s.splitK = 2; },
       "schedule split_k is not implemented for a batched kernel"},
      {"a batch beside persistent", kernel(Batched90),
       kernel(Batched90 + "  schedule persistent\n"),
       [](GemmSpec &s) { s.persistent = true; },
       "schedule persistent is not implemented for a batched kernel"},
      {"a group beside swap-AB", kernel(Grouped90 + "  schedule persistent\n"),
       kernel(Grouped90 + "  schedule swap_ab persistent\n"),
       [](GemmSpec &s) { s.swapAB = true; },
       "schedule swap_ab is not implemented for a grouped kernel"},
      {"swap-AB on sm_80", kernel(Plain80),
       kernel(Plain80 + "  schedule swap_ab\n"),
       [](GemmSpec &s) { s.swapAB = true; },
       "schedule swap_ab is implemented for sm_90a, sm_100a only"},
      {"a quantized weight on sm_100a", kernel(weight("sm_90a")),
       kernel(weight("sm_100a")),
       [](GemmSpec &s) { s.arch = ArchKind::SM100a; },
       "quantized weights are not implemented for sm_100a"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    Compiler compiler;
    auto lowered = compiler.lower(c.legal);
    ASSERT_TRUE(bool(lowered)) << llvm::toString(lowered.takeError());
    GemmSpec spec = (*lowered)->spec;
    ASSERT_FALSE(bool(checkGemmSpec(spec)));
    c.change(spec);
    std::string refusal = llvm::toString(checkGemmSpec(spec));
    EXPECT_NE(refusal.find(c.expect), std::string::npos) << refusal;
    auto written = compiler.lower(c.written);
    ASSERT_FALSE(bool(written));
    std::string diagnostics = llvm::toString(written.takeError());
    EXPECT_NE(diagnostics.find(refusal), std::string::npos)
        << "codegen: " << refusal << "\nverify: " << diagnostics;
  }
}

} // namespace
