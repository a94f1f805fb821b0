//===- compiler/tilec/tilec.cpp - The tilec command ------------------------===//
//
// Parses the command line with LLVM's CommandLine library, maps a bad command
// line to exit code 2 (instead of CommandLine's default exit 1) and runs the
// subcommand the user named.
//
//===----------------------------------------------------------------------===//
#include "compiler/tilec/Command.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

namespace tilec {
llvm::cl::OptionCategory &tilecCategory() {
  static llvm::cl::OptionCategory category("tilec options");
  return category;
}

std::vector<Command> &registeredCommands() {
  static std::vector<Command> commands;
  return commands;
}
} // namespace tilec

static void printVersion(llvm::raw_ostream &os) {
  os << "tilec " << TILEC_VERSION_STRING << " (LLVM " << LLVM_VERSION_STRING
     << ", NVPTX: sm_80, sm_90a, sm_100a)\n";
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::cl::SetVersionPrinter(printVersion);
  llvm::cl::HideUnrelatedOptions(tilec::tilecCategory());
  if (!llvm::cl::ParseCommandLineOptions(
          argc, argv,
          "tilec: compiles .tile GEMM programs to tensor-core PTX and explains "
          "the layouts and descriptors it derives\n",
          &llvm::errs()))
    return tilec::ExitUsage;
  for (const tilec::Command &command : tilec::registeredCommands())
    if (*command.subcommand)
      return command.run();
  llvm::errs() << "tilec: no subcommand given; see `tilec --help`\n";
  return tilec::ExitUsage;
}
