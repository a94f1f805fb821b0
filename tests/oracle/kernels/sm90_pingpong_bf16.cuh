// tests/oracle/kernels/sm90_pingpong_bf16.cuh: CUTLASS's Hopper ping-pong
// persistent GEMM (KernelTmaWarpSpecializedPingpong: two consumer
// warpgroups take alternate tiles, their mainloops and epilogues
// interleaved by ordered barriers), bf16 in, A K-major and B N-major
// (row-major), bf16 C and D, no cluster.
// oracle-arch: sm_90a
#include "tests/oracle/kernels/CollectiveGemm.cuh"

namespace oracle_kernel {
using GemmKernel =
    typename CollectiveGemm<cutlass::arch::Sm90, cutlass::bfloat16_t,
                            cutlass::layout::RowMajor, cutlass::bfloat16_t,
                            cutlass::layout::RowMajor, cutlass::bfloat16_t,
                            cutlass::bfloat16_t, cutlass::layout::RowMajor,
                            cute::Shape<cute::_64, cute::_128, cute::_64>,
                            cute::Shape<cute::_1, cute::_1, cute::_1>,
                            cutlass::gemm::KernelTmaWarpSpecializedPingpong,
                            cutlass::epilogue::TmaWarpSpecialized>::Kernel;
} // namespace oracle_kernel
