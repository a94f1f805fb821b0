//===- compiler/Diagnostics.cpp - One diagnostic engine for tilec ---------===//
//
// Formatting is llvm::SourceMgr's: `file:line:col: kind: message`, the line
// and a caret. A diagnostic without a location prints as `tilec: kind: ...`.
//
//===----------------------------------------------------------------------===//
#include "compiler/Diagnostics.h"

namespace tilec {

namespace {
llvm::SourceMgr::DiagKind toLLVM(DiagKind kind) {
  switch (kind) {
  case DiagKind::Error:
    return llvm::SourceMgr::DK_Error;
  case DiagKind::Warning:
    return llvm::SourceMgr::DK_Warning;
  case DiagKind::Note:
    return llvm::SourceMgr::DK_Note;
  }
  llvm_unreachable("unknown diagnostic kind");
}

const char *kindName(DiagKind kind) {
  switch (kind) {
  case DiagKind::Error:
    return "error";
  case DiagKind::Warning:
    return "warning";
  case DiagKind::Note:
    return "note";
  }
  llvm_unreachable("unknown diagnostic kind");
}
} // namespace

void DiagnosticEngine::report(DiagKind kind, llvm::SMLoc loc,
                              const llvm::Twine &message) {
  Diagnostic diag{kind, loc, message.str()};
  if (kind == DiagKind::Error)
    ++errors;
  if (!capture)
    os << format(diag);
  all.push_back(std::move(diag));
}

std::string DiagnosticEngine::format(const Diagnostic &diag) const {
  std::string text;
  llvm::raw_string_ostream out(text);
  if (diag.loc.isValid() && sourceMgr.FindBufferContainingLoc(diag.loc))
    sourceMgr.PrintMessage(out, diag.loc, toLLVM(diag.kind), diag.message);
  else
    out << "tilec: " << kindName(diag.kind) << ": " << diag.message << "\n";
  return text;
}

std::string DiagnosticEngine::formatAll() const {
  std::string text;
  for (const Diagnostic &diag : all)
    text += format(diag);
  return text;
}

} // namespace tilec
