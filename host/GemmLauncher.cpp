//===- host/GemmLauncher.cpp - Launch a compiled GEMM in one call -----===//
//
// Parameters are filled by name from the kernel's parameter list, so one
// launcher serves every generator: sm_80's (A, B, C, M, N, K, lda, ldb, ldc,
// alpha, beta) and sm_90a's (tmapA, tmapB, [tmapC], c, rowsA, rowsB, k, ldc,
// alpha, beta, workspace, counters, [storeTma]). A name it does not know is
// an error, not a guess.
//
//===----------------------------------------------------------------------===//
#include "host/GemmLauncher.h"

#include "codegen/GemmTarget.h"
#include "ir/layout/WeightPack.h"
#include "runtime/DriverApi.h"
#include "runtime/Launch.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace tilec {

namespace {

rt::Error fail(std::string message) { return rt::Error(std::move(message)); }

std::optional<rt::TensorMapDTypeKind> tensorMapType(DTypeKind type) {
  switch (type) {
  case DTypeKind::F16:
    return rt::TensorMapDTypeKind::F16;
  case DTypeKind::BF16:
    return rt::TensorMapDTypeKind::BF16;
  case DTypeKind::F32:
  case DTypeKind::TF32: // Copied bit for bit; the tensor core reads tf32.
    return rt::TensorMapDTypeKind::F32;
  case DTypeKind::E4M3:
  case DTypeKind::E5M2:
  case DTypeKind::I8:
  case DTypeKind::U8:
    return rt::TensorMapDTypeKind::U8;
  default:
    return std::nullopt;
  }
}

rt::TensorMapL2PromotionKind l2Promotion(unsigned bytes) {
  switch (bytes) {
  case 64:
    return rt::TensorMapL2PromotionKind::B64;
  case 128:
    return rt::TensorMapL2PromotionKind::B128;
  case 256:
    return rt::TensorMapL2PromotionKind::B256;
  default:
    return rt::TensorMapL2PromotionKind::None;
  }
}

/// "lda = 100 must be at least K = 128 and a multiple of 8 elements (16
/// bytes of bf16)".
rt::Status checkLd(const char *name, int64_t ld, const char *extentName,
                   int64_t extent, DTypeKind type, int64_t multiple) {
  if (ld >= extent && ld % multiple == 0 && ld <= INT32_MAX)
    return rt::success();
  std::string message = std::string(name) + " = " + std::to_string(ld) +
                        " must be at least " + extentName + " = " +
                        std::to_string(extent);
  if (multiple > 1)
    message += " and a multiple of " + std::to_string(multiple) +
               " elements (" + std::to_string(multiple * dtypeBits(type) / 8) +
               " bytes of " + dtypeInfo(type).name.str() + ")";
  if (ld >= extent && ld % multiple != 0)
    message +=
        "; e.g. " + std::to_string((ld + multiple - 1) / multiple * multiple);
  if (ld > INT32_MAX)
    message += " and at most " + std::to_string(INT32_MAX);
  return fail(message);
}

/// Elements per 16 bytes of \p type.
int64_t perSixteenBytes(DTypeKind type) {
  unsigned bits = dtypeBits(type);
  return bits ? std::max<int64_t>(1, 128 / bits) : 1;
}

rt::Status checkPointer(const char *name, rt::DevicePtr ptr, unsigned align,
                        const char *why) {
  if (ptr == 0)
    return fail(std::string(name) + " is a null device pointer");
  if (ptr % align != 0) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx",
                  static_cast<unsigned long long>(ptr));
    return fail(std::string(name) + " = " + hex + " is not " +
                std::to_string(align) + "-byte aligned (offset " +
                std::to_string(ptr % align) + "); " + why);
  }
  return rt::success();
}

bool hasParam(const GemmKernelBinary &kernel, const char *name) {
  for (const KernelParam &param : kernel.params)
    if (param.name == name)
      return true;
  return false;
}

