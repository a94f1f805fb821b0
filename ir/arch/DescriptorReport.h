//===- ir/arch/DescriptorReport.h - Text of a derived descriptor -*- C++ -*-===//
//
// One formatter for what `tilec desc` prints and what a .tile
// `print descriptor(L, wgmma|tcgen05, mma(M, K))` prints: every field of the
// derived shared-memory descriptor, the 64-bit value, the canonical form it
// matched and the table of subtile start offsets.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_ARCH_DESCRIPTORREPORT_H
#define TILEC_IR_ARCH_DESCRIPTORREPORT_H

#include "ir/arch/DescriptorDerivation.h"

#include <string>

namespace tilec {

/// The multi-line report of \p d, derived from \p tile for \p req; ends
/// with a newline.
std::string formatSmemDescriptorReport(const DerivationRequest &req,
                                       const SmemTileLayout &tile,
                                       const DerivedDescriptor &d);

} // namespace tilec

#endif // TILEC_IR_ARCH_DESCRIPTORREPORT_H
