//===- host/SimProfileReport.h - tilec run --profile --*- C++ -*-===//
//
// Prints the simulator's per-PTX-line profile the way a kernel author acts
// on it: the shared-memory accesses with the most wavefronts beyond the
// ideal (bank conflicts) first, then the most executed lines, each with the
// .tile line it came from (from the PTX's `.loc` directives, which
// tilec run --profile asks code generation for).
//
// Example line:
//   ptx:1268   gemm_sm90.tile:21     16384 execs  65536 wavefronts
//   (ideal 16384, 4.00x)  stmatrix.sync.aligned.x4.m8n8.shared.b16 [...]
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_HOST_SIMPROFILEREPORT_H
#define TILEC_HOST_SIMPROFILEREPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace tilec {

/// For each line of \p ptx (index 0 is line 1), the source position of the
/// last `.loc` before it in the same function, as "file:line", or "" when
/// there is none or the line is 0 (instructions LLVM merged from several
/// lines). \p sourceName replaces a `.file` name of "<source>".
std::vector<std::string> ptxSourceLines(llvm::StringRef ptx,
                                        llvm::StringRef sourceName);

/// Prints and clears the simulator's profile of the launches so far.
void printSimProfile(llvm::raw_ostream &os, llvm::StringRef sourceName);

} // namespace tilec

#endif // TILEC_HOST_SIMPROFILEREPORT_H
