//===- compiler/VerifyDiagnostics.h - --verify-diagnostics -------*- C++
//-*-===//
//
// Like MLIR's -verify-diagnostics: the source says which diagnostics it
// expects, in comments on the line they apply to,
//   tile (BM = 32, BN = 128, BK = 64)  // expected-error {{not a multiple}}
// or on a nearby line with an offset: `expected-note@+1 {{...}}`,
// `expected-warning@-2 {{...}}`. The text between {{ and }} must occur in
// the message. The run passes iff every expected diagnostic was produced and
// every produced one was expected.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_VERIFYDIAGNOSTICS_H
#define TILEC_COMPILER_VERIFYDIAGNOSTICS_H

#include "compiler/Diagnostics.h"

#include "llvm/Support/raw_ostream.h"

namespace tilec {

/// Matches the captured diagnostics of \p diags against the expectations
/// written in buffer \p bufferId. Mismatches are printed to \p os (as
/// diagnostics at the expectation or the unexpected diagnostic). Returns
/// true if everything matched.
bool verifyDiagnostics(DiagnosticEngine &diags, unsigned bufferId,
                       llvm::raw_ostream &os);

} // namespace tilec

#endif // TILEC_COMPILER_VERIFYDIAGNOSTICS_H
