//===- compiler/passes/Passes.h - Pass entry points and context --*- C++
//-*-===//
//
// Every pass is one function `bool runXPass(tir::Op &module, PassContext &)`
// in its own file, listed in Passes.def. A pass reports through the context's
// DiagnosticEngine and returns false when it reported an error; it never
// aborts on bad input, even when run without `verify` before it.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_PASSES_PASSES_H
#define TILEC_COMPILER_PASSES_PASSES_H

#include "compiler/Diagnostics.h"
#include "ir/arch/Arch.h"
#include "ir/tile/GemmSpec.h"
#include "ir/tile/TileIR.h"

#include <optional>
#include <vector>

namespace tilec {

/// What passes share: diagnostics, options and the lowered result.
struct PassContext {
  explicit PassContext(DiagnosticEngine &diags) : diags(diags) {}
  DiagnosticEngine &diags;
  /// --arch, if given: verify reports kernels written for another target.
  std::optional<ArchKind> arch;
  /// Filled by `lower`: one GemmSpec per kernel, in module order.
  std::vector<GemmSpec> specs;
};

#define TILEC_PASS(NAME, ENTRY, DESCRIPTION)                                   \
  bool ENTRY(tir::Op &module, PassContext &context);
#include "compiler/passes/Passes.def"

} // namespace tilec

#endif // TILEC_COMPILER_PASSES_PASSES_H
