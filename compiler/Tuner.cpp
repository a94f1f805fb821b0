//===- compiler/Tuner.cpp - Enumerate, rank and check tune candidates -----===//
//
// The CPU half of `tilec tune` (compiler/Tuner.h): the variant lists per
// target, the cost model and the legality walk. A variant is written into
// the program's Tile IR (the module sema builds, printed back as text), so
// every candidate goes through the same passes and target checks as a
// program that wrote those items itself; nothing here re-implements a rule.
//
//===----------------------------------------------------------------------===//
#include "compiler/Tuner.h"

#include "codegen/GemmTarget.h"
#include "compiler/Diagnostics.h"
#include "compiler/IRParser.h"
#include "compiler/Parser.h"
#include "compiler/Sema.h"
#include "ir/tile/TileIR.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace tilec {

namespace {

constexpr int64_t MaxExtent = (int64_t(1) << 31) - 1;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The program's Tile IR after sema (or as read, for Tile IR input).
llvm::Expected<tir::Op> semaModule(llvm::StringRef source,
                                   std::optional<ArchKind> arch) {
  llvm::SourceMgr sourceMgr;
  unsigned id = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, "<source>"), llvm::SMLoc());
  std::string sink;
  llvm::raw_string_ostream log(sink);
  DiagnosticEngine diags(sourceMgr, log);
  diags.setCapture(true);
  std::optional<tir::Op> module;
  if (looksLikeTileIR(source)) {
    module = parseTileIR(id, diags);
  } else {
    Program program = parseProgram(id, diags);
    if (!diags.hasErrors()) {
      SemaOptions options;
      options.arch = arch;
      module = buildTileIR(program, options, diags);
    }
  }
  if (!module || diags.hasErrors())
    return llvm::createStringError(diags.formatAll());
  return std::move(*module);
}

/// Whether tile.epilogue \p op (or none) leaves the store to `auto`.
bool storeIsAuto(const tir::Op *op) {
  if (!op)
    return true;
  const tir::Attr *steps = op->get("steps");
  return steps && steps->isList() && steps->list.size() == 1 &&
         steps->list[0].isList() && !steps->list[0].list.empty() &&
         steps->list[0].list[0].isIdent("auto");
}

unsigned openItemsOf(const tir::Op &kernel, ArchKind arch) {
  unsigned items = 0;
  const GemmTarget &target = gemmTarget(arch);
  const tir::Op *schedule = kernel.find("tile.schedule");
  if ((target.hasDecodeSchedules() || target.hasSplitK() ||
       target.hasPersistentSchedule()) &&
      (!schedule || schedule->getText("mode") == "auto"))
    items |= TuneSchedule;
  if (archInfo(arch).hasStmatrix && archInfo(arch).hasTma &&
      storeIsAuto(kernel.find("tile.epilogue")))
    items |= TuneStore;
  return items;
}

tir::Op *findKernel(tir::Op &module, llvm::StringRef name) {
  for (tir::Op &op : module.body)
    if (op.name == "tile.kernel" && (name.empty() || op.symbol == name))
      return &op;
  return nullptr;
}

/// \p source's module (semaModule), checked to hold kernel \p kernel:
/// findKernel(*module, kernel) is then not null.
llvm::Expected<tir::Op> moduleWithKernel(llvm::StringRef source,
                                         llvm::StringRef kernel,
                                         std::optional<ArchKind> arch) {
  llvm::Expected<tir::Op> module = semaModule(source, arch);
  if (module && !findKernel(*module, kernel))
    return llvm::createStringError("the source has no kernel '" + kernel.str() +
                                   "'");
  return module;
}

std::optional<ArchKind> kernelArch(const tir::Op &kernel,
                                   std::optional<ArchKind> fallback) {
  if (std::optional<ArchKind> arch = parseArch(kernel.getText("arch")))
    return arch;
  return fallback;
}

