//===- tests/oracle/SimBackend.h - The simulator, as CUTLASS's host sees it
//===//
//
// The small interface the CUTLASS oracle's host program (compiled by nvcc,
// with CUTLASS's headers) uses to reach tilec's PTX simulator (compiled by
// the project's C++ compiler): device memory of the simulator, and a launch
// of the one kernel of a PTX file with the grid, cluster, block and shared
// memory CUTLASS asked for. Plain types only, so neither side sees the
// other's headers.
//
// The same library defines the driver's `cuTensorMapEncodeTiled` (the
// harness builds CUTLASS with CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL and
// links no libcuda): CUTLASS's own make_tma_copy encodes its TMA
// descriptors with the simulator's encoder, or, once a GPU run installs one
// with setRealTensorMapEncoder, with the real driver's.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TESTS_ORACLE_SIMBACKEND_H
#define TILEC_TESTS_ORACLE_SIMBACKEND_H

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace tilec::oracle {

/// \p bytes of the simulator's global memory (a host allocation whose
/// address is the device pointer; kernels' accesses are checked against it).
void *simAllocate(std::size_t bytes);
/// Frees what simAllocate returned.
void simFree(void *pointer);

/// One launch, as CUTLASS's host code computed it.
struct SimKernelLaunch {
  unsigned grid[3] = {1, 1, 1}, cluster[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  std::size_t sharedBytes = 0;
  /// cuLaunchKernel's kernelParams: kernelParams[i] points to parameter i.
  void **kernelParams = nullptr;
  /// sizeof each parameter on the host, checked against the PTX's .param.
  const std::size_t *paramBytes = nullptr;
  std::size_t paramCount = 0;
  /// 0: deterministic warp order; else random interleaving from this seed.
  std::uint64_t seed = 0;
  unsigned hostThreads = 0; ///< 0: all cores.
};

/// What simRunPtx did.
struct SimRunResult {
  std::string error; ///< Empty on success, else the simulator's report.
  std::string kernelName;
  std::uint64_t warpInstructions = 0;
};

/// Loads the PTX file \p ptxPath, which must hold exactly one .entry, and
/// runs it to completion in the simulator.
SimRunResult simRunPtx(const std::string &ptxPath,
                       const SimKernelLaunch &launch);

/// The driver's cuTensorMapEncodeTiled, for a run on a real GPU.
using TensorMapEncoder = CUresult (*)(CUtensorMap *, CUtensorMapDataType,
                                      cuuint32_t, void *, const cuuint64_t *,
                                      const cuuint64_t *, const cuuint32_t *,
                                      const cuuint32_t *, CUtensorMapInterleave,
                                      CUtensorMapSwizzle,
                                      CUtensorMapL2promotion,
                                      CUtensorMapFloatOOBfill);
/// Later cuTensorMapEncodeTiled calls go to \p encoder (null: the
/// simulator's encoder again).
void setRealTensorMapEncoder(TensorMapEncoder encoder);

} // namespace tilec::oracle

#endif // TILEC_TESTS_ORACLE_SIMBACKEND_H
