//===- compiler/IRParser.h - Reading the textual Tile IR ---------*- C++
//-*-===//
//
// Reads what ir/tile/TileIR.h prints, with the .tile lexer, reporting through the
// same DiagnosticEngine. `tilec compile` takes Tile IR wherever it takes a
// .tile file: a buffer whose first token is `tile.module` is IR, so
// `tilec compile --emit=ir x.tile | tilec compile --emit=ir -` prints the
// same text twice (the round-trip tests).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_IRPARSER_H
#define TILEC_COMPILER_IRPARSER_H

#include "compiler/Diagnostics.h"
#include "ir/tile/TileIR.h"

#include <optional>

namespace tilec {

/// True if the buffer's first token is `tile.module`.
bool looksLikeTileIR(llvm::StringRef text);

/// Parses buffer \p bufferId as a `tile.module`. Reports and returns
/// std::nullopt on a syntax error. Op names and attribute kinds are checked
/// later, by the verifier.
std::optional<tir::Op> parseTileIR(unsigned bufferId, DiagnosticEngine &diags);

} // namespace tilec

#endif // TILEC_COMPILER_IRPARSER_H
