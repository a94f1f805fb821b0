//===- ir/layout/LayoutAlgebra.cpp - Composition, complement, divide, product ----===//
//
// CuTe's layout algebra on runtime values. Every admissibility condition CuTe
// checks statically (stride and shape divisibility in composition, injectivity
// in complement, divisibility in tile_to_shape, upcast and left_inverse) is an
// llvm::Error here that names the numbers involved.
//
//===----------------------------------------------------------------------===//
#include "ir/layout/LayoutAlgebra.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

using namespace tilec;

using llvm::Expected;

namespace {

llvm::Error fail(const std::string &msg) {
  return llvm::createStringError(msg);
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t signum(int64_t a) { return (a > 0) - (a < 0); }

// Flat modes of a layout: a leaf layout is one mode.
struct FlatLayout {
  std::vector<int64_t> shape, stride;
  bool isLeaf;
};

FlatLayout flatModes(const Layout &l) {
  return {l.shape.leaves(), l.stride.leaves(), l.shape.isLeaf()};
}

Layout leafOrTuple(const std::vector<int64_t> &s,
                   const std::vector<int64_t> &d) {
  if (s.size() == 1)
    return Layout(s[0], d[0]);
  std::vector<IntTuple> ts, td;
  for (size_t i = 0; i < s.size(); ++i) {
    ts.push_back(s[i]);
    td.push_back(d[i]);
  }
  return Layout(IntTuple(std::move(ts)), IntTuple(std::move(td)));
}

// composition_impl: the coalesced lhs (flat modes) with one rhs mode.
Expected<Layout> compositionImpl(const FlatLayout &lhs, const Layout &a,
                                 const IntTuple &rShape,
                                 const IntTuple &rStride) {
  if (rShape.isTuple()) {
    std::vector<Layout> modes;
    for (size_t i = 0; i < rShape.rank(); ++i) {
      Expected<Layout> m = compositionImpl(lhs, a, rShape[i], rStride[i]);
      if (!m)
        return m.takeError();
      modes.push_back(std::move(*m));
    }
    return makeLayout(modes);
  }
  int64_t restShape = rShape.getValue(), restStride = rStride.getValue();
  if (restStride == 0)
    return Layout(restShape, 0);
  if (lhs.isLeaf)
    return Layout(restShape, restStride * lhs.stride[0]);
  size_t r = lhs.shape.size();
  std::vector<int64_t> resShape, resStride;
  for (size_t i = 0; i + 1 < r; ++i) {
    int64_t currShape = lhs.shape[i], currStride = lhs.stride[i];
    int64_t absStride = std::llabs(restStride);
    if (absStride % currShape != 0 && absStride >= currShape)
      return fail(llvm::formatv(
          "composition of {0} with stride {1}: the stride is neither a "
          "multiple of nor less than the shape {2} of the left layout "
          "(stride divisibility condition)",
          a.str(), rStride.getValue(), currShape));
    int64_t nextShape = ceilDiv(currShape, absStride);
    int64_t nextStride = ceilDiv(absStride, currShape) * signum(restStride);
    // CuTe's weak condition lets a stride smaller than the shape through
    // even when it does not divide it; the result is only the function
    // A(B(i)) when B ends inside this mode, so anything else is an error.
    if (currShape % absStride != 0 && absStride < currShape &&
        restShape > nextShape)
      return fail(llvm::formatv(
          "composition of {0} with {1}:{2}: stride {3} does not divide the "
          "shape {4} of the left (coalesced) layout and the right layout "
          "runs past it (stride divisibility condition)",
          a.str(), rShape.getValue(), rStride.getValue(), absStride,
          currShape));
    if (nextShape == 1 || restShape == 1) {
      restStride = nextStride;
      continue;
    }
    int64_t newShape = std::min(nextShape, restShape);
    if (restShape % newShape != 0)
      return fail(llvm::formatv(
          "composition of {0} with {1}:{2}: the remaining shape {3} is not "
          "a multiple of {4}, the part of it that fits in the left layout's "
          "mode "
          "of size {5} (shape divisibility condition)",
          a.str(), rShape.getValue(), rStride.getValue(), restShape, newShape,
          currShape));
    resShape.push_back(newShape);
    resStride.push_back(restStride * currStride);
    restShape /= newShape;
    restStride = nextStride;
  }
  if (resShape.empty())
    return Layout(restShape, restStride * lhs.stride[r - 1]);
  if (restShape == 1)
    return leafOrTuple(resShape, resStride);
  resShape.push_back(restShape);
  resStride.push_back(restStride * lhs.stride[r - 1]);
  return leafOrTuple(resShape, resStride);
}

// ceil_div of a (possibly tuple) codomain shape by an integer, then
// coalesced to one integer, as complement's rest mode.
int64_t ceilDivShape(const IntTuple &target, int64_t n) {
  int64_t rest = n, prod = 1;
  for (int64_t a : target.leaves()) {
    prod *= ceilDiv(a, rest);
    rest = ceilDiv(rest, a);
  }
  return prod;
}

} // namespace

std::string Tiler::str() const {
  if (layout)
    return layout->str();
  std::string s = "(";
  for (size_t i = 0; i < modes.size(); ++i) {
    if (i)
      s += ',';
    s += modes[i].str();
  }
  return s + ")";
}

Tiler Tiler::fromShape(const IntTuple &shape) {
  if (shape.isLeaf())
    return Tiler(makeLayoutLeft(shape));
  std::vector<Tiler> modes;
  for (const IntTuple &e : shape.getElems())
    modes.push_back(fromShape(e));
  return Tiler(std::move(modes));
}

Expected<Layout> tilec::composition(const Layout &a, const Layout &b) {
  FlatLayout lhs = flatModes(coalesceX(a));
  return compositionImpl(lhs, a, b.shape, b.stride);
}

static llvm::Error tooManyModes(const char *op, const Layout &a,
                                const Tiler &b) {
  return fail(llvm::formatv("{0}: the tiler {1} has {2} modes but the layout "
                            "{3} has only {4}",
                            op, b.str(), b.getModes().size(), a.str(),
                            a.rank()));
}

Expected<Layout> tilec::composition(const Layout &a, const Tiler &b) {
  if (b.isLayout())
    return composition(a, b.getLayout());
  if (b.getModes().size() > a.rank())
    return tooManyModes("composition", a, b);
  std::vector<Layout> modes;
  for (size_t i = 0; i < b.getModes().size(); ++i) {
    Expected<Layout> m = composition(a.mode(i), b.getModes()[i]);
    if (!m)
      return m.takeError();
    modes.push_back(std::move(*m));
  }
  return makeLayout(modes);
}

Expected<Layout> tilec::complement(const Layout &a, const IntTuple &coTarget) {
  Layout f = filter(a);
  std::vector<int64_t> shape = f.shape.leaves(), stride = f.stride.leaves();
  if (shape.size() == 1 && stride[0] == 0)
    return makeLayoutLeft(IntTuple(coTarget.product()));
  for (int64_t d : stride)
    if (d < 0)
      return fail(llvm::formatv("complement of {0}: negative stride {1} "
                                "(complement needs non-negative strides)",
                                a.str(), d));
  size_t r = shape.size();
  std::vector<int64_t> resShape, resStride{1};
  for (size_t i = 0; i + 1 < r; ++i) {
    auto it = std::min_element(stride.begin(), stride.end());
    size_t minIdx = it - stride.begin();
    int64_t minStride = *it;
    int64_t newShape = minStride / resStride[i];
    if (newShape == 0)
      return fail(llvm::formatv(
          "complement of {0}: the layout is not injective (stride {1} "
          "lands inside the span {2} of the smaller modes)",
          a.str(), minStride, resStride[i]));
    resShape.push_back(newShape);
    resStride.push_back(minStride * shape[minIdx]);
    shape.erase(shape.begin() + minIdx);
    stride.erase(stride.begin() + minIdx);
  }
  int64_t newShape = stride[0] / resStride[r - 1];
  if (newShape == 0)
    return fail(llvm::formatv(
        "complement of {0}: the layout is not injective (stride {1} lands "
        "inside the span {2} of the smaller modes)",
        a.str(), stride[0], resStride[r - 1]));
  resShape.push_back(newShape);
  int64_t newStride = stride[0] * shape[0];
  resShape.push_back(ceilDivShape(coTarget, newStride));
  resStride.push_back(newStride);
  return coalesce(leafOrTuple(resShape, resStride));
}

Expected<Layout> tilec::complement(const Layout &a, int64_t cosizeHi) {
  return complement(a, IntTuple(cosizeHi));
}

Expected<Layout> tilec::complement(const Layout &a) {
  return complement(a, IntTuple(filter(a).cosize()));
}

// transform_layout(layout, tiler, f): f on the modes the tiler reaches, the
// other modes of the layout kept.
template <typename Fn>
static Expected<Layout> byMode(const char *op, const Layout &a, const Tiler &b,
                               Fn fn) {
  if (b.getModes().size() > a.rank())
    return tooManyModes(op, a, b);
  std::vector<Layout> modes;
  for (size_t i = 0; i < a.rank(); ++i) {
    if (i >= b.getModes().size()) {
      modes.push_back(a.mode(i));
      continue;
    }
    Expected<Layout> m = fn(a.mode(i), b.getModes()[i]);
    if (!m)
      return m.takeError();
    modes.push_back(std::move(*m));
  }
  return makeLayout(modes);
}

Expected<Layout> tilec::logicalDivide(const Layout &a, const Tiler &b) {
  if (!b.isLayout())
    return byMode("logical_divide", a, b, [](const Layout &l, const Tiler &t) {
      return logicalDivide(l, t);
    });
  const Layout &tiler = b.getLayout();
  Expected<Layout> rest = complement(tiler, coalesce(a).shape);
  if (!rest)
    return rest.takeError();
  return composition(a, makeLayout({tiler, *rest}));
}

// zip2_by: gathers the (tile, rest) pairs at the terminals of the tiler
// into ((tiles...), (rests..., extra modes...)).
static std::pair<Layout, Layout> zip2By(const Layout &l, const Tiler &guide) {
  if (guide.isLayout())
    return {l.mode(0), l.mode(1)};
  std::vector<Layout> c0, c1;
  size_t gr = guide.getModes().size();
  for (size_t i = 0; i < gr; ++i) {
    auto [t, r] = zip2By(l.mode(i), guide.getModes()[i]);
    c0.push_back(t);
    c1.push_back(r);
  }
  for (size_t i = gr; i < l.rank(); ++i)
    c1.push_back(l.mode(i));
  return {makeLayout(c0), makeLayout(c1)};
}

static Layout tileUnzip(const Layout &l, const Tiler &guide) {
  auto [t, r] = zip2By(l, guide);
  return makeLayout({t, r});
}

Expected<Layout> tilec::zippedDivide(const Layout &a, const Tiler &b) {
  Expected<Layout> d = logicalDivide(a, b);
  if (!d)
    return d.takeError();
  return tileUnzip(*d, b);
}

// (T, R) -> (T, r0, r1, ...) and (t0, t1, ..., r0, r1, ...). As CuTe's
// result(_, repeat<R1>(_)), where repeat<1>(_) is `_`: a mode of rank 1 is
// kept whole, so tiled_divide(16:1, (4)) is ((4),(4)):((1),(4)).
static Layout unpackModes(const Layout &z, bool first) {
  std::vector<Layout> modes;
  auto append = [&](const Layout &m, bool unpack) {
    if (unpack && m.rank() > 1)
      for (const Layout &sub : m.modes())
        modes.push_back(sub);
    else
      modes.push_back(m);
  };
  append(z.mode(0), first);
  append(z.mode(1), true);
  return makeLayout(modes);
}

Expected<Layout> tilec::tiledDivide(const Layout &a, const Tiler &b) {
  Expected<Layout> z = zippedDivide(a, b);
  if (!z)
    return z.takeError();
  return unpackModes(*z, false);
}

Expected<Layout> tilec::flatDivide(const Layout &a, const Tiler &b) {
  Expected<Layout> z = zippedDivide(a, b);
  if (!z)
    return z.takeError();
  return unpackModes(*z, true);
}

Expected<Layout> tilec::logicalProduct(const Layout &a, const Tiler &b) {
  if (!b.isLayout())
    return byMode("logical_product", a, b, [](const Layout &l, const Tiler &t) {
      return logicalProduct(l, t);
    });
  const Layout &tiler = b.getLayout();
  Expected<Layout> c = complement(a, a.size() * tiler.cosize());
  if (!c)
    return c.takeError();
  Expected<Layout> rest = composition(*c, tiler);
  if (!rest)
    return rest.takeError();
  return makeLayout({a, *rest});
}

Expected<Layout> tilec::zippedProduct(const Layout &a, const Tiler &b) {
  Expected<Layout> p = logicalProduct(a, b);
  if (!p)
    return p.takeError();
  return tileUnzip(*p, b);
}

Expected<Layout> tilec::tiledProduct(const Layout &a, const Tiler &b) {
  Expected<Layout> z = zippedProduct(a, b);
  if (!z)
    return z.takeError();
  return unpackModes(*z, false);
}

// append<R>(layout): pads with 1:0 modes up to rank R.
static Layout padToRank(const Layout &l, size_t r) {
  if (l.rank() >= r)
    return l;
  std::vector<Layout> modes = l.modes();
  while (modes.size() < r)
    modes.push_back(Layout(1, 0));
  return makeLayout(modes);
}

static Expected<Layout> rankProduct(const Layout &a, const Layout &b,
                                    bool raked) {
  size_t r = std::max(a.rank(), b.rank());
  Layout pa = padToRank(a, r), pb = padToRank(b, r);
  Expected<Layout> p = logicalProduct(pa, Tiler(pb));
  if (!p)
    return p.takeError();
  // Mode i of each half; a leaf operand's composed half may be a tuple
  // (a mode split by the composition) and is then one mode as a whole.
  Layout block = p->mode(0), rest = p->mode(1);
  auto modeOf = [](const Layout &half, const Layout &operand, size_t i) {
    return operand.shape.isLeaf() ? half : half.mode(i);
  };
  if (r == 1 && pa.shape.isLeaf() && pb.shape.isLeaf())
    return raked ? makeLayout({rest, block}) : makeLayout({block, rest});
  std::vector<Layout> modes;
  for (size_t i = 0; i < r; ++i) {
    Layout x = modeOf(block, pa, i), y = modeOf(rest, pb, i);
    modes.push_back(raked ? makeLayout({y, x}) : makeLayout({x, y}));
  }
  return makeLayout(modes);
}

Expected<Layout> tilec::blockedProduct(const Layout &a, const Layout &b) {
  return rankProduct(a, b, false);
}

Expected<Layout> tilec::rakedProduct(const Layout &a, const Layout &b) {
  return rankProduct(a, b, true);
}

Layout tilec::rightInverse(const Layout &layout) {
  Layout c = coalesce(layout);
  std::vector<int64_t> shape = c.shape.leaves(), stride = c.stride.leaves();
  std::vector<int64_t> preprod{1};
  for (int64_t s : shape)
    preprod.push_back(preprod.back() * s);
  std::vector<size_t> order(shape.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return stride[x] < stride[y]; });
  std::vector<int64_t> rs{1}, rd{0};
  int64_t curr = 1;
  for (size_t i : order) {
    if (stride[i] != curr)
      continue;
    rs.push_back(shape[i]);
    rd.push_back(preprod[i]);
    curr = shape[i] * stride[i];
  }
  return coalesce(leafOrTuple(rs, rd));
}

