//===- ir/arch/DescriptorReport.cpp - The text of a derived descriptor ---------===//
//
// The layout of `tilec desc`'s text output; the JSON form stays in the
// command, which owns the key names of its contract.
//
//===----------------------------------------------------------------------===//
#include "ir/arch/DescriptorReport.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace tilec {

std::string formatSmemDescriptorReport(const DerivationRequest &req,
                                       const SmemTileLayout &tile,
                                       const DerivedDescriptor &d) {
  ArchKind arch = req.arch;
  const SwizzleInfo &sw = swizzleInfo(d.fields.swizzle);
  unsigned code = layoutTypeCode(d.fields.swizzle, arch);
  std::string hex = formatHex64(d.desc);
  std::string units =
      llvm::formatv("T = {0}, u = {1}", d.t, sw.bytes / 16).str();
  bool sm100 = arch == ArchKind::SM100a;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0} shared-memory descriptor ({1}): {2} {3}-major, MMA "
                      "{4}x{5} of a {6}x{7} tile\n",
                      archInfo(arch).name, sm100 ? "tcgen05" : "wgmma",
                      dtypeInfo(req.dtype).name, majorName(req.major),
                      req.mmaMN, req.mmaK, tile.mnSize, tile.kSize);
  os << llvm::formatv("  layout_type    {0} (encoded {1})\n", sw.name, code);
  os << llvm::formatv("  start_address  {0} (encoded {1})\n",
                      d.fields.startAddress, d.fields.startAddress >> 4);
  os << llvm::formatv("  lbo            {0} bytes (encoded {1}){2}\n",
                      d.fields.lbo, d.fields.lbo >> 4,
                      req.major == MajorKind::K &&
                              d.fields.swizzle != SwizzleKind::None
                          ? ", unused by swizzled K-major"
                          : "");
  os << llvm::formatv("  sbo            {0} bytes (encoded {1})\n",
                      d.fields.sbo, d.fields.sbo >> 4);
  os << llvm::formatv("  base_offset    {0}\n", d.fields.baseOffset);
  if (sm100) {
    os << llvm::formatv("  version        {0}\n", d.fields.version);
    os << llvm::formatv("  lbo_mode       {0} (relative)\n", d.fields.lboMode);
  }
  os << "  desc           " << hex << "\n";
  os << "  canonical      " << d.canonicalTemplate << ", " << units << "\n";
  os << "                 = " << d.canonicalLayout << " (elements)\n";
  os << "subtile start offsets in bytes from subtile (0,0), m down, k "
        "across:\n";
  size_t width = 1;
  for (const auto &row : d.subtileOffsets)
    for (uint64_t v : row)
      width = std::max(width, std::to_string(v).size());
  width += 1;
  auto cell = [&](const std::string &text) {
    os.indent(width > text.size() ? width - text.size() : 0) << text;
  };
  os << "  m\\k";
  for (size_t k = 0; k != d.subtileOffsets[0].size(); ++k)
    cell(std::to_string(k));
  os << "\n";
  for (size_t m = 0; m != d.subtileOffsets.size(); ++m) {
    std::string label = std::to_string(m);
    os << "  " << std::string(label.size() < 3 ? 3 - label.size() : 0, ' ')
       << label;
    for (uint64_t v : d.subtileOffsets[m])
      cell(std::to_string(v));
    os << "\n";
  }
  return text;
}

} // namespace tilec
