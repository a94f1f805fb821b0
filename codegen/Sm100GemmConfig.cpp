//===- codegen/Sm100GemmConfig.cpp - Legal sm_100a GEMM configurations ----===//
//
// Everything about an Sm100GemmConfig decided before any IR exists: the K
// of one tcgen05.mma, the operand tiles in shared memory with their sm_100
// descriptors, the tensor-memory allocation, the instruction descriptor,
// the shared-memory budget, and the rules with their diagnostics.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm100Gemm.h"
#include "codegen/warpspec/EpilogueStaging.h"

#include "codegen/Sm90Limits.h"
#include "ir/arch/Arch.h"
#include "ir/arch/InstrTable.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <tuple>

namespace tilec {


namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(message.str());
}

/// full and empty per ring slot, accumulator-full and -empty per buffer;
/// the 32-bit-aligned word after the barriers holds the TMEM address.
unsigned barrierBytes(const Sm100GemmConfig &config) {
  return 8 * (2 * config.stages + 2 * sm100AccumulatorBuffers(config)) + 8;
}

/// `schedule cluster(4)`: two CTA pairs of a 4x1 cluster multicast B.
/// Each CTA loads BN / 4 rows of B into its half of the pair's BN / 2 row
/// slot, so BN / 4 must be whole swizzle atoms (8 rows) of a K-major tile.
llvm::Error verifyClusterPairs(const Sm100GemmConfig &config) {
  if (config.clusterPairs == 1)
    return llvm::Error::success();
  if (config.clusterPairs != 2 || config.ctaGroup != 2)
    return fail(llvm::formatv("{0} CTA pairs per cluster with cta_group::{1} "
                              "is not implemented; cluster(2) is one pair, "
                              "cluster(4) two pairs",
                              config.clusterPairs, config.ctaGroup));
  if (config.swapAB || config.splitK > 1 || config.batch)
    return fail(std::string("schedule ") +
                (config.swapAB  ? "swap_ab"
                 : config.batch ? "cluster(4) with a batch"
                                : "split_k") +
                (config.batch ? "" : " with cluster(4)") +
                " is not implemented on sm_100a: the two pairs of the 4x1 "
                "cluster take neighbouring 256-row tiles of one GEMM and "
                "multicast their shared B tile; drop cluster(4) (cluster(2) "
                "runs batches)");
  if (config.bMajor != MajorKind::K)
    return fail("cluster(4) multicasts a K-major B-role tile (each CTA loads "
                "BN / 4 of its rows); the B role is MN-major: store it "
                "K-major or use cluster(2)");
  if (config.bn % 32 != 0)
    return fail(llvm::formatv(
        "BN = {0} with cluster(4): each CTA loads BN / 4 = {1} rows of B, "
        "which must be whole 8-row swizzle atoms, so BN must be a multiple "
        "of 32",
        config.bn, config.bn / 4.0));
  return llvm::Error::success();
}

} // namespace

unsigned sm100MmaK(DTypeKind dtype) {
  const InstrInfo *row = instrFor(MmaFamilyKind::Tcgen05, dtype);
  return row ? row->k : 0;
}

llvm::Expected<Sm100OperandTile> sm100OperandTile(unsigned rows, unsigned bk,
                                                  DTypeKind dtype,
                                                  MajorKind major,
                                                  unsigned mmaMN) {
  // The tile, its TMA boxes and its layout are the ones the sm_90a kernel
  // stages (one home for that choice), derived for the tcgen05 descriptor.
  auto staged =
      tmaOperandTile(rows, bk, dtype, major, mmaMN, ArchKind::SM100a);
  if (!staged)
    return staged.takeError();
  if (staged->mAtomBytes != 0)
    return fail(llvm::formatv("the tcgen05 operand of {0} rows spans more "
                              "than one MMA subtile along MN in {1}; the "
                              "kernel issues one MMA per K step",
                              mmaMN, staged->layout));
  Sm100OperandTile tile;
  tile.staged = std::move(*staged);
  tile.mmaMN = mmaMN;
  tile.descriptorHigh = tile.staged.descriptorHigh;
  tile.kStepBytes = tile.staged.kStepBytes;
  return tile;
}

