//===- tests/unit/FrontendParserTest.cpp - Parser, sema, Tile IR text -----===//
#include "compiler/IRParser.h"
#include "compiler/Parser.h"
#include "compiler/Sema.h"
#include "ir/tile/TileIR.h"

#include "FrontendTestSupport.h"

#include <gtest/gtest.h>

using namespace tilec;

namespace {

std::string astOf(llvm::StringRef text, unsigned *errors = nullptr) {
  test::Harness h(text);
  Program program = parseProgram(h.bufferId, h.diags);
  if (errors)
    *errors = h.diags.errorCount();
  std::string out;
  llvm::raw_string_ostream os(out);
  dumpAST(program, os);
  return out;
}

TEST(FrontendParserTest, ExampleKernelParses) {
  test::Harness h(test::exampleKernel());
  Program program = parseProgram(h.bufferId, h.diags);
  EXPECT_FALSE(h.diags.hasErrors()) << h.messages();
  ASSERT_EQ(program.statements.size(), 1u);
  const KernelDecl &kernel = program.statements[0].kernel;
  EXPECT_EQ(kernel.name.name, "gemm");
  ASSERT_EQ(kernel.items.size(), 11u);
  EXPECT_EQ(kernel.items[0].kind, ItemKind::Arch);
  EXPECT_EQ(kernel.items[1].kind, ItemKind::Operand);
  EXPECT_EQ(kernel.items[1].major.name, "K");
  EXPECT_EQ(kernel.items[8].layout.text,
            "tile_to_shape(K_SW64<bf16>, (BN, BK))");
  // The layout text's location is its first character in the source.
  EXPECT_EQ(h.sourceMgr.getLineAndColumn(kernel.items[8].layout.loc),
            std::make_pair(11u, 14u));
}

TEST(FrontendParserTest, ExpressionPrecedenceAndAssociativity) {
  std::string ast = astOf("const X = 1 + 2 * 3 - 4 / 2 % 3\n"
                          "const Y = -(1 - 2) - -3\n");
  EXPECT_NE(ast.find("Const X = ((1 + (2 * 3)) - ((4 / 2) % 3))"),
            std::string::npos)
      << ast;
  EXPECT_NE(ast.find("Const Y = ((-(1 - 2)) - (-3))"), std::string::npos)
      << ast;
}

TEST(FrontendParserTest, LineBreaksEndStatementsExceptInsideBrackets) {
  unsigned errors = 0;
  std::string ast = astOf("kernel k {\n"
                          "  tile (BM = 64 *\n"
                          "        2, BN = 8, BK = 16)\n"
                          "  stages 2 +\n"
                          "  acc f32\n"
                          "}\n",
                          &errors);
  // `stages 2 +` cannot take `acc` from the next line.
  EXPECT_EQ(errors, 1u);
  EXPECT_NE(ast.find("Tile BM=(64 * 2) BN=8 BK=16"), std::string::npos) << ast;
  EXPECT_NE(ast.find("Acc f32"), std::string::npos) << ast;
}

TEST(FrontendParserTest, SeveralErrorsInOneRun) {
  unsigned errors = 0;
  astOf("kernel k {\n"
        "  arch\n"
        "  bogus 1\n"
        "  tile (BM = )\n"
        "  stages\n"
        "}\n"
        "junk\n",
        &errors);
  EXPECT_EQ(errors, 5u);
}

TEST(FrontendParserTest, SemaEvaluatesAndSubstitutes) {
  test::Harness h("const W = 2 * 64\n"
                  "layout L = tile_to_shape(K_SW128<bf16>, (W, 64))\n"
                  "kernel k {\n"
                  "  arch sm_90a\n"
                  "  a : bf16[M, W * 8] major(K)\n"
                  "  b : bf16[N, K] major(K)\n"
                  "  c : bf16[M, N] major(N)\n"
                  "  acc f32\n"
                  "  tile (BM = W, BN = W + W, BK = 64)\n"
                  "  stages 3\n"
                  "  smem a = composition(L, (BM, BK))\n"
                  "}\n");
  CompilationResult result = h.compile(EmitKind::IR);
  ASSERT_TRUE(result.ok) << h.messages();
  EXPECT_NE(result.output.find("tile.operand @a {dtype = bf16, shape = [M, "
                               "1024], major = K}"),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("tile.tile {bm = 128, bn = 256, bk = 64}"),
            std::string::npos);
  EXPECT_NE(result.output.find(
                "layout = \"composition(tile_to_shape(K_SW128<bf16>, (128, "
                "64)), (128, 64))\""),
            std::string::npos)
      << result.output;
}

TEST(FrontendParserTest, TileIRHeaderExampleRoundTrips) {
  // Example from ir/tile/TileIR.h.
  const char *text = "tile.module {\n"
                     "  tile.kernel @gemm {arch = sm_80} {\n"
                     "    tile.operand @a {dtype = bf16, shape = [M, K], major "
                     "= K}\n"
                     "    tile.tile {bm = 128, bn = 128, bk = 32}\n"
                     "    tile.smem @a {layout = auto}\n"
                     "  }\n"
                     "}\n";
  test::Harness h(text);
  ASSERT_TRUE(looksLikeTileIR(text));
  std::optional<tir::Op> module = parseTileIR(h.bufferId, h.diags);
  ASSERT_TRUE(module) << h.messages();
  EXPECT_EQ(tir::printToString(*module), text);
}

TEST(FrontendParserTest, TileIRAttributesRoundTrip) {
  tir::Op module;
  module.name = "tile.module";
  tir::Op op;
  op.name = "tile.print";
  op.set("expr", tir::Attr::string("quote \" backslash \\ tab \t nl \n \x01"));
  op.set("kind", tir::Attr::ident("layout"));
  module.body.push_back(op);
  tir::Op value;
  value.name = "tile.const";
  value.symbol = "N";
  value.set("value", tir::Attr::integer(-42));
  module.body.push_back(value);
  std::string text = tir::printToString(module);
  test::Harness h(text);
  std::optional<tir::Op> parsed = parseTileIR(h.bufferId, h.diags);
  ASSERT_TRUE(parsed) << h.messages();
  ASSERT_EQ(parsed->body.size(), 2u);
  EXPECT_EQ(parsed->body[0].getText("expr"),
            "quote \" backslash \\ tab \t nl \n \x01");
  EXPECT_EQ(parsed->body[1].getInt("value"), -42);
  EXPECT_EQ(tir::printToString(*parsed), text);
}

// tile.epilogue's ops are typed in the Tile IR (the IR parser as Sema) and
// print as written; text that spells no op stays text for verify.
TEST(FrontendParserTest, TileIREpilogueOpsAreTyped) {
  const char *text =
      "tile.module {\n"
      "  tile.kernel @gemm {arch = sm_90a} {\n"
      "    tile.epilogue {steps = [[store]], ops = [\"bias(col, f32)\", "
      "\"clamp(-1, 1.5)\", \"swiglu(interleaved)\", \"nonesuch\"]}\n"
      "  }\n"
      "}\n";
  test::Harness h(text);
  std::optional<tir::Op> module = parseTileIR(h.bufferId, h.diags);
  ASSERT_TRUE(module) << h.messages();
  EXPECT_EQ(tir::printToString(*module), text);
  const tir::Op *epilogue = module->body[0].find("tile.epilogue");
  ASSERT_TRUE(epilogue);
  const std::vector<tir::Attr> &ops = epilogue->get("ops")->list;
  ASSERT_EQ(ops.size(), 4u);
  ASSERT_TRUE(ops[0].isEpilogueOp());
  EXPECT_EQ(ops[0].epilogueOp.kind, EpilogueOpKind::Bias);
  EXPECT_EQ(ops[0].epilogueOp.axis, EpilogueAxis::Col);
  EXPECT_EQ(ops[0].epilogueOp.operandType, DTypeKind::F32);
  ASSERT_TRUE(ops[1].isEpilogueOp());
  EXPECT_EQ(ops[1].epilogueOp.lo, -1.0f);
  EXPECT_EQ(ops[1].epilogueOp.hi, 1.5f);
  ASSERT_TRUE(ops[2].isEpilogueOp());
  EXPECT_EQ(ops[2].epilogueOp.pairing, SwigluPairingKind::Interleaved);
  EXPECT_TRUE(ops[3].isString());
}

TEST(FrontendParserTest, TileIRSyntaxErrors) {
  for (const char *bad : {"tile.module { tile.nonesuch }",
                          "tile.module { tile.const @X {value "
                          "= } }",
                          "tile.module {", "tile.module { tile.kernel @k { } }",
                          "tile.module { tile.print {expr = \"\\q\"} }",
                          "tile.module {} trailing"}) {
    test::Harness h(bad);
    EXPECT_FALSE(parseTileIR(h.bufferId, h.diags)) << bad;
    EXPECT_TRUE(h.diags.hasErrors()) << bad;
  }
}

} // namespace
