// tests/oracle/kernels/sm100_1sm_f16.cuh: CUTLASS's Blackwell tcgen05 GEMM on
// one SM (KernelTmaWarpSpecialized1SmSm100, example 70's kernel with a 1-SM
// MMA: tcgen05.mma.cta_group::1 into tensor memory, the default persistent
// scheduler driven by clusterlaunchcontrol), f16 in, A and B K-major, f16 C
// and row-major D, no cluster.
// oracle-arch: sm_100a
#include "tests/oracle/kernels/CollectiveGemm.cuh"

namespace oracle_kernel {
using GemmKernel =
    typename CollectiveGemm<cutlass::arch::Sm100, cutlass::half_t,
                            cutlass::layout::RowMajor, cutlass::half_t,
                            cutlass::layout::ColumnMajor, cutlass::half_t,
                            cutlass::half_t, cutlass::layout::RowMajor,
                            cute::Shape<cute::_128, cute::_128, cute::_64>,
                            cute::Shape<cute::_1, cute::_1, cute::_1>,
                            cutlass::gemm::KernelTmaWarpSpecialized1SmSm100,
                            cutlass::epilogue::TmaWarpSpecialized1Sm>::Kernel;
} // namespace oracle_kernel
