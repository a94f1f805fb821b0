//===- ir/arch/InstrTable.cpp - The tensor-core instruction table --------------===//
//
// Rows follow the PTX ISA (9.7.14 mma, 9.7.15 wgmma, 9.7.16 tcgen05.mma):
// - mma.sync (sm_80, PTX 7.0): m16n8k16 for f16/bf16, m16n8k8 for tf32.
//   MN-major 16-bit operands are loaded with ldmatrix.trans; ldmatrix has no
//   transposing form for 32-bit elements, so tf32 is K-major only.
// - wgmma.mma_async (sm_90a, PTX 8.0): M = 64, N = 8..256 step 8, K = 32
//   bytes. Only 16-bit types may be MN-major (the transpose bits).
// - tcgen05.mma (sm_100a, PTX 8.6), the ISA's table of .kind and shapes
//   (dense f16, tf32, f8f6f4): cta_group::1 M = 64 or 128 with N 8..256
//   step 8; cta_group::2 (one MMA over a CTA pair) M = 256 (128 rows per
//   CTA) or M = 128 (64 rows per CTA, D in data path layout B,
//   9.7.16.10.5) with N 16..256 step 16. K = 32 bytes. The same steps are
//   CUTLASS's SS atoms' since 4.2 ("smallest MMA-N allowed for Blackwell
//   fp8 and fp16", with 128 x 8 tests); docs/sm100.md, "Shapes", gives the
//   sources. The instruction descriptor's transpose bits make 16-bit and
//   8-bit operands MN-major (kind::f8f6f4 also mixes e4m3 and e5m2); tf32
//   is K-major here: the ISA transposes it only from the 128-byte swizzle
//   with 32-byte atomicity, which no tilec atom describes.
// Integer MMAs are not listed: DType.h has no 32-bit integer accumulator.
//
//===----------------------------------------------------------------------===//
#include "ir/arch/InstrTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <set>
#include <vector>

