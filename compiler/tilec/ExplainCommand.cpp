//===- compiler/tilec/ExplainCommand.cpp - `tilec explain` ----------------===//
//
//   tilec explain FILE.ptx [-o OUT] [--arch sm_90a|sm_100a]
//
// Prints the PTX with a `// explain:` comment line before every wgmma and
// tcgen05.mma: the instruction decoded, then each shared-memory descriptor
// and instruction descriptor field by field, as far as the PTX text makes
// its value known (ir/ptx/PtxDescriptorScan.h); what is only known at run time
// (the smem base address) is said to be so. FILE may be `-` (stdin). The
// output is still PTX. Exit codes: 0 success, 1 unreadable input or no
// `.target` to decode descriptors for, 2 a bad command line.
//
//===----------------------------------------------------------------------===//
#include "compiler/tilec/Command.h"

#include "ir/ptx/PtxDescriptorScan.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace tilec;
namespace cl = llvm::cl;

namespace {

cl::SubCommand
    explainCommand("explain",
                   "print PTX with every descriptor and instruction descriptor "
                   "decoded in comments");

cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                               cl::desc("<FILE.ptx | ->"),
                               cl::sub(explainCommand),
                               cl::cat(tilecCategory()));
cl::opt<std::string> outputFile("o", cl::desc("write the output to FILE"),
                                cl::value_desc("FILE"), cl::init("-"),
                                cl::sub(explainCommand),
                                cl::cat(tilecCategory()));
cl::opt<std::string>
    archOption("arch",
               cl::desc("decode descriptors for this target instead of the "
                        "PTX's .target: sm_90a, sm_100a"),
               cl::value_desc("sm_XX"), cl::sub(explainCommand),
               cl::cat(tilecCategory()));

int runExplain() {
  std::optional<ArchKind> arch;
  if (!archOption.empty()) {
    arch = parseArch(archOption);
    if (!arch) {
      llvm::errs() << "tilec explain: unknown --arch '" << archOption
                   << "'; legal: " << listArchNames() << "\n";
      return ExitUsage;
    }
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(inputFile, /*IsText=*/true);
  if (!buffer) {
    llvm::errs() << "tilec explain: error: cannot read '" << inputFile
                 << "': " << buffer.getError().message() << "\n";
    return ExitDiagnostic;
  }
  unsigned count = 0;
  std::string text = explainPtx((*buffer)->getBuffer(), arch, &count);
  std::error_code ec;
  llvm::ToolOutputFile out(outputFile, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    llvm::errs() << "tilec explain: error: cannot write '" << outputFile
                 << "': " << ec.message() << "\n";
    return ExitDiagnostic;
  }
  out.os() << text;
  out.keep();
  if (count == 0)
    llvm::errs() << "tilec explain: note: no wgmma.mma_async or tcgen05.mma "
                    "instruction in '"
                 << inputFile << "'; nothing to decode\n";
  return ExitSuccess;
}

CommandRegistration registration(explainCommand, runExplain);

} // namespace
