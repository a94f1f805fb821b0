//===- bench/CompileLatency.cpp - GemmSpec to PTX, timed in-process -------===//
//
// Inference engines compile kernels at run time for the shapes they see, so
// compile latency is a product number. This measures codegen + LLVM (IR
// building, O3, NVPTX instruction selection, PTX printing) for the sm_80
// GEMM: the median of 100 in-process emitGemm calls per majorness, after one
// warm-up call (target registration). ptxas and driver JIT time are not
// included (the runtime reports the JIT's time separately). The front end
// (.tile parsing and passes) is not part of this measurement yet.
//
//   CompileLatency [RUNS]
//
//===----------------------------------------------------------------------===//
#include "codegen/GemmCodegen.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace tilec;

int main(int argc, char **argv) {
  int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 100;
  for (MajorKind a : {MajorKind::K, MajorKind::MN})
    for (MajorKind b : {MajorKind::K, MajorKind::MN}) {
      GemmSpec spec;
      spec.aMajor = a;
      spec.bMajor = b;
      std::vector<double> ms;
      std::size_t bytes = 0;
      for (int i = 0; i <= runs; ++i) {
        auto start = std::chrono::steady_clock::now();
        auto binary = emitGemm(spec);
        auto end = std::chrono::steady_clock::now();
        if (!binary) {
          std::fprintf(stderr, "CompileLatency: %s\n",
                       llvm::toString(binary.takeError()).c_str());
          return 1;
        }
        bytes = binary->ptx.size();
        if (i > 0)
          ms.push_back(
              std::chrono::duration<double, std::milli>(end - start).count());
      }
      std::sort(ms.begin(), ms.end());
      std::printf("compile sm_80 bf16 %s%s 128x128x32 s4: median %.2f ms, "
                  "min %.2f, max %.2f over %d runs (%zu bytes of PTX)\n",
                  a == MajorKind::K ? "T" : "N", b == MajorKind::K ? "N" : "T",
                  ms[ms.size() / 2], ms.front(), ms.back(), runs, bytes);
    }
  return 0;
}
