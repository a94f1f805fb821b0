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
// A field added to GemmKernelBinary or GemmSpec must be added here too;
// DiskCacheTest's size check fails until it is.
//
//===----------------------------------------------------------------------===//
#include "compiler/DiskCache.h"

#include "ir/LayoutParser.h"

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
      o.mapOptional("batched", out.batched) && matrix.size() == 1;
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

/// The epilogue ops as their spellings (ir/EpilogueOps.h), read back with
/// parseEpilogueOp; an op that no longer parses makes the entry a miss.
llvm::json::Value epilogueOpsToJson(llvm::ArrayRef<EpilogueOp> ops) {
  llvm::json::Array array;
  for (const EpilogueOp &op : ops)
    array.push_back(formatEpilogueOp(op));
  return array;
}
bool epilogueOpsFromJson(const llvm::json::Object *object,
                         std::vector<EpilogueOp> &out) {
  const llvm::json::Array *array =
      object ? object->getArray("epilogueOps") : nullptr;
  if (!array)
    return false;
  out.clear();
  for (const llvm::json::Value &text : *array) {
    std::optional<llvm::StringRef> spelling = text.getAsString();
    if (!spelling)
      return false;
    llvm::Expected<EpilogueOp> op = parseEpilogueOp(*spelling);
    if (!op) {
      llvm::consumeError(op.takeError());
      return false;
    }
    out.push_back(*op);
  }
  return true;
}

/// A group as [kind (0 contiguous, 1 masked), fixedCount]; absent for an
/// ungrouped kernel (and in entries written before groups existed).
llvm::json::Value groupToJson(const GroupSpec &group) {
  return llvm::json::Array{group.kind == GroupKind::Masked ? 1 : 0,
                           group.fixedCount};
}
bool groupFromJson(const llvm::json::Object *object,
                   std::optional<GroupSpec> &out, llvm::json::Path path) {
  out.reset();
  const llvm::json::Value *value = object ? object->get("group") : nullptr;
  if (!value)
    return true;
  const llvm::json::Array *array = value->getAsArray();
  std::optional<int64_t> kind =
      array && array->size() == 2 ? (*array)[0].getAsInteger() : std::nullopt;
  std::optional<int64_t> count =
      kind ? (*array)[1].getAsInteger() : std::nullopt;
  if (!kind || !count || (*kind != 0 && *kind != 1)) {
    path.field("group").report("expected [kind, fixedCount]");
    return false;
  }
  out = GroupSpec{*kind ? GroupKind::Masked : GroupKind::Contiguous, *count};
  return true;
}

/// A batch as [fixedCount, aBatched, bBatched]; absent for an unbatched
/// kernel (and in entries written before batches existed).
llvm::json::Value batchToJson(const BatchSpec &batch) {
  return llvm::json::Array{batch.fixedCount, batch.aBatched, batch.bBatched};
}
bool batchFromJson(const llvm::json::Object *object,
                   std::optional<BatchSpec> &out, llvm::json::Path path) {
  out.reset();
  const llvm::json::Value *value = object ? object->get("batch") : nullptr;
  if (!value)
    return true;
  const llvm::json::Array *array = value->getAsArray();
  std::optional<int64_t> count =
      array && array->size() == 3 ? (*array)[0].getAsInteger() : std::nullopt;
  std::optional<bool> a = count ? (*array)[1].getAsBoolean() : std::nullopt;
  std::optional<bool> b = count ? (*array)[2].getAsBoolean() : std::nullopt;
  if (!count || !a || !b) {
    path.field("batch").report("expected [fixedCount, aBatched, bBatched]");
    return false;
  }
  out = BatchSpec{*count, *a, *b};
  return true;
}

