//===- tests/oracle/NoCudaRuntime.cpp - No CUDA runtime: the simulator's run //
//
// The CUTLASS oracle's simulator build links no CUDA runtime (nvcc
// -cudart none): with no driver, every runtime call fails, and CUTLASS's
// GemmUniversalAdapter::run reads cudaGetLastError after its launch. These
// are the runtime entry points nvcc's host code and CUTLASS's launch path
// reference: the fat binary's registration (nothing to register: the
// simulator loads the PTX file), cudaGetLastError (no runtime call is made,
// so none failed), and the <<<>>> launch stub and device queries, which
// must never run (the launch goes through the oracle's
// cutlass::CudaHostAdapter, the SM count comes with the arguments): they
// abort with a message instead. A runtime call not listed here is a link error,
// so the oracle cannot call the runtime by accident.
//
//===----------------------------------------------------------------------===//
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

namespace {
[[noreturn]] void noRuntime(const char *what) {
  std::fprintf(stderr,
               "cutlass-gemm-oracle: %s called, but the simulator build has "
               "no CUDA runtime: launches go through the host adapter\n",
               what);
  std::abort();
}
} // namespace

extern "C" {
void **__cudaRegisterFatBinary(void *) {
  static void *handle = nullptr;
  return &handle;
}
void __cudaRegisterFatBinaryEnd(void **) {}
void __cudaUnregisterFatBinary(void **) {}
void __cudaRegisterFunction(void **, const char *, char *, const char *, int,
                            uint3 *, uint3 *, dim3 *, dim3 *, int *) {}
void __cudaRegisterVar(void **, char *, char *, const char *, int, size_t, int,
                       int) {}
cudaError_t __cudaGetKernel(cudaKernel_t *, const void *) {
  noRuntime("__cudaGetKernel (a <<<>>> launch)");
}
cudaError_t __cudaPopCallConfiguration(dim3 *, dim3 *, size_t *, void *) {
  noRuntime("__cudaPopCallConfiguration (a <<<>>> launch)");
}
cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **, size_t,
                               cudaStream_t) {
  noRuntime("__cudaLaunchKernel (a <<<>>> launch)");
}
cudaError_t cudaGetLastError() { return cudaSuccess; }
// Linked from KernelHardwareInfo::query_device_multiprocessor_count, which
// runs only when the arguments' sm_count is not set; the oracle sets it.
cudaError_t cudaGetDevice(int *) { noRuntime("cudaGetDevice"); }
cudaError_t cudaDeviceGetAttribute(int *, cudaDeviceAttr, int) {
  noRuntime("cudaDeviceGetAttribute");
}
}
