//===- capi/LaunchApi.cpp - Contexts, device memory and GEMM launches -----===//
//
// The C face of the runtime (runtime/Device.h, runtime/DeviceBuffer.h) and
// of host/GemmLauncher.h. tilec_gemm_args is read field by field up to
// the caller's struct_size, so operands appended later (API 2: the epilogue
// vectors bias and scale; API 4: the residual and ldr; API 5: the batch and
// its strides; API 6: the block scales sfa and sfb; API 7: the groups and
// group_index / group_rows; API 12: a 4-bit weight's group scales sb and
// zero points zb) keep their defaults for older callers; a grouped
// kernel's groups read as 0 there and are refused by name, as are a 4-bit
// weight kernel's missing sb (checkWeightQuant).
// Arguments are checked (checkGemmProblem) before anything is launched.
//
// API 3, for callers such as PyTorch that launch the same problems many times
// and capture them into CUDA graphs:
//   - a launcher remembers the context it was loaded into (the primary
//     context tilec_context_create retains, which torch uses too) and makes
//     it current for each launch when the calling thread has another or none,
//     restoring the caller's afterwards;
//   - it keeps the last few PreparedGemms (checked arguments, encoded tensor
//     maps) keyed on every argument and the stream, so a repeated launch is
//     one driver call;
//   - tilec_launch_prepare does all but the launch, so that the split-K
//     workspace is allocated before a graph capture, not during it.
//
// Example (simulator): TILEC_DEVICE=sim, tilec_context_create(0, &ctx),
// tilec_device_alloc for A, B, C, tilec_launcher_create(kernel, 0, &l),
// tilec_launch(l, &args, NULL), tilec_context_synchronize(ctx).
//
//===----------------------------------------------------------------------===//
#include "capi/CApi.h"

#include "host/GemmLauncher.h"
#include "runtime/Device.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/DriverApi.h"

#include <array>
#include <cstddef>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

using namespace tilec;
using tilec::capi::fail;
using tilec::capi::guard;

struct tilec_context_impl {
  rt::Context context;
};

/// The arguments and stream a PreparedGemm was made for.
/// Its scalar arguments, then each epilogue operand's pointer and ld.
constexpr size_t PreparedScalars = 23;
using PreparedKey = std::array<uint64_t, PreparedScalars + 2 * EpilogueOpCount>;

struct tilec_launcher_impl {
  GemmLauncher launcher;
  /// The context the module was loaded into (null: none was current, or
  /// the simulator).
  CUcontext context = nullptr;
  std::mutex mutex;
  /// The most recent prepared launches, replaced round robin.
  std::vector<std::pair<PreparedKey, PreparedGemm>> prepared;
  size_t nextSlot = 0;
};

namespace {

tilec_status runtimeError(const rt::Error &error) {
  return fail(TILEC_ERROR_RUNTIME, error.getMessage());
}

/// Device buffers handed out by tilec_device_alloc, by address.
std::mutex buffersMutex;
std::map<uint64_t, rt::DeviceBuffer> &buffers() {
  static std::map<uint64_t, rt::DeviceBuffer> map;
  return map;
}

/// The tilec_device_alloc buffer holding [address, address + bytes), and
/// the offset of address in it; null if none does. Call with buffersMutex.
rt::DeviceBuffer *findBuffer(uint64_t address, size_t bytes, uint64_t &offset) {
  auto it = buffers().upper_bound(address);
  if (it == buffers().begin())
    return nullptr;
  --it;
  offset = address - it->first;
  if (offset > it->second.size() || bytes > it->second.size() - offset)
    return nullptr;
  return &it->second;
}

/// Runs \p copy(buffer, offset) on the tilec_device_alloc buffer holding
/// [device, device + bytes), after checking that there is one.
template <typename Copy>
tilec_status copyChecked(uint64_t device, const void *host, size_t bytes,
                         const char *what, Copy copy) {
  return guard([&] {
    std::lock_guard<std::mutex> lock(buffersMutex);
    uint64_t offset = 0;
    rt::DeviceBuffer *buffer = findBuffer(device, bytes, offset);
    if (!buffer || !host)
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  std::string(what) +
                      ": the host pointer is null or the device range is "
                      "not inside one tilec_device_alloc buffer");
    if (rt::Status s = copy(*buffer, offset); !s)
      return runtimeError(s.error());
    return capi::ok();
  });
}

