//===- codegen/PtxEmitter.cpp - llvm::Module to PTX text ------------------===//
//
// One short path through LLVM: triple and data layout from the NVPTX target
// machine, verifyModule, a small new-pass-manager pipeline tailored to the
// IRBuilder kernels (not O3: see DefaultMiddleEnd; the Light profile runs
// LightMiddleEnd), then the legacy code generation pipeline (O3, or O0 for
// the Light profile) printing PTX into a string. Every stage is timed for
// bench/CompileLatency.
//
//===----------------------------------------------------------------------===//
#include "codegen/PtxEmitter.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>

namespace tilec {

namespace {

thread_local PtxEmitTimings lastTimings;

/// The middle end. The IRBuilder kernels arrive as straight-line code plus
/// one k loop, so O3's inliner, vectorizers, loop transforms and repeated
/// cleanups find nothing to do but cost most of a cold compile. What changes
/// the PTX is: SROA (the one alloca), EarlyCSE and InstCombine (fold the
/// layout arithmetic into the forms LICM and NVPTX's address folding need),
/// SimplifyCFG, then LoopRotate, LICM and IndVars (hoist the loop-invariant
/// smem and global address parts out of the k loop and simplify its
/// induction variables) and a last InstSimplify/SimplifyCFG cleanup (a
/// second InstCombine costs a third of the pipeline and changed no SASS of
/// the sm_80 GEMM). bench/CompileLatencyResults.md has the PTX and
/// SASS comparison against O3. InstCombine runs as in LLVM's own
/// pipelines, without the fixpoint verification that the textual pass
/// name turns on for testing: one iteration may leave a fold for the next
/// (an icmp's samesign flag in the split-K sum), which is not an error.
constexpr const char *DefaultMiddleEnd =
    "function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,"
    "loop-rotate,"
    "loop-mssa(licm),indvars,instsimplify,simplifycfg)";

/// The Light profile's middle end: LICM alone (the loop-invariant address
/// parts out of the k loop; the sm_80 builder emits its accumulators as
/// phis, so there is no alloca for SROA). Measured on the four sm_80
/// examples (bench/CompileLatencyResults.md): without LICM the k loop's
/// SASS grows by ~8 instructions; adding EarlyCSE grows it by 3 and
/// InstCombine by 3-15 (and costs half the Full middle end's time).
constexpr const char *LightMiddleEnd = "function(loop-mssa(licm))";

llvm::cl::opt<std::string> middleEndPipeline(
    "tilec-middle-end", llvm::cl::Hidden,
    llvm::cl::desc("new-pass-manager pipeline run before NVPTX code "
                   "generation (O0..O3 for LLVM's default pipelines)"),
    llvm::cl::init(DefaultMiddleEnd));

llvm::cl::opt<unsigned> codegenOptLevel(
    "tilec-codegen-opt", llvm::cl::Hidden,
    llvm::cl::desc("NVPTX code generator optimization level, 0 to 3 (default: "
                   "3, or 0 for the sm_80 GEMM's light profile)"),
    llvm::cl::init(3));

/// The code generator's optimization level for \p profile.
llvm::CodeGenOptLevel codegenLevel(PtxOptProfileKind profile) {
  unsigned level = profile == PtxOptProfileKind::Light ? 0 : 3;
  if (codegenOptLevel.getNumOccurrences() > 0)
    level = std::min(codegenOptLevel.getValue(), 3u);
  return *llvm::CodeGenOpt::getLevel(int(level));
}

/// Milliseconds since \p start; restarts \p start.
double lap(std::chrono::steady_clock::time_point &start) {
  auto now = std::chrono::steady_clock::now();
  double ms = std::chrono::duration<double, std::milli>(now - start).count();
  start = now;
  return ms;
}

constexpr const char *NvptxTriple = "nvptx64-nvidia-cuda";

void initializeNvptxOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(ArchKind arch, llvm::CodeGenOptLevel level) {
  initializeNvptxOnce();
  llvm::Triple triple(NvptxTriple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError("NVPTX target unavailable: " + error);
  const ArchInfo &info = archInfo(arch);
  std::string features = "+ptx" + std::to_string(info.ptxVersion);
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, info.name, features, options, std::nullopt, std::nullopt,
      level));
  if (!machine)
    return llvm::createStringError("cannot create an NVPTX target machine "
                                   "for " +
                                   info.name.str());
  return machine;
}

/// The calling thread's target machine for (\p arch, \p level), created on
/// first use: a target machine holds no per-module state, and creating one
/// (and its subtarget's lowering tables) twice per compile cost ~4% of an
/// sm_80 GEMM compile. Per thread, so concurrent compiles share nothing.
llvm::Expected<llvm::TargetMachine *> targetMachine(ArchKind arch,
                                                    llvm::CodeGenOptLevel level) {
  thread_local std::map<std::pair<ArchKind, llvm::CodeGenOptLevel>,
                        std::unique_ptr<llvm::TargetMachine>>
      machines;
  auto &slot = machines[{arch, level}];
  if (!slot) {
    auto machine = createTargetMachine(arch, level);
    if (!machine)
      return machine.takeError();
    slot = std::move(*machine);
  }
  return slot.get();
}

llvm::Error optimize(llvm::Module &module, llvm::TargetMachine &machine,
                     PtxOptProfileKind profile) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::StringRef text = middleEndPipeline;
  if (profile == PtxOptProfileKind::Light &&
      middleEndPipeline.getNumOccurrences() == 0)
    text = LightMiddleEnd;
  llvm::ModulePassManager passes;
  const std::pair<const char *, llvm::OptimizationLevel> Levels[] = {
      {"O1", llvm::OptimizationLevel::O1},
      {"O2", llvm::OptimizationLevel::O2},
      {"O3", llvm::OptimizationLevel::O3}};
  if (text == "O0")
    return llvm::Error::success();
  bool isLevel = false;
  for (auto &[name, level] : Levels)
    if (text == name) {
      passes = builder.buildPerModuleDefaultPipeline(level);
      isLevel = true;
    }
  if (!isLevel)
    if (llvm::Error err = builder.parsePassPipeline(passes, text))
      return llvm::createStringError("bad -tilec-middle-end pipeline '" +
                                     text.str() +
                                     "': " + llvm::toString(std::move(err)));
  passes.run(module, mam);
  return llvm::Error::success();
}

} // namespace

