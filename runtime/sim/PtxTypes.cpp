//===- runtime/sim/PtxTypes.cpp - Facts about the PTX fundamental types ---===//
//
// One home for what each PtxType is called in PTX text and how wide, signed
// or floating it is. The name table serves both directions: the decoder and
// the parser read ".bf16x2" through it, messages print through it.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/PtxProgram.h"
#include "runtime/sim/PtxText.h"

namespace tilec::sim {

namespace {

const std::pair<const char *, PtxType> TypeNames[] = {
    {"pred", PtxType::Pred},    {"b8", PtxType::B8},
    {"b16", PtxType::B16},      {"b32", PtxType::B32},
    {"b64", PtxType::B64},      {"b128", PtxType::B128},
    {"u8", PtxType::U8},        {"u16", PtxType::U16},
    {"u32", PtxType::U32},      {"u64", PtxType::U64},
    {"s8", PtxType::S8},        {"s16", PtxType::S16},
    {"s32", PtxType::S32},      {"s64", PtxType::S64},
    {"f16", PtxType::F16},      {"f16x2", PtxType::F16x2},
    {"bf16", PtxType::BF16},    {"bf16x2", PtxType::BF16x2},
    {"tf32", PtxType::TF32},    {"f32", PtxType::F32},
    {"f64", PtxType::F64},      {"e4m3", PtxType::E4M3},
    {"e5m2", PtxType::E5M2},    {"e4m3x2", PtxType::E4M3x2},
    {"e5m2x2", PtxType::E5M2x2}};

} // namespace

std::optional<PtxType> ptxTypeFromName(std::string_view name) {
  return lookupName(name, TypeNames);
}

const char *ptxTypeName(PtxType type) {
  if (type == PtxType::None)
    return "none";
  for (const auto &[name, t] : TypeNames)
    if (t == type)
      return name;
  return "?";
}

unsigned ptxTypeBits(PtxType type) {
  switch (type) {
  case PtxType::None:
    return 0;
  case PtxType::Pred:
    return 1;
  case PtxType::B8:
  case PtxType::U8:
  case PtxType::S8:
  case PtxType::E4M3:
  case PtxType::E5M2:
    return 8;
  case PtxType::B16:
  case PtxType::U16:
  case PtxType::S16:
  case PtxType::F16:
  case PtxType::BF16:
  case PtxType::E4M3x2:
  case PtxType::E5M2x2:
    return 16;
  case PtxType::B32:
  case PtxType::U32:
  case PtxType::S32:
  case PtxType::F32:
  case PtxType::F16x2:
  case PtxType::BF16x2:
  case PtxType::TF32:
    return 32;
  case PtxType::B64:
  case PtxType::U64:
  case PtxType::S64:
  case PtxType::F64:
    return 64;
  case PtxType::B128:
    return 128;
  }
  return 0;
}

bool ptxTypeIsSigned(PtxType type) {
  return type == PtxType::S8 || type == PtxType::S16 || type == PtxType::S32 ||
         type == PtxType::S64;
}

bool ptxTypeIsFloat(PtxType type) {
  switch (type) {
  case PtxType::F16:
  case PtxType::F16x2:
  case PtxType::BF16:
  case PtxType::BF16x2:
  case PtxType::TF32:
  case PtxType::F32:
  case PtxType::F64:
  case PtxType::E4M3:
  case PtxType::E5M2:
  case PtxType::E4M3x2:
  case PtxType::E5M2x2:
    return true;
  default:
    return false;
  }
}

} // namespace tilec::sim
