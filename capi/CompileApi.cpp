//===- capi/CompileApi.cpp - tilec_compile and the kernel accessors -------===//
//
// The C face of tilec::Compiler (compiler/Compiler.h): options from the
// caller's struct (only the fields its struct_size covers), the compile, and
// read-only views of the CompiledKernel. The lowered text is computed on
// first use, by the same compiler, so a disk-cache hit stays a file read.
//
//===----------------------------------------------------------------------===//
#include "capi/CApi.h"

#include "ir/arch/Arch.h"
#include "ir/arch/DType.h"
#include "ir/arch/MajorKind.h"
#include "ir/tile/EpilogueOps.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

using namespace tilec;
using tilec::capi::fail;
using tilec::capi::guard;

namespace {

/// Whether the caller's struct (of \p size bytes) has the member ending at
/// \p end.
bool covers(size_t size, size_t end) { return size >= end; }

#define TILEC_HAS(options, member)                                             \
  covers((options)->struct_size,                                               \
         offsetof(tilec_compile_options, member) + sizeof((options)->member))

tilec_status readOptions(const tilec_compile_options *in, CompileOptions &out,
                         std::string &sourceName) {
  if (!in)
    return TILEC_OK;
  if (in->struct_size < sizeof(size_t))
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "tilec_compile_options.struct_size is " +
                    std::to_string(in->struct_size) +
                    "; set it to sizeof(tilec_compile_options)");
  if (TILEC_HAS(in, kernel) && in->kernel)
    out.kernel = in->kernel;
  if (TILEC_HAS(in, arch) && in->arch) {
    std::optional<ArchKind> arch = parseArch(in->arch);
    if (!arch)
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  std::string("unknown arch '") + in->arch +
                      "' (legal: sm_80, sm_90a, sm_100a)");
    out.arch = arch;
  }
  if (TILEC_HAS(in, line_info))
    out.lineInfo = in->line_info != 0;
  if (TILEC_HAS(in, source_name) && in->source_name)
    sourceName = in->source_name;
  return TILEC_OK;
}

/// The tilec_vector_axis of \p op's operand: its axis, a column vector
/// after \p swiglu following C's N/2 columns; none for a matrix or no
/// operand.
int vectorAxis(const EpilogueOp &op, const EpilogueOp *swiglu) {
  return op.axis == EpilogueAxis::Row   ? TILEC_AXIS_ROW
         : op.axis != EpilogueAxis::Col ? TILEC_AXIS_NONE
         : swiglu && &op > swiglu       ? TILEC_AXIS_OUT_COL
                                        : TILEC_AXIS_COL;
}

} // namespace

extern "C" {

tilec_status tilec_compiler_create(tilec_compiler *out) {
  return guard([&] {
    if (!out)
      return fail(TILEC_ERROR_INVALID_ARGUMENT, "out is null");
    *out = new tilec_compiler_impl{std::make_shared<Compiler>()};
    return capi::ok();
  });
}

void tilec_compiler_destroy(tilec_compiler compiler) { delete compiler; }

tilec_status tilec_compile(tilec_compiler compiler, const char *source,
                           size_t length, const tilec_compile_options *options,
                           tilec_kernel *out) {
  return guard([&] {
    if (!compiler || !source || !out)
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  "tilec_compile: compiler, source and out must not be null");
    *out = nullptr;
    auto kernel = std::make_unique<tilec_kernel_impl>();
    if (tilec_status s =
            readOptions(options, kernel->options, kernel->sourceName);
        s != TILEC_OK)
      return s;
    kernel->source.assign(source, length);
    auto compiled =
        compiler->compiler->compile(kernel->source, kernel->options);
    if (!compiled)
      return fail(TILEC_ERROR_COMPILE,
                  capi::renameSource(llvm::toString(compiled.takeError()),
                                     kernel->sourceName));
    kernel->kernel = *compiled;
    kernel->compiler = compiler->compiler;
    *out = kernel.release();
    return capi::ok();
  });
}

