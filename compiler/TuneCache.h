//===- compiler/TuneCache.h - Tuned winners on disk ----*- C++ -*-===//
//
// `tilec tune` stores each winner as one JSON file under the disk cache's
// directory (compiler/DiskCache.h), in `tuned/`, next to the compiled
// modules:
//
//   ~/.cache/tilec/tuned/9a1c...f0.json   (or $TILEC_CACHE_DIR/tuned/...)
//
// keyed on (TuneKey) the program's source (an xxh3 of its text), the
// kernel, the shape bucket (compiler/Tuner.h: M rounded up to a power of
// two, N and K exact), the target and the device (name, SM count, driver
// version). The entry holds the winning variant and the items it writes,
// so a later compile of the same program for the same bucket writes them
// in (tunedSource) and compiles that instead of the rules' pick. Entries
// are written to a temporary file and renamed, like the disk cache's; an
// unreadable entry is a miss. TILEC_NO_DISK_CACHE=1 turns both off.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_TUNECACHE_H
#define TILEC_COMPILER_TUNECACHE_H

#include "compiler/Tuner.h"

#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// What a tuned entry is for.
struct TuneKey {
  std::string sourceHash; ///< tuneSourceHash of the program
  std::string kernel;
  TuneShape bucket;
  ArchKind arch = ArchKind::SM90a;
  std::string deviceName;
  unsigned smCount = 0;
  int driverVersion = 0;

  /// The text the file name hashes: every field, NUL-separated.
  std::string text() const;
};

/// A remembered winner.
struct TuneEntry {
  TuneKey key;
  TuneVariant variant;
  unsigned items = 0; ///< TuneItemBits the variant writes.
  TuneShape shape;    ///< The shape it was timed at.
  double medianUs = 0, baselineUs = 0;
  int64_t timed = 0; ///< Candidates timed.
  std::string tilecVersion;
};

/// The hash of a program's text the key names (16 hex digits).
std::string tuneSourceHash(llvm::StringRef source);

/// Tuned entries in one directory.
class TuneCache {
public:
  explicit TuneCache(std::string directory) : directory(std::move(directory)) {}
  /// `tuned/` in the disk cache's directory; std::nullopt when the disk
  /// cache is off (DiskCache::fromEnvironment).
  static std::optional<TuneCache> fromEnvironment();

  std::optional<TuneEntry> lookup(const TuneKey &key) const;
  /// Stores \p entry atomically; false when it could not be written.
  bool store(const TuneEntry &entry) const;
  /// Every readable entry, ordered by source hash, kernel, arch, device,
  /// bucket.
  std::vector<TuneEntry> list() const;
  /// Removes the entries of \p sourceHash (all when empty) and \p kernel
  /// (all when empty); returns how many.
  size_t clear(llvm::StringRef sourceHash, llvm::StringRef kernel) const;

  /// Whether no entry file is there (cheap: one directory read), so that a
  /// compile asks the GPU for its identity only when an entry could match.
  bool empty() const;

  const std::string &getDirectory() const { return directory; }

private:
  std::string directory;
};

/// The entry as JSON, and back (std::nullopt on a missing field).
llvm::json::Value tuneEntryToJson(const TuneEntry &entry);
std::optional<TuneEntry> tuneEntryFromJson(const llvm::json::Value &value);

/// A program with a tuned entry's items written in.
struct TunedSource {
  TuneEntry entry;
  std::string source; ///< Tile IR text with the variant written in
  /// For --emit=lowered and notes: "tuned by tilec tune on NVIDIA H200
  /// (132 SMs) for M <= 64, N = 2112, K = 7168: 128x64x64 s8 ... (12.3 us,
  /// the rules' pick 14.0 us)".
  std::string note;
};

/// The tuned form of kernel \p kernel of \p source for \p shape on the
/// device \p key's device fields describe (key.sourceHash, kernel and
/// bucket are filled here), or std::nullopt when no entry matches or its
/// variant no longer applies.
std::optional<TunedSource> tunedSource(const TuneCache &cache,
                                       llvm::StringRef source,
                                       llvm::StringRef kernel,
                                       const TuneShape &shape, TuneKey key,
                                       std::optional<ArchKind> arch);

} // namespace tilec

#endif // TILEC_COMPILER_TUNECACHE_H