const PtxEmitTimings &lastPtxEmitTimings() { return lastTimings; }

llvm::Error configureModuleForArch(llvm::Module &module, ArchKind arch) {
  auto machine = targetMachine(arch, llvm::CodeGenOptLevel::Aggressive);
  if (!machine)
    return machine.takeError();
  module.setTargetTriple(llvm::Triple(NvptxTriple));
  module.setDataLayout((*machine)->createDataLayout());
  return llvm::Error::success();
}

llvm::Expected<std::string> emitPtx(llvm::Module &module, ArchKind arch,
                                    const PtxEmitOptions &options) {
  PtxEmitTimings timings;
  auto clock = std::chrono::steady_clock::now();
  auto machine = targetMachine(arch, codegenLevel(options.profile));
  timings.targetMs = lap(clock);
  if (!machine)
    return machine.takeError();
  module.setTargetTriple(llvm::Triple(NvptxTriple));
  module.setDataLayout((*machine)->createDataLayout());

  std::string verifierMessage;
  llvm::raw_string_ostream verifierStream(verifierMessage);
  if (llvm::verifyModule(module, &verifierStream))
    return llvm::createStringError("invalid LLVM IR: " + verifierMessage);
  timings.verifyMs = lap(clock);

  if (options.optimize)
    if (llvm::Error err = optimize(module, **machine, options.profile))
      return err;
  timings.optimizeMs = lap(clock);

  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream ptxStream(ptx);
  llvm::legacy::PassManager codegen;
  // The module was verified above; the code generator need not again.
  if ((*machine)->addPassesToEmitFile(codegen, ptxStream, nullptr,
                                      llvm::CodeGenFileType::AssemblyFile,
                                      /*DisableVerify=*/true))
    return llvm::createStringError("NVPTX cannot emit PTX for " +
                                   archInfo(arch).name.str());
  codegen.run(module);
  timings.codegenMs = lap(clock);
  lastTimings = timings;
  return std::string(ptx.str());
}

} // namespace tilec
