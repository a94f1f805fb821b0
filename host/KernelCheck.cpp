//===- host/KernelCheck.cpp - Run a compiled GEMM and check every element
//===//
#include "host/KernelCheck.h"

#include "host/GemmLauncher.h"
#include "host/WeightQuantDraw.h"
#include "ir/arch/ElementCodec.h"
#include "ir/layout/WeightPack.h"
#include "runtime/Device.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Stream.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Parallel.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <vector>

namespace tilec {

namespace {

void storeBits(std::vector<uint8_t> &buffer, size_t index, uint32_t bits,
               unsigned bytes) {
  std::memcpy(buffer.data() + index * bytes, &bits, bytes); // little endian
}

uint32_t loadBits(const std::vector<uint8_t> &buffer, size_t index,
                  unsigned bytes) {
  uint32_t bits = 0;
  std::memcpy(&bits, buffer.data() + index * bytes, bytes);
  return bits;
}

/// \p extent rounded up to whole 16-byte rows of \p bytes-wide elements.
int64_t leadingDimension(int64_t extent, unsigned bytes) {
  int64_t per = 16 / bytes;
  return (extent + per - 1) / per * per;
}

/// One operand drawn at random: the stored bits (laid out with leading
/// dimension \p ld, contiguous along the second index when \p contiguousK)
/// and the rounded values, rows x k row-major.
struct Operand {
  std::vector<uint8_t> bits;
  std::vector<double> values;
};

Operand drawOperand(const ElementCodec &codec, int64_t rows, int64_t k,
                    bool kContiguous, int64_t ld, int integers,
                    std::mt19937_64 &rng) {
  Operand op;
  int64_t outer = kContiguous ? rows : k;
  op.bits.assign(size_t(ld * outer) * codec.bytes(), 0);
  op.values.resize(size_t(rows * k));
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> small(-integers, integers);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t kk = 0; kk < k; ++kk) {
      double x = integers ? small(rng) : real(rng);
      auto [bits, v] = codec.encode(x);
      op.values[size_t(r * k + kk)] = v;
      size_t at = kContiguous ? size_t(r * ld + kk) : size_t(kk * ld + r);
      storeBits(op.bits, at, bits, codec.bytes());
    }
  return op;
}

/// Every dot product of the fp64 reference, rows x cols, computed on all
/// cores (llvm::parallelFor): single-threaded, the reference of a
/// DeepSeek-sized problem takes minutes longer than the kernel. \p dot
/// (row, col) returns the sum and the sum of |products| (the block-scaled
/// tolerance) and must only read shared state.
struct ReferenceDots {
  int64_t cols = 0;
  std::vector<double> sum, absSum;

