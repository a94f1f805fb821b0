//===- compiler/passes/Verify.cpp - The Tile IR verifier ------------------===//
//
// Checks the module against the op table (ir/tile/TileIR.h): known ops in the
// right place, symbols, required and known attributes of the right kinds,
// how many of each op a kernel holds; then the values: targets, dtypes,
// operand shapes and majorness, positive tile sizes, an explicit instruction
// against the instruction table (ir/arch/InstrTable.h), epilogue steps against
// their table. Every message says what would be legal.
//
//===----------------------------------------------------------------------===//
#include "compiler/passes/Passes.h"

#include "codegen/GemmTarget.h"
#include "compiler/passes/KernelCombination.h"
#include "compiler/passes/KernelView.h"
#include "compiler/passes/VerifyBatch.h"
#include "compiler/passes/VerifyGroup.h"
#include "compiler/passes/VerifyScale.h"
#include "compiler/passes/VerifyWeightQuant.h"
#include "ir/arch/InstrTable.h"
#include "ir/arch/SwizzleMode.h"
#include "ir/layout/LayoutExpr.h"
#include "ir/tile/EpilogueOps.h"

#include "llvm/ADT/StringMap.h"

#include <map>

namespace tilec {

namespace {

/// One epilogue step: the instruction it needs (ir/arch/Arch.h's feature
/// questions; null: every target has it) and the options it takes.
struct EpilogueStepInfo {
  llvm::StringRef name;
  bool ArchInfo::*needs;
  bool takesSwizzle;
};
const EpilogueStepInfo EpilogueSteps[] = {
    {"auto", nullptr, false},
    {"store", nullptr, false},
    {"stmatrix", &ArchInfo::hasStmatrix, true},
    {"tma_store", &ArchInfo::hasTma, false},
};

/// The first target (in ArchKind's order) that has \p feature.
const ArchInfo &firstArchWith(bool ArchInfo::*feature) {
  for (const ArchInfo &info : allArchs())
    if (info.*feature)
      return info;
  return allArchs().back();
}

/// The extents of each operand in the TN view and which may be contiguous.
struct OperandRole {
  llvm::StringRef name;
  llvm::StringRef dims[2];
  llvm::StringRef example, batchedExample;
};
const OperandRole Roles[] = {
    {"a", {"M", "K"}, "a : bf16[M, K] major(K)", "a : bf16[B, M, K] major(K)"},
    {"b", {"N", "K"}, "b : bf16[N, K] major(K)", "b : bf16[B, N, K] major(K)"},
    {"c", {"M", "N"}, "c : bf16[M, N] major(N)", "c : bf16[B, M, N] major(N)"},
};

/// What the target rows' checkItems read of a `schedule` line (\p schedule
/// null: none): swap_ab, split_k above 1, cluster above 1.
GemmItemFacts scheduleFacts(const tir::Op *schedule) {
  GemmCombination written;
  readScheduleCombination(schedule, written);
  GemmItemFacts facts;
  facts.swapAB = written.swapAB;
  if (written.splitK > 1)
    facts.splitK = unsigned(std::min<int64_t>(written.splitK, 1 << 20));
  if (written.clusterM > 1)
    facts.clusterM = unsigned(std::min<int64_t>(written.clusterM, 1 << 20));
  return facts;
}

/// Reports \p attr of \p op if it is a layout expression that does not
/// evaluate (Tile IR read from text; sema checks .tile programs earlier).
void verifyLayoutText(const tir::Op &op, llvm::StringRef key,
                      DiagnosticEngine &diags) {
  const tir::Attr *attr = op.get(key);
  if (!attr || !attr->isString())
    return;
  llvm::Expected<LayoutValue> value = evaluateLayoutExpr(attr->str);
  if (value)
    return;
  LayoutExprDiag diag = toLayoutExprDiag(value.takeError());
  diags.error(attrLoc(op, key), "layout expression of '" + op.name +
                                    "': " + diag.message + " (column " +
                                    llvm::Twine(diag.column + 1) + ")");
}

class Verifier {
public:
  explicit Verifier(PassContext &context)
      : context(context), diags(context.diags) {}

