//===- runtime/Module.cpp - Load PTX and find its kernels -----------------===//
//
// cuModuleLoadDataEx with the info and error log buffers, verbose logging
// and the JIT wall time requested as JIT options; the logs are trimmed to
// what the JIT wrote and attached to the result or the error.
//
//===----------------------------------------------------------------------===//
#include "runtime/Module.h"

#include "runtime/DriverApi.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <cstring>
#include <vector>

namespace tilec::rt {

namespace {
/// The text the JIT wrote into \p buffer, whose option slot now holds the
/// number of bytes written.
std::string takeLog(const std::vector<char> &buffer, void *sizeSlot) {
  std::size_t used = reinterpret_cast<std::uintptr_t>(sizeSlot);
  used = std::min(used, buffer.size());
  std::string log(buffer.data(), strnlen(buffer.data(), used));
  while (!log.empty() && (log.back() == '\n' || log.back() == '\0'))
    log.pop_back();
  return log;
}
} // namespace

std::map<std::string, std::size_t, std::less<>>
ptxEntryParameterCounts(std::string_view ptx) {
  std::map<std::string, std::size_t, std::less<>> counts;
  constexpr std::string_view Entry = ".entry", Param = ".param";
  auto isName = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           c == '$' || c == '.';
  };
  for (std::size_t at = ptx.find(Entry); at != std::string_view::npos;
       at = ptx.find(Entry, at + Entry.size())) {
    std::size_t begin = at + Entry.size();
    if (begin >= ptx.size() || !std::isspace(static_cast<unsigned char>(
                                   ptx[begin])))
      continue; // e.g. ".entry_x" is not the directive
    while (begin < ptx.size() &&
           std::isspace(static_cast<unsigned char>(ptx[begin])))
      ++begin;
    std::size_t end = begin;
    while (end < ptx.size() && isName(ptx[end]))
      ++end;
    std::size_t open = ptx.find('(', end);
    std::size_t close = ptx.find(')', end);
    std::size_t body = ptx.find('{', end);
    if (end == begin || open == std::string_view::npos ||
        close == std::string_view::npos || close < open ||
        (body != std::string_view::npos && body < open))
      continue; // a declaration without a parameter list
    std::string_view list = ptx.substr(open + 1, close - open - 1);
    std::size_t params = 0;
    for (std::size_t p = list.find(Param); p != std::string_view::npos;
         p = list.find(Param, p + Param.size()))
      ++params;
    counts[std::string(ptx.substr(begin, end - begin))] = params;
  }
  return counts;
}

Result<Module> Module::loadPtx(std::string_view ptx,
                               const ModuleLoadOptions &options) {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  const DriverApi &driver = **api;
  if (ptx.empty())
    return Error("cannot load an empty PTX module");

  std::size_t logBytes = std::max<std::size_t>(options.logBufferBytes, 256);
  std::vector<char> infoLog(logBytes, '\0');
  std::vector<char> errorLog(logBytes, '\0');
  std::vector<CUjit_option> keys;
  std::vector<void *> values;
  auto addOption = [&](CUjit_option key, void *value) {
    keys.push_back(key);
    values.push_back(value);
  };
  auto asSlot = [](std::uintptr_t value) {
    return reinterpret_cast<void *>(value);
  };
  addOption(CU_JIT_INFO_LOG_BUFFER, infoLog.data());
  std::size_t infoSizeIndex = keys.size();
  addOption(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, asSlot(logBytes));
  addOption(CU_JIT_ERROR_LOG_BUFFER, errorLog.data());
  std::size_t errorSizeIndex = keys.size();
  addOption(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, asSlot(logBytes));
  addOption(CU_JIT_LOG_VERBOSE, asSlot(options.verbose ? 1 : 0));
  std::size_t wallTimeIndex = keys.size();
  addOption(CU_JIT_WALL_TIME, nullptr);
  if (options.optimizationLevel >= 0) {
    if (options.optimizationLevel > 4)
      return Error(fmt::format("JIT optimization level {} is out of range "
                               "(0..4, or -1 for the driver's default)",
                               options.optimizationLevel));
    addOption(CU_JIT_OPTIMIZATION_LEVEL,
              asSlot(static_cast<std::uintptr_t>(options.optimizationLevel)));
  }

  std::string image(ptx); // The driver needs a NUL-terminated image.
  CUmodule mod = nullptr;
  CUresult result = driver.moduleLoadDataEx(&mod, image.c_str(), keys.size(),
                                            keys.data(), values.data());
  std::string info = takeLog(infoLog, values[infoSizeIndex]);
  if (result != CUDA_SUCCESS) {
    std::string jitLog = takeLog(errorLog, values[errorSizeIndex]);
    std::string message = fmt::format("cuModuleLoadDataEx failed: {}",
                                      describeCudaResult(driver, result));
    if (!jitLog.empty())
      message += "\nJIT error log:\n" + jitLog;
    else
      message += "\n(the JIT error log is empty)";
    if (!info.empty())
      message += "\nJIT info log:\n" + info;
    return Error(std::move(message), static_cast<int>(result),
                 std::move(jitLog));
  }
  float wallMs = 0;
  std::memcpy(&wallMs, &values[wallTimeIndex], sizeof(float));
  return Module(mod, std::move(info), wallMs, ptxEntryParameterCounts(ptx));
}

