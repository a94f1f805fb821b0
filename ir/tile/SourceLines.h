//===- ir/tile/SourceLines.h - Where a kernel's parts were written -*- C++ -*-===//
//
// The .tile lines a kernel's parts came from, so that code generation can
// emit PTX line directives (`.file` / `.loc`, like nvcc -lineinfo) and a
// profile of the PTX can name the .tile line of each instruction.
//
// Example: for examples/gemm_sm90.tile, kernel 10, smem a 18, smem b 19,
// mma 20, epilogue 21: the TMA loads of A carry `.loc 1 18 1`, the wgmma
// `.loc 1 20 1`, the stmatrix and TMA store `.loc 1 21 1`, the rest
// `.loc 1 10 1`; where LLVM merged instructions of two lines, `.loc 1 0 1`.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_TILE_SOURCELINES_H
#define TILEC_IR_TILE_SOURCELINES_H

#include <string>

namespace tilec {

/// The parts of a kernel that code generation attributes instructions to.
enum class KernelPart { Kernel, SmemA, SmemB, Mma, Epilogue };

struct SourceLines {
  /// Emit line directives at all (tilec compile --lineinfo, tilec run
  /// --profile); off, the PTX has none.
  bool emit = false;
  std::string file;      ///< The .tile file as the compiler read it.
  std::string directory; ///< Its directory ("" for a relative name).
  /// 1-based lines; 0 where the part was not written (an `auto` default):
  /// such instructions take the kernel's line.
  unsigned kernel = 0, smemA = 0, smemB = 0, mma = 0, epilogue = 0;

  unsigned lineOf(KernelPart part) const {
    unsigned line = 0;
    switch (part) {
    case KernelPart::Kernel:
      break;
    case KernelPart::SmemA:
      line = smemA;
      break;
    case KernelPart::SmemB:
      line = smemB;
      break;
    case KernelPart::Mma:
      line = mma;
      break;
    case KernelPart::Epilogue:
      line = epilogue;
      break;
    }
    return line ? line : kernel;
  }
};

} // namespace tilec

#endif // TILEC_IR_TILE_SOURCELINES_H