  template <typename Dot>
  ReferenceDots(int64_t rows, int64_t cols, Dot dot)
      : cols(cols), sum(size_t(rows * cols)), absSum(size_t(rows * cols)) {
    llvm::parallelFor(0, size_t(rows), [&](size_t r) {
      for (int64_t c = 0; c < cols; ++c) {
        auto [value, magnitude] = dot(int64_t(r), c);
        sum[r * size_t(cols) + size_t(c)] = value;
        absSum[r * size_t(cols) + size_t(c)] = magnitude;
      }
    });
  }
  size_t index(int64_t row, int64_t col) const {
    return size_t(row * cols + col);
  }
};

/// The accumulator columns (gate, up) of C's column \p o under \p swiglu,
/// written out here from docs/language.md rather than taken from ir/, so a
/// wrong pairing in either shows up: tile halves (BN = \p bn accumulator
/// columns per tile, the first half gate, the second up) or interleaved
/// (2 o, 2 o + 1).
std::pair<int64_t, int64_t> swigluColumns(const EpilogueOp &swiglu, int64_t o,
                                          int64_t bn) {
  if (swiglu.pairing == SwigluPairingKind::Interleaved)
    return {2 * o, 2 * o + 1};
  int64_t tile = o / (bn / 2), within = o % (bn / 2);
  return {tile * bn + within, tile * bn + bn / 2 + within};
}

/// An epilogue operand vector: its device bits and its values.
struct OperandVector {
  std::vector<uint8_t> bits;
  std::vector<double> values;
};

OperandVector drawVector(const ElementCodec &codec, int64_t length,
                         int integers, std::mt19937_64 &rng) {
  OperandVector v;
  v.bits.assign(size_t(length) * codec.bytes(), 0);
  v.values.resize(size_t(length));
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> small(-integers, integers);
  for (int64_t i = 0; i < length; ++i) {
    auto [bits, value] = codec.encode(integers ? small(rng) : real(rng));
    v.values[size_t(i)] = value;
    storeBits(v.bits, size_t(i), bits, codec.bytes());
  }
  return v;
}

/// What drawOperand and drawVector draw: 0 for reals in [-1, 1), else
/// the largest |integer|.
int integerRange(const KernelCheckOptions &options) {
  return options.integerInputs ? std::max(1, options.integerMagnitude) : 0;
}

/// Whether the reference \p ref is Inf or NaN and \p got alike (the same
/// Inf, or a NaN): a result beyond C's range, which no kernel can store.
bool bothNonFinite(double got, double ref) {
  if (std::isfinite(ref))
    return false;
  return std::isnan(ref) ? std::isnan(got) : got == ref;
}

/// The largest |C| integer inputs of magnitude \p v can produce in \p
/// kernel at depth \p k: alpha * K products of v * v (times 16, the
/// largest pair of integer-mode block scales, 2^2 * 2^2), plus beta * v,
/// then the epilogue ops in order: each op's reference at the bound's
/// extremes (+-bound, with an operand of +-v: a bias or residual adds v, a
/// scale multiplies by v; the activations do not grow |x|, clamp at most
/// to its bounds), and swiglu multiplies its gate by its up.
double integerBound(const GemmKernelBinary &kernel, int64_t k,
                    const KernelCheckOptions &options, double v,
                    bool blockScaled) {
  double bound = std::fabs(double(options.alpha)) * double(k) * v * v *
                     (blockScaled ? 16.0 : 1.0) +
                 std::fabs(double(options.beta)) * v;
  for (const EpilogueOp &op : kernel.epilogueOps) {
    if (op.kind == EpilogueOpKind::Swiglu) {
      bound *= bound;
      continue;
    }
    double grown = 0;
    for (double x : {-bound, bound})
      for (double operand : {-v, v})
        grown = std::max(grown, std::fabs(referenceEpilogueOp(op, x, operand)));
    bound = std::max(bound, grown);
  }
  return bound;
}

/// Block scales (`scale a f32 block(1, 128)`, `scale b f32 block(128,
/// 128)`): sfa is M x ceil(K / 128), sfb ceil(N / 128) x ceil(K / 128),
/// row-major f32, each 2^u with u uniform in [-4, 4] (a whole u in [-2, 2]
/// for integer inputs, so every product and sum stays exact in f32).
struct BlockScales {
  int64_t kBlocks = 0;
  std::vector<float> a, b;
  double at(const std::vector<float> &s, int64_t row, int64_t kk) const {
    return s[size_t(row * kBlocks + kk / 128)];
  }
};

/// SFA as \p kernel takes it: \p scales.a (row-major M x ceil(K / 128))
/// itself, or with `scale a ... major(M)` its transpose, a K block's M
/// scales contiguous.
std::vector<float> sfaLayout(const GemmKernelBinary &kernel,
                             const BlockScales &scales) {
  if (kernel.sfaMajor != MajorKind::MN)
    return scales.a;
  int64_t rows = int64_t(scales.a.size()) / scales.kBlocks;
  std::vector<float> t(scales.a.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t kb = 0; kb < scales.kBlocks; ++kb)
      t[size_t(kb * rows + r)] = scales.a[size_t(r * scales.kBlocks + kb)];
  return t;
}

BlockScales drawBlockScales(const RunShape &s, bool integers,
                            std::mt19937_64 &rng) {
  BlockScales scales;
  scales.kBlocks = (s.k + 127) / 128;
  std::uniform_real_distribution<double> real(-4.0, 4.0);
  std::uniform_int_distribution<int> small(-2, 2);
  auto draw = [&](int64_t rows) {
    std::vector<float> v(size_t(rows * scales.kBlocks));
    for (float &x : v)
      x = float(std::exp2(integers ? double(small(rng)) : real(rng)));
    return v;
  };
  scales.a = draw(s.m);
  scales.b = draw((s.n + 127) / 128);
  return scales;
}

/// Uploads \p bytes of \p data into a new buffer kept in \p keep;
/// returns its address, or 0 with \p error set.
rt::DevicePtr uploadBuffer(const void *data, size_t bytes,
                           std::vector<rt::DeviceBuffer> &keep,
                           std::string &error) {
  auto buffer = rt::DeviceBuffer::allocate(std::max<size_t>(bytes, 16));
  if (!buffer) {
    error = "allocation: " + buffer.error().getMessage();
    return 0;
  }
  if (auto st = buffer->upload(data, bytes); !st) {
    error = "upload: " + st.error().getMessage();
    return 0;
  }
  keep.push_back(std::move(*buffer));
  return keep.back().ptr();
}

/// Whether \p kernel takes block scales (sfa, sfb: host/GemmLauncher.h).
bool takesBlockScales(const GemmKernelBinary &kernel) {
  return llvm::any_of(kernel.params, [](const KernelParam &param) {
    return param.name == "sfa";
  });
}

/// The tolerance of one element of C: half an ulp of C's type, plus the
/// tensor core's accumulation (fp8 products are summed with fewer mantissa
/// bits) growing with sqrt(K); 0 for integer inputs, whose exact result
/// every backend must produce. An approximate op (the op table's:
/// gelu and silu use a fast exp2, gelu_tanh tanh.approx.f32; docs/
/// language.md has the bounds) makes an integer-input result inexact: it
/// may round to the neighbouring value of C's type. Block-scaled: the
/// tensor core sums each 128-K block with ~14 mantissa bits (2^-11 of the
/// block's |products| bounds it, docs/layout-facts.md#fp8-accumulation)
/// and the promotion adds the blocks in f32.
struct Tolerance {
  double outRel = 0, absTol = 0, alpha = 1;
  bool blockScaled = false, integers = false;

