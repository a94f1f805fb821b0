//===- compiler/DiskCacheJson.cpp - A CompiledKernel as JSON --------------===//
//
// The disk cache's entry format: every field of GemmKernelBinary and of the
// lowered GemmSpec, enums by the names users write ("sm_90a", "bf16", "K"),
// layouts as their swizzle bits, offset and CuTe text. Reading is strict: a
// missing or ill-typed field makes the whole entry a miss.
//
// Example: a kernel's "params" reads
//   [{"name":"A","kind":"pointer"}, ..., {"name":"alpha","kind":"f32"}]
//
// GemmSpec's and GemmKernelBinary's fields are written and read from their
// field lists (ir/tile/GemmSpecFields.def, codegen/GemmKernelFields.def), one
// key per field; the structs they hold have their toJSON/fromJSON here.
//
//===----------------------------------------------------------------------===//
#include "compiler/DiskCache.h"

#include "ir/layout/LayoutParser.h"

namespace tilec {

//===-- Enums by name
//------------------------------------------------------===//

namespace {

/// Reads a name with \p parse (parseArch, parseDType, ...) into \p out.
template <typename Enum, typename Parse>
bool nameFromJson(const llvm::json::Value &value, Enum &out, Parse parse,
                  llvm::StringLiteral expected, llvm::json::Path path) {
  std::optional<llvm::StringRef> name = value.getAsString();
  std::optional<Enum> parsed = name ? parse(*name) : std::nullopt;
  if (!parsed)
    path.report(expected);
  else
    out = *parsed;
  return parsed.has_value();
}

} // namespace

llvm::json::Value toJSON(ArchKind arch) { return archInfo(arch).name; }
bool fromJSON(const llvm::json::Value &value, ArchKind &out,
              llvm::json::Path path) {
  return nameFromJson(value, out, parseArch, "expected an arch name", path);
}

llvm::json::Value toJSON(DTypeKind dtype) { return dtypeInfo(dtype).name; }
bool fromJSON(const llvm::json::Value &value, DTypeKind &out,
              llvm::json::Path path) {
  return nameFromJson(value, out, parseDType, "expected a dtype name", path);
}

llvm::json::Value toJSON(MajorKind major) { return majorName(major); }
bool fromJSON(const llvm::json::Value &value, MajorKind &out,
              llvm::json::Path path) {
  return nameFromJson(value, out, parseMajor, "expected K or MN", path);
}

namespace {

/// One table of names for KernelParam::Kind.
constexpr std::pair<KernelParam::Kind, llvm::StringLiteral> kParamKinds[] = {
    {KernelParam::Pointer, "pointer"},
    {KernelParam::I32, "i32"},
    {KernelParam::I64, "i64"},
    {KernelParam::F32, "f32"},
    {KernelParam::TensorMap, "tensormap"},
};

constexpr std::pair<EpilogueScalarKind, llvm::StringLiteral> kScalarKinds[] = {
    {EpilogueScalarKind::None, "none"},
    {EpilogueScalarKind::Runtime, "runtime"},
};

template <typename Enum, size_t N>
llvm::json::Value
enumToJson(Enum value, const std::pair<Enum, llvm::StringLiteral> (&table)[N]) {
  for (const auto &[kind, name] : table)
    if (kind == value)
      return name;
  return nullptr;
}

template <typename Enum, size_t N>
bool enumFromJson(const llvm::json::Value &value, Enum &out,
                  const std::pair<Enum, llvm::StringLiteral> (&table)[N],
                  llvm::json::Path path) {
  if (std::optional<llvm::StringRef> text = value.getAsString())
    for (const auto &[kind, name] : table)
      if (name == *text) {
        out = kind;
        return true;
      }
  path.report("unknown name");
  return false;
}

} // namespace

//===-- Structs
//------------------------------------------------------------===//

llvm::json::Value toJSON(const Dim3 &dim) {
  return llvm::json::Array{dim.x, dim.y, dim.z};
}
bool fromJSON(const llvm::json::Value &value, Dim3 &out,
              llvm::json::Path path) {
  std::vector<unsigned> xyz;
  if (!fromJSON(value, xyz, path) || xyz.size() != 3) {
    path.report("expected [x, y, z]");
    return false;
  }
  out = {xyz[0], xyz[1], xyz[2]};
  return true;
}

llvm::json::Value toJSON(const KernelParam &param) {
  return llvm::json::Object{{"name", param.name},
                            {"kind", enumToJson(param.kind, kParamKinds)}};
}
bool fromJSON(const llvm::json::Value &value, KernelParam &out,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  const llvm::json::Value *kind =
      value.getAsObject() ? value.getAsObject()->get("kind") : nullptr;
  return o && o.map("name", out.name) && kind &&
         enumFromJson(*kind, out.kind, kParamKinds, path.field("kind"));
}

llvm::json::Value toJSON(const TensorMapPlan &plan) {
  return llvm::json::Object{
      {"param", plan.param},
      {"matrix", std::string(1, plan.matrix)},
      {"dtype", plan.dtype},
      {"major", plan.major},
      {"boxInner", plan.boxInner},
      {"boxOuter", plan.boxOuter},
      {"swizzleBytes", plan.swizzleBytes},
      {"l2PromotionBytes", plan.l2PromotionBytes},
      {"fallbackFlag", plan.fallbackFlag},
      {"store", plan.store},
      {"batched", plan.batched},
      {"packedWeight", plan.packedWeight},
  };
}
bool fromJSON(const llvm::json::Value &value, TensorMapPlan &out,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  std::string matrix;
  bool ok =
      o && o.map("param", out.param) && o.map("matrix", matrix) &&
      o.map("dtype", out.dtype) && o.map("major", out.major) &&
      o.map("boxInner", out.boxInner) && o.map("boxOuter", out.boxOuter) &&
      o.map("swizzleBytes", out.swizzleBytes) &&
      o.map("l2PromotionBytes", out.l2PromotionBytes) &&
      o.map("fallbackFlag", out.fallbackFlag) && o.map("store", out.store) &&
      o.mapOptional("batched", out.batched) &&
      o.mapOptional("packedWeight", out.packedWeight) && matrix.size() == 1;
  if (ok)
    out.matrix = matrix[0];
  return ok;
}

/// A layout as swizzle bits, offset and the inner layout's text, so that an
/// identity swizzle (which prints as the bare layout) keeps its M and S.
llvm::json::Value toJSON(const ComposedLayout &layout) {
  return llvm::json::Object{
      {"swizzle", llvm::json::Array{layout.swizzle.bits, layout.swizzle.base,
                                    layout.swizzle.shift}},
      {"offset", layout.offset},
      {"layout", layout.layout.str()},
  };
}
bool fromJSON(const llvm::json::Value &value, ComposedLayout &out,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  std::vector<int> swizzle;
  std::string text;
  if (!(o && o.map("swizzle", swizzle) && o.map("offset", out.offset) &&
        o.map("layout", text) && swizzle.size() == 3))
    return false;
  llvm::Expected<Layout> layout = parseLayout(text);
  if (!layout) {
    llvm::consumeError(layout.takeError());
    path.report("unparsable layout");
    return false;
  }
  out.swizzle = Swizzle(swizzle[0], swizzle[1], swizzle[2]);
  out.layout = std::move(*layout);
  return true;
}

llvm::json::Value toJSON(const SourceLines &lines) {
  return llvm::json::Object{
      {"emit", lines.emit},
      {"file", lines.file},
      {"directory", lines.directory},
      {"kernel", lines.kernel},
      {"smemA", lines.smemA},
      {"smemB", lines.smemB},
      {"mma", lines.mma},
      {"epilogue", lines.epilogue},
  };
}
bool fromJSON(const llvm::json::Value &value, SourceLines &out,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("emit", out.emit) && o.map("file", out.file) &&
         o.map("directory", out.directory) && o.map("kernel", out.kernel) &&
         o.map("smemA", out.smemA) && o.map("smemB", out.smemB) &&
         o.map("mma", out.mma) && o.map("epilogue", out.epilogue);
}

/// An epilogue op as its spelling (ir/tile/EpilogueOps.h), read back with
/// parseEpilogueOp; an op that no longer parses makes the entry a miss.
llvm::json::Value toJSON(const EpilogueOp &op) { return formatEpilogueOp(op); }
bool fromJSON(const llvm::json::Value &value, EpilogueOp &out,
              llvm::json::Path path) {
  std::optional<llvm::StringRef> spelling = value.getAsString();
  llvm::Expected<EpilogueOp> op =
      spelling
          ? parseEpilogueOp(*spelling)
          : llvm::Expected<EpilogueOp>(llvm::createStringError("not a string"));
  if (!op) {
    llvm::consumeError(op.takeError());
    path.report("expected an epilogue op");
    return false;
  }
  out = *op;
  return true;
}

llvm::json::Value toJSON(EpilogueScalarKind kind) {
  return enumToJson(kind, kScalarKinds);
}
bool fromJSON(const llvm::json::Value &value, EpilogueScalarKind &out,
              llvm::json::Path path) {
  return enumFromJson(value, out, kScalarKinds, path);
}

llvm::json::Value toJSON(const BlockScaleSpec &scale) {
  return llvm::json::Object{{"aRows", scale.aRows},
                            {"bRows", scale.bRows},
                            {"kBlock", scale.kBlock},
                            {"aMajor", scale.aMajor}};
}
bool fromJSON(const llvm::json::Value &value, BlockScaleSpec &out,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("aRows", out.aRows) && o.map("bRows", out.bRows) &&
         o.map("kBlock", out.kBlock) && o.map("aMajor", out.aMajor);
}

llvm::json::Value toJSON(const WeightQuantSpec &quant) {
  return llvm::json::Object{{"group", quant.group},
                            {"scaleType", quant.scaleType},
                            {"zeros", quant.zeros}};
}
bool fromJSON(const llvm::json::Value &value, WeightQuantSpec &out,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("group", out.group) && o.map("scaleType", out.scaleType) &&
         o.map("zeros", out.zeros);
}

llvm::json::Value toJSON(const BatchSpec &batch) {
  return llvm::json::Object{{"fixedCount", batch.fixedCount},
                            {"aBatched", batch.aBatched},
                            {"bBatched", batch.bBatched}};
}
bool fromJSON(const llvm::json::Value &value, BatchSpec &out,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("fixedCount", out.fixedCount) &&
         o.map("aBatched", out.aBatched) && o.map("bBatched", out.bBatched);
}

llvm::json::Value toJSON(const GroupSpec &group) {
  return llvm::json::Object{
      {"kind", group.kind == GroupKind::Masked ? "masked" : "contiguous"},
      {"fixedCount", group.fixedCount}};
}
bool fromJSON(const llvm::json::Value &value, GroupSpec &out,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  std::string kind;
  if (!(o && o.map("kind", kind) && o.map("fixedCount", out.fixedCount)))
    return false;
  if (kind != "masked" && kind != "contiguous") {
    path.field("kind").report("expected masked or contiguous");
    return false;
  }
  out.kind = kind == "masked" ? GroupKind::Masked : GroupKind::Contiguous;
  return true;
}

llvm::json::Value toJSON(const GemmGridRule &rule) {
  return llvm::json::Object{{"linear", rule.linear},
                            {"tilesPerCluster", rule.tilesPerCluster},
                            {"columnsPerCluster", rule.columnsPerCluster},
                            {"splitsInUnits", rule.splitsInUnits},
                            {"batchWalksTiles", rule.batchWalksTiles}};
}
bool fromJSON(const llvm::json::Value &value, GemmGridRule &out,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("linear", out.linear) &&
         o.map("tilesPerCluster", out.tilesPerCluster) &&
         o.map("columnsPerCluster", out.columnsPerCluster) &&
         o.map("splitsInUnits", out.splitsInUnits) &&
         o.map("batchWalksTiles", out.batchWalksTiles);
}

//===-- The spec and the kernel: one key per field of their .def lists ----===//

llvm::json::Value toJSON(const GemmSpec &spec) {
  llvm::json::Object object;
#define TILEC_SPEC_FIELD(Type, name, init) object[#name] = spec.name;
#include "ir/tile/GemmSpecFields.def"
  return object;
}
bool fromJSON(const llvm::json::Value &value, GemmSpec &out,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o
#define TILEC_SPEC_FIELD(Type, name, init) &&o.map(#name, out.name)
#include "ir/tile/GemmSpecFields.def"
      ;
}

llvm::json::Value compiledKernelToJson(const CompiledKernel &kernel) {
  llvm::json::Object object;
#define TILEC_KERNEL_FIELD(Type, name, init) object[#name] = kernel.name;
#include "codegen/GemmKernelFields.def"
  object["spec"] = kernel.lowered.spec;
  object["loweredIR"] = kernel.lowered.loweredIR;
  return object;
}

std::optional<CompiledKernel>
compiledKernelFromJson(const llvm::json::Value &value) {
  llvm::json::Path::Root root("kernel");
  llvm::json::ObjectMapper o(value, root);
  CompiledKernel k;
  bool ok = o
#define TILEC_KERNEL_FIELD(Type, name, init) &&o.map(#name, k.name)
#include "codegen/GemmKernelFields.def"
            && o.map("spec", k.lowered.spec) &&
            o.map("loweredIR", k.lowered.loweredIR);
  if (!ok)
    return std::nullopt;
  return k;
}

} // namespace tilec
