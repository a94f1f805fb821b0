//===- runtime/sim/PtxOperandShapes.cpp - Operand counts and kinds --------===//
//
// After an instruction's operands parse, its op says how many it takes and
// what the leading ones must be: an address in brackets, a `{ }` vector, a
// register. One table row per group of ops holds all three facts (count
// range, leading kinds, whether operand 1 is written), so the checks cannot
// drift apart as families are added.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/PtxOpcodes.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>

namespace tilec::sim {

namespace {

/// What one operand position must be.
enum class WantKind : std::uint8_t {
  Any,
  Reg,
  Vector,
  RegOrVector,
  Value,
  Address,
  Destination
};

/// Whether an operand of kind \p k is what \p w asks for.
bool accepts(WantKind w, OperandKind k) {
  using K = OperandKind;
  switch (w) {
  case WantKind::Any:
    return true;
  case WantKind::Reg:
    return k == K::Reg;
  case WantKind::Vector:
    return k == K::Vector;
  case WantKind::RegOrVector:
    return k == K::Reg || k == K::Vector;
  case WantKind::Value:
    return k == K::Reg || k == K::Vector || k == K::Imm;
  case WantKind::Address:
    return k == K::Address;
  case WantKind::Destination:
    return k == K::Reg || k == K::Vector || k == K::Sink;
  }
  return false;
}

const char *describe(WantKind w) {
  switch (w) {
  case WantKind::Any:
    return "anything";
  case WantKind::Reg:
    return "a register";
  case WantKind::Vector:
    return "a vector";
  case WantKind::RegOrVector:
    return "a register or a vector";
  case WantKind::Value:
    return "a value";
  case WantKind::Address:
    return "an address";
  case WantKind::Destination:
    return "a destination register";
  }
  return "?";
}

/// The operands of a group of ops.
struct OperandShape {
  std::vector<OpKind> ops;
  unsigned min, max;
  /// What the leading operands must be, in order.
  std::vector<WantKind> leading;
  /// Operand 1 is a destination (a register, a vector or `_`).
  bool writes = true;
};

const std::vector<OperandShape> &operandShapes() {
  using O = OpKind;
  using W = WantKind;
  const W A = W::Address, V = W::Vector, Any = W::Any;
  static const std::vector<OperandShape> table = {
      {{O::Abs, O::Neg, O::Not, O::Cnot, O::Popc, O::Clz, O::Brev, O::Rcp,
        O::Sqrt, O::Rsqrt, O::Ex2, O::Lg2, O::Tanh, O::Sin, O::Cos, O::Mov,
        O::Cvta, O::CvtaTo, O::ElectSync},
       2,
       2,
       {}},
      {{O::Cvt}, 2, 3, {}},
      {{O::Mad, O::MadHi, O::MadWide, O::Fma, O::Bfe, O::Prmt, O::Selp},
       4,
       4,
       {}},
      {{O::MmaSync}, 4, 4, {V, V, V, V}},
      {{O::Mapa, O::VoteSync}, 3, 3, {}},
      {{O::Bfi, O::ShflSync, O::Lop3}, 5, 5, {}},
      {{O::Setp}, 3, 4, {}},
      {{O::Activemask}, 1, 1, {}},
      {{O::Ld}, 2, 3, {W::RegOrVector, A}},
      {{O::St}, 2, 3, {A, W::Value}, false},
      {{O::Atom}, 3, 5, {W::Reg, A}},
      {{O::Red}, 2, 3, {A}, false},
      {{O::Prefetch, O::PrefetchTensormap, O::MbarInval}, 1, 1, {A}, false},
      {{O::CpAsyncMbarArrive}, 1, 1, {A}, false},
      {{O::ClcTryCancel}, 2, 2, {A, A}, false},
      {{O::ClcIsCanceled, O::ClcFirstCtaid}, 2, 2, {}},
      {{O::Bra, O::Ret}, 0, 0, {}, false},
      {{O::Exit, O::Trap, O::Nop, O::Fence, O::BarrierClusterArrive,
        O::BarrierClusterWait, O::GriddepLaunch, O::GriddepWait,
        O::CpAsyncCommit, O::CpAsyncWaitAll, O::WgmmaFence, O::WgmmaCommit,
        O::BulkCommit, O::TcRelinquish, O::TcWaitLd, O::TcWaitSt, O::TcFence},
       0,
       0,
       {}},
      {{O::BarSync}, 0, 2, {}, false},
      {{O::BarArrive}, 1, 2, {}, false},
      {{O::BarWarpSync}, 1, 1, {}, false},
      {{O::Setmaxnreg, O::CpAsyncWait, O::WgmmaWait, O::BulkWait},
       1,
       1,
       {},
       false},
      {{O::MbarInit, O::MbarExpectTx, O::TcAlloc, O::TcSt}, 2, 2, {A}, false},
      {{O::MbarArrive}, 2, 3, {Any, A}},
      {{O::MbarTryWait, O::MbarTestWait}, 3, 4, {Any, A}},
      {{O::CpAsync}, 3, 5, {A}, false},
      {{O::Ldmatrix, O::TcLd}, 2, 2, {Any, A}},
      {{O::Stmatrix}, 2, 2, {A, V}, false},
      {{O::WgmmaMma}, 5, 9, {V}},
      {{O::TmaLoad}, 3, 5, {A, A, A}, false},
      {{O::TmaStore}, 2, 2, {A, A}, false},
      {{O::TcDealloc}, 2, 2, {}, false},
      {{O::TcMma}, 5, 7, {A}, false},
      {{O::TcCommit}, 1, 2, {A}, false}};
  return table;
}

/// The row of \p op; ops without one take three operands, the first written.
OperandShape shapeOf(OpKind op) {
  for (const OperandShape &s : operandShapes())
    if (std::find(s.ops.begin(), s.ops.end(), op) != s.ops.end())
      return s;
  return {{op}, 3, 3, {}};
}

} // namespace

void validateOperands(const Instr &ins, std::string_view opcode,
                      std::string &error) {
  OperandShape shape = shapeOf(ins.op);
  std::size_t count = ins.ops.size();
  if (count < shape.min || count > shape.max) {
    error = shape.min == shape.max
                ? fmt::format("`{}` takes {} operands, not {}", opcode,
                              shape.min, count)
                : fmt::format("`{}` takes {} to {} operands, not {}", opcode,
                              shape.min, shape.max, count);
    return;
  }
  auto need = [&](std::size_t i, WantKind w) {
    if (error.empty() && i < count && !accepts(w, ins.ops[i].kind))
      error = fmt::format("operand {} of `{}` must be {}", i + 1, opcode,
                          describe(w));
  };
  for (std::size_t i = 0; i < shape.leading.size(); ++i)
    need(i, shape.leading[i]);
  if (shape.writes)
    need(0, WantKind::Destination);
}

} // namespace tilec::sim
