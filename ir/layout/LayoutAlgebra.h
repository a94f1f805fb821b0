//===- ir/layout/LayoutAlgebra.h - CuTe's layout algebra --------*- C++ -*-===//
//
// CuTe's layout algebra on runtime values. Operations that have no result
// under CuTe's admissibility rules (a composition whose shapes do not divide,
// a complement of a layout that is not injective, ...) return an llvm::Error
// whose message says why, lower case, with the numbers involved; nothing here
// asserts on user input.
//
// Example: composition(20:2, (5,4):(4,1)) is (5,4):(8,2), the function
// R(i) = A(B(i)); complement(4:2, 16) is (2,2):(1,8).
//
// A tiler is either a layout (a "layout tiler", composed as a whole) or a
// tuple with one tiler per mode (a "by-mode tiler", as CuTe's Shape or Tile
// arguments); an integer N in a by-mode tiler is the layout N:1.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_LAYOUT_LAYOUTALGEBRA_H
#define TILEC_IR_LAYOUT_LAYOUTALGEBRA_H

#include "ir/layout/ComposedLayout.h"
#include "ir/layout/Layout.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <vector>

namespace tilec {

/// A layout tiler or a by-mode tuple of tilers.
class Tiler {
public:
  /// A layout tiler.
  Tiler(Layout layout) : layout(std::move(layout)) {}
  /// A by-mode tiler.
  Tiler(std::vector<Tiler> modes) : modes(std::move(modes)) {}
  /// The by-mode tiler (s0:1, s1:1, ...) of a shape (a leaf shape N is the
  /// layout tiler N:1).
  static Tiler fromShape(const IntTuple &shape);

  bool isLayout() const { return layout.has_value(); }
  const Layout &getLayout() const { return *layout; }
  const std::vector<Tiler> &getModes() const { return modes; }

