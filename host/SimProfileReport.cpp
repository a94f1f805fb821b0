//===- host/SimProfileReport.cpp - tilec run --profile ----------===//
#include "host/SimProfileReport.h"

#include "runtime/SimDriver.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>

using namespace tilec;

std::vector<std::string> tilec::ptxSourceLines(llvm::StringRef ptx,
                                               llvm::StringRef sourceName) {
  llvm::SmallVector<llvm::StringRef> lines;
  ptx.split(lines, '\n');
  // `.file N "name"` may come after the code (NVPTX writes it last).
  std::map<unsigned, std::string> files;
  for (llvm::StringRef line : lines) {
    llvm::StringRef t = line.trim();
    if (!t.consume_front(".file"))
      continue;
    unsigned index = 0;
    t = t.ltrim();
    if (t.consumeInteger(10, index))
      continue;
    t = t.ltrim();
    if (!t.consume_front("\""))
      continue;
    llvm::StringRef name = t.take_until([](char c) { return c == '"'; });
    files[index] = name == "<source>"
                       ? sourceName.str()
                       : llvm::sys::path::filename(name).str();
  }
  std::vector<std::string> out(lines.size());
  std::string current;
  for (size_t i = 0; i < lines.size(); ++i) {
    llvm::StringRef t = lines[i].trim();
    if (t.starts_with(".entry") || t.starts_with(".visible") ||
        t.starts_with(".func"))
      current.clear();
    if (t.consume_front(".loc")) {
      llvm::SmallVector<llvm::StringRef> words;
      llvm::SplitString(t, words, " \t,");
      unsigned file = 0, line = 0;
      current.clear();
      if (words.size() >= 2 && !words[0].getAsInteger(10, file) &&
          !words[1].getAsInteger(10, line) && line != 0 && files.count(file))
        current = files[file] + ":" + std::to_string(line);
    }
    out[i] = current;
  }
  return out;
}

namespace {

void printLine(llvm::raw_ostream &os, llvm::ArrayRef<llvm::StringRef> ptx,
               llvm::ArrayRef<std::string> source,
               const sim::SimLineProfile &l) {
  size_t at = l.ptxLine ? l.ptxLine - 1 : ptx.size();
  os << llvm::format("    ptx:%-6u %-20s %10llu execs", l.ptxLine,
                     at < source.size() && !source[at].empty()
                         ? source[at].c_str()
                         : "-",
                     (unsigned long long)l.executions);
  if (l.sharedAccesses)
    os << llvm::format("  %8llu wavefronts (ideal %llu, %.2fx)",
                       (unsigned long long)l.sharedWavefronts,
                       (unsigned long long)l.idealWavefronts,
                       l.idealWavefronts
                           ? double(l.sharedWavefronts) / l.idealWavefronts
                           : 0.0);
  os << "  " << (at < ptx.size() ? ptx[at].trim() : "") << "\n";
}

} // namespace

void tilec::printSimProfile(llvm::raw_ostream &os,
                            llvm::StringRef sourceName) {
  for (const rt::SimModuleProfile &module : rt::takeSimProfile()) {
    llvm::SmallVector<llvm::StringRef> ptx;
    llvm::StringRef(module.ptx).split(ptx, '\n');
    std::vector<std::string> source = ptxSourceLines(module.ptx, sourceName);
    std::vector<sim::SimLineProfile> shared, all = module.lines;
    for (const sim::SimLineProfile &l : module.lines)
      if (l.sharedAccesses)
        shared.push_back(l);
    auto excess = [](const sim::SimLineProfile &l) {
      return l.sharedWavefronts - std::min(l.sharedWavefronts,
                                           l.idealWavefronts);
    };
    std::stable_sort(shared.begin(), shared.end(),
                     [&](const auto &x, const auto &y) {
                       if (excess(x) != excess(y))
                         return excess(x) > excess(y);
                       return x.sharedWavefronts > y.sharedWavefronts;
                     });
    std::stable_sort(all.begin(), all.end(), [](const auto &x, const auto &y) {
      return x.executions > y.executions;
    });
    os << "  profile: shared-memory accesses by wavefronts beyond the ideal "
          "(bank conflicts)\n";
    for (size_t i = 0; i < shared.size() && i < 8; ++i)
      printLine(os, ptx, source, shared[i]);
    os << "  profile: most executed lines (warp-instructions)\n";
    for (size_t i = 0; i < all.size() && i < 8; ++i)
      printLine(os, ptx, source, all[i]);
  }
}
