//===- codegen/SourceLineInfo.cpp - PTX line directives for a kernel ------===//
#include "codegen/SourceLineInfo.h"

#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Module.h"

using namespace tilec;

SourceLineInfo::SourceLineInfo(llvm::Function &fn, const SourceLines &lines,
                               llvm::IRBuilder<> &b)
    : lines(lines), b(b) {
  if (!lines.emit || lines.kernel == 0)
    return;
  llvm::Module &module = *fn.getParent();
  if (!module.getModuleFlag("Debug Info Version"))
    module.addModuleFlag(llvm::Module::Warning, "Debug Info Version",
                         llvm::DEBUG_METADATA_VERSION);
  di = std::make_unique<llvm::DIBuilder>(module);
  llvm::DIFile *file = di->createFile(lines.file, lines.directory);
  di->createCompileUnit(llvm::DISourceLanguageName(llvm::dwarf::DW_LANG_C),
                        file, "tilec", /*isOptimized=*/true, "", 0, "",
                        llvm::DICompileUnit::DebugDirectivesOnly);
  llvm::DISubroutineType *type =
      di->createSubroutineType(di->getOrCreateTypeArray({}));
  subprogram = di->createFunction(
      file, fn.getName(), fn.getName(), file, lines.kernel, type,
      lines.kernel, llvm::DINode::FlagPrototyped,
      llvm::DISubprogram::SPFlagDefinition |
          llvm::DISubprogram::SPFlagOptimized);
  fn.setSubprogram(subprogram);
  at(KernelPart::Kernel);
}

void SourceLineInfo::at(KernelPart part) {
  if (!subprogram)
    return;
  b.SetCurrentDebugLocation(llvm::DILocation::get(
      b.getContext(), lines.lineOf(part), /*Column=*/1, subprogram));
}

void SourceLineInfo::finish() {
  if (di)
    di->finalize();
}