  Tolerance(const GemmKernelBinary &kernel, int64_t k,
            const KernelCheckOptions &options, bool blockScaled)
      : alpha(std::fabs(double(options.alpha))), blockScaled(blockScaled),
        integers(options.integerInputs) {
    ElementCodec codecC(kernel.cType);
    bool fp8 = ElementCodec(kernel.aType).bytes() == 1;
    outRel = integers ? 0.0 : std::ldexp(1.0, -int(codecC.mantissaBits()));
    absTol = integers ? 0.0 : (fp8 ? 2e-3 : 5e-4) * std::sqrt(double(k)) + 1e-4;
    bool approximate =
        llvm::any_of(kernel.epilogueOps, [](const EpilogueOp &op) {
          return epilogueOpInfo(op.kind).approximate;
        });
    if (integers && approximate) {
      outRel = 2 * std::ldexp(1.0, -int(codecC.mantissaBits()));
      absTol = 1e-6;
    }
  }

  /// For reference \p ref whose products' magnitudes sum to \p absSum
  /// (block-scaled only).
  double of(double ref, double absSum) const {
    if (blockScaled && !integers)
      return outRel * std::fabs(ref) + std::ldexp(alpha * absSum, -11) + 1e-6;
    return outRel * std::fabs(ref) + absTol;
  }
};

/// Launches \p kernel on \p problem, waits, and reads C (\p c) into
/// \p out; the error, or empty.
std::string launchAndRead(const GemmKernelBinary &kernel,
                          const KernelCheckOptions &options,
                          const GemmProblem &problem, const rt::DeviceBuffer &c,
                          std::vector<uint8_t> &out) {
  auto launcher = GemmLauncher::create(kernel, options.smCount);
  if (!launcher)
    return "load: " + launcher.error().getMessage();
  if (auto st = launcher->launch(problem); !st)
    return "launch: " + st.error().getMessage();
  if (auto st = rt::synchronizeDefaultStream(); !st)
    return "kernel: " + st.error().getMessage();
  if (auto st = c.download(out.data(), out.size()); !st)
    return "download C: " + st.error().getMessage();
  return "";
}

/// The rows of a grouped problem (codegen/Sm90Group.h), drawn at random:
/// the group of every row of C in its stacked view (-1: outside every
/// group, must stay poisoned) and the device tensor the kernel reads.
struct GroupLayout {
  std::vector<int32_t> rowGroup; ///< per stacked row of A and C
  std::vector<int32_t> device;   ///< groupIndex (int32[M]) or groupRows
  std::string summary;           ///< rows per group, for failures
};

GroupLayout drawGroups(const GemmKernelBinary &kernel, const RunShape &s,
                       std::mt19937_64 &rng) {
  GroupLayout layout;
  int64_t g = s.groups;
  if (kernel.group->kind == GroupKind::Masked) {
    // Group 0 random and not empty, 1 empty, 2 full, the rest random.
    layout.rowGroup.assign(size_t(g * s.m), -1);
    for (int64_t z = 0; z < g; ++z) {
      int64_t count = std::uniform_int_distribution<int64_t>(0, s.m)(rng);
      if (z == 0)
        count = std::max<int64_t>(count, 1);
      if (z == 1)
        count = 0;
      if (z == 2)
        count = s.m;
      layout.device.push_back(int32_t(count));
      for (int64_t i = 0; i < count; ++i)
        layout.rowGroup[size_t(z * s.m + i)] = int32_t(z);
      layout.summary += fmt::format("{}{}", z ? "," : "rows ", count);
    }
    return layout;
  }
  // Contiguous: whole tileM blocks per group, group 1 none, one padding
  // block after group 0 when there are 3 blocks or more, and the last
  // block in the last group when there are 3 groups or more, so that two
  // groups hold rows whenever two blocks do (a kernel reading every
  // block's B from group 0 must fail on every seed).
  int64_t bm = kernel.tileM, blocks = (s.m + bm - 1) / bm;
  int64_t padding = blocks >= 3 ? 1 : 0;
  std::vector<int64_t> owned(size_t(g), 0);
  for (int64_t i = 0; i < blocks - padding; ++i) {
    int64_t pick = std::uniform_int_distribution<int64_t>(0, g - 1)(rng);
    if (pick == 1 && g > 1)
      pick = 0;
    if (i > 0 && i + 1 == blocks - padding && g > 2)
      pick = g - 1;
    ++owned[size_t(pick)];
  }
  layout.rowGroup.assign(size_t(s.m), -1);
  int64_t block = 0;
  for (int64_t z = 0; z < g; ++z) {
    for (int64_t i = 0; i < owned[size_t(z)]; ++i, ++block) {
      int64_t first = block * bm, rows = std::min(bm, s.m - first);
      // The group's last block: its first rows only, the rest padding.
      if (i + 1 == owned[size_t(z)])
        rows = std::uniform_int_distribution<int64_t>(1, rows)(rng);
      for (int64_t r = 0; r < rows; ++r)
        layout.rowGroup[size_t(first + r)] = int32_t(z);
    }
    if (z == 0)
      block += padding;
  }
  layout.device = layout.rowGroup;
  for (int64_t z = 0; z < g; ++z)
    layout.summary += fmt::format(
        "{}{}", z ? "," : "rows ",
        std::count(layout.rowGroup.begin(), layout.rowGroup.end(), z));
  return layout;
}

/// A grouped kernel's epilogue vectors (bias, scale; matrix operands and
/// swiglu are refused before): N columns or M rows (masked: per group's row,
/// shared by the groups), uploaded into \p problem.
std::map<EpilogueOpKind, OperandVector>
drawGroupedVectors(const GemmKernelBinary &kernel, const RunShape &s,
                   const KernelCheckOptions &options, std::mt19937_64 &rng,
                   GemmProblem &problem, std::vector<rt::DeviceBuffer> &keep,
                   std::string &error) {
  std::map<EpilogueOpKind, OperandVector> vectors;
  for (const EpilogueOp &op : kernel.epilogueOps) {
    if (epilogueOpInfo(op.kind).operand.empty())
      continue;
    OperandVector v = drawVector(
        ElementCodec(epilogueOperandType(op, kernel.cType)),
        op.axis == EpilogueAxis::Row ? s.m : s.n, integerRange(options), rng);
    problem.operand(op.kind).ptr =
        uploadBuffer(v.bits.data(), v.bits.size(), keep, error);
    vectors[op.kind] = std::move(v);
  }
  return vectors;
}

/// checkKernel for a grouped kernel (GemmKernelBinary::group).
KernelCheckResult checkGroupedKernel(const GemmKernelBinary &kernel,
                                     const RunShape &s,
                                     const KernelCheckOptions &options) {
  KernelCheckResult result;
  auto failWith = [&](std::string what) {
    result.pass = false;
    result.detail = std::move(what);
    return result;
  };
  for (const EpilogueOp &op : kernel.epilogueOps)
    if (op.kind == EpilogueOpKind::Swiglu || readsOperandMatrix(op))
      return failWith("tilec run does not check " +
                      epilogueOpInfo(op.kind).name.str() +
                      " in a grouped kernel");
  if (options.beta != 0.0f)
    return failWith("a grouped kernel writes C without reading it: run it "
                    "with beta 0");
  ElementCodec codecA(kernel.aType), codecB(kernel.bType), codecC(kernel.cType);
  std::mt19937_64 rng(options.seed);
  bool masked = kernel.group->kind == GroupKind::Masked;
  int64_t groups = std::max<int64_t>(s.groups, 1);
  RunShape shape = s;
  shape.groups = groups;
  GroupLayout layout = drawGroups(kernel, shape, rng);
  // The stacked views: rows of A and C (masked: G x Mmax) and of B.
  int64_t rowsA = masked ? groups * s.m : s.m, rowsB = groups * s.n;
  int64_t lda = leadingDimension(s.k, codecA.bytes());
  int64_t ldb = leadingDimension(s.k, codecB.bytes());
  int64_t ldc = leadingDimension(s.n, codecC.bytes());
  if (unsigned multiple = std::max(1u, kernel.ldcMultiple); ldc % multiple)
    ldc += multiple - ldc % multiple;
  Operand a =
      drawOperand(codecA, rowsA, s.k, true, lda, integerRange(options), rng);
  Operand b =
      drawOperand(codecB, rowsB, s.k, true, ldb, integerRange(options), rng);
  std::vector<uint8_t> cBits(size_t(rowsA * ldc) * codecC.bytes(), 0xFF);
  std::vector<rt::DeviceBuffer> keep;
  std::string error;
  GemmProblem problem;
  problem.m = s.m, problem.n = s.n, problem.k = s.k;
  problem.lda = lda, problem.ldb = ldb, problem.ldc = ldc;
  problem.alpha = options.alpha, problem.beta = 0.0f;
  problem.groups = groups;
  problem.a = uploadBuffer(a.bits.data(), a.bits.size(), keep, error);
  problem.b = uploadBuffer(b.bits.data(), b.bits.size(), keep, error);
  problem.c = uploadBuffer(cBits.data(), cBits.size(), keep, error);
  (masked ? problem.groupRows : problem.groupIndex) =
      uploadBuffer(layout.device.data(), layout.device.size() * 4, keep, error);
  // Block scales: SFA per stacked row of A, SFB per group's 128-row blocks.
  bool scaled = takesBlockScales(kernel);
  BlockScales scales;
  int64_t nBlocks = (s.n + 127) / 128;
  if (scaled) {
    RunShape stacked{rowsA, groups * nBlocks * 128, s.k};
    scales = drawBlockScales(stacked, options.integerInputs, rng);
    problem.sfa =
        uploadBuffer(scales.a.data(), scales.a.size() * 4, keep, error);
    problem.sfb =
        uploadBuffer(scales.b.data(), scales.b.size() * 4, keep, error);
  }
  std::map<EpilogueOpKind, OperandVector> vectors =
      drawGroupedVectors(kernel, s, options, rng, problem, keep, error);
  if (!error.empty())
    return failWith(error);

  std::vector<uint8_t> out(cBits.size());
  if (std::string error = launchAndRead(kernel, options, problem, keep[2], out);
      !error.empty())
    return failWith(error);

  Tolerance tolerance(kernel, s.k, options, scaled);
  double largestC = codecC.largestFinite();
  std::string bad;
  auto report = [&](const std::string &what) {
    if (result.wrong++ < options.maxReported)
      bad += (bad.empty() ? "" : "; ") + what;
  };
  ReferenceDots dots(rowsA, s.n, [&](int64_t r, int64_t j) {
    double sum = 0, absSum = 0;
    int32_t g = layout.rowGroup[size_t(r)];
    if (g < 0)
      return std::pair{sum, absSum};
    const double *ar = &a.values[size_t(r * s.k)];
    const double *br = &b.values[size_t((g * s.n + j) * s.k)];
    for (int64_t kk = 0; kk < s.k; ++kk) {
      double p = ar[kk] * br[kk];
      if (scaled)
        p *= scales.at(scales.a, r, kk) *
             scales.at(scales.b, g * nBlocks + j / 128, kk);
      sum += p;
      absSum += std::fabs(p);
    }
    return std::pair{sum, absSum};
  });
  for (int64_t r = 0; r < rowsA; ++r) {
    int32_t g = layout.rowGroup[size_t(r)];
    int64_t i = masked ? r % s.m : r; // The row within the group's C.
    std::string where =
        masked ? fmt::format("C[{}][{}]", r / s.m, i) : fmt::format("C[{}]", r);
    for (int64_t j = 0; j < s.n; ++j) {
      ++result.checked;
      size_t at = size_t(r * ldc + j);
      if (g < 0) { // Outside every group: C's poison stays.
        bool poisoned = true;
        for (unsigned byte = 0; byte < codecC.bytes(); ++byte)
          poisoned &= out[at * codecC.bytes() + byte] == 0xFF;
        if (!poisoned)
          report(fmt::format("{}[{}] (row outside the groups, {}) was "
                             "written",
                             where, j, layout.summary));
        continue;
      }
      double sum = dots.sum[dots.index(r, j)];
      double absSum = dots.absSum[dots.index(r, j)];
      double ref = double(options.alpha) * sum;
      for (const EpilogueOp &op : kernel.epilogueOps) {
        auto v = vectors.find(op.kind);
        ref = referenceEpilogueOp(
            op, ref,
            v == vectors.end()
                ? 0.0
                : v->second
                      .values[size_t(op.axis == EpilogueAxis::Row ? i : j)]);
      }
      if (options.integerInputs || std::fabs(ref) > largestC)
        ref = codecC.encode(ref).second;
      double got = codecC.decode(loadBits(out, at, codecC.bytes()));
      if (bothNonFinite(got, ref)) {
        ++result.nonFinite;
        continue;
      }
      double tol = tolerance.of(ref, absSum);
      double err = std::fabs(got - ref);
      if (!(err <= tol))
        report(fmt::format("{}[{}] = {} (group {}), reference {}, tolerance "
                           "{} ({})",
                           where, j, got, g, ref, tol, layout.summary));
      result.maxError = std::isnan(err) ? err : std::max(result.maxError, err);
    }
  }
  result.pass = result.wrong == 0;
  result.detail = std::move(bad);
  return result;
}

/// One dense (non-grouped) check: its operands laid out and drawn, the
/// epilogue's vectors and the block scales, the fp64 reference and the
/// comparison of every element of C and of the poison around it.
struct DenseCheck {
  const GemmKernelBinary &kernel;
  const RunShape &s;
  const KernelCheckOptions &options;
  std::mt19937_64 rng;
  ElementCodec codecA, codecB, codecC;
  bool aK, bK;
  int64_t lda = 0, ldb = 0, ldc = 0;
  /// With swiglu C (and a residual) has N / 2 columns.
  const EpilogueOp *swiglu;
  int64_t cCols = 0;
  /// Batches: each batched operand's matrices lie a stride apart, the
  /// stride one 16-byte unit more than a matrix, so a kernel that ignores
  /// the stride (or offsets by a wrong one) reads or writes the wrong
  /// batch.
  int64_t batches = 1;
  bool aBatched = false, bBatched = false;
  int64_t strideA = 0, strideB = 0, strideC = 0;
  std::vector<Operand> as, bs;
  Operand a, b; ///< The device bits of all batches.
  std::vector<uint8_t> cBits;
  std::vector<std::vector<double>> c0; ///< C's values per batch (beta)
  size_t cEnd = 0; ///< C's bytes before the trailing poison batch
  std::map<EpilogueOpKind, OperandVector> vectors;
  bool scaled = false;
  BlockScales scales;
  GemmProblem problem;
  std::vector<rt::DeviceBuffer> keep;
  size_t cBuffer = 0; ///< C's index in keep
  std::string error;

