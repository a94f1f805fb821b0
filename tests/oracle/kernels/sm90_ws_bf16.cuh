// tests/oracle/kernels/sm90_ws_bf16.cuh: CUTLASS's Hopper warp-specialized
// GEMM (KernelTmaWarpSpecialized, the kernel of example 48), bf16 in, A and
// B K-major, bf16 C and row-major D, a 2x1 cluster (TMA multicast of B).
// oracle-arch: sm_90a
#include "tests/oracle/kernels/CollectiveGemm.cuh"

namespace oracle_kernel {
using GemmKernel =
    typename CollectiveGemm<cutlass::arch::Sm90, cutlass::bfloat16_t,
                            cutlass::layout::RowMajor, cutlass::bfloat16_t,
                            cutlass::layout::ColumnMajor, cutlass::bfloat16_t,
                            cutlass::bfloat16_t, cutlass::layout::RowMajor,
                            cute::Shape<cute::_128, cute::_128, cute::_64>,
                            cute::Shape<cute::_2, cute::_1, cute::_1>,
                            cutlass::gemm::KernelTmaWarpSpecialized,
                            cutlass::epilogue::TmaWarpSpecialized>::Kernel;
} // namespace oracle_kernel
