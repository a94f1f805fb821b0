//===- tests/fuzz/TileFuzzer.cpp - libFuzzer target for the front end ----===//
//
// Feeds arbitrary bytes to the compile driver as a .tile program (or Tile
// IR when they start with `tile.module`) and runs every pass: any crash,
// sanitizer report or hang is a bug: no user input may crash the compiler.
// Where --emit=ir succeeds, the printed IR must parse back to the same text.
//
// Built only with clang (tests/fuzz/CMakeLists.txt); scripts/sanitize.sh runs
// it for a fixed number of executions over tests/fuzz/corpus/tile.
// tests/unit/FrontendFuzzTest.cpp is the bounded version that always runs.
//
//===----------------------------------------------------------------------===//
#include "compiler/Compilation.h"
#include "compiler/Diagnostics.h"
#include "compiler/VerifyDiagnostics.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

tilec::CompilationResult compileText(llvm::StringRef text,
                                     tilec::EmitKind emit) {
  llvm::SourceMgr sourceMgr;
  std::string sink;
  llvm::raw_string_ostream sinkStream(sink);
  tilec::DiagnosticEngine diags(sourceMgr, sinkStream);
  diags.setCapture(true);
  unsigned id = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.tile"), llvm::SMLoc());
  tilec::CompilationOptions options;
  options.emit = emit;
  options.log = &sinkStream;
  tilec::CompilationResult result = tilec::compileBuffer(id, options, diags);
  (void)diags.formatAll(); // Formatting must not crash either.
  tilec::verifyDiagnostics(diags, id, sinkStream); // Nor the scanner.
  return result;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  compileText(text, tilec::EmitKind::AST);
  compileText(text, tilec::EmitKind::Lowered);
  tilec::CompilationResult ir = compileText(text, tilec::EmitKind::IR);
  if (ir.ok) {
    tilec::CompilationResult again =
        compileText(ir.output, tilec::EmitKind::IR);
    if (!again.ok || again.output != ir.output)
      std::abort(); // The Tile IR text did not round-trip.
  }
  return 0;
}