  DenseCheck(const GemmKernelBinary &kernel, const RunShape &s,
             const KernelCheckOptions &options)
      : kernel(kernel), s(s), options(options), rng(options.seed),
        codecA(kernel.aType),
        codecB(kernel.weightQuant ? kernel.aType : kernel.bType),
        codecC(kernel.cType), aK(kernel.aMajor == MajorKind::K),
        bK(kernel.bMajor == MajorKind::K),
        swiglu(findSwiglu(kernel.epilogueOps)),
        scaled(takesBlockScales(kernel)) {
    lda = leadingDimension(aK ? s.k : s.m, codecA.bytes());
    ldb = leadingDimension(bK ? s.k : s.n, codecB.bytes());
    cCols = swiglu ? s.n / 2 : s.n;
    ldc = leadingDimension(cCols, codecC.bytes());
    if (unsigned multiple = std::max(1u, kernel.ldcMultiple); ldc % multiple)
      ldc += multiple - ldc % multiple;
    batches = kernel.batch ? std::max<int64_t>(s.batch, 1) : 1;
    aBatched = kernel.batch && kernel.batch->aBatched;
    bBatched = kernel.batch && kernel.batch->bBatched;
    strideA = strideOf(aBatched, lda, aK ? s.m : s.k, codecA.bytes());
    strideB = strideOf(bBatched, ldb, bK ? s.n : s.k, codecB.bytes());
    strideC =
        kernel.batch && batches > 1
            ? ldc * s.m + std::max<int64_t>(16 / codecC.bytes(),
                                            std::max(1u, kernel.ldcMultiple))
            : 0;
  }

