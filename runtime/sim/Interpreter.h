//===- runtime/sim/Interpreter.h - Executing one cluster of a launch -*- C++
//-*-===//
//
// The state of a cluster under simulation (its CTAs, their warps, shared
// memories, mbarriers, named barriers, tensor memories, pending asynchronous
// copies) and the ClusterRun that executes it: warps step one instruction at
// a time over the lanes at the warp's minimum PC (which reconverges
// structured code), block at barriers and waits (a diverged warp's lanes
// park on an mbarrier wait while its other lanes run), and a scheduler
// interleaves them, round-robin or at random from a seed. Internal to
// runtime/sim/.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIM_INTERPRETER_H
#define TILEC_RUNTIME_SIM_INTERPRETER_H

#include "runtime/sim/MmaSync.h"
#include "runtime/sim/PtxProgram.h"
#include "runtime/sim/SimMemory.h"
#include "runtime/sim/SimModule.h"
#include "runtime/sim/Tcgen05.h"
#include "runtime/sim/TmaUnit.h"
#include "runtime/sim/Wgmma.h"

#include <array>
#include <bit>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::sim {

/// Calls \p f with each lane whose bit is set in \p mask, lowest first.
template <typename F> inline void forLanes(std::uint32_t mask, F &&f) {
  while (mask) {
    unsigned lane = static_cast<unsigned>(std::countr_zero(mask));
    mask &= mask - 1;
    f(lane);
  }
}

/// Generic-address windows (host pointers, the global window, are below
/// 2^47).
constexpr std::uint64_t SharedGenericBase = 1ull << 56;
constexpr std::uint64_t ParamGenericBase = 2ull << 56;
constexpr std::uint64_t LocalGenericBase = 3ull << 56;
constexpr std::uint64_t WindowSize = 1ull << 32;

/// The shared address of an operand that may be written either way (`[%r]`
/// with .shared::cta, or a generic address in the shared window); its rank
/// bits (ClusterRankShift) are kept.
constexpr std::uint32_t sharedOffsetOf(std::uint64_t a) {
  return static_cast<std::uint32_t>(a >= SharedGenericBase &&
                                            a < SharedGenericBase + WindowSize
                                        ? a - SharedGenericBase
                                        : a);
}
/// shared::cluster addresses: (rank << 24) | offset, the CTA's cluster rank
/// from bit 24 up. The PTX ISA guarantees only that a CTA's shared::cta
/// window lies inside the shared::cluster window (its own shared::cta
/// addresses are valid shared::cluster addresses of that CTA) and that mapa
/// gives the corresponding address in another CTA; the bit layout is the
/// simulator's choice, the one CUTLASS relies on (copy_sm100_tma.hpp clears
/// bit 24 of its own mbarrier address to name the even CTA of its pair).
/// Example: in a 2x1 cluster the shared symbol at offset 0x400 reads as
/// 0x400 in rank 0 and 0x1000400 in rank 1; mapa(0x1000400, 0) = 0x400.
/// shared::cta accesses also take a plain offset (rank bits 0).
constexpr unsigned ClusterRankShift = 24;
constexpr std::uint32_t ClusterOffsetMask = (1u << ClusterRankShift) - 1;
constexpr std::uint64_t clusterAddress(unsigned rank, std::uint64_t offset) {
  return (static_cast<std::uint64_t>(rank) << ClusterRankShift) |
         (offset & ClusterOffsetMask);
}

/// One mbarrier object (PTX ISA "mbarrier": phase, pending arrivals,
/// transaction count).
struct MBarrier {
  std::uint32_t expected = 0, pending = 0;
  std::int64_t tx = 0;
  std::uint64_t phase = 0;
};

/// What a blocked warp waits for.
enum class WaitKind : std::uint8_t {
  None,
  Barrier,
  ClusterBarrier,
  MBarrier,
  Setmaxnreg,
  /// wgmma.wait_group: the rest of the warpgroup has not committed the
  /// wgmma-groups this warp waits out (waitAddr: the CTA's rank,
  /// waitPhase: how many groups must be committed).
  WgmmaGroup
};

