//===- ir/arch/Arch.cpp - The GPU targets tilec emits code for -----------------===//
//
// The table behind ir/arch/Arch.h. PTX versions are the lowest that carry every
// instruction tilec emits for that target: 7.8 for sm_80 (cp.async, ldmatrix,
// mma.sync bf16), 8.0 for sm_90a (wgmma, setmaxnreg, elect.sync), 8.6 for
// sm_100a (tcgen05). Shared-memory limits are those of the CUDA
// programming guide's compute-capability table (8.0: 164 KB per SM, 163 KB
// per block; 9.0 and 10.0: 228 KB per SM, 227 KB per block).
//
//===----------------------------------------------------------------------===//
#include "ir/arch/Arch.h"

#include <string>

namespace tilec {

namespace {
const ArchInfo ArchTable[] = {
    {ArchKind::SM80,
     "sm_80",
     80,
     78,
     163 * 1024,
     164 * 1024,
     /*hasStmatrix=*/false,
     /*hasTma=*/false,
     /*archSpecific=*/false,
     {"A100", 312e12, 108, 40u << 20, 2.0e12}},
    {ArchKind::SM90a,
     "sm_90a",
     90,
     80,
     227 * 1024,
     228 * 1024,
     /*hasStmatrix=*/true,
     /*hasTma=*/true,
     /*archSpecific=*/true,
     {"H200", 989e12, 132, 50u << 20, 4.8e12}},
    {ArchKind::SM100a,
     "sm_100a",
     100,
     86,
     227 * 1024,
     228 * 1024,
     /*hasStmatrix=*/true,
     /*hasTma=*/true,
     /*archSpecific=*/true,
     {"B200", 2250e12, 148, 126u << 20, 8.0e12}},
};
} // namespace

llvm::ArrayRef<ArchInfo> allArchs() { return ArchTable; }

const ArchInfo &archInfo(ArchKind kind) {
  return ArchTable[static_cast<unsigned>(kind)];
}

std::optional<ArchKind> parseArch(llvm::StringRef name) {
  for (const ArchInfo &info : ArchTable)
    if (info.name == name)
      return info.kind;
  return std::nullopt;
}

std::string listArchNames() {
  std::string out;
  for (const ArchInfo &info : ArchTable) {
    if (!out.empty())
      out += ", ";
    out += info.name.str();
  }
  return out;
}

} // namespace tilec
