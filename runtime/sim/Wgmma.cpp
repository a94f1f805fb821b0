//===- runtime/sim/Wgmma.cpp - wgmma.mma_async of one warp's rows ---------===//
//
// Legal shapes (PTX ISA, "Matrix Shape" of wgmma): m64nNk16 for f16/bf16,
// m64nNk8 for tf32, m64nNk32 for e4m3/e5m2, N a multiple of 8 up to 256; D
// is f32, or f16 for f16 and 8-bit float inputs. Only f16/bf16 operands may
// be MN-major (imm-trans-a/b); an A from registers is K-major by definition.
//
// The accumulator fragment (ISA figure "WGMMA .m64nNk16 register fragment
// layout for accumulator matrix D"): with g = lane / 4 and t = lane % 4,
// warp w's f32 register i holds row 16 w + g + 8 ((i % 4) / 2), column
// 8 (i / 4) + 2 t + (i % 2); an f16 register i holds row 16 w + g + 8 (i % 2),
// columns 8 (i / 2) + 2 t and + 1 (low half first). The RS form's A
// registers are the mma.sync A fragment of the warp's 16 rows.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/Wgmma.h"
#include "runtime/sim/SimFault.h"
#include "runtime/sim/SmemMatrixDescriptor.h"

#include <fmt/format.h>

#include <vector>

