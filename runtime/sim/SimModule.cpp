//===- runtime/sim/SimModule.cpp - Loading PTX into a SimModule ----------===//
//
// Parses once at load; SimFunction answers the driver's attribute queries
// from the decoded entry.
//
//===----------------------------------------------------------------------===//
#include "runtime/sim/SimModule.h"

#include "runtime/sim/SimMemory.h"

#include "runtime/sim/PtxParser.h"

#include <algorithm>

namespace tilec::sim {

PtxModule::~PtxModule() {
  for (const PtxGlobal &g : globals)
    GlobalMemory::instance().free(g.address);
}

std::optional<std::pair<std::uint64_t, std::size_t>>
SimModule::global(std::string_view name) const {
  for (const PtxGlobal &g : module->globals)
    if (g.name == name)
      return std::make_pair(g.address, g.bytes);
  return std::nullopt;
}

SimFunction::SimFunction(const PtxFunction &fn) : fn(fn) {
  for (const PtxParam &p : fn.params)
    paramList.push_back({p.name, p.offset, p.size, p.align});
}

const std::string &SimFunction::name() const { return fn.name; }

unsigned SimFunction::maxThreadsPerBlock() const {
  if (fn.maxntid[0] == 0)
    return 1024;
  return fn.maxntid[0] * std::max(1u, fn.maxntid[1]) *
         std::max(1u, fn.maxntid[2]);
}

unsigned SimFunction::staticSharedBytes() const { return fn.staticShared; }

unsigned SimFunction::registersPerThread() const {
  return std::min(255u, std::max(16u, fn.declaredRegs));
}

SimModule::~SimModule() = default;

std::unique_ptr<SimModule> SimModule::load(std::string_view ptx,
                                           std::string &error) {
  auto module = std::make_unique<PtxModule>();
  if (!parsePtx(ptx, *module, error))
    return nullptr;
  std::unique_ptr<SimModule> result(new SimModule());
  result->module = std::move(module);
  for (const PtxFunction &f : result->module->functions)
    result->entries.push_back(std::make_unique<SimFunction>(f));
  return result;
}

const SimFunction *SimModule::function(std::string_view name) const {
  for (const auto &f : entries)
    if (f->name() == name)
      return f.get();
  return nullptr;
}

} // namespace tilec::sim
