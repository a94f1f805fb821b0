//===- compiler/Pipeline.h - Running passes over the Tile IR -----*- C++
//-*-===//
//
// The pass list comes from compiler/passes/Passes.def, so `--passes=`, the
// help text and the default pipeline can never disagree. The runner stops at
// the first pass that reports an error, can print the IR after each pass
// (noting "(unchanged)") and can time each pass.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_COMPILER_PIPELINE_H
#define TILEC_COMPILER_PIPELINE_H

#include "compiler/passes/Passes.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// One pass as the table lists it.
struct PassInfo {
  llvm::StringRef name;
  bool (*run)(tir::Op &module, PassContext &context);
  llvm::StringRef description;
};

/// Every pass, in default-pipeline order.
llvm::ArrayRef<PassInfo> allPasses();

/// Parses `verify,choose-smem-layouts`; on an unknown name sets \p error to
/// a message that lists the legal names.
std::optional<std::vector<const PassInfo *>> parsePassList(llvm::StringRef text,
                                                           std::string &error);

/// "verify, choose-smem-layouts, ...": for help and error messages.
std::string listPassNames();

/// How to run a pipeline.
struct PipelineOptions {
  bool printAfterAll = false;
  bool timePasses = false;
  /// Where --print-after-all and --time-passes write.
  llvm::raw_ostream *log = &llvm::errs();
  tir::PrintOptions printOptions;
};

/// Runs \p passes in order over \p module; false after the first pass that
/// reported an error.
bool runPipeline(tir::Op &module, llvm::ArrayRef<const PassInfo *> passes,
                 PassContext &context, const PipelineOptions &options);

} // namespace tilec

#endif // TILEC_COMPILER_PIPELINE_H
