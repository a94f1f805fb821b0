// tests/oracle/kernels/sm90_coop_f16.cuh: CUTLASS's Hopper cooperative
// persistent GEMM (KernelTmaWarpSpecializedCooperative: two consumer
// warpgroups share a 128-row tile, the persistent tile scheduler walks the
// tiles), f16 in, A M-major (column-major) and B K-major, f32 C and
// column-major f32 D, a 1x2 cluster.
// oracle-arch: sm_90a
#include "tests/oracle/kernels/CollectiveGemm.cuh"

namespace oracle_kernel {
using GemmKernel =
    typename CollectiveGemm<cutlass::arch::Sm90, cutlass::half_t,
                            cutlass::layout::ColumnMajor, cutlass::half_t,
                            cutlass::layout::ColumnMajor, float, float,
                            cutlass::layout::ColumnMajor,
                            cute::Shape<cute::_128, cute::_128, cute::_64>,
                            cute::Shape<cute::_1, cute::_2, cute::_1>,
                            cutlass::gemm::KernelTmaWarpSpecializedCooperative,
                            cutlass::epilogue::TmaWarpSpecializedCooperative,
                            cutlass::gemm::PersistentScheduler>::Kernel;
} // namespace oracle_kernel
