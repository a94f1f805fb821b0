//===- tests/unit/MajorKindTest.cpp - ir/arch/MajorKind.h ----------------------===//
#include "ir/arch/SmemDescriptor.h"
#include "ir/tile/GemmSpec.h"

#include <gtest/gtest.h>

namespace tilec {
namespace {

// ir/arch/MajorKind.h's example; including both headers above also checks that
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
