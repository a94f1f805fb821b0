//===- tests/unit/CompilerApiTest.cpp - The embedding API and its cache ---===//
#include "compiler/Compiler.h"

#include "FrontendTestSupport.h"

#include <gtest/gtest.h>

#include <thread>

using namespace tilec;

namespace {

TEST(CompilerApiTest, LowerReturnsTheDecidedSpec) {
  Compiler compiler;
  auto kernel = compiler.lower(test::exampleKernel());
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  const GemmSpec &spec = (*kernel)->spec;
  EXPECT_EQ(spec.name, "gemm");
  EXPECT_EQ(spec.arch, ArchKind::SM80);
  EXPECT_EQ(spec.bm, 128u);
  EXPECT_EQ(spec.bn, 128u);
  EXPECT_EQ(spec.bk, 32u);
  EXPECT_EQ(spec.stages, 3u);
  // tile_to_shape(K_SW64<bf16>, (128, 32)): the 8 x 32 atom (256 elements)
  // repeated 16 times along M.
  ASSERT_TRUE(spec.smemA && spec.smemB);
  EXPECT_EQ(spec.smemA->str(), "Sw<2,3,3> o ((8,16),(32,1)):((32,256),(1,0))");
  EXPECT_EQ(spec.smemB->str(), "Sw<2,3,3> o ((8,16),(32,1)):((32,256),(1,0))");
  EXPECT_EQ(spec.warpsM, 2u);
  EXPECT_EQ(spec.warpsN, 4u);
  EXPECT_NE((*kernel)->loweredIR.find("tile.pipeline"), std::string::npos);
}

TEST(CompilerApiTest, RepeatedCompilesHitTheCache) {
  Compiler compiler;
  auto first = compiler.lower(test::exampleKernel());
  ASSERT_TRUE(bool(first));
  auto second = compiler.lower(test::exampleKernel());
  ASSERT_TRUE(bool(second));
  EXPECT_EQ(first->get(), second->get());
  EXPECT_EQ(compiler.stats().hits, 1u);
  EXPECT_EQ(compiler.stats().misses, 1u);
  // Options are part of the key.
  CompileOptions options;
  options.arch = ArchKind::SM80;
  auto third = compiler.lower(test::exampleKernel(), options);
  ASSERT_TRUE(bool(third));
  EXPECT_NE(first->get(), third->get());
  EXPECT_EQ(compiler.stats().misses, 2u);
  EXPECT_NE(Compiler::cacheKey("x", {}, "ptx"),
            Compiler::cacheKey("x", options, "ptx"));
  EXPECT_NE(Compiler::cacheKey("x", {}, "ptx"),
            Compiler::cacheKey("y", {}, "ptx"));
  EXPECT_EQ(Compiler::cacheKey("x", {}, "ptx").size(), 16u);
  compiler.clearCache();
  auto fourth = compiler.lower(test::exampleKernel());
  ASSERT_TRUE(bool(fourth));
  EXPECT_NE(first->get(), fourth->get());
}

TEST(CompilerApiTest, ErrorsCarryTheDiagnostics) {
  Compiler compiler;
  std::string source = test::exampleKernel();
  source.replace(source.find("BM = 128"), 8, "BM = 0");
  auto kernel = compiler.lower(source);
  ASSERT_FALSE(bool(kernel));
  std::string message = llvm::toString(kernel.takeError());
  EXPECT_NE(message.find("<source>:8:13: error: BM must be positive, got 0"),
            std::string::npos)
      << message;
  CompileOptions options;
  options.passes = "verify,nonesuch";
  auto bad = compiler.lower(test::exampleKernel(), options);
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("unknown pass 'nonesuch'"),
            std::string::npos);
}

TEST(CompilerApiTest, PicksKernelsByName) {
  Compiler compiler;
  std::string two =
      std::string(test::exampleKernel()) +
      std::string(test::exampleKernel())
          .replace(std::string(test::exampleKernel()).find("gemm"), 4, "other");
  auto ambiguous = compiler.lower(two);
  ASSERT_FALSE(bool(ambiguous));
  EXPECT_NE(llvm::toString(ambiguous.takeError()).find("holds 2 kernels"),
            std::string::npos);
  CompileOptions options;
  options.kernel = "other";
  auto other = compiler.lower(two, options);
  ASSERT_TRUE(bool(other)) << llvm::toString(other.takeError());
  EXPECT_EQ((*other)->spec.name, "other");
  // Code generation only for the kernel asked for.
  auto compiled = compiler.compile(two, options);
  if (compiled) {
    EXPECT_EQ((*compiled)->entryName, "other");
    EXPECT_EQ((*compiled)->ptx.find(".entry gemm("), std::string::npos);
  } else {
    std::string message = llvm::toString(compiled.takeError());
    EXPECT_NE(message.find("code generation failed"), std::string::npos)
        << message;
  }
  options.kernel = "missing";
  auto missing = compiler.lower(two, options);
  ASSERT_FALSE(bool(missing));
  llvm::consumeError(missing.takeError());
}

TEST(CompilerApiTest, ThreadSafeAndShared) {
  Compiler compiler;
  std::vector<const LoweredKernel *> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      for (unsigned j = 0; j < 20; ++j) {
        auto kernel = compiler.lower(test::exampleKernel());
        if (kernel)
          seen[i] = kernel->get();
        else
          llvm::consumeError(kernel.takeError());
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (const LoweredKernel *kernel : seen)
    EXPECT_EQ(kernel, seen[0]);
  EXPECT_NE(seen[0], nullptr);
  EXPECT_EQ(compiler.stats().hits + compiler.stats().misses, 160u);
}

TEST(CompilerApiTest, ConcurrentCodeGeneration) {
  // Different sources, so every thread runs code generation itself.
  Compiler compiler;
  std::vector<std::string> ptx(4);
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      std::string source = test::exampleKernel();
      source.replace(source.find("stages   3"), 10,
                     "stages   " + std::to_string(2 + i));
      auto kernel = compiler.compile(source);
      if (kernel)
        ptx[i] = (*kernel)->ptx;
      else
        ptx[i] = "error: " + llvm::toString(kernel.takeError());
    });
  for (std::thread &thread : threads)
    thread.join();
  for (unsigned i = 0; i < 4; ++i) {
    // Same input, same output: compile each again alone and compare.
    std::string source = test::exampleKernel();
    source.replace(source.find("stages   3"), 10,
                   "stages   " + std::to_string(2 + i));
    Compiler fresh;
    auto kernel = fresh.compile(source);
    std::string alone = kernel ? (*kernel)->ptx
                               : "error: " + llvm::toString(kernel.takeError());
    EXPECT_EQ(ptx[i], alone) << i;
  }
}

TEST(CompilerApiTest, CompileGivesPtx) {
  Compiler compiler;
  auto kernel = compiler.compile(test::exampleKernel());
  // The sm_80 generator exists: a failure to compile the example is a bug.
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_NE((*kernel)->ptx.find(".entry"), std::string::npos);
  EXPECT_FALSE((*kernel)->entryName.empty());
  EXPECT_GT((*kernel)->blockThreads, 0u);
  Dim3 grid = (*kernel)->grid(1000, 300, 64);
  EXPECT_EQ(grid.x, ((1000 + (*kernel)->tileM - 1) / (*kernel)->tileM) *
                        ((300 + (*kernel)->tileN - 1) / (*kernel)->tileN));
  auto again = compiler.compile(test::exampleKernel());
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(kernel->get(), again->get());
}

} // namespace
