//===- runtime/Backend.h - Which device the runtime drives -------*- C++ -*-===//
//
// The runtime has two backends behind the same rt:: interface: the CUDA
// driver (a GPU), and the PTX simulator (runtime/sim/), which executes the
// PTX on the CPU. Every rt:: call goes through one table of driver entry
// points (DriverApi); for the simulator that table is filled with the
// simulator's implementations, so the launcher, the tests and the examples
// run on it unchanged.
//
// The backend is fixed on first use of the runtime: setBackend() before any
// rt:: call, or TILEC_DEVICE=sim (TILEC_DEVICE=gpu, or unset, is the driver).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_BACKEND_H
#define TILEC_RUNTIME_BACKEND_H

#include "runtime/Status.h"

namespace tilec::rt {

enum class BackendKind { Gpu, Sim };

/// Chooses the backend; an Error once the runtime has been used with the
/// other one (the choice is made once per process).
Status setBackend(BackendKind kind);
/// The backend in use (or that will be used): setBackend's choice, else
/// TILEC_DEVICE, else Gpu.
BackendKind activeBackend();
/// "gpu" or "sim".
const char *backendName(BackendKind kind);

} // namespace tilec::rt

#endif // TILEC_RUNTIME_BACKEND_H
