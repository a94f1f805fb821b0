//===- codegen/SourceLineInfo.h - PTX line directives for a kernel -*- C++ -*-===//
//
// Attaches line-table-only debug info (a compile unit of kind
// DebugDirectivesOnly and a subprogram for the kernel) so that the NVPTX
// backend writes `.file` and `.loc` directives and no DWARF sections: what
// nvcc -lineinfo gives. Generators call at(part) before emitting each part
// of the kernel; with SourceLines::emit off every call does nothing and the
// PTX is unchanged.
//
// Example: with emit on, `info.at(KernelPart::Mma)` before the wgmma loop
// puts `.loc 1 20 1` (the `mma` line of the .tile file) before each wgmma.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SOURCELINEINFO_H
#define TILEC_CODEGEN_SOURCELINEINFO_H

#include "ir/tile/SourceLines.h"

#include "llvm/IR/DIBuilder.h"
#include "llvm/IR/IRBuilder.h"

#include <memory>

namespace tilec {

class SourceLineInfo {
public:
  /// Debug info for \p fn when \p lines.emit; nothing otherwise.
  SourceLineInfo(llvm::Function &fn, const SourceLines &lines,
                 llvm::IRBuilder<> &b);

  /// Instructions \p b creates from now on come from \p part's line.
  void at(KernelPart part);

  /// Completes the debug info; call once the function is built.
  void finish();

private:
  const SourceLines &lines;
  llvm::IRBuilder<> &b;
  std::unique_ptr<llvm::DIBuilder> di;
  llvm::DISubprogram *subprogram = nullptr;
};

} // namespace tilec

#endif // TILEC_CODEGEN_SOURCELINEINFO_H
