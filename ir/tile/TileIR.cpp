//===- ir/tile/TileIR.cpp - The Tile IR: ops, the op table, printing -----------===//
//
// The op table is the one list of Tile IR ops: the verifier, the IR parser
// and diagnostics all read it. The printer writes the canonical text that
// compiler/IRParser.cpp reads back.
//
//===----------------------------------------------------------------------===//
#include "ir/tile/TileIR.h"

#include "llvm/ADT/StringExtras.h"

namespace tilec::tir {

Attr Attr::integer(int64_t value, llvm::SMLoc loc) {
  Attr attr;
  attr.kind = Kind::Int;
  attr.intValue = value;
  attr.loc = loc;
  return attr;
}

Attr Attr::ident(llvm::StringRef name, llvm::SMLoc loc) {
  Attr attr;
  attr.kind = Kind::Ident;
  attr.str = name.str();
  attr.loc = loc;
  return attr;
}

Attr Attr::string(llvm::StringRef text, llvm::SMLoc loc) {
  Attr attr;
  attr.kind = Kind::String;
  attr.str = text.str();
  attr.loc = loc;
  return attr;
}

Attr Attr::epilogueOpOrText(llvm::StringRef text, llvm::SMLoc loc) {
  Attr attr = string(text, loc);
  llvm::Expected<EpilogueOp> op = parseEpilogueOp(text);
  if (!op) {
    llvm::consumeError(op.takeError());
    return attr;
  }
  attr.kind = Kind::EpilogueOp;
  attr.epilogueOp = *op;
  return attr;
}

Attr Attr::makeList(std::vector<Attr> elements, llvm::SMLoc loc) {
  Attr attr;
  attr.kind = Kind::List;
  attr.list = std::move(elements);
  attr.loc = loc;
  return attr;
}

const Attr *Op::get(llvm::StringRef key) const {
  for (const NamedAttr &attr : attrs)
    if (attr.name == key)
      return &attr.value;
  return nullptr;
}

Attr *Op::get(llvm::StringRef key) {
  for (NamedAttr &attr : attrs)
    if (attr.name == key)
      return &attr.value;
  return nullptr;
}

void Op::set(llvm::StringRef key, Attr value) {
  if (Attr *existing = get(key)) {
    *existing = std::move(value);
    return;
  }
  attrs.push_back({key.str(), std::move(value)});
}

std::optional<int64_t> Op::getInt(llvm::StringRef key) const {
  const Attr *attr = get(key);
  if (!attr || !attr->isInt())
    return std::nullopt;
  return attr->intValue;
}

llvm::StringRef Op::getText(llvm::StringRef key) const {
  const Attr *attr = get(key);
  if (!attr || !(attr->isIdent() || attr->isString()))
    return "";
  return attr->str;
}

const Op *Op::find(llvm::StringRef opName, llvm::StringRef sym) const {
  for (const Op &op : body)
    if (op.name == opName && (sym.empty() || op.symbol == sym))
      return &op;
  return nullptr;
}

Op *Op::find(llvm::StringRef opName, llvm::StringRef sym) {
  for (Op &op : body)
    if (op.name == opName && (sym.empty() || op.symbol == sym))
      return &op;
  return nullptr;
}

namespace {
const std::vector<OpSchema> &schemaTable() {
  static const std::vector<OpSchema> table = {
      {"tile.module", false, true, "module", 0, 0, {}},
      {"tile.const", true, false, "const", 0, 0, {{"value", IntAttr, true}}},
      {"tile.layout",
       true,
       false,
       "layout",
       0,
       0,
       {{"expr", StringAttr, true}}},
      {"tile.print",
       false,
       false,
       "print",
       0,
       0,
       {{"expr", StringAttr, true}, {"kind", IdentAttr, false}}},
      {"tile.kernel", true, true, "kernel", 0, 0, {{"arch", IdentAttr, true}}},
      {"tile.operand",
       true,
       false,
       "operand",
       3,
       3,
       {{"dtype", IdentAttr, true},
        {"shape", ListAttr, true},
        {"major", IdentAttr, true},
        // lower: how c's batch maps onto the grid (batched kernels).
        {"batch", StringAttr, false}}},
      {"tile.acc", false, false, "acc", 1, 1, {{"dtype", IdentAttr, true}}},
      // `scale a f32 block(1, 128)`: block-scaled operands (fp8 GEMM);
      // lower adds `promote`, how the kernel applies the scales.
      {"tile.scale",
       true,
       false,
       "scale",
       0,
       2,
       {{"dtype", IdentAttr, true},
        {"block", ListAttr, true},
        {"major", IdentAttr, false},
        {"promote", StringAttr, false}}},
      // `scale b bf16 group(128) [zero(u8)]`: a 4-bit weight's group
      // scales and zero points.
      {"tile.group_scale",
       true,
       false,
       "scale",
       0,
       1,
       {{"dtype", IdentAttr, true},
        {"group", ListAttr, true},
        {"zero", IdentAttr, false}}},
      // `group contiguous|masked`: a grouped GEMM (mixture-of-experts);
      // lower adds `applied`, how the kernel walks the groups.
      {"tile.group",
       false,
       false,
       "group",
       0,
       1,
       {{"mode", IdentAttr, true}, {"applied", StringAttr, false}}},
      {"tile.tile",
       false,
       false,
       "tile",
       1,
       1,
       {{"bm", IntAttr, true}, {"bn", IntAttr, true}, {"bk", IntAttr, true}}},
      {"tile.stages", false, false, "stages", 1, 1, {{"count", IntAttr, true}}},
      {"tile.smem",
       true,
       false,
       "smem",
       2,
       2,
       {{"layout", IdentAttr | StringAttr, true},
        {"atom", StringAttr, false},
        {"why", StringAttr, false}}},
      {"tile.mma",
       false,
       false,
       "mma",
       1,
       1,
       {{"instr", IdentAttr, true},
        {"warpgroups", IntAttr, false},
        {"ptx", StringAttr, false},
        {"why", StringAttr, false}}},
      {"tile.epilogue",
       false,
       false,
       "epilogue",
       1,
       1,
       {{"steps", ListAttr, true},
        {"ops", ListAttr, false},
        {"why", StringAttr, false}}},
      {"tile.pipeline",
       false,
       false,
       "pipeline",
       0,
       1,
       {{"stages", IntAttr, true},
        {"stage_bytes", IntAttr, true},
        {"smem_bytes", IntAttr, true},
        {"limit_bytes", IntAttr, true},
        {"warps", ListAttr, false},
        {"why", StringAttr, false}}},
      {"tile.schedule",
       false,
       false,
       "schedule",
       0,
       1,
       {{"mode", IdentAttr, true},
        {"swap_ab", IntAttr, false},
        {"split_k", IntAttr, false},
        {"persistent", IntAttr, false},
        {"cluster_m", IntAttr, false},
        {"cluster_n", IntAttr, false},
        {"why", StringAttr, false}}},
  };
  return table;
}

bool isPlainIdent(llvm::StringRef text) {
  if (text.empty() || !(llvm::isAlpha(text[0]) || text[0] == '_'))
    return false;
  for (char c : text)
    if (!(llvm::isAlnum(c) || c == '_' || c == '.' || c == ':'))
      return false;
  return !text.ends_with(".") && !text.ends_with(":");
}

void printString(llvm::StringRef text, llvm::raw_ostream &os) {
  os << '"';
  for (unsigned char c : text) {
    if (c == '"' || c == '\\')
      os << '\\' << c;
    else if (c == '\n')
      os << "\\n";
    else if (c == '\t')
      os << "\\t";
    else if (c < 0x20 || c == 0x7f)
      os << "\\x" << llvm::hexdigit(c >> 4, true)
         << llvm::hexdigit(c & 15, true);
    else
      os << c;
  }
  os << '"';
}
} // namespace

llvm::ArrayRef<OpSchema> opSchemas() { return schemaTable(); }

const OpSchema *findOpSchema(llvm::StringRef name) {
  for (const OpSchema &schema : schemaTable())
    if (schema.name == name)
      return &schema;
  return nullptr;
}

void printAttr(const Attr &attr, llvm::raw_ostream &os) {
  switch (attr.kind) {
  case Attr::Kind::Int:
    os << attr.intValue;
    return;
  case Attr::Kind::Ident:
    // An identifier that would not lex back as one prints as a string; the
    // verifier treats the two alike where an op accepts both.
    if (isPlainIdent(attr.str))
      os << attr.str;
    else
      printString(attr.str, os);
    return;
  case Attr::Kind::String:
  case Attr::Kind::EpilogueOp:
    printString(attr.str, os);
    return;
  case Attr::Kind::List:
    os << "[";
    for (size_t i = 0; i < attr.list.size(); ++i) {
      if (i)
        os << ", ";
      printAttr(attr.list[i], os);
    }
    os << "]";
    return;
  }
}

void printOp(const Op &op, llvm::raw_ostream &os, const PrintOptions &opts,
             unsigned indent) {
  os.indent(indent * 2) << op.name;
  if (!op.symbol.empty())
    os << " @" << op.symbol;
  const OpSchema *schema = findOpSchema(op.name);
  bool hasRegion = schema ? schema->hasRegion : !op.body.empty();
  if (!op.attrs.empty() || (hasRegion && schema && !schema->attrs.empty())) {
    os << " {";
    for (size_t i = 0; i < op.attrs.size(); ++i) {
      if (i)
        os << ", ";
      os << op.attrs[i].name << " = ";
      printAttr(op.attrs[i].value, os);
    }
    os << "}";
  }
  if (hasRegion)
    os << " {";
  if (opts.annotateWith && op.loc.isValid()) {
    unsigned id = opts.annotateWith->FindBufferContainingLoc(op.loc);
    if (id) {
      auto [line, col] = opts.annotateWith->getLineAndColumn(op.loc, id);
      os << "  // "
         << opts.annotateWith->getMemoryBuffer(id)->getBufferIdentifier() << ":"
         << line << ":" << col;
    }
  }
  os << "\n";
  if (hasRegion) {
    for (const Op &child : op.body)
      printOp(child, os, opts, indent + 1);
    os.indent(indent * 2) << "}\n";
  }
}

std::string printToString(const Op &op, const PrintOptions &opts) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printOp(op, os, opts);
  return text;
}

} // namespace tilec::tir