bool sm100FoldedAccumulator(const Sm100GemmConfig &config) {
  return config.ctaGroup == 2 && config.bm == 128;
}

unsigned sm100AccumulatorSpan(const Sm100GemmConfig &config) {
  return sm100FoldedAccumulator(config) ? config.bn / 2 : config.bn;
}

unsigned sm100TmemColumns(const Sm100GemmConfig &config) {
  unsigned columns = 32;
  while (columns < sm100AccumulatorSpan(config))
    columns *= 2;
  return columns;
}

unsigned sm100AccumulatorBuffers(const Sm100GemmConfig &config) {
  return 2 * sm100TmemColumns(config) <= 512 ? 2 : 1;
}

unsigned sm100TmemAllocColumns(const Sm100GemmConfig &config) {
  return sm100AccumulatorBuffers(config) * sm100TmemColumns(config);
}

unsigned sm100CtaRows(const Sm100GemmConfig &config, char operand) {
  unsigned group = std::max(1u, config.ctaGroup);
  return (operand == 'a' ? config.bm : config.bn) / group;
}

llvm::Expected<std::optional<EpilogueStagingTile>>
sm100EpilogueTile(const Sm100GemmConfig &config) {
  if (!config.storeTma)
    return std::nullopt;
  const char *direct = "; write 'epilogue ... -> store' (direct stores)";
  if (config.cType != DTypeKind::BF16 && config.cType != DTypeKind::F16)
    return fail("stmatrix moves 16-bit elements, but C is " +
                dtypeName(config.cType) + direct + " or make C bf16 or f16");
  if (config.splitK > 1)
    return fail("the staged epilogue of sm_100a does not run after the "
                "split-K reduction (split_k(" +
                std::to_string(config.splitK) +
                ") sums f32 partials in registers)" + direct +
                ", or drop split_k");
  if (config.swapAB)
    return fail(std::string("the staged epilogue of sm_100a stores C's rows "
                            "from TMEM lanes, which swap_ab makes C's "
                            "columns") +
                direct + ", or drop swap_ab");
  if (config.batch)
    return fail(std::string("the staged epilogue of sm_100a stores C "
                            "through a rank-2 tensor map, not a batched "
                            "C") +
                direct + ", or drop the batch extent");
  if (sm100FoldedAccumulator(config))
    return fail(std::string("the staged epilogue of sm_100a stages 32 rows "
                            "per warp, but the CTA pair's M = 128 (data "
                            "path layout B) gives a warp 32 rows of half "
                            "the tile's columns") +
                direct + ", or use BM = 256 for the pair");
  const EpilogueOp *swiglu = findSwiglu(config.epilogueOps);
  if (swiglu && swiglu->pairing == SwigluPairingKind::Interleaved)
    return fail("swiglu(interleaved) leaves one element of C per "
                "accumulator pair, which stmatrix cannot stage; write "
                "'epilogue ... swiglu(interleaved) -> store', or 'swiglu' "
                "(the halves of each tile) with the staged store");
  // The epilogue warpgroup's rows: warp w reads TMEM lanes 32 w .. (M =
  // 128: rows 32 w ..; M = 64: rows 16 w .., data path layout F).
  unsigned rows = config.bm == 64 ? 64 : 128;
  return epilogueStagingTile(config.cType,
                             swiglu ? config.bn / 2 : config.bn,
                             swiglu != nullptr, config.storeSwizzleBytes,
                             rows, /*transposed=*/false);
}