/// Block scales (codegen/Sm90BlockScale.h): sfa f32[M, ceil(K / 128)] (with
/// major(M) f32[ceil(K / 128), M]) and
/// sfb f32[ceil(N / 128), ceil(K / 128)], row-major, present exactly when
/// the kernel takes them (the sfa and sfb parameters).
rt::Status checkBlockScales(const GemmKernelBinary &kernel,
                            const GemmProblem &p) {
  int64_t kBlocks = (p.k + 127) / 128, nBlocks = (p.n + 127) / 128;
  // Grouped (codegen/Sm90Group.h): SFB per group, SFA per group if masked.
  bool grouped = kernel.group.has_value();
  bool masked = grouped && kernel.group->kind == GroupKind::Masked;
  std::string g = std::to_string(p.groups);
  for (auto [name, ptr, rows, rowsText, line, perGroup] :
       {std::tuple{"sfa", p.sfa, p.m, "M", "scale a f32 block(1, 128)", masked},
        {"sfb", p.sfb, nBlocks, "ceil(N / 128)", "scale b f32 block(128, 128)",
         grouped}}) {
    std::string shape = std::string("f32[") + (perGroup ? "G, " : "") +
                        rowsText + ", ceil(K / 128)] = [" +
                        (perGroup ? g + ", " : "") + std::to_string(rows) +
                        ", " + std::to_string(kBlocks) + "]";
    // `scale a ... major(M)`: SFA transposed, a K block's scales contiguous.
    if (std::string_view(name) == "sfa" && kernel.sfaMajor == MajorKind::MN)
      shape = "f32[ceil(K / 128), M] = [" + std::to_string(kBlocks) + ", " +
              std::to_string(rows) + "]";
    bool takes = hasParam(kernel, name);
    if (!takes && ptr != 0)
      return fail("kernel '" + kernel.entryName +
                  "' has no block scales, "
                  "but " +
                  name + " is set; pass 0 or add '" + line + "'");
    if (!takes)
      continue;
    if (ptr == 0)
      return fail("kernel '" + kernel.entryName + "' is block-scaled: pass " +
                  name + ", a row-major " + shape + " tensor (" + name +
                  " is null)");
    if (rt::Status s = checkPointer(name, ptr, 4,
                                    ("its elements are f32; it holds a "
                                     "row-major " +
                                     shape)
                                        .c_str());
        !s)
      return s;
  }
  return rt::success();
}

/// A quantized weight's packed codes, group scales and zero points
/// (GemmProblem::sb, zb): N a multiple of 16 and K of the packed block's K
/// (64 for 4-bit codes, 32 for 8-bit), ldb = K, sb (and zb with zero
/// points) present and 16-byte aligned; both 0 for other kernels.
rt::Status checkWeightQuant(const GemmKernelBinary &kernel,
                            const GemmProblem &p) {
  if (!kernel.weightQuant) {
    for (auto [name, ptr] : {std::pair{"sb", p.sb}, {"zb", p.zb}})
      if (ptr != 0)
        return fail("kernel '" + kernel.entryName +
                    "' has no quantized weight, but " + name +
                    " is set; pass 0 or declare b : u4[N, K] with 'scale b "
                    "bf16 group(128)'");
    return rt::success();
  }
  const WeightQuantSpec &quant = *kernel.weightQuant;
  unsigned bits = dtypeBits(kernel.bType);
  std::string weight = "the packed " + dtypeName(kernel.bType) + " weight";
  int64_t blockK = packedWeightBlockK(bits);
  if (p.n % PackedWeightBlockN != 0)
    return fail("N = " + std::to_string(p.n) + " is not a multiple of 16: " +
                weight + " holds blocks of 16 output channels (pad N)");
  if (p.k % blockK != 0)
    return fail("K = " + std::to_string(p.k) + " is not a multiple of " +
                std::to_string(blockK) + ": " + weight + " holds blocks of " +
                std::to_string(blockK) + " along K (pad K)");
  // The kernel's byte offsets along a block row of codes (2 bits bytes per K)
  // are 32-bit.
  if (p.k > maxPackedWeightK(bits))
    return fail("K = " + std::to_string(p.k) + " is beyond " + weight + "'s " +
                std::to_string(maxPackedWeightK(bits)) +
                " (its rows' byte offsets are 32-bit); split K");
  if (p.ldb != p.k)
    return fail("ldb = " + std::to_string(p.ldb) + " but " + weight +
                " has no padding: ldb = K = " + std::to_string(p.k));
  std::string rows = std::to_string((p.k + quant.group - 1) / quant.group);
  std::string shape = "[ceil(K / " + std::to_string(quant.group) + "), N] = [" +
                      rows + ", " + std::to_string(p.n) + "]";
  if (!quant.zeros && p.zb != 0)
    return fail("kernel '" + kernel.entryName +
                "' takes no zero points, but zb is set; pass 0 or write "
                "'scale b ... group(..) zero(u8)' with b : u4 or u8");
  std::string scales = dtypeName(quant.scaleType) + " group scales " + shape;
  std::string zeros = "u8 zero points " + shape;
  for (auto [name, ptr, what, takes] : {std::tuple{"sb", p.sb, &scales, true},
                                        {"zb", p.zb, &zeros, quant.zeros}}) {
    if (!takes)
      continue;
    if (ptr == 0)
      return fail("kernel '" + kernel.entryName + "' dequantizes a " +
                  dtypeName(kernel.bType) + " weight: pass " + name + ", its " +
                  *what + " (" + name + " is null)");
    if (rt::Status s = checkPointer(name, ptr, 16,
                                    "the kernel copies its rows in 16-byte "
                                    "vectors");
        !s)
      return s;
  }
  return rt::success();
}

