//===- codegen/Ptxas.cpp - Assemble PTX with the CUDA toolkit's ptxas -----===//
//
// Writes the PTX to a temporary file, runs ptxas on it with its output sent to
// another temporary file, and turns a non-zero exit into an llvm::Error that
// quotes what ptxas said.
//
//===----------------------------------------------------------------------===//
#include "codegen/Ptxas.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace tilec {

namespace {
/// Removes a temporary file when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};
} // namespace

std::optional<std::string> findPtxas() {
  if (const char *env = std::getenv("PTXAS"); env && *env)
    return std::string(env);
  if (auto found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  if (auto found =
          llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"}))
    return *found;
  return std::nullopt;
}

llvm::Expected<PtxasRun> runPtxas(llvm::StringRef ptx, ArchKind arch,
                                  llvm::ArrayRef<llvm::StringRef> extraArgs) {
  std::optional<std::string> ptxas = findPtxas();
  if (!ptxas)
    return llvm::createStringError("ptxas not found (set PTXAS or PATH)");
  TempFile input, output, log;
  if (auto ec = llvm::sys::fs::createTemporaryFile("tilec", "ptx", input.path))
    return llvm::errorCodeToError(ec);
  if (auto ec =
          llvm::sys::fs::createTemporaryFile("tilec", "cubin", output.path))
    return llvm::errorCodeToError(ec);
  if (auto ec = llvm::sys::fs::createTemporaryFile("tilec", "log", log.path))
    return llvm::errorCodeToError(ec);
  {
    std::error_code ec;
    llvm::raw_fd_ostream stream(input.path, ec);
    if (ec)
      return llvm::errorCodeToError(ec);
    stream << ptx;
  }
  std::string archFlag = "-arch=" + archInfo(arch).name.str();
  llvm::SmallVector<llvm::StringRef, 8> args = {*ptxas, archFlag};
  args.append(extraArgs.begin(), extraArgs.end());
  args.append({input.path.str(), "-o", output.path.str()});
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.path.str(),
                                                log.path.str()};
  std::string execError;
  PtxasRun run;
  run.exitCode = llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt,
                                           redirects, 0, 0, &execError);
  if (run.exitCode < 0)
    return llvm::createStringError("cannot run " + *ptxas + ": " + execError);
  if (auto buffer = llvm::MemoryBuffer::getFile(log.path))
    run.output = (*buffer)->getBuffer().str();
  return run;
}

llvm::Error assembleWithPtxas(llvm::StringRef ptx, ArchKind arch) {
  llvm::Expected<PtxasRun> run = runPtxas(ptx, arch);
  if (!run)
    return run.takeError();
  if (run->exitCode == 0)
    return llvm::Error::success();
  return llvm::createStringError(
      "ptxas -arch=" + archInfo(arch).name.str() + " failed (exit " +
      std::to_string(run->exitCode) + ")\n" + run->output);
}

} // namespace tilec
