//===- examples/sm90_gemm_ptx.cpp - Emit the sm_90a GEMM and explain it ---===//
//
// Embeds the compiler: builds the warp-specialized TMA + wgmma GEMM for a
// tile given on the command line, prints what the launcher needs and the
// derived operand descriptors, and writes the PTX to a file (or stdout).
//
//   sm90_gemm_ptx [BM BN STAGES [swap] [splitk | clustersplitk]
//     [persistent] [annotate]] [-o FILE]
//
// `clustersplitk` reduces the K splits of a tile through distributed
// shared memory in a 1x1xS cluster instead of the global workspace.
// `annotate` puts tilec compile --annotate's `// tilec:` comments before
// every wgmma.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90Gemm.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  tilec::Sm90GemmConfig config;
  std::string output;
  std::vector<unsigned> numbers;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-o" && i + 1 < argc)
      output = argv[++i];
    else if (arg == "swap")
      config.swapAB = true;
    else if (arg == "splitk")
      config.splitK = true;
    else if (arg == "clustersplitk")
      config.splitK = config.splitKCluster = true;
    else if (arg == "persistent")
      config.persistent = true;
    else if (arg == "annotate")
      config.annotate = true;
    else if (!arg.empty() &&
             arg.find_first_not_of("0123456789") == std::string::npos)
      numbers.push_back(unsigned(std::strtoul(arg.c_str(), nullptr, 10)));
    else {
      std::fprintf(stderr,
                   "usage: sm90_gemm_ptx [BM BN STAGES [swap] [splitk | "
                   "clustersplitk] [persistent] [annotate]] [-o FILE]\n");
      return 2;
    }
  }
  if (numbers.size() == 3) {
    config.bm = numbers[0];
    config.bn = numbers[1];
    config.stages = numbers[2];
  } else if (!numbers.empty()) {
    std::fprintf(stderr, "error: give BM BN STAGES together\n");
    return 2;
  }
  auto kernel = tilec::emitSm90Gemm(config);
  if (!kernel) {
    std::fprintf(stderr, "error: %s\n",
                 llvm::toString(kernel.takeError()).c_str());
    return 1;
  }
  auto [producer, consumer] = tilec::sm90RegisterSplit(config);
  std::printf("entry %s: %u threads (1 producer + %u consumer warpgroups), "
              "%u bytes dynamic smem, setmaxnreg %u/%u\n",
              kernel->entry.c_str(), kernel->blockThreads, config.bm / 64,
              kernel->sharedBytes, producer, consumer);
  for (const auto *tile : {&kernel->a, &kernel->b})
    std::printf("  %s: desc high 0x%016llx, k16 step +%u B, 64 rows +%u B\n",
                tile->layout.c_str(), (unsigned long long)tile->descriptorHigh,
                tile->kStepBytes, tile->mAtomBytes);
  if (output.empty() || output == "-") {
    std::fputs(kernel->ptx.c_str(), stdout);
  } else {
    std::ofstream(output) << kernel->ptx;
    std::printf("  PTX: %zu bytes -> %s\n", kernel->ptx.size(), output.c_str());
  }
  return 0;
}