/// Writes \p v's \p items into \p kernel.
void writeVariant(tir::Op &kernel, const TuneVariant &v, unsigned items) {
  if (items & TuneTile)
    if (tir::Op *tile = kernel.find("tile.tile")) {
      bool moved = tile->getInt("bm") != int64_t(v.bm) ||
                   tile->getInt("bn") != int64_t(v.bn) ||
                   tile->getInt("bk") != int64_t(v.bk);
      tile->set("bm", tir::Attr::integer(v.bm));
      tile->set("bn", tir::Attr::integer(v.bn));
      tile->set("bk", tir::Attr::integer(v.bk));
      // A written instruction and shared-memory layouts were written for
      // the old tile (wgmma's N is BN, a layout covers a stage): another
      // tile leaves them to the compiler, as specWith does.
      if (moved)
        for (tir::Op &item : kernel.body) {
          if (item.name == "tile.mma") {
            item.attrs.clear();
            item.set("instr", tir::Attr::ident("auto", item.loc));
          } else if (item.name == "tile.smem") {
            item.set("layout", tir::Attr::ident("auto", item.loc));
          }
        }
    }
  if (items & TuneStages)
    if (tir::Op *stages = kernel.find("tile.stages"))
      stages->set("count", tir::Attr::integer(v.stages));
  if (items & TuneSchedule) {
    tir::Op schedule;
    schedule.name = "tile.schedule";
    schedule.set("mode", tir::Attr::ident("fixed"));
    if (v.swapAB)
      schedule.set("swap_ab", tir::Attr::integer(1));
    if (v.splitK > 1)
      schedule.set("split_k", tir::Attr::integer(v.splitK));
    if (v.persistent)
      schedule.set("persistent", tir::Attr::integer(v.persistent));
    if (v.clusterM > 1)
      schedule.set("cluster_m", tir::Attr::integer(v.clusterM));
    if (v.clusterN > 1)
      schedule.set("cluster_n", tir::Attr::integer(v.clusterN));
    if (tir::Op *existing = kernel.find("tile.schedule")) {
      schedule.loc = existing->loc;
      *existing = std::move(schedule);
    } else {
      kernel.body.push_back(std::move(schedule));
    }
  }
  if (items & TuneStore)
    if (tir::Op *epilogue = kernel.find("tile.epilogue")) {
      std::vector<tir::Attr> steps;
      if (v.storeTma) {
        steps.push_back(tir::Attr::makeList({tir::Attr::ident("stmatrix")}));
        steps.push_back(tir::Attr::makeList({tir::Attr::ident("tma_store")}));
      } else {
        steps.push_back(tir::Attr::makeList({tir::Attr::ident("store")}));
      }
      epilogue->set("steps", tir::Attr::makeList(std::move(steps)));
    }
}

/// \p base with \p v written in, as plan-pipeline would see it.
GemmSpec specWith(const GemmSpec &base, const TuneVariant &v) {
  GemmSpec spec = base;
  spec.bm = v.bm;
  spec.bn = v.bn;
  spec.bk = v.bk;
  spec.stages = v.stages;
  spec.swapAB = v.swapAB;
  spec.splitK = v.splitK;
  spec.persistent = v.persistent != 0;
  if (v.persistent)
    spec.rasterGroupM = v.persistent;
  spec.clusterM = v.clusterM;
  spec.clusterN = v.clusterN;
  spec.storeTma = v.storeTma;
  if (v.bm != base.bm || v.bn != base.bn || v.bk != base.bk) {
    spec.smemA.reset();
    spec.smemB.reset();
  }
  return spec;
}

/// Dense tensor-core peak of the reference part of each target (flop/s,
/// ir/arch/Arch.h's ReferenceGpu) for 16-bit inputs, and its SM count: A100
/// 312 T / 108, H200 989 T / 132, B200 2250 T / 148. 8-bit inputs double
/// it, tf32 halves it.
std::pair<double, unsigned> referencePeak(ArchKind arch, DTypeKind a) {
  const ArchInfo::ReferenceGpu &gpu = archInfo(arch).reference;
  double peak = gpu.denseFlops16;
  unsigned sms = gpu.smCount;
  unsigned bits = dtypeBits(a);
  if (bits <= 8)
    peak *= 2;
  else if (bits == 32)
    peak /= 2;
  return {peak, sms};
}

