//===- compiler/Parser.h - Parsing .tile programs ----------------*- C++
//-*-===//
//
// A recursive-descent parser for the grammar in docs/language.md. It reports
// through the DiagnosticEngine and recovers at the next line (statements end
// at line breaks), so one run reports every syntax error it can. The tree it
// returns is complete enough for --emit=ast even after errors; callers stop
// when diags.hasErrors().
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_PARSER_H
#define TILEC_COMPILER_PARSER_H

#include "compiler/AST.h"
#include "compiler/Diagnostics.h"

namespace tilec {

/// Parses the buffer \p bufferId of the engine's SourceMgr as a .tile
/// program.
Program parseProgram(unsigned bufferId, DiagnosticEngine &diags);

} // namespace tilec

#endif // TILEC_COMPILER_PARSER_H
