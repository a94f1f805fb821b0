//===- tests/unit/DiskCacheTest.cpp - Compiled kernels cached on disk -----===//
#include "compiler/DiskCache.h"

#include "FrontendTestSupport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

using namespace tilec;

namespace {

/// A fresh, empty cache directory under the system temp dir.
class DiskCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> path;
    ASSERT_FALSE(
        llvm::sys::fs::createUniqueDirectory("tilec-diskcache-test", path));
    dir = std::string(path);
    cache = std::make_shared<DiskCache>(dir);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  /// The .json entries in the cache directory.
  std::vector<std::string> entries() const {
    std::vector<std::string> files;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
         it.increment(ec))
      if (llvm::StringRef(it->path()).ends_with(".json"))
        files.push_back(it->path());
    return files;
  }

  std::shared_ptr<const CompiledKernel>
  compileWith(Compiler &compiler, const CompileOptions &options = {}) {
    compiler.setDiskCache(cache);
    auto kernel = compiler.compile(test::exampleKernel(), options);
    EXPECT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    return kernel ? *kernel : nullptr;
  }

  std::string dir;
  std::shared_ptr<DiskCache> cache;
};

std::string jsonText(const CompiledKernel &kernel) {
  std::string text;
  llvm::raw_string_ostream(text) << compiledKernelToJson(kernel);
  return text;
}

TEST_F(DiskCacheTest, SecondCompilerHitsTheDisk) {
  Compiler first;
  auto compiled = compileWith(first);
  ASSERT_TRUE(compiled);
  EXPECT_EQ(first.stats().diskHits, 0u);
  ASSERT_EQ(entries().size(), 1u);

  Compiler second;
  auto loaded = compileWith(second);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(second.stats().diskHits, 1u);
  EXPECT_EQ(second.stats().misses, 1u);
  EXPECT_EQ(loaded->ptx, compiled->ptx);
  EXPECT_EQ(loaded->entryName, compiled->entryName);
  EXPECT_EQ(jsonText(*loaded), jsonText(*compiled));
  // The memory cache still answers the repeat.
  auto again = compileWith(second);
  EXPECT_EQ(again.get(), loaded.get());
  EXPECT_EQ(second.stats().hits, 1u);
}

TEST_F(DiskCacheTest, CorruptEntryIsAMiss) {
  Compiler first;
  ASSERT_TRUE(compileWith(first));
  std::vector<std::string> files = entries();
  ASSERT_EQ(files.size(), 1u);
  for (llvm::StringRef garbage :
       {"", "{", "not json", "{\"format\": 1}", "[1, 2, 3]",
        "{\"format\": 1, \"key\": \"x\", \"build\": \"y\", \"kernel\": {}}"}) {
    {
      std::error_code ec;
      llvm::raw_fd_ostream out(files[0], ec);
      ASSERT_FALSE(ec);
      out << garbage;
    }
    Compiler second;
    auto kernel = compileWith(second);
    ASSERT_TRUE(kernel) << garbage.str();
    EXPECT_EQ(second.stats().diskHits, 0u) << garbage.str();
    EXPECT_FALSE(kernel->ptx.empty());
  }
  // An entry whose PTX is cut short (a torn copy) is a miss too: the JSON
  // line says how many bytes of PTX follow it.
  {
    auto whole = llvm::MemoryBuffer::getFile(files[0]);
    ASSERT_TRUE(bool(whole));
    std::string text = (*whole)->getBuffer().str();
    ASSERT_NE(text.find('\n'), std::string::npos);
    std::error_code ec;
    llvm::raw_fd_ostream out(files[0], ec);
    ASSERT_FALSE(ec);
    out << llvm::StringRef(text).drop_back();
  }
  {
    Compiler second;
    auto kernel = compileWith(second);
    ASSERT_TRUE(kernel);
    EXPECT_EQ(second.stats().diskHits, 0u);
  }
  // The recompile rewrote the entry whole: the next process hits it.
  Compiler third;
  ASSERT_TRUE(compileWith(third));
  EXPECT_EQ(third.stats().diskHits, 1u);
  // A kernel missing a field is refused.
  auto value = llvm::json::parse(R"({"arch": "sm_80"})");
  ASSERT_TRUE(bool(value));
  EXPECT_FALSE(compiledKernelFromJson(*value));
}

TEST_F(DiskCacheTest, DifferentOptionMisses) {
  Compiler first;
  ASSERT_TRUE(compileWith(first));
  Compiler second;
  CompileOptions options;
  options.lineInfo = true;
  auto kernel = compileWith(second, options);
  ASSERT_TRUE(kernel);
  EXPECT_EQ(second.stats().diskHits, 0u);
  EXPECT_NE(kernel->ptx.find(".loc"), std::string::npos);
  EXPECT_EQ(entries().size(), 2u);
  options.lineInfo = false;
  options.arch = ArchKind::SM80; // Another key, although the same kernel.
  Compiler third;
  ASSERT_TRUE(compileWith(third, options));
  EXPECT_EQ(third.stats().diskHits, 0u);
}

TEST_F(DiskCacheTest, UnwritableDirectoryIsNoError) {
  Compiler compiler;
  compiler.setDiskCache(std::make_shared<DiskCache>("/proc/tilec-no-such"));
  auto kernel = compiler.compile(test::exampleKernel());
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
}

