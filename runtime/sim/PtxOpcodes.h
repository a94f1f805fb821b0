//===- runtime/sim/PtxOpcodes.h - Dotted PTX opcodes to OpKind -*- C++ -*-===//
//
// The parser's two questions about an instruction: what does its dotted
// opcode mean (decodeOpcode, before the operands are read) and do the
// operands it got fit that meaning (validateOperands, after). Both answer
// with an error message instead of executing something the simulator does
// not model.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIM_PTXOPCODES_H
#define TILEC_RUNTIME_SIM_PTXOPCODES_H

#include "runtime/sim/PtxProgram.h"

#include <string>
#include <string_view>

namespace tilec::sim {

/// Sets ins.op, its types and modifiers from \p opcode
/// ("ld.global.v4.b32"); on an unsupported opcode or modifier sets \p error.
void decodeOpcode(std::string_view opcode, Instr &ins, unsigned line,
                  std::string &error);

/// Checks the operand count and kinds of a decoded \p ins; on a mismatch
/// sets \p error.
void validateOperands(const Instr &ins, std::string_view opcode,
                      std::string &error);

} // namespace tilec::sim

#endif // TILEC_RUNTIME_SIM_PTXOPCODES_H
