//===- runtime/BackendState.h - The process's backend choice -----*- C++ -*-===//
//
// Internal to runtime/: the chosen backend and whether it is fixed (the
// driver table has been loaded). Backend.cpp owns it; DriverApi.cpp fixes it.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_BACKENDSTATE_H
#define TILEC_RUNTIME_BACKENDSTATE_H

#include "runtime/Backend.h"

#include <mutex>

namespace tilec::rt {

struct BackendState {
  BackendKind kind;
  bool fixed;
  std::mutex mutex;
};

/// The process-wide state.
BackendState &backendState();

} // namespace tilec::rt

#endif // TILEC_RUNTIME_BACKENDSTATE_H