  int64_t strideOf(bool batched, int64_t ld, int64_t outer,
                   unsigned bytes) const {
    return batched && batches > 1 ? ld * outer + 16 / bytes : 0;
  }

  /// Draws \p count matrices \p stride elements apart into one buffer.
  void drawBatches(const ElementCodec &codec, int64_t count, int64_t stride,
                   int64_t rows, int64_t cols, bool contiguous, int64_t ld,
                   std::vector<Operand> &out, std::vector<uint8_t> &bits,
                   uint8_t fill) {
    size_t one = size_t(ld * (contiguous ? rows : cols)) * codec.bytes();
    bits.assign(size_t(stride * (count - 1)) * codec.bytes() + one, fill);
    for (int64_t z = 0; z < count; ++z) {
      Operand op = drawOperand(codec, rows, cols, contiguous, ld,
                               integerRange(options), rng);
      std::memcpy(bits.data() + size_t(z * stride) * codec.bytes(),
                  op.bits.data(), one);
      op.bits.clear();
      out.push_back(std::move(op));
    }
  }

  /// A, B and C (poisoned; drawn when beta != 0) on the host and the
  /// device.
  void drawMatrices() {
    drawBatches(codecA, aBatched ? batches : 1, strideA, s.m, s.k, aK, lda, as,
                a.bits, 0);
    if (kernel.weightQuant)
      drawQuantB();
    else
      drawBatches(codecB, bBatched ? batches : 1, strideB, s.n, s.k, bK, ldb,
                  bs, b.bits, 0);
    cBits.assign(size_t(strideC * (batches - 1) + ldc * s.m) * codecC.bytes(),
                 0xFF);
    c0.assign(size_t(batches), std::vector<double>(size_t(s.m * cCols)));
    if (options.beta != 0.0f) {
      std::vector<Operand> cs;
      drawBatches(codecC, batches, strideC, s.m, cCols, true, ldc, cs, cBits,
                  0xFF);
      for (int64_t z = 0; z < batches; ++z)
        c0[size_t(z)] = std::move(cs[size_t(z)].values);
    }
    // A batched kernel's C is followed by one more batch of poison: a unit
    // that walks past the last batch (or a batch offset one too far)
    // writes there.
    cEnd = cBits.size();
    if (kernel.batch)
      cBits.resize(cEnd + size_t(std::max<int64_t>(strideC, ldc * s.m) +
                                 16 / codecC.bytes()) *
                              codecC.bytes(),
                   0xFF);
    problem = GemmProblem{0,   0,   0,   s.m,           s.n,         s.k,
                          lda, ldb, ldc, options.alpha, options.beta};
    problem.a = uploadBuffer(a.bits.data(), a.bits.size(), keep, error);
    problem.b = uploadBuffer(b.bits.data(), b.bits.size(), keep, error);
    cBuffer = keep.size();
    problem.c = uploadBuffer(cBits.data(), cBits.size(), keep, error);
    problem.batch = batches;
    problem.strideA = strideA;
    problem.strideB = strideB;
    problem.strideC = strideC;
  }