/// A grouped kernel's groups and device tensors (GemmProblem::groups).
rt::Status checkGroup(const GemmKernelBinary &kernel, const GemmProblem &p) {
  if (!kernel.group) {
    if (p.groups != 1 || p.groupIndex || p.groupRows)
      return fail("kernel '" + kernel.entryName +
                  "' is not grouped, but groups = " + std::to_string(p.groups) +
                  (p.groupIndex ? ", groupIndex is set" : "") +
                  (p.groupRows ? ", groupRows is set" : "") +
                  "; pass groups 1 and null tensors, or add 'group "
                  "contiguous' / 'group masked'");
    return rt::success();
  }
  const GroupSpec &group = *kernel.group;
  bool masked = group.kind == GroupKind::Masked;
  if (p.groups < 1 || p.groups > 65535)
    return fail("groups = " + std::to_string(p.groups) +
                " is out of range; 1 to 65535 are legal");
  if (group.fixedCount && p.groups != group.fixedCount)
    return fail("groups = " + std::to_string(p.groups) +
                " disagrees with the program's fixed group count " +
                std::to_string(group.fixedCount) + " (b : T[" +
                std::to_string(group.fixedCount) + ", N, K])");
  const char *mine = masked ? "groupRows" : "groupIndex";
  const char *other = masked ? "groupIndex" : "groupRows";
  std::string shape = masked
                          ? "int32[G] = [" + std::to_string(p.groups) +
                                "], the valid rows of each group"
                          : "int32[M] = [" + std::to_string(p.m) +
                                "], the group of each row of A (-1: padding)";
  rt::DevicePtr ptr = masked ? p.groupRows : p.groupIndex;
  if ((masked ? p.groupIndex : p.groupRows) != 0)
    return fail(std::string("kernel '") + kernel.entryName + "' is group " +
                (masked ? "masked" : "contiguous") + ": " + other +
                " is not read; pass 0 and " + mine + ", an " + shape);
  if (ptr == 0)
    return fail(std::string("kernel '") + kernel.entryName + "' is group " +
                (masked ? "masked" : "contiguous") + ": pass " + mine +
                ", an " + shape + " on the device (" + mine + " is null)");
  if (rt::Status s = checkPointer(
          mine, ptr, 4,
          ("its elements are int32; it holds an " + shape).c_str());
      !s)
    return s;
  if (p.beta != 0.0f)
    return fail("kernel '" + kernel.entryName +
                "' is grouped: C is written, not read, so beta = " +
                std::to_string(p.beta) + " is not legal; 0 is");
  return rt::success();
}