  void verifyModule(tir::Op &module);

private:
  bool verifySchema(const tir::Op &op);
  void verifyKernel(tir::Op &kernel);
  void verifyOperand(const tir::Op &op);
  void verifyMma(const tir::Op &op, const KernelView *view);
  /// swiglu's rules: once, no residual before it, a pairing the store
  /// path can stage, BN a multiple of 16, no swap-AB.
  void verifySwiglu(llvm::ArrayRef<std::pair<EpilogueOp, llvm::SMLoc>> ops,
                    bool staged, const KernelView *view);
  void verifyEpilogue(const tir::Op &op, std::optional<ArchKind> arch,
                      const KernelView *view);
  void verifySchedule(const tir::Op &op, std::optional<ArchKind> arch);
  /// `cluster_n(2)`: the target, and what it does not combine with.
  void verifyColumnCluster(const tir::Op &op, std::optional<ArchKind> arch,
                           bool clustered, bool splits);

  PassContext &context;
  DiagnosticEngine &diags;
};

const char *kindNames(unsigned mask) {
  switch (mask) {
  case tir::IntAttr:
    return "an integer";
  case tir::IdentAttr:
    return "an identifier";
  case tir::StringAttr:
    return "a string";
  case tir::ListAttr:
    return "a list";
  case tir::IdentAttr | tir::StringAttr:
    return "an identifier or a string";
  }
  return "a value";
}

unsigned kindBit(const tir::Attr &attr) {
  switch (attr.kind) {
  case tir::Attr::Kind::Int:
    return tir::IntAttr;
  case tir::Attr::Kind::Ident:
    return tir::IdentAttr;
  case tir::Attr::Kind::String:
  case tir::Attr::Kind::EpilogueOp: // written as a string
    return tir::StringAttr;
  case tir::Attr::Kind::List:
    return tir::ListAttr;
  }
  return 0;
}

bool Verifier::verifySchema(const tir::Op &op) {
  const tir::OpSchema *schema = tir::findOpSchema(op.name);
  if (!schema) {
    diags.error(op.loc, "unknown op '" + op.name + "'");
    return false;
  }
  bool ok = true;
  if (schema->hasSymbol && op.symbol.empty()) {
    diags.error(op.loc, "'" + op.name + "' needs a symbol ('@name')");
    ok = false;
  } else if (!schema->hasSymbol && !op.symbol.empty()) {
    diags.error(op.loc, "'" + op.name + "' takes no symbol");
    ok = false;
  }
  for (const tir::NamedAttr &attr : op.attrs) {
    const tir::AttrSchema *known = nullptr;
    for (const tir::AttrSchema &candidate : schema->attrs)
      if (candidate.name == attr.name)
        known = &candidate;
    if (!known) {
      std::string legal;
      for (const tir::AttrSchema &candidate : schema->attrs)
        legal += (legal.empty() ? "" : ", ") + candidate.name.str();
      diags.error(attr.value.loc.isValid() ? attr.value.loc : op.loc,
                  "unknown attribute '" + attr.name + "' on '" + op.name +
                      "'; legal: " + (legal.empty() ? "none" : legal));
      ok = false;
      continue;
    }
    if (!(kindBit(attr.value) & known->kinds)) {
      diags.error(attrLoc(op, attr.name), "attribute '" + attr.name + "' of '" +
                                              op.name + "' must be " +
                                              kindNames(known->kinds));
      ok = false;
    }
  }
  for (const tir::AttrSchema &required : schema->attrs)
    if (required.required && !op.get(required.name)) {
      diags.error(op.loc,
                  "'" + op.name + "' needs attribute '" + required.name + "'");
      ok = false;
    }
  return ok;
}

void Verifier::verifyOperand(const tir::Op &op) {
  const OperandRole *role = nullptr;
  for (const OperandRole &candidate : Roles)
    if (candidate.name == op.symbol)
      role = &candidate;
  if (!role) {
    diags.error(op.loc, "unknown operand '" + op.symbol +
                            "'; a kernel's operands are a, b and c, as in '" +
                            Roles[0].example + "'");
    return;
  }
  llvm::StringRef dtype = op.getText("dtype");
  if (!parseDType(dtype))
    diags.error(attrLoc(op, "dtype"), "unknown element type '" + dtype +
                                          "'; legal: " + listDTypeNames());
  const tir::Attr *shape = op.get("shape");
  // An optional leading batch extent (verifyBatch checks it).
  size_t first = shape->list.size() == 3 ? 1 : 0;
  if (shape->list.size() != 2 && shape->list.size() != 3) {
    diags.error(attrLoc(op, "shape"),
                "operand " + op.symbol + " has " +
                    llvm::Twine(shape->list.size()) +
                    " extents; operands are matrices, or batches of them "
                    "with a leading batch extent: " +
                    role->example + ", or " + role->batchedExample);
  } else {
    for (unsigned i = 0; i < 2; ++i) {
      const tir::Attr &dim = shape->list[first + i];
      llvm::SMLoc loc = dim.loc.isValid() ? dim.loc : op.loc;
      if (dim.isInt()) {
        if (dim.intValue <= 0)
          diags.error(loc, "fixed extent " + role->dims[i] + " of operand " +
                               op.symbol + " must be positive, got " +
                               llvm::Twine(dim.intValue));
      } else if (!dim.isIdent(role->dims[i])) {
        diags.error(loc,
                    "extent " + llvm::Twine(first + i + 1) + " of operand " +
                        op.symbol + " must be " + role->dims[i] +
                        " or a fixed size, not '" +
                        (dim.isIdent() || dim.isString() ? dim.str : "a list") +
                        "' (" + (first ? role->batchedExample : role->example) +
                        ")");
      }
    }
  }
  llvm::StringRef major = op.getText("major");
  if (major != role->dims[0] && major != role->dims[1])
    diags.error(attrLoc(op, "major"), "operand " + op.symbol +
                                          " cannot be major(" + major +
                                          "); legal: major(" + role->dims[1] +
                                          ") or major(" + role->dims[0] + ")");
}

void Verifier::verifyMma(const tir::Op &op, const KernelView *view) {
  llvm::StringRef instr = op.getText("instr");
  if (const tir::Attr *wg = op.get("warpgroups"); wg && wg->isInt()) {
    if (wg->intValue < 1 || wg->intValue > 4)
      diags.error(attrLoc(op, "warpgroups"),
                  "warpgroups must be 1..4, got " + llvm::Twine(wg->intValue));
  }
  if (instr == "auto")
    return;
  std::optional<InstrName> name = parseInstrName(instr);
  if (!name) {
    diags.error(attrLoc(op, "instr"),
                "unknown instruction '" + instr +
                    "'; write 'auto' or FAMILY.mMnNkK, e.g. "
                    "mma.sync.m16n8k16, wgmma.m64n128k16, "
                    "tcgen05.mma.m128n256k16");
    return;
  }
  if (op.get("warpgroups") && name->family != MmaFamilyKind::Wgmma)
    diags.error(attrLoc(op, "warpgroups"),
                "warpgroups(...) applies to wgmma only, not " +
                    familyName(name->family));
  if (!view)
    return;
  InstrLookup lookup =
      lookupInstr(*name, view->arch, view->aType, view->mmaBType(),
                  view->accType, unsigned(view->ctaGroup));
  if (!lookup.row) {
    diags.error(attrLoc(op, "instr"), lookup.error);
    return;
  }
  const InstrInfo &row = *lookup.row;
  if (view->aMajor == MajorKind::MN && !row.mnMajorA)
    diags.error(attrLoc(op, "instr"), formatInstrName(*name) + " reads " +
                                          dtypeInfo(view->aType).name +
                                          " A K-major only, but a is "
                                          "major(M); make a major(K)");
  if (view->bMajor == MajorKind::MN && !row.mnMajorB)
    diags.error(attrLoc(op, "instr"), formatInstrName(*name) + " reads " +
                                          dtypeInfo(view->bType).name +
                                          " B K-major only, but b is "
                                          "major(N); make b major(K)");
}

void Verifier::verifySwiglu(
    llvm::ArrayRef<std::pair<EpilogueOp, llvm::SMLoc>> ops, bool staged,
    const KernelView *view) {
  auto at = llvm::find_if(ops, [](const auto &op) {
    return op.first.kind == EpilogueOpKind::Swiglu;
  });
  if (at == ops.end())
    return;
  const EpilogueOp &swiglu = at->first;
  llvm::SMLoc loc = at->second;
  // A matrix operand (residual) has C's shape: after swiglu, M x N / 2.
  for (auto it = ops.begin(); it != at; ++it)
    if (readsOperandMatrix(it->first)) {
      std::string name = epilogueOpInfo(it->first.kind).name.str();
      diags.error(it->second,
                  "epilogue op '" + name +
                      "' adds a tensor of C's shape, which swiglu halves to "
                      "M x N/2; write it after swiglu, e.g. 'epilogue swiglu " +
                      name + "'");
    }
  if (swiglu.pairing == SwigluPairingKind::Interleaved && staged)
    diags.error(loc, "swiglu(interleaved) leaves one element of C per "
                     "accumulator pair, which stmatrix cannot stage; write "
                     "'-> store', or 'swiglu' (the halves of each tile) with "
                     "the staged store");
  if (!view)
    return;
  if (view->bn % 16 != 0)
    diags.error(loc,
                "epilogue op 'swiglu' pairs the two halves of each "
                "tile's BN = " +
                    llvm::Twine(view->bn) +
                    " columns in blocks of 8; BN must be a multiple of 16");
  const tir::Op *schedule = view->kernel->find("tile.schedule");
  const tir::Attr *swap = schedule ? schedule->get("swap_ab") : nullptr;
  if (swap && swap->isInt() && swap->intValue != 0)
    diags.error(loc, "epilogue op 'swiglu' pairs two columns of C in one "
                     "thread, but under swap_ab C's columns are the MMA's "
                     "M rows (wgmma rows, TMEM lanes), spread over threads; "
                     "drop swap_ab from the schedule");
  GemmItemFacts facts;
  facts.swiglu = swiglu.pairing;
  facts.ctaGroup = view->ctaGroup;
  facts.bm = view->bm;
  for (const GemmItemRule &rule : gemmTarget(view->arch).checkItems(facts))
    if (rule.item == GemmItemRule::Swiglu)
      diags.error(loc, rule.message);
}

void Verifier::verifyEpilogue(const tir::Op &op, std::optional<ArchKind> arch,
                              const KernelView *view) {
  const tir::Attr *steps = op.get("steps");
  unsigned errorsBefore = diags.errorCount();
  std::vector<std::pair<EpilogueOp, llvm::SMLoc>> parsedOps;
  if (const tir::Attr *ops = op.get("ops")) {
    std::map<std::string, std::string> readers; // operand -> the op reading it
    for (const tir::Attr &text : ops->list) {
      llvm::SMLoc loc = text.loc.isValid() ? text.loc : op.loc;
      if (!text.isEpilogueOp() && !text.isString()) {
        diags.error(loc, "an epilogue op is a string such as \"bias(col)\"");
        continue;
      }
      // What Sema and the IR parser could not type: say why.
      if (!text.isEpilogueOp()) {
        llvm::Expected<EpilogueOp> parsed = parseEpilogueOp(text.str);
        diags.error(loc, parsed
                             ? "'" + text.str + "' is not a typed epilogue op"
                             : llvm::toString(parsed.takeError()));
        continue;
      }
      const EpilogueOp *parsed = &text.epilogueOp;
      parsedOps.push_back({*parsed, loc});
      const EpilogueOpInfo &info = epilogueOpInfo(parsed->kind);
      llvm::StringRef operand = info.operand;
      const char *shape = info.operandLd.empty() ? " vector" : " tensor";
      if (parsed->kind == EpilogueOpKind::Swiglu)
        operand = "swiglu"; // Once: it halves C's columns.
      if (!operand.empty()) {
        auto [it, fresh] = readers.try_emplace(operand.str(), text.str);
        if (!fresh && operand == "swiglu")
          diags.error(loc, "epilogue op '" + text.str + "' follows '" +
                               it->second +
                               "', which already halves C's columns; a "
                               "kernel takes one swiglu");
        else if (!fresh)
          diags.error(loc, "epilogue op '" + text.str + "' reads the " +
                               operand.str() + shape + ", which '" +
                               it->second +
                               "' already reads; a kernel takes one " +
                               operand.str() + shape + ", applied once");
      }
    }
  }
  if (steps->list.empty())
    diags.error(attrLoc(op, "steps"),
                "the epilogue has no steps; legal "
                "steps: auto, store, stmatrix, tma_store");
  for (const tir::Attr &step : steps->list) {
    llvm::SMLoc loc = step.loc.isValid() ? step.loc : op.loc;
    if (!step.isList() || step.list.empty() || !step.list[0].isIdent()) {
      diags.error(loc, "an epilogue step is a list [NAME, \"option\"...]");
      continue;
    }
    const tir::Attr &name = step.list[0];
    const EpilogueStepInfo *info = nullptr;
    for (const EpilogueStepInfo &candidate : EpilogueSteps)
      if (candidate.name == name.str)
        info = &candidate;
    if (!info) {
      diags.error(loc, "unknown epilogue step '" + name.str +
                           "'; legal: auto, store, stmatrix, tma_store");
      continue;
    }
    if (arch && info->needs && !(archInfo(*arch).*(info->needs)))
      diags.error(loc, "epilogue step '" + name.str + "' needs " +
                           firstArchWith(info->needs).name +
                           " or newer; this kernel targets " +
                           archInfo(*arch).name + ", where 'store' is legal");
    for (size_t i = 1; i < step.list.size(); ++i) {
      const tir::Attr &option = step.list[i];
      llvm::SMLoc optionLoc = option.loc.isValid() ? option.loc : loc;
      llvm::StringRef text =
          option.isString() ? llvm::StringRef(option.str) : llvm::StringRef();
      bool ok = info->takesSwizzle && swizzleOfEpilogueOption(text).has_value();
      if (!ok)
        diags.error(
            optionLoc,
            "epilogue step '" + name.str + "' does not take '" + text + "'" +
                (info->takesSwizzle ? "; legal: swizzle(32B), swizzle(64B), "
                                      "swizzle(128B), swizzle(none)"
                                    : "; it takes no options"));
    }
  }
  // The sequences codegen implements.
  std::string sequence;
  for (const tir::Attr &step : steps->list)
    if (step.isList() && !step.list.empty() && step.list[0].isIdent())
      sequence += (sequence.empty() ? "" : " -> ") + step.list[0].str;
  bool staged = sequence == "stmatrix -> tma_store";
  verifySwiglu(parsedOps, staged, view);
  if (diags.errorCount() != errorsBefore)
    return; // the steps themselves are wrong; the sequence adds nothing
  if (!sequence.empty() && sequence != "auto" && sequence != "store" && !staged)
    diags.error(attrLoc(op, "steps"),
                "epilogue '" + sequence +
                    "' is not generated; legal: 'auto', 'store' (registers "
                    "to global memory) or 'stmatrix [swizzle(..)] -> "
                    "tma_store' (sm_90a, sm_100a: staged in shared memory, "
                    "TMA stores)");
  if (staged && view && view->cType != DTypeKind::BF16 &&
      view->cType != DTypeKind::F16)
    diags.error(attrLoc(op, "steps"),
                "stmatrix moves 16-bit elements, but c is " +
                    dtypeInfo(view->cType).name.str() +
                    "; use 'epilogue store' or make c bf16 or f16");
  // The target's own limits on what its staged epilogue runs after.
  if (!arch || !view)
    return;
  GemmItemFacts facts = scheduleFacts(view->kernel->find("tile.schedule"));
  facts.staged = staged;
  facts.batched = view->batch.has_value();
  facts.ctaGroup = view->ctaGroup;
  facts.bm = view->bm;
  for (const GemmItemRule &rule : gemmTarget(*arch).checkItems(facts))
    if (rule.item == GemmItemRule::EpilogueSteps)
      diags.error(attrLoc(op, "steps"), rule.message);
}

void Verifier::verifySchedule(const tir::Op &op, std::optional<ArchKind> arch) {
  llvm::StringRef mode = op.getText("mode");
  if (mode != "auto" && mode != "fixed")
    diags.error(attrLoc(op, "mode"),
                "schedule mode must be auto or fixed, not '" + mode + "'");
  const tir::Attr *split = op.get("split_k");
  if (split && split->isInt() && (split->intValue < 1 || split->intValue > 64))
    diags.error(attrLoc(op, "split_k"),
                "split_k = " + llvm::Twine(split->intValue) +
                    " is out of range; 1 to 64 are legal");
  bool splits = split && split->isInt() && split->intValue > 1;
  // The schedule's combinations with the target (GemmCombinationRules.h),
  // each reported at the schedule line.
  GemmCombination facts;
  facts.arch = arch;
  readScheduleCombination(&op, facts);
  for (const GemmCombinationBreak &broken : decodeScheduleBreaks(facts))
    diags.error(op.loc, broken.message);
  const tir::Attr *group = op.get("persistent");
  const tir::Attr *cluster = op.get("cluster_m");
  bool persistent = group && group->isInt() && group->intValue > 0;
  bool clustered = cluster && cluster->isInt() && cluster->intValue > 1;
  if (group && group->isInt() && (group->intValue < 0 || group->intValue > 64))
    diags.error(attrLoc(op, "persistent"),
                "persistent = " + llvm::Twine(group->intValue) +
                    " tile rows per group is out of range; 1 to 64 are legal");
  // cluster_m = 4: two sm_100a CTA pairs multicasting B (docs/sm100.md,
  // "Clusters of two pairs"); one GEMM's tiles, so no decode schedule.
  bool twoPairs = cluster && cluster->isInt() && cluster->intValue == 4;
  if (twoPairs && arch && !gemmTarget(*arch).hasTwoPairClusters())
    diags.error(attrLoc(op, "cluster_m"),
                "cluster(4) (two CTA pairs of tcgen05.mma.cta_group::2 "
                "multicasting B) is " +
                    twoPairClusterTargetNames() + " only; " +
                    archInfo(*arch).name + " takes cluster(1) or cluster(2)");
  if (cluster && cluster->isInt() && !twoPairs &&
      (cluster->intValue < 1 || cluster->intValue > 2))
    diags.error(attrLoc(op, "cluster_m"),
                "cluster_m = " + llvm::Twine(cluster->intValue) +
                    " is out of range; 1 or 2 CTAs along M are legal");
  for (const GemmCombinationBreak &broken : persistentScheduleBreaks(facts))
    diags.error(op.loc, broken.message);
  // The target's own limits on its decode schedules with clusters.
  if (arch)
    for (const GemmItemRule &rule :
         gemmTarget(*arch).checkItems(scheduleFacts(&op)))
      if (rule.item == GemmItemRule::Schedule ||
          rule.item == GemmItemRule::ScheduleCluster)
        diags.error(rule.item == GemmItemRule::Schedule
                        ? op.loc
                        : attrLoc(op, "cluster_m"),
                    rule.message);
  if (splits && (persistent || clustered) && !twoPairs)
    diags.error(op.loc,
                "schedule split_k with " +
                    std::string(persistent ? "persistent" : "cluster(2)") +
                    " is not implemented: the K splits of a tile are their "
                    "own grid z (or 1x1xS cluster); drop one of them");
  verifyColumnCluster(op, arch, clustered, splits);
}

void Verifier::verifyColumnCluster(const tir::Op &op,
                                   std::optional<ArchKind> arch, bool clustered,
                                   bool splits) {
  const tir::Attr *columns = op.get("cluster_n");
  if (!columns || !columns->isInt() || columns->intValue == 1)
    return;
  auto at = attrLoc(op, "cluster_n");
  if (columns->intValue != 2) {
    diags.error(at, "cluster_n = " + llvm::Twine(columns->intValue) +
                        " is out of range; 1 or 2 CTAs along N are legal");
    return;
  }
  if (arch && !gemmTarget(*arch).hasColumnClusters())
    diags.error(at, "schedule cluster_n(2) (1x2 clusters multicasting A) is "
                    "implemented for " +
                        columnClusterTargetNames() + " only; " +
                        archInfo(*arch).name + " kernels take " +
                        (gemmTarget(*arch).hasTwoPairClusters()
                             ? "cluster(2), cluster(4) or no cluster"
                         : gemmTarget(*arch).hasPersistentSchedule()
                             ? "cluster(2) or no cluster"
                             : "no cluster"));
  if (clustered) {
    int64_t rows = op.get("cluster_m")->intValue;
    diags.error(at, "cluster(" + llvm::Twine(rows) +
                        ") and cluster_n(2) together would make a " +
                        llvm::Twine(rows) +
                        "x2 cluster, which is not implemented; choose one "
                        "(cluster(2) multicasts B, cluster_n(2) multicasts "
                        "A)");
  }
  if (splits)
    diags.error(at, "schedule split_k with cluster_n(2) is not implemented: "
                    "the K splits of a tile are their own grid z (or 1x1xS "
                    "cluster); drop one of them");
  if (op.get("swap_ab") && op.get("swap_ab")->isInt() &&
      op.get("swap_ab")->intValue != 0)
    diags.error(at, "schedule swap_ab with cluster_n(2) is not implemented "
                    "(the swapped kernel's A role is the user's B); drop one "
                    "of them");
}

void Verifier::verifyKernel(tir::Op &kernel) {
  llvm::StringRef archName = kernel.getText("arch");
  std::optional<ArchKind> arch = parseArch(archName);
  if (!arch)
    diags.error(attrLoc(kernel, "arch"),
                "unknown target '" + archName + "'; legal: " + listArchNames());
  else if (context.arch && *context.arch != *arch)
    diags.error(attrLoc(kernel, "arch"),
                "kernel '" + kernel.symbol + "' is written for " + archName +
                    " but --arch asks for " + archInfo(*context.arch).name);

  // Op placement, counts and duplicates.
  llvm::StringMap<const tir::Op *> first;
  std::vector<const tir::Op *> checked; // In order, for deterministic output.
  for (const tir::Op &op : kernel.body) {
    // An op with bad attributes still counts as declared, so one mistake
    // does not also read as a missing line.
    bool schemaOk = verifySchema(op);
    const tir::OpSchema *schema = tir::findOpSchema(op.name);
    if (!schema)
      continue;
    if (schema->maxPerKernel == 0) {
      diags.error(op.loc, "'" + op.name + "' cannot appear inside a kernel");
      continue;
    }
    std::string key = op.name + "@" + op.symbol;
    auto [it, inserted] = first.try_emplace(key, &op);
    if (!inserted) {
      std::string what =
          op.symbol.empty() ? "'" + schema->sourceName.str() + "'"
                            : schema->sourceName.str() + " '" + op.symbol + "'";
      diags.error(op.loc,
                  "kernel '" + kernel.symbol + "' declares " + what + " twice");
      diags.note(it->second->loc, "the first declaration is here");
      continue;
    }
    if (!schemaOk)
      continue;
    checked.push_back(&op);
    if (op.name == "tile.operand")
      verifyOperand(op);
    if (op.name == "tile.smem") {
      if (op.symbol != "a" && op.symbol != "b")
        diags.error(op.loc,
                    "smem takes operand a or b, not '" + op.symbol + "'");
      verifyLayoutText(op, "layout", diags);
      const tir::Attr *layout = op.get("layout");
      if (layout->isIdent() && layout->str != "auto")
        diags.error(attrLoc(op, "layout"),
                    "smem layout must be 'auto' or a layout expression, not "
                    "'" +
                        layout->str + "'");
    }
    if (op.name == "tile.acc" && !parseDType(op.getText("dtype")))
      diags.error(attrLoc(op, "dtype"), "unknown accumulator type '" +
                                            op.getText("dtype") +
                                            "'; legal: f32, f16");
    if (op.name == "tile.tile") {
      for (llvm::StringRef key : {"bm", "bn", "bk"}) {
        int64_t value = *op.getInt(key);
        std::string upper = key.upper();
        if (value <= 0)
          diags.error(attrLoc(op, key),
                      upper + " must be positive, got " + llvm::Twine(value));
        else if (value > 65536)
          diags.error(attrLoc(op, key), upper + " = " + llvm::Twine(value) +
                                            " is larger than 65536");
      }
    }
    if (op.name == "tile.stages") {
      int64_t count = *op.getInt("count");
      if (count < 1 || count > 64)
        diags.error(attrLoc(op, "count"),
                    "stages must be 1..64, got " + llvm::Twine(count));
    }
  }
  // Required ops.
  for (const tir::OpSchema &schema : tir::opSchemas()) {
    if (schema.minPerKernel == 0)
      continue;
    if (schema.name == "tile.operand" || schema.name == "tile.smem") {
      for (const OperandRole &role : Roles) {
        if (schema.name == "tile.smem" && role.name == "c")
          continue;
        if (!first.count(schema.name.str() + "@" + role.name.str()))
          diags.error(kernel.loc,
                      "kernel '" + kernel.symbol + "' does not declare " +
                          (schema.name == "tile.operand"
                               ? "operand " + role.name.str() + "; add e.g. '" +
                                     role.example.str() + "'"
                               : "the smem layout of " + role.name.str() +
                                     "; add 'smem " + role.name.str() +
                                     " = auto'"));
      }
      continue;
    }
    if (!first.count(schema.name.str() + "@"))
      diags.error(kernel.loc, "kernel '" + kernel.symbol + "' has no '" +
                                  schema.sourceName + "' line");
  }
  // Ops that passed the schema check above; the instruction is checked
  // against the table only when the kernel's types are readable.
  std::optional<KernelView> view = KernelView::get(kernel);
  for (const tir::Op *checkedOp : checked) {
    const tir::Op &op = *checkedOp;
    if (op.name == "tile.mma")
      verifyMma(op, view ? &*view : nullptr);
    if (op.name == "tile.epilogue")
      verifyEpilogue(op, arch, view ? &*view : nullptr);
    if (op.name == "tile.schedule")
      verifySchedule(op, arch);
  }
  verifyBlockScales(kernel, arch, view ? &*view : nullptr, diags);
  verifyWeightQuant(kernel, arch, view ? &*view : nullptr, diags);
  // A grouped kernel's leading extents are its group count, not a batch.
  if (isGroupedKernel(kernel))
    verifyGroup(kernel, arch, view ? &*view : nullptr, diags);
  else
    verifyBatch(kernel, arch, diags);
}

void Verifier::verifyModule(tir::Op &module) {
  if (module.name != "tile.module") {
    diags.error(module.loc, "expected 'tile.module' at the top");
    return;
  }
  llvm::StringMap<const tir::Op *> symbols;
  for (tir::Op &op : module.body) {
    if (!verifySchema(op))
      continue;
    const tir::OpSchema *schema = tir::findOpSchema(op.name);
    if (schema->maxPerKernel != 0 || op.name == "tile.module") {
      diags.error(op.loc, "'" + op.name + "' belongs inside a tile.kernel");
      continue;
    }
    if (!op.symbol.empty()) {
      auto [it, inserted] = symbols.try_emplace(op.symbol, &op);
      if (!inserted) {
        diags.error(op.loc, "'" + op.symbol + "' is already defined");
        diags.note(it->second->loc, "the first definition is here");
      }
    }
    if (op.name == "tile.layout")
      verifyLayoutText(op, "expr", diags);
    if (op.name == "tile.print") {
      llvm::StringRef kind = op.getText("kind");
      if (kind != "descriptor")
        verifyLayoutText(op, "expr", diags);
      if (!kind.empty() && kind != "layout" && kind != "descriptor")
        diags.error(attrLoc(op, "kind"), "print kind must be layout or "
                                         "descriptor, not '" +
                                             kind + "'");
    }
    if (op.name == "tile.kernel")
      verifyKernel(op);
  }
}

} // namespace

bool runVerifyPass(tir::Op &module, PassContext &context) {
  unsigned before = context.diags.errorCount();
  Verifier verifier(context);
  verifier.verifyModule(module);
  return context.diags.errorCount() == before;
}

} // namespace tilec
