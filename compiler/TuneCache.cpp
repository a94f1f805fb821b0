//===- compiler/TuneCache.cpp - Tuned winners remembered on disk ----------===//
//
// One file per entry, `<xxh3-128 of the key text>.json`, holding the entry
// as one JSON object (tuneEntryToJson); an entry whose stored key differs
// from the one asked for (a hash collision) is a miss.
//
//===----------------------------------------------------------------------===//
#include "compiler/TuneCache.h"

#include "compiler/DiskCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <tuple>

namespace tilec {

namespace {

constexpr int64_t kFormat = 1;

std::string fileNameOf(const TuneKey &key) {
  std::string text = key.text();
  llvm::XXH128_hash_t hash = llvm::xxh3_128bits(llvm::ArrayRef<uint8_t>(
      llvm::StringRef(text).bytes_begin(), text.size()));
  return llvm::utohexstr(hash.high64, /*LowerCase=*/true, 16) +
         llvm::utohexstr(hash.low64, /*LowerCase=*/true, 16) + ".json";
}

std::optional<TuneEntry> readEntry(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return std::nullopt;
  llvm::Expected<llvm::json::Value> value =
      llvm::json::parse((*buffer)->getBuffer());
  if (!value) {
    llvm::consumeError(value.takeError());
    return std::nullopt;
  }
  return tuneEntryFromJson(*value);
}

llvm::json::Object shapeJson(const TuneShape &s) {
  return llvm::json::Object{{"m", s.m}, {"n", s.n}, {"k", s.k}};
}

std::optional<TuneShape> shapeFromJson(const llvm::json::Object *o) {
  if (!o)
    return std::nullopt;
  std::optional<int64_t> m = o->getInteger("m"), n = o->getInteger("n"),
                         k = o->getInteger("k");
  if (!m || !n || !k)
    return std::nullopt;
  return TuneShape{*m, *n, *k};
}

} // namespace

std::string TuneKey::text() const {
  std::string t = "tilec-tune";
  for (const std::string &part :
       {sourceHash, kernel,
        std::string(llvm::formatv("{0},{1},{2}", bucket.m, bucket.n, bucket.k)),
        archInfo(arch).name.str(), deviceName, std::to_string(smCount),
        std::to_string(driverVersion),
        // A winner was checked with the compiler that tuned it; another
        // build may compile the variant differently, or refuse it.
        tilecBuildIdentity().str()}) {
    t += '\0';
    t += part;
  }
  return t;
}

std::string tuneSourceHash(llvm::StringRef source) {
  return llvm::utohexstr(llvm::xxh3_64bits(source), /*LowerCase=*/true, 16);
}

llvm::json::Value tuneEntryToJson(const TuneEntry &e) {
  return llvm::json::Object{{"format", kFormat},
                            {"source", e.key.sourceHash},
                            {"kernel", e.key.kernel},
                            {"bucket", shapeJson(e.key.bucket)},
                            {"arch", archInfo(e.key.arch).name},
                            {"device", e.key.deviceName},
                            {"sms", int64_t(e.key.smCount)},
                            {"driver", int64_t(e.key.driverVersion)},
                            {"variant", e.variant.toJson()},
                            {"items", describeTuneItems(e.items)},
                            {"shape", shapeJson(e.shape)},
                            {"median_us", e.medianUs},
                            {"baseline_us", e.baselineUs},
                            {"timed", e.timed},
                            {"tilec", e.tilecVersion}};
}

std::optional<TuneEntry> tuneEntryFromJson(const llvm::json::Value &value) {
  const llvm::json::Object *o = value.getAsObject();
  if (!o || o->getInteger("format") != kFormat)
    return std::nullopt;
  TuneEntry e;
  std::optional<llvm::StringRef> source = o->getString("source"),
                                 kernel = o->getString("kernel"),
                                 arch = o->getString("arch"),
                                 device = o->getString("device"),
                                 items = o->getString("items"),
                                 version = o->getString("tilec");
  std::optional<int64_t> sms = o->getInteger("sms"),
                         driver = o->getInteger("driver"),
                         timed = o->getInteger("timed");
  std::optional<double> median = o->getNumber("median_us"),
                        baseline = o->getNumber("baseline_us");
  std::optional<TuneShape> bucket = shapeFromJson(o->getObject("bucket")),
                           shape = shapeFromJson(o->getObject("shape"));
  const llvm::json::Object *variant = o->getObject("variant");
  if (!source || !kernel || !arch || !device || !items || !version || !sms ||
      !driver || !timed || !median || !baseline || !bucket || !shape ||
      !variant)
    return std::nullopt;
  std::optional<ArchKind> archKind = parseArch(*arch);
  std::optional<TuneVariant> v = TuneVariant::fromJson(*variant);
  llvm::Expected<unsigned> itemBits =
      *items == "none" ? llvm::Expected<unsigned>(0u) : parseTuneItems(*items);
  if (!itemBits) {
    llvm::consumeError(itemBits.takeError());
    return std::nullopt;
  }
  if (!archKind || !v)
    return std::nullopt;
  e.key = {source->str(), kernel->str(),  *bucket,     *archKind,
           device->str(), unsigned(*sms), int(*driver)};
  e.variant = *v;
  e.items = *itemBits;
  e.shape = *shape;
  e.medianUs = *median;
  e.baselineUs = *baseline;
  e.timed = *timed;
  e.tilecVersion = version->str();
  return e;
}

std::optional<TuneCache> TuneCache::fromEnvironment() {
  std::shared_ptr<DiskCache> disk = DiskCache::fromEnvironment();
  if (!disk)
    return std::nullopt;
  llvm::SmallString<256> path(disk->getDirectory());
  llvm::sys::path::append(path, "tuned");
  return TuneCache(std::string(path));
}

std::optional<TuneEntry> TuneCache::lookup(const TuneKey &key) const {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, fileNameOf(key));
  std::optional<TuneEntry> entry = readEntry(path);
  if (!entry || entry->key.text() != key.text())
    return std::nullopt;
  return entry;
}

