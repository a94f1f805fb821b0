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
  Function(CUfunc_st *handle, std::string name)
      : fn(handle), name(std::move(name)) {}

  /// The CUfunction.
  CUfunc_st *handle() const { return fn; }
  /// The kernel's entry name.
  const std::string &getName() const { return name; }

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
};

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
  Module(CUmod_st *mod, std::string log, float jitMs)
      : mod(mod), log(std::move(log)), jitMs(jitMs) {}

  CUmod_st *mod = nullptr;
  std::string log;
  float jitMs = 0;
};

} // namespace tilec::rt

#endif // TILEC_RUNTIME_MODULE_H
