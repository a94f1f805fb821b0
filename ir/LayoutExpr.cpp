//===- ir/LayoutExpr.cpp - The layout expression language -----------------===//
//
// A recursive-descent parser that evaluates as it parses. Grammar:
//
//   expr    := primary ('o' primary)*          swizzle o [offset o] layout
//   primary := INT | tuple [':' tuple-or-int] | INT ':' tuple-or-int
//            | 'Sw' '<' INT ',' INT ',' INT '>'
//            | ATOM '<' DTYPE '>'              K_SW128<bf16>, MN_INTER<f32>
//            | NAME '(' args ')'               the functions of the algebra
//            | NAME                            a value from the environment
//   tuple   := '(' [expr (',' expr)*] ')'
//
// Every error carries the 0-based column of the token it is about. Integers
// are bounded (|n| < 2^31) and every layout value has size and cosize below
// 2^31, so that no arithmetic in the algebra can overflow.
//
//===----------------------------------------------------------------------===//
#include "ir/LayoutExpr.h"

#include "ir/DType.h"
#include "ir/LayoutAlgebra.h"
#include "ir/SwizzleAtom.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <cstdlib>

using namespace tilec;

char LayoutExprError::ID = 0;

void LayoutExprError::log(llvm::raw_ostream &os) const {
  os << "column " << column << ": " << message;
}

std::error_code LayoutExprError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

LayoutExprDiag tilec::toLayoutExprDiag(llvm::Error err) {
  LayoutExprDiag diag;
  llvm::handleAllErrors(
      std::move(err),
      [&](const LayoutExprError &e) {
        diag.column = e.getColumn();
        diag.message = e.getMessage();
      },
      [&](const llvm::ErrorInfoBase &e) { diag.message = e.message(); });
  return diag;
}

bool LayoutValue::isIntTuple() const {
  if (kind == Kind::Integer)
    return true;
  if (kind != Kind::Tuple)
    return false;
  return llvm::all_of(elems,
                      [](const LayoutValue &v) { return v.isIntTuple(); });
}

IntTuple LayoutValue::getIntTuple() const {
  if (kind == Kind::Integer)
    return IntTuple(integer);
  std::vector<IntTuple> out;
  for (const LayoutValue &v : elems)
    out.push_back(v.getIntTuple());
  return IntTuple(std::move(out));
}

std::string LayoutValue::str() const {
  switch (kind) {
  case Kind::Integer:
    return std::to_string(integer);
  case Kind::Tuple: {
    std::string s = "(";
    for (size_t i = 0; i < elems.size(); ++i) {
      if (i)
        s += ',';
      s += elems[i].str();
    }
    return s + ")";
  }
  case Kind::Layout:
    return layout.str();
  case Kind::Swizzle:
    return swizzle.str();
  case Kind::Composed:
    return composed.str();
  }
  return "";
}