/// The lists a variant's items are drawn from (docs/tune.md).
struct VariantLists {
  std::vector<unsigned> bm, bn, bk;
  std::vector<bool> swap;
  std::vector<unsigned> splits;
  /// persistent(G) (0: the grid) with its cluster.
  struct Schedule {
    unsigned persistent, clusterM, clusterN;
  };
  std::vector<Schedule> persistentCluster;
  std::vector<bool> storeTma;
};

VariantLists variantLists(const GemmSpec &base, unsigned items,
                          const TuneVariant &written) {
  VariantLists l;
  unsigned bits = std::max(1u, dtypeBits(base.aType));
  if (items & TuneTile) {
    GemmTarget::TuneTiles tiles = gemmTarget(base.arch).tuneTiles();
    l.bm = tiles.bm;
    l.bn = tiles.bn;
    for (unsigned bytes : tiles.kBytes)
      l.bk.push_back(bytes * 8 / bits);
    if (base.blockScale)
      l.bk = {base.blockScale->kBlock};
    // A quantized weight's sm_80 kernel runs decode M in 16- and 32-row
    // tiles (128 for a prefill M), and its K tile is whole packed blocks
    // (the compiler refuses a BK that does not nest with the group); where
    // the weight is the MMA's A (sm_90a) BM tiles the weight in the
    // target's row tiles and BK is the target's.
    if (base.weightQuant) {
      const GemmTarget &target = gemmTarget(base.arch);
      l.bm = {16, 32, 64, 128};
      l.bk = {64, 128, 256};
      if (target.weightIsMmaA()) {
        l.bm = target.weightRowTiles();
        l.bk = {target.weightBk()};
      }
    }
  } else {
    l.bm = {written.bm};
    l.bn = {written.bn};
    l.bk = {written.bk};
  }
  const GemmTarget &target = gemmTarget(base.arch);
  bool grouped = base.group.has_value();
  if (items & TuneSchedule) {
    l.swap = {false};
    l.splits = {1};
    if (target.hasDecodeSchedules() && !grouped)
      l.swap.push_back(true);
    // A weight that is the MMA's A always runs swapped.
    if (base.weightQuant && target.weightIsMmaA())
      l.swap = {true};
    // sm_80 splits K without swapping (GemmTarget::hasSplitK).
    if (target.hasSplitK() && !grouped)
      l.splits = {1, 2, 4, 8};
    // Decode against a packed weight splits K up to 16 ways
    // (tilec.gemm's W4A16 rule, bench/W4A16Results.md).
    if (base.weightQuant && target.hasSplitK())
      l.splits.push_back(16);
    l.persistentCluster = {{0, 1, 1}};
    if (target.hasPersistentSchedule()) {
      l.persistentCluster.push_back({8, 1, 1});
      if (!grouped) {
        l.persistentCluster.push_back({0, 2, 1});
        l.persistentCluster.push_back({8, 2, 1});
      }
    }
    // 1x2 clusters sharing a K-major A (slower than none on the grouped
    // fp8 examples, bench/Fp8BlockResults.md, so not tried there).
    if (target.hasColumnClusters() && !grouped && base.aMajor == MajorKind::K) {
      l.persistentCluster.push_back({0, 1, 2});
      l.persistentCluster.push_back({8, 1, 2});
    }
  } else {
    l.swap = {written.swapAB};
    l.splits = {written.splitK};
    l.persistentCluster = {
        {written.persistent, written.clusterM, written.clusterN}};
  }
  if (items & TuneStore) {
    l.storeTma = {false};
    if (archInfo(base.arch).hasStmatrix && archInfo(base.arch).hasTma &&
        dtypeBits(base.cType) == 16)
      l.storeTma.push_back(true);
  } else {
    l.storeTma = {written.storeTma};
  }
  return l;
}

