// tests/oracle/kernels/CollectiveGemm.cuh: one CUTLASS GEMM kernel type from
// CUTLASS's collective builders (the way its examples 48-74 build theirs),
// so each kernel header of the oracle names only what makes it different.
// Alignment is 16 bytes for every operand (TMA's minimum); accumulation and
// the epilogue's arithmetic are f32; the epilogue is CUTLASS's default
// linear combination D = alpha * acc + beta * C.
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/kernel/gemm_universal.hpp"

namespace oracle_kernel {

template <class T> constexpr int Align16 = 128 / cutlass::sizeof_bits<T>::value;

template <class Arch, class ElementA, class LayoutA, class ElementB,
          class LayoutB, class ElementC, class ElementD, class LayoutCD,
          class TileShape, class ClusterShape, class MainloopSchedule,
          class EpilogueSchedule, class TileScheduler = void>
struct CollectiveGemm {
  using CollectiveEpilogue =
      typename cutlass::epilogue::collective::CollectiveBuilder<
          Arch, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
          cutlass::epilogue::collective::EpilogueTileAuto, float, float,
          ElementC, LayoutCD, Align16<ElementC>, ElementD, LayoutCD,
          Align16<ElementD>, EpilogueSchedule>::CollectiveOp;

  using CollectiveMainloop =
      typename cutlass::gemm::collective::CollectiveBuilder<
          Arch, cutlass::arch::OpClassTensorOp, ElementA, LayoutA,
          Align16<ElementA>, ElementB, LayoutB, Align16<ElementB>, float,
          TileShape, ClusterShape,
          cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
              sizeof(typename CollectiveEpilogue::SharedStorage))>,
          MainloopSchedule>::CollectiveOp;

  using Kernel =
      cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>,
                                           CollectiveMainloop,
                                           CollectiveEpilogue, TileScheduler>;
};

} // namespace oracle_kernel
