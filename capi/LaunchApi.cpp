//===- capi/LaunchApi.cpp - Contexts, device memory and GEMM launches -----===//
//
// The C face of the runtime (runtime/Device.h, runtime/DeviceBuffer.h) and
// of compiler/GemmLauncher.h. tilec_gemm_args is read field by field up to
// the caller's struct_size, so operands appended later (API 2: the epilogue
// vectors bias and scale) keep their defaults for older callers. Arguments are
// checked (checkGemmProblem) before anything is launched.
//
// Example (simulator): TILEC_DEVICE=sim, tilec_context_create(0, &ctx),
// tilec_device_alloc for A, B, C, tilec_launcher_create(kernel, 0, &l),
// tilec_launch(l, &args, NULL), tilec_context_synchronize(ctx).
//
//===----------------------------------------------------------------------===//
#include "capi/CApi.h"

#include "compiler/GemmLauncher.h"
#include "runtime/Device.h"
#include "runtime/DeviceBuffer.h"

#include <cstddef>
#include <map>

using namespace tilec;
using tilec::capi::fail;
using tilec::capi::guard;

struct tilec_context_impl {
  rt::Context context;
};

struct tilec_launcher_impl {
  GemmLauncher launcher;
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

GemmProblem readProblem(const tilec_gemm_args *args) {
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
  p.bias = TILEC_ARG(args, bias, 0);
  p.scale = TILEC_ARG(args, scale, 0);
  return p;
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
    *out = new tilec_launcher_impl{launcher.take()};
    return capi::ok();
  });
}

void tilec_launcher_destroy(tilec_launcher launcher) { delete launcher; }

tilec_status tilec_launch(tilec_launcher launcher, const tilec_gemm_args *args,
                          void *stream) {
  return guard([&] {
    if (!launcher || !args)
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  "launcher and args must not be null");
    if (args->struct_size < sizeof(size_t))
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  "tilec_gemm_args.struct_size is " +
                      std::to_string(args->struct_size) +
                      "; set it to sizeof(tilec_gemm_args)");
    GemmProblem problem = readProblem(args);
    if (rt::Status s = checkGemmProblem(launcher->launcher.kernel(), problem);
        !s)
      return fail(TILEC_ERROR_LAUNCH_ARGUMENT, s.error().getMessage());
    if (rt::Status s = launcher->launcher.launch(
            problem, static_cast<CUstream_st *>(stream));
        !s)
      return runtimeError(s.error());
    return capi::ok();
  });
}

} // extern "C"