/// A wgmma.mma_async not yet retired: each warp's quarter of the
/// warpgroup's MMA. It runs when a wgmma.wait_group of any warp of the
/// warpgroup retires its group (a wgmma-group is the warpgroup's, PTX ISA
/// wgmma.commit_group, so one warp's wait covers the other warps' quarters,
/// and waits until they are issued) or, with a seed and even odds
/// (`early`), at a random earlier scheduling point (in issue order); its
/// accumulators stay in flight until its own warp's retirement.
struct PendingWgmma {
  WgmmaShape shape;
  std::uint64_t descA = 0, descB = 0;
  bool scaleD = true;
  bool hasARegs = false;
  WarpRegs aRegs{};
  std::vector<std::uint32_t> accSlots;
  /// The registers of an A from registers: like the accumulators, no
  /// instruction but a wgmma may touch them until the wgmma retires.
  std::vector<std::uint32_t> aSlots;
  std::uint32_t group = 0;
  std::uint32_t pc = 0;
  bool early = false, ran = false;
};

/// A cp.async not yet landed.
struct PendingCpAsync {
  unsigned lane = 0;
  std::uint32_t group = 0;
  std::uint32_t dst = 0;
  std::uint64_t src = 0;
  unsigned size = 0, srcSize = 0;
};

/// One warp.
struct WarpState {
  unsigned index = 0;              ///< Warp index in the CTA.
  unsigned cta = 0;                ///< CTA index in the cluster.
  std::vector<std::uint64_t> regs; ///< slot * 32 + lane.
  std::array<std::uint32_t, 32> pc{};
  std::uint32_t liveMask = 0; ///< Lanes that have not exited.
  WaitKind wait = WaitKind::None;
  std::uint32_t waitAddr = 0; ///< MBarrier: shared offset; Barrier: id.
  std::uint64_t waitPhase = 0;
  /// Independent thread scheduling: lanes of a diverged warp blocked on an
  /// mbarrier wait park there (each with the barrier and the phase it
  /// waits out) while the warp's other lanes run; the whole warp waits
  /// (wait, above) only when no lane is free.
  std::uint32_t parkedMask = 0;
  std::array<std::uint32_t, 32> parkAddr{};
  std::array<std::uint64_t, 32> parkPhase{};
  bool released = false;
  std::vector<std::uint8_t> local; ///< localBytes * 32.
  // cp.async
  std::array<std::uint32_t, 32> cpCommitted{};
  std::vector<PendingCpAsync> cpPending;
  // cp.async.bulk groups (TMA stores), per thread.
  std::array<std::uint32_t, 32> bulkCommitted{};
  // wgmma
  std::uint32_t wgmmaCommitted = 0;
  std::vector<PendingWgmma> wgmmaPending;
  /// Per slot: the accumulators and A registers of unretired wgmmas.
  std::vector<std::uint8_t> inflight;
  /// Slots in flight (wgmma accumulators).
  unsigned inflightCount = 0;
  unsigned maxnreg = 0;
  std::uint64_t clusterArrivePhase = 0;
  bool clusterArrived = false;
  bool done() const { return liveMask == 0; }
};

/// A TMA store (cp.async.bulk.tensor global <- shared::cta, bulk_group) not
/// yet retired. Its source is read, then global memory written, somewhere
/// between the issue and the cp.async.bulk.wait_group.read / wait_group of
/// the issuing thread that retires its bulk group: at that wait, or at the
/// end of the cluster when none does; with a seed, at random scheduling
/// points before. A shared write into the source before the read is retired
/// is a race (InterpreterBulkStore.cpp).
struct PendingBulkStore {
  SimTensorMap map;
  std::array<std::int32_t, 5> coords{};
  std::uint32_t src = 0, bytes = 0; ///< The source box in shared memory.
  unsigned warp = 0, lane = 0;      ///< The issuing thread.
  std::uint32_t group = 0;          ///< Its bulk group (commit count).
  std::uint32_t pc = 0;
  std::vector<std::uint8_t> box; ///< The source as read.
  bool read = false, written = false;
  bool readRetired = false; ///< A wait_group{.read} retired the read.
};

