//===- codegen/Sm90WgmmaAnnotation.cpp - --annotate's wgmma comments ------===//
#include "codegen/Sm90WgmmaAnnotation.h"

#include "ir/ptx/PtxDescriptorScan.h"

namespace tilec {

std::string sm90WgmmaAnnotation(const Sm90GemmConfig &config,
                                const TmaOperandTile &tileA,
                                const TmaOperandTile &tileB, unsigned kk) {
  auto operand = [&](const char *role, const TmaOperandTile &tile,
                     const char *mn, const char *mnIs, unsigned mnBytes) {
    unsigned offset = kk * tile.kStepBytes;
    return std::string(role) + " subtile (" + mn + "=" + mnIs +
           ", k=" + std::to_string(kk) + ") at +" + std::to_string(offset) +
           " B" +
           (mnBytes ? " + " + std::string(mn) + " * " +
                          std::to_string(mnBytes) + " B"
                    : std::string()) +
           " from the stage base; " +
           describeSmemDescriptorLayout(tile.descriptorHigh, ArchKind::SM90a) +
           " high=" + formatHex64(tile.descriptorHigh) + "; smem " +
           tile.layout + "\n";
  };
  unsigned k = sm90WgmmaK(tileA.dtype);
  std::string text =
      "wgmma k" + std::to_string(k) + " step " + std::to_string(kk) + " of " +
      std::to_string(config.bk / k) +
      (config.swapAB ? " (swapped: A role = tensor b)" : "") + "\n";
  text += operand("a-desc", tileA, "m", "consumer warpgroup", tileA.mAtomBytes);
  text += operand("b-desc", tileB, "n", "0", 0);
  if (!config.annotateSource.empty())
    text += "from " + config.annotateSource + "\n";
  return text;
}

} // namespace tilec
