//===- runtime/sim/PtxParser.h - PTX text to the decoded program -*- C++
//-*-===//
//
// Reads the PTX the LLVM NVPTX back end and tilec's inline asm produce: the
// module directives, .entry functions with their parameters, register
// declarations (also inside the `{ }` scopes of inline asm, with their local
// labels), and every instruction the simulator models. Anything else is an
// error naming the line, never skipped.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIM_PTXPARSER_H
#define TILEC_RUNTIME_SIM_PTXPARSER_H

#include "runtime/sim/PtxProgram.h"

#include <string>
#include <string_view>

namespace tilec::sim {

/// Parses \p text into \p module; on an error returns false and sets
/// \p error to "ptx:LINE: message: `the line`".
bool parsePtx(std::string_view text, PtxModule &module, std::string &error);

} // namespace tilec::sim

#endif // TILEC_RUNTIME_SIM_PTXPARSER_H
