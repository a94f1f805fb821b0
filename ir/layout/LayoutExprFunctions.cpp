//===- ir/layout/LayoutExprFunctions.cpp - The functions of layout expressions ---===//
//
// The table kFunctions of the functions a layout expression may call
// (`composition(A, B)`, `logical_divide(L, (8,16))`, `tile_to_shape(ATOM,
// SHAPE[, ORDER])`, `size(L)`, ...): for each, its name, its argument counts
// and its handler. The parser (ir/layout/LayoutExpr.cpp) reads the arguments and
// checks their count; a handler converts them (ir/layout/LayoutExprCall.h), applies
// the layout algebra, and checks the result. Most functions also accept a
// swizzled layout and swizzle the result again.
//
//===----------------------------------------------------------------------===//
#include "ir/layout/LayoutExprCall.h"

#include "ir/layout/ComposedLayout.h"
#include "ir/layout/LayoutAlgebra.h"
#include "ir/layout/WeightPack.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>

using namespace tilec;
using namespace tilec::layoutexpr;

namespace {

// The first argument as a layout, then `op` on it.
template <typename Op>
llvm::Expected<LayoutValue> onLayout(const Call &c, Op op) {
  llvm::Expected<Layout> l = toLayout(c.arg(0), c.argCol(0), c.f);
  if (!l)
    return l.takeError();
  return op(*l);
}

// The first two arguments as layouts, then `op` on them.
template <typename Op>
llvm::Expected<LayoutValue> onTwoLayouts(const Call &c, Op op) {
  llvm::Expected<Layout> a = toLayout(c.arg(0), c.argCol(0), c.f);
  if (!a)
    return a.takeError();
  llvm::Expected<Layout> b = toLayout(c.arg(1), c.argCol(1), c.f);
  if (!b)
    return b.takeError();
  return op(*a, *b);
}

// The first argument's layout; for a swizzled layout, its inner layout,
// which `rewrap` swizzles again after the function.
struct Inner {
  std::optional<ComposedLayout> composed;
  Layout layout;
};

llvm::Expected<Inner> innerLayout(const Call &c) {
  const LayoutValue &a0 = c.arg(0);
  if (a0.isComposed())
    return Inner{a0.getComposed(), a0.getComposed().layout};
  llvm::Expected<Layout> l = toLayout(a0, c.argCol(0), c.f);
  if (!l)
    return l.takeError();
  return Inner{std::nullopt, *l};
}

llvm::Expected<LayoutValue> rewrap(const Call &c, const Inner &in,
                                   llvm::Expected<Layout> r) {
  if (!r)
    return c.wrap(r.takeError());
  if (in.composed)
    return c.composedResult(
        ComposedLayout(in.composed->swizzle, in.composed->offset, *r));
  return c.result(std::move(r));
}

// size, cosize, rank, depth: a number of the (inner) layout.
template <typename Measure>
llvm::Expected<LayoutValue> measure(const Call &c, Measure m) {
  llvm::Expected<Inner> in = innerLayout(c);
  if (!in)
    return in.takeError();
  return LayoutValue(m(in->layout));
}

// composition and the divides: a layout or a swizzled layout by a tiler.
template <typename Op>
llvm::Expected<LayoutValue> byTiler(const Call &c, Op op) {
  llvm::Expected<Tiler> t = toTiler(c.arg(1), c.argCol(1));
  if (!t)
    return t.takeError();
  if (c.arg(0).isComposed())
    return c.composedResult(op(c.arg(0).getComposed(), *t));
  return onLayout(c, [&](const Layout &l) { return c.result(op(l, *t)); });
}

// The products by a tiler: the layout is read before the tiler.
template <typename Op>
llvm::Expected<LayoutValue> productByTiler(const Call &c, Op op) {
  return onLayout(c, [&](const Layout &l) -> llvm::Expected<LayoutValue> {
    llvm::Expected<Tiler> t = toTiler(c.arg(1), c.argCol(1));
    if (!t)
      return t.takeError();
    return c.result(op(l, *t));
  });
}

// recast, upcast, downcast of a swizzle, a swizzled layout or a layout;
// `what` names the integer arguments after the first.
template <typename Op>
llvm::Expected<LayoutValue> cast(const Call &c,
                                 llvm::ArrayRef<const char *> what, Op op) {
  std::vector<int64_t> nums;
  for (size_t i = 1; i < c.args.size(); ++i) {
    llvm::Expected<int64_t> n = toInt(c.arg(i), c.argCol(i), c.f, what[i - 1]);
    if (!n)
      return n.takeError();
    if (*n <= 0 || *n > 4096)
      return errorAt(c.argCol(i), llvm::formatv("{0}: {1} must be between "
                                                "1 and 4096",
                                                c.f, *n));
    nums.push_back(*n);
  }
  const LayoutValue &a0 = c.arg(0);
  if (a0.isSwizzle()) {
    // As CuTe's recast_layout<Old, New>(Swizzle): M moves by log2 of the
    // width ratio.
    llvm::Expected<Swizzle> s = op(a0.getSwizzle(), nums);
    if (!s)
      return c.wrap(s.takeError());
    return LayoutValue(*s);
  }
  if (a0.isComposed())
    return c.composedResult(op(a0.getComposed(), nums));
  return onLayout(c, [&](const Layout &l) { return c.result(op(l, nums)); });
}

// order(1, 0) is the tuple (1, 0): another spelling of the ORDER of
// tile_to_shape and make_ordered (docs/cli.md).
llvm::Expected<LayoutValue> evalOrder(const Call &c) {
  std::vector<LayoutValue> elems;
  for (const Arg &arg : c.args) {
    if (!arg.value.isInteger() && !arg.value.isIntTuple())
      return errorAt(arg.col, "order: an element must be an integer or a "
                              "tuple of integers, not " +
                                  arg.value.str());
    elems.push_back(arg.value);
  }
  return LayoutValue(std::move(elems));
}

llvm::Expected<LayoutValue> evalMakeLayout(const Call &c) {
  if (!c.sawMajor && c.args.size() == 2)
    return errorAt(c.argCol(1), "make_layout: the second argument must be "
                                "'left' or 'right'");
  llvm::Expected<IntTuple> s = toShape(c.arg(0), c.argCol(0), c.f, "the shape");
  if (!s)
    return s.takeError();
  return onLayout(c, [&](const Layout &) {
    return c.result(c.rowMajor ? makeLayoutRight(*s) : makeLayoutLeft(*s));
  });
}

llvm::Expected<LayoutValue> evalMakeOrdered(const Call &c) {
  return onLayout(c, [&](const Layout &l) -> llvm::Expected<LayoutValue> {
    llvm::Expected<IntTuple> order =
        toShape(c.arg(1), c.argCol(1), c.f, "the order");
    if (!order)
      return order.takeError();
    if (!isWeaklyCongruent(*order, l.shape))
      return errorAt(c.argCol(1), "make_ordered: the order " + order->str() +
                                      " does not follow the shape " +
                                      l.shape.str());
    return c.result(makeOrderedLayout(l.shape, *order));
  });
}

llvm::Expected<LayoutValue> evalCoalesce(const Call &c) {
  llvm::Expected<Inner> in = innerLayout(c);
  if (!in)
    return in.takeError();
  if (c.args.size() == 1)
    return rewrap(c, *in, coalesce(in->layout));
  llvm::Expected<IntTuple> profile =
      toShape(c.arg(1), c.argCol(1), c.f, "the profile");
  if (!profile)
    return profile.takeError();
  return rewrap(c, *in, coalesce(in->layout, *profile));
}

llvm::Expected<LayoutValue> evalComposition(const Call &c) {
  if (c.arg(0).isSwizzle()) {
    llvm::Expected<Layout> b = toLayout(c.arg(1), c.argCol(1), c.f);
    if (!b)
      return b.takeError();
    return c.composedResult(ComposedLayout(c.arg(0).getSwizzle(), 0, *b));
  }
  return byTiler(
      c, [](const auto &a, const Tiler &t) { return composition(a, t); });
}

llvm::Expected<LayoutValue> evalComplement(const Call &c) {
  return onLayout(c, [&](const Layout &l) -> llvm::Expected<LayoutValue> {
    if (c.args.size() == 1)
      return c.result(complement(l));
    llvm::Expected<IntTuple> n =
        toShape(c.arg(1), c.argCol(1), c.f, "the codomain size");
    if (!n)
      return n.takeError();
    if (n->product() <= 0)
      return errorAt(c.argCol(1), "complement: the codomain size must be "
                                  "positive");
    return c.result(complement(l, *n));
  });
}

llvm::Expected<LayoutValue> evalMaxCommonVector(const Call &c) {
  return onTwoLayouts(
      c, [&](const Layout &a, const Layout &b) -> llvm::Expected<LayoutValue> {
        llvm::Expected<int64_t> n = maxCommonVector(a, b);
        if (!n)
          return c.wrap(n.takeError());
        return LayoutValue(*n);
      });
}

llvm::Expected<LayoutValue> evalTileToShape(const Call &c) {
  llvm::Expected<IntTuple> shape =
      toShape(c.arg(1), c.argCol(1), c.f, "the target shape");
  if (!shape)
    return shape.takeError();
  for (int64_t x : shape->leaves())
    if (x <= 0)
      return errorAt(c.argCol(1), "tile_to_shape: the target shape " +
                                      shape->str() +
                                      " must have positive modes");
  std::optional<IntTuple> order;
  if (c.args.size() == 3) {
    llvm::Expected<IntTuple> o =
        toShape(c.arg(2), c.argCol(2), c.f, "the order");
    if (!o)
      return o.takeError();
    order = *o;
  }
  if (c.arg(0).isComposed())
    return c.composedResult(tileToShape(c.arg(0).getComposed(), *shape, order));
  return onLayout(c, [&](const Layout &l) {
    return c.result(tileToShape(l, *shape, order));
  });
}

// packed_int4(N, K), packed_int8(N, K): the packed order of a weight [N, K]
// of 4-bit or 8-bit codes, (n, k) -> nibble or byte offset
// (ir/layout/WeightPack.h).
llvm::Expected<LayoutValue> evalPackedWeight(const Call &c, unsigned bits) {
  int64_t ext[2];
  for (size_t i = 0; i < 2; ++i) {
    llvm::Expected<int64_t> x =
        toInt(c.arg(i), c.argCol(i), c.f, i == 0 ? "N" : "K");
    if (!x)
      return x.takeError();
    ext[i] = *x;
  }
  if (llvm::Error e = checkPackableWeight(bits, ext[0], ext[1]))
    return errorAt(c.argCol(ext[0] <= 0 || ext[0] % PackedWeightBlockN ? 0 : 1),
                   c.f.str() + ": " + llvm::toString(std::move(e)));
  if (ext[0] >= kMaxInt / ext[1])
    return errorAt(c.col, llvm::formatv("{0}: N x K = {1} x {2} is "
                                        "not below 2^31",
                                        c.f, ext[0], ext[1]));
  return c.result(packedWeightLayout(bits, ext[0], ext[1]));
}

// The functions of the language, one row each (FunctionInfo in
// ir/layout/LayoutExprCall.h).
const FunctionInfo kFunctions[] = {
    {"make_layout", 1, 2, evalMakeLayout},
    {"make_ordered", 2, 2, evalMakeOrdered},
    {"coalesce", 1, 2, evalCoalesce},
    {"composition", 2, 2, evalComposition},
    {"complement", 1, 2, evalComplement},
    {"logical_divide", 2, 2,
     [](const Call &c) {
       return byTiler(c, [](const auto &a, const Tiler &t) {
         return logicalDivide(a, t);
       });
     }},
    {"zipped_divide", 2, 2,
     [](const Call &c) {
       return byTiler(
           c, [](const auto &a, const Tiler &t) { return zippedDivide(a, t); });
     }},
    {"tiled_divide", 2, 2,
     [](const Call &c) {
       return byTiler(
           c, [](const auto &a, const Tiler &t) { return tiledDivide(a, t); });
     }},
    {"flat_divide", 2, 2,
     [](const Call &c) {
       return byTiler(
           c, [](const auto &a, const Tiler &t) { return flatDivide(a, t); });
     }},
    {"logical_product", 2, 2,
     [](const Call &c) {
       return productByTiler(c, [](const Layout &a, const Tiler &t) {
         return logicalProduct(a, t);
       });
     }},
    {"zipped_product", 2, 2,
     [](const Call &c) {
       return productByTiler(c, [](const Layout &a, const Tiler &t) {
         return zippedProduct(a, t);
       });
     }},
    {"tiled_product", 2, 2,
     [](const Call &c) {
       return productByTiler(c, [](const Layout &a, const Tiler &t) {
         return tiledProduct(a, t);
       });
     }},
    {"blocked_product", 2, 2,
     [](const Call &c) {
       return onTwoLayouts(c, [&](const Layout &a, const Layout &b) {
         return c.result(blockedProduct(a, b));
       });
     }},
    {"raked_product", 2, 2,
     [](const Call &c) {
       return onTwoLayouts(c, [&](const Layout &a, const Layout &b) {
         return c.result(rakedProduct(a, b));
       });
     }},
    {"right_inverse", 1, 1,
     [](const Call &c) {
       return onLayout(
           c, [&](const Layout &l) { return c.result(rightInverse(l)); });
     }},
    {"left_inverse", 1, 1,
     [](const Call &c) {
       return onLayout(
           c, [&](const Layout &l) { return c.result(leftInverse(l)); });
     }},
    {"tile_to_shape", 2, 3, evalTileToShape},
    {"recast", 3, 3,
     [](const Call &c) {
       return cast(c, {"FROM_BITS", "TO_BITS"},
                   [](const auto &x, const std::vector<int64_t> &n) {
                     return recast(x, n[0], n[1]);
                   });
     }},
    {"upcast", 2, 2,
     [](const Call &c) {
       return cast(c, {"N"}, [](const auto &x, const std::vector<int64_t> &n) {
         return upcast(x, n[0]);
       });
     }},
    {"downcast", 2, 2,
     [](const Call &c) {
       return cast(c, {"N"}, [](const auto &x, const std::vector<int64_t> &n) {
         return downcast(x, n[0]);
       });
     }},
    {"max_common_vector", 2, 2, evalMaxCommonVector},
    {"max_common_layout", 2, 2,
     [](const Call &c) {
       return onTwoLayouts(c, [&](const Layout &a, const Layout &b) {
         return c.result(maxCommonLayout(a, b));
       });
     }},
    {"size", 1, 1,
     [](const Call &c) {
       return measure(c, [](const Layout &l) { return LayoutValue(l.size()); });
     }},
    {"cosize", 1, 1,
     [](const Call &c) {
       return measure(c,
                      [](const Layout &l) { return LayoutValue(l.cosize()); });
     }},
    {"rank", 1, 1,
     [](const Call &c) {
       return measure(
           c, [](const Layout &l) { return LayoutValue(int64_t(l.rank())); });
     }},
    {"depth", 1, 1,
     [](const Call &c) {
       return measure(
           c, [](const Layout &l) { return LayoutValue(int64_t(l.depth())); });
     }},
    {"flatten", 1, 1,
     [](const Call &c) -> llvm::Expected<LayoutValue> {
       llvm::Expected<Inner> in = innerLayout(c);
       if (!in)
         return in.takeError();
       return rewrap(c, *in, flatten(in->layout));
     }},
    {"filter", 1, 1,
     [](const Call &c) -> llvm::Expected<LayoutValue> {
       llvm::Expected<Inner> in = innerLayout(c);
       if (!in)
         return in.takeError();
       return rewrap(c, *in, filter(in->layout));
     }},
    {"order", 1, 8, evalOrder},
    {"packed_int4", 2, 2, [](const Call &c) { return evalPackedWeight(c, 4); }},
    {"packed_int8", 2, 2, [](const Call &c) { return evalPackedWeight(c, 8); }},
};

} // namespace

const FunctionInfo *layoutexpr::findLayoutFunction(llvm::StringRef name) {
  const FunctionInfo *fn = nullptr;
  for (const FunctionInfo &f : kFunctions)
    if (f.name == name)
      fn = &f;
  return fn;
}
