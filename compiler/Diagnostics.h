//===- compiler/Diagnostics.h - One diagnostic engine for tilec --*- C++
//-*-===//
//
// Every user-facing error, warning and note that the front end, the Tile IR
// parser and the passes report goes through a DiagnosticEngine built on
// llvm::SourceMgr, so each one prints as `file:line:col: error: message`, the
// source line and a caret. Reporting never stops compilation by itself:
// callers keep going and check hasErrors() at the end of a phase, so one run
// shows several errors.
//
// The engine either prints as it goes or captures (for --verify-diagnostics
// and the embedding API, which returns the text).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_DIAGNOSTICS_H
#define TILEC_COMPILER_DIAGNOSTICS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace tilec {

/// The severity of one diagnostic.
enum class DiagKind { Error, Warning, Note };

/// One reported diagnostic, as --verify-diagnostics sees it.
struct Diagnostic {
  DiagKind kind;
  llvm::SMLoc loc; ///< May be invalid for a diagnostic about no location.
  std::string message;
};

/// Reports diagnostics against the buffers of one llvm::SourceMgr.
class DiagnosticEngine {
public:
  /// Prints to \p os as diagnostics arrive unless capture is set.
  explicit DiagnosticEngine(llvm::SourceMgr &sourceMgr,
                            llvm::raw_ostream &os = llvm::errs())
      : sourceMgr(sourceMgr), os(os) {}

  /// Reports an error at \p loc.
  void error(llvm::SMLoc loc, const llvm::Twine &message) {
    report(DiagKind::Error, loc, message);
  }
  /// Reports a warning at \p loc.
  void warning(llvm::SMLoc loc, const llvm::Twine &message) {
    report(DiagKind::Warning, loc, message);
  }
  /// Reports a note; it belongs to the error or warning before it.
  void note(llvm::SMLoc loc, const llvm::Twine &message) {
    report(DiagKind::Note, loc, message);
  }
  /// Reports any diagnostic.
  void report(DiagKind kind, llvm::SMLoc loc, const llvm::Twine &message);

  /// Keeps diagnostics in diagnostics() instead of printing them.
  void setCapture(bool on) { capture = on; }
  /// Everything reported so far, in order.
  const std::vector<Diagnostic> &diagnostics() const { return all; }
  /// Number of errors reported so far.
  unsigned errorCount() const { return errors; }
  bool hasErrors() const { return errors != 0; }

  /// Formats \p diag the way the engine prints it (file:line:col, line,
  /// caret).
  std::string format(const Diagnostic &diag) const;
  /// Formats every captured diagnostic.
  std::string formatAll() const;

  llvm::SourceMgr &getSourceMgr() { return sourceMgr; }

private:
  llvm::SourceMgr &sourceMgr;
  llvm::raw_ostream &os;
  bool capture = false;
  unsigned errors = 0;
  std::vector<Diagnostic> all;
};

} // namespace tilec

#endif // TILEC_COMPILER_DIAGNOSTICS_H