#define TILEC_ARG(args, member, fallback)                                      \
  ((args)->struct_size >=                                                      \
           offsetof(tilec_gemm_args, member) + sizeof((args)->member)          \
       ? (args)->member                                                        \
       : (fallback))

/// API 16's operands by role into \p p, after the named fields of API 2
/// and 4; an error names a role the table lacks or one given twice.
std::optional<std::string> readOperands(const tilec_gemm_args *args,
                                        GemmProblem &p) {
  const tilec_epilogue_operand *operands = TILEC_ARG(args, operands, nullptr);
  size_t count = TILEC_ARG(args, num_operands, 0);
  if (count && !operands)
    return "num_operands is " + std::to_string(count) + " but operands is null";
  for (size_t i = 0; i < count; ++i) {
    const tilec_epilogue_operand &given = operands[i];
    std::string where = "operands[" + std::to_string(i) + "]";
    llvm::StringRef role = given.role ? given.role : "";
    const EpilogueOpInfo *info = findEpilogueOperand(role);
    if (!info || info->operand != role) {
      std::string legal;
      for (const EpilogueOpInfo *r : epilogueOperandRoles())
        legal += (legal.empty() ? "" : ", ") + r->operand.str();
      return where + ".role '" + role.str() +
             "' is no epilogue operand (legal: " + legal + ")";
    }
    GemmProblem::EpilogueOperand &slot = p.operand(info->kind);
    if (slot.ptr)
      return where + ": " + role.str() +
             " is given twice (twice in operands, or also in its "
             "tilec_gemm_args field)";
    slot = {given.ptr, given.ld};
  }
  return std::nullopt;
}

GemmProblem readProblem(const GemmKernelBinary &kernel,
                        const tilec_gemm_args *args) {
  GemmProblem p;
  p.a = TILEC_ARG(args, a, 0);
  p.b = TILEC_ARG(args, b, 0);
  p.c = TILEC_ARG(args, c, 0);
  p.m = TILEC_ARG(args, m, 0);
  p.n = TILEC_ARG(args, n, 0);
  p.k = TILEC_ARG(args, k, 0);
  p.lda = TILEC_ARG(args, lda, 0);
  p.ldb = TILEC_ARG(args, ldb, 0);
  p.ldc = TILEC_ARG(args, ldc, 0);
  p.alpha = TILEC_ARG(args, alpha, 1.0f);
  p.beta = TILEC_ARG(args, beta, 0.0f);
  // API 2 and 4's named operand fields: the roles' first spellings.
  p.operand(EpilogueOpKind::Bias).ptr = TILEC_ARG(args, bias, 0);
  p.operand(EpilogueOpKind::Scale).ptr = TILEC_ARG(args, scale, 0);
  p.operand(EpilogueOpKind::Residual) = {TILEC_ARG(args, residual, 0),
                                         TILEC_ARG(args, ldr, 0)};
  p.batch = TILEC_ARG(args, batch, 1);
  if (p.batch == 0) // A zeroed struct: one GEMM.
    p.batch = 1;
  p.strideA = TILEC_ARG(args, stride_a, 0);
  p.strideB = TILEC_ARG(args, stride_b, 0);
  p.strideC = TILEC_ARG(args, stride_c, 0);
  p.sfa = TILEC_ARG(args, sfa, 0);
  p.sfb = TILEC_ARG(args, sfb, 0);
  // A zeroed count is one group for an ungrouped kernel; a grouped one
  // needs it set (checkGroup refuses groups = 0 by name).
  p.groups = TILEC_ARG(args, groups, 0);
  if (p.groups == 0 && !kernel.group)
    p.groups = 1;
  p.groupIndex = TILEC_ARG(args, group_index, 0);
  p.groupRows = TILEC_ARG(args, group_rows, 0);
  p.sb = TILEC_ARG(args, sb, 0);
  p.zb = TILEC_ARG(args, zb, 0);
  return p;
}

