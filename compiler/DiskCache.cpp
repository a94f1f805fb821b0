//===- compiler/DiskCache.cpp - Compiled kernels cached on disk -----------===//
//
// Files, names and the build identity; the entry format is in
// DiskCacheJson.cpp. An entry is one line of JSON, a newline and the PTX:
//   {"format": 3, "key": "<hash of the key text>", "build": "<identity>",
//    "ptxBytes": N, "kernel": {... "ptx": "" ...}}\n<N bytes of PTX>
// and a load checks format, key, build and N before it trusts the kernel.
// The PTX stays out of the JSON because it is most of the entry (800 KB for
// examples/gemm_sm90_bias_gelu.tile) and parsing it as a JSON string took
// most of a cache hit's time. The JSON writer escapes every newline inside
// strings, so the first newline ends the JSON.
//
//===----------------------------------------------------------------------===//
#include "compiler/DiskCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstdlib>
#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

namespace tilec {

namespace {

constexpr int64_t kFormat = 3;

/// The file the code of this function was loaded from: a shared library's
/// path, or the executable's (/proc/self/exe) for code linked into it.
std::string loadedFrom() {
  Dl_info info;
  struct link_map *map = nullptr;
  if (dladdr1(reinterpret_cast<void *>(&loadedFrom), &info,
              reinterpret_cast<void **>(&map), RTLD_DL_LINKMAP) &&
      map && map->l_name && map->l_name[0])
    return map->l_name;
  llvm::SmallString<256> exe;
  if (llvm::sys::fs::real_path("/proc/self/exe", exe))
    return "/proc/self/exe";
  return std::string(exe);
}

std::string computeBuildIdentity() {
  std::string file = loadedFrom();
  std::string identity = "tilec " + tilecVersion().str() + "; llvm " +
                         LLVM_VERSION_STRING + "; " + file;
  struct stat st;
  if (::stat(file.c_str(), &st) == 0)
    identity += "; size " + std::to_string(st.st_size) + "; mtime " +
                std::to_string(st.st_mtim.tv_sec) + "." +
                std::to_string(st.st_mtim.tv_nsec);
  else
    identity += "; unknown"; // Still a key; a rebuild may not be noticed.
  return identity;
}

std::string hashHex(llvm::StringRef text) {
  llvm::XXH128_hash_t hash = llvm::xxh3_128bits(
      llvm::ArrayRef<uint8_t>(text.bytes_begin(), text.size()));
  return llvm::utohexstr(hash.high64, /*LowerCase=*/true, 16) +
         llvm::utohexstr(hash.low64, /*LowerCase=*/true, 16);
}

/// The entry's hash: the key text and the build identity.
std::string entryKey(llvm::StringRef keyText) {
  std::string text = tilecBuildIdentity().str();
  text += '\0';
  text += keyText;
  return hashHex(text);
}

} // namespace

llvm::StringRef tilecBuildIdentity() {
  static const std::string identity = computeBuildIdentity();
  return identity;
}

DiskCache::DiskCache(std::string directory) : directory(std::move(directory)) {}

std::shared_ptr<DiskCache> DiskCache::fromEnvironment() {
  if (const char *off = std::getenv("TILEC_NO_DISK_CACHE");
      off && *off && llvm::StringRef(off) != "0")
    return nullptr;
  if (const char *dir = std::getenv("TILEC_CACHE_DIR"))
    return *dir ? std::make_shared<DiskCache>(dir) : nullptr;
  llvm::SmallString<256> path;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    path = xdg;
  else if (const char *home = std::getenv("HOME"); home && *home)
    llvm::sys::path::append(path, home, ".cache");
  else
    return nullptr;
  llvm::sys::path::append(path, "tilec");
  return std::make_shared<DiskCache>(std::string(path));
}

std::string DiskCache::entryPath(llvm::StringRef keyText) const {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, entryKey(keyText) + ".json");
  return std::string(path);
}

std::optional<CompiledKernel> DiskCache::load(llvm::StringRef keyText) const {
  std::string path = entryPath(keyText);
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return std::nullopt;
  llvm::StringRef text = (*buffer)->getBuffer();
  auto [json, ptx] = text.split('\n');
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(json);
  if (!value) {
    llvm::consumeError(value.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *entry = value->getAsObject();
  if (!entry || entry->getInteger("format") != kFormat ||
      entry->getString("key") != entryKey(keyText) ||
      entry->getString("build") != tilecBuildIdentity() ||
      entry->getInteger("ptxBytes") != static_cast<int64_t>(ptx.size()))
    return std::nullopt;
  const llvm::json::Value *kernel = entry->get("kernel");
  if (!kernel)
    return std::nullopt;
  std::optional<CompiledKernel> loaded = compiledKernelFromJson(*kernel);
  if (loaded)
    loaded->ptx = ptx.str();
  return loaded;
}

void DiskCache::store(llvm::StringRef keyText,
                      const CompiledKernel &kernel) const {
  if (llvm::sys::fs::create_directories(directory))
    return;
  CompiledKernel withoutPtx = kernel;
  withoutPtx.ptx.clear();
  llvm::json::Object entry{
      {"format", kFormat},
      {"key", entryKey(keyText)},
      {"build", tilecBuildIdentity()},
      {"ptxBytes", static_cast<int64_t>(kernel.ptx.size())},
      {"kernel", compiledKernelToJson(withoutPtx)},
  };
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(entry)) << '\n' << kernel.ptx;
  os.flush();

  writeFileAtomically(entryPath(keyText), text);
}

bool writeFileAtomically(llvm::StringRef path, llvm::StringRef text) {
  // A unique file in the same directory, renamed over the entry: readers
  // see the old entry, none, or the whole new one.
  llvm::SmallString<256> temp;
  int fd = -1;
  if (llvm::sys::fs::createUniqueFile(path + ".%%%%%%%%.tmp", fd, temp))
    return false;
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << text;
    out.close();
    if (out.has_error()) {
      out.clear_error();
      llvm::sys::fs::remove(temp);
      return false;
    }
  }
  if (llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return false;
  }
  return true;
}

} // namespace tilec
