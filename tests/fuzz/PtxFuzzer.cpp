//===- tests/fuzz/PtxFuzzer.cpp - libFuzzer target for the PTX parser -----===//
//
// Feeds arbitrary bytes to the simulator's PTX parser (runtime/sim/
// PtxParser.h), which reads whatever PTX a user hands `tilec run --ptx` or
// the C API's module loader: any crash, sanitizer report or hang is a bug;
// a parse either succeeds or names the line it refuses.
//
// Built only with clang (tests/fuzz/CMakeLists.txt); scripts/sanitize.sh runs
// it for a fixed number of executions over tests/fuzz/corpus/ptx.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/PtxParser.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  tilec::sim::PtxModule module;
  std::string error;
  bool ok = tilec::sim::parsePtx(text, module, error);
  // A refusal says where: "ptx:LINE: ...".
  if (!ok && error.rfind("ptx:", 0) != 0)
    std::abort();
  return 0;
}
