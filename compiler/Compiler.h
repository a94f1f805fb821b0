//===- compiler/Compiler.h - tilec as a C++ library --------------*- C++
//-*-===//
//
// For inference engines that compile kernels at run time: hand in .tile
// source text, get PTX and what a launcher needs (entry name, parameters
// including sm_90a tensor maps, block size, shared memory, cluster, the grid
// for a given M, N, K, the split-K workspace). host/GemmLauncher.h
// launches a CompiledKernel in one call. Results are
// cached by a content hash of the source, the options and the tilec version,
// so compiling the same thing again costs a hash and a lookup; compiled
// kernels are also cached on disk (compiler/DiskCache.h: ~/.cache/tilec or
// $TILEC_CACHE_DIR), so a fresh process reads them back. A Compiler is
// thread-safe; concurrent requests for the same key may both compile, and
// the first result stored is the one every caller gets.
//
//   tilec::Compiler compiler;
//   auto kernel = compiler.compile(source, {.arch = tilec::ArchKind::SM90a});
//   if (!kernel) { report(llvm::toString(kernel.takeError())); return; }
//   // Either launch it yourself from the metadata:
//   //   (*kernel)->ptx, entryName, params, grid(m, n, k), block(),
//   //   sharedBytes, cluster, tensorMaps, workspaceBytes(m, n)
//   // or in one call (host/GemmLauncher.h):
//   rt::Status s = tilec::launchGemm(**kernel, a, b, c, m, n, k, lda, ldb,
//                                    ldc, alpha, beta, stream);
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_COMPILER_H
#define TILEC_COMPILER_COMPILER_H

#include "codegen/GemmCodegen.h"
#include "ir/arch/Arch.h"
#include "ir/tile/GemmSpec.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// Options that change what is compiled (all part of the cache key).
struct CompileOptions {
  /// The target of kernels without an `arch` line (like --arch).
  std::optional<ArchKind> arch;
  /// Which kernel of the source to return; empty: the source must hold one.
  std::string kernel;
  /// Comma-separated passes instead of the default pipeline (like --passes).
  std::string passes;
  /// PTX line directives naming the .tile line of each part of the kernel
  /// (like --lineinfo); the source is named "<source>" in them.
  bool lineInfo = false;
};

/// A kernel after every pass: the decisions, ready for code generation.
struct LoweredKernel {
  GemmSpec spec;
  std::string loweredIR; ///< The module as `--emit=lowered` prints it.
};

/// A compiled kernel and how to launch it: the generator's GemmKernelBinary
/// (ptx, entryName, params, blockThreads, sharedBytes, cluster, tensorMaps,
/// grid(m, n, k), workspaceBytes(m, n), ...) and the decisions behind it.
struct CompiledKernel : GemmKernelBinary {
  LoweredKernel lowered;

  /// The block.
  Dim3 block() const { return {blockThreads, 1, 1}; }
};

/// Cache statistics. A miss in memory that the disk cache served counts as
/// a miss and a diskHit.
struct CacheStats {
  uint64_t hits = 0, misses = 0, diskHits = 0;
};

class DiskCache;

/// Compiles .tile sources in-process, with a cache.
class Compiler {
public:
  /// A compiler with the disk cache the environment asks for
  /// (DiskCache::fromEnvironment).
  Compiler();
  ~Compiler();

  /// Replaces the disk cache; null disables it.
  void setDiskCache(std::shared_ptr<DiskCache> cache);

  /// Source to PTX and launch metadata. Errors carry the diagnostics as
  /// tilec prints them (file `<source>`).
  llvm::Expected<std::shared_ptr<const CompiledKernel>>
  compile(llvm::StringRef source, const CompileOptions &options = {});

  /// Source to the lowered kernel, without code generation.
  llvm::Expected<std::shared_ptr<const LoweredKernel>>
  lower(llvm::StringRef source, const CompileOptions &options = {});

  /// The names of the kernels in \p source, in order (runs the passes up to
  /// lowered; not cached). Pass each as CompileOptions::kernel.
  llvm::Expected<std::vector<std::string>>
  kernelNames(llvm::StringRef source, const CompileOptions &options = {});

  CacheStats stats() const;
  void clearCache();

  /// The cache key: a hex xxh3 of the tilec version, the options, the
  /// requested stage and the source.
  static std::string cacheKey(llvm::StringRef source,
                              const CompileOptions &options,
                              llvm::StringRef stage);

private:
  mutable std::mutex mutex;
  std::map<std::string, std::shared_ptr<const CompiledKernel>> compiled;
  std::map<std::string, std::shared_ptr<const LoweredKernel>> loweredCache;
  std::map<std::string, std::string> keyTexts; ///< Hash -> full key text.
  CacheStats counters;
  std::shared_ptr<DiskCache> disk;
};

/// The tilec version the cache keys include.
llvm::StringRef tilecVersion();

} // namespace tilec

#endif // TILEC_COMPILER_COMPILER_H