Expected<Layout> tilec::leftInverse(const Layout &layout) {
  Layout c = coalesce(layout);
  std::vector<int64_t> shape = c.shape.leaves(), stride = c.stride.leaves();
  for (int64_t d : stride)
    if (d < 0)
      return fail(llvm::formatv("left_inverse of {0}: negative stride {1} "
                                "(left_inverse needs non-negative strides)",
                                layout.str(), d));
  std::vector<int64_t> preprod{1};
  for (int64_t s : shape)
    preprod.push_back(preprod.back() * s);
  std::vector<size_t> order(shape.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return stride[x] < stride[y]; });
  std::vector<int64_t> rs, rd{0};
  int64_t size = 1;
  for (size_t i : order) {
    if (stride[i] == 0)
      continue;
    if (stride[i] % size != 0)
      return fail(llvm::formatv(
          "left_inverse of {0}: stride {1} is not a multiple of {2}, the "
          "size covered by the smaller strides (left inverse divisibility "
          "condition)",
          layout.str(), stride[i], size));
    rs.push_back(stride[i] / size);
    rd.push_back(preprod[i]);
    size *= rs.back();
  }
  rs.push_back(shape[order.back()]);
  return coalesce(leafOrTuple(rs, rd));
}

Expected<Layout> tilec::tileToShape(const Layout &atom, const IntTuple &shape,
                                    const std::optional<IntTuple> &order) {
  size_t r = shape.rank();
  if (atom.rank() > r)
    return fail(llvm::formatv("tile_to_shape: the atom {0} has rank {1}, more "
                              "than the rank {2} of the target shape {3}",
                              atom.str(), atom.rank(), r, shape.str()));
  Layout block = padToRank(atom, r);
  std::vector<IntTuple> product;
  for (size_t i = 0; i < r; ++i) {
    int64_t bs = block.mode(i).size(), ts = shape[i].product();
    if (bs <= 0 || ts <= 0 || ts % bs != 0)
      return fail(llvm::formatv(
          "tile_to_shape: mode {0} of the target shape {1} is {2}, not a "
          "multiple of the atom's {3} (the atom is {4})",
          i, shape.str(), ts, bs, atom.str()));
    product.push_back(ts / bs);
  }
  IntTuple productShape =
      r == 1 && shape.isLeaf() ? product[0] : IntTuple(product);
  Layout tiler;
  if (order) {
    if (!isWeaklyCongruent(*order, productShape) ||
        order->rank() != productShape.rank())
      return fail(llvm::formatv("tile_to_shape: the order {0} does not have "
                                "one entry per mode of {1}",
                                order->str(), shape.str()));
    tiler = makeOrderedLayout(productShape, *order);
  } else {
    tiler = makeLayoutLeft(productShape);
  }
  return blockedProduct(block, tiler);
}

