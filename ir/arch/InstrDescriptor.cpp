//===- ir/arch/InstrDescriptor.cpp - The tcgen05 instruction descriptor --------===//
//
// Bit positions follow the PTX ISA's "Instruction descriptor format for
// .kind::tf32, .kind::f16, .kind::f8f6f4 and .kind::i8" table.
//
//===----------------------------------------------------------------------===//
#include "ir/arch/InstrDescriptor.h"

#include "llvm/Support/FormatVariadic.h"

namespace tilec {

namespace {
const InstrFieldInfo InstrFields[] = {
    {"sparse_selector", 0, 2}, {"sparse", 2, 1},    {"saturate", 3, 1},
    {"d_format", 4, 2},        {"a_format", 7, 3},  {"b_format", 10, 3},
    {"negate_a", 13, 1},       {"negate_b", 14, 1}, {"a_major", 15, 1},
    {"b_major", 16, 1},        {"n_dim", 17, 6},    {"m_dim", 24, 5},
    {"max_shift", 30, 2},
};

enum FieldIndex {
  SparseSelector,
  Sparse,
  Saturate,
  DFormat,
  AFormat,
  BFormat,
  NegateA,
  NegateB,
  AMajor,
  BMajor,
  NDim,
  MDim,
  MaxShift
};

/// Operand format codes per kind.
struct FormatCode {
  MmaKindKind kind;
  DTypeKind type;
  unsigned code;
};
const FormatCode OperandFormats[] = {
    {MmaKindKind::F16, DTypeKind::F16, 0},
    {MmaKindKind::F16, DTypeKind::BF16, 1},
    {MmaKindKind::TF32, DTypeKind::TF32, 2},
    {MmaKindKind::F8F6F4, DTypeKind::E4M3, 0},
    {MmaKindKind::F8F6F4, DTypeKind::E5M2, 1},
};

/// Accumulator format codes and the kinds that allow them.
struct AccCode {
  DTypeKind type;
  unsigned code;
  bool allowedForTf32;
};
const AccCode AccFormats[] = {
    {DTypeKind::F16, 0, false},
    {DTypeKind::F32, 1, true},
};

const char *const KindNames[] = {"f16", "tf32", "f8f6f4"};

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(message.str());
}
} // namespace

llvm::ArrayRef<InstrFieldInfo> instrDescriptorFields() { return InstrFields; }

uint32_t extractInstrField(uint32_t idesc, const InstrFieldInfo &info) {
  return (idesc >> info.lowBit) & ((uint32_t(1) << info.width) - 1);
}

llvm::StringRef mmaKindName(MmaKindKind kind) {
  return KindNames[static_cast<unsigned>(kind)];
}

std::optional<MmaKindKind> parseMmaKind(llvm::StringRef name) {
  for (unsigned i = 0; i != 3; ++i)
    if (name == KindNames[i])
      return static_cast<MmaKindKind>(i);
  return std::nullopt;
}

llvm::Expected<MmaKindKind> mmaKindOf(DTypeKind a, DTypeKind b) {
  const FormatCode *fa = nullptr, *fb = nullptr;
  for (const FormatCode &f : OperandFormats) {
    if (f.type == a)
      fa = &f;
    if (f.type == b)
      fb = &f;
  }
  const char *legal = "legal: f16 x f16, bf16 x bf16, tf32 x tf32, "
                      "e4m3/e5m2 x e4m3/e5m2";
  if (!fa || !fb)
    return fail(llvm::formatv("{0} is not a dense tcgen05 operand type ({1})",
                              dtypeInfo(fa ? b : a).name, legal));
  if (fa->kind != fb->kind ||
      (fa->kind != MmaKindKind::F8F6F4 && fa->type != fb->type))
    return fail(llvm::formatv("A type {0} and B type {1} do not form one "
                              "tcgen05 kind ({2})",
                              dtypeInfo(a).name, dtypeInfo(b).name, legal));
  return fa->kind;
}

