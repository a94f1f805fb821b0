//===- capi/CApi.h - What the C API's handles hold -------------*- C++ -*-===//
//
// The structs behind the opaque handles of include/tilec/tilec.h and the
// per-thread error every call reports through. Internal to libtilec.
//
// Example: a call that fails returns fail(TILEC_ERROR_COMPILE, diagnostics);
// tilec_last_error() then returns the diagnostics on that thread.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CAPI_CAPI_H
#define TILEC_CAPI_CAPI_H

#include "tilec/tilec.h"

#include "compiler/Compiler.h"
#include "ir/layout/LayoutExpr.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>

struct tilec_compiler_impl {
  std::shared_ptr<tilec::Compiler> compiler;
};

struct tilec_kernel_impl {
  std::shared_ptr<const tilec::CompiledKernel> kernel;
  /// For the lazily computed lowered text: the compiler, source and options.
  std::shared_ptr<tilec::Compiler> compiler;
  std::string source;
  tilec::CompileOptions options;
  std::string sourceName;
  std::once_flag loweredOnce;
  std::optional<std::string> lowered;
  std::string loweredError;
};

struct tilec_layout_impl {
  tilec::LayoutValue value;
  std::string expr, text;
  std::optional<std::string> svg;
};

namespace tilec::capi {

/// Records \p message (and \p column) as this thread's last error and
/// returns \p status.
tilec_status fail(tilec_status status, std::string message,
                  unsigned column = 0);

/// Clears this thread's last error and returns TILEC_OK.
tilec_status ok();

/// \p message with the buffer name "<source>" replaced by \p name.
std::string renameSource(llvm::StringRef message, llvm::StringRef name);

/// Runs \p body, turning an escaping C++ exception into
/// TILEC_ERROR_INTERNAL (nothing may cross the C boundary).
template <typename Body> tilec_status guard(Body body) {
  try {
    return body();
  } catch (const std::exception &e) {
    return fail(TILEC_ERROR_INTERNAL,
                std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(TILEC_ERROR_INTERNAL, "internal error");
  }
}

} // namespace tilec::capi

#endif // TILEC_CAPI_CAPI_H
