//===- tests/oracle/GpuBackend.cuh - The same CUTLASS GEMM on the GPU -----===//
//
// Included by CutlassGemmOracle.cu when built with -DORACLE_GPU
// (scripts/gpu-oracle.sh, on a machine with an sm_90 GPU): --gpu runs the
// kernel the simulator ran, through the same CUTLASS host code, on the GPU
// with the same inputs, its TMA descriptors encoded by the real driver
// (cuTensorMapEncodeTiled from cudaGetDriverEntryPointByVersion), and
// requires its D to match the CPU reference and the simulator's D bit for
// bit.
//
//===----------------------------------------------------------------------===//

/// Reports a failed CUDA runtime call and returns true.
bool cudaFailed(cudaError_t error, const char *what) {
  if (error == cudaSuccess)
    return false;
  std::printf("FAIL: %s: %s\n", what, cudaGetErrorString(error));
  return true;
}

struct GpuMemory final : Memory {
  std::vector<void *> owned;
  ~GpuMemory() override {
    for (void *p : owned)
      cudaFree(p);
  }
  void *allocate(std::size_t bytes) override {
    void *p = nullptr;
    if (cudaFailed(cudaMalloc(&p, bytes), "cudaMalloc"))
      std::exit(1);
    owned.push_back(p);
    return p;
  }
  void upload(void *dst, const void *src, std::size_t bytes) override {
    cudaFailed(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice),
               "cudaMemcpy to the GPU");
  }
  void download(void *dst, const void *src, std::size_t bytes) override {
    cudaFailed(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost),
               "cudaMemcpy from the GPU");
  }
  void fill(void *dst, unsigned char byte, std::size_t bytes) override {
    cudaFailed(cudaMemset(dst, byte, bytes), "cudaMemset");
  }
};

/// CUTLASS's launches, on the GPU with cudaLaunchKernelExC and a cluster.
struct GpuHostAdapter final : cutlass::CudaHostAdapter {
  const Options &options;
  explicit GpuHostAdapter(const Options &options) : options(options) {}

  cutlass::Status query_occupancy(int32_t *sms, int32_t *occupancy, int32_t,
                                  int32_t, int32_t) const override {
    *sms = options.sms;
    *occupancy = 1;
    return cutlass::Status::kSuccess;
  }
  cutlass::Status launch(dim3 grid, dim3 block, size_t smem, cudaStream_t s,
                         void **params, int32_t index) const override {
    return launch(grid, dim3(1, 1, 1), dim3(0, 0, 0), block, smem, s, params,
                  index);
  }
  cutlass::Status launch(dim3 grid, dim3 cluster, dim3 block, size_t smem,
                         cudaStream_t s, void **params,
                         int32_t index) const override {
    return launch(grid, cluster, dim3(0, 0, 0), block, smem, s, params, index);
  }
  cutlass::Status launch(dim3 grid, dim3 cluster, dim3, dim3 block, size_t smem,
                         cudaStream_t stream, void **params,
                         int32_t) const override {
    if (cudaFailed(cudaFuncSetAttribute(
                       KernelEntry, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       int(smem)),
                   "cudaFuncSetAttribute"))
      return cutlass::Status::kErrorInternal;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = cluster.x ? cluster.x : 1;
    attribute[0].val.clusterDim.y = cluster.y ? cluster.y : 1;
    attribute[0].val.clusterDim.z = cluster.z ? cluster.z : 1;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    config.attrs = attribute;
    config.numAttrs = 1;
    if (cudaFailed(cudaLaunchKernelExC(&config, KernelEntry, params),
                   "cudaLaunchKernelExC") ||
        cudaFailed(cudaDeviceSynchronize(), "the kernel"))
      return cutlass::Status::kErrorInternal;
    return cutlass::Status::kSuccess;
  }
#if defined(CUDA_HOST_ADAPTER_TENSORMAP_ENABLED)
  CUresult tensorMapEncodeIm2col(CUtensorMap *, CUtensorMapDataType, cuuint32_t,
                                 void *, const cuuint64_t *, const cuuint64_t *,
                                 const int *, const int *, cuuint32_t,
                                 cuuint32_t, const cuuint32_t *,
                                 CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion,
                                 CUtensorMapFloatOOBfill) const override {
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  CUresult tensorMapEncodeTiled(
      CUtensorMap *map, CUtensorMapDataType dtype, cuuint32_t rank,
      void *address, const cuuint64_t *dims, const cuuint64_t *strides,
      const cuuint32_t *box, const cuuint32_t *elementStrides,
      CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
      CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) const override {
    return cuTensorMapEncodeTiled(map, dtype, rank, address, dims, strides, box,
                                  elementStrides, interleave, swizzle, l2, oob);
  }
  CUresult tensorMapReplaceAddress(CUtensorMap *, void *) const override {
    return CUDA_ERROR_NOT_SUPPORTED;
  }
#endif

protected:
  cutlass::Status memsetDeviceImpl(void *dst, const void *value,
                                   size_t valueBytes, size_t count,
                                   cudaStream_t) const override {
    std::vector<unsigned char> bytes(valueBytes * count);
    for (size_t i = 0; i < count; ++i)
      std::memcpy(bytes.data() + i * valueBytes, value, valueBytes);
    return cudaFailed(cudaMemcpy(dst, bytes.data(), bytes.size(),
                                 cudaMemcpyHostToDevice),
                      "workspace fill")
               ? cutlass::Status::kErrorInternal
               : cutlass::Status::kSuccess;
  }
};

/// Runs the kernel on the GPU; true when anything failed or differs.
bool runOnGpu(const Problem &p, const Options &o,
              const std::vector<ElementD> &simD,
              const std::vector<ElementD> &want) {
  void *encoder = nullptr;
  cudaDriverEntryPointQueryResult found;
  if (cudaFailed(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled",
                                                  &encoder, 12000,
                                                  cudaEnableDefault, &found),
                 "cudaGetDriverEntryPointByVersion") ||
      found != cudaDriverEntryPointSuccess) {
    std::printf("FAIL: the driver has no cuTensorMapEncodeTiled\n");
    return true;
  }
  tilec::oracle::setRealTensorMapEncoder(
      reinterpret_cast<tilec::oracle::TensorMapEncoder>(encoder));
  GpuMemory memory;
  GpuHostAdapter adapter(o);
  std::vector<ElementD> d;
  std::string error = runGemm(p, o, memory, adapter, d);
  tilec::oracle::setRealTensorMapEncoder(nullptr);
  if (!error.empty()) {
    std::printf("FAIL: on the GPU: %s\n", error.c_str());
    return true;
  }
  std::size_t wrong = countWrong(p, d, want, true);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < d.size(); ++i)
    differ += std::memcmp(&d[i], &simD[i], sizeof(ElementD)) != 0;
  std::printf("GPU vs CPU reference: %zu of %zu elements wrong; GPU vs "
              "simulator: %zu differ (bit for bit)\n",
              wrong, d.size(), differ);
  return wrong || differ;
}
