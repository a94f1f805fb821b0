//===- ir/layout/LayoutExprCall.cpp - Arguments and results of layout calls ------===//
//
// The bounds every value of the layout expression language keeps, the
// conversions of a call's arguments to layouts, tilers, shapes and integers,
// and the checks on a call's result (ir/layout/LayoutExprCall.h). Each error names
// the function and carries the column of the argument or the call.
//
//===----------------------------------------------------------------------===//
#include "ir/layout/LayoutExprCall.h"

#include "llvm/Support/FormatVariadic.h"

using namespace tilec;
using namespace tilec::layoutexpr;

llvm::Error layoutexpr::errorAt(unsigned col, const llvm::Twine &msg) {
  return llvm::make_error<LayoutExprError>(col, msg.str());
}

// Whether size and cosize of a layout stay below 2^31 (computed in 128
// bits so that the check itself cannot overflow).
bool layoutexpr::layoutFits(const Layout &l) {
  __int128 size = 1, cosize = 1;
  std::vector<int64_t> s = l.shape.leaves(), d = l.stride.leaves();
  for (size_t i = 0; i < s.size(); ++i) {
    size *= s[i];
    __int128 absd = d[i] < 0 ? -(__int128)d[i] : (__int128)d[i];
    cosize += (__int128)(s[i] - 1) * absd;
    if (size >= kMaxInt || cosize >= kMaxInt || absd >= kMaxInt)
      return false;
  }
  return true;
}

// Whether the product of |leaves| of a shape stays below 2^31.
bool layoutexpr::shapeFits(const IntTuple &s) {
  __int128 p = 1;
  for (int64_t x : s.leaves()) {
    p *= x < 0 ? -(__int128)x : (__int128)x;
    if (p >= kMaxInt)
      return false;
  }
  return true;
}

// Converts an argument to a tiler: a layout, an integer N (N:1) or a tuple
// of those (by mode).
llvm::Expected<Tiler> layoutexpr::toTiler(const LayoutValue &v, unsigned col) {
  switch (v.getKind()) {
  case LayoutValue::Kind::Layout:
    return Tiler(v.getLayout());
  case LayoutValue::Kind::Integer:
    if (v.getInteger() <= 0)
      return errorAt(col, llvm::formatv("a tiler of size {0}; tile sizes "
                                        "must be positive",
                                        v.getInteger()));
    return Tiler(makeLayoutLeft(IntTuple(v.getInteger())));
  case LayoutValue::Kind::Tuple: {
    std::vector<Tiler> modes;
    for (const LayoutValue &e : v.getElems()) {
      llvm::Expected<Tiler> t = toTiler(e, col);
      if (!t)
        return t.takeError();
      modes.push_back(std::move(*t));
    }
    return Tiler(std::move(modes));
  }
  default:
    return errorAt(col, "a tiler must be a layout, an integer or a tuple of "
                        "those, not " +
                            v.str());
  }
}

llvm::Expected<Layout> layoutexpr::toLayout(const LayoutValue &v, unsigned col,
                                            llvm::StringRef fn) {
  if (v.isLayout())
    return v.getLayout();
  if (v.isIntTuple()) {
    IntTuple s = v.getIntTuple();
    for (int64_t x : s.leaves())
      if (x <= 0)
        return errorAt(col, llvm::formatv("{0}: the shape {1} has a mode "
                                          "{2}; modes must be positive",
                                          fn, s.str(), x));
    if (!shapeFits(s))
      return errorAt(col, fn + ": the shape " + s.str() +
                              " is too large (its size must be below 2^31)");
    return makeLayoutLeft(s);
  }
  return errorAt(col,
                 fn + ": expected a layout, not " +
                     (v.isComposed() ? "the swizzled layout " : std::string()) +
                     v.str());
}

llvm::Expected<IntTuple> layoutexpr::toShape(const LayoutValue &v, unsigned col,
                                             llvm::StringRef fn,
                                             llvm::StringRef what) {
  if (!v.isIntTuple())
    return errorAt(col, fn + ": " + what +
                            " must be a tuple of integers, "
                            "not " +
                            v.str());
  IntTuple s = v.getIntTuple();
  if (!shapeFits(s))
    return errorAt(col, fn + ": " + what + " " + s.str() +
                            " is too large (its product must be below 2^31)");
  return s;
}

llvm::Expected<int64_t> layoutexpr::toInt(const LayoutValue &v, unsigned col,
                                          llvm::StringRef fn,
                                          llvm::StringRef what) {
  if (!v.isInteger())
    return errorAt(col,
                   fn + ": " + what + " must be an integer, not " + v.str());
  return v.getInteger();
}

// Wraps an algebra error with the column of the call.
llvm::Error Call::wrap(llvm::Error e) const {
  std::string msg = llvm::toString(std::move(e));
  if (!llvm::StringRef(msg).starts_with(f))
    msg = f.str() + ": " + msg;
  return errorAt(col, msg);
}

llvm::Expected<LayoutValue> Call::result(llvm::Expected<Layout> l) const {
  if (!l)
    return wrap(l.takeError());
  if (!layoutFits(*l))
    return errorAt(col, f + ": the result " + l->str() +
                            " is too large (size and cosize must be "
                            "below 2^31)");
  return LayoutValue(*l);
}

llvm::Expected<LayoutValue>
Call::composedResult(llvm::Expected<ComposedLayout> l) const {
  if (!l)
    return wrap(l.takeError());
  if (!layoutFits(l->layout))
    return errorAt(col, f + ": the result " + l->str() +
                            " is too large (size and cosize must be "
                            "below 2^31)");
  return LayoutValue(*l);
}
