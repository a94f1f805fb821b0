//===- compiler/tilec/Command.h - tilec's subcommands ------------*- C++ -*-===//
//
// Each subcommand (`compile`, `layout`, `desc`, `explain`) lives in its own
// file with its own cl::SubCommand and options, and registers its entry point
// here with a static CommandRegistration. tilec.cpp parses the command line
// and runs the one the user named.
//
// Exit codes (docs/cli.md): 0 success, 1 a diagnostic was reported, 2 a bad
// command line.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_TILEC_COMMAND_H
#define TILEC_COMPILER_TILEC_COMMAND_H

#include "llvm/Support/CommandLine.h"

#include <vector>

namespace tilec {

enum ExitCode : int {
  ExitSuccess = 0,
  ExitDiagnostic = 1,
  ExitUsage = 2,
};

/// A subcommand and the function that runs it after parsing.
struct Command {
  llvm::cl::SubCommand *subcommand;
  int (*run)();
};

/// The option category every subcommand's options belong to; `--help` hides
/// the LLVM options outside it.
llvm::cl::OptionCategory &tilecCategory();

/// The registered subcommands, in registration order.
std::vector<Command> &registeredCommands();

/// Registers a subcommand at static-initialization time.
struct CommandRegistration {
  CommandRegistration(llvm::cl::SubCommand &subcommand, int (*run)()) {
    registeredCommands().push_back({&subcommand, run});
  }
};

} // namespace tilec

#endif // TILEC_COMPILER_TILEC_COMMAND_H