bool TuneCache::store(const TuneEntry &entry) const {
  if (llvm::sys::fs::create_directories(directory))
    return false;
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, fileNameOf(entry.key));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << tuneEntryToJson(entry) << '\n';
  os.flush();
  return writeFileAtomically(path, text);
}

std::vector<TuneEntry> TuneCache::list() const {
  std::vector<TuneEntry> entries;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end;
       !ec && it != end; it.increment(ec))
    if (llvm::StringRef(it->path()).ends_with(".json"))
      if (std::optional<TuneEntry> e = readEntry(it->path()))
        entries.push_back(std::move(*e));
  auto order = [](const TuneEntry &e) {
    return std::make_tuple(e.key.sourceHash, e.key.kernel,
                           archInfo(e.key.arch).name, e.key.deviceName,
                           e.key.smCount, e.key.driverVersion, e.key.bucket.m,
                           e.key.bucket.n, e.key.bucket.k);
  };
  std::sort(entries.begin(), entries.end(),
            [&](const TuneEntry &x, const TuneEntry &y) {
              return order(x) < order(y);
            });
  return entries;
}

bool TuneCache::empty() const {
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end;
       !ec && it != end; it.increment(ec))
    if (llvm::StringRef(it->path()).ends_with(".json"))
      return false;
  return true;
}

size_t TuneCache::clear(llvm::StringRef sourceHash,
                        llvm::StringRef kernel) const {
  size_t removed = 0;
  std::error_code ec;
  std::vector<std::string> doomed;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (!llvm::StringRef(it->path()).ends_with(".json"))
      continue;
    std::optional<TuneEntry> e = readEntry(it->path());
    if (e && ((!sourceHash.empty() && e->key.sourceHash != sourceHash) ||
              (!kernel.empty() && e->key.kernel != kernel)))
      continue;
    // An unreadable entry goes with a clear of everything.
    if (!e && (!sourceHash.empty() || !kernel.empty()))
      continue;
    doomed.push_back(it->path());
  }
  for (const std::string &path : doomed)
    if (!llvm::sys::fs::remove(path))
      ++removed;
  return removed;
}

std::optional<TunedSource> tunedSource(const TuneCache &cache,
                                       llvm::StringRef source,
                                       llvm::StringRef kernel,
                                       const TuneShape &shape, TuneKey key,
                                       std::optional<ArchKind> arch) {
  key.sourceHash = tuneSourceHash(source);
  key.kernel = kernel.str();
  key.bucket = tuneBucket(shape);
  std::optional<TuneEntry> entry = cache.lookup(key);
  if (!entry)
    return std::nullopt;
  llvm::Expected<std::string> text =
      applyTuneVariant(source, kernel, entry->variant, entry->items, arch);
  if (!text) {
    llvm::consumeError(text.takeError());
    return std::nullopt;
  }
  TunedSource tuned;
  tuned.source = std::move(*text);
  tuned.note = llvm::formatv(
      "tuned by tilec tune on {0} ({1} SMs) for M from {8} to {2}, N = {3}, "
      "K = {4}: {5} ({6:F2} us; the rules' pick {7:F2} us)",
      key.deviceName, key.smCount, key.bucket.m, key.bucket.n, key.bucket.k,
      entry->variant.describe(), entry->medianUs, entry->baselineUs,
      key.bucket.m / 2 + 1);
  tuned.entry = std::move(*entry);
  return tuned;
}

} // namespace tilec