Expected<ComposedLayout>
tilec::tileToShape(const ComposedLayout &atom, const IntTuple &shape,
                   const std::optional<IntTuple> &order) {
  Expected<Layout> l = tileToShape(atom.layout, shape, order);
  if (!l)
    return l.takeError();
  return ComposedLayout(atom.swizzle, atom.offset, *l);
}

static bool isPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

static int log2Exact(int64_t n) {
  int k = 0;
  while ((int64_t(1) << k) < n)
    ++k;
  return k;
}

static Expected<IntTuple> upcastStrides(const IntTuple &s, const IntTuple &d,
                                        int64_t n, IntTuple &outShape,
                                        const Layout &whole) {
  if (s.isTuple()) {
    std::vector<IntTuple> ns, nd;
    for (size_t i = 0; i < s.rank(); ++i) {
      IntTuple si;
      Expected<IntTuple> di = upcastStrides(s[i], d[i], n, si, whole);
      if (!di)
        return di.takeError();
      ns.push_back(si);
      nd.push_back(*di);
    }
    outShape = IntTuple(std::move(ns));
    return IntTuple(std::move(nd));
  }
  int64_t stride = d.getValue(), shape = s.getValue();
  if (stride == 0) {
    outShape = s;
    return d;
  }
  int64_t a = std::llabs(stride);
  if (a % n != 0 && n % a != 0)
    return fail(llvm::formatv("upcast of {0} by {1}: stride {2} is neither "
                              "a multiple nor a divisor of {1}",
                              whole.str(), n, stride));
  outShape = IntTuple(ceilDiv(shape, ceilDiv(n, a)));
  return IntTuple(signum(stride) * ceilDiv(a, n));
}

