//===- compiler/Compiler.cpp - tilec as a C++ library ---------------------===//
//
// Each compile runs in its own SourceMgr and DiagnosticEngine (capturing),
// so concurrent compiles share nothing but the cache, which a mutex guards.
// The cache maps the xxh3 of the key text to the result and keeps the full
// key text to rule out a hash collision.
//
//===----------------------------------------------------------------------===//
#include "compiler/Compiler.h"

#include "compiler/Compilation.h"
#include "compiler/DiskCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

#ifndef TILEC_VERSION_STRING
#error "TILEC_VERSION_STRING must come from CMake"
#endif

namespace tilec {

llvm::StringRef tilecVersion() { return TILEC_VERSION_STRING; }

namespace {

std::string keyText(llvm::StringRef source, const CompileOptions &options,
                    llvm::StringRef stage) {
  std::string text = "tilec " + tilecVersion().str();
  text += '\0';
  text += options.arch ? archInfo(*options.arch).name.str() : "-";
  text += '\0';
  text += options.kernel;
  text += '\0';
  text += options.passes;
  text += '\0';
  text += options.lineInfo ? 'L' : '-';
  text += '\0';
  text += stage;
  text += '\0';
  text += source;
  return text;
}

/// Runs one compilation; on failure returns the formatted diagnostics.
llvm::Expected<CompilationResult>
run(llvm::StringRef source, const CompileOptions &options, EmitKind emit) {
  CompilationOptions compileOptions;
  compileOptions.arch = options.arch;
  compileOptions.emit = emit;
  compileOptions.kernel = options.kernel;
  compileOptions.lineInfo = options.lineInfo;
  std::string sink;
  llvm::raw_string_ostream log(sink);
  compileOptions.log = &log;
  if (!options.passes.empty()) {
    std::string error;
    auto passes = parsePassList(options.passes, error);
    if (!passes)
      return llvm::createStringError(error);
    compileOptions.passes = std::move(*passes);
  }
  llvm::SourceMgr sourceMgr;
  unsigned id = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, "<source>"), llvm::SMLoc());
  DiagnosticEngine diags(sourceMgr, log);
  diags.setCapture(true);
  CompilationResult result = compileBuffer(id, compileOptions, diags);
  if (!result.ok || diags.hasErrors())
    return llvm::createStringError(diags.formatAll());
  return result;
}

/// The index of the requested kernel among \p specs.
llvm::Expected<size_t> pickKernel(const std::vector<GemmSpec> &specs,
                                  const CompileOptions &options) {
  if (options.kernel.empty()) {
    if (specs.size() == 1)
      return 0;
    return llvm::createStringError(
        "the source holds " + std::to_string(specs.size()) +
        " kernels; name one in CompileOptions::kernel");
  }
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].name == options.kernel)
      return i;
  return llvm::createStringError("the source has no kernel '" + options.kernel +
                                 "'");
}

} // namespace

Compiler::Compiler() : disk(DiskCache::fromEnvironment()) {}
Compiler::~Compiler() = default;

void Compiler::setDiskCache(std::shared_ptr<DiskCache> cache) {
  std::lock_guard<std::mutex> lock(mutex);
  disk = std::move(cache);
}

std::string Compiler::cacheKey(llvm::StringRef source,
                               const CompileOptions &options,
                               llvm::StringRef stage) {
  std::string text = keyText(source, options, stage);
  return llvm::utohexstr(llvm::xxh3_64bits(llvm::StringRef(text)),
                         /*LowerCase=*/true, /*Width=*/16);
}

llvm::Expected<std::shared_ptr<const LoweredKernel>>
Compiler::lower(llvm::StringRef source, const CompileOptions &options) {
  std::string key = cacheKey(source, options, "lowered");
  std::string text = keyText(source, options, "lowered");
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = loweredCache.find(key);
    if (it != loweredCache.end() && keyTexts[key] == text) {
      ++counters.hits;
      return it->second;
    }
    ++counters.misses;
  }
  llvm::Expected<CompilationResult> result =
      run(source, options, EmitKind::Lowered);
  if (!result)
    return result.takeError();
  llvm::Expected<size_t> index = pickKernel(result->specs, options);
  if (!index)
    return index.takeError();
  auto kernel = std::make_shared<LoweredKernel>();
  kernel->spec = result->specs[*index];
  kernel->loweredIR = result->output;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = loweredCache.try_emplace(key, kernel);
  if (inserted)
    keyTexts[key] = text;
  return it->second;
}

llvm::Expected<std::shared_ptr<const CompiledKernel>>
Compiler::compile(llvm::StringRef source, const CompileOptions &options) {
  std::string key = cacheKey(source, options, "ptx");
  std::string text = keyText(source, options, "ptx");
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = compiled.find(key);
    if (it != compiled.end() && keyTexts[key] == text) {
      ++counters.hits;
      return it->second;
    }
    ++counters.misses;
  }
  std::shared_ptr<DiskCache> diskCache;
  {
    std::lock_guard<std::mutex> lock(mutex);
    diskCache = disk;
  }
  if (diskCache)
    if (std::optional<CompiledKernel> stored = diskCache->load(text)) {
      auto kernel = std::make_shared<CompiledKernel>(std::move(*stored));
      std::lock_guard<std::mutex> lock(mutex);
      ++counters.diskHits;
      auto [it, inserted] = compiled.try_emplace(key, kernel);
      if (inserted)
        keyTexts[key] = text;
      return it->second;
    }
  llvm::Expected<CompilationResult> result =
      run(source, options, EmitKind::PTX);
  if (!result)
    return result.takeError();
  if (result->binaries.size() != 1 || result->specs.empty())
    return llvm::createStringError("code generation produced no binary");
  llvm::Expected<size_t> index = pickKernel(result->specs, options);
  if (!index)
    return index.takeError();
  GemmKernelBinary &binary = result->binaries.front();
  auto kernel = std::make_shared<CompiledKernel>();
  static_cast<GemmKernelBinary &>(*kernel) = std::move(binary);
  kernel->lowered.spec = result->specs[*index];
  if (diskCache)
    diskCache->store(text, *kernel);
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = compiled.try_emplace(key, kernel);
  if (inserted)
    keyTexts[key] = text;
  return it->second;
}

llvm::Expected<std::vector<std::string>>
Compiler::kernelNames(llvm::StringRef source, const CompileOptions &options) {
  CompileOptions all = options;
  all.kernel.clear();
  llvm::Expected<CompilationResult> result =
      run(source, all, EmitKind::Lowered);
  if (!result)
    return result.takeError();
  std::vector<std::string> names;
  for (const GemmSpec &spec : result->specs)
    names.push_back(spec.name);
  return names;
}

CacheStats Compiler::stats() const {
  std::lock_guard<std::mutex> lock(mutex);
  return counters;
}

void Compiler::clearCache() {
  std::lock_guard<std::mutex> lock(mutex);
  compiled.clear();
  loweredCache.clear();
  keyTexts.clear();
}

} // namespace tilec
