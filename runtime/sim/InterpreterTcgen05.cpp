//===- runtime/sim/InterpreterTcgen05.cpp - tcgen05 in the interpreter ----===//
//
// Tensor memory allocation, tcgen05.ld / st, and the asynchronous part of
// tcgen05: tcgen05.mma and tcgen05.commit. An MMA is issued to the CTA's
// tensor pipe and performed later; a tcgen05.commit makes an mbarrier track
// the completion of every tcgen05 operation issued before it, and arrives on
// it when they are done. The interpreter queues both per issuing CTA, in
// issue order, and performs the queue's head at the end of the issuing
// warp's slice (deterministic mode) or, with a seed, at random later
// scheduling points, so a reader that does not wait for the commit's
// mbarrier can see the MMA unfinished. A tcgen05.ld, tcgen05.st or
// tcgen05.dealloc of columns that a queued MMA still writes is reported.
// A tcgen05.ld reads tensor memory until its warp's tcgen05.wait::ld: a
// tcgen05.mma or tcgen05.st into its cells, or their tcgen05.dealloc,
// before then is reported (its registers may be read at once).
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/Interpreter.h"

#include "runtime/sim/SimFault.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace tilec::sim {

namespace {

Tcgen05KindKind tcgen05Kind(int a) {
  return a == 0   ? Tcgen05KindKind::F16
         : a == 1 ? Tcgen05KindKind::TF32
                  : Tcgen05KindKind::F8F6F4;
}

const char *tcgen05OpName(OpKind op) {
  switch (op) {
  case OpKind::TcAlloc:
    return "tcgen05.alloc";
  case OpKind::TcDealloc:
    return "tcgen05.dealloc";
  case OpKind::TcRelinquish:
    return "tcgen05.relinquish_alloc_permit";
  case OpKind::TcMma:
    return "tcgen05.mma";
  case OpKind::TcCommit:
    return "tcgen05.commit";
  default:
    return nullptr;
  }
}

/// The PTX ISA (9.7.16, tcgen05: "all the tcgen05 instructions within a
/// kernel must specify the same value of the .cta_group qualifier"): the
/// CTA's first alloc, dealloc, relinquish_alloc_permit, mma or commit fixes
/// the group, and any other value is a fault.
void checkCtaGroup(CtaState &cta, const Instr &ins) {
  const char *name = tcgen05OpName(ins.op);
  if (!name)
    return;
  unsigned group = static_cast<unsigned>(ins.b);
  if (cta.tcgen05CtaGroup == 0)
    cta.tcgen05CtaGroup = group;
  else if (cta.tcgen05CtaGroup != group)
    throw SimFault(fmt::format(
        "{}.cta_group::{} in a CTA whose earlier tcgen05 instructions used "
        ".cta_group::{}: every tcgen05 instruction of a kernel must use the "
        "same .cta_group",
        name, group, cta.tcgen05CtaGroup));
}

constexpr TmemLaneMask AllLanes = {~0u, ~0u, ~0u, ~0u};

/// The first and last lane set in \p lanes, as "a..b".
std::string laneRange(const TmemLaneMask &lanes) {
  unsigned first = 128, last = 0;
  for (unsigned l = 0; l < 128; ++l)
    if (lanes[l / 32] >> (l % 32) & 1) {
      first = std::min(first, l);
      last = l;
    }
  return first > last ? "none" : fmt::format("{}..{}", first, last);
}

} // namespace

void ClusterRun::readDisabledLanes(WarpState &w, const Instr &ins,
                                   const Operand &vec, unsigned lane,
                                   PendingTcgen05 &p) {
  // PTX ISA, tcgen05.mma: the vector has 4 elements for .cta_group::1 and
  // 8 for ::2; the least significant bit of the first is lane 0. For the
  // pair, the first four are the even CTA's lanes, the last four the odd
  // CTA's (our reading: the ISA gives the size, not the split).
  unsigned words = 4 * p.ctaGroup;
  if (vec.elemCount != words)
    throw SimFault(fmt::format("tcgen05.mma.cta_group::{} with a "
                               "disable-output-lane vector of {} elements; "
                               "the ISA requires {}",
                               p.ctaGroup, vec.elemCount, words));
  for (unsigned i = 0; i < words; ++i)
    p.disabled[i / 4][i % 4] =
        static_cast<std::uint32_t>(get(w, ins.elems[vec.elemBegin + i], lane));
}