Expected<Layout> tilec::upcast(const Layout &layout, int64_t n) {
  if (n <= 0)
    return fail(llvm::formatv("upcast by {0}: the factor must be positive", n));
  IntTuple shape;
  Expected<IntTuple> stride =
      upcastStrides(layout.shape, layout.stride, n, shape, layout);
  if (!stride)
    return stride.takeError();
  return Layout(shape, *stride);
}

static IntTuple downcastShape(const IntTuple &s, const IntTuple &d, int64_t n,
                              IntTuple &outStride) {
  if (s.isTuple()) {
    std::vector<IntTuple> ns, nd;
    for (size_t i = 0; i < s.rank(); ++i) {
      IntTuple di;
      ns.push_back(downcastShape(s[i], d[i], n, di));
      nd.push_back(di);
    }
    outStride = IntTuple(std::move(nd));
    return IntTuple(std::move(ns));
  }
  int64_t stride = d.getValue();
  if (stride == 1 || stride == -1) {
    outStride = d;
    return IntTuple(s.getValue() * n);
  }
  outStride = IntTuple(stride * n);
  return s;
}

Expected<Layout> tilec::downcast(const Layout &layout, int64_t n) {
  if (n <= 0)
    return fail(
        llvm::formatv("downcast by {0}: the factor must be positive", n));
  bool hasUnit = false;
  for (int64_t d : layout.stride.leaves())
    hasUnit |= d == 1 || d == -1;
  if (!hasUnit)
    return fail(llvm::formatv("downcast of {0}: no mode has stride 1, so "
                              "adjacent elements cannot be split",
                              layout.str()));
  IntTuple stride;
  IntTuple shape = downcastShape(layout.shape, layout.stride, n, stride);
  return Layout(shape, stride);
}

