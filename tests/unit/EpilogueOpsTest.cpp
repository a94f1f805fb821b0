//===- tests/unit/EpilogueOpsTest.cpp - The epilogue op table -------------===//
//
// ir/tile/EpilogueOps: every spelling parses and prints back unchanged (the disk
// cache stores ops as their spellings, compiler/DiskCacheJson.cpp), the
// header's examples, swiglu's split and pairing, the operand types.
//
//===----------------------------------------------------------------------===//
#include "ir/tile/EpilogueOps.h"

#include <gtest/gtest.h>

namespace tilec {
namespace {

EpilogueOp parsed(llvm::StringRef text) {
  llvm::Expected<EpilogueOp> op = parseEpilogueOp(text);
  EXPECT_TRUE(bool(op)) << text.str();
  if (!op) {
    llvm::consumeError(op.takeError());
    return EpilogueOp{EpilogueOpKind::Relu};
  }
  return *op;
}

std::string error(llvm::StringRef text) {
  llvm::Expected<EpilogueOp> op = parseEpilogueOp(text);
  if (op)
    return "parsed";
  return llvm::toString(op.takeError());
}

TEST(EpilogueOps, EverySpellingRoundTrips) {
  for (const char *text :
       {"bias(col)", "bias(row)", "bias(col, f32)", "bias(row, bf16)",
        "bias(col, f16)", "scale(col)", "scale(row)", "relu", "gelu",
        "gelu_tanh", "silu", "clamp(-1, 1.5)", "residual", "swiglu",
        "swiglu(interleaved)"}) {
    EpilogueOp op = parsed(text);
    EXPECT_EQ(formatEpilogueOp(op), text);
    EXPECT_EQ(parsed(formatEpilogueOp(op)), op) << text;
  }
  // Spacing is not kept; the meaning is.
  EXPECT_EQ(formatEpilogueOp(parsed("bias( col ,f32 )")), "bias(col, f32)");
}

TEST(EpilogueOps, HeaderExamples) {
  EpilogueOp clamp = parsed("clamp(-1, 1.5)");
  EXPECT_EQ(clamp.kind, EpilogueOpKind::Clamp);
  EXPECT_EQ(clamp.lo, -1.0f);
  EXPECT_EQ(clamp.hi, 1.5f);
  EpilogueOp bias = parsed("bias(col, f32)");
  EXPECT_EQ(bias.kind, EpilogueOpKind::Bias);
  EXPECT_EQ(bias.axis, EpilogueAxis::Col);
  EXPECT_EQ(bias.operandType, DTypeKind::F32);
  EXPECT_NE(parsed("bias(col)"), bias);
  EXPECT_NE(parsed("swiglu"), parsed("swiglu(interleaved)"));
}

TEST(EpilogueOps, OperandTypes) {
  EXPECT_EQ(epilogueOperandType(parsed("bias(col)"), DTypeKind::F16),
            DTypeKind::F16);
  EXPECT_EQ(epilogueOperandType(parsed("bias(row, f32)"), DTypeKind::BF16),
            DTypeKind::F32);
  EXPECT_EQ(epilogueOperandType(parsed("scale(col)"), DTypeKind::BF16),
            DTypeKind::F32);
  EXPECT_EQ(epilogueOperandType(parsed("residual"), DTypeKind::BF16),
            DTypeKind::BF16);
  EXPECT_EQ(epilogueOpInfo(EpilogueOpKind::Residual).operand, "residual");
  EXPECT_EQ(epilogueOpInfo(EpilogueOpKind::Swiglu).operand, "");
}

TEST(EpilogueOps, Errors) {
  EXPECT_EQ(error("bias(col, i8)"),
            "bias's vector type 'i8' is not bf16, f16 or f32; e.g. bias(col, "
            "f32), or bias(col) for C's type");
  EXPECT_EQ(error("scale(col, f16)"),
            "epilogue op 'scale' reads f32 only; write scale(col), not "
            "'scale(col, f16)'");
  EXPECT_EQ(error("swiglu(2)"),
            "epilogue op 'swiglu' pairs the halves of each tile, or with "
            "swiglu(interleaved) columns 2j and 2j + 1; not 'swiglu(2)'");
  EXPECT_EQ(error("residual(row)"),
            "epilogue op 'residual' takes no options, not '(row)'");
}

TEST(EpilogueOps, SwigluSplitsTheList) {
  std::vector<EpilogueOp> ops = {parsed("bias(col)"), parsed("swiglu"),
                                 parsed("residual"), parsed("relu")};
  auto [before, after] = splitAtSwiglu(ops);
  ASSERT_EQ(before.size(), 1u);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(before[0].kind, EpilogueOpKind::Bias);
  EXPECT_EQ(after[0].kind, EpilogueOpKind::Residual);
  EXPECT_EQ(findSwiglu(ops), &ops[1]);
  EXPECT_EQ(epilogueOutputCols(ops, 384), 192);
  std::vector<EpilogueOp> plain = {parsed("relu")};
  EXPECT_EQ(splitAtSwiglu(plain).first.size(), 1u);
  EXPECT_TRUE(splitAtSwiglu(plain).second.empty());
  EXPECT_EQ(epilogueOutputCols(plain, 384), 384);
}

TEST(EpilogueOps, SwigluPairing) {
  // Halves of 128-column tiles: output 0..63 -> tile 0, 64.. -> tile 1.
  EpilogueOp halves = parsed("swiglu");
  EXPECT_EQ(swigluSources(halves, 0, 128), (std::pair<int64_t, int64_t>{0, 64}));
  EXPECT_EQ(swigluSources(halves, 63, 128),
            (std::pair<int64_t, int64_t>{63, 127}));
  EXPECT_EQ(swigluSources(halves, 64, 128),
            (std::pair<int64_t, int64_t>{128, 192}));
  EXPECT_EQ(swigluSources(halves, 130, 128),
            (std::pair<int64_t, int64_t>{258, 322}));
  EpilogueOp interleaved = parsed("swiglu(interleaved)");
  EXPECT_EQ(swigluSources(interleaved, 5, 128),
            (std::pair<int64_t, int64_t>{10, 11}));
  // Every accumulator column is used exactly once over C's N/2 columns.
  for (const EpilogueOp &op : {halves, interleaved}) {
    std::vector<int> seen(384, 0);
    for (int64_t o = 0; o < 192; ++o) {
      auto [g, u] = swigluSources(op, o, 128);
      ASSERT_LT(g, 384);
      ASSERT_LT(u, 384);
      ++seen[size_t(g)];
      ++seen[size_t(u)];
    }
    for (int count : seen)
      EXPECT_EQ(count, 1);
  }
}

} // namespace
} // namespace tilec
