//===- runtime/Module.h - Load PTX and find its kernels ----------*- C++
//-*-===//
//
// cuModuleLoadDataEx JIT-compiles PTX for the current device. The JIT's info
// and error logs are captured: a failed load returns an Error whose message
// and getJitLog() hold what the JIT said (e.g. "ptxas application ptx input,
// line 12; error : ..."), and a successful load keeps the info log (register
// and spill counts with verbose logging).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_MODULE_H
#define TILEC_RUNTIME_MODULE_H

#include "runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

struct CUmod_st;
struct CUfunc_st;

namespace tilec::rt {

/// Options for Module::loadPtx.
struct ModuleLoadOptions {
  /// CU_JIT_LOG_VERBOSE: the info log lists registers, spills, smem.
  bool verbose = false;
  /// CU_JIT_OPTIMIZATION_LEVEL 0..4; -1 keeps the driver's default (4).
  int optimizationLevel = -1;
  /// Size of each log buffer in bytes.
  std::size_t logBufferBytes = 64 * 1024;
};

/// One kernel of a loaded module. Does not own anything; valid while its
/// Module lives.
class Function {
public:
  Function() = default;
  Function(CUfunc_st *handle, std::string name,
           std::optional<std::size_t> parameters = std::nullopt)
      : fn(handle), name(std::move(name)), parameters(parameters) {}

  /// The CUfunction.
  CUfunc_st *handle() const { return fn; }
  /// The kernel's entry name.
  const std::string &getName() const { return name; }
  /// How many parameters the kernel's .entry declares, when the module was
  /// loaded from PTX text (the launch check then asks the driver about
  /// exactly those, never past the last); std::nullopt otherwise.
  std::optional<std::size_t> parameterCount() const { return parameters; }

  /// A CUfunction_attribute value (e.g. CU_FUNC_ATTRIBUTE_NUM_REGS).
  Result<int> attribute(int cuFunctionAttribute) const;
  /// Registers per thread.
  Result<int> numRegisters() const;
  /// Static shared memory in bytes.
  Result<int> staticSharedBytes() const;
  /// Raises CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES to \p bytes
  /// (needed above 48 KB; launch() does it on demand).
  Status setMaxDynamicSharedBytes(std::size_t bytes) const;

private:
  CUfunc_st *fn = nullptr;
  std::string name;
  std::optional<std::size_t> parameters;
};

/// The number of `.param` declarations of each `.entry` of \p ptx, by
/// entry name. Example: ".visible .entry k(\n.param .u64 k_param_0,\n.param
/// .u32 k_param_1\n)" gives {"k": 2}; "() {" gives 0.
std::map<std::string, std::size_t, std::less<>>
ptxEntryParameterCounts(std::string_view ptx);

/// A loaded module; unloaded when destroyed. Movable, not copyable. Needs a
/// current context (see Context).
class Module {
public:
  /// JIT-compiles \p ptx (text, no NUL needed) for the current device.
  static Result<Module> loadPtx(std::string_view ptx,
                                const ModuleLoadOptions &options = {});

  Module(Module &&other) noexcept;
  Module &operator=(Module &&other) noexcept;
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;
  ~Module();

  /// The kernel named \p name (the .entry name in the PTX).
  Result<Function> function(std::string_view name) const;
  /// Address and size of the global variable \p name.
  Result<std::pair<std::uint64_t, std::size_t>>
  global(std::string_view name) const;
  /// The JIT's info log of the load (may be empty).
  const std::string &infoLog() const { return log; }
  /// Wall time the JIT took, in milliseconds (CU_JIT_WALL_TIME).
  float jitMilliseconds() const { return jitMs; }
  /// The CUmodule.
  CUmod_st *handle() const { return mod; }

private:
  Module(CUmod_st *mod, std::string log, float jitMs,
         std::map<std::string, std::size_t, std::less<>> parameters)
      : mod(mod), log(std::move(log)), jitMs(jitMs),
        parameters(std::move(parameters)) {}

  CUmod_st *mod = nullptr;
  std::string log;
  float jitMs = 0;
  /// ptxEntryParameterCounts of the loaded PTX.
  std::map<std::string, std::size_t, std::less<>> parameters;
};

} // namespace tilec::rt

#endif // TILEC_RUNTIME_MODULE_H
