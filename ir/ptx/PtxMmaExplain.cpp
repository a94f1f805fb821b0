//===- ir/ptx/PtxMmaExplain.cpp - What an MMA found in PTX reads, in words ----===//
//
// Nothing here decodes a descriptor by itself: the fields come from
// ir/arch/SmemDescriptor.h and ir/arch/InstrDescriptor.h (what `tilec desc` prints),
// the addresses from the walker of ir/arch/DescriptorDecoder.h and the layout
// from the matcher of ir/arch/DescriptorDerivation.h. The tensor-memory
// instructions are read from their PTX ISA definitions (section 9.7.16,
// "TensorCore 5th Generation Family Instructions").
//
//===----------------------------------------------------------------------===//
#include "ir/ptx/PtxMmaExplain.h"

#include "ir/arch/DescriptorDecoder.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace tilec {

std::pair<MmaOperandShape, MmaOperandShape>
tcgen05OperandShapes(const InstrDescriptorSpec &s, unsigned ctaGroup) {
  unsigned split = ctaGroup == 2 ? 2 : 1;
  MmaOperandShape a{'A', s.aType, s.aMajor, s.m / split,
                    256 / dtypeBits(s.aType)};
  MmaOperandShape b{'B', s.bType, s.bMajor, s.n / split,
                    256 / dtypeBits(s.bType)};
  return {a, b};
}

DerivationRequest derivationRequestFor(const MmaOperandShape &shape,
                                       ArchKind arch) {
  DerivationRequest req;
  req.arch = arch;
  req.dtype = shape.dtype;
  req.major = shape.major;
  req.mmaMN = shape.mn;
  req.mmaK = shape.k;
  return req;
}

std::string describeEncodedOperand(uint64_t desc, ArchKind arch,
                                   const MmaOperandShape &shape) {
  desc &= ~uint64_t(0x3FFF); // The layout does not depend on the start.
  std::string what = llvm::formatv("{0} {1}x{2} {3} {4}-major", shape.role,
                                   shape.mn, shape.k,
                                   dtypeInfo(shape.dtype).name,
                                   majorName(shape.major))
                         .str();
  llvm::Expected<SmemDescriptorFields> f = decodeSmemDescriptor(desc, arch);
  if (!f)
    return what + ": not walked: " + llvm::toString(f.takeError());
  unsigned bits = dtypeBits(shape.dtype);
  if (bits % 8 != 0 || 128 % bits != 0)
    return what + ": not walked (" + std::to_string(bits) +
           "-bit elements)";
  unsigned e = bits / 8;
  const SwizzleInfo &sw = swizzleInfo(f->swizzle);
  bool swizzled = f->swizzle != SwizzleKind::None;
  // A K-major swizzled operand is walked over its whole swizzle row, so that
  // the matcher sees whole atoms; the instruction reads its first K.
  unsigned kTile = shape.major == MajorKind::K && swizzled
                       ? std::max(shape.k, sw.bytes / e)
                       : shape.k;
  llvm::Expected<OperandAddresses> walked = decodeOperandAddresses(
      desc, arch, shape.dtype, shape.major, shape.mn, kTile);
  if (!walked)
    return what + ": not walked: " + llvm::toString(walked.takeError());
  // The walker's addresses carry the hardware swizzle, an involution on
  // addresses; undone, they are the element offsets the matcher reads, with
  // the byte-level Swizzle<B,4,3> as Swizzle<B, 4 - log2(e), 3> on elements.
  SmemTileLayout tile;
  tile.mnSize = shape.mn;
  tile.kSize = kTile;
  SwizzleKind mode = f->swizzle;
  tile.offset = [addresses = std::move(*walked), mode, e](int64_t mn,
                                                          int64_t k) {
    return int64_t(applyHardwareSwizzle(addresses.at(mn, k), mode) / e);
  };
  tile.swizzleB = sw.swizzleBits;
  tile.swizzleM = 4 - llvm::Log2_32(e);
  tile.swizzleS = 3;
  DerivationRequest req = derivationRequestFor(shape, arch);
  llvm::Expected<DerivedDescriptor> d = deriveSmemDescriptor(tile, req);
  if (!d)
    return what + ": the addresses it reads match no canonical layout: " +
           llvm::toString(d.takeError());
  std::string layout = d->canonicalLayout;
  if (swizzled)
    layout = llvm::formatv("Sw<{0},{1},3> o {2}", tile.swizzleB,
                           tile.swizzleM, layout)
                 .str();
  std::string out =
      llvm::formatv("{0} = {1} elements from the start; canonical {2} with "
                    "T={3}{4}",
                    what, layout, d->canonicalTemplate, d->t,
                    swizzled ? ", u=" + std::to_string(sw.bytes / 16) : "")
          .str();
  // Swizzled K-major operands do not read LBO; the derivation writes 16.
  uint64_t mask = ~uint64_t(0);
  if (shape.major == MajorKind::K && swizzled)
    for (const DescFieldInfo &field : smemDescriptorFields(arch))
      if (field.field == DescFieldKind::LeadingByteOffset)
        mask &= ~(((uint64_t(1) << field.width) - 1) << field.lowBit);
  if ((d->desc & mask) == (desc & mask))
    out += "; re-derived from the walk: the same descriptor";
  else
    out += "; re-derived from the walk: " + formatHex64(d->desc) +
           ", which differs";
  return out;
}