TEST_F(DiskCacheTest, EveryExampleRoundTrips) {
  llvm::SmallString<256> examples(TILEC_SOURCE_DIR);
  llvm::sys::path::append(examples, "examples");
  std::error_code ec;
  unsigned count = 0;
  for (llvm::sys::fs::directory_iterator it(examples, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (!llvm::StringRef(it->path()).ends_with(".tile"))
      continue;
    auto buffer = llvm::MemoryBuffer::getFile(it->path());
    ASSERT_TRUE(bool(buffer)) << it->path();
    Compiler compiler;
    compiler.setDiskCache(nullptr);
    auto kernel = compiler.compile((*buffer)->getBuffer());
    ASSERT_TRUE(bool(kernel))
        << it->path() << ": " << llvm::toString(kernel.takeError());
    std::optional<CompiledKernel> back =
        compiledKernelFromJson(compiledKernelToJson(**kernel));
    ASSERT_TRUE(back) << it->path();
    EXPECT_EQ(jsonText(*back), jsonText(**kernel)) << it->path();
    EXPECT_EQ(back->lowered.spec.smemA, (*kernel)->lowered.spec.smemA);
    EXPECT_EQ(back->lowered.spec.smemB, (*kernel)->lowered.spec.smemB);
    EXPECT_EQ(back->tensorMaps.size(), (*kernel)->tensorMaps.size());
    EXPECT_EQ(back->epilogueOps, (*kernel)->epilogueOps);
    EXPECT_EQ(back->lowered.spec.epilogueOps,
              (*kernel)->lowered.spec.epilogueOps);
    ++count;
  }
  EXPECT_GE(count, 10u);
}

// SFA's layout (`scale a ... major(M)`) survives the entry: in the spec's
// blockScale and the kernel's sfaMajor.
TEST_F(DiskCacheTest, SfaMajorRoundTrips) {
  Compiler compiler;
  compiler.setDiskCache(nullptr);
  auto kernel = compiler.compile(R"(
kernel sfa_m {
  arch     sm_90a
  a        : e4m3[M, K] major(K)
  b        : e4m3[N, K] major(K)
  c        : bf16[M, N] major(N)
  acc      f32
  scale a  f32 block(1, 128) major(M)
  scale b  f32 block(128, 128)
  tile     (BM = 64, BN = 64, BK = 128)
  stages   8
}
)");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ((*kernel)->sfaMajor, MajorKind::MN);
  std::optional<CompiledKernel> back =
      compiledKernelFromJson(compiledKernelToJson(**kernel));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->sfaMajor, MajorKind::MN);
  ASSERT_TRUE(back->lowered.spec.blockScale);
  EXPECT_EQ(back->lowered.spec.blockScale->aMajor, MajorKind::MN);
  EXPECT_EQ(jsonText(*back), jsonText(**kernel));
}

// GemmSpec and GemmKernelBinary are stored from their field lists
// (ir/tile/GemmSpecFields.def, codegen/GemmKernelFields.def); the structs inside
// them have their JSON written by hand (compiler/DiskCacheJson.cpp). When
// one of these changes, add the new field there, then the size here
// (x86-64 Linux, libstdc++).
TEST(DiskCacheFormatTest, EveryFieldIsSerialized) {
  EXPECT_EQ(sizeof(SourceLines), 96u)
      << "SourceLines changed: update compiler/DiskCacheJson.cpp";
  EXPECT_EQ(sizeof(TensorMapPlan), 104u)
      << "TensorMapPlan changed: update compiler/DiskCacheJson.cpp";
  EXPECT_EQ(sizeof(BlockScaleSpec), 16u)
      << "BlockScaleSpec changed: update compiler/DiskCacheJson.cpp";
  EXPECT_EQ(sizeof(BatchSpec), 16u)
      << "BatchSpec changed: update compiler/DiskCacheJson.cpp";
  EXPECT_EQ(sizeof(GroupSpec), 16u)
      << "GroupSpec changed: update compiler/DiskCacheJson.cpp";
  EXPECT_EQ(sizeof(GemmGridRule), 16u)
      << "GemmGridRule changed: update compiler/DiskCacheJson.cpp";
}

TEST(DiskCacheEnvTest, EnvironmentPicksTheDirectory) {
  auto restore = [](const char *name, const char *old) {
    if (old)
      setenv(name, old, 1);
    else
      unsetenv(name);
  };
  const char *oldDir = std::getenv("TILEC_CACHE_DIR");
  const char *oldOff = std::getenv("TILEC_NO_DISK_CACHE");
  std::string savedDir = oldDir ? oldDir : "", savedOff = oldOff ? oldOff : "";
  unsetenv("TILEC_NO_DISK_CACHE");
  setenv("TILEC_CACHE_DIR", "/tmp/some-tilec-cache", 1);
  auto cache = DiskCache::fromEnvironment();
  ASSERT_TRUE(cache);
  EXPECT_EQ(cache->getDirectory(), "/tmp/some-tilec-cache");
  setenv("TILEC_CACHE_DIR", "", 1);
  EXPECT_FALSE(DiskCache::fromEnvironment());
  setenv("TILEC_CACHE_DIR", "/tmp/some-tilec-cache", 1);
  setenv("TILEC_NO_DISK_CACHE", "1", 1);
  EXPECT_FALSE(DiskCache::fromEnvironment());
  restore("TILEC_CACHE_DIR", oldDir ? savedDir.c_str() : nullptr);
  restore("TILEC_NO_DISK_CACHE", oldOff ? savedOff.c_str() : nullptr);
  EXPECT_FALSE(tilecBuildIdentity().empty());
}

} // namespace
