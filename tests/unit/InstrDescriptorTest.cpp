//===- tests/unit/InstrDescriptorTest.cpp - tcgen05 instruction descriptor ===//
//
// Expected values are worked out by hand from the PTX ISA's bit table.
//
//===----------------------------------------------------------------------===//
#include "ir/arch/InstrDescriptor.h"

#include <gtest/gtest.h>

using namespace tilec;

namespace {

uint32_t encode(const InstrDescriptorSpec &s) {
  llvm::Expected<uint32_t> v = encodeInstrDescriptor(s);
  if (!v) {
    ADD_FAILURE() << llvm::toString(v.takeError());
    return 0;
  }
  return *v;
}

std::string encodeError(const InstrDescriptorSpec &s) {
  llvm::Expected<uint32_t> v = encodeInstrDescriptor(s);
  if (v) {
    ADD_FAILURE() << "expected an error";
    return "";
  }
  return llvm::toString(v.takeError());
}

TEST(InstrDescriptorTest, HeaderExample) {
  InstrDescriptorSpec s; // bf16 x bf16 -> f32, 128 x 256, K-major.
  EXPECT_EQ(encode(s), 0x08400490u);
}

TEST(InstrDescriptorTest, Kinds) {
  InstrDescriptorSpec f16;
  f16.aType = f16.bType = f16.accType = DTypeKind::F16;
  f16.m = 64;
  f16.n = 8;
  EXPECT_EQ(encode(f16), 0x04020000u);

  InstrDescriptorSpec tf32;
  tf32.aType = tf32.bType = DTypeKind::TF32;
  tf32.n = 128;
  tf32.aMajor = MajorKind::MN;
  tf32.negateB = true;
  EXPECT_EQ(encode(tf32), 0x0820C910u);

  InstrDescriptorSpec f8;
  f8.aType = DTypeKind::E4M3;
  f8.bType = DTypeKind::E5M2;
  f8.n = 64;
  EXPECT_EQ(encode(f8), 0x08100410u);
}

TEST(InstrDescriptorTest, RoundTrip) {
  for (DTypeKind a : {DTypeKind::F16, DTypeKind::BF16, DTypeKind::TF32,
                      DTypeKind::E4M3, DTypeKind::E5M2})
    for (unsigned m : {64u, 128u})
      for (bool neg : {false, true}) {
        InstrDescriptorSpec s;
        s.aType = s.bType = a;
        s.m = m;
        s.n = 16 * 3;
        s.negateA = neg;
        s.bMajor = neg ? MajorKind::MN : MajorKind::K;
        uint32_t v = encode(s);
        auto kind = mmaKindOf(a, a);
        ASSERT_TRUE(bool(kind));
        auto back = decodeInstrDescriptor(v, *kind);
        ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
        EXPECT_EQ(back->aType, a);
        EXPECT_EQ(back->m, m);
        EXPECT_EQ(back->n, 48u);
        EXPECT_EQ(back->negateA, neg);
        EXPECT_EQ(back->bMajor, s.bMajor);
      }
}

TEST(InstrDescriptorTest, Errors) {
  InstrDescriptorSpec s;
  s.n = 204;
  EXPECT_EQ(encodeError(s), "N = 204 is not legal for M = 128 (legal: a "
                            "multiple of 8 from 8 to 256)");
  s.m = 256;
  s.n = 200;
  EXPECT_EQ(encodeError(s), "N = 200 is not legal for M = 256 (legal: a "
                            "multiple of 16 from 16 to 256)");
  s.n = 256;
  s.m = 96;
  EXPECT_EQ(encodeError(s), "M = 96 is not a tcgen05 M (legal: 64, 128, 256 "
                            "with cta_group::2)");
  s.m = 128;
  s.bType = DTypeKind::F16;
  EXPECT_EQ(encodeError(s), "A type bf16 and B type f16 do not form one "
                            "tcgen05 kind (legal: f16 x f16, bf16 x bf16, "
                            "tf32 x tf32, e4m3/e5m2 x e4m3/e5m2)");
  s.aType = s.bType = DTypeKind::TF32;
  s.accType = DTypeKind::F16;
  EXPECT_EQ(encodeError(s), "kind::tf32 accumulates in f32 only (f16 is "
                            "legal for kind::f16 and kind::f8f6f4)");
  auto bad = decodeInstrDescriptor(0x08400490u | (1u << 23), MmaKindKind::F16);
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "reserved bits are set: 0x00800000");
}

} // namespace
