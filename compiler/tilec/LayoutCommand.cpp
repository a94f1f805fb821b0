//===- compiler/tilec/LayoutCommand.cpp - `tilec layout` ------------------===//
//
// Evaluates a layout expression (ir/layout/LayoutExpr.h) and prints the result on
// one line in CuTe notation; --offsets adds the line L(0) .. L(size-1),
// --ascii the 2-D offset grid as CuTe's print_layout, --svg FILE a picture.
// A bad expression is a diagnostic with the expression and a caret under
// the failing column (exit 1).
//
//===----------------------------------------------------------------------===//
#include "compiler/tilec/Command.h"

#include "ir/arch/DType.h"
#include "ir/layout/LayoutExpr.h"
#include "ir/layout/LayoutRender.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace tilec;
namespace cl = llvm::cl;

static cl::SubCommand
    layoutCommand("layout",
                  "evaluate a layout expression and print it in CuTe notation");

static cl::opt<std::string> exprArg(cl::Positional, cl::Required,
                                    cl::desc("EXPR"), cl::sub(layoutCommand),
                                    cl::cat(tilecCategory()));
static cl::opt<bool> offsetsOpt("offsets",
                                cl::desc("also print L(i) for i = 0 .. size-1"),
                                cl::sub(layoutCommand),
                                cl::cat(tilecCategory()));
static cl::opt<bool> asciiOpt("ascii",
                              cl::desc("also print the 2-D offset grid"),
                              cl::sub(layoutCommand), cl::cat(tilecCategory()));
static cl::opt<std::string> svgOpt("svg", cl::value_desc("FILE"),
                                   cl::desc("draw the layout into FILE (SVG)"),
                                   cl::sub(layoutCommand),
                                   cl::cat(tilecCategory()));

/// The most offsets --offsets prints.
static constexpr int64_t kMaxOffsets = int64_t(1) << 20;

/// Reports \p message at 0-based \p column of the expression, with the
/// expression and a caret, through llvm::SourceMgr.
static int reportAt(unsigned column, const llvm::Twine &message) {
  llvm::SourceMgr sm;
  std::unique_ptr<llvm::MemoryBuffer> buf =
      llvm::MemoryBuffer::getMemBufferCopy(exprArg, "<expr>");
  const char *start = buf->getBufferStart();
  size_t size = buf->getBufferSize();
  sm.AddNewSourceBuffer(std::move(buf), llvm::SMLoc());
  llvm::SMLoc loc =
      llvm::SMLoc::getFromPointer(start + std::min<size_t>(column, size));
  sm.PrintMessage(llvm::errs(), loc, llvm::SourceMgr::DK_Error, message);
  return ExitDiagnostic;
}

static int reportError(const llvm::Twine &message) {
  llvm::errs() << "tilec layout: error: " << message << "\n";
  return ExitDiagnostic;
}

/// The element width named by the first atom `<T>` in the expression, for
/// the colours of the SVG (0 when there is none).
static unsigned elementBitsOf(llvm::StringRef expr) {
  // recast(L, FROM, TO) ends in units of TO bits.
  llvm::StringRef e = expr.trim();
  if (e.starts_with("recast(") && e.ends_with(")")) {
    llvm::StringRef args = e.drop_back();
    unsigned bits = 0;
    if (!args.rsplit(',').second.trim().getAsInteger(10, bits) && bits > 0 &&
        bits <= 4096)
      return bits;
  }
  for (size_t i = expr.find('<'); i != llvm::StringRef::npos;
       i = expr.find('<', i + 1)) {
    size_t end = expr.find('>', i);
    if (end == llvm::StringRef::npos)
      break;
    if (std::optional<DTypeKind> d = parseDType(expr.slice(i + 1, end).trim()))
      return dtypeBits(*d);
  }
  return 0;
}

static int runLayout() {
  llvm::Expected<LayoutValue> value = evaluateLayoutExpr(exprArg);
  if (!value) {
    LayoutExprDiag diag = toLayoutExprDiag(value.takeError());
    return reportAt(diag.column, diag.message);
  }
  llvm::outs() << value->str() << "\n";

  if (offsetsOpt) {
    std::vector<int64_t> offsets;
    int64_t size = 0;
    if (value->isLayout())
      size = value->getLayout().size();
    else if (value->isComposed())
      size = value->getComposed().size();
    else if (value->isIntTuple()) {
      size = 1;
      for (int64_t x : value->getIntTuple().leaves())
        if (x <= 0 || __builtin_mul_overflow(size, x, &size) ||
            size > kMaxOffsets)
          return reportError("--offsets: the shape " + value->str() +
                             " must have positive modes and at most " +
                             llvm::Twine(kMaxOffsets) + " elements");
    } else
      return reportError("--offsets needs a layout; give the swizzle a "
                         "domain, e.g. 'Sw<3,4,3> o 1024:1'");
    if (size > kMaxOffsets)
      return reportError("--offsets: the layout has " + llvm::Twine(size) +
                         " elements, more than the " +
                         llvm::Twine(kMaxOffsets) + " it prints");
    if (value->isLayout())
      offsets = value->getLayout().offsets();
    else if (value->isComposed())
      offsets = value->getComposed().offsets();
    else
      offsets = makeLayoutLeft(value->getIntTuple()).offsets();
    for (size_t i = 0; i < offsets.size(); ++i)
      llvm::outs() << (i ? " " : "") << offsets[i];
    llvm::outs() << "\n";
  }

  if (asciiOpt) {
    llvm::Expected<std::string> grid = renderAscii(*value);
    if (!grid)
      return reportError("--ascii: " + llvm::toString(grid.takeError()));
    llvm::outs() << *grid;
  }

  if (!svgOpt.empty()) {
    SvgOptions options;
    options.elementBits = elementBitsOf(exprArg);
    options.title = exprArg + "  =  " + value->str();
    llvm::Expected<std::string> svg = renderSvg(*value, options);
    if (!svg)
      return reportError("--svg: " + llvm::toString(svg.takeError()));
    std::error_code ec;
    llvm::raw_fd_ostream os(svgOpt, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return reportError("cannot write '" + svgOpt + "': " + ec.message());
    os << *svg;
  }
  return ExitSuccess;
}

static CommandRegistration registration(layoutCommand, runLayout);