/// An asynchronous tcgen05 operation of a CTA's tensor pipe not yet
/// performed: a tcgen05.mma, or the mbarrier arrive of a tcgen05.commit
/// (which waits for every operation queued before it). They are performed
/// in order at the end of the issuing warp's slice or, with a seed, at
/// random later scheduling points (InterpreterTcgen05.cpp).
struct PendingTcgen05 {
  bool commit = false;
  unsigned warp = 0, lane = 0;
  std::uint32_t pc = 0;
  // tcgen05.mma.
  Tcgen05KindKind kind = Tcgen05KindKind::F16;
  unsigned ctaGroup = 1;
  std::uint32_t idesc = 0, tmemD = 0;
  std::uint64_t descA = 0, descB = 0;
  bool enableInputD = false;
  unsigned columns = 0; ///< D's columns (N).
  /// disable-output-lane, per CTA of the pair (the even CTA's lanes first;
  /// cta_group::1 uses the first).
  std::array<TmemLaneMask, 2> disabled{};
  // tcgen05.commit: the mbarrier offset and the CTA ranks it arrives on.
  std::uint32_t mbar = 0, targets = 0;
};

/// A tcgen05.ld whose read of tensor memory no tcgen05.wait::ld of its
/// warp has retired yet: the load may still read its cells, so a write to
/// them (tcgen05.mma, tcgen05.st) or their tcgen05.dealloc is a race. Its
/// registers may be read at once (ptxas orders a register read after the
/// load that writes it; CUTLASS's sm100 epilogue relies on that).
struct InflightTmemLoad {
  unsigned warp = 0;
  std::uint32_t pc = 0;
  unsigned lane = 0, lanes = 0, column = 0, columns = 0;
};

/// One named barrier of a CTA.
struct NamedBarrier {
  unsigned arrived = 0, expected = 0;
  std::vector<unsigned> waiting;
};

/// One CTA.
struct CtaState {
  unsigned ctaid[3] = {0, 0, 0};
  unsigned rank = 0; ///< In the cluster.
  unsigned threads = 0;
  SharedMemory smem;
  std::map<std::uint32_t, MBarrier> mbars;
  std::vector<WarpState> warps;
  std::array<NamedBarrier, 16> barriers;
  std::unique_ptr<TensorMemory> tmem;
  /// Proxy-fence check: per shared byte the writing thread + 1 and that
  /// thread's fence epoch when it wrote; per thread its fence epoch.
  std::vector<std::uint16_t> writer;
  std::vector<std::uint32_t> writerEpoch;
  std::vector<std::uint32_t> fenceEpoch;
  /// setmaxnreg per warpgroup: warps arrived and the value.
  std::vector<std::pair<unsigned, unsigned>> setmaxnreg;
  std::vector<PendingBulkStore> bulkStores;
  std::vector<PendingTcgen05> tcPending;   ///< In issue order.
  std::vector<InflightTmemLoad> tmemLoads; ///< In issue order.
  /// The .cta_group of this CTA's tcgen05 instructions so far (0: none
  /// yet); the PTX ISA requires one value across a kernel's tcgen05.alloc,
  /// dealloc, relinquish_alloc_permit, mma and commit.
  unsigned tcgen05CtaGroup = 0;
};

/// A TMA load in flight.
struct PendingTma {
  SimTensorMap map;
  std::array<std::int32_t, 5> coords{};
  unsigned srcCta = 0;
  std::uint32_t dstMask = 0; ///< CTA ranks receiving the box.
  std::uint32_t dst = 0, mbar = 0;
  /// .cta_group::2: the rank within its pair (0 even, 1 odd) of the CTA
  /// whose mbarrier each destination signals, in the destination's own
  /// pair; -1: each destination CTA's own (tmaBarrierCta).
  int mbarPairRank = -1;
  std::uint32_t pc = 0;
};

/// Per-instruction counters of one host thread.
struct InstrCounters {
  std::uint64_t executions = 0, sharedAccesses = 0, sharedWavefronts = 0,
                idealWavefronts = 0;
};

/// Executes one cluster to completion; throws SimFault with the location.
class ClusterRun {
public:
  ClusterRun(const PtxFunction &fn, const SimLaunchConfig &config,
             const SimOptions &options, const std::vector<std::uint8_t> &param,
             const unsigned clusterId[3], std::vector<InstrCounters> *profile);
  void run();
  std::uint64_t warpInstructions = 0;

private:
  const PtxFunction &fn;
  const SimLaunchConfig &config;
  const SimOptions &options;
  const std::vector<std::uint8_t> &param;
  unsigned clusterId[3];
  std::vector<InstrCounters> *profile;
  std::vector<CtaState> ctas;
  std::vector<PendingTma> tmaPending;
  std::uint64_t clusterPhase = 0;
  unsigned clusterArrivals = 0;
  std::mt19937_64 rng;
  // Where the current instruction executes, for messages.
  CtaState *curCta = nullptr;
  WarpState *curWarp = nullptr;
  int curLane = -1;
  std::uint32_t curPc = 0;

