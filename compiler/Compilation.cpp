//===- compiler/Compilation.cpp - One run of the compiler -----------------===//
//
// A buffer whose first token is `tile.module` is Tile IR and skips the front
// end. Print statements run once the pipeline succeeded and only for
// --emit=lowered, llvm and ptx (with --emit=ast and ir they are part of the
// printed tree). More than one kernel is fine up to lowered; LLVM IR and PTX
// are one module per kernel, written one after the other.
//
//===----------------------------------------------------------------------===//
#include "compiler/Compilation.h"

#include "compiler/IRParser.h"
#include "compiler/LayoutPrint.h"
#include "compiler/Parser.h"
#include "compiler/Sema.h"
#include "ir/layout/SmemTileFromLayout.h"
#include "ir/ptx/PtxDescriptorScan.h"

namespace tilec {

std::optional<EmitKind> parseEmitKind(llvm::StringRef name) {
  if (name == "ast")
    return EmitKind::AST;
  if (name == "ir")
    return EmitKind::IR;
  if (name == "lowered")
    return EmitKind::Lowered;
  if (name == "llvm")
    return EmitKind::LLVM;
  if (name == "ptx")
    return EmitKind::PTX;
  return std::nullopt;
}

namespace {

bool runPrints(const tir::Op &module, DiagnosticEngine &diags,
               std::string &out) {
  bool ok = true;
  for (const tir::Op &op : module.body) {
    if (op.name != "tile.print")
      continue;
    PrintResult result = evaluatePrint(op.getText("kind"), op.getText("expr"));
    if (result.ok) {
      out += result.text + "\n";
      continue;
    }
    const tir::Attr *expr = op.get("expr");
    llvm::SMLoc loc = expr && expr->loc.isValid() ? expr->loc : op.loc;
    // Sema checked the expression where it was written, so this is Tile IR
    // read from text; the message names the column inside the string.
    diags.error(loc, result.text + " (column " +
                         llvm::Twine(result.errorColumn + 1) +
                         " of the expression)");
    ok = false;
  }
  return ok;
}

/// What --annotate tells annotatePtx of \p spec: the smem tiles of A and B
/// as the program wrote them (tile.smem's layout) and as the layout algebra
/// evaluates them, and the .tile lines of the mma and smem statements.
PtxAnnotateFacts annotateFacts(const GemmSpec &spec, const tir::Op *kernel) {
  PtxAnnotateFacts facts;
  facts.source = spec.annotateSource;
  for (auto [operand, layout, name] :
       {std::tuple{&facts.a, &spec.smemA, "a"},
        std::tuple{&facts.b, &spec.smemB, "b"}}) {
    operand->name = std::string("smem ") + name;
    const tir::Op *smem = kernel ? kernel->find("tile.smem", name) : nullptr;
    if (!*layout || !smem)
      continue;
    operand->layout = smem->getText("layout").str();
    llvm::Expected<SmemTileLayout> tile =
        smemTileFromLayout(LayoutValue(**layout));
    if (tile)
      operand->tile = std::move(*tile);
    else
      llvm::consumeError(tile.takeError());
  }
  return facts;
}

} // namespace

CompilationResult compileBuffer(unsigned bufferId,
                                const CompilationOptions &options,
                                DiagnosticEngine &diags) {
  CompilationResult result;
  llvm::StringRef text =
      diags.getSourceMgr().getMemoryBuffer(bufferId)->getBuffer();
  std::optional<tir::Op> module;
  if (looksLikeTileIR(text)) {
    if (options.emit == EmitKind::AST) {
      diags.error(llvm::SMLoc::getFromPointer(text.data()),
                  "--emit=ast needs a .tile program; this input is Tile IR");
      return result;
    }
    module = parseTileIR(bufferId, diags);
  } else {
    Program program = parseProgram(bufferId, diags);
    if (diags.hasErrors())
      return result;
    if (options.emit == EmitKind::AST) {
      llvm::raw_string_ostream os(result.output);
      dumpAST(program, os);
      result.ok = true;
      return result;
    }
    SemaOptions semaOptions;
    semaOptions.arch = options.arch;
    module = buildTileIR(program, semaOptions, diags);
  }
  if (!module || diags.hasErrors())
    return result;

  std::vector<const PassInfo *> passes = options.passes;
  if (passes.empty()) {
    if (options.emit == EmitKind::IR)
      passes.push_back(&allPasses().front());
    else
      for (const PassInfo &pass : allPasses())
        passes.push_back(&pass);
  }
  PassContext context(diags);
  context.arch = options.arch;
  PipelineOptions pipelineOptions;
  pipelineOptions.printAfterAll = options.printAfterAll;
  pipelineOptions.timePasses = options.timePasses;
  pipelineOptions.log = options.log;
  if (options.annotate)
    pipelineOptions.printOptions.annotateWith = &diags.getSourceMgr();
  if (!runPipeline(*module, passes, context, pipelineOptions) ||
      diags.hasErrors())
    return result;

  if (options.emit == EmitKind::IR || options.emit == EmitKind::Lowered) {
    if (options.emit == EmitKind::Lowered &&
        !runPrints(*module, diags, result.output))
      return result;
    result.output += tir::printToString(*module, pipelineOptions.printOptions);
    result.specs = context.specs;
    result.ok = true;
    return result;
  }

  // LLVM IR and PTX: code generation, one module per kernel.
  bool lowered = false;
  for (const PassInfo *pass : passes)
    lowered |= pass->name == "lower";
  if (!lowered) {
    diags.error(llvm::SMLoc(), "--emit=llvm and --emit=ptx need the 'lower' "
                               "pass; add it to --passes");
    return result;
  }
  if (!runPrints(*module, diags, result.output))
    return result;
  std::vector<const GemmSpec *> selected;
  std::string names;
  for (const GemmSpec &spec : context.specs) {
    names += (names.empty() ? "" : ", ") + spec.name;
    if (options.kernel.empty() || spec.name == options.kernel)
      selected.push_back(&spec);
  }
  if (!options.kernel.empty() && selected.empty()) {
    diags.error(llvm::SMLoc(),
                "no kernel '" + options.kernel + "'; the source has: " + names);
    return result;
  }
  if (selected.empty())
    diags.warning(llvm::SMLoc::getFromPointer(text.data()),
                  "the input declares no kernel; there is no code to generate");
  if (selected.size() > 1) {
    diags.error(
        module->find("tile.kernel", selected[1]->name)->loc,
        "--emit=" +
            std::string(options.emit == EmitKind::LLVM ? "llvm" : "ptx") +
            " writes one module for one kernel, and this file has " +
            std::to_string(selected.size()) + " (" + names +
            "); put each kernel in its own file");
    return result;
  }
  // --annotate: the decisions and their reasons ride along as comments.
  std::string header;
  if (options.annotate) {
    std::string ir = tir::printToString(*module, pipelineOptions.printOptions);
    llvm::StringRef prefix = options.emit == EmitKind::LLVM ? "; " : "// ";
    header = prefix.str() + "tilec: lowered Tile IR\n";
    llvm::SmallVector<llvm::StringRef> lines;
    llvm::StringRef(ir).split(lines, '\n', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef line : lines)
      header += prefix.str() + line.str() + "\n";
  }
  bool ok = true;
  for (const GemmSpec *specPtr : selected) {
    GemmSpec spec = *specPtr;
    spec.annotate = options.annotate;
    spec.source.emit = options.lineInfo;
    const tir::Op *kernel = module->find("tile.kernel", spec.name);
    llvm::SMLoc loc = kernel ? kernel->loc : llvm::SMLoc();
    if (options.emit == EmitKind::LLVM) {
      llvm::Expected<std::string> ir = emitGemmLlvmIr(spec);
      if (!ir) {
        diags.error(loc, "code generation failed for kernel '" + spec.name +
                             "': " + llvm::toString(ir.takeError()));
        ok = false;
        continue;
      }
      result.output += header + *ir;
      continue;
    }
    llvm::Expected<GemmKernelBinary> binary = emitGemm(spec);
    if (!binary) {
      diags.error(loc, "code generation failed for kernel '" + spec.name +
                           "': " + llvm::toString(binary.takeError()));
      ok = false;
      continue;
    }
    // The MMAs the generator did not annotate itself (sm_100a) get the
    // decoded descriptors, checked against the layout algebra's tiles.
    if (options.annotate)
      binary->ptx = annotatePtx(binary->ptx, annotateFacts(spec, kernel));
    result.output += header + binary->ptx;
    result.binaries.push_back(std::move(*binary));
  }
  result.specs = std::move(context.specs);
  result.ok = ok;
  return result;
}

} // namespace tilec