static std::pair<int64_t, int64_t> ratio(int64_t fromBits, int64_t toBits) {
  int64_t g = std::gcd(fromBits, toBits);
  return {toBits / g, fromBits / g};
}

/// recast for any layout kind with upcast and downcast: a width ratio
/// num/den upcasts by num, then downcasts by den.
template <typename LayoutT>
static Expected<LayoutT> recastThroughRatio(const LayoutT &layout,
                                            int64_t fromBits, int64_t toBits) {
  if (fromBits <= 0 || toBits <= 0)
    return fail(llvm::formatv("recast from {0} to {1} bits: widths must be "
                              "positive",
                              fromBits, toBits));
  auto [num, den] = ratio(fromBits, toBits);
  if (num == 1 && den == 1)
    return layout;
  if (num == 1)
    return downcast(layout, den);
  if (den == 1)
    return upcast(layout, num);
  Expected<LayoutT> up = upcast(layout, num);
  if (!up)
    return up.takeError();
  return downcast(*up, den);
}

Expected<Layout> tilec::recast(const Layout &layout, int64_t fromBits,
                               int64_t toBits) {
  return recastThroughRatio(layout, fromBits, toBits);
}

Expected<Swizzle> tilec::recast(const Swizzle &swizzle, int64_t fromBits,
                                int64_t toBits) {
  return recastThroughRatio(swizzle, fromBits, toBits);
}