/// The batch and its strides (GemmProblem::batch).
rt::Status checkBatch(const GemmKernelBinary &kernel, const GemmProblem &p) {
  if (!kernel.batch) {
    if (p.batch != 1 || p.strideA || p.strideB || p.strideC)
      return fail("kernel '" + kernel.entryName +
                  "' is not batched, but batch = " + std::to_string(p.batch) +
                  ", strideA = " + std::to_string(p.strideA) +
                  ", strideB = " + std::to_string(p.strideB) +
                  ", strideC = " + std::to_string(p.strideC) +
                  "; pass batch 1 and strides 0, or declare a batch extent "
                  "(a : T[B, M, K], c : T[B, M, N])");
    return rt::success();
  }
  const BatchSpec &batch = *kernel.batch;
  bool walksTiles = gemmTarget(kernel.arch).batchWalksTiles();
  if (p.batch < 1 || p.batch > 65535)
    return fail("batch = " + std::to_string(p.batch) +
                " is out of range; 1 to 65535 are legal" +
                (walksTiles ? "" : " (the batch is grid z)"));
  // sm_100a numbers batch x tiles x splits in 32 bits (Sm100Gemm.h).
  if (walksTiles && kernel.tileM && kernel.tileN) {
    uint64_t units = uint64_t(p.batch) *
                     ((uint64_t(p.m) + kernel.tileM - 1) / kernel.tileM) *
                     ((uint64_t(p.n) + kernel.tileN - 1) / kernel.tileN) *
                     std::max(1u, kernel.splitK);
    if (units > uint64_t(INT32_MAX))
      return fail("batch x tiles = " + std::to_string(units) +
                  " exceeds the kernel's 32-bit unit index; at most " +
                  std::to_string(INT32_MAX) + " are legal");
  }
  if (batch.fixedCount && p.batch != batch.fixedCount)
    return fail("batch = " + std::to_string(p.batch) +
                " disagrees with the program's fixed batch extent " +
                std::to_string(batch.fixedCount));
  struct Stride {
    const char *name;
    int64_t value;
    DTypeKind type;
    bool batched;
    char operand;
  };
  for (const Stride &s :
       {Stride{"strideA", p.strideA, kernel.aType, batch.aBatched, 'a'},
        {"strideB", p.strideB, kernel.bType, batch.bBatched, 'b'},
        {"strideC", p.strideC, kernel.cType, true, 'c'}}) {
    if (s.value < 0)
      return fail(std::string(s.name) + " = " + std::to_string(s.value) +
                  " is negative; a batch stride is 0 (broadcast) or a "
                  "positive number of elements");
    if (!s.batched && s.value != 0)
      return fail(std::string(s.name) + " = " + std::to_string(s.value) +
                  ", but operand " + s.operand +
                  " has no batch extent (every batch reads the same " +
                  char(s.operand - 'a' + 'A') +
                  "); pass 0 or declare the batch extent on " + s.operand);
    int64_t multiple = perSixteenBytes(s.type);
    if (s.value % multiple != 0)
      return fail(
          std::string(s.name) + " = " + std::to_string(s.value) +
          " is not a multiple of " + std::to_string(multiple) +
          " elements (16 bytes of " + dtypeInfo(s.type).name.str() +
          "): every batch's " + char(s.operand - 'a' + 'A') +
          " must stay 16-byte aligned; e.g. " +
          std::to_string((s.value + multiple - 1) / multiple * multiple));
  }
  // A batched tensor map steps by a positive stride: a TMA stride of 0
  // does not exist.
  for (const TensorMapPlan &plan : kernel.tensorMaps) {
    int64_t stride = plan.matrix == 'A'   ? p.strideA
                     : plan.matrix == 'B' ? p.strideB
                                          : p.strideC;
    if (plan.batched && plan.matrix != 'C' && p.batch > 1 && stride == 0)
      return fail(std::string("stride") + plan.matrix +
                  " = 0 would broadcast " + plan.matrix +
                  ", but the kernel loads it through a rank-3 TMA tensor "
                  "map, whose batch stride must be positive; declare " +
                  char(plan.matrix - 'A' + 'a') +
                  " without the batch extent to share one matrix");
  }
  if (p.batch > 1 && p.strideC < p.m * p.ldc)
    return fail("strideC = " + std::to_string(p.strideC) +
                " is less than M * ldc = " + std::to_string(p.m) + " * " +
                std::to_string(p.ldc) + " = " + std::to_string(p.m * p.ldc) +
                ": the batches of C would overlap; at least " +
                std::to_string(p.m * p.ldc) + " is legal");
  return rt::success();
}

} // namespace

