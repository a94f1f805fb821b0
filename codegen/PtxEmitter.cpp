//===- codegen/PtxEmitter.cpp - llvm::Module to PTX text ------------------===//
//
// One short path through LLVM: triple and data layout from the NVPTX target
// machine, verifyModule, the O3 new-pass-manager pipeline, then the legacy
// code generation pipeline printing PTX into a string.
//
//===----------------------------------------------------------------------===//
#include "codegen/PtxEmitter.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>
#include <mutex>

namespace tilec {

namespace {

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
createTargetMachine(ArchKind arch) {
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
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return llvm::createStringError("cannot create an NVPTX target machine "
                                   "for " +
                                   info.name.str());
  return machine;
}

void optimize(llvm::Module &module, llvm::TargetMachine &machine) {
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
  llvm::ModulePassManager passes =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  passes.run(module, mam);
}

} // namespace

llvm::Error configureModuleForArch(llvm::Module &module, ArchKind arch) {
  auto machine = createTargetMachine(arch);
  if (!machine)
    return machine.takeError();
  module.setTargetTriple(llvm::Triple(NvptxTriple));
  module.setDataLayout((*machine)->createDataLayout());
  return llvm::Error::success();
}

llvm::Expected<std::string> emitPtx(llvm::Module &module, ArchKind arch,
                                    const PtxEmitOptions &options) {
  auto machine = createTargetMachine(arch);
  if (!machine)
    return machine.takeError();
  module.setTargetTriple(llvm::Triple(NvptxTriple));
  module.setDataLayout((*machine)->createDataLayout());

  std::string verifierMessage;
  llvm::raw_string_ostream verifierStream(verifierMessage);
  if (llvm::verifyModule(module, &verifierStream))
    return llvm::createStringError("invalid LLVM IR: " + verifierMessage);

  if (options.optimize)
    optimize(module, **machine);

  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream ptxStream(ptx);
  llvm::legacy::PassManager codegen;
  if ((*machine)->addPassesToEmitFile(codegen, ptxStream, nullptr,
                                      llvm::CodeGenFileType::AssemblyFile))
    return llvm::createStringError("NVPTX cannot emit PTX for " +
                                   archInfo(arch).name.str());
  codegen.run(module);
  return std::string(ptx.str());
}

} // namespace tilec
