//===- tests/unit/MajorKindTest.cpp - ir/MajorKind.h ----------------------===//
#include "ir/GemmSpec.h"
#include "ir/SmemDescriptor.h"

#include <gtest/gtest.h>

namespace tilec {
namespace {

// ir/MajorKind.h's example; including both headers above also checks that
// GemmSpec.h and SmemDescriptor.h share one MajorKind.
TEST(MajorKind, HeaderExample) {
  EXPECT_EQ(parseMajor("n"), MajorKind::MN);
  EXPECT_EQ(majorName(MajorKind::K), "K");
}

TEST(MajorKind, ParsesEverySpelling) {
  EXPECT_EQ(parseMajor("K"), MajorKind::K);
  EXPECT_EQ(parseMajor("mn"), MajorKind::MN);
  EXPECT_EQ(parseMajor("M"), MajorKind::MN);
  EXPECT_EQ(parseMajor("KM"), std::nullopt);
  EXPECT_EQ(parseMajor(""), std::nullopt);
  for (MajorKind kind : {MajorKind::K, MajorKind::MN})
    EXPECT_EQ(parseMajor(majorName(kind)), kind);
}

} // namespace
} // namespace tilec
