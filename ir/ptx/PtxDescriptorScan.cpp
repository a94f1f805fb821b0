//===- ir/ptx/PtxDescriptorScan.cpp - Find and decode descriptors in PTX ------===//
//
// A line-based scan, not a PTX parser: within each function it follows the
// registers written exactly once (mov, cvt, add, or, and, xor, shl, shr of
// registers and immediates) as `constant + run-time part under a mask`, and
// reads the descriptor operands of wgmma.mma_async (a-desc, b-desc after the
// accumulator list) and tcgen05.mma (a-desc, b-desc, idesc after the
// tensor-memory address). A register written twice (a loop-carried value,
// a predicated write) is not known: PTX is not SSA.
//
//===----------------------------------------------------------------------===//
#include "ir/ptx/PtxDescriptorScan.h"

#include "ir/arch/DescriptorDerivation.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <utility>

namespace tilec {

namespace {

std::optional<uint64_t> parseImmediate(llvm::StringRef text) {
  text = text.trim();
  bool negative = text.consume_front("-");
  uint64_t value;
  if (text.starts_with_insensitive("0x")) {
    text = text.drop_front(2);
    if (text.ends_with("U") || text.ends_with("u"))
      text = text.drop_back();
    if (text.getAsInteger(16, value))
      return std::nullopt;
  } else if (text.getAsInteger(10, value)) {
    return std::nullopt;
  }
  return negative ? uint64_t(0) - value : value;
}

/// Operands of an instruction line: the text after the opcode up to ';',
/// split at top-level commas ({...} and [...] kept whole).
llvm::SmallVector<llvm::StringRef> splitOperands(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i != text.size(); ++i) {
    char c = text[i];
    if (c == '{' || c == '[')
      ++depth;
    else if (c == '}' || c == ']')
      --depth;
    else if (c == ',' && depth == 0) {
      out.push_back(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (start < text.size())
    out.push_back(text.drop_front(start).trim());
  return out;
}

} // namespace

std::string describeSmemDescriptor(uint64_t desc, ArchKind arch) {
  llvm::Expected<SmemDescriptorFields> f = decodeSmemDescriptor(desc, arch);
  if (!f)
    return "undecodable: " + llvm::toString(f.takeError());
  std::string swizzle = f->swizzle128Atom32
                            ? "SW128_32B_ATOM"
                            : swizzleInfo(f->swizzle).name.str();
  std::string out =
      llvm::formatv("{0} start={1} LBO={2} SBO={3} "
                    "base_offset={4}",
                    swizzle, f->startAddress, f->lbo, f->sbo, f->baseOffset)
          .str();
  if (arch == ArchKind::SM100a)
    out += llvm::formatv(" version={0} lbo_mode={1}", f->version, f->lboMode)
               .str();
  return out;
}

std::string describeInstrDescriptor(uint32_t idesc, MmaKindKind kind) {
  llvm::Expected<InstrDescriptorSpec> s = decodeInstrDescriptor(idesc, kind);
  if (!s)
    return "undecodable: " + llvm::toString(s.takeError());
  return llvm::formatv("kind::{0} {1} x {2} -> {3} M={4} N={5} A:{6} B:{7}{8}"
                       "{9}",
                       mmaKindName(kind), dtypeInfo(s->aType).name,
                       dtypeInfo(s->bType).name, dtypeInfo(s->accType).name,
                       s->m, s->n, majorName(s->aMajor), majorName(s->bMajor),
                       s->negateA ? " -A" : "", s->negateB ? " -B" : "")
      .str();
}

namespace {

uint64_t widthMask(unsigned bits) {
  return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}

/// The bit width of a PTX type suffix: "b64" -> 64, "u32" -> 32; 64 when
/// there is none.
unsigned typeBits(llvm::StringRef type) {
  unsigned bits;
  if (type.size() > 1 && !type.drop_front().getAsInteger(10, bits) &&
      (bits == 8 || bits == 16 || bits == 32 || bits == 64))
    return bits;
  return 64;
}

/// The smallest all-ones mask covering \p v.
uint64_t fillMask(uint64_t v) {
  for (unsigned s = 1; s < 64; s <<= 1)
    v |= v >> s;
  return v;
}

PtxPartialValue unknownValue(unsigned bits) { return {0, widthMask(bits)}; }

/// One line of PTX split into its parts; empty opcode for anything that is
/// not an instruction.
struct PtxLine {
  bool predicated = false;
  llvm::StringRef opcode;
  llvm::SmallVector<llvm::StringRef> ops;
};

PtxLine splitLine(llvm::StringRef line) {
  PtxLine out;
  size_t comment = line.find("//");
  if (comment != llvm::StringRef::npos)
    line = line.take_front(comment);
  line = line.trim();
  size_t semi = line.find(';');
  if (semi == llvm::StringRef::npos)
    return out;
  line = line.take_front(semi).trim();
  if (line.starts_with("@")) {
    out.predicated = true;
    line = line.split(' ').second.trim();
  }
  auto [opcode, rest] = line.split(' ');
  opcode = opcode.split('\t').first;
  if (opcode.starts_with("."))
    return out; // .reg, .shared, ... declarations
  out.opcode = opcode;
  out.ops = splitOperands(line.drop_front(opcode.size()).trim());
  return out;
}

bool isRegister(llvm::StringRef op) { return op.starts_with("%"); }

bool startsFunction(llvm::StringRef line) {
  line = line.take_front(line.find("//")).trim();
  return line.contains(".entry") || line.starts_with(".func") ||
         line.contains(" .func");
}

/// The value an instruction writes, from its operands' values.
PtxPartialValue evaluate(
    const PtxLine &in,
    llvm::function_ref<PtxPartialValue(llvm::StringRef, unsigned)> valueOf) {
  llvm::StringRef opcode = in.opcode;
  llvm::SmallVector<llvm::StringRef> parts;
  opcode.split(parts, '.');
  unsigned bits = typeBits(parts.back());
  uint64_t w = widthMask(bits);
  llvm::StringRef op = parts.front();
  auto a = [&](unsigned i, unsigned b) { return valueOf(in.ops[i], b); };
  if (op == "mov" && in.ops.size() == 2)
    return a(1, bits);
  if (op == "cvt" && parts.size() >= 3 && in.ops.size() == 2 &&
      !parts[parts.size() - 2].starts_with("f") &&
      !parts.back().starts_with("f")) {
    unsigned dst = typeBits(parts[parts.size() - 2]);
    unsigned src = typeBits(parts.back());
    PtxPartialValue v = a(1, src);
    uint64_t sm = widthMask(src);
    // Zero extension (or a truncation) keeps the parts when nothing can
    // reach the sign bit of a signed source.
    bool signExtends = parts[parts.size() - 2].starts_with("s") && dst > src;
    uint64_t top = uint64_t(1) << (src - 1);
    if ((v.constant & v.unknownMask) == 0 &&
        !(signExtends && ((v.constant | v.unknownMask) & top)))
      return {v.constant & sm & widthMask(dst),
              v.unknownMask & sm & widthMask(dst)};
    return unknownValue(dst);
  }
  if (op == "bfe" && parts[1].starts_with("u") && in.ops.size() == 4) {
    // Unsigned bit-field extract: (a >> pos) & (2^len - 1).
    PtxPartialValue x = a(1, bits), pos = a(2, 32), len = a(3, 32);
    if (!pos.isKnown() || !len.isKnown() || pos.constant >= bits ||
        (x.constant & x.unknownMask))
      return unknownValue(bits);
    uint64_t field = widthMask(unsigned(std::min<uint64_t>(len.constant, 64)));
    unsigned n = unsigned(pos.constant);
    return {(x.constant >> n) & field, (x.unknownMask >> n) & field};
  }
  if (in.ops.size() != 3)
    return unknownValue(bits);
  if (op == "add" && (parts[1].starts_with("s") || parts[1].starts_with("u"))) {
    PtxPartialValue x = a(1, bits), y = a(2, bits);
    uint64_t m = x.unknownMask | y.unknownMask;
    if (x.unknownMask && y.unknownMask)
      m = fillMask(x.unknownMask + y.unknownMask);
    uint64_t c = (x.constant + y.constant) & w;
    // No wrap-around: constant + u must stay within the width.
    if (m && (m & w) != m)
      return unknownValue(bits);
    if (m && c > w - m)
      return unknownValue(bits);
    return {c, m};
  }
  if (op == "or" || op == "and" || op == "xor") {
    PtxPartialValue x = a(1, bits), y = a(2, bits);
    if (x.isKnown() && y.isKnown())
      return {(op == "or"    ? x.constant | y.constant
               : op == "and" ? x.constant & y.constant
                             : x.constant ^ y.constant) &
                  w,
              0};
    if (!y.isKnown())
      std::swap(x, y);
    if (!y.isKnown() || (x.constant & x.unknownMask))
      return op == "and" && y.isKnown() ? PtxPartialValue{0, y.constant & w}
                                        : unknownValue(bits);
    // x = c | u with c, u disjoint; y = k.
    uint64_t k = y.constant;
    if (op == "and")
      return {x.constant & k, x.unknownMask & k};
    if (k & x.unknownMask)
      return unknownValue(bits);
    return {op == "or" ? x.constant | k : x.constant ^ k, x.unknownMask};
  }
  if ((op == "shr" && !parts[1].starts_with("s")) || op == "shl") {
    PtxPartialValue x = a(1, bits), y = a(2, 32);
    if (!y.isKnown() || y.constant >= bits || (x.constant & x.unknownMask))
      return unknownValue(bits);
    unsigned n = unsigned(y.constant);
    if (op == "shr")
      return {x.constant >> n, x.unknownMask >> n};
    return {(x.constant << n) & w, (x.unknownMask << n) & w};
  }
  return unknownValue(bits);
}

/// The advance A with dst = f(x) + A exactly, where the instruction computes
/// dst = f(x + A) from a run-time x: an add of an immediate starts one
/// (x + A), and it survives a right shift that drops no bit of A, an and
/// with a contiguous mask that keeps all of A and no bit below it (the
/// start-address field of a descriptor), a widening cvt, a mov, and an or
/// with a constant clear of the run-time bits. This is how an MN-major K
/// step (whole swizzle atoms, added to the smem address before it is
/// shifted into the descriptor) stays visible.
std::optional<uint64_t> advanceOf(
    const PtxLine &in,
    llvm::function_ref<PtxPartialValue(llvm::StringRef, unsigned)> valueOf,
    const std::map<std::string, uint64_t> &advances,
    const PtxPartialValue &result) {
  llvm::SmallVector<llvm::StringRef> parts;
  in.opcode.split(parts, '.');
  llvm::StringRef op = parts.front();
  auto of = [&](llvm::StringRef reg) -> std::optional<uint64_t> {
    if (auto it = advances.find(reg.str()); it != advances.end())
      return it->second;
    return std::nullopt;
  };
  auto imm = [&](llvm::StringRef text) -> std::optional<uint64_t> {
    PtxPartialValue v = valueOf(text, 64);
    return v.isKnown() ? std::optional<uint64_t>(v.constant) : std::nullopt;
  };
  if ((op == "mov" || (op == "cvt" && parts.size() >= 3 &&
                       parts[parts.size() - 2].starts_with("u"))) &&
      in.ops.size() == 2)
    return of(in.ops[1]);
  if (in.ops.size() != 3)
    return std::nullopt;
  if (op == "add" && !parts[1].starts_with("f")) {
    uint64_t typeMask = widthMask(typeBits(parts.back()));
    for (auto [reg, k] : {std::pair{in.ops[1], in.ops[2]},
                          std::pair{in.ops[2], in.ops[1]}}) {
      std::optional<uint64_t> c = imm(k);
      if (!c || !isRegister(reg) || valueOf(reg, 64).isKnown())
        continue;
      // An add the partial value absorbed (its constant holds c) passes
      // the advance on; one it could not starts or extends it.
      bool absorbed = (~result.unknownMask & typeMask) != 0;
      if (absorbed)
        return of(reg);
      return of(reg).value_or(0) + *c;
    }
    return std::nullopt;
  }
  std::optional<uint64_t> a = of(in.ops[1]);
  std::optional<uint64_t> k = imm(in.ops[2]);
  if (!a || !k)
    return std::nullopt;
  if (op == "shr" && !parts[1].starts_with("s") && *k < 64 &&
      (*a & ((uint64_t(1) << *k) - 1)) == 0)
    return *a >> *k;
  if (op == "and") {
    uint64_t low = *k & (0 - *k);
    bool contiguous = ((*k + low) & *k) == 0;
    if (*k && contiguous && (*a & ~*k) == 0 && *a % low == 0)
      return *a;
    return std::nullopt;
  }
  if (op == "or") {
    PtxPartialValue x = valueOf(in.ops[1], 64);
    if ((*k & (x.unknownMask | *a)) == 0)
      return *a;
  }
  return std::nullopt;
}

/// For a K-major SS wgmma operand: the bytes of K one instruction reads
/// (K = 32 bytes for every type); std::nullopt for an MN-major operand or
/// an unknown form.
std::optional<unsigned>
wgmmaKMajorStepBytes(llvm::StringRef opcode,
                     llvm::ArrayRef<llvm::StringRef> ops, bool operandA) {
  llvm::SmallVector<llvm::StringRef> parts;
  opcode.split(parts, '.');
  for (size_t i = 0; i + 3 < parts.size(); ++i) {
    llvm::StringRef shape = parts[i];
    if (shape.size() < 2 || shape[0] != 'm' || !llvm::isDigit(shape[1]))
      continue;
    unsigned k;
    if (shape.split('k').second.getAsInteger(10, k))
      return std::nullopt;
    llvm::StringRef type = parts[operandA ? i + 2 : i + 3];
    unsigned bits =
        type == "f16" || type == "bf16"                                    ? 16
        : type == "tf32"                                                   ? 32
        : type == "e4m3" || type == "e5m2" || type == "s8" || type == "u8" ? 8
                                                                           : 0;
    if (!bits)
      return std::nullopt;
    if (bits == 16) {
      size_t at = operandA ? 6 : 7;
      if (at >= ops.size() || ops[at] != "0")
        return std::nullopt;
    }
    return k * bits / 8;
  }
  return std::nullopt;
}

/// " (K step 1 in the 128-byte swizzle row + 8 x SBO)" for the
/// run-time-based start offset of a K-major swizzled operand whose
/// instruction reads \p kStepBytes of K; "" when it does not decompose so.
std::string describeKMajorOffset(const PtxPartialValue &value, ArchKind arch,
                                 unsigned kStepBytes) {
  uint64_t offset = (value.constant & 0x3FFF) << 4;
  llvm::Expected<SmemDescriptorFields> f =
      decodeSmemDescriptor(value.constant & ~uint64_t(0x3FFF), arch);
  if (!f) {
    llvm::consumeError(f.takeError());
    return "";
  }
  uint64_t row = swizzleInfo(f->swizzle).bytes;
  if (f->swizzle == SwizzleKind::None || f->swizzle128Atom32 || !kStepBytes ||
      !f->sbo || offset == 0)
    return "";
  uint64_t inRow = offset % row, rest = offset - inRow;
  if (inRow % kStepBytes || rest % f->sbo)
    return "";
  std::string out = llvm::formatv(" (K step {0} in the {1}-byte swizzle row",
                                  inRow / kStepBytes, row)
                        .str();
  if (rest)
    out += llvm::formatv(" + {0} x SBO", rest / f->sbo).str();
  return out + ")";
}

/// "m64n256k16 f32 += bf16 x bf16" from the opcode's parts after
/// "wgmma.mma_async.sync.aligned".
std::string describeWgmma(llvm::StringRef opcode,
                          llvm::ArrayRef<llvm::StringRef> ops) {
  llvm::SmallVector<llvm::StringRef> parts;
  opcode.split(parts, '.');
  llvm::StringRef shape, d, ta, tb;
  for (size_t i = 0; i != parts.size(); ++i)
    if (parts[i].size() > 1 && parts[i][0] == 'm' &&
        llvm::isDigit(parts[i][1]) && i + 3 < parts.size() + 0) {
      shape = parts[i];
      d = parts[i + 1];
      ta = parts[i + 2];
      tb = parts[i + 3];
      break;
    }
  std::string out = "wgmma " + shape.str() + " " + d.str() + " += " + ta.str() +
                    " x " + tb.str();
  bool rs = ops.size() > 1 && ops[1].starts_with("{");
  // SS: d, a, b, scale-d, scale-a, scale-b[, trans-a, trans-b];
  // RS: d, a, b, scale-d, scale-a, scale-b[, trans-b].
  bool hasTrans = ta == "f16" || ta == "bf16";
  auto major = [&](size_t at) -> std::string {
    if (!hasTrans)
      return "K-major";
    if (at >= ops.size())
      return "majorness not given";
    if (ops[at] == "0")
      return "K-major";
    if (ops[at] == "1")
      return "MN-major";
    return "trans " + ops[at].str();
  };
  if (rs)
    out += ", A in registers, B " + major(6);
  else
    out += ", A " + major(6) + ", B " + major(7);
  if (ops.size() > 3)
    out += ", scale-d " + ops[3].str();
  return out;
}

} // namespace

std::string describeSmemDescriptorLayout(uint64_t desc, ArchKind arch) {
  llvm::Expected<SmemDescriptorFields> f = decodeSmemDescriptor(desc, arch);
  if (!f)
    return "undecodable: " + llvm::toString(f.takeError());
  std::string swizzle = f->swizzle128Atom32
                            ? "SW128_32B_ATOM"
                            : swizzleInfo(f->swizzle).name.str();
  std::string out = llvm::formatv("{0} LBO={1} SBO={2} base_offset={3}",
                                  swizzle, f->lbo, f->sbo, f->baseOffset)
                        .str();
  if (arch == ArchKind::SM100a)
    out += llvm::formatv(" version={0} lbo_mode={1}", f->version, f->lboMode)
               .str();
  return out;
}

std::string describePartialSmemDescriptor(const PtxPartialValue &value,
                                          ArchKind arch,
                                          uint64_t runtimeAdvance) {
  if (value.isKnown())
    return describeSmemDescriptor(value.constant, arch);
  // The run-time part must stay inside the 14-bit start-address field
  // (16-byte units) and not carry out of it.
  const uint64_t field = 0x3FFF;
  uint64_t low = value.constant & field;
  if ((value.unknownMask & ~field) || low + value.unknownMask > field)
    return llvm::formatv("not known statically (constant bits {0:x16}, "
                         "run-time bits {1:x16} reach past the start "
                         "address field)",
                         value.constant, value.unknownMask)
        .str();
  uint64_t align = (value.unknownMask & (0 - value.unknownMask)) << 4;
  std::string out = describeSmemDescriptorLayout(value.constant & ~field, arch);
  if (llvm::StringRef(out).starts_with("undecodable"))
    return out;
  out += llvm::formatv(" start=<{0}-byte aligned run-time smem address>+{1}",
                       align, (low << 4) + runtimeAdvance)
             .str();
  return out;
}

namespace {

/// The scan behind scanPtxDescriptors and scanPtxTcgen05Notes.
void scanPtx(llvm::StringRef ptx, std::optional<ArchKind> arch,
             std::vector<PtxDescriptorUse> &out,
             std::vector<PtxInstructionNote> &notes) {
  llvm::SmallVector<llvm::StringRef> lines;
  ptx.split(lines, '\n');

  // Registers are function-scoped and PTX is not SSA: only a register
  // written exactly once in its function (unpredicated) is tracked.
  std::vector<unsigned> function(lines.size());
  std::map<std::pair<unsigned, std::string>, unsigned> writes;
  unsigned fn = 0;
  for (size_t n = 0; n != lines.size(); ++n) {
    if (startsFunction(lines[n]))
      ++fn;
    function[n] = fn;
    PtxLine in = splitLine(lines[n]);
    if (in.opcode.empty() || in.ops.empty() || !isRegister(in.ops[0]))
      continue;
    ++writes[{fn, in.ops[0].str()}];
    if (in.predicated)
      ++writes[{fn, in.ops[0].str()}];
  }

  std::map<std::string, PtxPartialValue> known;
  // Registers written once as another register plus an immediate (a
  // tensor-memory column offset): the root register and the sum.
  std::map<std::string, std::pair<std::string, int64_t>> offsets;
  // Registers holding f(x + A) for a run-time x, known to equal f(x) + A
  // (advanceOf): the advance A a descriptor's run-time part carries.
  std::map<std::string, uint64_t> advances;
  std::vector<std::string> tags;
  unsigned knownFn = 0;
  for (unsigned n = 0; n != lines.size(); ++n) {
    llvm::StringRef raw = lines[n].trim();
    if (function[n] != knownFn) {
      known.clear();
      offsets.clear();
      advances.clear();
      knownFn = function[n];
    }
    if (raw.starts_with("// begin inline asm")) {
      tags.clear();
      continue;
    }
    if (raw.consume_front("// tilec: ")) {
      tags.push_back(raw.str());
      continue;
    }
    if (raw.consume_front(".target")) {
      size_t comment = raw.find("//");
      if (comment != llvm::StringRef::npos)
        raw = raw.take_front(comment);
      for (llvm::StringRef word : llvm::split(raw, ','))
        if (auto parsed = parseArch(word.trim()); parsed && !arch)
          arch = parsed;
      continue;
    }
    PtxLine in = splitLine(lines[n]);
    if (in.opcode.empty())
      continue;
    auto valueOf = [&](llvm::StringRef op, unsigned bits) -> PtxPartialValue {
      if (auto it = known.find(op.str()); it != known.end())
        return it->second;
      if (auto imm = parseImmediate(op))
        return {*imm & widthMask(bits), 0};
      return unknownValue(bits);
    };

    // An operand as far as the PTX makes it known: "512", "%r42 + 32".
    auto knownText = [&](llvm::StringRef op) -> std::string {
      op = op.trim();
      PtxPartialValue v = valueOf(op, 64);
      if (v.isKnown())
        return std::to_string(v.constant);
      if (auto it = offsets.find(op.str()); it != offsets.end())
        return it->second.first + " + " + std::to_string(it->second.second);
      return op.str();
    };

    llvm::StringRef opcode = in.opcode;
    bool wgmma = opcode.starts_with("wgmma.mma_async");
    bool tcgen05 = opcode.starts_with("tcgen05.mma") &&
                   !opcode.starts_with("tcgen05.mma.ws");
    if (!wgmma && !tcgen05) {
      if (std::optional<std::string> note =
              describeTcgen05Op(opcode, in.ops, knownText))
        notes.push_back({n + 1, opcode.str() + ": " + *note});
      if (in.ops.empty() || !isRegister(in.ops[0]))
        continue;
      std::string dst = in.ops[0].str();
      auto count = writes.find({function[n], dst});
      if (count == writes.end() || count->second != 1) {
        known.erase(dst);
        offsets.erase(dst);
        advances.erase(dst);
        continue;
      }
      PtxPartialValue v = evaluate(in, valueOf);
      known[dst] = v;
      if (std::optional<uint64_t> a = advanceOf(in, valueOf, advances, v))
        advances[dst] = *a;
      else
        advances.erase(dst);
      if (opcode.starts_with("add.") && in.ops.size() == 3 && !v.isKnown())
        for (auto [reg, imm] : {std::pair{in.ops[1], in.ops[2]},
                                std::pair{in.ops[2], in.ops[1]}})
          if (std::optional<uint64_t> k = parseImmediate(imm);
              k && isRegister(reg)) {
            std::pair<std::string, int64_t> root{reg.str(), 0};
            if (auto it = offsets.find(reg.str()); it != offsets.end())
              root = it->second;
            root.second += int64_t(*k);
            offsets[dst] = root;
            break;
          }
      continue;
    }

    std::string instruction;
    std::optional<MmaKindKind> kind;
    std::optional<InstrDescriptorSpec> idescSpec;
    std::optional<std::pair<MmaOperandShape, MmaOperandShape>> shapes;
    bool sparse = opcode.contains(".sp.");
    unsigned idescAt = sparse ? 4 : 3;
    if (wgmma) {
      instruction = describeWgmma(opcode, in.ops);
    } else {
      size_t at = opcode.find(".kind::");
      if (at != llvm::StringRef::npos)
        kind = parseMmaKind(opcode.drop_front(at + 7).split('.').first);
      instruction = "tcgen05.mma" + opcode.drop_front(11).str();
      unsigned ctaGroup = opcode.contains("cta_group::2") ? 2 : 1;
      if (kind && in.ops.size() > idescAt) {
        PtxPartialValue iv = valueOf(in.ops[idescAt], 32);
        if (iv.isKnown()) {
          llvm::Expected<InstrDescriptorSpec> spec =
              decodeInstrDescriptor(uint32_t(iv.constant), *kind);
          if (spec)
            idescSpec = *spec;
          else
            llvm::consumeError(spec.takeError());
        }
      }
      if (idescSpec) {
        shapes = tcgen05OperandShapes(*idescSpec, ctaGroup);
        instruction += llvm::formatv(": D (tensor memory {0}) = A x B{1}, "
                                     "M={2} N={3} K={4}",
                                     in.ops[0],
                                     in.ops.size() > idescAt + 1
                                         ? " + (D if " +
                                               in.ops[idescAt + 1].str() + ")"
                                         : std::string(),
                                     idescSpec->m, idescSpec->n,
                                     shapes->first.k)
                           .str();
        if (ctaGroup == 2)
          instruction += llvm::formatv(" over the CTA pair (each CTA: A {0} "
                                       "rows, B {1} rows)",
                                       shapes->first.mn, shapes->second.mn)
                             .str();
        // PTX ISA 9.7.16.10.5, data path layout B.
        if (ctaGroup == 2 && idescSpec->m == 128)
          instruction += llvm::formatv("; D in data path layout B: each "
                                       "CTA's 64 rows, columns 0..{0} in "
                                       "lanes 0..63 and {1}..{2} in lanes "
                                       "64..127, both at D's columns 0..{0}",
                                       idescSpec->n / 2 - 1, idescSpec->n / 2,
                                       idescSpec->n - 1)
                             .str();
      }
    }
    std::vector<std::string> pending = std::move(tags);
    tags.clear();
    auto add = [&](PtxDescriptorUse::RoleKind role, llvm::StringRef op) {
      PtxDescriptorUse use;
      use.line = n + 1;
      use.role = role;
      use.operand = op.str();
      use.instruction = instruction;
      use.tags = pending;
      PtxPartialValue v =
          valueOf(op, role == PtxDescriptorUse::RoleKind::Instr ? 32 : 64);
      if (v.isKnown())
        use.value = v.constant;
      else if (v.unknownMask != widthMask(64) &&
               v.unknownMask != widthMask(32)) {
        use.partial = v;
        if (auto it = advances.find(op.str());
            it != advances.end() && role != PtxDescriptorUse::RoleKind::Instr)
          use.runtimeAdvance = it->second << 4;
      }
      if (!use.value && !use.partial)
        use.description = "not known statically";
      else if (role == PtxDescriptorUse::RoleKind::Instr)
        use.description =
            !use.value ? "not known statically"
            : kind     ? describeInstrDescriptor(uint32_t(*use.value), *kind)
                       : "unknown kind";
      else if (!arch || !hasSmemDescriptor(*arch))
        use.description = "no sm_90a/sm_100a .target";
      else if (use.value)
        use.description = describeSmemDescriptor(*use.value, *arch);
      else {
        use.description = describePartialSmemDescriptor(*use.partial, *arch,
                                                        use.runtimeAdvance);
        if (shapes)
          use.operandShape = role == PtxDescriptorUse::RoleKind::SmemA
                                 ? shapes->first
                                 : shapes->second;
        std::optional<unsigned> step =
            wgmma
                ? wgmmaKMajorStepBytes(
                      opcode, in.ops, role == PtxDescriptorUse::RoleKind::SmemA)
            : use.operandShape && use.operandShape->major == MajorKind::K
                ? std::optional<unsigned>(32)
                : std::nullopt;
        if (step && !llvm::StringRef(use.description).starts_with("not") &&
            !llvm::StringRef(use.description).starts_with("undecodable"))
          use.description += describeKMajorOffset(*use.partial, *arch, *step);
      }
      if (role != PtxDescriptorUse::RoleKind::Instr && use.value && shapes)
        use.operandShape = role == PtxDescriptorUse::RoleKind::SmemA
                               ? shapes->first
                               : shapes->second;
      llvm::StringRef roleName = role == PtxDescriptorUse::RoleKind::SmemA
                                     ? "a-desc"
                                 : role == PtxDescriptorUse::RoleKind::SmemB
                                     ? "b-desc"
                                     : "idesc";
      bool decoded =
          !llvm::StringRef(use.description).starts_with("not") &&
          !llvm::StringRef(use.description).starts_with("undecodable") &&
          !llvm::StringRef(use.description).starts_with("no sm_");
      if (use.operandShape && arch && decoded)
        use.details.push_back(
            roleName.str() + " " + use.operand + " reads " +
            describeEncodedOperand(use.value ? *use.value
                                             : use.partial->constant,
                                   *arch, *use.operandShape));
      if (role == PtxDescriptorUse::RoleKind::Instr && use.value && tcgen05)
        use.details.push_back(
            "idesc " + use.operand + " fields: " +
            describeInstrDescriptorFields(
                uint32_t(*use.value), idescSpec ? &*idescSpec : nullptr));
      out.push_back(std::move(use));
    };
    using R = PtxDescriptorUse::RoleKind;
    if (wgmma) {
      // d, a (desc or {regs}), b-desc, ...
      if (in.ops.size() < 3)
        continue;
      if (!in.ops[1].starts_with("{"))
        add(R::SmemA, in.ops[1]);
      add(R::SmemB, in.ops[2]);
      continue;
    }
    // tcgen05.mma[.sp].cta_group::N.kind::K [d], a, b, [sp,] idesc, ...
    if (in.ops.size() < 4)
      continue;
    if (!in.ops[1].starts_with("["))
      add(R::SmemA, in.ops[1]);
    add(R::SmemB, in.ops[2]);
    if (in.ops.size() > idescAt)
      add(R::Instr, in.ops[idescAt]);
  }
}

/// "a-desc %rd8 = 0x4000404000010000 + run-time bits 0x3fc0: SW128 ...".
std::string describeUse(const PtxDescriptorUse &use) {
  bool instr = use.role == PtxDescriptorUse::RoleKind::Instr;
  llvm::StringRef role = use.role == PtxDescriptorUse::RoleKind::SmemA ? "a-desc"
                         : use.role == PtxDescriptorUse::RoleKind::SmemB
                             ? "b-desc"
                             : "idesc";
  std::string value;
  if (use.value && instr)
    value = llvm::formatv(" = {0:x8}", *use.value).str();
  else if (use.value)
    value = llvm::formatv(" = {0:x16}", *use.value).str();
  else if (use.partial)
    value = llvm::formatv(" = {0:x16} + run-time bits {1:x}",
                          use.partial->constant, use.partial->unknownMask)
                .str();
  return role.str() + " " + use.operand + value + ": " + use.description;
}

} // namespace

std::vector<PtxDescriptorUse> scanPtxDescriptors(llvm::StringRef ptx,
                                                 std::optional<ArchKind> arch) {
  std::vector<PtxDescriptorUse> uses;
  std::vector<PtxInstructionNote> notes;
  scanPtx(ptx, arch, uses, notes);
  return uses;
}

std::vector<PtxInstructionNote>
scanPtxTcgen05Notes(llvm::StringRef ptx, std::optional<ArchKind> arch) {
  std::vector<PtxDescriptorUse> uses;
  std::vector<PtxInstructionNote> notes;
  scanPtx(ptx, arch, uses, notes);
  return notes;
}

std::string explainPtx(llvm::StringRef ptx, std::optional<ArchKind> arch,
                       unsigned *count) {
  std::vector<PtxDescriptorUse> uses;
  std::vector<PtxInstructionNote> notes;
  scanPtx(ptx, arch, uses, notes);
  llvm::SmallVector<llvm::StringRef> lines;
  ptx.split(lines, '\n');
  std::string out;
  size_t next = 0, nextNote = 0;
  unsigned instructions = 0;
  for (unsigned n = 0; n != lines.size(); ++n) {
    llvm::StringRef line = lines[n];
    llvm::StringRef indent = line.take_front(line.find_first_not_of(" \t"));
    for (; nextNote < notes.size() && notes[nextNote].line == n + 1;
         ++nextNote)
      out += indent.str() + "// explain: " + notes[nextNote].text + "\n";
    if (next < uses.size() && uses[next].line == n + 1) {
      out += indent.str() + "// explain: " + uses[next].instruction + "\n";
      ++instructions;
      std::vector<std::string> details;
      for (; next < uses.size() && uses[next].line == n + 1; ++next) {
        const PtxDescriptorUse &use = uses[next];
        llvm::StringRef role =
            use.role == PtxDescriptorUse::RoleKind::SmemA   ? "a-desc"
            : use.role == PtxDescriptorUse::RoleKind::SmemB ? "b-desc"
                                                            : "idesc";
        std::string where;
        // The subtile the annotation of codegen names for this operand.
        for (const std::string &tag : use.tags) {
          llvm::StringRef t(tag);
          if (!t.consume_front(role) || !t.consume_front(" "))
            continue;
          size_t at = t.find("subtile (");
          if (at != llvm::StringRef::npos)
            where = ", " + t.drop_front(at).split(')').first.str() + ")";
        }
        for (const std::string &tag : use.tags)
          if (llvm::StringRef(tag).starts_with("from ") &&
              use.role == PtxDescriptorUse::RoleKind::SmemA)
            where += ", " + tag;
        out += indent.str() + "// explain: " + describeUse(use) + where + "\n";
        details.insert(details.end(), use.details.begin(), use.details.end());
      }
      for (const std::string &detail : details)
        out += indent.str() + "// explain: " + detail + "\n";
    }
    out += line.str();
    if (n + 1 != lines.size())
      out += "\n";
  }
  if (count)
    *count = instructions;
  return out;
}

namespace {

/// ", subtile (m=0, k=1) of smem a LAYOUT at +32 B from the stage base; the
/// layout algebra derives the same high bits 0x..." for a run-time-based
/// smem descriptor, from the tile the layout algebra put the operand in;
/// the K step index goes to \p kStep, the number of K steps to \p kSteps.
std::string describeDerivedSubtile(const PtxDescriptorUse &use,
                                   const PtxAnnotateFacts::Operand &operand,
                                   ArchKind arch, unsigned *kStep,
                                   unsigned *kSteps) {
  if (!operand.tile || !use.partial || !use.operandShape)
    return "";
  const MmaOperandShape &shape = *use.operandShape;
  DerivationRequest req = derivationRequestFor(shape, arch);
  llvm::Expected<DerivedDescriptor> d = deriveSmemDescriptor(*operand.tile, req);
  if (!d)
    return "; " + operand.name + " " + operand.layout +
           " derives no descriptor for it: " + llvm::toString(d.takeError());
  const uint64_t field = 0x3FFF;
  uint64_t offset = ((use.partial->constant & field) << 4) + use.runtimeAdvance;
  std::string out;
  const char *mn = shape.role == 'A' ? "m" : "n";
  for (size_t i = 0; i != d->subtileOffsets.size() && out.empty(); ++i)
    for (size_t j = 0; j != d->subtileOffsets[i].size(); ++j)
      if (d->subtileOffsets[i][j] == offset) {
        out = llvm::formatv(", subtile ({0}={1}, k={2}) of {3} {4} at +{5} B "
                            "from the stage base",
                            mn, i, j, operand.name, operand.layout, offset)
                  .str();
        *kStep = j;
        *kSteps = d->subtileOffsets[i].size();
        break;
      }
  if (out.empty())
    out = llvm::formatv(", +{0} B is no subtile start of {1} {2}", offset,
                        operand.name, operand.layout)
              .str();
  uint64_t derived = d->desc & ~field, got = use.partial->constant & ~field;
  if (derived == got)
    return out + "; the layout algebra derives the same high bits " +
           formatHex64(derived);
  return out + "; the layout algebra derives high bits " +
         formatHex64(derived) + ", not " + formatHex64(got);
}

} // namespace

std::string annotatePtx(llvm::StringRef ptx, const PtxAnnotateFacts &facts,
                        unsigned *count) {
  std::vector<PtxDescriptorUse> uses;
  std::vector<PtxInstructionNote> notes;
  std::optional<ArchKind> arch;
  scanPtx(ptx, std::nullopt, uses, notes);
  llvm::SmallVector<llvm::StringRef> lines;
  ptx.split(lines, '\n');
  for (llvm::StringRef line : lines)
    if (line.trim().consume_front(".target"))
      for (llvm::StringRef word :
           llvm::split(line.trim().drop_front(7).split("//").first, ','))
        if (auto parsed = parseArch(word.trim()); parsed && !arch)
          arch = parsed;
  std::string out;
  size_t next = 0, nextNote = 0;
  unsigned annotated = 0;
  for (unsigned n = 0; n != lines.size(); ++n) {
    llvm::StringRef line = lines[n];
    std::string indent =
        line.take_front(line.find_first_not_of(" \t")).str() + "// tilec: ";
    for (; nextNote < notes.size() && notes[nextNote].line == n + 1;
         ++nextNote)
      out += indent + notes[nextNote].text + "\n";
    size_t first = next;
    while (next < uses.size() && uses[next].line == n + 1)
      ++next;
    if (first != next && uses[first].tags.empty()) {
      ++annotated;
      std::string body, details;
      unsigned kStep = 0, kSteps = 0;
      for (size_t u = first; u != next; ++u) {
        const PtxDescriptorUse &use = uses[u];
        std::string derived;
        if (arch && use.role != PtxDescriptorUse::RoleKind::Instr)
          derived = describeDerivedSubtile(
              use,
              use.role == PtxDescriptorUse::RoleKind::SmemA ? facts.a
                                                            : facts.b,
              *arch, &kStep, &kSteps);
        body += indent + describeUse(use) + derived + "\n";
        for (const std::string &detail : use.details)
          details += indent + detail + "\n";
      }
      std::string step =
          kSteps ? llvm::formatv(", K step {0} of {1}", kStep, kSteps).str()
                 : "";
      out += indent + uses[first].instruction + step + "\n" + body + details;
      if (!facts.source.empty())
        out += indent + "from " + facts.source + "\n";
    }
    out += line.str();
    if (n + 1 != lines.size())
      out += "\n";
  }
  if (count)
    *count = annotated;
  return out;
}

} // namespace tilec