llvm::json::Value toJSON(const GemmSpec &spec) {
  llvm::json::Object object{
      {"name", spec.name},
      {"arch", spec.arch},
      {"aType", spec.aType},
      {"bType", spec.bType},
      {"cType", spec.cType},
      {"accType", spec.accType},
      {"aMajor", spec.aMajor},
      {"bMajor", spec.bMajor},
      {"cMajor", spec.cMajor},
      {"fixed", llvm::json::Array{spec.fixedM, spec.fixedN, spec.fixedK}},
      {"tile", llvm::json::Array{spec.bm, spec.bn, spec.bk}},
      {"stages", spec.stages},
      {"warps", llvm::json::Array{spec.warpsM, spec.warpsN}},
      {"rasterGroupM", spec.rasterGroupM},
      {"swapAB", spec.swapAB},
      {"splitK", spec.splitK},
      {"persistent", spec.persistent},
      {"clusterM", spec.clusterM},
      {"storeTma", spec.storeTma},
      {"storeSwizzleBytes", spec.storeSwizzleBytes},
      {"scalars", enumToJson(spec.scalars, kScalarKinds)},
      {"annotate", spec.annotate},
      {"annotateSource", spec.annotateSource},
      {"source", spec.source},
      {"epilogueOps", epilogueOpsToJson(spec.epilogueOps)},
  };
  if (spec.blockScale)
    object["blockScale"] = llvm::json::Array{
        spec.blockScale->aRows, spec.blockScale->bRows, spec.blockScale->kBlock,
        spec.blockScale->aMajor == MajorKind::MN ? 1u : 0u};
  if (spec.batch)
    object["batch"] = batchToJson(*spec.batch);
  if (spec.group)
    object["group"] = groupToJson(*spec.group);
  object["smemA"] = spec.smemA ? toJSON(*spec.smemA) : nullptr;
  object["smemB"] = spec.smemB ? toJSON(*spec.smemB) : nullptr;
  return object;
}
bool fromJSON(const llvm::json::Value &value, GemmSpec &out,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  std::vector<int64_t> fixed;
  std::vector<unsigned> tile, warps;
  const llvm::json::Object *object = value.getAsObject();
  const llvm::json::Value *scalars = object ? object->get("scalars") : nullptr;
  if (!(o && o.map("name", out.name) && o.map("arch", out.arch) &&
        o.map("aType", out.aType) && o.map("bType", out.bType) &&
        o.map("cType", out.cType) && o.map("accType", out.accType) &&
        o.map("aMajor", out.aMajor) && o.map("bMajor", out.bMajor) &&
        o.map("cMajor", out.cMajor) && o.map("fixed", fixed) &&
        o.map("tile", tile) && o.map("stages", out.stages) &&
        o.map("warps", warps) && o.map("rasterGroupM", out.rasterGroupM) &&
        o.map("swapAB", out.swapAB) && o.map("splitK", out.splitK) &&
        o.map("persistent", out.persistent) &&
        o.map("clusterM", out.clusterM) && o.map("storeTma", out.storeTma) &&
        o.map("storeSwizzleBytes", out.storeSwizzleBytes) && scalars &&
        enumFromJson(*scalars, out.scalars, kScalarKinds,
                     path.field("scalars")) &&
        o.map("annotate", out.annotate) &&
        o.map("annotateSource", out.annotateSource) &&
        o.map("source", out.source) && o.map("smemA", out.smemA) &&
        o.map("smemB", out.smemB) &&
        epilogueOpsFromJson(object, out.epilogueOps)))
    return false;
  if (fixed.size() != 3 || tile.size() != 3 || warps.size() != 2) {
    path.report("wrong tuple size");
    return false;
  }
  // Absent in entries of unscaled kernels.
  out.blockScale.reset();
  if (const llvm::json::Value *scale = object->get("blockScale")) {
    std::vector<unsigned> blocks;
    if (!llvm::json::fromJSON(*scale, blocks, path.field("blockScale")) ||
        blocks.size() < 3 || blocks.size() > 4 ||
        (blocks.size() == 4 && blocks[3] > 1)) {
      path.field("blockScale")
          .report("expected [aRows, bRows, kBlock, sfaMajorM]");
      return false;
    }
    // (Entries written before major(M) have three.)
    out.blockScale = BlockScaleSpec{blocks[0], blocks[1], blocks[2]};
    if (blocks.size() == 4 && blocks[3])
      out.blockScale->aMajor = MajorKind::MN;
  }
  if (!groupFromJson(object, out.group, path))
    return false;
  if (!batchFromJson(object, out.batch, path))
    return false;
  out.fixedM = fixed[0], out.fixedN = fixed[1], out.fixedK = fixed[2];
  out.bm = tile[0], out.bn = tile[1], out.bk = tile[2];
  out.warpsM = warps[0], out.warpsN = warps[1];
  return true;
}