/// The stage counts to try for \p spec's tile: the most that fit (at most
/// 16) and 4 below it; the written count when stages are not varied.
/// Empty when not even the smallest fits.
std::vector<unsigned> stageChoices(const GemmSpec &spec, bool vary,
                                   unsigned written) {
  const GemmTarget &target = gemmTarget(spec.arch);
  int64_t limit = archInfo(spec.arch).maxSharedBytesPerCta;
  auto total = [&](unsigned stages) -> int64_t {
    GemmSpec s = spec;
    s.stages = stages;
    llvm::Expected<GemmSmemBudget> budget = target.sharedMemory(s);
    if (!budget) {
      llvm::consumeError(budget.takeError());
      return -1;
    }
    return budget->total;
  };
  if (!vary) {
    int64_t bytes = total(written);
    return bytes >= 0 && bytes <= limit ? std::vector<unsigned>{written}
                                        : std::vector<unsigned>{};
  }
  int64_t one = total(1), two = total(2);
  if (one < 0 || two < 0 || two > limit)
    return {};
  int64_t perStage = two - one, fixed = one - perStage;
  unsigned most = unsigned(
      std::min<int64_t>(16, perStage > 0 ? (limit - fixed) / perStage : 16));
  while (most > 2 && total(most) > limit) // the budget's rounding
    --most;
  std::vector<unsigned> out{most};
  if (most > 4)
    out.push_back(4);
  return out;
}

} // namespace

llvm::Expected<std::vector<TuneShape>> parseTuneShapes(llvm::StringRef text) {
  std::vector<TuneShape> shapes;
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ';', -1, /*KeepEmpty=*/true);
  for (size_t i = 0; i < parts.size(); ++i) {
    llvm::StringRef part = parts[i].trim();
    if (part.empty()) {
      if (parts.size() > 1 && i + 1 == parts.size())
        continue; // a trailing ';'
      return llvm::createStringError(
          "--shapes: an empty shape in '" + text.str() +
          "'; write M,N,K (three positive integers), shapes separated by ';'");
    }
    llvm::SmallVector<llvm::StringRef> sizes;
    part.split(sizes, ',', -1, /*KeepEmpty=*/true);
    if (sizes.size() != 3)
      return llvm::createStringError(
          "--shapes: '" + part.str() + "' has " + std::to_string(sizes.size()) +
          (sizes.size() == 1 ? " size" : " sizes") +
          "; each shape is M,N,K (three positive integers), shapes separated "
          "by ';'");
    int64_t values[3];
    static const char *const names[] = {"M", "N", "K"};
    for (int i = 0; i < 3; ++i) {
      llvm::StringRef s = sizes[i].trim();
      if (s.getAsInteger(10, values[i]) || values[i] < 1 ||
          values[i] > MaxExtent)
        return llvm::createStringError(
            "--shapes: " + std::string(names[i]) + " = '" + s.str() + "' in '" +
            part.str() + "' is not an integer from 1 to 2147483647");
    }
    shapes.push_back({values[0], values[1], values[2]});
  }
  if (shapes.empty())
    return llvm::createStringError(
        "--shapes: no shape given; write M,N,K[;M,N,K...]");
  return shapes;
}

TuneShape tuneBucket(const TuneShape &shape) {
  TuneShape b = shape;
  b.m = int64_t(llvm::PowerOf2Ceil(uint64_t(std::max<int64_t>(1, shape.m))));
  return b;
}

llvm::Expected<unsigned> parseTuneItems(llvm::StringRef text) {
  unsigned items = 0;
  llvm::SmallVector<llvm::StringRef> words;
  text.split(words, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef word : words) {
    word = word.trim();
    if (word == "tile")
      items |= TuneTile;
    else if (word == "stages")
      items |= TuneStages;
    else if (word == "schedule")
      items |= TuneSchedule;
    else if (word == "store")
      items |= TuneStore;
    else if (word == "all")
      items |= TuneTile | TuneStages | TuneSchedule | TuneStore;
    else
      return llvm::createStringError(
          "--vary: unknown item '" + word.str() +
          "'; legal: tile, stages, schedule, store, all (comma-separated)");
  }
  return items;
}

