//===- runtime/sim/PtxDecoder.h - Opcode decoder internals -*- C++ -*-===//
//
// Shared by the files that decode one group of instruction families each
// (PtxOpcodes.cpp: scalar, memory and synchronization; PtxTensorOpcodes.cpp:
// mbarrier, cp.async and the tensor cores) and PtxModifiers.cpp, which sorts
// an opcode's dotted words into types, spaces and the rest. Not for use
// outside the decoder.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_SIM_PTXDECODER_H
#define TILEC_RUNTIME_SIM_PTXDECODER_H

#include "runtime/sim/PtxProgram.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::sim::ptxdecode {

/// Collects the decoded modifiers of one opcode.
struct Mods {
  std::vector<PtxType> types;
  std::optional<SpaceKind> space, space2;
  std::optional<CmpKind> cmp;
  std::optional<RoundKind> round;
  unsigned vec = 1;
  std::vector<std::string_view> words; ///< Everything else, in order.
  bool has(std::string_view w) const {
    return std::find(words.begin(), words.end(), w) != words.end();
  }
  /// Removes the words that are in \p modes; returns the index in \p modes
  /// of the last one removed, or -1.
  int take(std::initializer_list<std::string_view> modes);
};

/// Sorts parts[from...] into \p Mods, dropping the modifiers that have no
/// effect in the simulator. A comparison is read only for setp.
Mods splitMods(const std::vector<std::string_view> &parts, std::size_t from);

/// Reads "m16n8k16" into \p m, \p n, \p k.
bool parseShape(std::string_view s, int &m, int &n, int &k);

/// A sub-opcode name and the op it decodes to.
struct NamedOp {
  std::string_view name;
  OpKind op;
};

/// The op named \p name in \p ops.
std::optional<OpKind> findOp(std::string_view name,
                             std::initializer_list<NamedOp> ops);

/// Decodes one opcode into \p ins, or sets \p error.
struct Decoder {
  std::string_view opcode;
  Instr &ins;
  std::string &error;
  std::vector<std::string_view> parts;

  bool bad(std::string message) {
    if (error.empty())
      error = std::move(message);
    return false;
  }
  bool unknown();
  bool badModifier(std::string_view w);
  /// Every leftover word must be in \p allowed.
  bool only(const Mods &m, std::initializer_list<std::string_view> allowed);
  bool oneType(const Mods &m);
  /// ins.op = \p op; the words must be in \p allowed.
  bool simple(OpKind op, const Mods &m,
              std::initializer_list<std::string_view> allowed) {
    ins.op = op;
    return only(m, allowed);
  }

  bool decode();
  bool decodeArith(std::string_view base, const Mods &m);
  bool decodeMem(std::string_view base, const Mods &m);
  bool decodeSync(std::string_view base, Mods &m);
  bool decodeMbarrier(const Mods &m);
  bool decodeCpAsync();
  bool decodeMatrix(std::string_view base, const Mods &m);
  bool decodeMma(const Mods &m);
  bool decodeWgmma(const Mods &m);
  bool decodeTcgen05();
};

} // namespace tilec::sim::ptxdecode

#endif // TILEC_RUNTIME_SIM_PTXDECODER_H
