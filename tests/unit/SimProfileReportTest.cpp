//===- tests/unit/SimProfileReportTest.cpp - PTX lines to .tile lines -----===//
//
// ptxSourceLines on hand-written PTX: each line takes the last `.loc` of its
// function, `.file` may come after the code, line 0 (merged) and lines
// before any `.loc` name nothing, and "<source>" becomes the given name.
//
//===----------------------------------------------------------------------===//
#include "host/SimProfileReport.h"

#include <gtest/gtest.h>

using namespace tilec;

TEST(SimProfileReportTest, EachLineTakesTheLastLocOfItsFunction) {
  const char *ptx = ".version 8.0\n"                   // 1
                    ".visible .entry k()\n"            // 2
                    "{\n"                              // 3
                    "\t.loc\t1 10 1\n"                 // 4
                    "\tmov.b32 %r1, 0;\n"              // 5
                    "\t.loc\t1 20 1\n"                 // 6
                    "\twgmma.fence.sync.aligned;\n"    // 7
                    "\t.loc\t1 0 1\n"                  // 8
                    "\tadd.s32 %r1, %r1, 1;\n"         // 9
                    "}\n"                              // 10
                    ".visible .entry k2()\n"           // 11
                    "{\n"                              // 12
                    "\tret;\n"                         // 13
                    "}\n"                              // 14
                    "\t.file\t1 \"/some/dir/gemm.tile\"\n";
  std::vector<std::string> lines = ptxSourceLines(ptx, "unused.tile");
  ASSERT_GE(lines.size(), 15u);
  EXPECT_EQ(lines[0], "");
  EXPECT_EQ(lines[4], "gemm.tile:10");
  EXPECT_EQ(lines[6], "gemm.tile:20");
  EXPECT_EQ(lines[8], "");  // .loc line 0: several lines merged
  EXPECT_EQ(lines[12], ""); // a new function starts without a location
}

TEST(SimProfileReportTest, UnnamedSourceTakesTheGivenName) {
  const char *ptx = ".visible .entry k()\n{\n\t.loc 2 7 1\n\tret;\n}\n"
                    "\t.file 2 \"<source>\"\n";
  std::vector<std::string> lines = ptxSourceLines(ptx, "mine.tile");
  EXPECT_EQ(lines[3], "mine.tile:7");
  // An unknown file index names nothing.
  lines = ptxSourceLines(".visible .entry k()\n{\n.loc 3 7 1\nret;\n}\n", "x");
  EXPECT_EQ(lines[3], "");
}
