//===- ir/layout/SwizzleAtom.h - The canonical swizzle atoms ----*- C++ -*-===//
//
// The eight layouts the tensor cores read from shared memory: K- or
// MN-major, times a swizzle mode of ir/arch/SwizzleMode.h (none, 32-, 64- or
// 128-byte). In units of elements of T bits
// (T = 128 / bits elements per 16-byte chunk):
//
//   K_INTER<T>   Sw<0,4-L,3> o (8,T):(T,1)         L = log2(bytes/elem)
//   K_SW32<T>    Sw<1,4-L,3> o (8,2T):(2T,1)
//   K_SW64<T>    Sw<2,4-L,3> o (8,4T):(4T,1)
//   K_SW128<T>   Sw<3,4-L,3> o (8,8T):(8T,1)
//   MN_*<T>      the same with the shape transposed: (kT,8):(1,kT)
//
// Example: K_SW128<bf16> is Sw<3,3,3> o (8,64):(64,1), K_SW128<e4m3> is
// Sw<3,4,3> o (8,128):(128,1), MN_SW64<bf16> is Sw<2,3,3> o (32,8):(1,32).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_LAYOUT_SWIZZLEATOM_H
#define TILEC_IR_LAYOUT_SWIZZLEATOM_H

#include "ir/arch/DType.h"
#include "ir/arch/MajorKind.h"
#include "ir/arch/SwizzleMode.h"
#include "ir/layout/ComposedLayout.h"

namespace tilec {

/// The atom for \p major, \p mode and element type \p dtype, in elements.
ComposedLayout swizzleAtom(MajorKind major, SwizzleKind mode,
                           DTypeKind dtype);

} // namespace tilec

#endif // TILEC_IR_LAYOUT_SWIZZLEATOM_H
