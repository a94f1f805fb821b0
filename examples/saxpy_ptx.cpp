//===- examples/saxpy_ptx.cpp - The saxpy slice for every target ----------===//
//
// Emits the IRBuilder saxpy kernel's PTX for sm_80, sm_90a and sm_100a into a
// folder and assembles each with ptxas for its target (when ptxas exists):
// the pipeline end to end without a GPU.
//
//   saxpy_ptx [OUT_DIR]      (default: the current folder)
//
//===----------------------------------------------------------------------===//
#include "codegen/Ptxas.h"
#include "codegen/SaxpyKernel.h"
#include "ir/arch/Arch.h"

#include "llvm/Support/raw_ostream.h"

#include <fstream>
#include <string>

using namespace tilec;

int main(int argc, char **argv) {
  if (argc > 2) {
    llvm::errs() << "usage: saxpy_ptx [OUT_DIR]\n";
    return 2;
  }
  std::string dir = argc == 2 ? argv[1] : ".";
  bool haveptxas = findPtxas().has_value();
  int status = 0;
  for (const ArchInfo &info : allArchs()) {
    auto ptx = emitSaxpyPtx(info.kind);
    if (!ptx) {
      llvm::errs() << "saxpy " << info.name << ": "
                   << llvm::toString(ptx.takeError()) << "\n";
      status = 1;
      continue;
    }
    std::string path = dir + "/saxpy_" + info.name.str() + ".ptx";
    std::ofstream(path) << *ptx;
    llvm::outs() << "saxpy " << info.name << " -> " << path << " ("
                 << ptx->size() << " bytes, PTX ISA " << info.ptxVersion / 10
                 << "." << info.ptxVersion % 10 << ")";
    if (!haveptxas) {
      llvm::outs() << ", ptxas missing: not assembled\n";
      continue;
    }
    if (llvm::Error err = assembleWithPtxas(*ptx, info.kind)) {
      llvm::outs() << ", ptxas FAILED\n";
      llvm::errs() << llvm::toString(std::move(err)) << "\n";
      status = 1;
      continue;
    }
    llvm::outs() << ", ptxas -arch=" << info.name << " ok\n";
  }
  return status;
}
