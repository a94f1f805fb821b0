//===- codegen/Sm90ColumnStage.cpp - Column operands in shared memory ----===//
#include "codegen/Sm90ColumnStage.h"

#include "codegen/PtxInlineAsm.h"
#include "codegen/Sm90Epilogue.h"
#include "codegen/Sm90Gemm.h"

using namespace tilec;

Sm90ColumnStage tilec::sm90ColumnStageOf(const Sm90GemmConfig &config) {
  Sm90ColumnStage stage;
  stage.bn = config.bn;
  if (findSwiglu(config.epilogueOps) || config.group ||
      sm90PreloadedBlocks(config) >= config.bn / 8)
    return stage;
  for (const EpilogueOp &op : config.epilogueOps) {
    bool operand = readsOperandVector(op);
    // The kernel's columns are C's rows under swap-AB.
    bool perColumn = (op.axis == EpilogueAxis::Col) != config.swapAB;
    stage.arrayOf.push_back(operand && perColumn ? int(stage.arrays++) : -1);
  }
  return stage;
}

void tilec::emitSm90ColumnStageFill(llvm::IRBuilder<> &b,
                                    const Sm90GemmConfig &config,
                                    const Sm90ColumnStage &stage,
                                    const EpilogueInputs &inputs,
                                    const Sm90ColumnStageValues &at,
                                    llvm::Value *lane) {
  llvm::Value *parity = b.CreateAnd(at.tileCount, b.getInt32(1));
  ptx::mbarrierWaitParity(b, at.empty, b.CreateXor(parity, b.getInt32(1)),
                          "cols.empty");
  // All loads first, then the stores: one latency for the tile.
  std::vector<std::pair<llvm::Value *, llvm::Value *>> stores;
  for (unsigned q = 0; q < (stage.bn + 31) / 32; ++q) {
    // Lanes past a BN under 32 repeat the last column (same value, same
    // place).
    llvm::Value *j = b.CreateBinaryIntrinsic(
        llvm::Intrinsic::umin, b.CreateAdd(lane, b.getInt32(32 * q)),
        b.getInt32(stage.bn - 1));
    llvm::Value *col = b.CreateAdd(at.n0, j);
    EpilogueOperandValues values = emitEpilogueOperandLoads(
        b, config.epilogueOps, inputs, config.swapAB ? col : nullptr,
        config.swapAB ? nullptr : col);
    for (size_t k = 0; k < stage.arrayOf.size(); ++k)
      if (stage.arrayOf[k] >= 0)
        stores.push_back(
            {b.CreateAdd(
                 at.base,
                 b.CreateMul(
                     b.CreateAdd(j, b.getInt32(stage.arrayOf[k] * stage.bn)),
                     b.getInt32(4))),
             values.perOp[k]});
  }
  for (auto [address, value] : stores)
    ptx::stSharedF32(b, address, value);
  // mbarrier.arrive releases this lane's stores to the consumers' wait.
  ptx::mbarrierArrive(b, at.full);
}

EpilogueOperandValues tilec::emitSm90ColumnStageRead(
    llvm::IRBuilder<> &b, const Sm90ColumnStage &stage,
    const Sm90ColumnStageValues &at, llvm::Value *col) {
  EpilogueOperandValues values;
  llvm::Value *j = b.CreateSub(col, at.n0);
  for (int array : stage.arrayOf)
    values.perOp.push_back(
        array < 0
            ? nullptr
            : ptx::ldSharedF32(
                  b,
                  b.CreateAdd(
                      at.base,
                      b.CreateMul(b.CreateAdd(j, b.getInt32(array * stage.bn)),
                                  b.getInt32(4)))));
  return values;
}