//===-- The kernel
//---------------------------------------------------------===//

llvm::json::Value compiledKernelToJson(const CompiledKernel &kernel) {
  llvm::json::Object object{
      {"arch", kernel.arch},
      {"ptx", kernel.ptx},
      {"entryName", kernel.entryName},
      {"blockThreads", kernel.blockThreads},
      {"sharedBytes", kernel.sharedBytes},
      {"tile", llvm::json::Array{kernel.tileM, kernel.tileN}},
      {"cluster", kernel.cluster},
      {"params", kernel.params},
      {"epilogueOps", epilogueOpsToJson(kernel.epilogueOps)},
      {"aType", kernel.aType},
      {"bType", kernel.bType},
      {"cType", kernel.cType},
      {"aMajor", kernel.aMajor},
      {"bMajor", kernel.bMajor},
      {"ldcMultiple", kernel.ldcMultiple},
      {"cAlignBytes", kernel.cAlignBytes},
      {"tensorMaps", kernel.tensorMaps},
      {"fixed", llvm::json::Array{kernel.fixedM, kernel.fixedN, kernel.fixedK}},
      {"swapAB", kernel.swapAB},
      {"splitK", kernel.splitK},
      {"splitKCluster", kernel.splitKCluster},
      {"persistent", kernel.persistent},
      {"ctasPerSm", kernel.ctasPerSm},
      {"dependentLaunch", kernel.dependentLaunch},
      {"spec", kernel.lowered.spec},
      {"loweredIR", kernel.lowered.loweredIR},
  };
  if (kernel.batch)
    object["batch"] = batchToJson(*kernel.batch);
  if (kernel.group)
    object["group"] = groupToJson(*kernel.group);
  if (kernel.sfaMajor != MajorKind::K)
    object["sfaMajor"] = kernel.sfaMajor;
  return object;
}

std::optional<CompiledKernel>
compiledKernelFromJson(const llvm::json::Value &value) {
  llvm::json::Path::Root root("kernel");
  llvm::json::ObjectMapper o(value, root);
  CompiledKernel k;
  std::vector<unsigned> tile;
  std::vector<int64_t> fixed;
  if (!(o && o.map("arch", k.arch) && o.map("ptx", k.ptx) &&
        o.map("entryName", k.entryName) &&
        o.map("blockThreads", k.blockThreads) &&
        o.map("sharedBytes", k.sharedBytes) && o.map("tile", tile) &&
        o.map("cluster", k.cluster) && o.map("params", k.params) &&
        o.map("aType", k.aType) && o.map("bType", k.bType) &&
        o.map("cType", k.cType) && o.map("aMajor", k.aMajor) &&
        o.map("bMajor", k.bMajor) && o.map("ldcMultiple", k.ldcMultiple) &&
        o.map("cAlignBytes", k.cAlignBytes) &&
        o.map("tensorMaps", k.tensorMaps) && o.map("fixed", fixed) &&
        o.map("swapAB", k.swapAB) && o.map("splitK", k.splitK) &&
        o.map("splitKCluster", k.splitKCluster) &&
        o.map("persistent", k.persistent) && o.map("ctasPerSm", k.ctasPerSm) &&
        o.map("dependentLaunch", k.dependentLaunch) &&
        o.map("spec", k.lowered.spec) &&
        o.map("loweredIR", k.lowered.loweredIR) &&
        epilogueOpsFromJson(value.getAsObject(), k.epilogueOps)))
    return std::nullopt;
  if (tile.size() != 2 || fixed.size() != 3 ||
      !batchFromJson(value.getAsObject(), k.batch, root) ||
      !groupFromJson(value.getAsObject(), k.group, root))
    return std::nullopt;
  if (const llvm::json::Value *major = value.getAsObject()->get("sfaMajor")) {
    if (!fromJSON(*major, k.sfaMajor, llvm::json::Path(root).field("sfaMajor")))
      return std::nullopt;
  }
  k.tileM = tile[0], k.tileN = tile[1];
  k.fixedM = fixed[0], k.fixedN = fixed[1], k.fixedK = fixed[2];
  return k;
}

} // namespace tilec
