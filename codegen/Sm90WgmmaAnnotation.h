//===- codegen/Sm90WgmmaAnnotation.h - --annotate's wgmma comments -*- C++
//-*-===//
//
// `tilec compile --annotate` puts a `// tilec:` comment before every wgmma
// of the sm_90a kernel (codegen/PtxInlineAsm.h writes it): which K step it
// is, which subtile of each operand's stage its descriptors address, the
// descriptors' constant bits decoded, and the .tile lines it came from, so
// the PTX explains itself.
//
// The first K step of examples/gemm_sm90.tile says "wgmma k16 step
// 0 of 4", then "a-desc subtile (m=consumer warpgroup, k=0) at +0 B + m *
// 8192 B from the stage base; SW128 ..." and the b-desc line.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SM90WGMMAANNOTATION_H
#define TILEC_CODEGEN_SM90WGMMAANNOTATION_H

#include "codegen/Sm90Gemm.h"

#include <string>

namespace tilec {

/// The comment text (one line per `// tilec:` line) for the wgmma of K
/// step \p kk of \p config's kernel, whose operand tiles in their wgmma
/// roles are \p tileA and \p tileB.
std::string sm90WgmmaAnnotation(const Sm90GemmConfig &config,
                                const TmaOperandTile &tileA,
                                const TmaOperandTile &tileB, unsigned kk);

} // namespace tilec

#endif // TILEC_CODEGEN_SM90WGMMAANNOTATION_H
