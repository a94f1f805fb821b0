//===- runtime/sim/PtxTensorOpcodes.cpp - Async copy and MMA opcodes ------===//
//
// The decoders of the families that feed and drive the tensor cores:
// mbarrier, cp.async (including the bulk and TMA tensor copies),
// ldmatrix/stmatrix, mma.sync, wgmma and tcgen05. Each names the forms the
// simulator models and rejects the rest with the modifier at fault.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/PtxDecoder.h"
#include "runtime/sim/PtxText.h"

#include <fmt/format.h>

#include <cctype>

namespace tilec::sim::ptxdecode {

bool Decoder::decodeMbarrier(const Mods &m) {
  std::string_view what = parts.size() > 1 ? parts[1] : "";
  ins.space = m.space.value_or(SpaceKind::Shared);
  if (std::optional<OpKind> op =
          findOp(what, {{"init", OpKind::MbarInit},
                        {"inval", OpKind::MbarInval},
                        {"expect_tx", OpKind::MbarExpectTx}}))
    return simple(*op, m, {what});
  if (what == "arrive" || what == "arrive_drop") {
    ins.flag = m.has("expect_tx");
    ins.flag2 = what == "arrive_drop";
    return simple(OpKind::MbarArrive, m,
                  {"arrive", "arrive_drop", "expect_tx", "noComplete"});
  }
  if (what == "try_wait" || what == "test_wait") {
    ins.flag = m.has("parity");
    return simple(what == "try_wait" ? OpKind::MbarTryWait
                                     : OpKind::MbarTestWait,
                  m, {"try_wait", "test_wait", "parity"});
  }
  return unknown();
}

bool Decoder::decodeCpAsync() {
  // cp.async.{ca,cg}.shared.global, cp.async.commit_group,
  // cp.async.wait_group, cp.async.wait_all, cp.async.bulk.*
  std::string_view p2 = parts.size() > 2 ? parts[2] : "";
  if (p2 == "commit_group" || p2 == "wait_group") {
    ins.op = p2 == "commit_group" ? OpKind::CpAsyncCommit : OpKind::CpAsyncWait;
    return parts.size() == 3 || bad(fmt::format("bad `{}`", opcode));
  }
  if (p2 == "mbarrier") {
    // cp.async.mbarrier.arrive[.noinc][.shared{::cta}].b64
    ins.op = OpKind::CpAsyncMbarArrive;
    bool arrive = false;
    for (std::size_t i = 3; i < parts.size(); ++i) {
      std::string_view p = parts[i];
      if (p == "arrive")
        arrive = true;
      else if (p == "noinc")
        ins.flag = true;
      else if (p != "shared" && p != "shared::cta" && p != "b64")
        return bad(fmt::format("`{}`: unknown modifier .{}", opcode, p));
    }
    return arrive || bad(fmt::format("bad `{}`", opcode));
  }
  if (p2 == "wait_all") {
    ins.op = OpKind::CpAsyncWaitAll;
    return true;
  }
  if (p2 == "ca" || p2 == "cg") {
    ins.op = OpKind::CpAsync;
    Mods m = splitMods(parts, 3);
    if (!only(m, {}))
      return false;
    if (m.space != SpaceKind::Shared || m.space2 != SpaceKind::Global)
      return bad(
          fmt::format("`{}`: only shared <- global is modelled", opcode));
    return true;
  }
  if (p2 != "bulk")
    return unknown();
  std::string_view p3 = parts.size() > 3 ? parts[3] : "";
  if (p3 == "commit_group") {
    ins.op = OpKind::BulkCommit;
    return parts.size() == 4 || bad(fmt::format("bad `{}`", opcode));
  }
  if (p3 == "wait_group") {
    ins.op = OpKind::BulkWait;
    ins.flag = parts.size() > 4 && parts[4] == "read";
    return parts.size() <= 5 || bad(fmt::format("bad `{}`", opcode));
  }
  if (p3 != "tensor")
    return unknown();
  std::string_view dim = parts.size() > 4 ? parts[4] : "";
  if (dim.size() != 2 || dim[1] != 'd' || dim[0] < '1' || dim[0] > '5')
    return bad(fmt::format("`{}`: bad dimension", opcode));
  ins.a = dim[0] - '0';
  Mods m = splitMods(parts, 5);
  if (m.space == SpaceKind::Global && (m.space2 == SpaceKind::Shared))
    return simple(OpKind::TmaStore, m, {"bulk_group", "tile"});
  if ((m.space == SpaceKind::SharedCluster || m.space == SpaceKind::Shared) &&
      m.space2 == SpaceKind::Global) {
    ins.op = OpKind::TmaLoad;
    ins.flag = m.has("multicast::cluster");
    // .cta_group::2: the mbarrier may be the peer CTA's (TmaUnit.h).
    ins.b = m.has("cta_group::2") ? 2 : 1;
    if (!m.has("mbarrier::complete_tx::bytes"))
      return bad(fmt::format("`{}`: only the mbarrier::complete_tx form "
                             "is modelled",
                             opcode));
    return only(m, {"mbarrier::complete_tx::bytes", "multicast::cluster",
                    "tile", "cta_group::2"});
  }
  return bad(fmt::format("`{}`: unsupported direction", opcode));
}

bool Decoder::decodeMatrix(std::string_view base, const Mods &m) {
  ins.op = base == "ldmatrix" ? OpKind::Ldmatrix : OpKind::Stmatrix;
  ins.trans = m.has("trans");
  ins.space = m.space.value_or(SpaceKind::Generic);
  ins.a = 0;
  for (std::string_view w : m.words)
    if (w == "x1" || w == "x2" || w == "x4")
      ins.a = w[1] - '0';
  if (!m.has("m8n8") || ins.a == 0 || m.types.size() != 1 ||
      m.types[0] != PtxType::B16)
    return bad(fmt::format("`{}`: only .m8n8.x1/x2/x4[.trans].b16 is "
                           "modelled",
                           opcode));
  if (ins.space != SpaceKind::Shared)
    return bad(fmt::format("`{}`: only the .shared form is modelled", opcode));
  return only(m, {"m8n8", "x1", "x2", "x4", "trans"});
}

bool Decoder::decodeMma(const Mods &m) {
  // mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
  ins.op = OpKind::MmaSync;
  bool shape = false;
  for (std::string_view w : m.words)
    if (parseShape(w, ins.a, ins.b, ins.c))
      shape = true;
  if (!shape || !m.has("row") || !m.has("col") || m.types.size() != 4)
    return bad(fmt::format("`{}`: only mma.sync.aligned.mMnNkK.row.col with "
                           "four types is modelled",
                           opcode));
  ins.typeD = m.types[0];
  ins.typeA = m.types[1];
  ins.typeB = m.types[2];
  ins.typeC = m.types[3];
  for (std::string_view w : m.words)
    if (w != "row" && w != "col" && w.substr(0, 1) != "m")
      return badModifier(w);
  return true;
}

bool Decoder::decodeWgmma(const Mods &m) {
  std::string_view what = parts.size() > 1 ? parts[1] : "";
  if (std::optional<OpKind> op =
          findOp(what, {{"fence", OpKind::WgmmaFence},
                        {"commit_group", OpKind::WgmmaCommit},
                        {"wait_group", OpKind::WgmmaWait}}))
    return simple(*op, m, {what});
  if (what != "mma_async")
    return unknown();
  ins.op = OpKind::WgmmaMma;
  bool shape = false;
  for (std::string_view w : m.words)
    if (w != "mma_async") {
      if (!parseShape(w, ins.a, ins.b, ins.c))
        return badModifier(w);
      shape = true;
    }
  if (!shape || m.types.size() != 3)
    return bad(fmt::format("`{}`: needs a shape and three types", opcode));
  ins.typeD = m.types[0];
  ins.typeA = m.types[1];
  ins.typeB = m.types[2];
  return true;
}

bool Decoder::decodeTcgen05() {
  std::string_view what = parts.size() > 1 ? parts[1] : "";
  Mods m = splitMods(parts, 2);
  ins.b = 1; // cta group
  if (m.take({"cta_group::2"}) >= 0)
    ins.b = 2;
  if (std::optional<OpKind> op =
          findOp(what, {{"alloc", OpKind::TcAlloc},
                        {"dealloc", OpKind::TcDealloc},
                        {"relinquish_alloc_permit", OpKind::TcRelinquish},
                        {"wait::ld", OpKind::TcWaitLd},
                        {"wait::st", OpKind::TcWaitSt},
                        {"fence::before_thread_sync", OpKind::TcFence},
                        {"fence::after_thread_sync", OpKind::TcFence}}))
    return simple(*op, m, {});
  if (what == "mma") {
    ins.op = OpKind::TcMma;
    int kind = m.take({"kind::f16", "kind::tf32", "kind::f8f6f4"});
    if (kind >= 0)
      ins.a = kind;
    if (!m.words.empty())
      return badModifier(m.words.front());
    if (kind < 0)
      return bad(fmt::format("`{}` without .kind", opcode));
    return true;
  }
  if (what == "commit") {
    ins.flag = m.has("multicast::cluster");
    return simple(OpKind::TcCommit, m,
                  {"mbarrier::arrive::one", "multicast::cluster"});
  }
  if (what == "ld" || what == "st") {
    ins.op = what == "ld" ? OpKind::TcLd : OpKind::TcSt;
    ins.a = m.take({"32x32b", "16x64b", "16x128b", "16x256b"});
    for (std::string_view w : m.words) {
      // .x1 .. .x128: at most 3 digits.
      if (w.size() > 1 && w.size() <= 4 && w[0] == 'x' &&
          std::all_of(w.begin() + 1, w.end(),
                      [](char c) { return std::isdigit(c); }))
        ins.c = static_cast<int>(*parseInt(w.substr(1)));
      else
        return badModifier(w);
    }
    if (ins.a < 0 || ins.c == 0)
      return bad(fmt::format("`{}` needs a shape and .xN", opcode));
    return true;
  }
  return unknown();
}

} // namespace tilec::sim::ptxdecode