  /// A quantized weight (host/WeightQuantDraw.h): B's device bits are the
  /// packed codes (ldb = K), its values the dequantized weight; the group
  /// scales and zero points go up once the problem exists (drawScales).
  QuantWeight quant;
  void drawQuantB() {
    quant = drawQuantWeight(*kernel.weightQuant, kernel.bType, s.n, s.k,
                            options.integerInputs, rng);
    ldb = s.k;
    const auto *bytes = reinterpret_cast<const uint8_t *>(quant.packed.data());
    b.bits.assign(bytes, bytes + quant.packed.size() * 4);
    bs.push_back(Operand{{}, std::move(quant.values)});
  }

  /// The epilogue ops' vectors (bias in C's type or its own, scale in
  /// f32), each of M or N (N / 2 after swiglu) elements as its op's axis
  /// says; a matrix operand (the residual), M x cCols in its type with a
  /// leading dimension of its own (not a multiple of anything: its
  /// elements are read one by one).
  void drawEpilogueOperands() {
    int64_t ld = cCols + 5;
    bool afterSwiglu = false;
    for (const EpilogueOp &op : kernel.epilogueOps) {
      afterSwiglu |= op.kind == EpilogueOpKind::Swiglu;
      if (epilogueOpInfo(op.kind).operand.empty())
        continue;
      ElementCodec codec(epilogueOperandType(op, kernel.cType));
      OperandVector v;
      if (readsOperandMatrix(op)) {
        Operand r = drawOperand(codec, s.m, cCols, true, ld,
                                integerRange(options), rng);
        v = {std::move(r.bits), std::move(r.values)};
        problem.operand(op.kind).ld = ld;
      } else {
        v = drawVector(codec,
                       op.axis == EpilogueAxis::Row ? s.m
                       : afterSwiglu                ? cCols
                                                    : s.n,
                       integerRange(options), rng);
      }
      problem.operand(op.kind).ptr =
          uploadBuffer(v.bits.data(), v.bits.size(), keep, error);
      vectors[op.kind] = std::move(v);
    }
  }