void ClusterRun::retireTmemLoads(CtaState &cta, const WarpState &w) {
  std::erase_if(cta.tmemLoads,
                [&](const InflightTmemLoad &ld) { return ld.warp == w.index; });
}

void ClusterRun::checkTmemLoadsInFlight(const CtaState &cta,
                                        const TmemLaneMask &lanes,
                                        unsigned first, unsigned count,
                                        const char *what) const {
  for (const InflightTmemLoad &ld : cta.tmemLoads) {
    if (first >= ld.column + ld.columns || ld.column >= first + count)
      continue;
    TmemLaneMask both{};
    for (unsigned l = ld.lane; l < ld.lane + ld.lanes && l < 128; ++l)
      both[l / 32] |= lanes[l / 32] & 1u << (l % 32);
    if (both == TmemLaneMask{})
      continue;
    unsigned c0 = std::max(first, ld.column);
    unsigned c1 = std::min(first + count, ld.column + ld.columns) - 1;
    throw SimFault(fmt::format(
        "race on tensor memory: {} of lanes {} columns {}..{} (CTA rank {}) "
        "while the tcgen05.ld issued at ptx:{} by warp {} may still read "
        "them (it reads lanes {}..{} columns {}..{}); that warp's "
        "tcgen05.wait::ld must retire the load first",
        what, laneRange(both), c0, c1, cta.rank, fn.code[ld.pc].line, ld.warp,
        ld.lane, ld.lane + ld.lanes - 1, ld.column,
        ld.column + ld.columns - 1));
  }
}

