//===- runtime/sim/InterpreterMemory.cpp - Addresses, loads and stores ---===//
//
// The state spaces as the interpreter sees them: generic addresses resolved
// through their windows (shared, param, local) or as global device
// addresses, shared::cluster addresses of other CTAs, checked loads and
// stores of every space (a shared store also checked against the sources of
// TMA stores in flight), the generic-proxy write tracking that the TMA
// store's fence check reads, and the shared-memory bank-conflict count of
// the profile.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/Interpreter.h"

#include "runtime/sim/SimFault.h"

#include <fmt/format.h>

#include <cstring>

namespace tilec::sim {

std::uint64_t ClusterRun::address(const WarpState &w, const Operand &o,
                                  unsigned lane) const {
  std::uint64_t a = static_cast<std::uint64_t>(o.imm);
  if (o.sharedSymbol)
    a = clusterAddress(ctas[w.cta].rank, a);
  if (o.hasBase)
    a += w.regs[o.reg * 32 + lane];
  return a;
}

SharedMemory &ClusterRun::clusterSmem(std::uint64_t addr, std::uint32_t &offset,
                                      unsigned &rank) {
  std::uint64_t hi = addr >> ClusterRankShift;
  if (addr >= WindowSize || hi >= ctas.size())
    throw SimFault(fmt::format("shared::cluster address 0x{:x} names CTA "
                               "rank {}, not one of the cluster's {}",
                               addr, hi, ctas.size()));
  rank = static_cast<unsigned>(hi);
  offset = static_cast<std::uint32_t>(addr & ClusterOffsetMask);
  return ctas[rank].smem;
}

std::uint32_t ClusterRun::ctaOffset(const CtaState &cta,
                                    std::uint64_t addr) const {
  std::uint64_t hi = addr >> ClusterRankShift;
  if (hi != 0 && hi != cta.rank)
    throw SimFault(fmt::format("shared::cta address 0x{:x} in CTA rank {} "
                               "names {}; another CTA's shared memory needs "
                               "a shared::cluster access",
                               addr, cta.rank,
                               addr >= WindowSize
                                   ? std::string("no CTA")
                                   : fmt::format("CTA rank {}", hi)));
  return static_cast<std::uint32_t>(addr & ClusterOffsetMask);
}

void ClusterRun::markGenericWrite(CtaState &cta, unsigned thread,
                                  std::uint32_t addr, unsigned bytes) {
  if (cta.writer.empty())
    return;
  for (unsigned i = 0; i < bytes && addr + i < cta.writer.size(); ++i) {
    cta.writer[addr + i] = static_cast<std::uint16_t>(thread + 1);
    cta.writerEpoch[addr + i] = cta.fenceEpoch[thread];
  }
}

namespace {

/// A generic address becomes the state space whose window holds it (local,
/// param, shared::cluster) and its offset there; anything else is global.
/// Other spaces are left as they are.
void resolveGeneric(SpaceKind &space, std::uint64_t &addr) {
  if (space != SpaceKind::Generic)
    return;
  for (auto [base, window] : {std::pair{LocalGenericBase, SpaceKind::Local},
                              {ParamGenericBase, SpaceKind::Param},
                              {SharedGenericBase, SpaceKind::SharedCluster}})
    if (addr >= base && addr < base + WindowSize) {
      space = window;
      addr -= base;
      return;
    }
  space = SpaceKind::Global;
}

void checkSharedBounds(const CtaState &cta, std::uint64_t addr, unsigned bytes,
                       const char *what) {
  if (addr + bytes > cta.smem.size())
    throw SimFault(fmt::format("{} of {} bytes at shared 0x{:x} is outside "
                               "the CTA's {} bytes of shared memory",
                               what, bytes, addr, cta.smem.size()));
}

} // namespace

void ClusterRun::load(CtaState &cta, WarpState &w, unsigned lane,
                      SpaceKind space, std::uint64_t addr, void *dst,
                      unsigned bytes, const char *what) {
  resolveGeneric(space, addr);
  switch (space) {
  case SpaceKind::Global:
    GlobalMemory::instance().read(addr, dst, bytes);
    return;
  case SpaceKind::Shared:
    addr = ctaOffset(cta, addr);
    checkSharedBounds(cta, addr, bytes, what);
    cta.smem.read(static_cast<std::uint32_t>(addr), dst, bytes, what);
    return;
  case SpaceKind::SharedCluster: {
    std::uint32_t off;
    unsigned rank;
    SharedMemory &s = clusterSmem(addr, off, rank);
    s.read(off, dst, bytes, what);
    return;
  }
  case SpaceKind::Param:
    if (addr + bytes > param.size())
      throw SimFault(fmt::format("{} of {} bytes at param offset {} is past "
                                 "the {} bytes of kernel parameters",
                                 what, bytes, addr, param.size()));
    std::memcpy(dst, param.data() + addr, bytes);
    return;
  case SpaceKind::Local:
    if (addr + bytes > fn.localBytes)
      throw SimFault(fmt::format("{} of {} bytes at local offset {} is past "
                                 "the {} bytes of local memory",
                                 what, bytes, addr, fn.localBytes));
    std::memcpy(dst, w.local.data() + lane * fn.localBytes + addr, bytes);
    return;
  default:
    throw SimFault(fmt::format("{}: state space not modelled", what));
  }
}

void ClusterRun::store(CtaState &cta, WarpState &w, unsigned lane,
                       SpaceKind space, std::uint64_t addr, const void *src,
                       unsigned bytes, const char *what) {
  resolveGeneric(space, addr);
  if (space == SpaceKind::Param)
    throw SimFault(fmt::format("{} to the kernel parameters (generic "
                               "address 0x{:x}) is illegal",
                               what, addr + ParamGenericBase));
  switch (space) {
  case SpaceKind::Global:
    GlobalMemory::instance().write(addr, src, bytes);
    return;
  case SpaceKind::Shared:
    addr = ctaOffset(cta, addr);
    checkSharedBounds(cta, addr, bytes, what);
    checkBulkSourceWrite(cta, static_cast<std::uint32_t>(addr), bytes,
                         "the store");
    cta.smem.write(static_cast<std::uint32_t>(addr), src, bytes, what);
    markGenericWrite(cta, w.index * 32 + lane, static_cast<std::uint32_t>(addr),
                     bytes);
    return;
  case SpaceKind::SharedCluster: {
    std::uint32_t off;
    unsigned rank;
    SharedMemory &s = clusterSmem(addr, off, rank);
    checkBulkSourceWrite(ctas[rank], off, bytes, "the store");
    s.write(off, src, bytes, what);
    if (rank == cta.rank)
      markGenericWrite(cta, w.index * 32 + lane, off, bytes);
    return;
  }
  case SpaceKind::Local:
    if (addr + bytes > fn.localBytes)
      throw SimFault(fmt::format("{} of {} bytes at local offset {} is past "
                                 "the {} bytes of local memory",
                                 what, bytes, addr, fn.localBytes));
    std::memcpy(w.local.data() + lane * fn.localBytes + addr, src, bytes);
    return;
  default:
    throw SimFault(fmt::format("{}: state space not writable", what));
  }
}

void ClusterRun::checkInflight(const WarpState &w, const Instr &ins) const {
  switch (ins.op) {
  case OpKind::WgmmaMma:
  case OpKind::WgmmaFence:
  case OpKind::WgmmaCommit:
  case OpKind::WgmmaWait:
    return;
  default:
    break;
  }
  auto check = [&](const Operand &o) {
    std::uint32_t r;
    if (o.kind == OperandKind::Reg)
      r = o.reg;
    else if (o.kind == OperandKind::Address && o.hasBase)
      r = o.reg;
    else
      return;
    if (w.inflight[r])
      throw SimFault(fmt::format(
          "register {} is the accumulator or an A register of a "
          "wgmma.mma_async that no wgmma.wait_group has retired yet",
          fn.slotNames[r]));
  };
  for (const Operand &o : ins.ops)
    check(o);
  for (const Operand &o : ins.elems)
    check(o);
  if (ins.hasGuard && w.inflight[ins.guard])
    check(Operand{OperandKind::Reg, false, false, SpecialRegKind::TidX,
                  ins.guard});
}

void ClusterRun::requireFullWarp(const WarpState &w, std::uint32_t active,
                                 const Instr &ins, bool allLanes) const {
  std::uint32_t need = allLanes ? 0xffffffffu : w.liveMask;
  if (active != need)
    throw SimFault(fmt::format(
        "partial warp (mask 0x{:08x}, live 0x{:08x}) executes `{}`, which the "
        "whole warp must execute together",
        active, w.liveMask, fn.texts[ins.textId]));
}

void ClusterRun::countShared(const Instr &ins, std::uint32_t pc,
                             const std::array<std::uint32_t, 32> &addrs,
                             std::uint32_t mask, unsigned bytes,
                             unsigned lanesPerPhase) {
  (void)ins;
  if (!profile || mask == 0)
    return;
  InstrCounters &c = (*profile)[pc];
  c.sharedAccesses += 1;
  std::uint64_t wavefronts = 0, ideal = 0;
  for (unsigned phase = 0; phase < 32; phase += lanesPerPhase) {
    // Distinct words per bank in this phase.
    std::uint32_t words[32][8];
    unsigned counts[32] = {};
    unsigned maxCount = 0, lanes = 0;
    for (unsigned l = phase; l < phase + lanesPerPhase && l < 32; ++l) {
      if (!(mask >> l & 1))
        continue;
      ++lanes;
      for (unsigned b = 0; b < std::max(4u, bytes); b += 4) {
        std::uint32_t word = (addrs[l] + b) / 4;
        unsigned bank = word % 32;
        bool seen = false;
        for (unsigned i = 0; i < counts[bank] && i < 8; ++i)
          if (words[bank][i] == word)
            seen = true;
        if (!seen) {
          if (counts[bank] < 8)
            words[bank][counts[bank]] = word;
          ++counts[bank];
          maxCount = std::max(maxCount, counts[bank]);
        }
      }
    }
    if (lanes) {
      wavefronts += maxCount;
      ideal += 1;
    }
  }
  c.sharedWavefronts += wavefronts;
  c.idealWavefronts += ideal;
}

} // namespace tilec::sim