std::string describeInstrDescriptorFields(uint32_t idesc,
                                          const InstrDescriptorSpec *s) {
  std::string out;
  uint32_t covered = 0;
  for (const InstrFieldInfo &field : instrDescriptorFields()) {
    uint32_t raw = extractInstrField(idesc, field);
    covered |= ((uint32_t(1) << field.width) - 1) << field.lowBit;
    std::string meaning;
    llvm::StringRef name = field.name;
    if (name == "sparse")
      meaning = raw ? "sparse" : "dense";
    else if (name == "saturate")
      meaning = raw ? "saturate" : "no saturate";
    else if (name == "max_shift")
      meaning = raw ? "shift (.ws only)" : "no shift";
    else if (name == "n_dim")
      meaning = "N=" + std::to_string(raw << 3);
    else if (name == "m_dim")
      meaning = "M=" + std::to_string(raw << 4);
    else if (name == "a_major" || name == "b_major")
      meaning = raw ? "MN-major, transposed" : "K-major";
    else if (name == "negate_a" || name == "negate_b")
      meaning = raw ? "negated" : "not negated";
    else if (s && name == "d_format")
      meaning = dtypeInfo(s->accType).name.str();
    else if (s && name == "a_format")
      meaning = dtypeInfo(s->aType).name.str();
    else if (s && name == "b_format")
      meaning = dtypeInfo(s->bType).name.str();
    out += (out.empty() ? "" : " ") + name.str() + "=" + std::to_string(raw) +
           (meaning.empty() ? "" : " (" + meaning + ")");
  }
  uint32_t reserved = idesc & ~covered;
  out += reserved ? llvm::formatv("; reserved bits set: {0:x8}", reserved).str()
                  : "; reserved bits 6, 23, 29 clear";
  return out;
}