void ClusterRun::execTcgen05(CtaState &cta, WarpState &w, const Instr &ins,
                             std::uint32_t mask) {
  const std::vector<Operand> &ops = ins.ops;
  if (!cta.tmem)
    cta.tmem = std::make_unique<TensorMemory>();
  unsigned lane0 = mask ? static_cast<unsigned>(std::countr_zero(mask)) : 0;
  checkCtaGroup(cta, ins);
  switch (ins.op) {
  case OpKind::TcAlloc: {
    std::uint64_t dst = address(w, ops[0], lane0);
    unsigned cols = static_cast<unsigned>(get(w, ops[1], lane0));
    std::uint32_t addr = 0;
    if (ins.b == 2) {
      // One warp of each CTA of the pair allocates; the first to execute
      // allocates the same columns in both (TensorMemory::allocatePair).
      if ((cta.rank ^ 1) >= ctas.size())
        throw SimFault(fmt::format("tcgen05.alloc.cta_group::2 in CTA rank "
                                   "{} of a cluster of {}: no peer CTA",
                                   cta.rank, ctas.size()));
      CtaState &peer = ctas[cta.rank ^ 1];
      if (!peer.tmem)
        peer.tmem = std::make_unique<TensorMemory>();
      std::optional<std::uint32_t> owed = cta.tmem->takeOwedPairAlloc(cols);
      addr = owed ? *owed : cta.tmem->allocatePair(*peer.tmem, cols);
    } else {
      addr = cta.tmem->allocate(cols);
    }
    cta.smem.write(ctaOffset(cta, sharedOffsetOf(dst)), &addr, 4,
                   "tcgen05.alloc result");
    return;
  }
  case OpKind::TcDealloc: {
    std::uint32_t addr = static_cast<std::uint32_t>(get(w, ops[0], lane0));
    unsigned cols = static_cast<unsigned>(get(w, ops[1], lane0));
    checkTcgen05Columns(cta, addr & 0xffff, cols, "tcgen05.dealloc");
    checkTmemLoadsInFlight(cta, AllLanes, addr & 0xffff, cols,
                           "tcgen05.dealloc");
    cta.tmem->deallocate(addr, cols);
    return;
  }
  case OpKind::TcRelinquish:
    cta.tmem->relinquish();
    return;
  case OpKind::TcMma:
    forLanes(mask, [&](unsigned l) {
      curLane = static_cast<int>(l);
      PendingTcgen05 p;
      p.warp = w.index;
      p.lane = l;
      p.pc = curPc;
      p.kind = tcgen05Kind(ins.a);
      p.ctaGroup = static_cast<unsigned>(ins.b);
      p.tmemD = static_cast<std::uint32_t>(address(w, ops[0], l));
      p.descA = get(w, ops[1], l);
      p.descB = get(w, ops[2], l);
      p.idesc = static_cast<std::uint32_t>(get(w, ops[3], l));
      // [d], a, b, idesc {, disable-output-lane}, enable-input-d
      // {, scale-input-d}.
      std::size_t enable = 4;
      if (ops[4].kind == OperandKind::Vector) {
        readDisabledLanes(w, ins, ops[4], l, p);
        enable = 5;
      }
      if (enable >= ops.size())
        throw SimFault("tcgen05.mma without enable-input-d");
      p.enableInputD = get(w, ops[enable], l) != 0;
      if (enable + 1 < ops.size() && get(w, ops[enable + 1], l) != 0)
        throw SimFault(fmt::format(
            "tcgen05.mma with scale-input-d = {} is not modelled by the "
            "simulator (only 0: D unscaled)",
            get(w, ops[enable + 1], l)));
      // The descriptor's faults belong to the issue.
      Tcgen05InstrDesc id = decodeTcgen05InstrDesc(p.idesc, p.kind, p.ctaGroup);
      // The columns the MMA writes: N, or N / 2 in data path layout B
      // (cta_group::2 M = 128, PTX ISA 9.7.16.10.5).
      p.columns = p.ctaGroup == 2 && id.m == 128 ? id.n / 2 : id.n;
      if (p.ctaGroup == 2 && (cta.rank ^ 1) >= ctas.size())
        throw SimFault(fmt::format("tcgen05.mma.cta_group::2 in CTA rank {} "
                                   "of a cluster of {}: no peer CTA",
                                   cta.rank, ctas.size()));
      // The MMA writes D's cells some time after this issue: a tcgen05.ld
      // of them still in flight would read them racing.
      for (unsigned i = 0; i < p.ctaGroup; ++i) {
        const CtaState &target = i == 0 ? cta : ctas[cta.rank ^ 1];
        unsigned pairIndex = p.ctaGroup == 2 ? target.rank % 2 : 0;
        checkTmemLoadsInFlight(
            target, tcgen05MmaLanes(id, p.ctaGroup, p.disabled[pairIndex]),
            p.tmemD & 0xffff, p.columns, "tcgen05.mma");
      }
      cta.tcPending.push_back(p);
    });
    return;
  case OpKind::TcCommit:
    queueTcgen05Commit(cta, w, ins, mask);
    return;
  case OpKind::TcLd:
  case OpKind::TcSt: {
    bool isLd = ins.op == OpKind::TcLd;
    const Operand &vec = isLd ? ops[0] : ops[1];
    const Operand &addrOp = isLd ? ops[1] : ops[0];
    Tcgen05LdShapeKind shape = static_cast<Tcgen05LdShapeKind>(ins.a);
    unsigned num = static_cast<unsigned>(ins.c);
    unsigned regs = tcgen05LdRegs(shape, num);
    if (vec.kind != OperandKind::Vector || vec.elemCount != regs)
      throw SimFault(fmt::format("tcgen05.{} .x{} with {} registers; the "
                                 "shape needs {}",
                                 isLd ? "ld" : "st", ins.c, vec.elemCount,
                                 regs));
    std::uint32_t taddr = static_cast<std::uint32_t>(address(w, addrOp, 0));
    checkTcgen05Columns(cta, taddr & 0xffff, tcgen05LdColumns(shape, num),
                        isLd ? "tcgen05.ld" : "tcgen05.st");
    std::vector<std::uint32_t> buf(32 * regs);
    if (isLd) {
      tcgen05Ld(shape, num, w.index, taddr, *cta.tmem, buf);
      for (unsigned l = 0; l < 32; ++l)
        for (unsigned r = 0; r < regs; ++r)
          set(w, ins.elems[vec.elemBegin + r], l, buf[l * regs + r],
              PtxType::B32);
      // The load reads tensor memory until the warp's tcgen05.wait::ld
      // (PTX ISA, tcgen05.wait: wait::ld "causes the executing thread to
      // block until all prior tcgen05.ld operations issued by the executing
      // thread have completed"); its registers may be read before.
      cta.tmemLoads.push_back({w.index, curPc, taddr >> 16,
                               tcgen05LdLanes(shape), taddr & 0xffff,
                               tcgen05LdColumns(shape, num)});
    } else {
      for (unsigned l = 0; l < 32; ++l)
        for (unsigned r = 0; r < regs; ++r)
          buf[l * regs + r] = static_cast<std::uint32_t>(
              get(w, ins.elems[vec.elemBegin + r], l));
      TmemLaneMask lanes{};
      for (unsigned l = taddr >> 16; l < (taddr >> 16) + tcgen05LdLanes(shape);
           ++l)
        lanes[l / 32 % 4] |= 1u << (l % 32);
      checkTmemLoadsInFlight(cta, lanes, taddr & 0xffff,
                             tcgen05LdColumns(shape, num), "tcgen05.st");
      tcgen05St(shape, num, w.index, taddr, buf, *cta.tmem);
    }
    return;
  }
  default:
    return;
  }
}