std::string describeTuneItems(unsigned items) {
  std::string out;
  for (auto [bit, name] : {std::pair{TuneTile, "tile"},
                           {TuneStages, "stages"},
                           {TuneSchedule, "schedule"},
                           {TuneStore, "store"}})
    if (items & bit)
      out += (out.empty() ? "" : ", ") + std::string(name);
  return out.empty() ? "none" : out;
}

std::string TuneVariant::describe() const {
  std::string out = llvm::formatv("{0}x{1}x{2} s{3}", bm, bn, bk, stages);
  if (swapAB)
    out += " swap_ab";
  if (splitK > 1)
    out += " split_k(" + std::to_string(splitK) + ")";
  if (persistent)
    out += " persistent(" + std::to_string(persistent) + ")";
  if (clusterM > 1)
    out += " cluster(" + std::to_string(clusterM) + ")";
  if (clusterN > 1)
    out += " cluster_n(" + std::to_string(clusterN) + ")";
  out += storeTma ? " tma_store" : " store";
  return out;
}

llvm::json::Object TuneVariant::toJson() const {
  return llvm::json::Object{{"bm", int64_t(bm)},
                            {"bn", int64_t(bn)},
                            {"bk", int64_t(bk)},
                            {"stages", int64_t(stages)},
                            {"swap_ab", swapAB},
                            {"split_k", int64_t(splitK)},
                            {"persistent", int64_t(persistent)},
                            {"cluster_m", int64_t(clusterM)},
                            {"cluster_n", int64_t(clusterN)},
                            {"tma_store", storeTma}};
}

std::optional<TuneVariant> TuneVariant::fromJson(const llvm::json::Object &o) {
  TuneVariant v;
  auto get = [&](llvm::StringRef key, unsigned &out) {
    std::optional<int64_t> value = o.getInteger(key);
    if (!value || *value < 0 || *value > MaxExtent)
      return false;
    out = unsigned(*value);
    return true;
  };
  std::optional<bool> swap = o.getBoolean("swap_ab"),
                      tma = o.getBoolean("tma_store");
  if (!get("bm", v.bm) || !get("bn", v.bn) || !get("bk", v.bk) ||
      !get("stages", v.stages) || !get("split_k", v.splitK) ||
      !get("persistent", v.persistent) || !get("cluster_m", v.clusterM) ||
      !get("cluster_n", v.clusterN) || !swap || !tma)
    return std::nullopt;
  v.swapAB = *swap;
  v.storeTma = *tma;
  return v;
}

TuneDevice TuneDevice::modelFor(ArchKind arch) {
  const ArchInfo &info = archInfo(arch);
  TuneDevice d;
  d.name = "model " + info.reference.name.str() + " (no GPU)";
  d.smCount = info.reference.smCount;
  d.computeCapability = info.computeCapability;
  d.l2Bytes = info.reference.l2Bytes;
  d.memoryBytesPerSecond = info.reference.memoryBytesPerSecond;
  return d;
}

