//===- tests/common/WgmmaProbeCase.h - Inputs of the wgmma probe -*- C++
//-*-===//
//
// Host side of the wgmma conformance check: random A (64 x K) and B (N x K)
// with values exact in every operand type, shared-memory images built from
// the tiles' layouts (tile_to_shape in the layout algebra; each element
// stored at layoutByteAddress), descriptors
// from the derivation (one per K step, advanced by the subtile offsets), and
// the CPU reference D = A * B^T.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TESTS_COMMON_WGMMAPROBECASE_H
#define TILEC_TESTS_COMMON_WGMMAPROBECASE_H

#include "codegen/WgmmaProbeKernel.h"
#include "ir/arch/DescriptorDerivation.h"
#include "ir/layout/LayoutExpr.h"
#include "ir/layout/SmemTileFromLayout.h"

#include "llvm/Support/Error.h"

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace tilec::testing {

struct WgmmaProbeCase {
  std::string name;
  WgmmaProbeSpec spec;
  std::vector<uint8_t> aImage, bImage;
  std::vector<float> reference; ///< Row-major 64 x N.
};

/// Bytes of \p value (one of 0, +-0.5, +-1, +-1.5, +-2) as \p dtype.
inline void encodeElement(float value, DTypeKind dtype, uint8_t *out) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  switch (dtype) {
  case DTypeKind::BF16: {
    uint16_t h = bits >> 16;
    std::memcpy(out, &h, 2);
    return;
  }
  case DTypeKind::TF32:
  case DTypeKind::F32:
    std::memcpy(out, &bits, 4);
    return;
  case DTypeKind::E4M3: {
    // Sign, 4 exponent bits (bias 7), 3 mantissa bits.
    float mag = value < 0 ? -value : value;
    uint8_t code = mag == 0      ? 0x00
                   : mag == 0.5f ? 0x30
                   : mag == 1.0f ? 0x38
                   : mag == 1.5f ? 0x3C
                                 : 0x40; // 2.0
    *out = code | (value < 0 ? 0x80 : 0);
    return;
  }
  default:
    *out = 0;
  }
}

