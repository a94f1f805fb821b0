//===- tests/unit/FrontendFuzzTest.cpp - Bounded random input -------------===//
//
// Random and mutated inputs through the whole front end and every pass: no
// crash, no hang, and whenever --emit=ir succeeds the printed IR parses back
// to the same text. Deterministic: a fixed number of inputs from a fixed
// seed, so what it covers does not depend on the machine.
// tests/fuzz/TileFuzzer.cpp is the open-ended libFuzzer version.
//
//===----------------------------------------------------------------------===//
#include "compiler/VerifyDiagnostics.h"

#include "FrontendTestSupport.h"

#include <gtest/gtest.h>

#include <random>

using namespace tilec;

namespace {

const char *const Fragments[] = {"kernel",
                                 "k",
                                 "{",
                                 "}",
                                 "(",
                                 ")",
                                 "[",
                                 "]",
                                 ",",
                                 ":",
                                 "=",
                                 "->",
                                 "+",
                                 "-",
                                 "*",
                                 "/",
                                 "%",
                                 "<",
                                 ">",
                                 "@",
                                 "\n",
                                 " ",
                                 "//",
                                 "\"",
                                 "arch",
                                 "sm_80",
                                 "sm_90a",
                                 "sm_100a",
                                 "a",
                                 "b",
                                 "c",
                                 "bf16",
                                 "f16",
                                 "e4m3",
                                 "tf32",
                                 "f32",
                                 "M",
                                 "N",
                                 "K",
                                 "major",
                                 "acc",
                                 "tile",
                                 "BM",
                                 "BN",
                                 "BK",
                                 "stages",
                                 "smem",
                                 "auto",
                                 "mma",
                                 "wgmma.m64n128k16",
                                 "mma.sync.m16n8k16",
                                 "tcgen05.mma.m128n256k16",
                                 "warpgroups",
                                 "epilogue",
                                 "store",
                                 "stmatrix",
                                 "tma_store",
                                 "swizzle(128B)",
                                 "0",
                                 "1",
                                 "8",
                                 "16",
                                 "32",
                                 "64",
                                 "128",
                                 "256",
                                 "9223372036854775807",
                                 "const",
                                 "layout",
                                 "print",
                                 "descriptor",
                                 "tile_to_shape",
                                 "K_SW128<bf16>",
                                 "MN_SW32<f16>",
                                 "tile.module",
                                 "tile.kernel",
                                 "$",
                                 "\xff",
                                 "\t"};

std::string randomText(std::mt19937 &rng) {
  std::string text;
  unsigned length = rng() % 60;
  for (unsigned i = 0; i < length; ++i) {
    text += Fragments[rng() % std::size(Fragments)];
    if (rng() % 3 == 0)
      text += ' ';
  }
  return text;
}

std::string mutate(std::string text, std::mt19937 &rng) {
  unsigned edits = 1 + rng() % 4;
  for (unsigned i = 0; i < edits && !text.empty(); ++i) {
    size_t pos = rng() % text.size();
    switch (rng() % 4) {
    case 0:
      text.erase(pos, 1 + rng() % 8);
      break;
    case 1:
      text.insert(pos, Fragments[rng() % std::size(Fragments)]);
      break;
    case 2:
      text[pos] = static_cast<char>(rng() % 256);
      break;
    default:
      text.insert(pos, text.substr(rng() % text.size(), rng() % 16));
      break;
    }
  }
  return text;
}

void checkOne(const std::string &text) {
  for (EmitKind emit : {EmitKind::AST, EmitKind::IR, EmitKind::Lowered}) {
    test::Harness h(text);
    CompilationResult result = h.compile(emit);
    if (!result.ok || emit != EmitKind::IR)
      continue;
    test::Harness again(result.output);
    CompilationResult reparsed = again.compile(EmitKind::IR);
    ASSERT_TRUE(reparsed.ok) << text << "\n" << again.messages();
    ASSERT_EQ(reparsed.output, result.output) << text;
  }
}

TEST(FrontendFuzzTest, RandomAndMutatedInputsNeverCrash) {
  // A fixed number of inputs from a fixed seed: the same inputs on every
  // machine, however fast.
  std::mt19937 rng(20261121);
  constexpr unsigned Inputs = 20000;
  unsigned runs = 0, compiled = 0;
  std::string seed = test::exampleKernel();
  for (; runs < Inputs; ++runs) {
    std::string text = runs % 2 ? randomText(rng) : mutate(seed, rng);
    checkOne(text);
    if (HasFatalFailure())
      return;
    test::Harness h(text);
    compiled += h.compile(EmitKind::Lowered).ok;
    // The expectation scanner reads the same bytes.
    std::string sink;
    llvm::raw_string_ostream os(sink);
    verifyDiagnostics(h.diags, h.bufferId, os);
  }
  // The mutations must leave some inputs valid, or the test checks little.
  EXPECT_EQ(runs, Inputs);
  EXPECT_GT(compiled, 0u);
}

TEST(FrontendFuzzTest, MutatedTileIRNeverCrashes) {
  test::Harness h(test::exampleKernel());
  CompilationResult lowered = h.compile(EmitKind::Lowered);
  ASSERT_TRUE(lowered.ok) << h.messages();
  std::mt19937 rng(7);
  for (unsigned i = 0; i < 2000; ++i) {
    checkOne(mutate(lowered.output, rng));
    if (HasFatalFailure())
      return;
  }
}

} // namespace