llvm::Expected<TuneCost> estimateTuneCost(const GemmSpec &spec,
                                          const TuneShape &shape,
                                          const TuneDevice &device) {
  llvm::Expected<GemmSmemBudget> budget =
      gemmTarget(spec.arch).sharedMemory(spec);
  if (!budget)
    return budget.takeError();
  TuneCost c;
  c.smemBytes = budget->total;
  int64_t limit = archInfo(spec.arch).maxSharedBytesPerCta;
  if (c.smemBytes > limit)
    return llvm::createStringError(llvm::formatv(
        "{0} bytes of shared memory, more than the {1} a block gets",
        c.smemBytes, limit));
  int64_t rows = spec.swapAB ? shape.n : shape.m;
  int64_t cols = spec.swapAB ? shape.m : shape.n;
  unsigned splits = std::max(1u, spec.splitK);
  int64_t tiles = ceilDiv(rows, spec.bm) * ceilDiv(cols, spec.bn);
  unsigned sms = std::max(1u, device.smCount);
  c.ctas = tiles * splits;
  c.waves = double(ceilDiv(c.ctas, sms));
  c.waveEfficiency = double(c.ctas) / (c.waves * sms);

  // One CTA: its MMAs at the SM's share of the peak, slowed where the
  // tile's shared-memory reads per flop exceed 128 bytes a clock, and no
  // faster than stages - 1 loads in flight of ~0.8 us each allow.
  auto [peak, referenceSms] = referencePeak(spec.arch, spec.aType);
  double smPeak = peak / referenceSms;
  int64_t kPerCta = ceilDiv(ceilDiv(shape.k, splits), spec.bk) * spec.bk;
  double flops = 2.0 * spec.bm * spec.bn * double(kPerCta);
  double flopsPerClock = smPeak / 1.8e9;
  double smemBytesPerClock = flopsPerClock * (spec.bm + spec.bn) *
                             (dtypeBits(spec.aType) / 8.0) /
                             (2.0 * spec.bm * spec.bn);
  double smemFactor = std::max(1.0, smemBytesPerClock / 128.0);
  double mmaUs = flops / smPeak * 1e6 * smemFactor;
  double kIters = double(kPerCta / spec.bk);
  double inFlight = spec.stages > 1 ? spec.stages - 1 : 0.5;
  double latencyUs = kIters * 0.8 / inFlight;
  double ctaUs = std::max(mmaUs, latencyUs);
  // A packed weight is dequantized in registers before the MMAs: about
  // 0.16 warp instructions a weight (bench/W4A16Results.md, sm_80 code
  // on the H200), at four warp instructions a clock; its rows are BN, or
  // BM where the weight is the MMA's A (sm_90a, swapped).
  if (spec.weightQuant) {
    unsigned rows = gemmTarget(spec.arch).weightIsMmaA() ? spec.bm : spec.bn;
    ctaUs = std::max(ctaUs,
                     double(rows) * double(kPerCta) * 0.16 / (4 * 1.8e9) * 1e6);
  }
  // The epilogue: a BM x BN tile of C per CTA at the SM's share of the
  // memory bandwidth; staged TMA stores coalesce (x0.8), and a persistent
  // kernel overlaps all but the last wave's with the next tile's loads.
  double cBytes = dtypeBits(spec.cType) / 8.0;
  double smBandwidth = device.memoryBytesPerSecond / sms;
  double epilogueUs = spec.bm * spec.bn * cBytes / smBandwidth * 1e6 *
                      (spec.storeTma ? 0.8 : 1.0);
  // Each wave of a grid kernel also fills its pipeline (one load's
  // latency); a persistent kernel fills it once.
  double epilogueWaves = spec.persistent ? 1 : c.waves;
  c.computeUs = c.waves * ctaUs + epilogueWaves * (epilogueUs + 0.8);
  // What the CTAs read from L2 (B halved in 2x1 clusters, A in 1x2, which
  // multicast it), at three times the memory bandwidth.
  double elementBytes = dtypeBits(spec.aType) / 8.0;
  double l2Bytes = double(c.ctas) *
                   (double(spec.bm) / std::max(1u, spec.clusterN) +
                    double(spec.bn) / std::max(1u, spec.clusterM)) *
                   double(kPerCta) * elementBytes;
  c.l2Us = l2Bytes / (3 * device.memoryBytesPerSecond) * 1e6;
  // The roofline's memory side: each operand once from HBM, C once, and a
  // split-K workspace (f32 partials written and read) beyond 8 splits,
  // where the partials no longer meet in a cluster.
  double bytes = double(shape.m) * shape.k * dtypeBits(spec.aType) / 8 +
                 double(shape.n) * shape.k * dtypeBits(spec.bType) / 8 +
                 double(shape.m) * shape.n * cBytes;
  if (splits > 8)
    bytes += 2.0 * splits * double(shape.m) * shape.n * 4;
  if (spec.weightQuant) // The group scales (and zero points).
    bytes += double(shape.n) * double(shape.k) / spec.weightQuant->group *
             (dtypeBits(spec.weightQuant->scaleType) / 8 +
              (spec.weightQuant->zeros ? 1 : 0));
  c.memoryUs = bytes / device.memoryBytesPerSecond * 1e6;
  c.memoryBound = std::max(c.memoryUs, c.l2Us) > c.computeUs;
  c.us = std::max({c.computeUs, c.l2Us, c.memoryUs}) + 2.0 +
         (splits > 1 ? 1.0 : 0.0);
  // swap_ab is for a small M: above 128 rows the model charges it 1%, so
  // that a square problem's swapped twin ranks after the original.
  if (spec.swapAB && shape.m > 128)
    c.us *= 1.01;
  return c;
}