namespace tilec {

namespace {
// Short names so that each row of the table is one line.
constexpr MmaFamilyKind MS = MmaFamilyKind::MmaSync;
constexpr MmaFamilyKind WG = MmaFamilyKind::Wgmma;
constexpr MmaFamilyKind TC = MmaFamilyKind::Tcgen05;
constexpr DTypeKind F16 = DTypeKind::F16, BF16 = DTypeKind::BF16,
                    TF32 = DTypeKind::TF32, F32 = DTypeKind::F32,
                    E4M3 = DTypeKind::E4M3, E5M2 = DTypeKind::E5M2;
constexpr ArchKind S80 = ArchKind::SM80, S90 = ArchKind::SM90a,
                   S100 = ArchKind::SM100a;
constexpr bool MN = true, KO = false; // MN-major allowed; K-major only.

// clang-format off
const InstrInfo InstrTable[] = {
  // fam  m   nMin nMax step k  A     B     acc  mnA mnB arch ptx kind
  {MS,  16,  8,   8,  8, 16, F16,  F16,  F16, MN, MN, S80,  70, ""},
  {MS,  16,  8,   8,  8, 16, F16,  F16,  F32, MN, MN, S80,  70, ""},
  {MS,  16,  8,   8,  8, 16, BF16, BF16, F32, MN, MN, S80,  70, ""},
  {MS,  16,  8,   8,  8,  8, TF32, TF32, F32, KO, KO, S80,  70, ""},

  {WG,  64,  8, 256,  8, 16, F16,  F16,  F16, MN, MN, S90,  80, ""},
  {WG,  64,  8, 256,  8, 16, F16,  F16,  F32, MN, MN, S90,  80, ""},
  {WG,  64,  8, 256,  8, 16, BF16, BF16, F32, MN, MN, S90,  80, ""},
  {WG,  64,  8, 256,  8,  8, TF32, TF32, F32, KO, KO, S90,  80, ""},
  {WG,  64,  8, 256,  8, 32, E4M3, E4M3, F32, KO, KO, S90,  80, ""},
  {WG,  64,  8, 256,  8, 32, E4M3, E5M2, F32, KO, KO, S90,  80, ""},
  {WG,  64,  8, 256,  8, 32, E5M2, E4M3, F32, KO, KO, S90,  80, ""},
  {WG,  64,  8, 256,  8, 32, E5M2, E5M2, F32, KO, KO, S90,  80, ""},
  {WG,  64,  8, 256,  8, 32, E4M3, E4M3, F16, KO, KO, S90,  80, ""},
  {WG,  64,  8, 256,  8, 32, E5M2, E5M2, F16, KO, KO, S90,  80, ""},

  {TC,  64,  8, 256,  8, 16, F16,  F16,  F16, MN, MN, S100, 86, "kind::f16"},
  {TC,  64,  8, 256,  8, 16, F16,  F16,  F32, MN, MN, S100, 86, "kind::f16"},
  {TC,  64,  8, 256,  8, 16, BF16, BF16, F32, MN, MN, S100, 86, "kind::f16"},
  {TC, 128,  8, 256,  8, 16, F16,  F16,  F16, MN, MN, S100, 86, "kind::f16"},
  {TC, 128,  8, 256,  8, 16, F16,  F16,  F32, MN, MN, S100, 86, "kind::f16"},
  {TC, 128,  8, 256,  8, 16, BF16, BF16, F32, MN, MN, S100, 86, "kind::f16"},
  {TC,  64,  8, 256,  8,  8, TF32, TF32, F32, KO, KO, S100, 86, "kind::tf32"},
  {TC, 128,  8, 256,  8,  8, TF32, TF32, F32, KO, KO, S100, 86, "kind::tf32"},
  {TC,  64,  8, 256,  8, 32, E4M3, E4M3, F32, MN, MN, S100, 86, "kind::f8f6f4"},
  {TC,  64,  8, 256,  8, 32, E4M3, E5M2, F32, MN, MN, S100, 86, "kind::f8f6f4"},
  {TC,  64,  8, 256,  8, 32, E5M2, E4M3, F32, MN, MN, S100, 86, "kind::f8f6f4"},
  {TC, 128,  8, 256,  8, 32, E4M3, E4M3, F32, MN, MN, S100, 86, "kind::f8f6f4"},
  {TC, 128,  8, 256,  8, 32, E4M3, E5M2, F32, MN, MN, S100, 86, "kind::f8f6f4"},
  {TC, 128,  8, 256,  8, 32, E5M2, E4M3, F32, MN, MN, S100, 86, "kind::f8f6f4"},
  {TC,  64,  8, 256,  8, 32, E5M2, E5M2, F32, MN, MN, S100, 86, "kind::f8f6f4"},
  {TC, 128,  8, 256,  8, 32, E5M2, E5M2, F32, MN, MN, S100, 86, "kind::f8f6f4"},
  // cta_group::2: the MMA spans a CTA pair.
  {TC, 256, 16, 256, 16, 16, F16,  F16,  F32, MN, MN, S100, 86, "kind::f16", 2},
  {TC, 256, 16, 256, 16, 16, BF16, BF16, F32, MN, MN, S100, 86, "kind::f16", 2},
  {TC, 256, 16, 256, 16,  8, TF32, TF32, F32, KO, KO, S100, 86, "kind::tf32", 2},
  {TC, 256, 16, 256, 16, 32, E4M3, E4M3, F32, MN, MN, S100, 86, "kind::f8f6f4", 2},
  {TC, 256, 16, 256, 16, 32, E4M3, E5M2, F32, MN, MN, S100, 86, "kind::f8f6f4", 2},
  {TC, 256, 16, 256, 16, 32, E5M2, E4M3, F32, MN, MN, S100, 86, "kind::f8f6f4", 2},
  {TC, 256, 16, 256, 16, 32, E5M2, E5M2, F32, MN, MN, S100, 86, "kind::f8f6f4", 2},
  {TC, 128, 16, 256, 16, 16, F16,  F16,  F32, MN, MN, S100, 86, "kind::f16", 2},
  {TC, 128, 16, 256, 16, 16, BF16, BF16, F32, MN, MN, S100, 86, "kind::f16", 2},
  {TC, 128, 16, 256, 16,  8, TF32, TF32, F32, KO, KO, S100, 86, "kind::tf32", 2},
  {TC, 128, 16, 256, 16, 32, E4M3, E4M3, F32, MN, MN, S100, 86, "kind::f8f6f4", 2},
  {TC, 128, 16, 256, 16, 32, E4M3, E5M2, F32, MN, MN, S100, 86, "kind::f8f6f4", 2},
  {TC, 128, 16, 256, 16, 32, E5M2, E4M3, F32, MN, MN, S100, 86, "kind::f8f6f4", 2},
  {TC, 128, 16, 256, 16, 32, E5M2, E5M2, F32, MN, MN, S100, 86, "kind::f8f6f4", 2},
};
// clang-format on

std::string typeName(DTypeKind kind) { return dtypeInfo(kind).name.str(); }

std::string joinSet(const std::set<std::string> &names) {
  std::string out;
  for (const std::string &name : names) {
    if (!out.empty())
      out += ", ";
    out += name;
  }
  return out;
}
} // namespace

llvm::ArrayRef<InstrInfo> allInstrs() { return InstrTable; }

llvm::StringRef familyName(MmaFamilyKind family) {
  switch (family) {
  case MmaFamilyKind::MmaSync:
    return "mma.sync";
  case MmaFamilyKind::Wgmma:
    return "wgmma";
  case MmaFamilyKind::Tcgen05:
    return "tcgen05.mma";
  }
  return "";
}

const InstrInfo *instrFor(MmaFamilyKind family, DTypeKind aType) {
  for (const InstrInfo &row : InstrTable)
    if (row.family == family && row.aType == aType)
      return &row;
  return nullptr;
}

MmaFamilyKind nativeFamily(ArchKind arch) {
  switch (arch) {
  case ArchKind::SM80:
    return MmaFamilyKind::MmaSync;
  case ArchKind::SM90a:
    return MmaFamilyKind::Wgmma;
  case ArchKind::SM100a:
    return MmaFamilyKind::Tcgen05;
  }
  return MmaFamilyKind::MmaSync;
}

std::optional<InstrName> parseInstrName(llvm::StringRef text) {
  for (MmaFamilyKind family :
       {MmaFamilyKind::MmaSync, MmaFamilyKind::Wgmma, MmaFamilyKind::Tcgen05}) {
    llvm::StringRef prefix = familyName(family);
    llvm::StringRef rest = text;
    if (!rest.consume_front(prefix) || !rest.consume_front(".m"))
      continue;
    unsigned m, n, k;
    size_t nPos = rest.find('n');
    if (nPos == llvm::StringRef::npos ||
        rest.substr(0, nPos).getAsInteger(10, m))
      return std::nullopt;
    rest = rest.drop_front(nPos + 1);
    size_t kPos = rest.find('k');
    if (kPos == llvm::StringRef::npos ||
        rest.substr(0, kPos).getAsInteger(10, n) ||
        rest.drop_front(kPos + 1).getAsInteger(10, k))
      return std::nullopt;
    if (m == 0 || n == 0 || k == 0)
      return std::nullopt;
    return InstrName{family, m, n, k};
  }
  return std::nullopt;
}

std::string formatInstrName(const InstrName &name) {
  return (familyName(name.family) + ".m" + llvm::Twine(name.m) + "n" +
          llvm::Twine(name.n) + "k" + llvm::Twine(name.k))
      .str();
}

std::string ptxSpelling(const InstrInfo &row, unsigned n) {
  std::string shape = ("m" + llvm::Twine(row.m) + "n" + llvm::Twine(n) + "k" +
                       llvm::Twine(row.k))
                          .str();
  std::string a = dtypeInfo(row.aType).ptxName.str();
  std::string b = dtypeInfo(row.bType).ptxName.str();
  std::string c = dtypeInfo(row.accType).ptxName.str();
  switch (row.family) {
  case MmaFamilyKind::MmaSync:
    return "mma.sync.aligned." + shape + ".row.col." + c + "." + a + "." + b +
           "." + c;
  case MmaFamilyKind::Wgmma:
    return "wgmma.mma_async.sync.aligned." + shape + "." + c + "." + a + "." +
           b;
  case MmaFamilyKind::Tcgen05:
    return "tcgen05.mma.cta_group::" + std::to_string(row.ctaGroup) + "." +
           row.ptxKind.str();
  }
  return "";
}

InstrLookup lookupInstr(const InstrName &name, ArchKind arch, DTypeKind aType,
                        DTypeKind bType, DTypeKind accType, unsigned ctaGroup) {
  InstrLookup result;
  std::string family = familyName(name.family).str();
  std::vector<const InstrInfo *> rows;
  for (const InstrInfo &row : InstrTable)
    if (row.family == name.family && row.arch == arch)
      rows.push_back(&row);
  if (rows.empty()) {
    std::string native = familyName(nativeFamily(arch)).str();
    for (const InstrInfo &row : InstrTable)
      if (row.family == name.family) {
        result.error = family + " is issued on " +
                       archInfo(row.arch).name.str() + ", not on " +
                       archInfo(arch).name.str() + "; " +
                       archInfo(arch).name.str() + " uses " + native;
        return result;
      }
    result.error = "no " + family + " instruction is known";
    return result;
  }
  // Operand types first: they narrow the rows the most.
  std::vector<const InstrInfo *> typed;
  std::set<std::string> legalA, legalAcc;
  for (const InstrInfo *row : rows) {
    legalA.insert(typeName(row->aType));
    if (row->aType == aType && row->bType == bType) {
      legalAcc.insert(typeName(row->accType));
      if (row->accType == accType)
        typed.push_back(row);
    }
  }
  if (typed.empty()) {
    if (legalAcc.empty())
      result.error = family + " on " + archInfo(arch).name.str() + " has no " +
                     typeName(aType) + " x " + typeName(bType) +
                     " form; legal A types: " + joinSet(legalA);
    else
      result.error = family + " has no " + typeName(aType) + " x " +
                     typeName(bType) + " -> " + typeName(accType) +
                     " form; legal accumulators: " + joinSet(legalAcc);
    return result;
  }
  std::vector<const InstrInfo *> shaped;
  std::set<std::string> legalMK;
  for (const InstrInfo *row : typed) {
    legalMK.insert(
        ("M = " + llvm::Twine(row->m) + " with K = " + llvm::Twine(row->k))
            .str());
    if (row->m == name.m && row->k == name.k)
      shaped.push_back(row);
  }
  if (shaped.empty()) {
    result.error = formatInstrName(name) + " does not exist for " +
                   typeName(aType) + "; " + family + " takes " +
                   joinSet(legalMK);
    return result;
  }
  // The asked-for .cta_group first, where the shape has a row of it.
  if (ctaGroup != 0 && llvm::any_of(shaped, [&](const InstrInfo *row) {
        return row->ctaGroup == ctaGroup;
      }))
    llvm::erase_if(shaped, [&](const InstrInfo *row) {
      return row->ctaGroup != ctaGroup;
    });
  for (const InstrInfo *row : shaped)
    if (row->allowsN(name.n)) {
      result.row = row;
      return result;
    }
  const InstrInfo *row = shaped.front();
  result.error =
      "N = " + std::to_string(name.n) + " is not legal for " + family +
      " with M = " + std::to_string(row->m) + "; N must be " +
      (row->nMin == row->nMax
           ? std::to_string(row->nMin)
           : std::to_string(row->nMin) + ".." + std::to_string(row->nMax) +
                 " in steps of " + std::to_string(row->nStep));
  return result;
}

} // namespace tilec
