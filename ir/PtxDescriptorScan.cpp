//===- ir/PtxDescriptorScan.cpp - Find and decode descriptors in PTX ------===//
//
// A line-based scan, not a PTX parser: it tracks registers set by
// `mov.{b,u,s}{32,64} %r, IMM;` and `add.{s,u}{32,64} %r, %s, IMM;` within
// the text, and reads the descriptor operands of wgmma.mma_async (a-desc,
// b-desc after the accumulator list) and tcgen05.mma (a-desc, b-desc, idesc
// after the tensor-memory address).
//
//===----------------------------------------------------------------------===//
#include "ir/PtxDescriptorScan.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

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

std::vector<PtxDescriptorUse> scanPtxDescriptors(llvm::StringRef ptx,
                                                 std::optional<ArchKind> arch) {
  std::vector<PtxDescriptorUse> out;
  std::map<std::string, uint64_t> known;
  llvm::SmallVector<llvm::StringRef> lines;
  ptx.split(lines, '\n');
  for (unsigned n = 0; n != lines.size(); ++n) {
    llvm::StringRef line = lines[n];
    size_t comment = line.find("//");
    if (comment != llvm::StringRef::npos)
      line = line.take_front(comment);
    line = line.trim();
    if (line.consume_front(".target")) {
      for (llvm::StringRef word : llvm::split(line, ','))
        if (auto parsed = parseArch(word.trim()); parsed && !arch)
          arch = parsed;
      continue;
    }
    size_t semi = line.find(';');
    if (semi == llvm::StringRef::npos)
      continue;
    line = line.take_front(semi);
    auto [opcode, rest] = line.split(' ');
    rest = rest.trim();
    llvm::SmallVector<llvm::StringRef> ops = splitOperands(rest);
    auto valueOf = [&](llvm::StringRef op) -> std::optional<uint64_t> {
      if (auto it = known.find(op.str()); it != known.end())
        return it->second;
      return parseImmediate(op);
    };

    if ((opcode.starts_with("mov.b") || opcode.starts_with("mov.u") ||
         opcode.starts_with("mov.s")) &&
        ops.size() == 2) {
      if (auto v = parseImmediate(ops[1]))
        known[ops[0].str()] = *v;
      else if (auto it = known.find(ops[1].str()); it != known.end())
        known[ops[0].str()] = it->second;
      else
        known.erase(ops[0].str());
      continue;
    }
    if ((opcode.starts_with("add.s") || opcode.starts_with("add.u")) &&
        ops.size() == 3) {
      auto a = valueOf(ops[1]), b = valueOf(ops[2]);
      if (a && b)
        known[ops[0].str()] = *a + *b;
      else
        known.erase(ops[0].str());
      continue;
    }

    bool wgmma = opcode.starts_with("wgmma.mma_async");
    bool tcgen05 = opcode.starts_with("tcgen05.mma") &&
                   !opcode.starts_with("tcgen05.mma.ws");
    if (!wgmma && !tcgen05) {
      // Any other write to a register makes its value unknown.
      if (!ops.empty() && ops[0].starts_with("%"))
        known.erase(ops[0].str());
      continue;
    }
    auto add = [&](PtxDescriptorUse::RoleKind role, llvm::StringRef op,
                   std::optional<MmaKindKind> kind) {
      PtxDescriptorUse use;
      use.line = n + 1;
      use.role = role;
      use.operand = op.str();
      use.value = valueOf(op);
      if (!use.value)
        use.description = "not known statically";
      else if (role == PtxDescriptorUse::RoleKind::Instr)
        use.description =
            kind ? describeInstrDescriptor(uint32_t(*use.value), *kind)
                 : "unknown kind";
      else if (!arch || !hasSmemDescriptor(*arch))
        use.description = "no sm_90a/sm_100a .target";
      else
        use.description = describeSmemDescriptor(*use.value, *arch);
      out.push_back(std::move(use));
    };
    using R = PtxDescriptorUse::RoleKind;
    if (wgmma) {
      // d, a (desc or {regs}), b-desc, ...
      if (ops.size() < 3)
        continue;
      if (!ops[1].starts_with("{"))
        add(R::SmemA, ops[1], std::nullopt);
      add(R::SmemB, ops[2], std::nullopt);
      continue;
    }
    // tcgen05.mma[.sp].cta_group::N.kind::K [d], a, b, [sp,] idesc, ...
    std::optional<MmaKindKind> kind;
    size_t at = opcode.find(".kind::");
    if (at != llvm::StringRef::npos)
      kind = parseMmaKind(opcode.drop_front(at + 7).split('.').first);
    if (ops.size() < 4)
      continue;
    if (!ops[1].starts_with("["))
      add(R::SmemA, ops[1], kind);
    add(R::SmemB, ops[2], kind);
    bool sparse = opcode.contains(".sp.");
    unsigned idescAt = sparse ? 4 : 3;
    if (ops.size() > idescAt)
      add(R::Instr, ops[idescAt], kind);
  }
  return out;
}

} // namespace tilec
