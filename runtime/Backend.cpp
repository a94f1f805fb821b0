//===- runtime/Backend.cpp - Which device the runtime drives ---------------===//
#include "runtime/Backend.h"

#include "runtime/BackendState.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>

namespace tilec::rt {

namespace {
BackendKind fromEnvironment() {
  const char *env = std::getenv("TILEC_DEVICE");
  return env && std::strcmp(env, "sim") == 0 ? BackendKind::Sim
                                              : BackendKind::Gpu;
}
} // namespace

BackendState &backendState() {
  static BackendState state{fromEnvironment(), false};
  return state;
}

Status setBackend(BackendKind kind) {
  BackendState &state = backendState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.fixed && state.kind != kind)
    return Error(fmt::format("the runtime already uses the {} backend; choose "
                             "the backend before the first runtime call",
                             backendName(state.kind)));
  state.kind = kind;
  return success();
}

BackendKind activeBackend() {
  BackendState &state = backendState();
  std::lock_guard<std::mutex> lock(state.mutex);
  return state.kind;
}

const char *backendName(BackendKind kind) {
  return kind == BackendKind::Sim ? "sim" : "gpu";
}

} // namespace tilec::rt
