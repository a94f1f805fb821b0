// tests/oracle/kernels/sm100_2sm_fp8.cuh: CUTLASS's Blackwell fp8 GEMM (example
// 70's fp8 kernel: KernelTmaWarpSpecialized2SmSm100, e4m3 A and B K-major,
// kind::f8f6f4, a 2x2 cluster: the SM pair along M, TMA multicast along
// N), bf16 C and row-major D.
// oracle-arch: sm_100a
#include "tests/oracle/kernels/CollectiveGemm.cuh"

namespace oracle_kernel {
using GemmKernel =
    typename CollectiveGemm<cutlass::arch::Sm100, cutlass::float_e4m3_t,
                            cutlass::layout::RowMajor, cutlass::float_e4m3_t,
                            cutlass::layout::ColumnMajor, cutlass::bfloat16_t,
                            cutlass::bfloat16_t, cutlass::layout::RowMajor,
                            cute::Shape<cute::_256, cute::_128, cute::_128>,
                            cute::Shape<cute::_2, cute::_2, cute::_1>,
                            cutlass::gemm::KernelTmaWarpSpecialized2SmSm100,
                            cutlass::epilogue::TmaWarpSpecialized2Sm>::Kernel;
} // namespace oracle_kernel