llvm::Expected<uint32_t> encodeInstrDescriptor(const InstrDescriptorSpec &s) {
  llvm::Expected<MmaKindKind> kind = mmaKindOf(s.aType, s.bType);
  if (!kind)
    return kind.takeError();
  const AccCode *acc = nullptr;
  for (const AccCode &c : AccFormats)
    if (c.type == s.accType)
      acc = &c;
  if (!acc)
    return fail(llvm::formatv("accumulator type {0} is not supported (legal: "
                              "f16, f32)",
                              dtypeInfo(s.accType).name));
  if (*kind == MmaKindKind::TF32 && !acc->allowedForTf32)
    return fail("kind::tf32 accumulates in f32 only (f16 is legal for "
                "kind::f16 and kind::f8f6f4)");
  if (s.m != 64 && s.m != 128 && s.m != 256)
    return fail(llvm::formatv("M = {0} is not a tcgen05 M (legal: 64, 128, "
                              "256 with cta_group::2)",
                              s.m));
  // The smem-operand shape table (see ir/arch/InstrTable.cpp): N steps by 8 for
  // M = 64 and 128, by 16 for the pair's M = 256. The descriptor does not
  // say whether M = 128 is one CTA's or a pair's (step 16); that is the
  // instruction table's check.
  unsigned nStep = s.m == 256 ? 16 : 8;
  if (s.n < nStep || s.n > 256 || s.n % nStep != 0)
    return fail(llvm::formatv("N = {0} is not legal for M = {1} (legal: a "
                              "multiple of {2} from {2} to 256)",
                              s.n, s.m, nStep));
  auto code = [&](DTypeKind t) {
    for (const FormatCode &f : OperandFormats)
      if (f.type == t)
        return f.code;
    return 0u;
  };
  uint32_t values[std::size(InstrFields)] = {};
  values[DFormat] = acc->code;
  values[AFormat] = code(s.aType);
  values[BFormat] = code(s.bType);
  values[NegateA] = s.negateA;
  values[NegateB] = s.negateB;
  values[AMajor] = s.aMajor == MajorKind::MN;
  values[BMajor] = s.bMajor == MajorKind::MN;
  values[NDim] = s.n >> 3;
  values[MDim] = s.m >> 4;
  uint32_t idesc = 0;
  for (unsigned i = 0; i != std::size(InstrFields); ++i) {
    assert(values[i] < (1u << InstrFields[i].width) && "field overflow");
    idesc |= values[i] << InstrFields[i].lowBit;
  }
  return idesc;
}

llvm::Expected<InstrDescriptorSpec> decodeInstrDescriptor(uint32_t idesc,
                                                          MmaKindKind kind) {
  uint32_t known = 0;
  uint32_t values[std::size(InstrFields)];
  for (unsigned i = 0; i != std::size(InstrFields); ++i) {
    values[i] = extractInstrField(idesc, InstrFields[i]);
    known |= ((1u << InstrFields[i].width) - 1) << InstrFields[i].lowBit;
  }
  if (idesc & ~known)
    return fail(llvm::formatv("reserved bits are set: {0:x8}", idesc & ~known));
  if (values[Sparse] || values[SparseSelector])
    return fail("sparse instruction descriptors are not decoded");
  if (values[Saturate])
    return fail("the saturate bit is set (legal only for kind::i8)");
  if (values[MaxShift])
    return fail("max_shift is set (legal only for tcgen05.mma.ws)");
  InstrDescriptorSpec s;
  auto type = [&](unsigned code,
                  const char *which) -> llvm::Expected<DTypeKind> {
    for (const FormatCode &f : OperandFormats)
      if (f.kind == kind && f.code == code)
        return f.type;
    return fail(llvm::formatv("{0} format code {1} is not a dense kind::{2} "
                              "type tilec knows",
                              which, code, mmaKindName(kind)));
  };
  llvm::Expected<DTypeKind> a = type(values[AFormat], "A");
  if (!a)
    return a.takeError();
  llvm::Expected<DTypeKind> b = type(values[BFormat], "B");
  if (!b)
    return b.takeError();
  s.aType = *a;
  s.bType = *b;
  bool accFound = false;
  for (const AccCode &c : AccFormats)
    if (c.code == values[DFormat]) {
      s.accType = c.type;
      accFound = true;
    }
  if (!accFound)
    return fail(llvm::formatv("D format code {0} is not f16 (0) or f32 (1)",
                              values[DFormat]));
  s.negateA = values[NegateA];
  s.negateB = values[NegateB];
  s.aMajor = values[AMajor] ? MajorKind::MN : MajorKind::K;
  s.bMajor = values[BMajor] ? MajorKind::MN : MajorKind::K;
  s.n = values[NDim] << 3;
  s.m = values[MDim] << 4;
  return s;
}

} // namespace tilec