Expected<Swizzle> tilec::upcast(const Swizzle &swizzle, int64_t n) {
  if (!isPowerOfTwo(n))
    return fail(llvm::formatv("upcast of {0} by {1}: a swizzle can only be "
                              "recast by a power of two",
                              swizzle.str(), n));
  int newBase = swizzle.base - log2Exact(n);
  if (newBase >= 0)
    return Swizzle(swizzle.bits, newBase, swizzle.shift);
  return Swizzle(std::max(swizzle.bits + newBase, 0), 0, swizzle.shift);
}

Expected<Swizzle> tilec::downcast(const Swizzle &swizzle, int64_t n) {
  if (!isPowerOfTwo(n))
    return fail(llvm::formatv("downcast of {0} by {1}: a swizzle can only "
                              "be recast by a power of two",
                              swizzle.str(), n));
  return Swizzle::get(swizzle.bits, swizzle.base + log2Exact(n), swizzle.shift);
}

Expected<ComposedLayout> tilec::upcast(const ComposedLayout &layout,
                                       int64_t n) {
  Expected<Swizzle> sw = upcast(layout.swizzle, n);
  if (!sw)
    return sw.takeError();
  if (layout.offset % n != 0)
    return fail(llvm::formatv("upcast of {0} by {1}: the offset {2} is not a "
                              "multiple of {1}",
                              layout.str(), n, layout.offset));
  Expected<Layout> l = upcast(layout.layout, n);
  if (!l)
    return l.takeError();
  return ComposedLayout(*sw, layout.offset / n, *l);
}