unsigned sm100StagingOffset(const Sm100GemmConfig &config) {
  unsigned ring = config.stages *
                  (sm100CtaRows(config, 'a') + sm100CtaRows(config, 'b')) *
                  config.bk * dtypeBytes(config.aType);
  return (ring + 1023) / 1024 * 1024;
}

unsigned sm100SharedBytes(const Sm100GemmConfig &config) {
  unsigned ring = config.stages *
                  (sm100CtaRows(config, 'a') + sm100CtaRows(config, 'b')) *
                  config.bk * dtypeBytes(config.aType);
  // The staging buffers (an error in the tile is verifySm100GemmConfig's).
  auto staging = sm100EpilogueTile(config);
  if (!staging) {
    llvm::consumeError(staging.takeError());
    return SmemAlignSlack + ring + barrierBytes(config);
  }
  if (!*staging)
    return SmemAlignSlack + ring + barrierBytes(config);
  return SmemAlignSlack + sm100StagingOffset(config) +
         (*staging)->buffers * (*staging)->bytes + barrierBytes(config);
}

llvm::Expected<uint32_t> sm100InstrDescriptor(const Sm100GemmConfig &config) {
  InstrDescriptorSpec spec;
  spec.aType = config.aType;
  spec.bType = config.bType;
  spec.accType = DTypeKind::F32;
  spec.m = config.bm;
  spec.n = config.bn;
  spec.aMajor = config.aMajor;
  spec.bMajor = config.bMajor;
  return encodeInstrDescriptor(spec);
}

