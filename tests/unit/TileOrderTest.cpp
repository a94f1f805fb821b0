//===- tests/unit/TileOrderTest.cpp - The grouped tile order
//---------------===//
//
// codegen/TileOrder: the file comment's table, the order is a bijection of
// the tiles for every grid and group size, groups of tile rows are walked
// column by column, and the IR form (evaluated by a small interpreter of
// the instructions it emits) agrees with the host form on every tile.
//
//===----------------------------------------------------------------------===//
#include "codegen/TileOrder.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

namespace tilec {
namespace {

TEST(TileOrder, TableExample) {
  // tilesM 3, tilesN 2, groupM 2: rows 0-1 column by column, then row 2.
  const std::pair<uint64_t, uint64_t> expected[] = {{0, 0}, {1, 0}, {0, 1},
                                                    {1, 1}, {2, 0}, {2, 1}};
  for (uint64_t t = 0; t < 6; ++t)
    EXPECT_EQ(groupedTile(t, 3, 2, 2), expected[t]) << "tile " << t;
  EXPECT_EQ(groupedTile(2, 3, 2, 2), std::make_pair(uint64_t(0), uint64_t(1)));
  EXPECT_EQ(groupedTile(4, 3, 2, 2), std::make_pair(uint64_t(2), uint64_t(0)));
}

TEST(TileOrder, BijectionAndGroupsForEveryGrid) {
  unsigned grids = 0;
  for (uint64_t tilesM = 1; tilesM <= 11; ++tilesM)
    for (uint64_t tilesN = 1; tilesN <= 9; ++tilesN)
      for (unsigned groupM : {1u, 2u, 3u, 8u, 16u}) {
        std::set<std::pair<uint64_t, uint64_t>> seen;
        for (uint64_t t = 0; t < tilesM * tilesN; ++t) {
          auto [row, col] = groupedTile(t, tilesM, tilesN, groupM);
          ASSERT_LT(row, tilesM);
          ASSERT_LT(col, tilesN);
          // Tile t stays in its group of groupM tile rows.
          ASSERT_EQ(row / groupM, t / (uint64_t(groupM) * tilesN));
          seen.insert({row, col});
        }
        ASSERT_EQ(seen.size(), tilesM * tilesN)
            << tilesM << " x " << tilesN << " group " << groupM;
        ++grids;
      }
  EXPECT_EQ(grids, 11u * 9u * 5u);
}

/// The value of \p v, an i32 expression of constants, add, sub, mul,
/// udiv, urem and umin (what emitGroupedTile emits); nullopt otherwise.
std::optional<uint64_t> evaluate(llvm::Value *v) {
  if (auto *c = llvm::dyn_cast<llvm::ConstantInt>(v))
    return c->getZExtValue();
  if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(v)) {
    auto x = evaluate(call->getArgOperand(0)),
         y = evaluate(call->getArgOperand(1));
    if (call->getIntrinsicID() != llvm::Intrinsic::umin || !x || !y)
      return std::nullopt;
    return std::min(*x, *y);
  }
  auto *op = llvm::dyn_cast<llvm::BinaryOperator>(v);
  if (!op)
    return std::nullopt;
  auto x = evaluate(op->getOperand(0)), y = evaluate(op->getOperand(1));
  if (!x || !y)
    return std::nullopt;
  switch (op->getOpcode()) {
  case llvm::Instruction::Add:
    return (*x + *y) & 0xffffffffu;
  case llvm::Instruction::Sub:
    return (*x - *y) & 0xffffffffu;
  case llvm::Instruction::Mul:
    return (*x * *y) & 0xffffffffu;
  case llvm::Instruction::UDiv:
    return *x / *y;
  case llvm::Instruction::URem:
    return *x % *y;
  default:
    return std::nullopt;
  }
}

TEST(TileOrder, IrAgreesWithHost) {
  llvm::LLVMContext ctx;
  llvm::Module module("tile_order", ctx);
  auto *fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
      llvm::GlobalValue::ExternalLinkage, "f", module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  unsigned checked = 0;
  for (uint32_t tilesM : {1u, 5u, 13u})
    for (uint32_t tilesN : {1u, 3u, 7u})
      for (unsigned groupM : {1u, 4u, 8u})
        for (uint32_t t = 0; t < tilesM * tilesN; ++t) {
          TilePosition c = emitGroupedTile(b, b.getInt32(t), b.getInt32(tilesM),
                                        b.getInt32(tilesN), groupM);
          std::optional<uint64_t> row = evaluate(c.row), col = evaluate(c.col);
          ASSERT_TRUE(row && col) << "an instruction the test cannot evaluate";
          auto [hostRow, hostCol] = groupedTile(t, tilesM, tilesN, groupM);
          ASSERT_EQ(*row, hostRow) << "tile " << t;
          ASSERT_EQ(*col, hostCol) << "tile " << t;
          ++checked;
        }
  EXPECT_EQ(checked, 3u * (1 + 5 + 13) * (1 + 3 + 7));
}

} // namespace
} // namespace tilec
