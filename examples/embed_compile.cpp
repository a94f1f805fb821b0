//===- examples/embed_compile.cpp - Embedding the compiler ----------------===//
//
// What an inference engine does at run time: compile a .tile source to PTX
// in-process with tilec::Compiler, read the launch metadata, and compile the
// same thing again (a cache hit). No GPU needed.
//
//   embed_compile FILE.tile [M N K]
//
//===----------------------------------------------------------------------===//
#include "compiler/Compiler.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>

int main(int argc, char **argv) {
  if (argc != 2 && argc != 5) {
    llvm::errs() << "usage: embed_compile FILE.tile [M N K]\n";
    return 2;
  }
  auto buffer = llvm::MemoryBuffer::getFile(argv[1], /*IsText=*/true);
  if (!buffer) {
    llvm::errs() << "embed_compile: cannot read " << argv[1] << ": "
                 << buffer.getError().message() << "\n";
    return 1;
  }
  uint64_t m = argc == 5 ? std::strtoull(argv[2], nullptr, 10) : 4096;
  uint64_t n = argc == 5 ? std::strtoull(argv[3], nullptr, 10) : 4096;
  uint64_t k = argc == 5 ? std::strtoull(argv[4], nullptr, 10) : 4096;

  tilec::Compiler compiler;
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  auto kernel = compiler.compile((*buffer)->getBuffer());
  auto first = Clock::now();
  if (!kernel) {
    llvm::errs() << llvm::toString(kernel.takeError());
    return 1;
  }
  auto again = compiler.compile((*buffer)->getBuffer());
  auto second = Clock::now();
  if (!again) {
    llvm::errs() << llvm::toString(again.takeError());
    return 1;
  }
  const tilec::CompiledKernel &k0 = **kernel;
  tilec::Dim3 grid = k0.grid(m, n, k);
  llvm::outs() << "entry:   " << k0.entryName << "\n"
               << "params: ";
  for (const tilec::KernelParam &param : k0.params)
    llvm::outs() << " " << param.name;
  llvm::outs()
      << "\nblock:   " << k0.block().x << " threads\n"
      << "smem:    " << k0.sharedBytes << " bytes (dynamic)\n"
      << "grid:    " << grid.x << " x " << grid.y << " x " << grid.z
      << " for M = " << m << ", N = " << n << ", K = " << k << "\n"
      << "ptx:     " << k0.ptx.size() << " bytes\n"
      << "compile: "
      << llvm::format(
             "%.1f",
             std::chrono::duration<double, std::milli>(first - start).count())
      << " ms; again (cache hit, same object: "
      << (kernel->get() == again->get() ? "yes" : "no") << "): "
      << llvm::format(
             "%.1f",
             std::chrono::duration<double, std::micro>(second - first).count())
      << " us\n";
  return 0;
}
