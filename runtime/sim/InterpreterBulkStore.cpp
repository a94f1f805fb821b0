//===- runtime/sim/InterpreterBulkStore.cpp - TMA stores and bulk groups --===//
//
// cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group is asynchronous:
// the TMA unit reads the shared source and writes global memory at some
// point after the issue. The issuing thread commits its bulk operations
// into bulk groups (cp.async.bulk.commit_group) and waits for them with
// cp.async.bulk.wait_group.read N (the source reads of all but the N most
// recent groups are done: the shared memory may be reused) or
// cp.async.bulk.wait_group N (the global writes are done too). Groups are
// per thread, as the PTX ISA defines them.
//
// The interpreter keeps each store until it is retired and performs its two
// halves as late as it may: the read at the wait_group{.read} that retires
// it, the write at the wait_group that retires it, both at the end of the
// cluster for what no wait retired (a grid's outstanding bulk stores
// complete when it ends). So a missing wait_group.read shows as a read of
// the overwritten source, a missing wait_group as stale global memory. With
// a seed the read, then the write, happen at random scheduling points in
// between. Independently of when the read happens, any write into the source
// of a store whose read no wait has retired is reported as a race, and a
// missing fence.proxy.async between generic-proxy writes of the source and
// the store is reported at the issue.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/Interpreter.h"

#include "runtime/sim/SimFault.h"

#include <fmt/format.h>

#include <algorithm>

namespace tilec::sim {

namespace {

/// Drops the stores whose read was retired and whose write was done.
void dropFinished(CtaState &cta) {
  std::erase_if(cta.bulkStores, [](const PendingBulkStore &s) {
    return s.readRetired && s.written;
  });
}

} // namespace

void ClusterRun::issueBulkStore(CtaState &cta, WarpState &w, unsigned lane,
                                const SimTensorMap &map,
                                const std::array<std::int32_t, 5> &coords,
                                std::uint64_t src) {
  if (src >= cta.smem.size())
    throw SimFault(fmt::format("TMA store from shared 0x{:x}, outside "
                               "the {} bytes of shared memory",
                               src, cta.smem.size()));
  std::uint32_t bytes = map.boxBytes();
  for (std::uint32_t i = 0; i < bytes && src + i < cta.writer.size(); ++i) {
    std::uint16_t t = cta.writer[src + i];
    if (t && cta.writerEpoch[src + i] == cta.fenceEpoch[t - 1])
      throw SimFault(fmt::format(
          "missing fence.proxy.async before the TMA store: shared byte "
          "0x{:x} of its source box was written by thread {} (warp {} "
          "lane {}) with a generic-proxy store after that thread's last "
          "fence.proxy.async",
          src + i, t - 1, (t - 1) / 32, (t - 1) % 32));
  }
  PendingBulkStore s;
  s.map = map;
  s.coords = coords;
  s.src = static_cast<std::uint32_t>(src);
  // A swizzle permutes 16-byte chunks inside 128-byte rows.
  s.bytes = map.swizzle == CU_TENSOR_MAP_SWIZZLE_NONE
                ? bytes
                : (bytes + 127) / 128 * 128;
  s.warp = w.index;
  s.lane = lane;
  s.group = w.bulkCommitted[lane];
  s.pc = curPc;
  cta.bulkStores.push_back(std::move(s));
}

void ClusterRun::execBulkGroup(CtaState &cta, WarpState &w, const Instr &ins,
                               std::uint32_t mask) {
  if (ins.op == OpKind::BulkCommit) {
    forLanes(mask, [&](unsigned l) { ++w.bulkCommitted[l]; });
    return;
  }
  bool readOnly = ins.flag;
  forLanes(mask, [&](unsigned l) {
    curLane = static_cast<int>(l);
    std::uint64_t keep = get(w, ins.ops[0], l);
    for (PendingBulkStore &s : cta.bulkStores) {
      if (s.warp != w.index || s.lane != l ||
          s.group + keep >= w.bulkCommitted[l])
        continue;
      progressBulkStore(cta, s, !readOnly);
      s.readRetired = true;
    }
  });
  dropFinished(cta);
}

void ClusterRun::progressBulkStore(CtaState &cta, PendingBulkStore &s,
                                   bool write) {
  IssueSite site(*this, cta, s.warp, static_cast<int>(s.lane), s.pc);
  if (!s.read) {
    s.box = tmaStoreRead(s.map, cta.smem, s.src);
    s.read = true;
  }
  if (write && !s.written) {
    tmaStoreWrite(s.map, s.coords, s.box, GlobalMemory::instance());
    s.written = true;
    s.box = {};
  }
}

void ClusterRun::randomBulkProgress() {
  for (CtaState &c : ctas) {
    // Each hit does the next half: the read, then the write.
    for (PendingBulkStore &s : c.bulkStores)
      if (!s.written && rng() % 3 == 0)
        progressBulkStore(c, s, s.read);
    dropFinished(c);
  }
}

void ClusterRun::finishBulkStores() {
  for (CtaState &c : ctas) {
    for (PendingBulkStore &s : c.bulkStores)
      progressBulkStore(c, s, true);
    c.bulkStores.clear();
  }
}

void ClusterRun::checkBulkSourceWrite(const CtaState &target,
                                      std::uint32_t addr, std::uint32_t bytes,
                                      std::string_view what) const {
  for (const PendingBulkStore &s : target.bulkStores) {
    if (s.readRetired || addr >= s.src + s.bytes || s.src >= addr + bytes)
      continue;
    throw SimFault(fmt::format(
        "race on a TMA store's source: {} writes shared 0x{:x}..0x{:x} of "
        "CTA rank {}, inside the source box (shared 0x{:x}..0x{:x}) of the "
        "TMA store issued by warp {} lane {} at ptx:{}, before a "
        "cp.async.bulk.wait_group.read of that thread retired it (the store "
        "may still be reading it)",
        what, addr, addr + bytes - 1, target.rank, s.src, s.src + s.bytes - 1,
        s.warp, s.lane, fn.code[s.pc].line));
  }
}

} // namespace tilec::sim
