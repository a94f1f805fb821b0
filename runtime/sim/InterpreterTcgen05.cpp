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
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/Interpreter.h"

#include "runtime/sim/SimFault.h"

#include <fmt/format.h>

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

} // namespace

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
    if (dst >= SharedGenericBase)
      dst -= SharedGenericBase;
    cta.smem.write(static_cast<std::uint32_t>(dst), &addr, 4,
                   "tcgen05.alloc result");
    return;
  }
  case OpKind::TcDealloc: {
    std::uint32_t addr = static_cast<std::uint32_t>(get(w, ops[0], lane0));
    unsigned cols = static_cast<unsigned>(get(w, ops[1], lane0));
    checkTcgen05Columns(cta, addr & 0xffff, cols, "tcgen05.dealloc");
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
      p.enableInputD = get(w, ops[4], l) != 0;
      // The descriptor's faults belong to the issue.
      {
        // The columns the MMA writes: N, or N / 2 in data path layout B
        // (cta_group::2 M = 128, PTX ISA 9.7.16.10.5).
        Tcgen05InstrDesc id =
            decodeTcgen05InstrDesc(p.idesc, p.kind, p.ctaGroup);
        p.columns = p.ctaGroup == 2 && id.m == 128 ? id.n / 2 : id.n;
      }
      if (p.ctaGroup == 2 && (cta.rank ^ 1) >= ctas.size())
        throw SimFault(fmt::format("tcgen05.mma.cta_group::2 in CTA rank {} "
                                   "of a cluster of {}: no peer CTA",
                                   cta.rank, ctas.size()));
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
      // The registers hold the data only once a tcgen05.wait::ld has
      // retired the load: until then any use of them is reported.
      for (unsigned r = 0; r < regs; ++r) {
        const Operand &e = ins.elems[vec.elemBegin + r];
        if (e.kind == OperandKind::Reg && !w.ldInflight[e.reg]) {
          w.ldInflight[e.reg] = 1;
          w.ldInflightSlots.push_back(e.reg);
          ++w.inflightCount;
        }
      }
    } else {
      for (unsigned l = 0; l < 32; ++l)
        for (unsigned r = 0; r < regs; ++r)
          buf[l * regs + r] = static_cast<std::uint32_t>(
              get(w, ins.elems[vec.elemBegin + r], l));
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
    clusterSmem(cta, a, p.mbar, rank);
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
               cta.smem, nullptr, 0, *cta.tmem);
    return;
  }
  CtaState &other = ctas[cta.rank ^ 1];
  if (!other.tmem)
    other.tmem = std::make_unique<TensorMemory>();
  CtaState &even = cta.rank % 2 == 0 ? cta : other;
  CtaState &odd = cta.rank % 2 == 0 ? other : cta;
  tcgen05Mma(p.kind, 2, p.idesc, p.descA, p.descB, p.tmemD, p.enableInputD,
             even.smem, &odd.smem, 0, *even.tmem);
  tcgen05Mma(p.kind, 2, p.idesc, p.descA, p.descB, p.tmemD, p.enableInputD,
             odd.smem, &even.smem, 1, *odd.tmem);
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