unsigned tuneCandidateCount(double budgetS) {
  double n = std::floor(budgetS / TuneSecondsPerCandidate);
  return unsigned(std::clamp(n, 2.0, 64.0));
}

TuneVariant variantOfSpec(const GemmSpec &spec) {
  TuneVariant v;
  v.bm = spec.bm;
  v.bn = spec.bn;
  v.bk = spec.bk;
  v.stages = spec.stages;
  v.swapAB = spec.swapAB;
  v.splitK = std::max(1u, spec.splitK);
  v.persistent = spec.persistent ? spec.rasterGroupM : 0;
  v.clusterM = std::max(1u, spec.clusterM);
  v.clusterN = std::max(1u, spec.clusterN);
  v.storeTma = spec.storeTma;
  return v;
}

llvm::Expected<unsigned> openTuneItems(llvm::StringRef source,
                                       llvm::StringRef kernel,
                                       std::optional<ArchKind> arch) {
  llvm::Expected<tir::Op> module = moduleWithKernel(source, kernel, arch);
  if (!module)
    return module.takeError();
  tir::Op *op = findKernel(*module, kernel);
  std::optional<ArchKind> target = kernelArch(*op, arch);
  if (!target)
    return llvm::createStringError("kernel '" + kernel.str() +
                                   "' names no target");
  return openItemsOf(*op, *target);
}

llvm::Expected<std::string> applyTuneVariant(llvm::StringRef source,
                                             llvm::StringRef kernel,
                                             const TuneVariant &variant,
                                             unsigned items,
                                             std::optional<ArchKind> arch) {
  llvm::Expected<tir::Op> module = moduleWithKernel(source, kernel, arch);
  if (!module)
    return module.takeError();
  writeVariant(*findKernel(*module, kernel), variant, items);
  return tir::printToString(*module);
}