namespace tilec::sim {

namespace {

bool isF8(ElemKind k) { return k == ElemKind::E4M3 || k == ElemKind::E5M2; }

void checkShape(const WgmmaShape &s) {
  auto bad = [&](const std::string &why) {
    throw SimFault(fmt::format("wgmma.mma_async.m{}n{}k{}.{}.{}.{} is not "
                               "legal: {}",
                               s.m, s.n, s.k, elemName(s.d), elemName(s.a),
                               elemName(s.b), why));
  };
  if (s.m != 64)
    bad("M must be 64");
  if (s.n < 8 || s.n > 256 || s.n % 8)
    bad(fmt::format("N = {} must be a multiple of 8 in 8..256", s.n));
  int wantK;
  if (s.a == ElemKind::F16 || s.a == ElemKind::BF16) {
    if (s.b != s.a)
      bad("A and B must have the same 16-bit type");
    wantK = 16;
    if (s.d != ElemKind::F32 && !(s.d == ElemKind::F16 && s.a == ElemKind::F16))
      bad("D must be f32 (or f16 for f16 inputs)");
  } else if (s.a == ElemKind::TF32) {
    if (s.b != ElemKind::TF32)
      bad("tf32 A needs tf32 B");
    wantK = 8;
    if (s.d != ElemKind::F32)
      bad("D must be f32 for tf32 inputs");
  } else if (isF8(s.a)) {
    if (!isF8(s.b))
      bad("an e4m3/e5m2 A needs an e4m3/e5m2 B");
    wantK = 32;
    if (s.d != ElemKind::F32 && s.d != ElemKind::F16)
      bad("D must be f32 or f16 for 8-bit float inputs");
  } else {
    bad("the input type is not modelled");
    return;
  }
  if (s.k != wantK)
    bad(fmt::format("K must be {} for {} inputs", wantK, elemName(s.a)));
  bool sixteenBit = elemBits(s.a) == 16;
  if ((s.transA || s.transB) && !sixteenBit)
    bad("only f16/bf16 operands may be MN-major (imm-trans-a/b = 1)");
  if (s.aFromRegs && s.transA)
    bad("A from registers cannot be transposed");
  if ((s.scaleA != 1 && s.scaleA != -1) || (s.scaleB != 1 && s.scaleB != -1))
    bad("imm-scale-a / imm-scale-b must be 1 or -1");
}

float readElem(const SharedMemory &smem, std::uint32_t addr, ElemKind kind,
               const char *what) {
  unsigned bytes = elemBits(kind) / 8;
  std::uint32_t bits = 0;
  smem.read(addr, &bits, bytes, what);
  return decodeElem(kind, bits);
}

} // namespace

unsigned wgmmaAccRegs(const WgmmaShape &shape) {
  return shape.d == ElemKind::F16 ? unsigned(shape.n) / 4
                                  : unsigned(shape.n) / 2;
}

void wgmmaWarp(const WgmmaShape &shape, unsigned warpInGroup,
               std::uint64_t descA, const WarpRegs *aRegs, std::uint64_t descB,
               const SharedMemory &smem, bool scaleD,
               std::span<std::uint32_t> acc) {
  checkShape(shape);
  if (warpInGroup > 3)
    throw SimFault(
        fmt::format("wgmma: warp {} of a warpgroup (0..3)", warpInGroup));
  const unsigned n = unsigned(shape.n), k = unsigned(shape.k);
  const unsigned regs = wgmmaAccRegs(shape);
  if (acc.size() < 32 * regs)
    throw SimFault(fmt::format("wgmma: {} accumulator registers given, the "
                               "shape needs {} per lane",
                               acc.size() / 32, regs));
  if (shape.aFromRegs && !aRegs)
    throw SimFault("wgmma: the RS form needs A registers");
  const char *what = "wgmma operand read";
  const unsigned aBits = elemBits(shape.a), bBits = elemBits(shape.b);

  // A: the warp's 16 rows, row-major 16 x k.
  std::vector<double> a(16 * k), b(std::size_t(n) * k);
  if (shape.aFromRegs) {
    const unsigned per = 32 / aBits, half = k / 2;
    for (unsigned lane = 0; lane < 32; ++lane) {
      unsigned g = lane / 4, t = lane % 4;
      for (unsigned r = 0; r < 4; ++r)
        for (unsigned j = 0; j < per; ++j) {
          std::uint32_t reg = (*aRegs)[lane][r];
          std::uint32_t bits =
              aBits == 32 ? reg : (reg >> (j * aBits)) & ((1u << aBits) - 1);
          a[(g + 8 * (r & 1)) * k + per * t + j + half * (r >> 1)] =
              decodeElem(shape.a, bits);
        }
    }
  } else {
    SmemMatrixDesc da = decodeWgmmaDescriptor(descA);
    for (unsigned row = 0; row < 16; ++row)
      for (unsigned kk = 0; kk < k; ++kk)
        a[row * k + kk] =
            readElem(smem,
                     smemOperandAddress(da, shape.transA, aBits,
                                        16 * warpInGroup + row, kk),
                     shape.a, what);
  }
  SmemMatrixDesc db = decodeWgmmaDescriptor(descB);
  for (unsigned col = 0; col < n; ++col)
    for (unsigned kk = 0; kk < k; ++kk)
      b[col * k + kk] =
          readElem(smem, smemOperandAddress(db, shape.transB, bBits, col, kk),
                   shape.b, what);

  const double sign = double(shape.scaleA * shape.scaleB);
  auto product = [&](unsigned row, unsigned col) {
    double sum = 0;
    const double *ar = &a[row * k], *bc = &b[col * k];
    for (unsigned kk = 0; kk < k; ++kk)
      sum += ar[kk] * bc[kk];
    return sign * sum;
  };
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned g = lane / 4, t = lane % 4;
    std::uint32_t *out = &acc[lane * regs];
    if (shape.d == ElemKind::F32) {
      for (unsigned i = 0; i < regs; ++i) {
        unsigned row = g + 8 * ((i % 4) / 2), col = 8 * (i / 4) + 2 * t + i % 2;
        double c = scaleD ? decodeElem(ElemKind::F32, out[i]) : 0.0;
        out[i] = encodeElem(ElemKind::F32, float(product(row, col) + c));
      }
    } else {
      for (unsigned i = 0; i < regs; ++i) {
        unsigned row = g + 8 * (i % 2), col = 8 * (i / 2) + 2 * t;
        std::uint32_t packed = 0;
        for (unsigned j = 0; j < 2; ++j) {
          double c =
              scaleD ? decodeElem(ElemKind::F16, out[i] >> (16 * j)) : 0.0;
          packed |= encodeElem(ElemKind::F16, float(product(row, col + j) + c))
                    << (16 * j);
        }
        out[i] = packed;
      }
    }
  }
}

} // namespace tilec::sim