llvm::Error verifySm100GemmConfig(const Sm100GemmConfig &config) {
  auto kind = mmaKindOf(config.aType, config.bType);
  if (!kind)
    return fail("A " + dtypeName(config.aType) + " x B " +
                dtypeName(config.bType) + " is not a tcgen05.mma type pair: " +
                llvm::toString(kind.takeError()));
  if (*kind == MmaKindKind::TF32 &&
      (config.aMajor == MajorKind::MN || config.bMajor == MajorKind::MN))
    return fail(std::string(config.aMajor == MajorKind::MN ? "A" : "B") +
                " is MN-major tf32, but tcgen05.mma transposes tf32 only "
                "from the 128B swizzle with 32-byte atomicity (PTX ISA "
                "9.7.16.10.1), which no tilec atom describes; store it "
                "K-major");
  if (config.cType != DTypeKind::BF16 && config.cType != DTypeKind::F16 &&
      config.cType != DTypeKind::F32)
    return fail("C " + dtypeName(config.cType) +
                " is not implemented; C is bf16, f16 or f32 (from f32 "
                "accumulators)");
  if (config.ctaGroup != 1 && config.ctaGroup != 2)
    return fail(llvm::formatv("cta_group::{0} is not a tcgen05 CTA group "
                              "(1: one CTA, 2: a CTA pair)",
                              config.ctaGroup));
  if (config.ctaGroup == 1 && config.bm != 128 && config.bm != 64)
    return fail(llvm::formatv(
        "BM = {0} is not the tcgen05.mma M of one CTA; the sm_100a "
        "generator issues cta_group::1 M = 64 or 128, so BM must be 64 or "
        "128{1}",
        config.bm,
        config.bm == 256 ? " (M = 256 is cta_group::2 over a CTA pair: "
                           "'schedule cluster(2)')"
                         : ""));
  if (config.ctaGroup == 2 && config.bm != 256 && config.bm != 128)
    return fail(llvm::formatv(
        "BM = {0} is not the M of the CTA pair's tcgen05.mma.cta_group::2; "
        "the sm_100a generator issues M = 256 (128 rows per CTA) or M = 128 "
        "(64 rows per CTA), so BM must be 256 or 128",
        config.bm));
  // The smem-operand shape table (ir/arch/InstrTable.cpp): N is a multiple of 8
  // from 8 to 256 with cta_group::1 (M = 64 and 128), of 16 from 16 to 256
  // with cta_group::2 (M = 128 and 256). In the pair's M = 128 (data path
  // layout B, PTX ISA 9.7.16.10.5) each CTA stages BN / 2 rows of B and
  // holds BN / 2 columns per lane half, a multiple of 8 either way.
  unsigned step = config.ctaGroup == 1 ? 8 : 16;
  if (config.bn % step != 0 || config.bn < step || config.bn > 256) {
    unsigned lo = std::clamp(config.bn / step * step, step, 256u);
    unsigned hi = std::clamp((config.bn + step - 1) / step * step, step, 256u);
    return fail(llvm::formatv(
        "BN = {0} is not a tcgen05.mma N for cta_group::{1} M = {2} (the "
        "PTX ISA's shape table: a multiple of {3} from {3} to 256; nearest "
        "{4})",
        config.bn, config.ctaGroup, config.bm, step,
        lo == hi ? std::to_string(lo)
                 : std::to_string(lo) + " or " + std::to_string(hi)));
  }
  unsigned elemBytes = dtypeBytes(config.aType);
  unsigned rowBytes = config.bk * elemBytes;
  if (rowBytes != 32 && rowBytes != 64 && rowBytes != 128)
    return fail(llvm::formatv(
        "BK = {0} {1} is {2} bytes of K; a ring slot holds one swizzle atom "
        "row of 32, 64 or 128 bytes (BK = {3}, {4} or {5} for {1})",
        config.bk, dtypeName(config.aType), rowBytes, 32 / elemBytes,
        64 / elemBytes, 128 / elemBytes));
  if (config.ctaGroup == 2 && (config.swapAB || config.splitK > 1))
    return fail(std::string("schedule ") +
                (config.swapAB ? "swap_ab" : "split_k") +
                " with cluster(2) is not implemented on sm_100a: the CTA "
                "pair's tcgen05.mma.cta_group::2 splits the A role's rows "
                "(BM = 128 or 256) over two CTAs, and the decode schedules "
                "run one CTA per tile (cta_group::1, BM = 128); drop "
                "cluster(2) or the decode schedule");
  if (llvm::Error err = verifyClusterPairs(config))
    return err;
  if (config.splitK == 0 || config.splitK > 64)
    return fail(llvm::formatv("split_k({0}) is out of range; 1 to 64 are "
                              "legal",
                              config.splitK));
  if (config.groupM == 0)
    return fail("groupM = 0: the persistent tile order needs a group of at "
                "least one tile row");
  if (config.stages < 2 || config.stages > 16)
    return fail(llvm::formatv("stages = {0} is outside 2..16", config.stages));
  auto staging = sm100EpilogueTile(config);
  if (!staging)
    return staging.takeError();
  unsigned bytes = sm100SharedBytes(config);
  unsigned limit = archInfo(ArchKind::SM100a).maxSharedBytesPerCta;
  if (bytes > limit && *staging)
    return fail(llvm::formatv(
        "the ring and the staged epilogue's {0} x {1} bytes of staging "
        "buffers need {2} bytes of shared memory, more than the {3} a CTA "
        "may have; use fewer stages, a smaller tile or a narrower staging "
        "row (swizzle(64B)), or 'epilogue ... -> store'",
        (*staging)->buffers, (*staging)->bytes, bytes, limit));
  if (bytes > limit)
    return fail(llvm::formatv(
        "the ring needs {0} bytes of shared memory, more than the {1} a CTA "
        "may have; use fewer stages or a smaller tile",
        bytes, limit));
  if (auto idesc = sm100InstrDescriptor(config); !idesc)
    return idesc.takeError();
  for (auto [rows, type, major] :
       {std::tuple{sm100CtaRows(config, 'a'), config.aType, config.aMajor},
        {sm100CtaRows(config, 'b'), config.bType, config.bMajor}})
    if (auto tile = sm100OperandTile(rows, config.bk, type, major, rows);
        !tile)
      return tile.takeError();
  return llvm::Error::success();
}

} // namespace tilec