llvm::Expected<TunePlan> planTune(Compiler &compiler, llvm::StringRef source,
                                  llvm::StringRef kernel,
                                  const TuneShape &shape,
                                  const TuneOptions &options,
                                  const TuneDevice &device) {
  CompileOptions compileOptions;
  compileOptions.arch = options.arch;
  compileOptions.kernel = kernel.str();
  llvm::Expected<std::shared_ptr<const LoweredKernel>> lowered =
      compiler.lower(source, compileOptions);
  if (!lowered)
    return lowered.takeError();
  const GemmSpec &base = (*lowered)->spec;
  for (auto [name, fixed, given] : {std::tuple{"M", base.fixedM, shape.m},
                                    {"N", base.fixedN, shape.n},
                                    {"K", base.fixedK, shape.k}})
    if (fixed && fixed != given)
      return llvm::createStringError(llvm::formatv(
          "kernel '{0}': {1} = {2} in --shapes disagrees with the program's "
          "fixed extent {1} = {3}",
          kernel, name, given, fixed));
  llvm::Expected<tir::Op> module =
      moduleWithKernel(source, kernel, options.arch);
  if (!module)
    return module.takeError();
  tir::Op *kernelOp = findKernel(*module, kernel);

  TunePlan plan;
  plan.kernel = kernel.str();
  plan.arch = base.arch;
  plan.shape = shape;
  plan.items = openItemsOf(*kernelOp, base.arch) | options.extraItems;
  TuneVariant written = variantOfSpec(base);

  TuneCandidate baseline;
  baseline.variant = written;
  baseline.baseline = true;
  if (llvm::Expected<TuneCost> cost = estimateTuneCost(base, shape, device))
    baseline.cost = *cost;
  else
    return cost.takeError();
  plan.candidates.push_back(std::move(baseline));

  // Enumerate and rank by the model.
  VariantLists lists = variantLists(base, plan.items, written);
  std::vector<TuneCandidate> ranked;
  std::set<std::string> seen{written.describe()};
  for (unsigned bm : lists.bm)
    for (unsigned bn : lists.bn)
      for (unsigned bk : lists.bk)
        for (bool tma : lists.storeTma)
          for (bool swap : lists.swap)
            for (unsigned splits : lists.splits)
              for (auto [persistent, cluster, columns] :
                   lists.persistentCluster) {
                if (splits > 1 && (persistent || cluster > 1 || columns > 1))
                  continue; // split_k combines with neither (language)
                if (swap && columns > 1)
                  continue; // nor does cluster_n with swap_ab
                TuneVariant v = written;
                v.bm = bm;
                v.bn = bn;
                v.bk = bk;
                v.storeTma = tma;
                v.swapAB = swap;
                v.splitK = splits;
                v.persistent = persistent;
                v.clusterM = cluster;
                v.clusterN = columns;
                // At least two K tiles per split.
                if (splits > 1 && ceilDiv(shape.k, bk) < 2 * splits)
                  continue;
                std::vector<unsigned> stages = stageChoices(
                    specWith(base, v), plan.items & TuneStages, written.stages);
                ++plan.enumerated;
                if (stages.empty()) {
                  ++plan.smemRefused;
                  continue;
                }
                for (unsigned s : stages) {
                  v.stages = s;
                  if (!seen.insert(v.describe()).second)
                    continue;
                  if (s != stages.front())
                    ++plan.enumerated;
                  llvm::Expected<TuneCost> cost =
                      estimateTuneCost(specWith(base, v), shape, device);
                  if (!cost) {
                    llvm::consumeError(cost.takeError());
                    ++plan.smemRefused;
                    continue;
                  }
                  TuneCandidate c;
                  c.variant = v;
                  c.cost = *cost;
                  ranked.push_back(std::move(c));
                }
              }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const TuneCandidate &x, const TuneCandidate &y) {
                     if (x.cost.us != y.cost.us)
                       return x.cost.us < y.cost.us;
                     return x.variant.describe() < y.variant.describe();
                   });

  // The compiler's own checks, in the model's order, until the budget's
  // count survive (at most four times that many checked).
  unsigned want = tuneCandidateCount(options.budgetS);
  size_t checked = 0;
  std::set<std::string> seenLowered{written.describe()};
  for (TuneCandidate &c : ranked) {
    if (plan.candidates.size() >= want || checked >= 4 * size_t(want))
      break;
    ++checked;
    TuneVariant v = c.variant;
    tir::Op copy = *kernelOp;
    writeVariant(*kernelOp, v, plan.items);
    std::string text = tir::printToString(*module);
    *kernelOp = std::move(copy);
    llvm::Expected<std::shared_ptr<const LoweredKernel>> candidate =
        compiler.lower(text, compileOptions);
    llvm::Error refusal =
        candidate ? checkGemmSpec((*candidate)->spec) : candidate.takeError();
    if (refusal) {
      ++plan.refused;
      std::string why = llvm::toString(std::move(refusal));
      // The first error line, without the buffer's location.
      llvm::StringRef line = llvm::StringRef(why).split('\n').first;
      if (size_t at = line.find("error: "); at != llvm::StringRef::npos)
        line = line.drop_front(at + 7);
      if (plan.firstRefusal.empty())
        plan.firstRefusal = v.describe() + ": " + line.str();
      continue;
    }
    // What the passes decided may differ from what was written (none
    // should); the compiled variant is the truth.
    c.variant = variantOfSpec((*candidate)->spec);
    if (!seenLowered.insert(c.variant.describe()).second)
      continue;
    c.source = std::move(text);
    plan.candidates.push_back(std::move(c));
  }
  return plan;
}

} // namespace tilec