void tilec_kernel_destroy(tilec_kernel kernel) { delete kernel; }

const char *tilec_kernel_ptx(tilec_kernel kernel) {
  return kernel ? kernel->kernel->ptx.c_str() : nullptr;
}

const char *tilec_kernel_entry_name(tilec_kernel kernel) {
  return kernel ? kernel->kernel->entryName.c_str() : nullptr;
}

const char *tilec_kernel_arch(tilec_kernel kernel) {
  return kernel ? archInfo(kernel->kernel->arch).name.data() : nullptr;
}

tilec_status tilec_kernel_lowered(tilec_kernel kernel, const char **out) {
  return guard([&] {
    if (!kernel || !out)
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  "kernel and out must not be null");
    std::call_once(kernel->loweredOnce, [&] {
      auto lowered = kernel->compiler->lower(kernel->source, kernel->options);
      if (lowered)
        kernel->lowered = (*lowered)->loweredIR;
      else
        kernel->loweredError = capi::renameSource(
            llvm::toString(lowered.takeError()), kernel->sourceName);
    });
    if (!kernel->lowered)
      return fail(TILEC_ERROR_COMPILE, kernel->loweredError);
    *out = kernel->lowered->c_str();
    return capi::ok();
  });
}

unsigned tilec_kernel_shared_bytes(tilec_kernel kernel) {
  return kernel ? kernel->kernel->sharedBytes : 0;
}

unsigned tilec_kernel_block_threads(tilec_kernel kernel) {
  return kernel ? kernel->kernel->blockThreads : 0;
}

size_t tilec_kernel_param_count(tilec_kernel kernel) {
  return kernel ? kernel->kernel->params.size() : 0;
}

const char *tilec_kernel_param_name(tilec_kernel kernel, size_t index) {
  if (!kernel || index >= kernel->kernel->params.size())
    return nullptr;
  return kernel->kernel->params[index].name.c_str();
}

int tilec_kernel_param_kind(tilec_kernel kernel, size_t index) {
  if (!kernel || index >= kernel->kernel->params.size())
    return -1;
  switch (kernel->kernel->params[index].kind) {
  case KernelParam::Pointer:
    return TILEC_PARAM_POINTER;
  case KernelParam::I32:
    return TILEC_PARAM_I32;
  case KernelParam::I64:
    return TILEC_PARAM_I64;
  case KernelParam::F32:
    return TILEC_PARAM_F32;
  case KernelParam::TensorMap:
    return TILEC_PARAM_TENSOR_MAP;
  }
  return -1;
}

void tilec_kernel_grid(tilec_kernel kernel, int64_t m, int64_t n, int64_t k,
                       unsigned smCount, unsigned grid[3]) {
  tilec_kernel_grid_batched(kernel, m, n, k, smCount, 1, grid);
}

void tilec_kernel_grid_batched(tilec_kernel kernel, int64_t m, int64_t n,
                               int64_t k, unsigned smCount, int64_t batch,
                               unsigned grid[3]) {
  if (!grid)
    return;
  Dim3 dim{0, 0, 0};
  if (kernel && m > 0 && n > 0 && k > 0 && batch >= 0)
    dim = kernel->kernel->grid(m, n, k, smCount,
                               uint64_t(std::max<int64_t>(batch, 1)));
  grid[0] = dim.x, grid[1] = dim.y, grid[2] = dim.z;
}