rt::Status checkGemmProblem(const GemmKernelBinary &kernel,
                            const GemmProblem &p) {
  for (auto [name, value] : {std::pair{"M", p.m}, {"N", p.n}, {"K", p.k}})
    if (value < 1 || value > INT32_MAX)
      return fail(std::string(name) + " = " + std::to_string(value) +
                  " is out of range; 1 to " + std::to_string(INT32_MAX) +
                  " are legal");
  for (auto [name, value, fixed] : {std::tuple{"M", p.m, kernel.fixedM},
                                    {"N", p.n, kernel.fixedN},
                                    {"K", p.k, kernel.fixedK}})
    if (fixed != 0 && value != fixed)
      return fail(std::string(name) + " = " + std::to_string(value) +
                  " disagrees with the program's fixed extent " + name + " = " +
                  std::to_string(fixed) + "; launch with " + name + " = " +
                  std::to_string(fixed) + " or declare the extent as " + name);
  bool aK = kernel.aMajor == MajorKind::K, bK = kernel.bMajor == MajorKind::K;
  if (rt::Status s = checkLd("lda", p.lda, aK ? "K" : "M", aK ? p.k : p.m,
                             kernel.aType, perSixteenBytes(kernel.aType));
      !s)
    return s;
  // A packed 4-bit weight has no padding: checkWeightQuant wants ldb = K
  // (and K a multiple of 64) before anything else about B.
  if (kernel.weightQuant) {
    if (rt::Status s = checkWeightQuant(kernel, p); !s)
      return s;
  } else if (rt::Status s =
                 checkLd("ldb", p.ldb, bK ? "K" : "N", bK ? p.k : p.n,
                         kernel.bType, perSixteenBytes(kernel.bType));
             !s) {
    return s;
  }
  // With swiglu C is M x N / 2 (ir/tile/EpilogueOps.h).
  bool swiglu = findSwiglu(kernel.epilogueOps) != nullptr;
  if (swiglu && p.n % 2 != 0)
    return fail("kernel '" + kernel.entryName +
                "' applies swiglu, which pairs N = " + std::to_string(p.n) +
                " accumulator columns into C's N/2: N must be even");
  if (swiglu &&
      findSwiglu(kernel.epilogueOps)->pairing ==
          SwigluPairingKind::TileHalves &&
      kernel.tileN && p.n % kernel.tileN != 0)
    return fail(
        "kernel '" + kernel.entryName +
        "' applies swiglu to the halves of each tile of BN = " +
        std::to_string(kernel.tileN) + " columns: N = " + std::to_string(p.n) +
        " must be a multiple of " + std::to_string(kernel.tileN) + " (e.g. " +
        std::to_string((p.n + kernel.tileN - 1) / kernel.tileN * kernel.tileN) +
        "), or compile swiglu(interleaved), which takes any even N");
  int64_t cCols = epilogueOutputCols(kernel.epilogueOps, p.n);
  const char *cColsName = swiglu ? "N/2 (swiglu)" : "N";
  if (rt::Status s = checkLd("ldc", p.ldc, cColsName, cCols, kernel.cType,
                             std::max(1u, kernel.ldcMultiple));
      !s)
    return s;
  if (swiglu && p.beta != 0.0f)
    return fail("kernel '" + kernel.entryName +
                "' applies swiglu: C (M x N/2) is written, not read, so "
                "beta = " +
                std::to_string(p.beta) +
                " has nothing to scale; 0 is legal (add a 'residual' op "
                "to add a tensor)");
  const char *loads = kernel.tensorMaps.empty()
                          ? "the kernel loads 16-byte vectors"
                          : "TMA reads from 16-byte aligned addresses";
  if (rt::Status s = checkPointer("A", p.a, 16, loads); !s)
    return s;
  if (rt::Status s = checkPointer("B", p.b, 16, loads); !s)
    return s;
  if (rt::Status s = checkPointer("C", p.c, std::max(1u, kernel.cAlignBytes),
                                  "the epilogue's stores need it");
      !s)
    return s;
  // The epilogue ops' operands: bound by role (the op table's operand
  // columns), present exactly when an op reads them.
  for (const EpilogueOp &op : kernel.epilogueOps) {
    const EpilogueOpInfo &info = epilogueOpInfo(op.kind);
    if (info.operand.empty())
      continue;
    const GemmProblem::EpilogueOperand &arg = p.operand(op.kind);
    DTypeKind type = epilogueOperandType(op, kernel.cType);
    bool byRow = op.axis == EpilogueAxis::Row;
    // A column vector after swiglu follows C's N/2 columns.
    bool half = swiglu && &op > findSwiglu(kernel.epilogueOps);
    std::string what =
        !info.operandLd.empty()
            ? info.operand.str() + ", an M x " + std::string(cColsName) +
                  " = " + std::to_string(p.m) + " x " + std::to_string(cCols) +
                  " " + dtypeInfo(type).name.str() +
                  " tensor with leading dimension " + info.operandLd.str()
            : info.operand.str() + ", a vector of " +
                  (byRow  ? "M = " + std::to_string(p.m)
                   : half ? "N/2 = " + std::to_string(cCols)
                          : "N = " + std::to_string(p.n)) +
                  " " + dtypeInfo(type).name.str();
    if (arg.ptr == 0)
      return fail("kernel '" + kernel.entryName + "' applies " +
                  formatEpilogueOp(op) + ": pass " + what + " (" +
                  info.operand.str() + " is null)");
    if (rt::Status s = checkPointer(info.operand.str().c_str(), arg.ptr,
                                    dtypeBits(type) / 8,
                                    "its elements are read one by one");
        !s)
      return s;
    if (!info.operandLd.empty())
      if (rt::Status s = checkLd(info.operandLd.str().c_str(), arg.ld,
                                 cColsName, cCols, type, 1);
          !s)
        return s;
  }
  for (const EpilogueOpInfo *info : epilogueOperandRoles()) {
    std::string name = info->operand.str();
    rt::DevicePtr ptr = p.operand(info->kind).ptr;
    if (ptr == 0 && hasParam(kernel, name.c_str()))
      return fail("kernel '" + kernel.entryName + "' reads a " + name +
                  " vector, but " + name + " is null");
    if (ptr != 0 && !hasParam(kernel, name.c_str()))
      return fail("kernel '" + kernel.entryName + "' has no " + name +
                  " op in its epilogue, but " + name +
                  " is set; pass 0 or add the op (epilogue " + name +
                  (info->takesAxis ? "(col)" : "") + " ...)");
  }
  if (rt::Status s = checkBlockScales(kernel, p); !s)
    return s;
  if (rt::Status s = checkWeightQuant(kernel, p); !s)
    return s;
  if (rt::Status s = checkBatch(kernel, p); !s)
    return s;
  if (rt::Status s = checkGroup(kernel, p); !s)
    return s;
  if (!hasParam(kernel, "alpha") && (p.alpha != 1.0f || p.beta != 0.0f))
    return fail("kernel '" + kernel.entryName +
                "' has no alpha/beta parameters (C = A * B^T); alpha = " +
                std::to_string(p.alpha) + ", beta = " + std::to_string(p.beta) +
                " need a kernel with epilogue scalars; 1 and 0 are legal");
  return rt::success();
}