  /// While alive, a fault names the instruction that issued an asynchronous
  /// operation being performed now (its CTA, warp, lane, PC) instead of the
  /// current one; the current one is restored unless a fault unwinds.
  class IssueSite {
  public:
    IssueSite(ClusterRun &run, CtaState &cta, unsigned warp, int lane,
              std::uint32_t pc)
        : run(run), cta(run.curCta), warp(run.curWarp), lane(run.curLane),
          pc(run.curPc), exceptions(std::uncaught_exceptions()) {
      run.curCta = &cta;
      run.curWarp = &cta.warps[warp];
      run.curLane = lane;
      run.curPc = pc;
    }
    ~IssueSite() {
      if (std::uncaught_exceptions() != exceptions)
        return;
      run.curCta = cta;
      run.curWarp = warp;
      run.curLane = lane;
      run.curPc = pc;
    }
    IssueSite(const IssueSite &) = delete;
    IssueSite &operator=(const IssueSite &) = delete;

  private:
    ClusterRun &run;
    CtaState *cta;
    WarpState *warp;
    int lane;
    std::uint32_t pc;
    int exceptions;
  };

  // Scheduling (SimLaunch.cpp).
  bool runnable(WarpState &w);
  void runSlice(CtaState &cta, WarpState &w, unsigned budget);
  void completeTma(std::size_t index);
  /// The CTA whose mbarrier a TMA load's bytes landing in CTA \p dst
  /// complete on (PendingTma::mbarPairRank).
  CtaState &tmaBarrierCta(const PendingTma &op, unsigned dst);
  void completeCpAsync(CtaState &cta, WarpState &w, std::size_t index);
  void randomAsyncProgress();
  void landAfterSlice();
  bool landOneForProgress(bool random);
  void checkBarrierRelease(CtaState &cta, unsigned id);
  void checkClusterRelease();
  void checkSetmaxnregRelease(CtaState &cta, unsigned group);
  void onWarpExit(CtaState &cta, WarpState &w);
  [[noreturn]] void deadlock();
  std::string where() const;

  // Execution (Interpreter.cpp).
  /// Executes the instruction at the warp's minimum PC; false when the warp
  /// blocked (the PC did not move).
  bool step(CtaState &cta, WarpState &w);
  /// Releases the parked lanes whose barrier phase has moved on.
  void unparkLanes(WarpState &w);
  /// With no lane of \p free able to run, the warp waits on its first
  /// parked lane's barrier: true when it does.
  bool parkWarpIfNoLaneIsFree(WarpState &w, std::uint32_t free);
  std::uint64_t get(const WarpState &w, const Operand &o, unsigned lane) const;
  void set(WarpState &w, const Operand &o, unsigned lane, std::uint64_t v,
           PtxType type);
  std::uint64_t special(const WarpState &w, SpecialRegKind k,
                        unsigned lane) const;
  std::uint64_t address(const WarpState &w, const Operand &o,
                        unsigned lane) const;
  void load(CtaState &cta, WarpState &w, unsigned lane, SpaceKind space,
            std::uint64_t addr, void *dst, unsigned bytes, const char *what);
  void store(CtaState &cta, WarpState &w, unsigned lane, SpaceKind space,
             std::uint64_t addr, const void *src, unsigned bytes,
             const char *what);
  /// The CTA and offset a shared::cluster address names.
  SharedMemory &clusterSmem(std::uint64_t addr, std::uint32_t &offset,
                            unsigned &rank);
  /// The offset in \p cta's shared memory of a shared::cta address: its
  /// rank bits must be 0 or the CTA's own rank.
  std::uint32_t ctaOffset(const CtaState &cta, std::uint64_t addr) const;
  void markGenericWrite(CtaState &cta, unsigned thread, std::uint32_t addr,
                        unsigned bytes);
  void checkInflight(const WarpState &w, const Instr &ins) const;
  void requireFullWarp(const WarpState &w, std::uint32_t active,
                       const Instr &ins, bool allLanes) const;
  void countShared(const Instr &ins, std::uint32_t pc,
                   const std::array<std::uint32_t, 32> &addrs,
                   std::uint32_t mask, unsigned bytes, unsigned lanesPerPhase);