namespace {

constexpr int64_t kMaxInt = int64_t(1) << 31;
constexpr int kMaxDepth = 64;

enum class Tok {
  Int,
  Name,
  LParen,
  RParen,
  Comma,
  Colon,
  Less,
  Greater,
  End,
  Bad
};

struct Token {
  Tok kind;
  unsigned col;
  llvm::StringRef text;
  int64_t value = 0;
};

std::string describe(const Token &t) {
  if (t.kind == Tok::End)
    return "the end of the input";
  std::string s = "'";
  s.append(t.text.data(), t.text.size());
  s.push_back('\'');
  return s;
}

llvm::Error errorAt(unsigned col, const llvm::Twine &msg) {
  return llvm::make_error<LayoutExprError>(col, msg.str());
}

// Whether size and cosize of a layout stay below 2^31 (computed in 128
// bits so that the check itself cannot overflow).
bool layoutFits(const Layout &l) {
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

llvm::Expected<Layout> toLayout(const LayoutValue &v, unsigned col,
                                llvm::StringRef fn);

// Whether the product of |leaves| of a shape stays below 2^31.
bool shapeFits(const IntTuple &s) {
  __int128 p = 1;
  for (int64_t x : s.leaves()) {
    p *= x < 0 ? -(__int128)x : (__int128)x;
    if (p >= kMaxInt)
      return false;
  }
  return true;
}

// One evaluated argument of a call and the column where it starts.
struct Arg {
  LayoutValue value;
  unsigned col;
};

class Parser {
public:
  Parser(llvm::StringRef text, const LayoutEnv *env) : text(text), env(env) {}

  llvm::Expected<LayoutValue> parseTop() {
    if (llvm::Error e = lex())
      return e;
    llvm::Expected<LayoutValue> v = parseExpr(0);
    if (!v)
      return v.takeError();
    if (peek().kind != Tok::End)
      return errorAt(peek().col,
                     "unexpected '" + peek().text + "' after the expression");
    return v;
  }

private:
  llvm::StringRef text;
  const LayoutEnv *env;
  std::vector<Token> toks;
  size_t pos = 0;

  const Token &peek(size_t ahead = 0) const {
    return toks[std::min(pos + ahead, toks.size() - 1)];
  }
  Token next() { return toks[pos < toks.size() - 1 ? pos++ : pos]; }

  llvm::Error lex() {
    size_t i = 0, n = text.size();
    while (i < n) {
      char c = text[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      unsigned col = i;
      if (std::isdigit(static_cast<unsigned char>(c)) ||
          (c == '-' && i + 1 < n &&
           std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
        size_t j = i + 1;
        while (j < n && std::isdigit(static_cast<unsigned char>(text[j])))
          ++j;
        llvm::StringRef lit = text.slice(i, j);
        int64_t v = 0;
        bool neg = lit.starts_with("-");
        for (char d : lit.drop_front(neg ? 1 : 0)) {
          v = v * 10 + (d - '0');
          if (v >= kMaxInt)
            return errorAt(col, "integer " + lit +
                                    " is too large (at most 2147483647)");
        }
        toks.push_back({Tok::Int, col, lit, neg ? -v : v});
        i = j;
        continue;
      }
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t j = i + 1;
        while (j < n && (std::isalnum(static_cast<unsigned char>(text[j])) ||
                         text[j] == '_'))
          ++j;
        toks.push_back({Tok::Name, col, text.slice(i, j)});
        i = j;
        continue;
      }
      Tok k;
      switch (c) {
      case '(':
        k = Tok::LParen;
        break;
      case ')':
        k = Tok::RParen;
        break;
      case ',':
        k = Tok::Comma;
        break;
      case ':':
        k = Tok::Colon;
        break;
      case '<':
        k = Tok::Less;
        break;
      case '>':
        k = Tok::Greater;
        break;
      default:
        return errorAt(col, llvm::formatv("unexpected character '{0}'",
                                          text.substr(i, 1)));
      }
      toks.push_back({k, col, text.slice(i, i + 1)});
      ++i;
    }
    toks.push_back({Tok::End, (unsigned)n, ""});
    return llvm::Error::success();
  }

  llvm::Error expect(Tok kind, llvm::StringRef what) {
    if (peek().kind != kind)
      return errorAt(peek().col,
                     "expected " + what + ", found " + describe(peek()));
    next();
    return llvm::Error::success();
  }

  llvm::Expected<int64_t> parseInt(llvm::StringRef what) {
    if (peek().kind != Tok::Int)
      return errorAt(peek().col,
                     "expected " + what + ", found " + describe(peek()));
    return next().value;
  }

  // expr := primary ('o' primary)*, right to left: Sw o [N o] L.
  llvm::Expected<LayoutValue> parseExpr(int depth) {
    if (depth > kMaxDepth)
      return errorAt(peek().col, llvm::formatv("expression nested more than "
                                               "{0} levels deep",
                                               kMaxDepth));
    unsigned col = peek().col;
    llvm::Expected<LayoutValue> lhs = parsePrimary(depth);
    if (!lhs)
      return lhs.takeError();
    if (!(peek().kind == Tok::Name && peek().text == "o"))
      return lhs;
    unsigned oCol = next().col;
    if (!lhs->isSwizzle())
      return errorAt(col, "the left side of 'o' must be a swizzle Sw<B,M,S>, "
                          "not " +
                              lhs->str());
    Swizzle sw = lhs->getSwizzle();
    int64_t offset = 0;
    if (peek().kind == Tok::Int && peek(1).kind == Tok::Name &&
        peek(1).text == "o") {
      offset = next().value;
      next();
    }
    unsigned rhsCol = peek().col;
    llvm::Expected<LayoutValue> rhs = parseExpr(depth + 1);
    if (!rhs)
      return rhs.takeError();
    if (rhs->isLayout())
      return LayoutValue(ComposedLayout(sw, offset, rhs->getLayout()));
    if (rhs->isIntTuple()) {
      llvm::Expected<Layout> l = toLayout(*rhs, rhsCol, "'o'");
      if (!l)
        return l.takeError();
      return LayoutValue(ComposedLayout(sw, offset, *l));
    }
    (void)oCol;
    return errorAt(rhsCol,
                   "the right side of 'o' must be a layout, not " + rhs->str());
  }

  llvm::Expected<LayoutValue> parsePrimary(int depth) {
    const Token &t = peek();
    switch (t.kind) {
    case Tok::Int: {
      next();
      LayoutValue v(t.value);
      return maybeStride(v, t.col, depth);
    }
    case Tok::LParen: {
      unsigned col = t.col;
      llvm::Expected<LayoutValue> v = parseTuple(depth);
      if (!v)
        return v.takeError();
      return maybeStride(*v, col, depth);
    }
    case Tok::Name:
      return parseName(depth);
    case Tok::End:
      return errorAt(t.col, "expected a layout expression, found the end of "
                            "the input");
    default:
      return errorAt(t.col,
                     "expected a layout expression, found " + describe(t));
    }
  }

  llvm::Expected<LayoutValue> parseTuple(int depth) {
    unsigned open = next().col;
    std::vector<LayoutValue> elems;
    if (peek().kind == Tok::RParen) {
      next();
      return LayoutValue(std::move(elems));
    }
    while (true) {
      llvm::Expected<LayoutValue> e = parseExpr(depth + 1);
      if (!e)
        return e.takeError();
      elems.push_back(std::move(*e));
      if (peek().kind == Tok::Comma) {
        next();
        continue;
      }
      if (peek().kind == Tok::RParen) {
        next();
        return LayoutValue(std::move(elems));
      }
      return errorAt(peek().col,
                     llvm::formatv("expected ',' or ')' to close the '(' at "
                                   "column {0}, found {1}",
                                   open + 1, describe(peek())));
    }
  }

  // SHAPE ':' STRIDE once a shape has been read.
  llvm::Expected<LayoutValue> maybeStride(const LayoutValue &shape,
                                          unsigned col, int depth) {
    if (peek().kind != Tok::Colon)
      return shape;
    unsigned colonCol = next().col;
    if (!shape.isIntTuple())
      return errorAt(col, "the shape before ':' must be a tuple of "
                          "integers, not " +
                              shape.str());
    IntTuple s = shape.getIntTuple();
    for (int64_t v : s.leaves())
      if (v <= 0)
        return errorAt(col, llvm::formatv("shape {0} has the mode {1}; every "
                                          "mode of a shape must be positive",
                                          s.str(), v));
    unsigned strideCol = peek().col;
    LayoutValue strideVal(int64_t(0));
    if (peek().kind == Tok::Int) {
      strideVal = LayoutValue(next().value);
    } else if (peek().kind == Tok::LParen) {
      llvm::Expected<LayoutValue> v = parseTuple(depth + 1);
      if (!v)
        return v.takeError();
      strideVal = std::move(*v);
    } else {
      return errorAt(peek().col, "expected a stride after the ':' at column " +
                                     std::to_string(colonCol + 1) + ", found " +
                                     describe(peek()));
    }
    if (!strideVal.isIntTuple())
      return errorAt(strideCol, "the stride must be a tuple of integers, "
                                "not " +
                                    strideVal.str());
    IntTuple d = strideVal.getIntTuple();
    if (!isCongruent(s, d))
      return errorAt(strideCol, "the stride " + d.str() +
                                    " does not have the nesting of the "
                                    "shape " +
                                    s.str());
    Layout l(s, d);
    if (!layoutFits(l))
      return errorAt(col, "layout " + l.str() +
                              " is too large (size and "
                              "cosize must be below 2^31)");
    return LayoutValue(l);
  }

  llvm::Expected<LayoutValue> parseName(int depth) {
    Token name = next();
    if (name.text == "Sw" || name.text == "Swizzle")
      return parseSwizzle(name);
    if (parseSwizzleAtomName(name.text))
      return parseAtom(name);
    if (peek().kind == Tok::LParen)
      return parseCall(name, depth);
    if (env) {
      auto it = env->find(name.text);
      if (it != env->end())
        return it->second;
    }
    if (name.text == "o")
      return errorAt(name.col, "'o' must follow a swizzle: Sw<B,M,S> o LAYOUT");
    return errorAt(name.col, "unknown name '" + name.text +
                                 "' (a function needs '(' after its name)");
  }

  llvm::Expected<LayoutValue> parseSwizzle(const Token &name) {
    if (llvm::Error e =
            expect(Tok::Less, "'<' after '" + name.text.str() + "'"))
      return e;
    int v[3];
    const char *what[3] = {"B", "M", "S"};
    for (int i = 0; i < 3; ++i) {
      llvm::Expected<int64_t> x =
          parseInt(std::string("the swizzle's ") + what[i]);
      if (!x)
        return x.takeError();
      if (*x < -32 || *x > 32)
        return errorAt(peek(0).col, llvm::formatv("swizzle {0} = {1} is out "
                                                  "of range",
                                                  what[i], *x));
      v[i] = *x;
      if (i < 2)
        if (llvm::Error e = expect(Tok::Comma, "','"))
          return e;
    }
    if (llvm::Error e = expect(Tok::Greater, "'>' to close the swizzle"))
      return e;
    llvm::Expected<Swizzle> sw = Swizzle::get(v[0], v[1], v[2]);
    if (!sw)
      return errorAt(name.col, llvm::toString(sw.takeError()));
    return LayoutValue(*sw);
  }

  llvm::Expected<LayoutValue> parseAtom(const Token &name) {
    auto kind = *parseSwizzleAtomName(name.text);
    if (llvm::Error e = expect(Tok::Less, "'<' and an element type after '" +
                                              name.text.str() + "'"))
      return e;
    if (peek().kind != Tok::Name)
      return errorAt(peek().col, "expected an element type (" +
                                     listDTypeNames() + "), found " +
                                     describe(peek()));
    Token dt = next();
    std::optional<DTypeKind> dtype = parseDType(dt.text);
    if (!dtype)
      return errorAt(dt.col, "unknown element type '" + dt.text +
                                 "' (expected one of " + listDTypeNames() +
                                 ")");
    if (llvm::Error e = expect(Tok::Greater, "'>' after the element type"))
      return e;
    return LayoutValue(swizzleAtom(kind.first, kind.second, *dtype));
  }

  llvm::Expected<LayoutValue> parseCall(const Token &name, int depth);
};

// Converts an argument to a tiler: a layout, an integer N (N:1) or a tuple
// of those (by mode).
llvm::Expected<Tiler> toTiler(const LayoutValue &v, unsigned col) {
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

llvm::Expected<Layout> toLayout(const LayoutValue &v, unsigned col,
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

llvm::Expected<IntTuple> toShape(const LayoutValue &v, unsigned col,
                                 llvm::StringRef fn, llvm::StringRef what) {
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

llvm::Expected<int64_t> toInt(const LayoutValue &v, unsigned col,
                              llvm::StringRef fn, llvm::StringRef what) {
  if (!v.isInteger())
    return errorAt(col,
                   fn + ": " + what + " must be an integer, not " + v.str());
  return v.getInteger();
}

// One call being evaluated: the function's name and column, its evaluated
// arguments (as many as the function's row allows), and the checks every
// result passes before it is returned.
struct Call {
  llvm::StringRef f;
  unsigned col;
  std::vector<Arg> args;
  bool rowMajor = false, sawMajor = false;

  const LayoutValue &arg(size_t i) const { return args[i].value; }
  unsigned argCol(size_t i) const { return args[i].col; }

  // Wraps an algebra error with the column of the call.
  llvm::Error wrap(llvm::Error e) const {
    std::string msg = llvm::toString(std::move(e));
    if (!llvm::StringRef(msg).starts_with(f))
      msg = f.str() + ": " + msg;
    return errorAt(col, msg);
  }
  llvm::Expected<LayoutValue> result(llvm::Expected<Layout> l) const {
    if (!l)
      return wrap(l.takeError());
    if (!layoutFits(*l))
      return errorAt(col, f + ": the result " + l->str() +
                              " is too large (size and cosize must be "
                              "below 2^31)");
    return LayoutValue(*l);
  }
  llvm::Expected<LayoutValue>
  composedResult(llvm::Expected<ComposedLayout> l) const {
    if (!l)
      return wrap(l.takeError());
    if (!layoutFits(l->layout))
      return errorAt(col, f + ": the result " + l->str() +
                              " is too large (size and cosize must be "
                              "below 2^31)");
    return LayoutValue(*l);
  }
};

using CallHandler = llvm::Expected<LayoutValue> (*)(const Call &);

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
      c,
      [&](const Layout &a, const Layout &b) -> llvm::Expected<LayoutValue> {
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

// The functions of the language: name, argument counts, evaluation. A
// handler is called with minArgs..maxArgs arguments, never fewer.
struct FunctionInfo {
  llvm::StringRef name;
  unsigned minArgs, maxArgs;
  CallHandler eval;
};

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
};

} // namespace

// Parses the arguments of one call and evaluates it through its row of
// kFunctions. The argument values are already checked to be within bounds;
// each result is checked again before it is returned.
llvm::Expected<LayoutValue> Parser::parseCall(const Token &name, int depth) {
  const FunctionInfo *fn = nullptr;
  for (const FunctionInfo &f : kFunctions)
    if (f.name == name.text)
      fn = &f;
  if (!fn)
    return errorAt(name.col, "unknown function '" + name.text + "'");
  unsigned open = next().col;
  Call call{fn->name, name.col, {}};
  std::vector<Arg> &args = call.args;
  if (peek().kind != Tok::RParen) {
    while (true) {
      unsigned col = peek().col;
      if (fn->name == "make_layout" && args.size() == 1 &&
          peek().kind == Tok::Name &&
          (peek().text == "left" || peek().text == "right")) {
        call.rowMajor = next().text == "right";
        call.sawMajor = true;
        args.push_back({LayoutValue(int64_t(0)), col});
      } else {
        llvm::Expected<LayoutValue> v = parseExpr(depth + 1);
        if (!v)
          return v.takeError();
        args.push_back({std::move(*v), col});
      }
      if (peek().kind == Tok::Comma) {
        next();
        continue;
      }
      break;
    }
  }
  if (peek().kind != Tok::RParen)
    return errorAt(peek().col,
                   llvm::formatv("expected ',' or ')' to close the '(' of {0} "
                                 "at column {1}, found {2}",
                                 fn->name, open + 1, describe(peek())));
  next();
  if (args.size() < fn->minArgs || args.size() > fn->maxArgs)
    return errorAt(name.col,
                   llvm::formatv("{0} takes {1} argument{2}, not {3}", fn->name,
                                 fn->minArgs == fn->maxArgs
                                     ? std::to_string(fn->minArgs)
                                     : std::to_string(fn->minArgs) + " or " +
                                           std::to_string(fn->maxArgs),
                                 fn->maxArgs == 1 ? "" : "s", args.size()));
  return fn->eval(call);
}

llvm::Expected<LayoutValue> tilec::evaluateLayoutExpr(llvm::StringRef text,
                                                      const LayoutEnv *env) {
  Parser parser(text, env);
  return parser.parseTop();
}