Expected<ComposedLayout> tilec::downcast(const ComposedLayout &layout,
                                         int64_t n) {
  Expected<Swizzle> sw = downcast(layout.swizzle, n);
  if (!sw)
    return sw.takeError();
  Expected<Layout> l = downcast(layout.layout, n);
  if (!l)
    return l.takeError();
  return ComposedLayout(*sw, layout.offset * n, *l);
}

Expected<ComposedLayout> tilec::recast(const ComposedLayout &layout,
                                       int64_t fromBits, int64_t toBits) {
  return recastThroughRatio(layout, fromBits, toBits);
}

Expected<int64_t> tilec::maxCommonVector(const Layout &a, const Layout &b) {
  Expected<Layout> c = composition(a, rightInverse(b));
  if (!c)
    return c.takeError();
  Layout common = coalesce(*c);
  if (common.mode(0).stride.getValue() == 1)
    return common.mode(0).shape.getValue();
  return 1;
}

Expected<Layout> tilec::maxCommonLayout(const Layout &a, const Layout &b) {
  Layout invB = rightInverse(b);
  Expected<Layout> c = composition(a, invB);
  if (!c)
    return c.takeError();
  Layout common = coalesce(*c);
  if (common.mode(0).stride.getValue() == 1)
    return composition(invB, common.mode(0));
  return Layout(1, 0);
}

template <typename Fn>
static Expected<ComposedLayout> onInner(const ComposedLayout &a, Fn fn) {
  Expected<Layout> l = fn(a.layout);
  if (!l)
    return l.takeError();
  return ComposedLayout(a.swizzle, a.offset, *l);
}

Expected<ComposedLayout> tilec::composition(const ComposedLayout &a,
                                            const Tiler &b) {
  return onInner(a, [&](const Layout &l) { return composition(l, b); });
}
Expected<ComposedLayout> tilec::logicalDivide(const ComposedLayout &a,
                                              const Tiler &b) {
  return onInner(a, [&](const Layout &l) { return logicalDivide(l, b); });
}
Expected<ComposedLayout> tilec::zippedDivide(const ComposedLayout &a,
                                             const Tiler &b) {
  return onInner(a, [&](const Layout &l) { return zippedDivide(l, b); });
}
Expected<ComposedLayout> tilec::tiledDivide(const ComposedLayout &a,
                                            const Tiler &b) {
  return onInner(a, [&](const Layout &l) { return tiledDivide(l, b); });
}
Expected<ComposedLayout> tilec::flatDivide(const ComposedLayout &a,
                                           const Tiler &b) {
  return onInner(a, [&](const Layout &l) { return flatDivide(l, b); });
}
