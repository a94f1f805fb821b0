//===- capi/HeuristicApi.cpp - The sm_90a config heuristic in C ----------===//
//
// tilec_sm90_choose: the config codegen/Sm90Heuristic.h picks for a problem
// shape, so that a caller generating .tile source (python: tilec.gemm) can
// write the tile, stages, instruction and schedule the heuristic chose. The
// parts the .tile language has no words for (persistence, 2x1 clusters,
// occupancy) are reported too, for the caller to say what it left out.
//
// Example: tilec_sm90_choose(64, 2112, 7168, 132, &c) gives swap_ab 1,
// bm 64, bn 64, stages 13, split_k 2, split_k_cluster 1;
// tilec_sm90_choose_block_scaled (the block-scaled fp8 rule,
// sm90ChooseBlockScaledConfig) gives bm 64, bn 32, bk 128, stages 16,
// split_k 2, split_k_cluster 1.
//
//===----------------------------------------------------------------------===//
#include "capi/CApi.h"

#include "codegen/Sm90Heuristic.h"

#include <cstddef>
#include <cstring>
#include <limits>

using namespace tilec;

namespace {

/// The C API's view of \p choose's config for (m, n, k) on \p sms SMs.
template <typename Choose>
tilec_status chooseSm90(int64_t m, int64_t n, int64_t k, unsigned sms,
                        tilec_sm90_choice *out, Choose choose) {
  return capi::guard([&] {
    if (!out || out->struct_size < sizeof(size_t))
      return capi::fail(TILEC_ERROR_INVALID_ARGUMENT,
                        "out is null or its struct_size is unset");
    constexpr int64_t Max = std::numeric_limits<int32_t>::max();
    if (m < 1 || n < 1 || k < 1 || m > Max || n > Max || k > Max)
      return capi::fail(TILEC_ERROR_INVALID_ARGUMENT,
                        "M = " + std::to_string(m) + ", N = " +
                            std::to_string(n) + ", K = " + std::to_string(k) +
                            ": each must be from 1 to 2^31 - 1");
    Sm90Choice choice =
        choose(unsigned(m), unsigned(n), unsigned(k), sms ? sms : 132);
    const Sm90GemmConfig &c = choice.config;
    tilec_sm90_choice result{};
    result.struct_size = sizeof result;
    result.bm = c.bm;
    result.bn = c.bn;
    result.bk = c.bk;
    result.stages = c.stages;
    result.swap_ab = c.swapAB ? 1 : 0;
    result.split_k = c.splitK ? choice.splits : 1;
    result.split_k_cluster = c.splitKCluster ? 1 : 0;
    result.persistent = c.persistent ? 1 : 0;
    result.cluster_m = c.clusterM;
    result.ctas_per_sm = c.ctasPerSm;
    result.cluster_n = c.clusterN;
    size_t size =
        out->struct_size < sizeof result ? out->struct_size : sizeof result;
    std::memcpy(out, &result, size);
    out->struct_size = size;
    return capi::ok();
  });
}

} // namespace

extern "C" {

tilec_status tilec_sm90_choose(int64_t m, int64_t n, int64_t k, unsigned sms,
                               tilec_sm90_choice *out) {
  return chooseSm90(m, n, k, sms, out, sm90ChooseConfig);
}

tilec_status tilec_sm90_choose_block_scaled(int64_t m, int64_t n, int64_t k,
                                            unsigned sms,
                                            tilec_sm90_choice *out) {
  return chooseSm90(m, n, k, sms, out, [](auto... args) {
    return sm90ChooseBlockScaledConfig(args...);
  });
}

tilec_status tilec_sm90_choose_block_scaled_sfa(int64_t m, int64_t n, int64_t k,
                                                unsigned sms, int sfa_m_major,
                                                tilec_sm90_choice *out) {
  MajorKind sfa = sfa_m_major ? MajorKind::MN : MajorKind::K;
  return chooseSm90(m, n, k, sms, out,
                    [sfa](unsigned m, unsigned n, unsigned k, unsigned sms) {
                      return sm90ChooseBlockScaledConfig(m, n, k, sms, sfa);
                    });
}

} // extern "C"
