//===- runtime/sim/Tcgen05InstrDesc.cpp - tcgen05.mma instruction descriptor
//-===//
//
// The 32-bit instruction descriptor of tcgen05.mma for .kind::f16,
// .kind::tf32 and .kind::f8f6f4 (PTX ISA, "Instruction descriptor format"):
//   bits 0-1 sparsity selector, 2 sparsity, 3 saturate, 4-5 D type,
//   6 reserved, 7-9 A type, 10-12 B type, 13/14 negate A/B,
//   15/16 transpose A/B (MN-major), 17-22 N >> 3, 23 reserved,
//   24-28 M >> 4, 29 reserved, 30-31 maximum shift (.ws only).
// and the shapes of the ISA's "Various combinations of .kind and shapes"
// table for dense, non-.ws MMAs: cta_group::1 M = 64 or 128 with N a
// multiple of 8 in 8..256; cta_group::2 M = 128 or 256 with N a multiple of
// 16 in 16..256.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/SimFault.h"
#include "runtime/sim/Tcgen05.h"

#include <fmt/format.h>

namespace tilec::sim {

namespace {

const char *kindName(Tcgen05KindKind kind) {
  switch (kind) {
  case Tcgen05KindKind::F16:
    return "f16";
  case Tcgen05KindKind::TF32:
    return "tf32";
  case Tcgen05KindKind::F8F6F4:
    return "f8f6f4";
  }
  return "?";
}

unsigned bitsOf(std::uint32_t d, unsigned lo, unsigned n) {
  return (d >> lo) & ((1u << n) - 1);
}

} // namespace

std::string Tcgen05InstrDesc::describe() const {
  return fmt::format("m{} n{} d {} a {}{} b {}{}{}{}", m, n, elemName(d),
                     elemName(a), aMnMajor ? " (MN-major)" : "", elemName(b),
                     bMnMajor ? " (MN-major)" : "", negateA ? " -A" : "",
                     negateB ? " -B" : "");
}

Tcgen05InstrDesc decodeTcgen05InstrDesc(std::uint32_t idesc,
                                        Tcgen05KindKind kind,
                                        unsigned ctaGroup) {
  auto bad = [&](const std::string &why) {
    throw SimFault(fmt::format("tcgen05.mma.cta_group::{}.kind::{} instruction "
                               "descriptor 0x{:08x}: {}",
                               ctaGroup, kindName(kind), idesc, why));
  };
  if (ctaGroup != 1 && ctaGroup != 2)
    bad(fmt::format("cta_group::{} is not 1 or 2", ctaGroup));
  Tcgen05InstrDesc out;
  out.sparse = bitsOf(idesc, 2, 1);
  if (out.sparse)
    bad("sparse MMAs (bit 2) are not modelled by the simulator");
  out.saturate = bitsOf(idesc, 3, 1);
  if (out.saturate)
    bad("saturate (bit 3) applies to .kind::i8 only and must be 0");
  if (bitsOf(idesc, 6, 1) || bitsOf(idesc, 23, 1) || bitsOf(idesc, 29, 1))
    bad("reserved bits 6, 23 and 29 must be 0");
  out.maxShift = bitsOf(idesc, 30, 2);
  if (out.maxShift)
    bad(fmt::format("maximum shift (bits 30-31) = {} is for .ws only and must "
                    "be 0",
                    out.maxShift));
  unsigned dt = bitsOf(idesc, 4, 2), at = bitsOf(idesc, 7, 3),
           bt = bitsOf(idesc, 10, 3);
  switch (kind) {
  case Tcgen05KindKind::F16: {
    if (dt != 0 && dt != 1)
      bad(fmt::format("D type (bits 4-5) = {}; legal: 0 f16, 1 f32", dt));
    out.d = dt ? ElemKind::F32 : ElemKind::F16;
    if (at > 1 || bt > 1)
      bad(fmt::format("A/B types (bits 7-9 / 10-12) = {} / {}; legal: 0 f16, "
                      "1 bf16",
                      at, bt));
    if (at != bt)
      bad("A and B must both be f16 or both be bf16");
    out.a = out.b = at ? ElemKind::BF16 : ElemKind::F16;
    if (out.d == ElemKind::F16 && out.a == ElemKind::BF16)
      bad("an f16 D needs f16 inputs (bf16 inputs need an f32 D)");
    break;
  }
  case Tcgen05KindKind::TF32:
    if (dt != 1)
      bad(fmt::format("D type (bits 4-5) = {}; legal: 1 f32", dt));
    if (at != 2 || bt != 2)
      bad(fmt::format("A/B types (bits 7-9 / 10-12) = {} / {}; legal: 2 tf32",
                      at, bt));
    out.d = ElemKind::F32;
    out.a = out.b = ElemKind::TF32;
    break;
  case Tcgen05KindKind::F8F6F4: {
    if (dt != 1)
      bad(fmt::format("D type (bits 4-5) = {}; legal: 1 f32", dt));
    out.d = ElemKind::F32;
    auto type = [&](unsigned v, const char *which) {
      if (v == 0)
        return ElemKind::E4M3;
      if (v == 1)
        return ElemKind::E5M2;
      if (v >= 3 && v <= 5)
        bad(fmt::format("{} type {} (a 6- or 4-bit format) is not modelled "
                        "by the simulator",
                        which, v));
      bad(fmt::format("{} type = {}; legal: 0 e4m3, 1 e5m2, 3 e2m3, 4 e3m2, "
                      "5 e2m1",
                      which, v));
      return ElemKind::E4M3;
    };
    out.a = type(at, "A");
    out.b = type(bt, "B");
    break;
  }
  }
  out.negateA = bitsOf(idesc, 13, 1);
  out.negateB = bitsOf(idesc, 14, 1);
  out.aMnMajor = bitsOf(idesc, 15, 1);
  out.bMnMajor = bitsOf(idesc, 16, 1);
  out.n = bitsOf(idesc, 17, 6) << 3;
  out.m = bitsOf(idesc, 24, 5) << 4;
  if (ctaGroup == 1) {
    if (out.m != 64 && out.m != 128)
      bad(fmt::format("M = {} (bits 24-28 = {}); cta_group::1 takes 64 or 128",
                      out.m, out.m >> 4));
    if (out.n < 8 || out.n > 256)
      bad(fmt::format("N = {} (bits 17-22 = {}); cta_group::1 takes 8..256 in "
                      "steps of 8",
                      out.n, out.n >> 3));
  } else {
    if (out.m != 128 && out.m != 256)
      bad(fmt::format("M = {} (bits 24-28 = {}); cta_group::2 takes 128 or 256",
                      out.m, out.m >> 4));
    if (out.n < 16 || out.n > 256 || out.n % 16)
      bad(fmt::format("N = {} (bits 17-22 = {}); cta_group::2 takes 16..256 "
                      "in steps of 16",
                      out.n, out.n >> 3));
  }
  return out;
}

} // namespace tilec::sim
