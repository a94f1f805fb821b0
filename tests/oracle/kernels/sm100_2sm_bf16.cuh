// tests/oracle/kernels/sm100_2sm_bf16.cuh: CUTLASS's Blackwell tcgen05 GEMM on
// an SM pair (KernelTmaWarpSpecialized2SmSm100: tcgen05.mma.cta_group::2,
// a 256-row MMA whose A halves live in the two CTAs of the pair, the
// commit multicast to both), bf16 in, A K-major, B N-major (row-major), f32
// C and column-major f32 D, a 2x1 cluster.
// oracle-arch: sm_100a
#include "tests/oracle/kernels/CollectiveGemm.cuh"

namespace oracle_kernel {
using GemmKernel =
    typename CollectiveGemm<cutlass::arch::Sm100, cutlass::bfloat16_t,
                            cutlass::layout::RowMajor, cutlass::bfloat16_t,
                            cutlass::layout::RowMajor, float, float,
                            cutlass::layout::ColumnMajor,
                            cute::Shape<cute::_256, cute::_128, cute::_64>,
                            cute::Shape<cute::_2, cute::_1, cute::_1>,
                            cutlass::gemm::KernelTmaWarpSpecialized2SmSm100,
                            cutlass::epilogue::TmaWarpSpecialized2Sm>::Kernel;
} // namespace oracle_kernel
