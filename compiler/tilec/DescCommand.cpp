//===- compiler/tilec/DescCommand.cpp - `tilec desc` ----------------------===//
//
// Prints the shared-memory matrix descriptor derived from a layout expression
// (every field decoded, the hex value, the canonical form it matched and the
// start-address offsets of all MMA subtiles), or with --idesc the tcgen05
// instruction descriptor, each field decoded. --json prints one JSON object.
// The contract is docs/cli.md.
//
//===----------------------------------------------------------------------===//
#include "compiler/tilec/Command.h"

#include "ir/arch/DescriptorDerivation.h"
#include "ir/arch/DescriptorReport.h"
#include "ir/arch/InstrDescriptor.h"
#include "ir/layout/LayoutExpr.h"
#include "ir/layout/SmemTileFromLayout.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace tilec {
namespace {

llvm::cl::SubCommand
    descCommand("desc",
                "derive and decode shared-memory and instruction descriptors");

llvm::cl::opt<std::string> archOpt("arch", llvm::cl::desc("sm_90a or sm_100a"),
                                   llvm::cl::value_desc("ARCH"),
                                   llvm::cl::sub(descCommand),
                                   llvm::cl::cat(tilecCategory()));
llvm::cl::opt<std::string> dtypeOpt("dtype", llvm::cl::desc("Element type"),
                                    llvm::cl::value_desc("T"),
                                    llvm::cl::sub(descCommand),
                                    llvm::cl::cat(tilecCategory()));
llvm::cl::opt<std::string> majorOpt("major", llvm::cl::desc("K or MN"),
                                    llvm::cl::sub(descCommand),
                                    llvm::cl::cat(tilecCategory()));
llvm::cl::opt<std::string>
    layoutOpt("layout", llvm::cl::desc("Shared-memory tile layout (MN, K)"),
              llvm::cl::value_desc("EXPR"), llvm::cl::sub(descCommand),
              llvm::cl::cat(tilecCategory()));
llvm::cl::opt<std::string> mmaOpt("mma",
                                  llvm::cl::desc("MMA operand shape MNxK"),
                                  llvm::cl::value_desc("MNxK"),
                                  llvm::cl::sub(descCommand),
                                  llvm::cl::cat(tilecCategory()));
llvm::cl::opt<std::string>
    baseOpt("base", llvm::cl::desc("Shared-memory byte address of the tile"),
            llvm::cl::value_desc("ADDR"), llvm::cl::init("0"),
            llvm::cl::sub(descCommand), llvm::cl::cat(tilecCategory()));
llvm::cl::opt<bool> jsonOpt("json", llvm::cl::desc("Print one JSON object"),
                            llvm::cl::sub(descCommand),
                            llvm::cl::cat(tilecCategory()));
llvm::cl::opt<bool>
    idescOpt("idesc", llvm::cl::desc("The tcgen05 instruction descriptor"),
             llvm::cl::sub(descCommand), llvm::cl::cat(tilecCategory()));
llvm::cl::opt<std::string> aTypeOpt("a-type", llvm::cl::desc("A type"),
                                    llvm::cl::value_desc("T"),
                                    llvm::cl::sub(descCommand),
                                    llvm::cl::cat(tilecCategory()));
llvm::cl::opt<std::string> bTypeOpt("b-type", llvm::cl::desc("B type"),
                                    llvm::cl::value_desc("T"),
                                    llvm::cl::sub(descCommand),
                                    llvm::cl::cat(tilecCategory()));
llvm::cl::opt<std::string> accOpt("acc", llvm::cl::desc("f16 or f32"),
                                  llvm::cl::sub(descCommand),
                                  llvm::cl::cat(tilecCategory()));
llvm::cl::opt<unsigned> mOpt("m", llvm::cl::desc("M"),
                             llvm::cl::sub(descCommand),
                             llvm::cl::cat(tilecCategory()));
llvm::cl::opt<unsigned> nOpt("n", llvm::cl::desc("N"),
                             llvm::cl::sub(descCommand),
                             llvm::cl::cat(tilecCategory()));
llvm::cl::opt<std::string> aMajorOpt("a-major", llvm::cl::desc("K or MN"),
                                     llvm::cl::init("K"),
                                     llvm::cl::sub(descCommand),
                                     llvm::cl::cat(tilecCategory()));
llvm::cl::opt<std::string> bMajorOpt("b-major", llvm::cl::desc("K or MN"),
                                     llvm::cl::init("K"),
                                     llvm::cl::sub(descCommand),
                                     llvm::cl::cat(tilecCategory()));
llvm::cl::opt<bool> negateAOpt("negate-a", llvm::cl::desc("Negate A"),
                               llvm::cl::sub(descCommand),
                               llvm::cl::cat(tilecCategory()));
llvm::cl::opt<bool> negateBOpt("negate-b", llvm::cl::desc("Negate B"),
                               llvm::cl::sub(descCommand),
                               llvm::cl::cat(tilecCategory()));

int usage(const llvm::Twine &message) {
  llvm::errs() << "tilec desc: " << message << "\n";
  return ExitUsage;
}

int diagnostic(const llvm::Twine &message) {
  llvm::errs() << "tilec desc: error: " << message << "\n";
  return ExitDiagnostic;
}

std::optional<DTypeKind> typeOption(const std::string &value, const char *flag,
                                    int &exit) {
  if (value.empty()) {
    exit = usage(llvm::formatv("--{0} is required", flag));
    return std::nullopt;
  }
  std::optional<DTypeKind> t = parseDType(value);
  if (!t)
    exit = usage(llvm::formatv("--{0} '{1}' is not an element type (legal: "
                               "{2})",
                               flag, value, listDTypeNames()));
  return t;
}

std::optional<MajorKind> majorOption(const std::string &value, const char *flag,
                                     int &exit) {
  std::optional<MajorKind> m = parseMajor(value);
  if (!m)
    exit = usage(llvm::formatv("--{0} '{1}' is not a majorness (legal: K, "
                               "MN)",
                               flag, value));
  return m;
}

const char *const FieldMeaningUnused = "";

int runInstrDescriptor(ArchKind arch) {
  int exit = 0;
  if (arch != ArchKind::SM100a)
    return usage("--idesc needs --arch sm_100a (tcgen05)");
  InstrDescriptorSpec spec;
  auto a = typeOption(aTypeOpt, "a-type", exit);
  if (!a)
    return exit;
  auto b = typeOption(bTypeOpt, "b-type", exit);
  if (!b)
    return exit;
  if (accOpt != "f16" && accOpt != "f32")
    return usage(llvm::formatv("--acc '{0}' is not an accumulator type "
                               "(legal: f16, f32)",
                               accOpt));
  if (!mOpt.getNumOccurrences() || !nOpt.getNumOccurrences())
    return usage("--m and --n are required");
  auto am = majorOption(aMajorOpt, "a-major", exit);
  if (!am)
    return exit;
  auto bm = majorOption(bMajorOpt, "b-major", exit);
  if (!bm)
    return exit;
  spec.aType = *a;
  spec.bType = *b;
  spec.accType = accOpt == "f16" ? DTypeKind::F16 : DTypeKind::F32;
  spec.m = mOpt;
  spec.n = nOpt;
  spec.aMajor = *am;
  spec.bMajor = *bm;
  spec.negateA = negateAOpt;
  spec.negateB = negateBOpt;
  llvm::Expected<uint32_t> idesc = encodeInstrDescriptor(spec);
  if (!idesc)
    return diagnostic(llvm::toString(idesc.takeError()));
  MmaKindKind kind = *mmaKindOf(spec.aType, spec.bType);
  std::string hex = llvm::formatv("{0:x8}", *idesc).str();

  auto meaning = [&](llvm::StringRef field, uint32_t raw) -> std::string {
    if (field == "d_format")
      return dtypeInfo(spec.accType).name.str();
    if (field == "a_format")
      return dtypeInfo(spec.aType).name.str();
    if (field == "b_format")
      return dtypeInfo(spec.bType).name.str();
    if (field == "a_major" || field == "b_major")
      return raw ? "MN" : "K";
    if (field == "n_dim")
      return llvm::formatv("N = {0}", raw << 3).str();
    if (field == "m_dim")
      return llvm::formatv("M = {0}", raw << 4).str();
    if (field == "sparse")
      return raw ? "sparse" : "dense";
    if (field == "negate_a" || field == "negate_b")
      return raw ? "negated" : "";
    return FieldMeaningUnused;
  };

  llvm::raw_ostream &os = llvm::outs();
  if (jsonOpt) {
    llvm::json::OStream j(os, 2);
    j.object([&] {
      j.attribute("arch", archInfo(arch).name);
      j.attribute("kind", mmaKindName(kind));
      j.attribute("idesc", hex);
      for (const InstrFieldInfo &f : instrDescriptorFields())
        j.attribute(f.name, int64_t(extractInstrField(*idesc, f)));
      j.attribute("a_type", dtypeInfo(spec.aType).name);
      j.attribute("b_type", dtypeInfo(spec.bType).name);
      j.attribute("acc_type", dtypeInfo(spec.accType).name);
      j.attribute("m", int64_t(spec.m));
      j.attribute("n", int64_t(spec.n));
    });
    os << "\n";
    return ExitSuccess;
  }
  os << llvm::formatv("tcgen05 instruction descriptor (sm_100a, kind::{0})\n",
                      mmaKindName(kind));
  os << llvm::formatv("  {0,-7} {1,-16} {2,5}  {3}\n", "bits", "field", "value",
                      "meaning");
  for (const InstrFieldInfo &f : instrDescriptorFields()) {
    std::string bits =
        f.width == 1
            ? std::to_string(f.lowBit)
            : llvm::formatv("{0}-{1}", f.lowBit, f.lowBit + f.width - 1).str();
    uint32_t raw = extractInstrField(*idesc, f);
    std::string line = llvm::formatv("  {0,-7} {1,-16} {2,5}  {3}", bits,
                                     f.name, raw, meaning(f.name, raw))
                           .str();
    os << llvm::StringRef(line).rtrim() << "\n";
  }
  os << "  idesc   " << hex << "\n";
  return ExitSuccess;
}

int runSmemDescriptor(ArchKind arch) {
  int exit = 0;
  auto dtype = typeOption(dtypeOpt, "dtype", exit);
  if (!dtype)
    return exit;
  if (majorOpt.empty())
    return usage("--major is required (K or MN)");
  auto major = majorOption(majorOpt, "major", exit);
  if (!major)
    return exit;
  if (layoutOpt.empty())
    return usage("--layout is required");
  if (mmaOpt.empty())
    return usage("--mma is required (MNxK, e.g. 64x16)");
  auto [mnText, kText] = llvm::StringRef(mmaOpt).split('x');
  int64_t mmaMN, mmaK;
  if (mnText.getAsInteger(10, mmaMN) || kText.getAsInteger(10, mmaK) ||
      mmaMN <= 0 || mmaK <= 0)
    return usage(llvm::formatv("--mma '{0}' is not MNxK (e.g. 64x16)", mmaOpt));
  uint64_t base;
  if (llvm::StringRef(baseOpt).getAsInteger(0, base))
    return usage(llvm::formatv("--base '{0}' is not an address", baseOpt));

  llvm::Expected<LayoutValue> value = evaluateLayoutExpr(layoutOpt);
  if (!value) {
    LayoutExprDiag diag = toLayoutExprDiag(value.takeError());
    llvm::errs() << "tilec desc: error: --layout:" << diag.column + 1 << ": "
                 << diag.message << "\n  " << layoutOpt << "\n  "
                 << std::string(diag.column, ' ') << "^\n";
    return ExitDiagnostic;
  }
  llvm::Expected<SmemTileLayout> tile = smemTileFromLayout(*value);
  if (!tile)
    return diagnostic(llvm::toString(tile.takeError()));
  DerivationRequest req{arch, *dtype, *major, mmaMN, mmaK, base};
  llvm::Expected<DerivedDescriptor> d = deriveSmemDescriptor(*tile, req);
  if (!d)
    return diagnostic(llvm::toString(d.takeError()));

  const SwizzleInfo &sw = swizzleInfo(d->fields.swizzle);
  unsigned code = layoutTypeCode(d->fields.swizzle, arch);
  std::string hex = formatHex64(d->desc);
  std::string units =
      llvm::formatv("T = {0}, u = {1}", d->t, sw.bytes / 16).str();
  bool sm100 = arch == ArchKind::SM100a;
  llvm::raw_ostream &os = llvm::outs();
  if (jsonOpt) {
    llvm::json::OStream j(os, 2);
    j.object([&] {
      j.attribute("arch", archInfo(arch).name);
      j.attribute("dtype", dtypeInfo(*dtype).name);
      j.attribute("major", majorName(*major));
      j.attributeArray("mma", [&] {
        j.value(mmaMN);
        j.value(mmaK);
      });
      j.attributeArray("tile", [&] {
        j.value(tile->mnSize);
        j.value(tile->kSize);
      });
      j.attribute("swizzle", sw.name);
      j.attribute("layout_type", int64_t(code));
      j.attribute("start_address", int64_t(d->fields.startAddress));
      j.attribute("start_address_encoded",
                  int64_t(d->fields.startAddress >> 4));
      j.attribute("lbo", int64_t(d->fields.lbo));
      j.attribute("lbo_encoded", int64_t(d->fields.lbo >> 4));
      j.attribute("sbo", int64_t(d->fields.sbo));
      j.attribute("sbo_encoded", int64_t(d->fields.sbo >> 4));
      j.attribute("base_offset", int64_t(d->fields.baseOffset));
      if (sm100) {
        j.attribute("version", int64_t(d->fields.version));
        j.attribute("lbo_mode", int64_t(d->fields.lboMode));
      }
      j.attribute("desc", hex);
      j.attribute("canonical", d->canonicalTemplate + " with " + units);
      j.attribute("canonical_layout", d->canonicalLayout);
      j.attributeArray("offsets", [&] {
        for (const auto &row : d->subtileOffsets)
          j.array([&] {
            for (uint64_t v : row)
              j.value(int64_t(v));
          });
      });
    });
    os << "\n";
    return ExitSuccess;
  }
  os << formatSmemDescriptorReport(req, *tile, *d);
  return ExitSuccess;
}

int runDesc() {
  if (archOpt.empty())
    return usage("--arch is required (sm_90a or sm_100a)");
  std::optional<ArchKind> arch = parseArch(archOpt);
  if (!arch || !hasSmemDescriptor(*arch))
    return usage(llvm::formatv("--arch '{0}' has no descriptors (legal: "
                               "sm_90a, sm_100a)",
                               archOpt));
  if (idescOpt)
    return runInstrDescriptor(*arch);
  return runSmemDescriptor(*arch);
}

CommandRegistration registration(descCommand, runDesc);

} // namespace
} // namespace tilec
