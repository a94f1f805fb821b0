//===- compiler/LayoutPrint.cpp - What `print` statements print -----------===//
//
// `print L` goes through the layout expression language (ir/layout/LayoutExpr.h)
// and prints LayoutValue::str(), the line `tilec layout` prints.
// `print descriptor(L, wgmma|tcgen05, mma(MN, K)[, T][, K|MN])` derives the
// descriptor of L's first MMA subtile (ir/arch/DescriptorDerivation.h) and prints
// it with the formatter `tilec desc` uses (ir/arch/DescriptorReport.h). wgmma is
// sm_90a, tcgen05 sm_100a; the element type T defaults to the one atom type
// named in L's text (`K_SW128<bf16>`), the majorness to the mode of L with
// stride 1.
//
//===----------------------------------------------------------------------===//
#include "compiler/LayoutPrint.h"

#include "ir/arch/DescriptorReport.h"
#include "ir/layout/LayoutExpr.h"
#include "ir/layout/SmemTileFromLayout.h"

#include "llvm/ADT/SmallVector.h"

namespace tilec {

namespace {

/// \p text split at its top-level commas, each part with its 0-based column.
llvm::SmallVector<std::pair<llvm::StringRef, unsigned>>
splitArguments(llvm::StringRef text, unsigned column) {
  llvm::SmallVector<std::pair<llvm::StringRef, unsigned>> out;
  int depth = 0;
  size_t start = 0;
  auto push = [&](size_t end) {
    llvm::StringRef part = text.slice(start, end);
    size_t lead = part.size() - part.ltrim().size();
    out.push_back({part.trim(), unsigned(column + start + lead)});
  };
  for (size_t i = 0; i != text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '<')
      ++depth;
    else if (c == ')' || c == '>')
      --depth;
    else if (c == ',' && depth == 0) {
      push(i);
      start = i + 1;
    }
  }
  push(text.size());
  return out;
}

PrintResult error(unsigned column, const std::string &message) {
  PrintResult result;
  result.text = message;
  result.errorColumn = column;
  return result;
}

/// The element type named in an atom of \p text (`K_SW128<bf16>`), when
/// exactly one is named.
std::optional<DTypeKind> atomTypeOf(llvm::StringRef text) {
  std::optional<DTypeKind> found;
  for (size_t at = text.find('<'); at != llvm::StringRef::npos;
       at = text.find('<', at + 1)) {
    llvm::StringRef name = text.drop_front(at + 1).split('>').first.trim();
    std::optional<DTypeKind> t = parseDType(name);
    if (!t)
      continue;
    if (found && *found != *t)
      return std::nullopt;
    found = t;
  }
  return found;
}

PrintResult printDescriptor(llvm::StringRef expr) {
  llvm::StringRef text = expr.trim();
  unsigned lead = unsigned(expr.size() - expr.ltrim().size());
  if (!text.consume_front("descriptor") || !text.ltrim().starts_with("(") ||
      !text.rtrim().ends_with(")"))
    return error(lead, "expected descriptor(L, wgmma|tcgen05, mma(MN, K)"
                       "[, T][, K|MN])");
  unsigned open = unsigned(expr.find('('));
  llvm::StringRef inner = expr.slice(open + 1, expr.rfind(')'));
  auto args = splitArguments(inner, open + 1);
  if (args.size() < 3 || args.size() > 5)
    return error(lead, "descriptor takes 3 to 5 arguments (L, wgmma|tcgen05, "
                       "mma(MN, K)[, T][, K|MN]), not " +
                           std::to_string(args.size()));
  auto [layoutText, layoutColumn] = args[0];
  llvm::Expected<LayoutValue> value = evaluateLayoutExpr(layoutText);
  if (!value) {
    LayoutExprDiag diag = toLayoutExprDiag(value.takeError());
    return error(layoutColumn + diag.column, diag.message);
  }
  DerivationRequest req;
  if (args[1].first == "wgmma")
    req.arch = ArchKind::SM90a;
  else if (args[1].first == "tcgen05")
    req.arch = ArchKind::SM100a;
  else
    return error(args[1].second, "'" + args[1].first.str() +
                                     "' is not a descriptor kind; legal: "
                                     "wgmma (sm_90a), tcgen05 (sm_100a)");
  llvm::StringRef mma = args[2].first;
  if (!mma.consume_front("mma") || !mma.trim().starts_with("(") ||
      !mma.trim().ends_with(")"))
    return error(args[2].second,
                 "expected mma(MN, K), found '" + args[2].first.str() + "'");
  mma = mma.trim().drop_front().drop_back();
  auto [mnText, kText] = mma.split(',');
  if (mnText.trim().getAsInteger(10, req.mmaMN) ||
      kText.trim().getAsInteger(10, req.mmaK) || req.mmaMN <= 0 ||
      req.mmaK <= 0)
    return error(args[2].second, "expected mma(MN, K) with two positive "
                                 "integers, found '" +
                                     args[2].first.str() + "'");
  std::optional<DTypeKind> dtype = atomTypeOf(layoutText);
  std::optional<MajorKind> major;
  for (size_t i = 3; i < args.size(); ++i) {
    if (std::optional<MajorKind> m = parseMajor(args[i].first))
      major = m;
    else if (std::optional<DTypeKind> t = parseDType(args[i].first))
      dtype = t;
    else
      return error(args[i].second, "'" + args[i].first.str() +
                                       "' is neither an element type (" +
                                       listDTypeNames() +
                                       ") nor a majorness (K, MN)");
  }
  if (!dtype)
    return error(layoutColumn,
                 "the element type of this layout is not named by one atom; "
                 "give it: descriptor(L, " +
                     args[1].first.str() + ", " + args[2].first.str() +
                     ", bf16)");
  llvm::Expected<SmemTileLayout> tile = smemTileFromLayout(*value);
  if (!tile)
    return error(layoutColumn, llvm::toString(tile.takeError()));
  if (!major) {
    int64_t origin = tile->offset(0, 0);
    if (tile->kSize > 1 && tile->offset(0, 1) - origin == 1)
      major = MajorKind::K;
    else if (tile->mnSize > 1 && tile->offset(1, 0) - origin == 1)
      major = MajorKind::MN;
    else
      return error(layoutColumn, "neither mode of this layout has stride 1; "
                                 "give the majorness: descriptor(L, ..., K)");
  }
  req.dtype = *dtype;
  req.major = *major;
  llvm::Expected<DerivedDescriptor> d = deriveSmemDescriptor(*tile, req);
  if (!d)
    return error(layoutColumn, llvm::toString(d.takeError()));
  PrintResult result;
  result.ok = true;
  result.text = llvm::StringRef(formatSmemDescriptorReport(req, *tile, *d))
                    .rtrim('\n')
                    .str();
  return result;
}

} // namespace

PrintResult evaluatePrint(llvm::StringRef kind, llvm::StringRef expr) {
  if (kind == "descriptor")
    return printDescriptor(expr);
  PrintResult result;
  llvm::Expected<LayoutValue> value = evaluateLayoutExpr(expr);
  if (!value) {
    LayoutExprDiag diag = toLayoutExprDiag(value.takeError());
    result.text = diag.message;
    result.errorColumn = diag.column;
    return result;
  }
  result.ok = true;
  result.text = value->str();
  return result;
}

} // namespace tilec