  /// "4:2" or "(8:1,16:1)".
  std::string str() const;

private:
  std::optional<Layout> layout;
  std::vector<Tiler> modes;
};

/// R = A o B, CuTe's composition: A is coalesced, then each mode of B is
/// composed on its own (so R keeps B's nesting, a mode of B possibly split
/// into a tuple). R(c) == A(B(c)) for every c when the modes of B do not
/// carry into each other's digits of A (e.g. injective power-of-two
/// layouts). Fails when CuTe's stride or shape divisibility condition does
/// not hold; unlike CuTe's weak (dynamic) check, a stride that neither
/// divides nor is a multiple of A's mode is also refused when B runs past
/// that mode, where CuTe would return a layout that is not A o B.
llvm::Expected<Layout> composition(const Layout &a, const Layout &b);
/// Composition with a tiler: a layout tiler composes as a whole; a by-mode
/// tiler composes mode i of \p a with tiler mode i and, as CuTe does, drops
/// the modes of \p a the tiler does not reach.
llvm::Expected<Layout> composition(const Layout &a, const Tiler &b);

/// The layout of the offsets in [0, cosizeHi) that \p a does not hit, sorted
/// and compact: (a, complement(a, N)) is a bijection onto [0, N) when the
/// sizes fit. Fails for a non-injective or unsortable \p a.
llvm::Expected<Layout> complement(const Layout &a, int64_t cosizeHi);
/// complement(a, cosize(a)).
llvm::Expected<Layout> complement(const Layout &a);
/// The complement within a shaped codomain (used by logical_divide).
llvm::Expected<Layout> complement(const Layout &a, const IntTuple &coTarget);

/// (A o B, A o complement(B, size(A))), per mode for a by-mode tiler.
llvm::Expected<Layout> logicalDivide(const Layout &a, const Tiler &b);
/// The logical divide with the tile modes gathered into mode 0 and the rest
/// into mode 1: ((TileM,TileN,...),(RestM,RestN,...)).
llvm::Expected<Layout> zippedDivide(const Layout &a, const Tiler &b);
/// ((TileM,TileN,...),RestM,RestN,...).
llvm::Expected<Layout> tiledDivide(const Layout &a, const Tiler &b);
/// (TileM,TileN,...,RestM,RestN,...).
llvm::Expected<Layout> flatDivide(const Layout &a, const Tiler &b);

/// (A, complement(A, size(A)*cosize(B)) o B); for a by-mode tiler, mode i of
/// A times tiler mode i, each on its own (the remaining modes of A kept).
llvm::Expected<Layout> logicalProduct(const Layout &a, const Tiler &b);
/// ((A modes...),(rest modes...)) of the logical product.
llvm::Expected<Layout> zippedProduct(const Layout &a, const Tiler &b);
/// ((A modes...),rest modes...).
llvm::Expected<Layout> tiledProduct(const Layout &a, const Tiler &b);
/// Mode i is (a_i, b_i): A's block repeated by B (CuTe's blocked_product).
llvm::Expected<Layout> blockedProduct(const Layout &a, const Layout &b);
/// Mode i is (b_i, a_i): A interleaved by B (CuTe's raked_product).
llvm::Expected<Layout> rakedProduct(const Layout &a, const Layout &b);

/// The largest R with L(R(i)) == i for i in [0, size(R)), coalesced.
Layout rightInverse(const Layout &layout);
/// CuTe's left (quasi-)inverse: R(L(i)) == i for an injective L; fails on
/// negative strides or when a stride does not divide as CuTe requires.
llvm::Expected<Layout> leftInverse(const Layout &layout);

/// Repeats \p atom over \p shape (each mode of \p shape a multiple of the
/// atom's mode), the repetitions ordered by \p order (column-major when
/// absent), as CuTe's tile_to_shape.
llvm::Expected<Layout> tileToShape(const Layout &atom, const IntTuple &shape,
                                   const std::optional<IntTuple> &order = {});
llvm::Expected<ComposedLayout>
tileToShape(const ComposedLayout &atom, const IntTuple &shape,
            const std::optional<IntTuple> &order = {});

/// The layout in units N times larger (strides divided by N; a unit-stride
/// mode shrinks by N). Fails where the strides and shapes do not allow it.
llvm::Expected<Layout> upcast(const Layout &layout, int64_t n);
/// The layout in units N times smaller.
llvm::Expected<Layout> downcast(const Layout &layout, int64_t n);
/// From elements of \p fromBits to elements of \p toBits (CuTe's
/// recast_layout): upcast, downcast or both.
llvm::Expected<Layout> recast(const Layout &layout, int64_t fromBits,
                              int64_t toBits);
/// Swizzle upcast/downcast move the base M by log2(N).
llvm::Expected<Swizzle> upcast(const Swizzle &swizzle, int64_t n);
llvm::Expected<Swizzle> downcast(const Swizzle &swizzle, int64_t n);
/// A swizzle recast from \p fromBits to \p toBits elements, as CuTe's
/// recast_layout of a Swizzle: recast(Sw<3,4,3>, 8, 16) is Sw<3,3,3>.
llvm::Expected<Swizzle> recast(const Swizzle &swizzle, int64_t fromBits,
                               int64_t toBits);
llvm::Expected<ComposedLayout> upcast(const ComposedLayout &layout, int64_t n);
llvm::Expected<ComposedLayout> downcast(const ComposedLayout &layout,
                                        int64_t n);
llvm::Expected<ComposedLayout> recast(const ComposedLayout &layout,
                                      int64_t fromBits, int64_t toBits);

/// The number of leading elements over which A and B are both contiguous and
/// agree: the size of maxCommonLayout(A, B) (1 when nothing agrees).
llvm::Expected<int64_t> maxCommonVector(const Layout &a, const Layout &b);
/// The layout R of the longest run with A(R(i)) == i and B(R(i)) == i
/// (CuTe's max_common_layout).
llvm::Expected<Layout> maxCommonLayout(const Layout &a, const Layout &b);

/// Composition of a composed layout with a tiler: the tiler acts on the
/// inner layout (CuTe's composition(ComposedLayout, Tiler)).
llvm::Expected<ComposedLayout> composition(const ComposedLayout &a,
                                           const Tiler &b);
/// Divides of a composed layout: on the inner layout.
llvm::Expected<ComposedLayout> logicalDivide(const ComposedLayout &a,
                                             const Tiler &b);
llvm::Expected<ComposedLayout> zippedDivide(const ComposedLayout &a,
                                            const Tiler &b);
llvm::Expected<ComposedLayout> tiledDivide(const ComposedLayout &a,
                                           const Tiler &b);
llvm::Expected<ComposedLayout> flatDivide(const ComposedLayout &a,
                                          const Tiler &b);

} // namespace tilec

#endif // TILEC_IR_LAYOUT_LAYOUTALGEBRA_H