  /// Block-scaled kernels take sfa and sfb (host/GemmLauncher.h).
  void drawScales() {
    if (kernel.weightQuant) {
      problem.sb = uploadBuffer(quant.scaleBits.data(), quant.scaleBits.size(),
                                keep, error);
      if (!quant.zeros.empty())
        problem.zb =
            uploadBuffer(quant.zeros.data(), quant.zeros.size(), keep, error);
    }
    if (!scaled)
      return;
    scales = drawBlockScales(s, options.integerInputs, rng);
    std::vector<float> sfa = sfaLayout(kernel, scales);
    problem.sfa = uploadBuffer(sfa.data(), sfa.size() * 4, keep, error);
    problem.sfb =
        uploadBuffer(scales.b.data(), scales.b.size() * 4, keep, error);
  }

  /// Every element of every batch of C (\p out) against the reference.
  void compare(const std::vector<uint8_t> &out, KernelCheckResult &result,
               std::string &bad) {
    Tolerance tolerance(kernel, s.k, options, scaled);
    double largestC = codecC.largestFinite();
    // Block-scaled: the dequantized A[i, k] SFA[i, k / 128] times B[j, k]
    // SFB[j / 128, k / 128], and sum |products| for the tolerance.
    // Row z * M + i of the dot products is batch z's row i; every
    // accumulator column (N: swiglu reads two per column of C).
    ReferenceDots dots(batches * s.m, s.n, [&](int64_t zi, int64_t j) {
      int64_t zz = zi / s.m, i = zi % s.m;
      double sum = 0, absSum = 0;
      const double *ar = &as[size_t(aBatched ? zz : 0)].values[size_t(i * s.k)];
      const double *br = &bs[size_t(bBatched ? zz : 0)].values[size_t(j * s.k)];
      if (scaled) {
        for (int64_t kk = 0; kk < s.k; ++kk) {
          double p = ar[kk] * scales.at(scales.a, i, kk) * br[kk] *
                     scales.at(scales.b, j / 128, kk);
          sum += p;
          absSum += std::fabs(p);
        }
        return std::pair{sum, absSum};
      }
      for (int64_t kk = 0; kk < s.k; ++kk)
        sum += ar[kk] * br[kk];
      return std::pair{sum, absSum};
    });
    double scaledAbsSum = 0;
    int64_t z = 0; // The batch being checked.
    auto dot = [&](int64_t i, int64_t j) {
      size_t at = dots.index(z * s.m + i, j);
      scaledAbsSum = dots.absSum[at];
      return dots.sum[at];
    };
    // ops[first, last) applied to x at row i, column j (an accumulator
    // column before swiglu, C's after it).
    auto apply = [&](size_t first, size_t last, double x, int64_t i,
                     int64_t j) {
      for (size_t at = first; at < last; ++at) {
        const EpilogueOp &op = kernel.epilogueOps[at];
        auto v = vectors.find(op.kind);
        size_t index = readsOperandMatrix(op)
                           ? size_t(i * cCols + j)
                           : size_t(op.axis == EpilogueAxis::Row ? i : j);
        x = referenceEpilogueOp(
            op, x, v == vectors.end() ? 0.0 : v->second.values[index]);
      }
      return x;
    };
    size_t opCount = kernel.epilogueOps.size();
    size_t swigluAt = swiglu ? size_t(swiglu - kernel.epilogueOps.data()) : 0;
    double alpha = double(options.alpha);
    for (z = 0; z < batches; ++z)
      for (int64_t i = 0; i < s.m; ++i)
        for (int64_t j = 0; j < cCols; ++j) {
          double ref;
          if (swiglu) {
            auto [g, u] = swigluColumns(*swiglu, j, kernel.tileN);
            double gate = apply(0, swigluAt, alpha * dot(i, g), i, g);
            double up = apply(0, swigluAt, alpha * dot(i, u), i, u);
            ref = apply(swigluAt + 1, opCount,
                        gate / (1.0 + std::exp(-gate)) * up, i, j);
          } else {
            ref = apply(0, opCount,
                        alpha * dot(i, j) +
                            double(options.beta) *
                                c0[size_t(z)][size_t(i * cCols + j)],
                        i, j);
          }
          // The exact value rounded once to C (integer inputs), or past C's
          // range the Inf C stores.
          if (options.integerInputs || std::fabs(ref) > largestC)
            ref = codecC.encode(ref).second;
          double got = codecC.decode(
              loadBits(out, size_t(z * strideC + i * ldc + j), codecC.bytes()));
          if (bothNonFinite(got, ref)) {
            ++result.checked;
            ++result.nonFinite;
            continue;
          }
          double tol = tolerance.of(ref, scaledAbsSum);
          double err = std::fabs(got - ref);
          ++result.checked;
          if (!(err <= tol) && result.wrong++ < options.maxReported)
            bad += fmt::format("{}C[{}{}][{}] = {}, reference {}, tolerance {}",
                               bad.empty() ? "" : "; ",
                               kernel.batch ? fmt::format("{}][", z) : "", i, j,
                               got, ref, tol);
          // A NaN (poison never overwritten) sticks: max(NaN, x) is NaN.
          result.maxError =
              std::isnan(err) ? err : std::max(result.maxError, err);
        }
  }

