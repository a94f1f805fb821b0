//===- runtime/sim/InterpreterAsync.cpp - mbarriers and the async units --===//
//
// The instructions whose effect is not immediate or not per lane:
// mbarriers (PTX ISA phase / pending-count / tx-count semantics, in a side
// table per CTA keyed by shared offset), cp.async (queued per warp, landed
// at wait_group or earlier in random mode, zero-filled past src-size), TMA
// loads (queued per cluster, completing tx on the destination CTAs'
// mbarriers; TMA stores and bulk groups are in InterpreterBulkStore.cpp),
// wgmma (queued at issue, executed when a wait_group of its warpgroup
// retires its group or, in random mode, at a random point before; its
// accumulators are "in flight" until its warp's retirement), and mma.sync /
// ldmatrix / stmatrix. tcgen05 is in InterpreterTcgen05.cpp.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/Interpreter.h"

#include "runtime/sim/SimFault.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>

namespace tilec::sim {

MBarrier &ClusterRun::mbarrier(CtaState &cta, std::uint32_t offset,
                               const char *what) {
  auto it = cta.mbars.find(offset);
  if (it == cta.mbars.end())
    throw SimFault(fmt::format("{} on shared 0x{:x} of CTA rank {}, where no "
                               "mbarrier was initialized",
                               what, offset, cta.rank));
  return it->second;
}

void ClusterRun::mbarArrive(CtaState &cta, std::uint32_t offset,
                            std::uint32_t count, std::int64_t tx,
                            const char *what) {
  MBarrier &m = mbarrier(cta, offset, what);
  m.tx += tx;
  if (count > m.pending)
    throw SimFault(fmt::format("{} on the mbarrier at shared 0x{:x}: {} "
                               "arrivals but only {} pending in phase {}",
                               what, offset, count, m.pending, m.phase));
  m.pending -= count;
  if (m.pending == 0 && m.tx == 0) {
    ++m.phase;
    m.pending = m.expected;
  }
}

void ClusterRun::execMbarrier(CtaState &cta, WarpState &w, const Instr &ins,
                              std::uint32_t mask, bool &blocked) {
  const std::vector<Operand> &ops = ins.ops;
  bool cluster = ins.space == SpaceKind::SharedCluster;
  auto resolve = [&](std::uint64_t a, CtaState *&target) -> std::uint32_t {
    if (ins.space == SpaceKind::Generic) {
      if (a < SharedGenericBase || a >= SharedGenericBase + WindowSize)
        throw SimFault(fmt::format("mbarrier at generic address 0x{:x}, "
                                   "which is not shared memory",
                                   a));
      a -= SharedGenericBase;
    }
    std::uint32_t off;
    unsigned rank = cta.rank;
    if (!cluster && ins.space != SpaceKind::Generic)
      off = ctaOffset(cta, a);
    else
      clusterSmem(a, off, rank);
    target = &ctas[rank];
    if (off + 8 > target->smem.size() || off % 8)
      throw SimFault(fmt::format("mbarrier at shared 0x{:x} is misaligned or "
                                 "outside the {} bytes of shared memory",
                                 off, target->smem.size()));
    return off;
  };
  forLanes(mask, [&](unsigned l) {
    curLane = static_cast<int>(l);
    CtaState *t = nullptr;
    const Operand &addrOp =
        (ins.op == OpKind::MbarInit || ins.op == OpKind::MbarExpectTx ||
         ins.op == OpKind::MbarInval)
            ? ops[0]
            : ops[1];
    std::uint32_t off = resolve(address(w, addrOp, l), t);
    switch (ins.op) {
    case OpKind::MbarInit: {
      std::uint64_t count = get(w, ops[1], l);
      if (count == 0 || count > (1u << 20) - 1)
        throw SimFault(fmt::format("mbarrier.init with count {} (legal: 1 to "
                                   "2^20 - 1)",
                                   count));
      MBarrier m;
      m.expected = m.pending = static_cast<std::uint32_t>(count);
      t->mbars[off] = m;
      std::uint64_t bits = count;
      t->smem.write(off, &bits, 8, "mbarrier.init");
      break;
    }
    case OpKind::MbarInval:
      t->mbars.erase(off);
      break;
    case OpKind::MbarExpectTx:
      mbarrier(*t, off, "mbarrier.expect_tx").tx +=
          static_cast<std::int64_t>(get(w, ops[1], l));
      break;
    case OpKind::MbarArrive: {
      std::uint32_t count = 1;
      std::int64_t tx = 0;
      if (ins.flag)
        tx = static_cast<std::int64_t>(get(w, ops[2], l));
      else if (ops.size() > 2)
        count = static_cast<std::uint32_t>(get(w, ops[2], l));
      MBarrier &m = mbarrier(*t, off, "mbarrier.arrive");
      std::uint64_t state = m.phase;
      if (ins.flag2) {
        if (m.expected == 0)
          throw SimFault("mbarrier.arrive_drop below zero expected arrivals");
        --m.expected;
      }
      mbarArrive(*t, off, count, tx, "mbarrier.arrive");
      if (ops[0].kind == OperandKind::Reg)
        set(w, ops[0], l, state, PtxType::B64);
      break;
    }
    case OpKind::MbarTryWait:
    case OpKind::MbarTestWait: {
      MBarrier &m = mbarrier(*t, off, "mbarrier.try_wait");
      std::uint64_t want = get(w, ops[2], l);
      // .parity P: the phase with parity P completed when the current
      // phase's parity differs. Without .parity the operand is the state
      // token of an arrive: that phase completed when the phase moved on.
      bool done = ins.flag ? ((m.phase & 1) != (want & 1)) : (m.phase != want);
      if (!done && ins.op == OpKind::MbarTryWait) {
        blocked = true;
        w.wait = WaitKind::MBarrier;
        w.waitAddr = off | (t->rank << ClusterRankShift);
        w.waitPhase = m.phase;
        return;
      }
      set(w, ops[0], l, done, PtxType::Pred);
      break;
    }
    default:
      break;
    }
  });
}

void ClusterRun::completeCpAsync(CtaState &cta, WarpState &w,
                                 std::size_t index) {
  PendingCpAsync op = w.cpPending[index];
  w.cpPending.erase(w.cpPending.begin() + static_cast<std::ptrdiff_t>(index));
  std::uint8_t buf[16] = {};
  if (op.srcSize)
    GlobalMemory::instance().read(op.src, buf, op.srcSize);
  checkBulkSourceWrite(cta, op.dst, op.size, "the cp.async copy landing");
  cta.smem.write(op.dst, buf, op.size, "cp.async");
  markGenericWrite(cta, w.index * 32 + op.lane, op.dst, op.size);
}

void ClusterRun::execCpAsync(CtaState &cta, WarpState &w, const Instr &ins,
                             std::uint32_t mask) {
  const std::vector<Operand> &ops = ins.ops;
  switch (ins.op) {
  case OpKind::CpAsync: {
    std::array<std::uint32_t, 32> addrs{};
    unsigned size = 0;
    forLanes(mask, [&](unsigned l) {
      curLane = static_cast<int>(l);
      std::uint64_t dst = ctaOffset(cta, address(w, ops[0], l));
      std::uint64_t src = address(w, ops[1], l);
      size = static_cast<unsigned>(get(w, ops[2], l));
      unsigned srcSize = size;
      if (ops.size() > 3 && ops[3].kind != OperandKind::None)
        srcSize = static_cast<unsigned>(get(w, ops[3], l));
      if (size != 4 && size != 8 && size != 16)
        throw SimFault(
            fmt::format("cp.async of {} bytes (legal: 4, 8, 16)", size));
      if (srcSize > size)
        throw SimFault(fmt::format("cp.async src-size {} exceeds cp-size {}",
                                   srcSize, size));
      if (dst % size || src % size)
        throw SimFault(fmt::format("cp.async of {} bytes with misaligned "
                                   "addresses (shared 0x{:x}, global 0x{:x})",
                                   size, dst, src));
      cta.smem.checkRange(static_cast<std::uint32_t>(dst), size, "cp.async");
      if (dst >= WindowSize)
        throw SimFault(fmt::format("cp.async to shared 0x{:x}", dst));
      if (srcSize)
        GlobalMemory::instance().check(src, srcSize, "cp.async");
      addrs[l] = static_cast<std::uint32_t>(dst);
      w.cpPending.push_back({l, w.cpCommitted[l],
                             static_cast<std::uint32_t>(dst), src, size,
                             srcSize});
    });
    if (profile)
      countShared(ins, curPc, addrs, mask, size,
                  size <= 4   ? 32
                  : size == 8 ? 16
                              : 8);
    break;
  }
  case OpKind::CpAsyncCommit:
    forLanes(mask, [&](unsigned l) { ++w.cpCommitted[l]; });
    break;
  case OpKind::CpAsyncMbarArrive:
    // The thread's copies land now (the latest point would be later; an
    // arrive that completes the phase is then never early), then the
    // arrival: one of the expected ones with .noinc; without it the count
    // raised at issue and lowered on completion cancel out.
    forLanes(mask, [&](unsigned l) {
      curLane = static_cast<int>(l);
      for (std::size_t i = 0; i < w.cpPending.size();) {
        if (w.cpPending[i].lane == l)
          completeCpAsync(cta, w, i);
        else
          ++i;
      }
      std::uint32_t bar = ctaOffset(cta, sharedOffsetOf(address(w, ops[0], l)));
      if (ins.flag)
        mbarArrive(cta, bar, 1, 0, "cp.async.mbarrier.arrive.noinc");
      else
        mbarrier(cta, bar, "cp.async.mbarrier.arrive");
    });
    break;
  case OpKind::CpAsyncWait:
  case OpKind::CpAsyncWaitAll:
    forLanes(mask, [&](unsigned l) {
      std::uint32_t keep = 0;
      if (ins.op == OpKind::CpAsyncWait)
        keep = static_cast<std::uint32_t>(get(w, ops[0], l));
      for (std::size_t i = 0; i < w.cpPending.size();) {
        const PendingCpAsync &p = w.cpPending[i];
        bool retire = p.lane == l && (ins.op == OpKind::CpAsyncWaitAll ||
                                      p.group + keep < w.cpCommitted[l]);
        if (retire)
          completeCpAsync(cta, w, i);
        else
          ++i;
      }
    });
    break;
  default:
    break;
  }
}

SimTensorMap ClusterRun::readTensorMap(CtaState &cta, WarpState &w,
                                       unsigned lane, std::uint64_t addr) {
  alignas(64) std::uint8_t bytes[128];
  if (addr % 64)
    throw SimFault(
        fmt::format("tensor map at 0x{:x} is not 64-byte aligned", addr));
  load(cta, w, lane, SpaceKind::Generic, addr, bytes, 128, "tensor map read");
  return decodeSimTensorMap(bytes);
}

void ClusterRun::execTma(CtaState &cta, WarpState &w, const Instr &ins,
                         std::uint32_t mask) {
  const std::vector<Operand> &ops = ins.ops;
  forLanes(mask, [&](unsigned l) {
    curLane = static_cast<int>(l);
    const Operand &mapOp = ins.op == OpKind::TmaLoad ? ops[1] : ops[0];
    SimTensorMap map = readTensorMap(cta, w, l, address(w, mapOp, l));
    if (mapOp.elemCount != static_cast<unsigned>(ins.a) ||
        map.rank != static_cast<unsigned>(ins.a))
      throw SimFault(fmt::format("{}d tensor copy with {} coordinates on a "
                                 "tensor map of rank {}",
                                 ins.a, mapOp.elemCount, map.rank));
    std::array<std::int32_t, 5> coords{};
    for (unsigned i = 0; i < mapOp.elemCount; ++i)
      coords[i] =
          static_cast<std::int32_t>(get(w, ins.elems[mapOp.elemBegin + i], l));
    if (ins.op == OpKind::TmaStore) {
      issueBulkStore(cta, w, l, map, coords,
                     ctaOffset(cta, address(w, ops[1], l)));
      return;
    }
    PendingTma op;
    op.map = map;
    op.coords = coords;
    op.srcCta = cta.rank;
    op.pc = curPc;
    std::uint32_t dstOff, mbarOff;
    unsigned dstRank, mbarRank;
    clusterSmem(address(w, ops[0], l), dstOff, dstRank);
    clusterSmem(address(w, ops[2], l), mbarOff, mbarRank);
    // .cta_group::2 (PTX ISA, cp.async.bulk.tensor's .cta_group): the
    // mbarrier may be the destination CTA's or its peer's in the CTA pair.
    bool peerBar = ins.b == 2 && mbarRank == (dstRank ^ 1);
    if (dstRank != mbarRank && !peerBar)
      throw SimFault(fmt::format(
          "TMA load into CTA rank {} signalling an mbarrier of CTA rank {}{}",
          dstRank, mbarRank,
          ins.b == 2 ? fmt::format("; with .cta_group::2 it may be rank {} "
                                   "or its peer {} only",
                                   dstRank, dstRank ^ 1)
                     : std::string("; only .cta_group::2 lets it be the peer "
                                   "CTA's")));
    op.dst = dstOff;
    op.mbar = mbarOff;
    // With .cta_group::2 the mbarrier operand names the even or the odd
    // CTA of a pair; a multicast signals, for each destination CTA, the
    // mbarrier at the same offset in that CTA of the destination's own pair
    // (PTX ISA, cp.async.bulk.tensor: "the mbarrier signal is also
    // multicast to the same CTA-relative offset", and .cta_group::2 lets
    // it be the destination's peer). So two pairs' leaders each count the
    // bytes landing in their pair (a 4x1 cluster multicasting B).
    op.mbarPairRank = ins.b == 2 ? static_cast<int>(mbarRank & 1) : -1;
    op.dstMask = 1u << dstRank;
    if (ins.flag) {
      if (ops.size() < 4)
        throw SimFault("multicast TMA load without a CTA mask");
      op.dstMask = static_cast<std::uint32_t>(get(w, ops[3], l)) & 0xffff;
      if (op.dstMask >> ctas.size())
        throw SimFault(fmt::format("multicast CTA mask 0x{:x} names CTAs "
                                   "past the cluster's {}",
                                   op.dstMask, ctas.size()));
    }
    // The mbarriers must exist now.
    for (unsigned r = 0; r < ctas.size(); ++r)
      if (op.dstMask >> r & 1)
        mbarrier(tmaBarrierCta(op, r), op.mbar, "TMA load complete_tx");
    tmaPending.push_back(op);
  });
}

CtaState &ClusterRun::tmaBarrierCta(const PendingTma &op, unsigned dst) {
  if (op.mbarPairRank < 0)
    return ctas[dst];
  unsigned r = (dst & ~1u) | static_cast<unsigned>(op.mbarPairRank);
  if (r >= ctas.size())
    throw SimFault(fmt::format("TMA load with .cta_group::2 into CTA rank {} "
                               "signalling rank {} of its pair, but the "
                               "cluster has {} CTAs (no pair for it)",
                               dst, r, ctas.size()));
  return ctas[r];
}

void ClusterRun::completeTma(std::size_t index) {
  PendingTma op = tmaPending[index];
  tmaPending.erase(tmaPending.begin() + static_cast<std::ptrdiff_t>(index));
  for (unsigned r = 0; r < ctas.size(); ++r) {
    if (!(op.dstMask >> r & 1))
      continue;
    if (!ctas[r].bulkStores.empty())
      checkBulkSourceWrite(
          ctas[r], op.dst, op.map.boxBytes(),
          fmt::format("the TMA load issued at ptx:{}", fn.code[op.pc].line));
    std::uint32_t bytes = tmaLoad(op.map, op.coords, GlobalMemory::instance(),
                                  ctas[r].smem, op.dst);
    mbarArrive(tmaBarrierCta(op, r), op.mbar, 0,
               -static_cast<std::int64_t>(bytes), "TMA load complete_tx");
  }
}

void ClusterRun::execMatrix(CtaState &cta, WarpState &w, const Instr &ins,
                            std::uint32_t mask) {
  (void)mask;
  const std::vector<Operand> &ops = ins.ops;
  auto gatherVec = [&](const Operand &v, WarpRegs &regs) {
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned i = 0; i < v.elemCount && i < 4; ++i)
        regs[l][i] =
            static_cast<std::uint32_t>(get(w, ins.elems[v.elemBegin + i], l));
  };
  auto scatterVec = [&](const Operand &v, const WarpRegs &regs) {
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned i = 0; i < v.elemCount && i < 4; ++i)
        set(w, ins.elems[v.elemBegin + i], l, regs[l][i], PtxType::B32);
  };
  if (ins.op == OpKind::MmaSync) {
    MmaSyncShape shape;
    shape.m = ins.a;
    shape.n = ins.b;
    shape.k = ins.c;
    shape.d = elemKindOf(ins.typeD);
    shape.a = elemKindOf(ins.typeA);
    shape.b = elemKindOf(ins.typeB);
    shape.c = elemKindOf(ins.typeC);
    WarpRegs a{}, b{}, c{}, d{};
    gatherVec(ops[1], a);
    gatherVec(ops[2], b);
    gatherVec(ops[3], c);
    mmaSync(shape, a, b, c, d);
    scatterVec(ops[0], d);
    return;
  }
  bool isLd = ins.op == OpKind::Ldmatrix;
  const Operand &addrOp = isLd ? ops[1] : ops[0];
  const Operand &vec = isLd ? ops[0] : ops[1];
  if (vec.elemCount != static_cast<unsigned>(ins.a))
    throw SimFault(fmt::format("{} .x{} with {} registers",
                               isLd ? "ldmatrix" : "stmatrix", ins.a,
                               vec.elemCount));
  std::array<std::uint32_t, 32> rows{};
  for (unsigned l = 0; l < 32; ++l) {
    std::uint64_t a = address(w, addrOp, l);
    if (l < 8u * ins.a)
      a = ctaOffset(cta, a);
    if (l < 8u * ins.a && (a % 16 || a + 16 > cta.smem.size())) {
      curLane = static_cast<int>(l);
      throw SimFault(fmt::format("{} row address 0x{:x} is misaligned or "
                                 "outside the {} bytes of shared memory",
                                 isLd ? "ldmatrix" : "stmatrix", a,
                                 cta.smem.size()));
    }
    rows[l] = static_cast<std::uint32_t>(a);
  }
  WarpRegs regs{};
  if (isLd) {
    ldmatrix(ins.a, ins.trans, rows, cta.smem, regs);
    scatterVec(vec, regs);
  } else {
    gatherVec(vec, regs);
    for (unsigned l = 0; l < 8u * ins.a; ++l)
      checkBulkSourceWrite(cta, rows[l], 16, "the stmatrix");
    stmatrix(ins.a, ins.trans, rows, regs, cta.smem);
    for (unsigned l = 0; l < 8u * ins.a; ++l)
      markGenericWrite(cta, w.index * 32 + l, rows[l], 16);
  }
  if (profile) {
    // One phase of 8 rows per matrix.
    countShared(ins, curPc, rows,
                ins.a == 4   ? 0xffffffffu
                : ins.a == 2 ? 0xffffu
                             : 0xffu,
                16, 8);
  }
}

