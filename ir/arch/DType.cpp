//===- ir/arch/DType.cpp - Element types of tile programs ----------------------===//
#include "ir/arch/DType.h"

namespace tilec {

namespace {
const DTypeInfo DTypeTable[] = {
    {DTypeKind::F16, "f16", 16, "f16", true},
    {DTypeKind::BF16, "bf16", 16, "bf16", true},
    {DTypeKind::TF32, "tf32", 32, "tf32", true},
    {DTypeKind::F32, "f32", 32, "f32", true},
    {DTypeKind::E4M3, "e4m3", 8, "e4m3", true},
    {DTypeKind::E5M2, "e5m2", 8, "e5m2", true},
    {DTypeKind::I8, "i8", 8, "s8", false},
    {DTypeKind::U8, "u8", 8, "u8", false},
    {DTypeKind::U4, "u4", 4, "u4", false},
    {DTypeKind::I4, "i4", 4, "s4", false},
};
} // namespace

const DTypeInfo &dtypeInfo(DTypeKind kind) {
  return DTypeTable[static_cast<unsigned>(kind)];
}

std::optional<DTypeKind> parseDType(llvm::StringRef name) {
  for (const DTypeInfo &info : DTypeTable)
    if (info.name == name)
      return info.kind;
  return std::nullopt;
}

std::string listDTypeNames() {
  std::string out;
  for (const DTypeInfo &info : DTypeTable) {
    if (!out.empty())
      out += ", ";
    out += info.name.str();
  }
  return out;
}

} // namespace tilec
