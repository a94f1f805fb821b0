//===- tests/unit/FrontendDiagnosticsTest.cpp - Diagnostics, verify mode --===//
#include "compiler/Diagnostics.h"
#include "compiler/VerifyDiagnostics.h"

#include "FrontendTestSupport.h"

#include <gtest/gtest.h>

using namespace tilec;

namespace {

llvm::SMLoc at(test::Harness &h, llvm::StringRef needle) {
  llvm::StringRef buffer = h.sourceMgr.getMemoryBuffer(h.bufferId)->getBuffer();
  size_t pos = buffer.find(needle);
  EXPECT_NE(pos, llvm::StringRef::npos);
  return llvm::SMLoc::getFromPointer(buffer.data() + pos);
}

TEST(FrontendDiagnosticsTest, FormatsFileLineColumnLineAndCaret) {
  test::Harness h("line one\n  tile (BM = 32)\n", "k.tile");
  h.diags.error(at(h, "BM"), "BM = 32 is not a multiple of 64");
  h.diags.note(at(h, "tile"), "the tile is here");
  EXPECT_EQ(h.diags.errorCount(), 1u); // Notes are not errors.
  EXPECT_EQ(h.messages(), "k.tile:2:9: error: BM = 32 is not a multiple of 64\n"
                          "  tile (BM = 32)\n"
                          "        ^\n"
                          "k.tile:2:3: note: the tile is here\n"
                          "  tile (BM = 32)\n"
                          "  ^\n");
}

TEST(FrontendDiagnosticsTest, PrintsAsItGoesUnlessCapturing) {
  llvm::SourceMgr sourceMgr;
  std::string out;
  llvm::raw_string_ostream os(out);
  DiagnosticEngine diags(sourceMgr, os);
  diags.warning(llvm::SMLoc(), "no location");
  EXPECT_EQ(out, "tilec: warning: no location\n");
  EXPECT_FALSE(diags.hasErrors());
  diags.setCapture(true);
  diags.error(llvm::SMLoc(), "kept");
  EXPECT_EQ(out, "tilec: warning: no location\n");
  EXPECT_EQ(diags.diagnostics().size(), 2u);
}

TEST(FrontendDiagnosticsTest, VerifyMatchesExactly) {
  test::Harness h("a // expected-error {{bad a}}\n"
                  "// expected-note@+1 {{see b}}\n"
                  "b\n"
                  "c // expected-warning@-2 {{maybe}}\n");
  h.diags.error(at(h, "a //"), "this is a bad a here");
  h.diags.note(at(h, "b\n"), "see b");
  h.diags.warning(at(h, "// expected-note"), "maybe so");
  std::string out;
  llvm::raw_string_ostream os(out);
  EXPECT_TRUE(verifyDiagnostics(h.diags, h.bufferId, os)) << out;
  EXPECT_EQ(out, "");
}

TEST(FrontendDiagnosticsTest, VerifyReportsMissingAndUnexpected) {
  test::Harness h("a // expected-error {{wanted}}\nb\n");
  h.diags.error(at(h, "b"), "surprise");
  std::string out;
  llvm::raw_string_ostream os(out);
  EXPECT_FALSE(verifyDiagnostics(h.diags, h.bufferId, os));
  EXPECT_NE(out.find("2:1: error: unexpected error: surprise"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("expected error {{wanted}} on line 1 was not produced"),
            std::string::npos)
      << out;
}

TEST(FrontendDiagnosticsTest, VerifyNeedsKindAndLineToMatch) {
  test::Harness h("a // expected-warning {{x}}\nb // expected-error {{y}}\n");
  h.diags.error(at(h, "a"), "x");    // Wrong kind.
  h.diags.error(at(h, "a //"), "y"); // Wrong line.
  std::string out;
  llvm::raw_string_ostream os(out);
  EXPECT_FALSE(verifyDiagnostics(h.diags, h.bufferId, os));
}

TEST(FrontendDiagnosticsTest, VerifyRejectsMalformedExpectations) {
  test::Harness h("// expected-error no braces\n// expected-note@x {{y}}\n");
  std::string out;
  llvm::raw_string_ostream os(out);
  EXPECT_FALSE(verifyDiagnostics(h.diags, h.bufferId, os));
  EXPECT_NE(out.find("expected '{{text}}'"), std::string::npos) << out;
  EXPECT_NE(out.find("expected a line offset"), std::string::npos) << out;
}

} // namespace