rt::Result<std::vector<std::optional<rt::TensorMapDesc>>>
gemmTensorMaps(const GemmKernelBinary &kernel, const GemmProblem &p) {
  std::vector<std::optional<rt::TensorMapDesc>> maps;
  for (const TensorMapPlan &plan : kernel.tensorMaps) {
    auto type = plan.packedWeight ? std::optional(rt::TensorMapDTypeKind::U64)
                                  : tensorMapType(plan.dtype);
    if (!type)
      return fail("tensor map " + plan.param + ": element type " +
                  dtypeInfo(plan.dtype).name.str() + " has no TMA data type");
    uint64_t rows, cols, ld;
    int64_t stride;
    rt::DevicePtr base;
    switch (plan.matrix) {
    case 'A':
      rows = uint64_t(p.m), cols = uint64_t(p.k), ld = uint64_t(p.lda);
      base = p.a, stride = p.strideA;
      break;
    case 'B':
      rows = uint64_t(p.n), cols = uint64_t(p.k), ld = uint64_t(p.ldb);
      base = p.b, stride = p.strideB;
      if (plan.packedWeight) { // 16 channels x 4 (8) bits: 1 (2) u64 per k.
        uint64_t perK = dtypeBits(plan.dtype) / 4;
        rows = uint64_t(p.n) / 16, cols = ld = uint64_t(p.k) * perK;
      }
      break;
    case 'S':
    case 'Z': {
      // [ceil(K / G), N], N contiguous (checkWeightQuant).
      unsigned group = kernel.weightQuant ? kernel.weightQuant->group : 1;
      rows = uint64_t((p.k + group - 1) / group), cols = uint64_t(p.n);
      ld = uint64_t(p.n);
      base = plan.matrix == 'S' ? p.sb : p.zb, stride = 0;
      break;
    }
    default: // C: M x N, or M x N/2 with swiglu.
      rows = uint64_t(p.m),
      cols = uint64_t(epilogueOutputCols(kernel.epilogueOps, p.n));
      ld = uint64_t(p.ldc);
      base = p.c, stride = p.strideC;
      break;
    }
    auto [inner, outer] = plan.dims(rows, cols);
    rt::TensorMapDesc desc = rt::TensorMapDesc::matrix2d(
        *type, base, outer, inner, ld, plan.boxOuter, plan.boxInner,
        rt::tensorMapSwizzleOfBytes(plan.swizzleBytes));
    if (plan.batched && kernel.group) {
      // Grouped (codegen/Sm90Group.h): G dense matrices, the group
      // outermost with a box extent of 1.
      desc.rank = 3;
      desc.globalDims[2] = uint64_t(p.groups);
      desc.globalStrides[1] = ld * outer * (dtypeBits(plan.dtype) / 8);
      desc.boxDims[2] = 1;
    } else if (plan.batched) {
      // Rank 3, the batch outermost with a box extent of 1. A single batch
      // never steps along it: any legal stride does (checkBatch refuses a
      // stride of 0 for more than one).
      uint64_t bytes = dtypeBits(plan.dtype) / 8;
      uint64_t oneMatrix = (ld * outer * bytes + 15) / 16 * 16;
      desc.rank = 3;
      desc.globalDims[2] = uint64_t(p.batch);
      desc.globalStrides[1] = stride > 0 ? uint64_t(stride) * bytes
                                         : std::max<uint64_t>(oneMatrix, 16);
      desc.boxDims[2] = 1;
    }
    desc.l2Promotion = l2Promotion(plan.l2PromotionBytes);
    // Stores never fill; loads read zeros past the extents.
    desc.oobFill = rt::TensorMapOobFillKind::Zero;
    rt::Status s = rt::validateTensorMap(desc);
    uint64_t innerBytes = inner * dtypeBits(plan.dtype) / 8;
    if (s && plan.store && innerBytes % 16 != 0)
      s = fail("a stored extent of " + std::to_string(inner) + " " +
               dtypeInfo(plan.dtype).name.str() + " (" +
               std::to_string(innerBytes) +
               " bytes) is not whole 16-byte units; the store would write "
               "past it");
    if (!s) {
      if (!plan.fallbackFlag.empty()) {
        maps.push_back(std::nullopt);
        continue;
      }
      return s.error().withContext("tensor map " + plan.param + " of " +
                                   std::string(1, plan.matrix) + " (" +
                                   rt::describeTensorMap(desc) + ")");
    }
    maps.push_back(desc);
  }
  return maps;
}