void ClusterRun::queueTcgen05Commit(CtaState &cta, WarpState &w,
                                    const Instr &ins, std::uint32_t mask) {
  const std::vector<Operand> &ops = ins.ops;
  forLanes(mask, [&](unsigned l) {
    curLane = static_cast<int>(l);
    std::uint64_t a = address(w, ops[0], l);
    if (a >= SharedGenericBase && a < SharedGenericBase + WindowSize)
      a -= SharedGenericBase;
    PendingTcgen05 p;
    p.commit = true;
    p.warp = w.index;
    p.lane = l;
    p.pc = curPc;
    unsigned rank;
    clusterSmem(a, p.mbar, rank);
    p.targets = 1u << rank;
    if (ins.flag) {
      if (ops.size() < 2)
        throw SimFault("tcgen05.commit.multicast without a CTA mask");
      p.targets = static_cast<std::uint32_t>(get(w, ops[1], l)) & 0xffff;
    }
    // The mbarriers must exist now.
    for (unsigned r = 0; r < ctas.size(); ++r)
      if (p.targets >> r & 1)
        mbarrier(ctas[r], p.mbar, "tcgen05.commit");
    cta.tcPending.push_back(p);
  });
}

void ClusterRun::performTcgen05(CtaState &cta) {
  PendingTcgen05 p = cta.tcPending.front();
  cta.tcPending.erase(cta.tcPending.begin());
  IssueSite site(*this, cta, p.warp, static_cast<int>(p.lane), p.pc);
  if (p.commit) {
    for (unsigned r = 0; r < ctas.size(); ++r)
      if (p.targets >> r & 1)
        mbarArrive(ctas[r], p.mbar, 1, 0, "tcgen05.commit");
    return;
  }
  if (p.ctaGroup == 1) {
    tcgen05Mma(p.kind, 1, p.idesc, p.descA, p.descB, p.tmemD, p.enableInputD,
               cta.smem, nullptr, 0, *cta.tmem, p.disabled[0]);
    return;
  }
  CtaState &other = ctas[cta.rank ^ 1];
  if (!other.tmem)
    other.tmem = std::make_unique<TensorMemory>();
  CtaState &even = cta.rank % 2 == 0 ? cta : other;
  CtaState &odd = cta.rank % 2 == 0 ? other : cta;
  tcgen05Mma(p.kind, 2, p.idesc, p.descA, p.descB, p.tmemD, p.enableInputD,
             even.smem, &odd.smem, 0, *even.tmem, p.disabled[0]);
  tcgen05Mma(p.kind, 2, p.idesc, p.descA, p.descB, p.tmemD, p.enableInputD,
             odd.smem, &even.smem, 1, *odd.tmem, p.disabled[1]);
}

void ClusterRun::checkTcgen05Columns(const CtaState &cta, unsigned first,
                                     unsigned count, const char *what) const {
  for (const CtaState &issuer : ctas)
    for (const PendingTcgen05 &p : issuer.tcPending) {
      bool here = issuer.rank == cta.rank ||
                  (p.ctaGroup == 2 && (issuer.rank ^ 1) == cta.rank);
      unsigned column0 = p.tmemD & 0xffff;
      if (p.commit || !here || first >= column0 + p.columns ||
          column0 >= first + count)
        continue;
      throw SimFault(fmt::format(
          "race on tensor memory: {} of columns {}..{} while the "
          "tcgen05.mma issued at ptx:{} (CTA rank {} warp {} lane {}) still "
          "writes columns {}..{}; wait on the mbarrier of a tcgen05.commit "
          "issued after the MMA first",
          what, first, first + count - 1, fn.code[p.pc].line, issuer.rank,
          p.warp, p.lane, column0, column0 + p.columns - 1));
    }
}

} // namespace tilec::sim