inline llvm::Expected<WgmmaProbeCase>
makeWgmmaProbeCase(DTypeKind dtype, SwizzleKind swizzle, MajorKind aMajor,
                   MajorKind bMajor, unsigned n, unsigned kSteps,
                   unsigned seed) {
  WgmmaProbeCase c;
  c.name = std::string(dtypeInfo(dtype).name) + " " +
           std::string(swizzleInfo(swizzle).name) +
           " A:" + std::string(majorName(aMajor)) +
           " B:" + std::string(majorName(bMajor)) + " N=" + std::to_string(n);
  unsigned e = dtypeBits(dtype) / 8;
  unsigned mmaK = 32 / e;
  // K covers whole atoms of either majorness: a multiple of the row width.
  unsigned kTotal = mmaK * kSteps;
  unsigned rowWidth = swizzleInfo(swizzle).bytes / e;
  if (kTotal % rowWidth != 0)
    kTotal = (kTotal + rowWidth - 1) / rowWidth * rowWidth;
  kSteps = kTotal / mmaK;

  // The tiles come from the layout algebra: tile_to_shape of the PTX
  // swizzle atom, MN-major ones stacked K first (docs/layout-facts.md#subtile-offsets).
  auto algebraTile = [&](MajorKind major,
                         unsigned mn) -> llvm::Expected<SmemTileLayout> {
    std::string atom = std::string(major == MajorKind::K ? "K_" : "MN_") +
                       (swizzle == SwizzleKind::None
                            ? "INTER"
                            : std::string(swizzleInfo(swizzle).name)) +
                       "<" + std::string(dtypeInfo(dtype).name) + ">";
    std::string expr = "tile_to_shape(" + atom + ", (" + std::to_string(mn) +
                       "," + std::to_string(kTotal) + ")" +
                       (major == MajorKind::MN ? ", (1,0))" : ")");
    llvm::Expected<LayoutValue> value = evaluateLayoutExpr(expr);
    if (!value)
      return value.takeError();
    return smemTileFromLayout(*value);
  };
  llvm::Expected<SmemTileLayout> aTileOr = algebraTile(aMajor, 64);
  if (!aTileOr)
    return aTileOr.takeError();
  llvm::Expected<SmemTileLayout> bTileOr = algebraTile(bMajor, n);
  if (!bTileOr)
    return bTileOr.takeError();
  SmemTileLayout aTile = *aTileOr, bTile = *bTileOr;
  auto cosizeBytes = [&](const SmemTileLayout &t) {
    int64_t hi = 0;
    for (int64_t k = 0; k != t.kSize; ++k)
      for (int64_t mn = 0; mn != t.mnSize; ++mn)
        hi = std::max<int64_t>(hi, layoutByteAddress(t, dtype, 0, mn, k));
    return uint64_t(hi + e + 15) / 16 * 16;
  };
  c.spec.dtype = dtype;
  c.spec.n = n;
  c.spec.aMajor = aMajor;
  c.spec.bMajor = bMajor;
  c.spec.aImageBytes = cosizeBytes(aTile);
  c.spec.bImageBytes = cosizeBytes(bTile);

  llvm::Expected<DerivedDescriptor> aDesc = deriveSmemDescriptor(
      aTile, {ArchKind::SM90a, dtype, aMajor, 64, mmaK, 0});
  if (!aDesc)
    return aDesc.takeError();
  llvm::Expected<DerivedDescriptor> bDesc = deriveSmemDescriptor(
      bTile, {ArchKind::SM90a, dtype, bMajor, n, mmaK, c.spec.bSmemOffset()});
  if (!bDesc)
    return bDesc.takeError();
  for (unsigned k = 0; k != kSteps; ++k) {
    c.spec.aDescs.push_back(aDesc->desc + (aDesc->subtileOffsets[0][k] >> 4));
    c.spec.bDescs.push_back(bDesc->desc + (bDesc->subtileOffsets[0][k] >> 4));
  }

  std::mt19937 rng(seed);
  const float values[] = {0, 0.5f, -0.5f, 1, -1, 1.5f, -1.5f, 2, -2};
  std::uniform_int_distribution<int> pick(0, 8);
  std::vector<float> a(64 * kTotal), b(n * kTotal);
  for (float &v : a)
    v = values[pick(rng)];
  for (float &v : b)
    v = values[pick(rng)];
  c.aImage.assign(c.spec.aImageBytes, 0);
  c.bImage.assign(c.spec.bImageBytes, 0);
  for (unsigned k = 0; k != kTotal; ++k) {
    for (unsigned m = 0; m != 64; ++m)
      encodeElement(a[m * kTotal + k], dtype,
                    &c.aImage[layoutByteAddress(aTile, dtype, 0, m, k)]);
    for (unsigned j = 0; j != n; ++j)
      encodeElement(b[j * kTotal + k], dtype,
                    &c.bImage[layoutByteAddress(bTile, dtype, 0, j, k)]);
  }
  c.reference.assign(64 * n, 0);
  for (unsigned m = 0; m != 64; ++m)
    for (unsigned j = 0; j != n; ++j) {
      double sum = 0;
      for (unsigned k = 0; k != kTotal; ++k)
        sum += double(a[m * kTotal + k]) * b[j * kTotal + k];
      c.reference[m * n + j] = float(sum);
    }
  return c;
}

/// The conformance matrix: every swizzle x majorness pair for bf16, K-major
/// tf32 and e4m3, several N.
inline std::vector<
    std::tuple<DTypeKind, SwizzleKind, MajorKind, MajorKind, unsigned>>
wgmmaConformanceMatrix() {
  std::vector<
      std::tuple<DTypeKind, SwizzleKind, MajorKind, MajorKind, unsigned>>
      out;
  const MajorKind K = MajorKind::K, MN = MajorKind::MN;
  for (const SwizzleInfo &sw : allSwizzles())
    for (auto [am, bm] : {std::pair{K, K}, std::pair{MN, MN}, std::pair{K, MN},
                          std::pair{MN, K}})
      for (unsigned n : {8u, 64u, 128u, 256u}) {
        if (bm == MN && n % (sw.bytes / 2) != 0)
          continue; // B's MN-major atom is wider than N.
        out.push_back({DTypeKind::BF16, sw.kind, am, bm, n});
      }
  for (DTypeKind t : {DTypeKind::TF32, DTypeKind::E4M3})
    for (const SwizzleInfo &sw : allSwizzles())
      for (unsigned n : {8u, 96u, 256u})
        out.push_back({t, sw.kind, K, K, n});
  return out;
}

} // namespace tilec::testing

#endif // TILEC_TESTS_COMMON_WGMMAPROBECASE_H
