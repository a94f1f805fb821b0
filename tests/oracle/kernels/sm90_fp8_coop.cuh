// tests/oracle/kernels/sm90_fp8_coop.cuh: CUTLASS's Hopper fp8 GEMM (the
// kernel of example 54: KernelTmaWarpSpecializedCooperative with e4m3 A and
// B, K-major, f32 accumulation promoted out of the tensor core every K
// block), bf16 C and D, a 1x2 cluster.
// oracle-arch: sm_90a
#include "tests/oracle/kernels/CollectiveGemm.cuh"

namespace oracle_kernel {
using GemmKernel = typename CollectiveGemm<
    cutlass::arch::Sm90, cutlass::float_e4m3_t, cutlass::layout::RowMajor,
    cutlass::float_e4m3_t, cutlass::layout::ColumnMajor, cutlass::bfloat16_t,
    cutlass::bfloat16_t, cutlass::layout::RowMajor,
    cute::Shape<cute::_128, cute::_128, cute::_128>,
    cute::Shape<cute::_1, cute::_2, cute::_1>,
    cutlass::gemm::KernelTmaWarpSpecializedCooperative,
    cutlass::epilogue::TmaWarpSpecializedCooperative>::Kernel;
} // namespace oracle_kernel
