//===- compiler/DiskCache.h - Compiled kernels cached on disk ---*- C++ -*-===//
//
// A second level behind Compiler's in-memory cache, so that a fresh process
// (a restarted inference server, each Python interpreter, each `pytest` run)
// gets a kernel it compiled before for the cost of reading one file. One
// entry is one file, a line of JSON with every field but the PTX and then
// the PTX as it is (DiskCache.cpp), named after a 128-bit hash of the key:
//
//   ~/.cache/tilec/3f0c...e1.json   (or $TILEC_CACHE_DIR/...)
//
// The key is the Compiler's key text (tilec version, options, arch, stage,
// source) plus the build identity of the running tilec: the path, size and
// modification time of the binary or shared library holding this code and
// the LLVM version, so a rebuilt library never reads an entry written by
// another build. Entries are written to a unique temporary file in the same
// directory and renamed into place, so concurrent processes see either no
// entry or a whole one. An entry that cannot be read, parsed or that does
// not match its key is a miss, never an error.
//
// The cache is off when TILEC_NO_DISK_CACHE=1 or TILEC_CACHE_DIR is set but
// empty. Example:
//
//   auto disk = tilec::DiskCache::fromEnvironment(); // null: disabled
//   if (auto hit = disk->load(keyText)) use(*hit);
//   else disk->store(keyText, compileIt());
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_DISKCACHE_H
#define TILEC_COMPILER_DISKCACHE_H

#include "compiler/Compiler.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <memory>
#include <optional>
#include <string>

namespace tilec {

/// Compiled kernels stored as files in one directory.
class DiskCache {
public:
  /// A cache in \p directory (created on the first store).
  explicit DiskCache(std::string directory);

  /// The cache the environment asks for: $TILEC_CACHE_DIR, else
  /// $XDG_CACHE_HOME/tilec, else $HOME/.cache/tilec; null when disabled
  /// (TILEC_NO_DISK_CACHE=1, TILEC_CACHE_DIR set to "") or no home is known.
  static std::shared_ptr<DiskCache> fromEnvironment();

  /// The kernel stored under \p keyText, or std::nullopt (absent, unreadable,
  /// corrupt or written by another build).
  std::optional<CompiledKernel> load(llvm::StringRef keyText) const;

  /// Stores \p kernel under \p keyText atomically. Failures (read-only
  /// directory, full disk) are ignored: the cache is an optimization.
  void store(llvm::StringRef keyText, const CompiledKernel &kernel) const;

  /// The file an entry for \p keyText lives in.
  std::string entryPath(llvm::StringRef keyText) const;

  const std::string &getDirectory() const { return directory; }

private:
  std::string directory;
};

/// Writes \p text to \p path through a unique temporary file in the same
/// directory renamed over it, so readers see the old file, none, or the
/// whole new one; false when it could not.
bool writeFileAtomically(llvm::StringRef path, llvm::StringRef text);

/// What identifies this build of tilec: the file holding this code (path,
/// size, modification time) and the LLVM version. Computed once.
llvm::StringRef tilecBuildIdentity();

/// \p kernel as a JSON object (every GemmKernelBinary field and the lowered
/// spec), and back. fromJson fails (std::nullopt) on any missing or
/// ill-typed field.
llvm::json::Value compiledKernelToJson(const CompiledKernel &kernel);
std::optional<CompiledKernel> compiledKernelFromJson(const llvm::json::Value &);

} // namespace tilec

#endif // TILEC_COMPILER_DISKCACHE_H
