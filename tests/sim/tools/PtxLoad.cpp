//===- tests/sim/tools/PtxLoad.cpp - Does the simulator load this PTX? ----===//
//
// tilec-ptx-load FILE.ptx...: for each module, "loads" with its kernels'
// names, or the simulator's refusal (the PTX line and what it does not
// model). Exit status 1 when any module is refused. Used on PTX tilec did
// not write (scripts/cutlass-ptx-survey.sh: CUTLASS's kernels, issue 31).
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/SimModule.h"

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << "usage: tilec-ptx-load FILE.ptx...\n";
    return 2;
  }
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    std::ifstream file(argv[i]);
    if (!file) {
      std::cout << argv[i] << ": cannot be read\n";
      status = 1;
      continue;
    }
    std::stringstream text;
    text << file.rdbuf();
    std::string error;
    std::unique_ptr<tilec::sim::SimModule> module =
        tilec::sim::SimModule::load(text.str(), error);
    if (!module) {
      std::cout << argv[i] << ": refused: " << error.substr(0, 300) << "\n";
      status = 1;
      continue;
    }
    std::cout << argv[i] << ": loads\n";
  }
  return status;
}