namespace {

/// "512 columns" as a count or the operand as written.
std::string countText(llvm::StringRef op,
                      llvm::function_ref<std::string(llvm::StringRef)> known,
                      std::optional<unsigned> *value) {
  unsigned n;
  std::string text = known(op);
  if (!llvm::StringRef(text).getAsInteger(10, n))
    *value = n;
  return text;
}

/// The tcgen05.ld/st shape "32x32b", "16x64b", "16x128b", "16x256b" or
/// "16x32bx2": lanes, bits per lane and repetition.
struct LdShapeText {
  unsigned lanes = 0, bits = 0;
  bool halves = false; ///< 16x32bx2: two 16-lane halves.
};

std::optional<LdShapeText> parseLdShape(llvm::StringRef part) {
  LdShapeText s;
  auto [lanes, rest] = part.split('x');
  s.halves = rest.consume_back("bx2");
  if (lanes.getAsInteger(10, s.lanes) || (!s.halves && !rest.consume_back("b")))
    return std::nullopt;
  if (rest.getAsInteger(10, s.bits) || s.bits % 32 != 0)
    return std::nullopt;
  return s;
}

std::string describeLdSt(bool isLd, llvm::ArrayRef<llvm::StringRef> parts,
                         llvm::StringRef address,
                         llvm::function_ref<std::string(llvm::StringRef)>
                             known) {
  std::optional<LdShapeText> shape;
  unsigned num = 0;
  for (llvm::StringRef part : parts) {
    if (!shape)
      shape = parseLdShape(part);
    if (part.size() > 1 && part[0] == 'x')
      part.drop_front().getAsInteger(10, num);
  }
  if (!shape || !num)
    return "shape not recognized";
  unsigned columnsPerRep = shape->bits / 32;
  unsigned columns = columnsPerRep * num * (shape->halves ? 2 : 1);
  unsigned regs = shape->lanes * columnsPerRep * num *
                  (shape->halves ? 2 : 1) / 32;
  std::string addr = address.trim("[]").str();
  std::string at = known(addr);
  std::string out = llvm::formatv(
      "each warp {0} {1} lanes x {2} columns of 32-bit tensor memory ({3} "
      "register{4} a thread), warp w only in lanes 32 (w % 4) .. 32 (w % 4) "
      "+ 31",
      isLd ? "reads" : "writes", shape->lanes, columns, regs,
      regs == 1 ? "" : "s");
  if (shape->lanes == 32 && shape->bits == 32)
    out += "; thread t reads the address's lane + t, register j its "
           "column + j";
  out += "; address " + addr + (at != addr ? " = " + at : "") +
         " (lane in bits 31..16, column in 15..0)";
  return out;
}

} // namespace

std::optional<std::string> describeTcgen05Op(
    llvm::StringRef opcode, llvm::ArrayRef<llvm::StringRef> ops,
    llvm::function_ref<std::string(llvm::StringRef)> known) {
  if (!opcode.starts_with("tcgen05.") || opcode.starts_with("tcgen05.mma") ||
      opcode.starts_with("tcgen05.fence"))
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef> parts;
  opcode.split(parts, '.');
  bool pair = opcode.contains("cta_group::2");
  std::string ctas = pair ? " on both CTAs of the pair" : "";
  llvm::StringRef op = parts.size() > 1 ? parts[1] : "";
  if (op == "alloc" && ops.size() == 2) {
    std::optional<unsigned> n;
    std::string count = countText(ops[1], known, &n);
    std::string out = "allocates " + count + " columns x 128 lanes of 32-bit "
                                            "tensor memory" +
                      ctas;
    if (n && (*n < 32 || *n > 512 || !llvm::isPowerOf2_32(*n)))
      out += " (not legal: a power of two from 32 to 512)";
    else if (n)
      out += llvm::formatv(" ({0} KiB of 256)", *n * 128 * 4 / 1024).str();
    return out + "; writes its tensor-memory address to shared memory " +
           ops[0].str();
  }
  if (op == "dealloc" && ops.size() == 2) {
    std::optional<unsigned> n;
    std::string count = countText(ops[1], known, &n);
    return "frees the " + count + " columns at tensor-memory address " +
           ops[0].str() + ctas;
  }
  if (op == "relinquish_alloc_permit")
    return "this CTA" + std::string(pair ? " pair" : "") +
           " will allocate no more tensor memory";
  if (op.starts_with("wait::"))
    return "waits until every tcgen05." + op.drop_front(6).str() +
           " this thread issued has completed";
  if ((op == "ld" || op == "st") && ops.size() == 2)
    return describeLdSt(op == "ld", parts, op == "ld" ? ops[1] : ops[0],
                        known);
  if (op == "commit" && !ops.empty()) {
    std::string out = "one arrive on the mbarrier at " + ops[0].str();
    if (opcode.contains(".multicast::cluster") && ops.size() > 1)
      out += " of every CTA in cluster mask " + known(ops[1]);
    return out + " once every tcgen05.mma and tcgen05.cp this thread issued "
                 "before it has completed";
  }
  return std::nullopt;
}

} // namespace tilec
