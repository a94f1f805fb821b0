//===- runtime/sim/SimLaunch.cpp - Scheduling warps, clusters and threads -===//
//
// simLaunch packs the parameters, then hands clusters to a pool of host
// threads; each cluster's CTAs run interleaved on one thread in a
// ClusterRun. The scheduler runs a warp until it blocks (or for a slice),
// round-robin, or, with a seed, picks warps and slice lengths at random and
// completes pending asynchronous operations (TMA loads and stores, cp.async
// copies, wgmma, tcgen05.mma and the arrive of tcgen05.commit) at random
// points; without a seed, TMA loads and the tensor pipe complete at the end
// of the issuing warp's slice and the rest at the wait that retires them. When
// no warp can run and nothing is in flight, the launch deadlocked: the fault
// lists every warp's line and wait and every mbarrier's state.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/Interpreter.h"

#include "runtime/sim/SimFault.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <mutex>
#include <thread>

namespace tilec::sim {

ClusterRun::ClusterRun(const PtxFunction &fn, const SimLaunchConfig &config,
                       const SimOptions &options,
                       const std::vector<std::uint8_t> &param,
                       const unsigned clusterIdIn[3],
                       std::vector<InstrCounters> *profile)
    : fn(fn), config(config), options(options), param(param), profile(profile) {
  for (int i = 0; i < 3; ++i)
    clusterId[i] = clusterIdIn[i];
  rng.seed(options.seed * 0x9E3779B97F4A7C15ull + clusterId[0] * 7919 +
           clusterId[1] * 104729 + clusterId[2] * 1299709);
  const unsigned *cl = config.cluster;
  unsigned nctas = cl[0] * cl[1] * cl[2];
  unsigned threads = config.block[0] * config.block[1] * config.block[2];
  unsigned warps = (threads + 31) / 32;
  std::size_t smemBytes = fn.staticShared + config.dynamicSharedBytes;
  ctas.resize(nctas);
  for (unsigned r = 0; r < nctas; ++r) {
    CtaState &c = ctas[r];
    unsigned x = r % cl[0], y = r / cl[0] % cl[1], z = r / (cl[0] * cl[1]);
    c.ctaid[0] = clusterId[0] * cl[0] + x;
    c.ctaid[1] = clusterId[1] * cl[1] + y;
    c.ctaid[2] = clusterId[2] * cl[2] + z;
    c.rank = r;
    c.threads = threads;
    c.smem.resize(smemBytes);
    c.writer.assign(smemBytes, 0);
    c.writerEpoch.assign(smemBytes, 0);
    c.fenceEpoch.assign(warps * 32, 1);
    c.setmaxnreg.assign((warps + 3) / 4, {0, 0});
    c.warps.resize(warps);
    for (unsigned wi = 0; wi < warps; ++wi) {
      WarpState &w = c.warps[wi];
      w.index = wi;
      w.cta = r;
      w.regs.assign(static_cast<std::size_t>(fn.numSlots) * 32, 0);
      w.inflight.assign(fn.numSlots, 0);
      unsigned lanes = std::min(32u, threads - wi * 32);
      w.liveMask = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
      w.local.assign(static_cast<std::size_t>(fn.localBytes) * 32, 0);
    }
  }
}

std::string ClusterRun::where() const {
  if (!curCta || !curWarp)
    return "";
  const Instr &ins = fn.code[std::min<std::size_t>(curPc, fn.code.size() - 1)];
  std::string lane = curLane >= 0 ? fmt::format(" lane {}", curLane) : "";
  return fmt::format("CTA ({},{},{}) warp {}{}, ptx:{} `{}`: ",
                     curCta->ctaid[0], curCta->ctaid[1], curCta->ctaid[2],
                     curWarp->index, lane, ins.line, fn.texts[ins.textId]);
}

void ClusterRun::checkBarrierRelease(CtaState &cta, unsigned id) {
  NamedBarrier &bar = cta.barriers[id];
  if (bar.arrived == 0)
    return;
  unsigned expected = bar.expected;
  if (expected == cta.threads) {
    // Without a count: every warp that has not exited.
    unsigned live = 0;
    for (const WarpState &w : cta.warps)
      if (!w.done())
        live += 32;
    expected = std::min(expected, live);
  }
  if (bar.arrived < expected)
    return;
  if (bar.arrived > expected)
    throw SimFault(fmt::format("barrier {}: {} threads arrived for a count "
                               "of {}",
                               id, bar.arrived, expected));
  for (unsigned wi : bar.waiting) {
    cta.warps[wi].wait = WaitKind::None;
  }
  bar.waiting.clear();
  bar.arrived = 0;
}

void ClusterRun::checkClusterRelease() {
  unsigned live = 0;
  for (const CtaState &c : ctas)
    for (const WarpState &w : c.warps)
      if (!w.done())
        ++live;
  if (clusterArrivals < live || clusterArrivals == 0)
    return;
  ++clusterPhase;
  clusterArrivals = 0;
  for (CtaState &c : ctas)
    for (WarpState &w : c.warps)
      if (w.wait == WaitKind::ClusterBarrier) {
        w.wait = WaitKind::None;
        w.clusterArrived = false;
      }
}

void ClusterRun::checkSetmaxnregRelease(CtaState &cta, unsigned group) {
  auto &[count, value] = cta.setmaxnreg[group];
  unsigned live = 0;
  for (unsigned i = group * 4; i < group * 4 + 4 && i < cta.warps.size(); ++i)
    if (!cta.warps[i].done())
      ++live;
  if (count < live)
    return;
  for (unsigned i = group * 4; i < group * 4 + 4 && i < cta.warps.size(); ++i)
    if (cta.warps[i].wait == WaitKind::Setmaxnreg)
      cta.warps[i].wait = WaitKind::None;
  count = 0;
}

void ClusterRun::onWarpExit(CtaState &cta, WarpState &w) {
  if (!w.wgmmaPending.empty())
    throw SimFault(fmt::format("warp exits with {} wgmma.mma_async never "
                               "retired by wgmma.wait_group",
                               w.wgmmaPending.size()));
  if (!w.cpPending.empty())
    throw SimFault(fmt::format("warp exits with {} cp.async copies never "
                               "waited for",
                               w.cpPending.size()));
  for (unsigned id = 0; id < 16; ++id)
    checkBarrierRelease(cta, id);
  if (w.clusterArrived)
    --clusterArrivals;
  checkClusterRelease();
  checkSetmaxnregRelease(cta, w.index / 4);
}

bool ClusterRun::runnable(WarpState &w) {
  if (w.done())
    return false;
  switch (w.wait) {
  case WaitKind::None:
    return true;
  case WaitKind::MBarrier: {
    CtaState &t = ctas[w.waitAddr >> ClusterRankShift];
    auto it = t.mbars.find(w.waitAddr & ClusterOffsetMask);
    if (it == t.mbars.end() || it->second.phase != w.waitPhase) {
      w.wait = WaitKind::None;
      return true;
    }
    return false;
  }
  case WaitKind::WgmmaGroup:
    if (warpgroupCommitted(ctas[w.waitAddr], w,
                           static_cast<std::uint32_t>(w.waitPhase))) {
      w.wait = WaitKind::None;
      return true;
    }
    return false;
  default:
    return false;
  }
}

void ClusterRun::runSlice(CtaState &cta, WarpState &w, unsigned budget) {
  curCta = &cta;
  curWarp = &w;
  for (unsigned i = 0; i < budget && !w.done() && w.wait == WaitKind::None; ++i)
    if (!step(cta, w))
      break;
}

void ClusterRun::randomAsyncProgress() {
  for (std::size_t i = 0; i < tmaPending.size();) {
    if (rng() % 3 == 0)
      completeTma(i);
    else
      ++i;
  }
  for (CtaState &c : ctas) {
    for (WarpState &w : c.warps) {
      for (std::size_t i = 0; i < w.cpPending.size();) {
        if (rng() % 3 == 0) {
          curCta = &c;
          curWarp = &w;
          completeCpAsync(c, w, i);
        } else {
          ++i;
        }
      }
      // wgmma and the tensor pipe run their queues in order.
      for (PendingWgmma &p : w.wgmmaPending) {
        if (p.ran)
          continue;
        if (!p.early || rng() % 3)
          break;
        runWgmma(c, w, p);
      }
    }
    while (!c.tcPending.empty() && rng() % 3 == 0)
      performTcgen05(c);
  }
  randomBulkProgress();
}

void ClusterRun::landAfterSlice() {
  while (!tmaPending.empty())
    completeTma(0);
  for (CtaState &c : ctas)
    while (!c.tcPending.empty())
      performTcgen05(c);
}

bool ClusterRun::landOneForProgress(bool random) {
  if (!tmaPending.empty()) {
    completeTma(random ? rng() % tmaPending.size() : 0);
    return true;
  }
  bool landed = false;
  for (CtaState &c : ctas)
    for (WarpState &w : c.warps)
      if (!w.cpPending.empty()) {
        curCta = &c;
        curWarp = &w;
        completeCpAsync(c, w, 0);
        landed = true;
      }
  if (landed)
    return true;
  for (CtaState &c : ctas)
    if (!c.tcPending.empty()) {
      performTcgen05(c);
      return true;
    }
  return false;
}

void ClusterRun::deadlock() {
  std::string msg = "deadlock: no warp can run and nothing is in flight";
  for (const CtaState &c : ctas) {
    for (const WarpState &w : c.warps) {
      if (w.done())
        continue;
      std::uint32_t minPc = ~0u;
      for (unsigned l = 0; l < 32; ++l)
        if (w.liveMask >> l & 1)
          minPc = std::min(minPc, w.pc[l]);
      // A blocked warp's PC may already be past its barrier.
      std::uint32_t at = minPc;
      if (w.wait == WaitKind::Barrier || w.wait == WaitKind::ClusterBarrier ||
          w.wait == WaitKind::Setmaxnreg)
        at = minPc ? minPc - 1 : 0;
      at = std::min<std::uint32_t>(
          at, static_cast<std::uint32_t>(fn.code.size() - 1));
      const Instr &ins = fn.code[at];
      std::string what;
      switch (w.wait) {
      case WaitKind::Barrier:
        what = fmt::format("waits on barrier {} ({} of {} threads arrived)",
                           w.waitAddr, c.barriers[w.waitAddr].arrived,
                           c.barriers[w.waitAddr].expected);
        break;
      case WaitKind::ClusterBarrier:
        what = "waits on barrier.cluster";
        break;
      case WaitKind::MBarrier:
        what = fmt::format("waits on the mbarrier at shared 0x{:x} of CTA "
                           "rank {} for phase {} to complete",
                           w.waitAddr & ClusterOffsetMask,
                           w.waitAddr >> ClusterRankShift, w.waitPhase);
        break;
      case WaitKind::Setmaxnreg:
        what = fmt::format("waits for the rest of warpgroup {} at setmaxnreg",
                           w.waitAddr);
        break;
      case WaitKind::WgmmaGroup:
        what = fmt::format("waits in wgmma.wait_group for the rest of "
                           "warpgroup {} to commit {} wgmma-groups",
                           w.index / 4, w.waitPhase);
        break;
      case WaitKind::None:
        what = "runnable";
        break;
      }
      msg += fmt::format("\n  CTA ({},{},{}) warp {}: ptx:{} `{}` {}",
                         c.ctaid[0], c.ctaid[1], c.ctaid[2], w.index, ins.line,
                         fn.texts[ins.textId], what);
    }
    for (const auto &[off, m] : c.mbars)
      msg += fmt::format("\n  CTA ({},{},{}) mbarrier at shared 0x{:x}: phase "
                         "{}, {} of {} arrivals pending, tx-count {}",
                         c.ctaid[0], c.ctaid[1], c.ctaid[2], off, m.phase,
                         m.pending, m.expected, m.tx);
  }
  throw SimFault(msg);
}

void ClusterRun::run() {
  std::vector<std::pair<unsigned, unsigned>> all;
  for (unsigned c = 0; c < ctas.size(); ++c)
    for (unsigned w = 0; w < ctas[c].warps.size(); ++w)
      all.push_back({c, w});
  bool random = options.seed != 0;
  std::size_t next = 0;
  std::vector<std::size_t> ready;
  try {
    while (true) {
      ready.clear();
      bool anyLeft = false;
      for (std::size_t i = 0; i < all.size(); ++i) {
        WarpState &w = ctas[all[i].first].warps[all[i].second];
        if (!w.done())
          anyLeft = true;
        if (runnable(w))
          ready.push_back(i);
      }
      if (!anyLeft)
        break;
      if (ready.empty()) {
        curCta = nullptr;
        curWarp = nullptr;
        if (landOneForProgress(random))
          continue;
        deadlock();
      }
      std::size_t pick;
      unsigned budget;
      if (random) {
        pick = ready[rng() % ready.size()];
        budget = 1 + static_cast<unsigned>(rng() % 64);
      } else {
        pick = ready[0];
        for (std::size_t r : ready)
          if (r >= next) {
            pick = r;
            break;
          }
        next = pick + 1;
        budget = 1u << 14;
      }
      auto [c, wi] = all[pick];
      runSlice(ctas[c], ctas[c].warps[wi], budget);
      curCta = nullptr;
      curWarp = nullptr;
      if (random)
        randomAsyncProgress();
      else
        landAfterSlice();
    }
    // What is still in flight completes as the grid ends.
    landAfterSlice();
    finishBulkStores();
    curCta = nullptr;
    curWarp = nullptr;
    for (CtaState &c : ctas) {
      curCta = &c;
      if (c.tmem)
        c.tmem->checkAllFreed();
    }
  } catch (const SimFault &f) {
    std::string prefix = where();
    if (prefix.empty() && curCta)
      prefix = fmt::format("CTA ({},{},{}): ", curCta->ctaid[0],
                           curCta->ctaid[1], curCta->ctaid[2]);
    throw SimFault(prefix + f.what());
  }
}

SimLaunchResult simLaunch(const SimFunction &sf, const SimLaunchConfig &config,
                          void **kernelParams, const SimOptions &options) {
  SimLaunchResult result;
  const PtxFunction &fn = sf.program();
  for (int i = 0; i < 3; ++i) {
    if (config.grid[i] == 0 || config.block[i] == 0 || config.cluster[i] == 0) {
      result.error = "launch with a zero grid, block or cluster dimension";
      return result;
    }
    if (config.grid[i] % config.cluster[i] != 0) {
      result.error = fmt::format("grid dimension {} ({}) is not a multiple of "
                                 "the cluster dimension ({})",
                                 i, config.grid[i], config.cluster[i]);
      return result;
    }
  }
  unsigned threads = config.block[0] * config.block[1] * config.block[2];
  if (threads > sf.maxThreadsPerBlock()) {
    result.error = fmt::format("block of {} threads exceeds the kernel's "
                               "maximum of {}",
                               threads, sf.maxThreadsPerBlock());
    return result;
  }
  unsigned clusterSize =
      config.cluster[0] * config.cluster[1] * config.cluster[2];
  if (clusterSize > 16) {
    result.error = fmt::format("cluster of {} CTAs (at most 16)", clusterSize);
    return result;
  }
  std::vector<std::uint8_t> param(fn.paramBytes, 0);
  for (std::size_t i = 0; i < fn.params.size(); ++i) {
    if (!kernelParams || !kernelParams[i]) {
      result.error = fmt::format("kernel parameter {} ({}) has no value", i,
                                 fn.params[i].name);
      return result;
    }
    std::memcpy(param.data() + fn.params[i].offset, kernelParams[i],
                fn.params[i].size);
  }
  unsigned ncl[3] = {config.grid[0] / config.cluster[0],
                     config.grid[1] / config.cluster[1],
                     config.grid[2] / config.cluster[2]};
  std::size_t clusters = static_cast<std::size_t>(ncl[0]) * ncl[1] * ncl[2];
  unsigned hostThreads =
      options.hostThreads ? options.hostThreads
                          : std::max(1u, std::thread::hardware_concurrency());
  hostThreads =
      static_cast<unsigned>(std::min<std::size_t>(hostThreads, clusters));
  std::atomic<std::size_t> nextCluster{0};
  std::atomic<std::size_t> firstError{clusters};
  std::mutex mutex;
  std::vector<std::optional<std::string>> errors(clusters);
  std::atomic<std::uint64_t> total{0};
  std::vector<std::vector<InstrCounters>> profiles(hostThreads);
  auto worker = [&](unsigned t) {
    std::vector<InstrCounters> *prof = nullptr;
    if (options.profile) {
      profiles[t].assign(fn.code.size(), InstrCounters{});
      prof = &profiles[t];
    }
    while (true) {
      std::size_t c = nextCluster.fetch_add(1);
      if (c >= clusters || c > firstError.load())
        return;
      unsigned id[3] = {static_cast<unsigned>(c % ncl[0]),
                        static_cast<unsigned>(c / ncl[0] % ncl[1]),
                        static_cast<unsigned>(c / (ncl[0] * ncl[1]))};
      ClusterRun run(fn, config, options, param, id, prof);
      try {
        run.run();
      } catch (const SimFault &f) {
        std::lock_guard<std::mutex> lock(mutex);
        errors[c] = f.what();
        std::size_t cur = firstError.load();
        while (c < cur && !firstError.compare_exchange_weak(cur, c)) {
        }
      } catch (const std::exception &e) {
        std::lock_guard<std::mutex> lock(mutex);
        errors[c] = std::string("internal simulator error: ") + e.what();
        std::size_t cur = firstError.load();
        while (c < cur && !firstError.compare_exchange_weak(cur, c)) {
        }
      }
      total += run.warpInstructions;
    }
  };
  if (hostThreads <= 1) {
    worker(0);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < hostThreads; ++t)
      pool.emplace_back(worker, t);
    for (std::thread &th : pool)
      th.join();
  }
  result.warpInstructions = total.load();
  if (firstError.load() < clusters)
    result.error = errors[firstError.load()];
  if (options.profile) {
    std::map<unsigned, SimLineProfile> lines;
    for (const auto &p : profiles)
      for (std::size_t i = 0; i < p.size(); ++i) {
        const InstrCounters &c = p[i];
        if (!c.executions)
          continue;
        SimLineProfile &lp = lines[fn.code[i].line];
        lp.ptxLine = fn.code[i].line;
        lp.executions += c.executions;
        lp.sharedAccesses += c.sharedAccesses;
        lp.sharedWavefronts += c.sharedWavefronts;
        lp.idealWavefronts += c.idealWavefronts;
      }
    for (auto &[line, lp] : lines)
      result.profile.push_back(lp);
  }
  return result;
}

} // namespace tilec::sim