PreparedKey preparedKey(const GemmProblem &p, void *stream) {
  auto bits = [](float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return uint64_t(u);
  };
  PreparedKey key{p.a,
                  p.b,
                  p.c,
                  uint64_t(p.m),
                  uint64_t(p.n),
                  uint64_t(p.k),
                  uint64_t(p.lda),
                  uint64_t(p.ldb),
                  uint64_t(p.ldc),
                  bits(p.alpha),
                  bits(p.beta),
                  uint64_t(reinterpret_cast<uintptr_t>(stream)),
                  uint64_t(p.batch),
                  uint64_t(p.strideA),
                  uint64_t(p.strideB),
                  uint64_t(p.strideC),
                  p.sfa,
                  p.sfb,
                  uint64_t(p.groups),
                  p.groupIndex,
                  p.groupRows,
                  p.sb,
                  p.zb};
  size_t at = PreparedScalars;
  for (const GemmProblem::EpilogueOperand &operand : p.operands) {
    key[at++] = operand.ptr;
    key[at++] = uint64_t(operand.ld);
  }
  return key;
}

constexpr size_t PreparedSlots = 8;

/// The prepared launch of \p problem on \p stream: from the launcher's
/// recent ones, or checked and prepared now (growing the workspace). Call
/// with launcher.mutex held.
rt::Result<const PreparedGemm *> findOrPrepare(tilec_launcher_impl &launcher,
                                               const GemmProblem &problem,
                                               void *stream) {
  PreparedKey key = preparedKey(problem, stream);
  for (const auto &[k, prepared] : launcher.prepared)
    if (k == key)
      return &prepared;
  rt::Result<PreparedGemm> prepared =
      launcher.launcher.prepare(problem, static_cast<CUstream_st *>(stream));
  if (!prepared)
    return prepared.error();
  if (launcher.prepared.size() < PreparedSlots) {
    launcher.prepared.emplace_back(key, prepared.take());
    return &launcher.prepared.back().second;
  }
  auto &slot = launcher.prepared[launcher.nextSlot];
  launcher.nextSlot = (launcher.nextSlot + 1) % PreparedSlots;
  slot = {key, prepared.take()};
  return &slot.second;
}

/// Makes \p context current on this thread while it lives, when another
/// (or none) is; restores the caller's on destruction.
class ScopedContext {
public:
  explicit ScopedContext(CUcontext context) {
    if (!context)
      return;
    auto api = rt::driverApi();
    if (!api)
      return;
    driver = *api;
    CUcontext current = nullptr;
    if (driver->ctxGetCurrent(&current) != CUDA_SUCCESS || current == context)
      return;
    if (driver->ctxSetCurrent(context) == CUDA_SUCCESS) {
      previous = current;
      switched = true;
    }
  }
  ~ScopedContext() {
    if (switched)
      driver->ctxSetCurrent(previous);
  }
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

private:
  const rt::DriverApi *driver = nullptr;
  CUcontext previous = nullptr;
  bool switched = false;
};

/// The checked problem of \p args, or a status to return.
std::optional<tilec_status> readChecked(tilec_launcher launcher,
                                        const tilec_gemm_args *args,
                                        GemmProblem &problem) {
  if (!launcher || !args)
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "launcher and args must not be null");
  if (args->struct_size < sizeof(size_t))
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "tilec_gemm_args.struct_size is " +
                    std::to_string(args->struct_size) +
                    "; set it to sizeof(tilec_gemm_args)");
  problem = readProblem(launcher->launcher.kernel(), args);
  if (std::optional<std::string> bad = readOperands(args, problem))
    return fail(TILEC_ERROR_LAUNCH_ARGUMENT, *bad);
  if (rt::Status s = checkGemmProblem(launcher->launcher.kernel(), problem); !s)
    return fail(TILEC_ERROR_LAUNCH_ARGUMENT, s.error().getMessage());
  return std::nullopt;
}

/// The current context, or null (no driver, none current).
CUcontext currentContext() {
  auto api = rt::driverApi();
  CUcontext ctx = nullptr;
  if (api && (*api)->ctxGetCurrent(&ctx) != CUDA_SUCCESS)
    ctx = nullptr;
  return ctx;
}

