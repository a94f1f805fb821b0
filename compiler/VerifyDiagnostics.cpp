//===- compiler/VerifyDiagnostics.cpp - --verify-diagnostics --------------===//
#include "compiler/VerifyDiagnostics.h"

#include "llvm/ADT/StringExtras.h"

#include <vector>

namespace tilec {

namespace {

struct Expectation {
  DiagKind kind;
  unsigned line;
  std::string text;
  llvm::SMLoc loc; ///< Of the `expected-...` comment.
  bool matched = false;
};

const char *kindName(DiagKind kind) {
  switch (kind) {
  case DiagKind::Error:
    return "error";
  case DiagKind::Warning:
    return "warning";
  case DiagKind::Note:
    return "note";
  }
  return "diagnostic";
}

/// Finds every `expected-KIND[@[+-]N] {{text}}` in the buffer; reports
/// malformed ones.
std::vector<Expectation> collect(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                                 DiagnosticEngine &report) {
  std::vector<Expectation> out;
  llvm::StringRef buffer = sourceMgr.getMemoryBuffer(bufferId)->getBuffer();
  size_t pos = 0;
  while ((pos = buffer.find("expected-", pos)) != llvm::StringRef::npos) {
    llvm::StringRef rest = buffer.substr(pos + 9);
    const char *start = buffer.data() + pos;
    pos += 9;
    Expectation expect;
    expect.loc = llvm::SMLoc::getFromPointer(start);
    if (rest.consume_front("error"))
      expect.kind = DiagKind::Error;
    else if (rest.consume_front("warning"))
      expect.kind = DiagKind::Warning;
    else if (rest.consume_front("note"))
      expect.kind = DiagKind::Note;
    else
      continue;
    unsigned line = sourceMgr.getLineAndColumn(expect.loc, bufferId).first;
    if (rest.consume_front("@")) {
      bool minus = rest.consume_front("-");
      if (!minus)
        rest.consume_front("+");
      unsigned offset = 0;
      if (rest.consumeInteger(10, offset)) {
        report.error(expect.loc, "expected a line offset such as @+1 or @-2 "
                                 "after 'expected-...@'");
        continue;
      }
      if (minus && offset >= line) {
        report.error(expect.loc, "line offset points before the first line");
        continue;
      }
      line = minus ? line - offset : line + offset;
    }
    rest = rest.ltrim(" \t");
    size_t close = rest.find("}}");
    if (!rest.starts_with("{{") || close == llvm::StringRef::npos ||
        rest.substr(0, close).contains('\n')) {
      report.error(expect.loc, "expected '{{text}}' after 'expected-" +
                                   llvm::Twine(kindName(expect.kind)) + "'");
      continue;
    }
    expect.text = rest.substr(2, close - 2).str();
    expect.line = line;
    out.push_back(std::move(expect));
  }
  return out;
}

} // namespace

bool verifyDiagnostics(DiagnosticEngine &diags, unsigned bufferId,
                       llvm::raw_ostream &os) {
  llvm::SourceMgr &sourceMgr = diags.getSourceMgr();
  DiagnosticEngine report(sourceMgr, os);
  std::vector<Expectation> expected = collect(sourceMgr, bufferId, report);
  bool ok = !report.hasErrors();
  for (const Diagnostic &diag : diags.diagnostics()) {
    bool found = false;
    unsigned line = 0;
    if (diag.loc.isValid() &&
        sourceMgr.FindBufferContainingLoc(diag.loc) == bufferId)
      line = sourceMgr.getLineAndColumn(diag.loc, bufferId).first;
    for (Expectation &expect : expected) {
      if (expect.matched || expect.kind != diag.kind || expect.line != line ||
          !llvm::StringRef(diag.message).contains(expect.text))
        continue;
      expect.matched = true;
      found = true;
      break;
    }
    if (!found) {
      ok = false;
      if (line != 0)
        report.error(diag.loc, llvm::Twine("unexpected ") +
                                   kindName(diag.kind) + ": " + diag.message);
      else
        os << "tilec: error: unexpected " << kindName(diag.kind)
           << " without a location in the input: " << diag.message << "\n";
    }
  }
  for (const Expectation &expect : expected) {
    if (expect.matched)
      continue;
    ok = false;
    report.error(expect.loc, llvm::Twine("expected ") + kindName(expect.kind) +
                                 " {{" + expect.text + "}} on line " +
                                 llvm::Twine(expect.line) +
                                 " was not produced");
  }
  return ok;
}

} // namespace tilec