  // Asynchronous units (InterpreterAsync.cpp).
  void execMbarrier(CtaState &cta, WarpState &w, const Instr &ins,
                    std::uint32_t mask, bool &blocked);
  MBarrier &mbarrier(CtaState &cta, std::uint32_t offset, const char *what);
  void mbarArrive(CtaState &cta, std::uint32_t offset, std::uint32_t count,
                  std::int64_t tx, const char *what);
  void execCpAsync(CtaState &cta, WarpState &w, const Instr &ins,
                   std::uint32_t mask);
  void execTma(CtaState &cta, WarpState &w, const Instr &ins,
               std::uint32_t mask);
  /// False when a wgmma.wait_group must wait for the rest of its warpgroup.
  bool execWgmma(CtaState &cta, WarpState &w, const Instr &ins,
                 std::uint32_t mask);
  void runWgmma(CtaState &cta, WarpState &w, PendingWgmma &p);
  /// Whether every live warp of \p w's warpgroup has committed \p groups
  /// wgmma-groups.
  bool warpgroupCommitted(const CtaState &cta, const WarpState &w,
                          std::uint32_t groups) const;
  /// Runs what is still pending of the first \p groups wgmma-groups in
  /// every warp of \p w's warpgroup.
  void runWarpgroupWgmmas(CtaState &cta, const WarpState &w,
                          std::uint32_t groups);
  void retireWgmma(CtaState &cta, WarpState &w, std::uint32_t keep);
  void execMatrix(CtaState &cta, WarpState &w, const Instr &ins,
                  std::uint32_t mask);
  SimTensorMap readTensorMap(CtaState &cta, WarpState &w, unsigned lane,
                             std::uint64_t addr);

  // TMA stores and bulk groups (InterpreterBulkStore.cpp).
  void issueBulkStore(CtaState &cta, WarpState &w, unsigned lane,
                      const SimTensorMap &map,
                      const std::array<std::int32_t, 5> &coords,
                      std::uint64_t src);
  void execBulkGroup(CtaState &cta, WarpState &w, const Instr &ins,
                     std::uint32_t mask);
  void progressBulkStore(CtaState &cta, PendingBulkStore &s, bool write);
  void randomBulkProgress();
  void finishBulkStores();
  void checkBulkSourceWrite(const CtaState &target, std::uint32_t addr,
                            std::uint32_t bytes, std::string_view what) const;

  // tcgen05 (InterpreterTcgen05.cpp).
  void execTcgen05(CtaState &cta, WarpState &w, const Instr &ins,
                   std::uint32_t mask);
  void queueTcgen05Commit(CtaState &cta, WarpState &w, const Instr &ins,
                          std::uint32_t mask);
  void performTcgen05(CtaState &cta);
  void checkTcgen05Columns(const CtaState &cta, unsigned first, unsigned count,
                           const char *what) const;
  /// tcgen05.mma's disable-output-lane vector \p vec, read by \p lane.
  void readDisabledLanes(WarpState &w, const Instr &ins, const Operand &vec,
                         unsigned lane, PendingTcgen05 &p);
  /// tcgen05.wait::ld: every tcgen05.ld of warp \p w has read its cells.
  void retireTmemLoads(CtaState &cta, const WarpState &w);
  /// Throws SimFault when \p what writes (or deallocates) the cells of
  /// \p cta's tensor memory in \p lanes (bit l: lane l) and columns
  /// [first, first + count) while a tcgen05.ld of them is in flight.
  void checkTmemLoadsInFlight(const CtaState &cta,
                              const std::array<std::uint32_t, 4> &lanes,
                              unsigned first, unsigned count,
                              const char *what) const;
};

/// ElemKind of a PTX type; throws SimFault for one without.
ElemKind elemKindOf(PtxType type);

} // namespace tilec::sim

#endif // TILEC_RUNTIME_SIM_INTERPRETER_H