tilec_status tilec_kernel_operands(tilec_kernel kernel,
                                   tilec_kernel_operand_info *out) {
  if (!kernel || !out || out->struct_size < sizeof(size_t))
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "kernel and out must not be null and out->struct_size set");
  const GemmKernelBinary &k = *kernel->kernel;
  tilec_kernel_operand_info info{};
  info.struct_size = sizeof info;
  // The names are llvm::StringRefs into static tables, NUL-terminated.
  info.a_type = dtypeInfo(k.aType).name.data();
  info.b_type = dtypeInfo(k.bType).name.data();
  info.c_type = dtypeInfo(k.cType).name.data();
  info.a_major = majorName(k.aMajor).data();
  info.b_major = majorName(k.bMajor).data();
  info.fixed_m = k.fixedM;
  info.fixed_n = k.fixedN;
  info.fixed_k = k.fixedK;
  info.ldc_multiple = k.ldcMultiple;
  info.c_align_bytes = k.cAlignBytes;
  info.batched = k.batch.has_value();
  info.a_batched = k.batch && k.batch->aBatched;
  info.b_batched = k.batch && k.batch->bBatched;
  info.batch_fixed = k.batch ? k.batch->fixedCount : 0;
  // API 6: the epilogue ops' operands (ir/tile/EpilogueOps.h: each read at most
  // once; a column vector after swiglu follows C's N/2 columns).
  const EpilogueOp *swiglu = findSwiglu(k.epilogueOps);
  for (const EpilogueOp &op : k.epilogueOps) {
    const char *type = dtypeInfo(epilogueOperandType(op, k.cType)).name.data();
    int axis = vectorAxis(op, swiglu);
    if (op.kind == EpilogueOpKind::Bias) {
      info.bias_type = type;
      info.bias_axis = axis;
    } else if (op.kind == EpilogueOpKind::Scale) {
      info.scale_axis = axis;
    } else if (op.kind == EpilogueOpKind::Residual) {
      info.residual_type = type;
    }
  }
  info.swiglu = !swiglu                                             ? 0
                : swiglu->pairing == SwigluPairingKind::Interleaved ? 2
                                                                    : 1;
  info.tile_n = k.tileN;
  for (const KernelParam &param : k.params)
    info.block_scaled |= param.name == "sfa";
  // API 7: grouped kernels (ir/tile/GemmSpec.h GroupSpec).
  if (k.group) {
    info.group_kind = k.group->kind == GroupKind::Masked
                          ? TILEC_GROUP_MASKED
                          : TILEC_GROUP_CONTIGUOUS;
    info.group_fixed = k.group->fixedCount;
  }
  // API 9: SFA's layout.
  info.sfa_m_major = info.block_scaled && k.sfaMajor == MajorKind::MN;
  // API 12: a 4-bit weight's group scales and zero points.
  if (k.weightQuant) {
    info.weight_group = k.weightQuant->group;
    info.weight_scale_type = dtypeInfo(k.weightQuant->scaleType).name.data();
    info.weight_zeros = k.weightQuant->zeros;
  }
  size_t size = std::min(out->struct_size, sizeof info);
  std::memcpy(out, &info, size);
  out->struct_size = size;
  return capi::ok();
}

tilec_status tilec_kernel_epilogue_operand(tilec_kernel kernel, size_t index,
                                           tilec_epilogue_operand_info *out) {
  if (!kernel || !out || out->struct_size < sizeof(size_t))
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "kernel and out must not be null and out->struct_size set");
  const GemmKernelBinary &k = *kernel->kernel;
  const EpilogueOp *swiglu = findSwiglu(k.epilogueOps);
  size_t seen = 0;
  for (const EpilogueOp &op : k.epilogueOps) {
    const EpilogueOpInfo &row = epilogueOpInfo(op.kind);
    if (row.operand.empty() || seen++ != index)
      continue;
    tilec_epilogue_operand_info info{};
    info.struct_size = sizeof info;
    // StringRefs into static tables, NUL-terminated.
    info.role = row.operand.data();
    info.type = dtypeInfo(epilogueOperandType(op, k.cType)).name.data();
    info.ld = row.operandLd.empty() ? nullptr : row.operandLd.data();
    info.axis = vectorAxis(op, swiglu);
    size_t size = std::min(out->struct_size, sizeof info);
    std::memcpy(out, &info, size);
    out->struct_size = size;
    return capi::ok();
  }
  return fail(TILEC_ERROR_INVALID_ARGUMENT,
              "index " + std::to_string(index) +
                  ": the kernel's epilogue ops "
                  "read " +
                  std::to_string(seen) + " operand" + (seen == 1 ? "" : "s"));
}

} // extern "C"