Module::Module(Module &&other) noexcept
    : mod(other.mod), log(std::move(other.log)), jitMs(other.jitMs),
      parameters(std::move(other.parameters)) {
  other.mod = nullptr;
}

Module &Module::operator=(Module &&other) noexcept {
  if (this != &other) {
    if (mod)
      if (Result<const DriverApi *> api = driverApi())
        (*api)->moduleUnload(mod);
    mod = other.mod;
    log = std::move(other.log);
    jitMs = other.jitMs;
    parameters = std::move(other.parameters);
    other.mod = nullptr;
  }
  return *this;
}

Module::~Module() {
  if (mod)
    if (Result<const DriverApi *> api = driverApi())
      (*api)->moduleUnload(mod);
}

Result<Function> Module::function(std::string_view name) const {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  std::string key(name);
  CUfunction fn = nullptr;
  CUresult result = (*api)->moduleGetFunction(&fn, mod, key.c_str());
  if (result == CUDA_ERROR_NOT_FOUND)
    return Error(fmt::format("the module has no kernel named '{}' (the name "
                             "must match a .entry in the PTX)",
                             key),
                 static_cast<int>(result));
  if (Status s = checkCuda(**api, result,
                           fmt::format("cuModuleGetFunction('{}')", key));
      !s)
    return s.error();
  auto declared = parameters.find(key);
  return Function(fn, std::move(key),
                  declared == parameters.end()
                      ? std::nullopt
                      : std::optional<std::size_t>(declared->second));
}

Result<std::pair<std::uint64_t, std::size_t>>
Module::global(std::string_view name) const {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  std::string key(name);
  CUdeviceptr address = 0;
  size_t bytes = 0;
  if (Status s = checkCuda(
          **api, (*api)->moduleGetGlobal(&address, &bytes, mod, key.c_str()),
          fmt::format("cuModuleGetGlobal('{}')", key));
      !s)
    return s.error();
  return std::make_pair(static_cast<std::uint64_t>(address),
                        static_cast<std::size_t>(bytes));
}

Result<int> Function::attribute(int cuFunctionAttribute) const {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  int value = 0;
  if (Status s = checkCuda(
          **api,
          (*api)->funcGetAttribute(
              &value, static_cast<CUfunction_attribute>(cuFunctionAttribute),
              fn),
          fmt::format("cuFuncGetAttribute({}) of '{}'", cuFunctionAttribute,
                      name));
      !s)
    return s.error();
  return value;
}

Result<int> Function::numRegisters() const {
  return attribute(CU_FUNC_ATTRIBUTE_NUM_REGS);
}

Result<int> Function::staticSharedBytes() const {
  return attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
}

Status Function::setMaxDynamicSharedBytes(std::size_t bytes) const {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  return checkCuda(
      **api,
      (*api)->funcSetAttribute(fn,
                               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               static_cast<int>(bytes)),
      fmt::format("raising the dynamic shared memory of '{}' to {} bytes "
                  "(cuFuncSetAttribute)",
                  name, bytes));
}

} // namespace tilec::rt
