//===- ir/layout/LayoutExpr.cpp - The layout expression language -----------------===//
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
// This file holds the values, the tokenizer and the parser; a call's
// arguments are handed to its row of the function table in
// ir/layout/LayoutExprFunctions.cpp, through ir/layout/LayoutExprCall.h.
//
//===----------------------------------------------------------------------===//
#include "ir/layout/LayoutExpr.h"

#include "ir/arch/DType.h"
#include "ir/layout/LayoutAlgebra.h"
#include "ir/layout/LayoutExprCall.h"
#include "ir/layout/SwizzleAtom.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <cstdlib>

using namespace tilec;
using namespace tilec::layoutexpr;

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

} // namespace

// Parses the arguments of one call and evaluates it through its row of
// kFunctions (ir/layout/LayoutExprFunctions.cpp). The argument values are already
// checked to be within bounds; each result is checked again before it is
// returned.
llvm::Expected<LayoutValue> Parser::parseCall(const Token &name, int depth) {
  const FunctionInfo *fn = findLayoutFunction(name.text);
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
