//===- tests/unit/PtxEmitterTest.cpp - PTX emission for every target ------===//
#include "codegen/Ptxas.h"
#include "codegen/PtxEmitter.h"
#include "codegen/SaxpyKernel.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <gtest/gtest.h>

namespace tilec {
namespace {

class SaxpyPtx : public ::testing::TestWithParam<ArchKind> {};

TEST_P(SaxpyPtx, HasTargetVersionAndEntry) {
  const ArchInfo &info = archInfo(GetParam());
  auto ptx = emitSaxpyPtx(GetParam());
  ASSERT_TRUE(bool(ptx)) << llvm::toString(ptx.takeError());
  EXPECT_NE(ptx->find(".target " + info.name.str()), std::string::npos)
      << *ptx;
  std::string version = ".version " + std::to_string(info.ptxVersion / 10) +
                        "." + std::to_string(info.ptxVersion % 10);
  EXPECT_NE(ptx->find(version), std::string::npos) << *ptx;
  EXPECT_NE(ptx->find(".entry tilec_saxpy"), std::string::npos) << *ptx;
  EXPECT_NE(ptx->find("fma.rn.f32"), std::string::npos) << *ptx;
}

TEST_P(SaxpyPtx, AssemblesWithPtxas) {
  if (!findPtxas())
    GTEST_SKIP() << "SKIP: ptxas not found; PTX not assembled";
  auto ptx = emitSaxpyPtx(GetParam());
  ASSERT_TRUE(bool(ptx)) << llvm::toString(ptx.takeError());
  llvm::Error err = assembleWithPtxas(*ptx, GetParam());
  EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
}

INSTANTIATE_TEST_SUITE_P(AllTargets, SaxpyPtx,
                         ::testing::Values(ArchKind::SM80, ArchKind::SM90a,
                                           ArchKind::SM100a),
                         [](const auto &info) {
                           return archInfo(info.param).name.str();
                         });

TEST(PtxEmitter, InvalidModuleIsAnErrorNotACrash) {
  llvm::LLVMContext context;
  llvm::Module module("bad", context);
  llvm::IRBuilder<> builder(context);
  auto *fn = llvm::Function::Create(
      llvm::FunctionType::get(builder.getVoidTy(), false),
      llvm::GlobalValue::ExternalLinkage, "no_terminator", module);
  llvm::BasicBlock::Create(context, "entry", fn); // no terminator
  auto ptx = emitPtx(module, ArchKind::SM90a);
  ASSERT_FALSE(bool(ptx));
  EXPECT_NE(llvm::toString(ptx.takeError()).find("invalid LLVM IR"),
            std::string::npos);
}

TEST(Ptxas, RejectsBrokenPtxWithItsMessage) {
  if (!findPtxas())
    GTEST_SKIP() << "SKIP: ptxas not found";
  llvm::Error err = assembleWithPtxas(".version 8.0\n.target sm_90a\n"
                                      ".address_size 64\nnot ptx;\n",
                                      ArchKind::SM90a);
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("ptxas -arch=sm_90a failed"),
            std::string::npos);
}

TEST(Arch, ParsesEveryNameInTheTable) {
  for (const ArchInfo &info : allArchs())
    EXPECT_EQ(parseArch(info.name), info.kind);
  EXPECT_FALSE(parseArch("sm_90"));
  EXPECT_EQ(listArchNames(), "sm_80, sm_90a, sm_100a");
}

} // namespace
} // namespace tilec
