// tests/oracle/kernels/sm100_persistent_bf16.cuh: CUTLASS's Blackwell 1-SM
// tcgen05 GEMM with the static persistent scheduler
// (StaticPersistentScheduler: a grid of sm_count CTAs, each walking several
// output tiles, the accumulator double-buffered in tensor memory), bf16 in,
// A M-major (column-major) and B K-major, bf16 C and row-major D.
// oracle-arch: sm_100a
#include "tests/oracle/kernels/CollectiveGemm.cuh"

namespace oracle_kernel {
using GemmKernel =
    typename CollectiveGemm<cutlass::arch::Sm100, cutlass::bfloat16_t,
                            cutlass::layout::ColumnMajor, cutlass::bfloat16_t,
                            cutlass::layout::ColumnMajor, cutlass::bfloat16_t,
                            cutlass::bfloat16_t, cutlass::layout::RowMajor,
                            cute::Shape<cute::_128, cute::_128, cute::_64>,
                            cute::Shape<cute::_1, cute::_1, cute::_1>,
                            cutlass::gemm::KernelTmaWarpSpecialized1SmSm100,
                            cutlass::epilogue::TmaWarpSpecialized1Sm,
                            cutlass::gemm::StaticPersistentScheduler>::Kernel;
} // namespace oracle_kernel
