//===- tests/unit/FrontendTestSupport.h - Running the front end on text ---===//
//
// A source buffer, a capturing DiagnosticEngine and the compile driver, so
// each front-end test is one call on a string.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TESTS_UNIT_FRONTENDTESTSUPPORT_H
#define TILEC_TESTS_UNIT_FRONTENDTESTSUPPORT_H

#include "compiler/Compilation.h"
#include "compiler/Diagnostics.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <string>

namespace tilec::test {

/// One source buffer with a capturing engine.
struct Harness {
  llvm::SourceMgr sourceMgr;
  std::string sink;
  llvm::raw_string_ostream sinkStream{sink};
  DiagnosticEngine diags{sourceMgr, sinkStream};
  unsigned bufferId = 0;

  explicit Harness(llvm::StringRef text, llvm::StringRef name = "test.tile") {
    diags.setCapture(true);
    bufferId = sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, name), llvm::SMLoc());
  }

  CompilationResult compile(EmitKind emit) {
    CompilationOptions options;
    options.emit = emit;
    std::string log;
    llvm::raw_string_ostream logStream(log);
    options.log = &logStream;
    return compileBuffer(bufferId, options, diags);
  }

  std::string messages() const { return diags.formatAll(); }
};

/// A valid sm_80 kernel used by several tests.
inline const char *exampleKernel() {
  return "// TN GEMM\n"
         "kernel gemm {\n"
         "  arch     sm_80\n"
         "  a        : bf16[M, K] major(K)\n"
         "  b        : bf16[N, K] major(K)\n"
         "  c        : bf16[M, N] major(N)\n"
         "  acc      f32\n"
         "  tile     (BM = 128, BN = 128, BK = 32)\n"
         "  stages   3\n"
         "  smem a   = auto\n"
         "  smem b   = tile_to_shape(K_SW64<bf16>, (BN, BK))\n"
         "  mma      auto\n"
         "  epilogue store\n"
         "}\n";
}

} // namespace tilec::test

#endif // TILEC_TESTS_UNIT_FRONTENDTESTSUPPORT_H