bool ClusterRun::warpgroupCommitted(const CtaState &cta, const WarpState &w,
                                    std::uint32_t groups) const {
  unsigned first = w.index / 4 * 4;
  for (unsigned i = first; i < first + 4 && i < cta.warps.size(); ++i)
    if (!cta.warps[i].done() && cta.warps[i].wgmmaCommitted < groups)
      return false;
  return true;
}

void ClusterRun::runWarpgroupWgmmas(CtaState &cta, const WarpState &w,
                                    std::uint32_t groups) {
  unsigned first = w.index / 4 * 4;
  for (unsigned i = first; i < first + 4 && i < cta.warps.size(); ++i)
    for (PendingWgmma &p : cta.warps[i].wgmmaPending) {
      if (p.group == ~0u || p.group >= groups)
        break;
      if (!p.ran)
        runWgmma(cta, cta.warps[i], p);
    }
}

bool ClusterRun::execWgmma(CtaState &cta, WarpState &w, const Instr &ins,
                           std::uint32_t mask) {
  const std::vector<Operand> &ops = ins.ops;
  switch (ins.op) {
  case OpKind::WgmmaFence:
    return true;
  case OpKind::WgmmaCommit:
    for (PendingWgmma &p : w.wgmmaPending)
      if (p.group == ~0u)
        p.group = w.wgmmaCommitted;
    ++w.wgmmaCommitted;
    return true;
  case OpKind::WgmmaWait: {
    // The groups this wait retires are the warpgroup's: the MMA of each
    // cannot complete before every warp has issued its part, and once it
    // has, the whole MMA (every warp's operand reads) is done.
    auto keep = static_cast<std::uint32_t>(get(w, ops[0], 0));
    std::uint32_t groups =
        w.wgmmaCommitted > keep ? w.wgmmaCommitted - keep : 0;
    if (!warpgroupCommitted(cta, w, groups)) {
      w.wait = WaitKind::WgmmaGroup;
      w.waitAddr = cta.rank;
      w.waitPhase = groups;
      return false;
    }
    runWarpgroupWgmmas(cta, w, groups);
    retireWgmma(cta, w, keep);
    return true;
  }
  default:
    break;
  }
  if (mask != 0xffffffffu)
    throw SimFault(fmt::format("wgmma.mma_async with guard mask 0x{:08x}: "
                               "the whole warp must execute it",
                               mask));
  PendingWgmma p;
  WgmmaShape &s = p.shape;
  s.m = ins.a;
  s.n = ins.b;
  s.k = ins.c;
  s.d = elemKindOf(ins.typeD);
  s.a = elemKindOf(ins.typeA);
  s.b = elemKindOf(ins.typeB);
  s.aFromRegs = ops[1].kind == OperandKind::Vector;
  std::size_t i = 2;
  p.descB = get(w, ops[i++], 0);
  if (s.aFromRegs) {
    p.hasARegs = true;
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned r = 0; r < ops[1].elemCount && r < 4; ++r)
        p.aRegs[l][r] = static_cast<std::uint32_t>(
            get(w, ins.elems[ops[1].elemBegin + r], l));
    // The hardware reads A asynchronously: a write before the wgmma
    // retires is a race the copy above would hide.
    for (unsigned r = 0; r < ops[1].elemCount && r < 4; ++r) {
      const Operand &e = ins.elems[ops[1].elemBegin + r];
      if (e.kind == OperandKind::Reg)
        p.aSlots.push_back(e.reg);
    }
  } else {
    p.descA = get(w, ops[1], 0);
  }
  p.scaleD = get(w, ops[i++], 0) != 0;
  auto imm = [&](std::size_t k, int def) -> int {
    return k < ops.size()
               ? static_cast<int>(static_cast<std::int64_t>(get(w, ops[k], 0)))
               : def;
  };
  s.scaleA = imm(i++, 1);
  s.scaleB = imm(i++, 1);
  if (!s.aFromRegs)
    s.transA = imm(i++, 0) != 0;
  s.transB = imm(i++, 0) != 0;
  unsigned regs = wgmmaAccRegs(s);
  if (ops[0].elemCount != regs)
    throw SimFault(fmt::format("wgmma m{}n{}k{} with {} accumulator "
                               "registers; the shape needs {}",
                               s.m, s.n, s.k, ops[0].elemCount, regs));
  for (unsigned r = 0; r < regs; ++r) {
    const Operand &e = ins.elems[ops[0].elemBegin + r];
    if (e.kind != OperandKind::Reg)
      throw SimFault("wgmma accumulator that is not a register");
    p.accSlots.push_back(e.reg);
  }
  for (const std::vector<std::uint32_t> *slots : {&p.accSlots, &p.aSlots})
    for (std::uint32_t slot : *slots)
      if (!w.inflight[slot]++)
        ++w.inflightCount;
  p.group = ~0u;
  p.pc = curPc;
  // With a seed, half the wgmmas may run before their wait_group: the other
  // half keep the latest point, which exposes a missing wait.
  p.early = options.seed != 0 && rng() % 2;
  w.wgmmaPending.push_back(std::move(p));
  return true;
}

