//===- runtime/sim/SimFault.h - An error inside a simulated launch -*- C++ -*-===//
//
// Whatever the simulator finds wrong while it executes a kernel (an access
// outside an allocation, a read of never-written shared memory, an illegal
// descriptor field, a deadlock) ends the launch. The code that finds it throws
// a SimFault with what it found and the numbers; the interpreter adds where
// (CTA, warp, lane, PTX line) and the launch returns it as the driver's error
// text. Nothing outside runtime/sim/ sees the exception.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIM_SIMFAULT_H
#define TILEC_RUNTIME_SIM_SIMFAULT_H

#include <stdexcept>
#include <string>

namespace tilec::sim {

/// A fault of the simulated program: ends the launch with this message.
class SimFault : public std::runtime_error {
public:
  explicit SimFault(const std::string &message)
      : std::runtime_error(message) {}
};

} // namespace tilec::sim

#endif // TILEC_RUNTIME_SIM_SIMFAULT_H