rt::Result<GemmLauncher> GemmLauncher::create(GemmKernelBinary kernel,
                                              unsigned smCount) {
  auto module = rt::Module::loadPtx(kernel.ptx);
  if (!module)
    return module.error().withContext("loading the " +
                                      archInfo(kernel.arch).name.str() +
                                      " kernel '" + kernel.entryName + "'");
  auto fn = module->function(kernel.entryName);
  if (!fn)
    return fn.error();
  rt::Function function = *fn;
  return GemmLauncher(std::make_unique<GemmKernelBinary>(std::move(kernel)),
                      module.take(), std::move(function), smCount);
}

rt::Status GemmLauncher::launch(const GemmProblem &p, CUstream_st *stream) {
  auto prepared = prepare(p, stream);
  if (!prepared)
    return prepared.error();
  return launch(*prepared);
}

rt::Status GemmLauncher::launch(const PreparedGemm &prepared) const {
  // prepare() ran rt::checkLaunch on this config and these arguments.
  return rt::launchChecked(fn, prepared.config, prepared.args);
}

rt::Result<PreparedGemm> GemmLauncher::prepare(const GemmProblem &p,
                                               CUstream_st *stream) {
  const GemmKernelBinary &kernel = *binary;
  if (rt::Status s = checkGemmProblem(kernel, p); !s)
    return s.error();
  auto descs = gemmTensorMaps(kernel, p);
  if (!descs)
    return descs.error();
  std::vector<rt::TensorMap> maps;
  std::map<std::string, int32_t> flags; // fallbackFlag -> map usable
  for (size_t i = 0; i < descs->size(); ++i) {
    const std::optional<rt::TensorMapDesc> &desc = (*descs)[i];
    const TensorMapPlan &plan = kernel.tensorMaps[i];
    if (!plan.fallbackFlag.empty())
      flags[plan.fallbackFlag] = desc ? 1 : 0;
    if (!desc) {
      maps.push_back(rt::TensorMap{}); // zeroed; the kernel does not read it
      continue;
    }
    auto map = rt::encodeTensorMap(*desc);
    if (!map)
      return map.error().withContext("tensor map " +
                                     rt::describeTensorMap(*desc));
    maps.push_back(*map);
  }
  uint64_t workspaceBytes = kernel.workspaceBytes(p.m, p.n);
  uint64_t counterBytes = kernel.counterBytes(p.m, p.n);
  if (workspaceBytes > workspace.size()) {
    auto buffer = rt::DeviceBuffer::allocate(workspaceBytes);
    if (!buffer)
      return buffer.error().withContext("split-K workspace");
    retired.push_back(std::move(workspace));
    workspace = buffer.take();
  }
  if (counterBytes > counters.size()) {
    // The kernel leaves every counter at zero, so they are zeroed once.
    auto buffer = rt::DeviceBuffer::allocate(counterBytes);
    if (!buffer)
      return buffer.error().withContext("split-K counters");
    if (rt::Status s = buffer->fillBytes(0); !s)
      return s.error().withContext("zeroing split-K counters");
    retired.push_back(std::move(counters));
    counters = buffer.take();
  }

  // Swap-AB makes the kernel's A role the user's B.
  int64_t rowsA = kernel.swapAB ? p.n : p.m, rowsB = kernel.swapAB ? p.m : p.n;
  PreparedGemm prepared;
  rt::KernelArgs &args = prepared.args;
  size_t nextMap = 0;
  for (const KernelParam &param : kernel.params) {
    const std::string &name = param.name;
    auto i32 = [&](int64_t v) { args.add(static_cast<int32_t>(v)); };
    if (param.kind == KernelParam::TensorMap) {
      if (nextMap >= maps.size())
        return fail("kernel parameter '" + name +
                    "' is a tensor map with no "
                    "TensorMapPlan");
      args.add(maps[nextMap++]);
    } else if (name == "A")
      args.add(p.a);
    else if (name == "B")
      args.add(p.b);
    else if (name == "C" || name == "c")
      args.add(p.c);
    else if (name == "M")
      i32(p.m);
    else if (name == "N")
      i32(p.n);
    else if (name == "K" || name == "k")
      i32(p.k);
    else if (name == "lda")
      i32(p.lda);
    else if (name == "ldb")
      i32(p.ldb);
    else if (name == "ldc")
      i32(p.ldc);
    else if (name == "rowsA")
      i32(rowsA);
    else if (name == "rowsB")
      i32(rowsB);
    else if (name == "alpha")
      args.add(p.alpha);
    else if (name == "beta")
      args.add(p.beta);
    else if (const EpilogueOpInfo *role = findEpilogueOperand(name)) {
      if (name == role->operand)
        args.add(p.operand(role->kind).ptr);
      else
        i32(p.operand(role->kind).ld);
    } else if (name == "sfa")
      args.add(p.sfa);
    else if (name == "sfb")
      args.add(p.sfb);
    else if (name == "sb")
      args.add(p.sb);
    else if (name == "zb")
      args.add(p.zb);
    else if (name == "batch")
      i32(kernel.batch ? p.batch : 1);
    else if (name == "strideA")
      args.add(int64_t(p.strideA));
    else if (name == "strideB")
      args.add(int64_t(p.strideB));
    else if (name == "strideC")
      args.add(int64_t(p.strideC));
    else if (name == "groups")
      i32(p.groups);
    else if (name == "groupIndex")
      args.add(p.groupIndex);
    else if (name == "groupRows")
      args.add(p.groupRows);
    else if (name == "workspace")
      args.add(workspace.ptr());
    else if (name == "counters")
      args.add(counters.ptr());
    else if (flags.count(name))
      i32(flags[name]);
    else
      return fail("kernel parameter '" + name + "' of '" + kernel.entryName +
                  "' has no value the launcher knows");
  }
  rt::LaunchConfig &config = prepared.config;
  // A masked grouped kernel's grid walks its groups (GemmKernelBinary::grid).
  Dim3 grid = kernel.grid(p.m, p.n, p.k, smCount,
                          uint64_t(kernel.group ? p.groups : p.batch));
  config.grid = {grid.x, grid.y, grid.z};
  config.block = {kernel.blockThreads, 1, 1};
  config.cluster = {kernel.cluster.x, kernel.cluster.y, kernel.cluster.z};
  config.dynamicSharedBytes = kernel.sharedBytes;
  config.programmaticSerialization = kernel.dependentLaunch;
  config.stream = stream;
  if (rt::Status s = rt::checkLaunch(fn, config, prepared.args); !s)
    return s.error();
  return prepared;
}

