//===- tests/unit/RuntimeTensorMapTest.cpp - Tensor-map rules on the CPU --===//
//
// One test per documented rule of cuTensorMapEncodeTiled: a valid map is
// broken in exactly one field and the message must name that rule with its
// numbers. The expected strings are written out by hand.
//
//===----------------------------------------------------------------------===//
#include "runtime/TensorMap.h"

#include <gtest/gtest.h>

namespace tilec::rt {
namespace {

/// A row-major 128 x 64 bf16 matrix read in 64 x 64 boxes with SW128: the
/// box's inner extent is 64 x 2 = 128 bytes, exactly the swizzle span.
TensorMapDesc validMatrix() {
  return TensorMapDesc::matrix2d(TensorMapDTypeKind::BF16, 0x7f0000010000,
                                 /*rows=*/128, /*cols=*/64, /*ld=*/64,
                                 /*boxRows=*/64, /*boxCols=*/64,
                                 TensorMapSwizzleKind::B128);
}

std::string messageOf(const TensorMapDesc &desc) {
  Status s = validateTensorMap(desc);
  return s.ok() ? "ok" : s.error().getMessage();
}

TEST(RuntimeTensorMap, Matrix2dFillsInnermostFirst) {
  TensorMapDesc desc = validMatrix();
  EXPECT_EQ(desc.rank, 2u);
  EXPECT_EQ(desc.globalDims[0], 64u);
  EXPECT_EQ(desc.globalDims[1], 128u);
  EXPECT_EQ(desc.globalStrides[0], 128u);
  EXPECT_EQ(desc.boxDims[0], 64u);
  EXPECT_EQ(desc.boxDims[1], 64u);
  EXPECT_EQ(messageOf(desc), "ok");
  EXPECT_EQ(describeTensorMap(desc),
            "bf16 rank 2 address 0x7f0000010000 dims [64, 128] strides [128] "
            "box [64, 64] swizzle 128B");
}

TEST(RuntimeTensorMap, ElementBytesAndSwizzleSpans) {
  EXPECT_EQ(tensorMapElementBytes(TensorMapDTypeKind::U8), 1u);
  EXPECT_EQ(tensorMapElementBytes(TensorMapDTypeKind::BF16), 2u);
  EXPECT_EQ(tensorMapElementBytes(TensorMapDTypeKind::F16), 2u);
  EXPECT_EQ(tensorMapElementBytes(TensorMapDTypeKind::TF32), 4u);
  EXPECT_EQ(tensorMapElementBytes(TensorMapDTypeKind::F64), 8u);
  EXPECT_EQ(tensorMapSwizzleBytes(TensorMapSwizzleKind::None), 0u);
  EXPECT_EQ(tensorMapSwizzleBytes(TensorMapSwizzleKind::B32), 32u);
  EXPECT_EQ(tensorMapSwizzleBytes(TensorMapSwizzleKind::B64), 64u);
  EXPECT_EQ(tensorMapSwizzleBytes(TensorMapSwizzleKind::B128), 128u);
}

TEST(RuntimeTensorMap, RankMustBeOneToFive) {
  TensorMapDesc desc = validMatrix();
  desc.rank = 0;
  EXPECT_EQ(messageOf(desc),
            "tensor map rank 0 is out of range: it must be 1 to 5");
  desc.rank = 6;
  EXPECT_EQ(messageOf(desc),
            "tensor map rank 6 is out of range: it must be 1 to 5");
}

TEST(RuntimeTensorMap, InterleaveNeedsRankThree) {
  TensorMapDesc desc = validMatrix();
  desc.interleave = TensorMapInterleaveKind::B16;
  EXPECT_EQ(messageOf(desc), "tensor map rank 2 is too small for interleave "
                             "16B: interleaved layouts need rank 3 or more");
}

TEST(RuntimeTensorMap, AddressMustBe16ByteAligned) {
  TensorMapDesc desc = validMatrix();
  desc.globalAddress += 8;
  EXPECT_EQ(messageOf(desc), "tensor map global address 0x7f0000010008 is not "
                             "16-byte aligned");
  desc.globalAddress = 0;
  EXPECT_EQ(messageOf(desc), "tensor map global address is null");
}

TEST(RuntimeTensorMap, Interleave32NeedsAddressAndStrides32ByteAligned) {
  TensorMapDesc desc;
  desc.dtype = TensorMapDTypeKind::F16;
  desc.rank = 3;
  desc.globalAddress = 0x10010; // 16- but not 32-byte aligned.
  desc.globalDims = {16, 8, 8, 0, 0};
  desc.globalStrides = {32, 256, 0, 0};
  desc.boxDims = {16, 8, 8, 0, 0};
  desc.interleave = TensorMapInterleaveKind::B32;
  desc.swizzle = TensorMapSwizzleKind::B32;
  EXPECT_EQ(messageOf(desc), "tensor map global address 0x10010 is not "
                             "32-byte aligned (interleave 32B needs 32)");
  desc.globalAddress = 0x10020;
  EXPECT_EQ(messageOf(desc), "ok");
  desc.globalStrides = {48, 384, 0, 0};
  EXPECT_EQ(messageOf(desc), "tensor map globalStrides[0] = 48 bytes is not "
                             "a multiple of 32 bytes (interleave 32B needs "
                             "32)");
  desc.globalStrides = {32, 256, 0, 0};
  desc.swizzle = TensorMapSwizzleKind::B128;
  EXPECT_EQ(messageOf(desc),
            "tensor map interleave 32B needs swizzle 32B, not 128B");
}

TEST(RuntimeTensorMap, GlobalDimsMustBeOneTo2Pow32) {
  TensorMapDesc desc = validMatrix();
  desc.globalDims[1] = 0;
  EXPECT_EQ(messageOf(desc), "tensor map globalDims[1] = 0 is out of range: "
                             "it must be 1 to 2^32");
  desc = validMatrix();
  desc.globalDims[1] = (std::uint64_t(1) << 32) + 1;
  EXPECT_EQ(messageOf(desc), "tensor map globalDims[1] = 4294967297 is out of "
                             "range: it must be 1 to 2^32");
  desc.globalDims[1] = std::uint64_t(1) << 32; // The limit itself is legal.
  EXPECT_EQ(messageOf(desc), "ok");
}

TEST(RuntimeTensorMap, StridesMustBeMultiplesOf16) {
  TensorMapDesc desc = validMatrix();
  desc.globalStrides[0] = 136; // ld = 68 bf16: 136 bytes.
  EXPECT_EQ(messageOf(desc), "tensor map globalStrides[0] = 136 bytes is not "
                             "a multiple of 16 bytes");
  desc.globalStrides[0] = 144; // ld = 72: a padded row is fine.
  EXPECT_EQ(messageOf(desc), "ok");
}

TEST(RuntimeTensorMap, StridesMustBeBelow2Pow40) {
  TensorMapDesc desc = validMatrix();
  desc.globalStrides[0] = std::uint64_t(1) << 40;
  EXPECT_EQ(messageOf(desc), "tensor map globalStrides[0] = 1099511627776 "
                             "bytes is not less than 2^40");
}

TEST(RuntimeTensorMap, StridesMustIncludeTheInnerDimension) {
  TensorMapDesc desc = validMatrix();
  desc.globalStrides[0] = 112; // A 64-element bf16 row is 128 bytes.
  EXPECT_EQ(messageOf(desc),
            "tensor map globalStrides[0] = 112 bytes is less than the 128 "
            "bytes of the dimension inside it (globalDims[0] 64 x 2 bytes); "
            "strides must include the previous dimension");
  TensorMapDesc cube;
  cube.dtype = TensorMapDTypeKind::F32;
  cube.rank = 3;
  cube.globalAddress = 0x1000;
  cube.globalDims = {4, 8, 2, 0, 0};
  cube.globalStrides = {16, 64, 0, 0}; // 64 < 16 x 8.
  cube.boxDims = {4, 8, 2, 0, 0};
  EXPECT_EQ(messageOf(cube),
            "tensor map globalStrides[1] = 64 bytes is less than the 128 "
            "bytes of the dimension inside it (globalStrides[0] 16 x "
            "globalDims[1] 8); strides must include the previous dimension");
  cube.globalStrides[1] = 128;
  EXPECT_EQ(messageOf(cube), "ok");
}

TEST(RuntimeTensorMap, BoxDimsMustBeOneTo256) {
  TensorMapDesc desc = validMatrix();
  desc.boxDims[1] = 257;
  EXPECT_EQ(messageOf(desc), "tensor map boxDims[1] = 257 is out of range: it "
                             "must be 1 to 256");
  desc.boxDims[1] = 0;
  EXPECT_EQ(messageOf(desc), "tensor map boxDims[1] = 0 is out of range: it "
                             "must be 1 to 256");
  desc.boxDims[1] = 256;
  EXPECT_EQ(messageOf(desc), "ok");
}

TEST(RuntimeTensorMap, BoxInnerExtentMustBeMultipleOf16Bytes) {
  TensorMapDesc desc = validMatrix();
  desc.boxDims[0] = 12; // 24 bytes.
  EXPECT_EQ(messageOf(desc),
            "tensor map box inner extent boxDims[0] 12 x 2 bytes = 24 bytes "
            "is not a multiple of 16 bytes (use a multiple of 8 bf16 "
            "elements)");
}

TEST(RuntimeTensorMap, BoxInnerExtentMustFitTheSwizzleSpan) {
  TensorMapDesc desc = validMatrix();
  desc.boxDims[0] = 128; // 256 bytes > 128.
  EXPECT_EQ(messageOf(desc),
            "tensor map box inner extent boxDims[0] 128 x 2 bytes = 256 bytes "
            "exceeds the 128-byte span of swizzle 128B (at most 64 bf16 "
            "elements)");
  desc.boxDims[0] = 64;
  desc.swizzle = TensorMapSwizzleKind::B64;
  EXPECT_EQ(messageOf(desc),
            "tensor map box inner extent boxDims[0] 64 x 2 bytes = 128 bytes "
            "exceeds the 64-byte span of swizzle 64B (at most 32 bf16 "
            "elements)");
  desc.swizzle = TensorMapSwizzleKind::B32;
  desc.dtype = TensorMapDTypeKind::U8; // 64 x 1 byte > 32.
  desc.globalStrides[0] = 64;
  EXPECT_EQ(messageOf(desc),
            "tensor map box inner extent boxDims[0] 64 x 1 bytes = 64 bytes "
            "exceeds the 32-byte span of swizzle 32B (at most 32 u8 "
            "elements)");
  desc.swizzle = TensorMapSwizzleKind::None; // No span without a swizzle.
  EXPECT_EQ(messageOf(desc), "ok");
}

TEST(RuntimeTensorMap, ElementStridesMustBeOneToEight) {
  TensorMapDesc desc = validMatrix();
  desc.elementStrides[1] = 9;
  EXPECT_EQ(messageOf(desc), "tensor map elementStrides[1] = 9 is out of "
                             "range: it must be 1 to 8");
  desc.elementStrides[1] = 0;
  EXPECT_EQ(messageOf(desc), "tensor map elementStrides[1] = 0 is out of "
                             "range: it must be 1 to 8");
  desc.elementStrides[1] = 8;
  EXPECT_EQ(messageOf(desc), "ok");
}

TEST(RuntimeTensorMap, NanFillNeedsAFloatType) {
  TensorMapDesc desc = validMatrix();
  desc.oobFill = TensorMapOobFillKind::NanRequestZeroFma;
  EXPECT_EQ(messageOf(desc), "ok");
  desc.dtype = TensorMapDTypeKind::U16;
  EXPECT_EQ(messageOf(desc), "tensor map OOB fill nan-request-zero-fma needs "
                             "a floating-point data type, not u16");
}

TEST(RuntimeTensorMap, EnumValuesOutOfRangeAreRejected) {
  TensorMapDesc desc = validMatrix();
  desc.dtype = static_cast<TensorMapDTypeKind>(13);
  EXPECT_EQ(messageOf(desc), "tensor map data type 13 is not one of the 13 "
                             "known CUtensorMapDataType values");
  desc = validMatrix();
  desc.swizzle = static_cast<TensorMapSwizzleKind>(4);
  EXPECT_EQ(messageOf(desc),
            "tensor map swizzle 4 is not none, 32B, 64B or 128B");
  desc = validMatrix();
  desc.l2Promotion = static_cast<TensorMapL2PromotionKind>(7);
  EXPECT_EQ(messageOf(desc),
            "tensor map L2 promotion 7 is not none, 64B, 128B or 256B");
}

TEST(RuntimeTensorMap, InvalidDescriptionFailsBeforeTheDriver) {
  // encodeTensorMap validates first, so this fails the same way with or
  // without a driver.
  TensorMapDesc desc = validMatrix();
  desc.boxDims[0] = 128;
  Result<TensorMap> map = encodeTensorMap(desc);
  ASSERT_FALSE(map.ok());
  EXPECT_EQ(map.error().getMessage(),
            "tensor map box inner extent boxDims[0] 128 x 2 bytes = 256 bytes "
            "exceeds the 128-byte span of swizzle 128B (at most 64 bf16 "
            "elements)");
}

} // namespace
} // namespace tilec::rt
