//===- compiler/Sema.h - From the syntax tree to Tile IR ---------*- C++
//-*-===//
//
// Sema resolves names and evaluates integer expressions (constants, tile
// sizes, fixed extents), substitutes constants and layout names into layout
// expressions, picks each kernel's target (its `arch` line or --arch) and
// builds the Tile IR. It checks what only the syntax tree knows (unknown
// names, tile-size names, a target named twice); the value checks (dtypes,
// majorness, counts of items) are the verifier's, so IR read from text gets
// the same messages.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_SEMA_H
#define TILEC_COMPILER_SEMA_H

#include "compiler/AST.h"
#include "compiler/Diagnostics.h"
#include "ir/arch/Arch.h"
#include "ir/tile/TileIR.h"

#include <optional>

namespace tilec {

/// What sema needs from the command line.
struct SemaOptions {
  /// --arch: the target of kernels without an `arch` line; a kernel whose
  /// `arch` differs is an error.
  std::optional<ArchKind> arch;
};

/// Builds the `tile.module` for \p program. Errors go to \p diags; the
/// returned module is complete only if none were reported.
tir::Op buildTileIR(const Program &program, const SemaOptions &options,
                    DiagnosticEngine &diags);

} // namespace tilec

#endif // TILEC_COMPILER_SEMA_H