/// tilec_launch (\p launch) and tilec_launch_prepare: check \p args, find
/// or make the prepared launch in the launcher's context, launch it.
tilec_status prepareAndLaunch(tilec_launcher launcher,
                              const tilec_gemm_args *args, void *stream,
                              bool launch) {
  return guard([&] {
    GemmProblem problem;
    if (std::optional<tilec_status> bad = readChecked(launcher, args, problem))
      return *bad;
    std::lock_guard<std::mutex> lock(launcher->mutex);
    ScopedContext scope(launcher->context);
    rt::Result<const PreparedGemm *> prepared =
        findOrPrepare(*launcher, problem, stream);
    if (!prepared)
      return runtimeError(prepared.error());
    if (launch)
      if (rt::Status s = launcher->launcher.launch(**prepared); !s)
        return runtimeError(s.error());
    return capi::ok();
  });
}

} // namespace

extern "C" {

tilec_status tilec_context_create(int ordinal, tilec_context *out) {
  return guard([&] {
    if (!out)
      return fail(TILEC_ERROR_INVALID_ARGUMENT, "out is null");
    *out = nullptr;
    rt::Result<rt::Context> context = rt::Context::create(ordinal);
    if (!context)
      return runtimeError(context.error());
    *out = new tilec_context_impl{context.take()};
    return capi::ok();
  });
}

tilec_status tilec_context_synchronize(tilec_context context) {
  return guard([&] {
    if (!context)
      return fail(TILEC_ERROR_INVALID_ARGUMENT, "context is null");
    if (rt::Status s = context->context.synchronize(); !s)
      return runtimeError(s.error());
    return capi::ok();
  });
}

void tilec_context_destroy(tilec_context context) { delete context; }

tilec_status tilec_device_alloc(size_t bytes, uint64_t *out) {
  return guard([&] {
    if (!out)
      return fail(TILEC_ERROR_INVALID_ARGUMENT, "out is null");
    rt::Result<rt::DeviceBuffer> buffer = rt::DeviceBuffer::allocate(bytes);
    if (!buffer)
      return runtimeError(buffer.error());
    *out = buffer->ptr();
    std::lock_guard<std::mutex> lock(buffersMutex);
    buffers().emplace(*out, buffer.take());
    return capi::ok();
  });
}

tilec_status tilec_device_free(uint64_t ptr) {
  return guard([&] {
    std::lock_guard<std::mutex> lock(buffersMutex);
    if (!buffers().erase(ptr))
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  "tilec_device_free: not an address from tilec_device_alloc");
    return capi::ok();
  });
}

tilec_status tilec_copy_to_device(uint64_t dst, const void *src, size_t bytes) {
  return copyChecked(dst, src, bytes, "tilec_copy_to_device",
                     [&](rt::DeviceBuffer &buffer, uint64_t offset) {
                       return buffer.upload(src, bytes, offset);
                     });
}

tilec_status tilec_copy_to_host(void *dst, uint64_t src, size_t bytes) {
  return copyChecked(src, dst, bytes, "tilec_copy_to_host",
                     [&](rt::DeviceBuffer &buffer, uint64_t offset) {
                       return buffer.download(dst, bytes, offset);
                     });
}

tilec_status tilec_launcher_create(tilec_kernel kernel, unsigned smCount,
                                   tilec_launcher *out) {
  return guard([&] {
    if (!kernel || !out)
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  "kernel and out must not be null");
    *out = nullptr;
    rt::Result<GemmLauncher> launcher =
        GemmLauncher::create(*kernel->kernel, smCount);
    if (!launcher)
      return runtimeError(launcher.error());
    *out =
        new tilec_launcher_impl{launcher.take(), currentContext(), {}, {}, 0};
    return capi::ok();
  });
}

void tilec_launcher_destroy(tilec_launcher launcher) { delete launcher; }

tilec_status tilec_launch(tilec_launcher launcher, const tilec_gemm_args *args,
                          void *stream) {
  return prepareAndLaunch(launcher, args, stream, /*launch=*/true);
}

tilec_status tilec_launch_prepare(tilec_launcher launcher,
                                  const tilec_gemm_args *args, void *stream) {
  return prepareAndLaunch(launcher, args, stream, /*launch=*/false);
}

uint64_t tilec_kernel_workspace_bytes(tilec_kernel kernel, int64_t m,
                                      int64_t n) {
  if (!kernel || m <= 0 || n <= 0)
    return 0;
  const GemmKernelBinary &binary = *kernel->kernel;
  return binary.workspaceBytes(uint64_t(m), uint64_t(n)) +
         binary.counterBytes(uint64_t(m), uint64_t(n));
}

} // extern "C"
