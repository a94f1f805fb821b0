//===- bench/CublasGemm.h - cuBLAS's bf16 GEMM, loaded at run time --------===//
//
// The comparison the benchmarks time tilec against, in the same process and
// on the same context, so that the two can be timed in alternation. cuBLAS
// is opened with dlopen (nothing links it; the toolkit's <cublas_api.h>
// supplies types only), first by soname, then from $TILEC_CUBLAS and the
// toolkit's lib64. libcublas brings its own CUDA runtime, which adopts the
// context current on the thread (tilec's rt::Context makes the primary
// context current), and launches on the legacy default stream, where
// rt::Event records, or on the stream setStream() names.
//
// gemm() computes the row-major C (M x N) = A (M x K) * B (N x K)^T of bf16
// A, B and C with f32 accumulation: in cuBLAS's column-major terms
// C^T = B * A^T, the "TN" call torch.matmul(a, b.t()) makes.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_BENCH_CUBLASGEMM_H
#define TILEC_BENCH_CUBLASGEMM_H

#include "runtime/DeviceBuffer.h"
#include "runtime/Status.h"

#include <cublas_api.h>

#include <cstdlib>
#include <dlfcn.h>
#include <memory>
#include <string>

namespace tilec::bench {

class CublasGemm {
public:
  /// Opens libcublas and creates a handle; an Error names every path tried.
  static rt::Result<std::unique_ptr<CublasGemm>> load() {
    auto gemm = std::unique_ptr<CublasGemm>(new CublasGemm);
    std::string tried;
    std::string candidates[] = {
        "libcublas.so.13",
        std::getenv("TILEC_CUBLAS") ? std::getenv("TILEC_CUBLAS") : "",
        "/usr/local/cuda/lib64/libcublas.so.13"};
    for (const std::string &path : candidates) {
      if (path.empty())
        continue;
      gemm->library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (gemm->library)
        break;
      const char *why = dlerror();
      tried += "\n  " + path + ": " + (why ? why : "not found");
    }
    if (!gemm->library)
      return rt::Error("cuBLAS not found:" + tried);
    gemm->create = reinterpret_cast<decltype(gemm->create)>(
        dlsym(gemm->library, "cublasCreate_v2"));
    gemm->destroy = reinterpret_cast<decltype(gemm->destroy)>(
        dlsym(gemm->library, "cublasDestroy_v2"));
    gemm->gemmEx = reinterpret_cast<decltype(gemm->gemmEx)>(
        dlsym(gemm->library, "cublasGemmEx"));
    gemm->setStreamFn = reinterpret_cast<decltype(gemm->setStreamFn)>(
        dlsym(gemm->library, "cublasSetStream_v2"));
    if (!gemm->create || !gemm->destroy || !gemm->gemmEx || !gemm->setStreamFn)
      return rt::Error("cuBLAS lacks cublasCreate_v2, cublasDestroy_v2, "
                       "cublasSetStream_v2 or cublasGemmEx");
    if (cublasStatus_t st = gemm->create(&gemm->handle);
        st != CUBLAS_STATUS_SUCCESS)
      return rt::Error("cublasCreate failed with status " +
                       std::to_string(int(st)));
    return gemm;
  }

  ~CublasGemm() {
    if (handle)
      destroy(handle);
    if (library)
      dlclose(library);
  }
  CublasGemm(const CublasGemm &) = delete;
  CublasGemm &operator=(const CublasGemm &) = delete;

  /// Makes later calls enqueue on \p stream (null: the default stream).
  rt::Status setStream(CUstream_st *stream) const {
    if (cublasStatus_t st = setStreamFn(handle, stream);
        st != CUBLAS_STATUS_SUCCESS)
      return rt::Error("cublasSetStream failed with status " +
                       std::to_string(int(st)));
    return rt::success();
  }

  /// Enqueues C = A * B^T (row-major bf16, leading dimensions K, K, N).
  rt::Status gemm(rt::DevicePtr a, rt::DevicePtr b, rt::DevicePtr c,
                  unsigned m, unsigned n, unsigned k) const {
    float alpha = 1.0f, beta = 0.0f;
    cublasStatus_t st = gemmEx(
        handle, CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(m), int(k), &alpha,
        reinterpret_cast<const void *>(b), CUDA_R_16BF, int(k),
        reinterpret_cast<const void *>(a), CUDA_R_16BF, int(k), &beta,
        reinterpret_cast<void *>(c), CUDA_R_16BF, int(n), CUBLAS_COMPUTE_32F,
        CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS)
      return rt::Error("cublasGemmEx failed with status " +
                       std::to_string(int(st)));
    return rt::success();
  }

private:
  CublasGemm() = default;

  void *library = nullptr;
  cublasHandle_t handle = nullptr;
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) setStreamFn = nullptr;
  // cublasGemmEx has C++ overloads in the header; this is the C entry point.
  using GemmEx = cublasStatus_t (*)(
      cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
      const void *, const void *, cudaDataType, int, const void *,
      cudaDataType, int, const void *, void *, cudaDataType, int,
      cublasComputeType_t, cublasGemmAlgo_t);
  GemmEx gemmEx = nullptr;
};

} // namespace tilec::bench

#endif // TILEC_BENCH_CUBLASGEMM_H
