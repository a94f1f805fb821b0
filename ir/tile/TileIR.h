//===- ir/tile/TileIR.h - The Tile IR: ops with named attributes ------*- C++
//-*-===//
//
// The Tile IR is what sema produces and the passes rewrite: a tree of ops,
// each with a dotted name (`tile.kernel`, `tile.smem`), an optional symbol
// (`@a`), ordered named attributes and, for `tile.module` and `tile.kernel`,
// a region of nested ops. Decisions the passes make are attributes next to
// the facts they came from, with a `why` string, so the printed IR explains
// itself.
//
// Its textual form round-trips: printing, parsing (compiler/IRParser.h) and
// printing again gives the same text. Example:
//
//   tile.module {
//     tile.kernel @gemm {arch = sm_80} {
//       tile.operand @a {dtype = bf16, shape = [M, K], major = K}
//       tile.tile {bm = 128, bn = 128, bk = 32}
//       tile.smem @a {layout = auto}
//     }
//   }
//
// The ops, their attributes and which are required are listed once, in
// opSchemas(); the verifier (compiler/passes/Verify.cpp) checks against it.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_TILE_TILEIR_H
#define TILEC_IR_TILE_TILEIR_H

#include "ir/tile/EpilogueOps.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec::tir {

/// An attribute value: an integer, a bare identifier (`bf16`, `auto`,
/// `wgmma.m64n256k16`), a quoted string or a list of values.
struct Attr {
  /// EpilogueOp: an element-wise epilogue op (tile.epilogue's `ops`), typed
  /// when it is built and printed as the string it was written as.
  enum class Kind { Int, Ident, String, List, EpilogueOp };
  Kind kind = Kind::Int;
  int64_t intValue = 0;
  std::string str;                ///< Ident, String, and EpilogueOp's spelling.
  std::vector<Attr> list;         ///< List.
  tilec::EpilogueOp epilogueOp{}; ///< EpilogueOp.
  llvm::SMLoc loc;                ///< Where the value was written, if anywhere.

  static Attr integer(int64_t value, llvm::SMLoc loc = {});
  static Attr ident(llvm::StringRef name, llvm::SMLoc loc = {});
  static Attr string(llvm::StringRef text, llvm::SMLoc loc = {});
  static Attr makeList(std::vector<Attr> elements, llvm::SMLoc loc = {});
  /// The epilogue op \p text spells (ir/tile/EpilogueOps.h), as written; text
  /// that does not spell one stays a String, which verify reports with
  /// parseEpilogueOp's message.
  static Attr epilogueOpOrText(llvm::StringRef text, llvm::SMLoc loc = {});

  bool isInt() const { return kind == Kind::Int; }
  bool isIdent() const { return kind == Kind::Ident; }
  bool isIdent(llvm::StringRef name) const { return isIdent() && str == name; }
  bool isString() const { return kind == Kind::String; }
  bool isList() const { return kind == Kind::List; }
  bool isEpilogueOp() const { return kind == Kind::EpilogueOp; }
};

/// `name = value`.
struct NamedAttr {
  std::string name;
  Attr value;
};

/// One op.
struct Op {
  std::string name;
  std::string symbol;           ///< Without the '@'; empty if none.
  std::vector<NamedAttr> attrs; ///< In print order.
  std::vector<Op> body;         ///< The region (module and kernel ops).
  llvm::SMLoc loc;              ///< Where the op came from.

  /// The attribute \p key, or null.
  const Attr *get(llvm::StringRef key) const;
  Attr *get(llvm::StringRef key);
  /// Replaces attribute \p key or appends it.
  void set(llvm::StringRef key, Attr value);
  /// The integer attribute \p key, if present and an integer.
  std::optional<int64_t> getInt(llvm::StringRef key) const;
  /// The text of identifier or string attribute \p key, or "".
  llvm::StringRef getText(llvm::StringRef key) const;

  /// The first op of the region named \p opName (with \p symbol if given).
  const Op *find(llvm::StringRef opName, llvm::StringRef symbol = "") const;
  Op *find(llvm::StringRef opName, llvm::StringRef symbol = "");
};

/// What an attribute of an op may hold.
enum AttrKindMask : unsigned {
  IntAttr = 1,
  IdentAttr = 2,
  StringAttr = 4,
  ListAttr = 8,
};

/// One attribute an op takes.
struct AttrSchema {
  llvm::StringRef name;
  unsigned kinds; ///< AttrKindMask bits.
  bool required;
};

/// One op of the Tile IR: its name, whether it has a symbol and a region,
/// the .tile item it comes from (for diagnostics), how many a kernel may
/// hold, and its attributes.
struct OpSchema {
  llvm::StringRef name;
  bool hasSymbol;
  bool hasRegion;
  llvm::StringRef sourceName;          ///< "stages", "smem": as users write it.
  unsigned minPerKernel, maxPerKernel; ///< Inside tile.kernel; 0,0 = not.
  std::vector<AttrSchema> attrs;
};

/// Every op, module first.
llvm::ArrayRef<OpSchema> opSchemas();
/// The schema of \p name, or null.
const OpSchema *findOpSchema(llvm::StringRef name);

/// Printing options.
struct PrintOptions {
  /// With a SourceMgr, ops with a source location get a trailing
  /// `// file:line:col` comment (`--annotate`); comments do not change the
  /// parse, so annotated IR still round-trips.
  const llvm::SourceMgr *annotateWith = nullptr;
};

/// Prints \p op and its region at \p indent levels.
void printOp(const Op &op, llvm::raw_ostream &os, const PrintOptions &opts = {},
             unsigned indent = 0);
/// Prints \p op to a string.
std::string printToString(const Op &op, const PrintOptions &opts = {});
/// Prints one attribute value as the IR writes it.
void printAttr(const Attr &attr, llvm::raw_ostream &os);

} // namespace tilec::tir

#endif // TILEC_IR_TILE_TILEIR_H
