//===- codegen/Sm90EpiloguePlan.cpp - What the sm_90a epilogue needs -----===//
//
// The epilogue's plan, decided before any code is emitted: the staging
// tile of the stmatrix + TMA-store path (sm90EpilogueTile), each split-K
// CTA's share of the tile (sm90SplitShares) and the epilogue operands a
// consumer preloads into registers (sm90PreloadedRegisters,
// sm90PreloadedBlocks). The shared-memory map, the verifier and the
// emitter all read these.
//
//===----------------------------------------------------------------------===//
#include "codegen/Sm90Epilogue.h"

#include "codegen/Sm90Limits.h"
#include "codegen/warpspec/EpilogueStaging.h"
#include "codegen/warpspec/SpecBasics.h"

#include <algorithm>
#include <cassert>
#include <utility>
#include <vector>

namespace tilec {

using namespace sm90;

namespace {

llvm::Error fail(const std::string &message) {
  return llvm::createStringError(message);
}

} // namespace

llvm::Expected<std::optional<EpilogueStagingTile>>
sm90EpilogueTile(const Sm90GemmConfig &config) {
  // swiglu needs both columns of a pair in one thread (Verify says so
  // where the program wrote the schedule or the steps).
  if (const EpilogueOp *swiglu = findSwiglu(config.epilogueOps)) {
    if (config.swapAB)
      return fail("epilogue op 'swiglu' pairs two columns of C in one "
                  "thread, but under swap_ab C's columns are the wgmma's M "
                  "rows, spread over lanes; write 'schedule split_k(1)' "
                  "(or split_k(N)) to keep A and B in place");
    if (llvm::Error err = checkSwigluHalves(config.bn))
      return err;
    if (swiglu->pairing == SwigluPairingKind::Interleaved && config.storeTma)
      return fail("swiglu(interleaved) leaves one element of C per "
                  "accumulator pair, which stmatrix cannot stage; write "
                  "'epilogue ... swiglu(interleaved) -> store', or 'swiglu' "
                  "(the halves of each tile) with the staged store");
  }
  if (!config.storeTma ||
      (config.cType != DTypeKind::BF16 && config.cType != DTypeKind::F16))
    return std::nullopt;
  // swiglu: C's tile is BN / 2 columns wide (Verify rejects swiglu with
  // swap-AB or an odd BN / 16 and swiglu(interleaved) staged).
  bool halved = findSwiglu(config.epilogueOps) != nullptr;
  return epilogueStagingTile(config.cType, halved ? config.bn / 2 : config.bn,
                             halved, config.storeSwizzleBytes, 64,
                             config.swapAB);
}

std::vector<Sm90EpilogueBlocks>
sm90SplitShares(const Sm90GemmConfig &config,
                const std::optional<EpilogueStagingTile> &staging,
                unsigned splits) {
  // The unit: a staging chunk's blocks, else one block.
  unsigned all = config.bn / 8, unit = 1;
  if (staging) {
    unit = (staging->transposed ? staging->rows : staging->cols) / 8;
    assert(unit * staging->chunks == all && "the chunks tile the wgmma N");
  }
  unsigned units = all / unit;
  std::vector<Sm90EpilogueBlocks> shares;
  for (unsigned r = 0; r < splits; ++r)
    shares.push_back(
        {r * units / splits * unit, (r + 1) * units / splits * unit});
  return shares;
}

namespace {

/// The bias and scale ops with an operand per column of the kernel's tile
/// (swap-AB: per row of C) and per row; 0, 0 with swiglu (nothing is
/// preloaded).
std::pair<unsigned, unsigned> operandOpsByAxis(const Sm90GemmConfig &config) {
  unsigned perColumn = 0, perRow = 0;
  if (findSwiglu(config.epilogueOps))
    return {0, 0};
  for (const EpilogueOp &op : config.epilogueOps)
    if (readsOperandVector(op))
      ++((op.axis == EpilogueAxis::Col) != config.swapAB ? perColumn : perRow);
  return {perColumn, perRow};
}

} // namespace

unsigned sm90PreloadedRegisters(const Sm90GemmConfig &config) {
  auto [perColumn, perRow] = operandOpsByAxis(config);
  return sm90RowBlocks(config) *
         (2 * perRow + 2 * perColumn * sm90PreloadedBlocks(config));
}

unsigned sm90PreloadedBlocks(const Sm90GemmConfig &config) {
  unsigned perColumn = operandOpsByAxis(config).first;
  if (perColumn == 0)
    return 0;
  // Beside the BN / 2 accumulators of each row block a consumer keeps its
  // addresses, the math's temporaries and the stores' registers; each row
  // block preloads its own copy.
  constexpr unsigned Reserve = 64;
  unsigned rowBlocks = sm90RowBlocks(config);
  unsigned cap = std::min(MaxConsumerRegs, sm90LaunchRegisterCap(config));
  unsigned used = rowBlocks * config.bn / 2 + Reserve;
  unsigned spare = cap > used ? cap - used : 0;
  return std::min(config.bn / 8, spare / (2 * perColumn * rowBlocks));
}

} // namespace tilec