void ClusterRun::runWgmma(CtaState &cta, WarpState &w, PendingWgmma &p) {
  unsigned regs = static_cast<unsigned>(p.accSlots.size());
  std::vector<std::uint32_t> acc(32 * regs, 0);
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned r = 0; r < regs; ++r)
      acc[l * regs + r] =
          static_cast<std::uint32_t>(w.regs[p.accSlots[r] * 32 + l]);
  {
    IssueSite site(*this, cta, w.index, -1, p.pc);
    wgmmaWarp(p.shape, w.index % 4, p.descA, p.hasARegs ? &p.aRegs : nullptr,
              p.descB, cta.smem, p.scaleD, acc);
  }
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned r = 0; r < regs; ++r)
      w.regs[p.accSlots[r] * 32 + l] = acc[l * regs + r];
  p.ran = true;
}

void ClusterRun::retireWgmma(CtaState &cta, WarpState &w, std::uint32_t keep) {
  std::size_t done = 0;
  for (PendingWgmma &p : w.wgmmaPending) {
    if (p.group == ~0u || p.group + keep >= w.wgmmaCommitted)
      break;
    if (!p.ran)
      runWgmma(cta, w, p);
    for (const std::vector<std::uint32_t> *slots : {&p.accSlots, &p.aSlots})
      for (std::uint32_t slot : *slots)
        if (!--w.inflight[slot])
          --w.inflightCount;
    ++done;
  }
  w.wgmmaPending.erase(w.wgmmaPending.begin(),
                       w.wgmmaPending.begin() +
                           static_cast<std::ptrdiff_t>(done));
}

} // namespace tilec::sim