rt::Status launchGemm(const GemmKernelBinary &kernel, rt::DevicePtr a,
                      rt::DevicePtr b, rt::DevicePtr c, int64_t m, int64_t n,
                      int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                      float alpha, float beta, CUstream_st *stream) {
  GemmProblem problem{a, b, c, m, n, k, lda, ldb, ldc, alpha, beta};
  // Check before loading anything, so bad arguments never touch the GPU.
  if (rt::Status s = checkGemmProblem(kernel, problem); !s)
    return s;
  auto api = rt::driverApi();
  if (!api)
    return api.error();
  CUcontext ctx = nullptr;
  if (rt::Status s =
          rt::checkCuda(**api, (*api)->ctxGetCurrent(&ctx), "cuCtxGetCurrent");
      !s)
    return s;
  if (!ctx)
    return fail("no current CUDA context; create an rt::Context first");
  static std::mutex mutex;
  static std::map<std::pair<CUcontext, std::string>, GemmLauncher> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::pair{ctx, kernel.entryName + '\0' + kernel.ptx};
  auto it = cache.find(key);
  if (it == cache.end()) {
    auto launcher = GemmLauncher::create(kernel);
    if (!launcher)
      return launcher.error();
    it = cache.emplace(std::move(key), launcher.take()).first;
  }
  return it->second.launch(problem, stream);
}

} // namespace tilec
