//===- ir/layout/SmemTileFromLayout.h - Layout values as operand tiles --*- C++
//-*-===//
//
// Bridges the layout algebra and descriptor derivation: a rank-2 Layout or
// ComposedLayout `Sw<B,M,S> o OFFSET o L` over (MN, K) becomes the
// SmemTileLayout the derivation matches, offset(mn, k) = OFFSET +
// L(mn + MN * k), with the swizzle carried over.
//
// Example: tile_to_shape(K_SW128<bf16>, (128,128)) is a 128 x 128 tile with
// swizzle Sw<3,3,3> and offset(1, 0) = 64.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_LAYOUT_SMEMTILEFROMLAYOUT_H
#define TILEC_IR_LAYOUT_SMEMTILEFROMLAYOUT_H

#include "ir/arch/DescriptorDerivation.h"
#include "ir/layout/LayoutExpr.h"

#include "llvm/Support/Error.h"

namespace tilec {

/// The tile \p value describes, or an error naming what it is instead.
llvm::Expected<SmemTileLayout> smemTileFromLayout(const LayoutValue &value);

} // namespace tilec

#endif // TILEC_IR_LAYOUT_SMEMTILEFROMLAYOUT_H