  /// The gaps between C's batches and the batch after the last stay
  /// poisoned: a store past M or into the wrong batch shows up here.
  void comparePoison(const std::vector<uint8_t> &out, KernelCheckResult &result,
                     std::string &bad) {
    for (int64_t gap = 0; gap + 1 < batches; ++gap) {
      size_t from = size_t(gap * strideC + s.m * ldc) * codecC.bytes();
      size_t to = size_t((gap + 1) * strideC) * codecC.bytes();
      for (size_t at = from; at < to; ++at) {
        ++result.checked;
        if (out[at] != 0xFF && result.wrong++ < options.maxReported)
          bad += fmt::format("{}byte {} of the gap after C's batch {} was "
                             "written",
                             bad.empty() ? "" : "; ", at - from, gap);
      }
    }
    for (size_t at = cEnd; at < out.size(); ++at) {
      ++result.checked;
      if (out[at] != 0xFF && result.wrong++ < options.maxReported)
        bad += fmt::format("{}byte {} after C's last batch was written",
                           bad.empty() ? "" : "; ", at - cEnd);
    }
  }
};

/// checkKernel for a dense (not grouped) kernel.
KernelCheckResult checkDenseKernel(const GemmKernelBinary &kernel,
                                   const RunShape &s,
                                   const KernelCheckOptions &options) {
  KernelCheckResult result;
  DenseCheck check(kernel, s, options);
  check.drawMatrices();
  check.drawEpilogueOperands();
  check.drawScales();
  std::vector<uint8_t> out(check.cBits.size());
  if (check.error.empty())
    check.error = launchAndRead(kernel, options, check.problem,
                                check.keep[check.cBuffer], out);
  if (!check.error.empty()) {
    result.detail = std::move(check.error);
    return result;
  }
  std::string bad;
  check.compare(out, result, bad);
  check.comparePoison(out, result, bad);
  result.pass = result.wrong == 0;
  result.detail = std::move(bad);
  return result;
}

} // namespace

KernelCheckResult checkKernel(const GemmKernelBinary &kernel, const RunShape &s,
                              const KernelCheckOptions &options) {
  // A quantized weight is drawn packed: whole 16 x 64 (32) blocks only.
  if (kernel.weightQuant)
    if (llvm::Error err =
            checkPackableWeight(dtypeBits(kernel.bType), s.n, s.k)) {
      KernelCheckResult refused;
      refused.detail = llvm::toString(std::move(err)) +
                       " (pass --n and --k whole packed blocks)";
      return refused;
    }
  // --integer: the widest range whose exact result C can hold.
  KernelCheckOptions chosen = options;
  std::string note;
  if (options.integerInputs) {
    bool scaled = takesBlockScales(kernel);
    double limit = ElementCodec(kernel.cType).largestFinite();
    double two = integerBound(kernel, s.k, options, 2, scaled);
    chosen.integerMagnitude = 2;
    if (two > limit) {
      double one = integerBound(kernel, s.k, options, 1, scaled);
      if (one > limit) {
        KernelCheckResult refused;
        refused.detail = fmt::format(
            "--integer: the exact result can reach {} even with inputs in "
            "[-1, 1] (K = {}), beyond {}'s largest finite value {}; use a "
            "smaller K or real inputs",
            one, s.k, dtypeName(kernel.cType), limit);
        return refused;
      }
      chosen.integerMagnitude = 1;
      note = fmt::format("integer inputs in [-1, 1]: [-2, 2] could reach {}, "
                         "beyond {}'s largest finite value {}",
                         two, dtypeName(kernel.cType), limit);
    }
  }
  KernelCheckResult result = kernel.group
                                 ? checkGroupedKernel(kernel, s, chosen)
                                 : checkDenseKernel(kernel, s, chosen);
  if (result.nonFinite)
    note += fmt::format("{}{} elements are Inf or NaN in the reference and "
                        "alike in C (beyond {}'s range)",
                        note.empty() ? "" : "; ", result.nonFinite,
                        dtypeName(kernel.cType));
  result.note = std::move(note);
  return result;
}

} // namespace tilec
