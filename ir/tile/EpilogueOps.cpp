//===- ir/tile/EpilogueOps.cpp - The epilogue's element-wise ops ---------------===//
#include "ir/tile/EpilogueOps.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <tuple>

using namespace tilec;

namespace {

const EpilogueOpInfo OpTable[] = {
#define TILEC_EPILOGUE_OP(KIND, NAME, AXIS, BOUNDS, OPERAND, OPERAND_LD,       \
                          OPERAND_TYPE, APPROXIMATE, ...)                      \
  {NAME,                                                                       \
   EpilogueOpKind::KIND,                                                       \
   AXIS,                                                                       \
   BOUNDS,                                                                     \
   OPERAND,                                                                    \
   OPERAND_LD,                                                                 \
   EpilogueOperandType::OPERAND_TYPE,                                          \
   APPROXIMATE},
#include "ir/tile/EpilogueOps.def"
};

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(message.str());
}

/// A float written in the source: an optional sign, digits, a fraction and
/// an exponent; std::nullopt for anything else (names, NaN, inf).
std::optional<float> parseNumber(llvm::StringRef text) {
  text = text.trim();
  if (text.empty() || text.size() > 64)
    return std::nullopt;
  for (char c : text)
    if (!llvm::isDigit(c) && c != '.' && c != '-' && c != '+' && c != 'e' &&
        c != 'E')
      return std::nullopt;
  std::string copy = text.str();
  char *end = nullptr;
  float value = std::strtof(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

/// The shortest decimal that reads back as \p value: 1, -0.5, 0.1.
std::string formatNumber(float value) {
  char text[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, double(value));
    if (std::strtof(text, nullptr) == value)
      break;
  }
  return text;
}

} // namespace

llvm::ArrayRef<EpilogueOpInfo> tilec::epilogueOpTable() { return OpTable; }

const EpilogueOpInfo *tilec::findEpilogueOp(llvm::StringRef name) {
  for (const EpilogueOpInfo &info : OpTable)
    if (info.name == name)
      return &info;
  return nullptr;
}

const EpilogueOpInfo &tilec::epilogueOpInfo(EpilogueOpKind kind) {
  for (const EpilogueOpInfo &info : OpTable)
    if (info.kind == kind)
      return info;
  return OpTable[0];
}

std::string tilec::listEpilogueOps() {
  std::string out;
  for (const EpilogueOpInfo &info : OpTable)
    out += (out.empty() ? "" : ", ") + info.name.str();
  return out;
}

double tilec::referenceEpilogueOp(const EpilogueOp &op, double x,
                                  double operand) {
  [[maybe_unused]] double v = operand;
  switch (op.kind) {
#define TILEC_EPILOGUE_OP(KIND, NAME, AXIS, BOUNDS, OPERAND, OPERAND_LD,       \
                          OPERAND_TYPE, APPROXIMATE, ...)                      \
  case EpilogueOpKind::KIND:                                                   \
    return __VA_ARGS__;
#include "ir/tile/EpilogueOps.def"
  }
  return x;
}

DTypeKind tilec::epilogueOperandType(const EpilogueOp &op, DTypeKind cType) {
  switch (epilogueOpInfo(op.kind).operandType) {
  case EpilogueOperandType::F32:
    return DTypeKind::F32;
  case EpilogueOperandType::OfCOrWritten:
    return op.operandType.value_or(cType);
  case EpilogueOperandType::OfC:
  case EpilogueOperandType::None:
    break;
  }
  return cType;
}

bool tilec::readsOperandVector(const EpilogueOp &op) {
  const EpilogueOpInfo &info = epilogueOpInfo(op.kind);
  return !info.operand.empty() && info.operandLd.empty();
}

bool tilec::readsOperandMatrix(const EpilogueOp &op) {
  return !epilogueOpInfo(op.kind).operandLd.empty();
}

llvm::SmallVector<const EpilogueOpInfo *> tilec::epilogueOperandRoles() {
  llvm::SmallVector<const EpilogueOpInfo *> roles;
  for (const EpilogueOpInfo &info : OpTable)
    if (!info.operand.empty())
      roles.push_back(&info);
  return roles;
}

const EpilogueOpInfo *tilec::findEpilogueOperand(llvm::StringRef name) {
  for (const EpilogueOpInfo &info : OpTable)
    if (!name.empty() && !info.operand.empty() &&
        (info.operand == name || info.operandLd == name))
      return &info;
  return nullptr;
}

const EpilogueOp *tilec::findSwiglu(llvm::ArrayRef<EpilogueOp> ops) {
  for (const EpilogueOp &op : ops)
    if (op.kind == EpilogueOpKind::Swiglu)
      return &op;
  return nullptr;
}

std::pair<llvm::ArrayRef<EpilogueOp>, llvm::ArrayRef<EpilogueOp>>
tilec::splitAtSwiglu(llvm::ArrayRef<EpilogueOp> ops) {
  const EpilogueOp *swiglu = findSwiglu(ops);
  if (!swiglu)
    return {ops, {}};
  size_t at = size_t(swiglu - ops.data());
  return {ops.take_front(at), ops.drop_front(at + 1)};
}

int64_t tilec::epilogueOutputCols(llvm::ArrayRef<EpilogueOp> ops, int64_t n) {
  return findSwiglu(ops) ? n / 2 : n;
}

std::pair<int64_t, int64_t> tilec::swigluSources(const EpilogueOp &swiglu,
                                                 int64_t col, int64_t bn) {
  if (swiglu.pairing == SwigluPairingKind::Interleaved)
    return {2 * col, 2 * col + 1};
  int64_t half = bn / 2;
  int64_t gate = col / half * bn + col % half;
  return {gate, gate + half};
}

llvm::Expected<EpilogueOp> tilec::parseEpilogueOp(llvm::StringRef text) {
  text = text.trim();
  llvm::StringRef name = text.take_until([](char c) { return c == '('; });
  llvm::StringRef rest = text.drop_front(name.size()).trim();
  name = name.trim();
  const EpilogueOpInfo *info = findEpilogueOp(name);
  if (!info)
    return fail("unknown epilogue op '" + name +
                "'; legal: " + listEpilogueOps());
  std::optional<llvm::StringRef> args;
  if (!rest.empty()) {
    if (!rest.consume_front("(") || !rest.consume_back(")"))
      return fail("epilogue op '" + text + "' is not NAME or NAME(...)");
    args = rest.trim();
  }
  EpilogueOp op{info->kind};
  if (info->takesAxis) {
    // bias(col) or bias(col, TYPE).
    llvm::StringRef axis, type;
    if (args)
      std::tie(axis, type) = args->split(',');
    axis = axis.trim();
    type = type.trim();
    if (!args || (axis != "col" && axis != "row"))
      return fail("epilogue op '" + info->name +
                  "' needs its axis: " + info->name +
                  "(col) (one value per column of C, length N) "
                  "or " +
                  info->name + "(row) (one per row, length M)" +
                  (args ? ", not '" + args->str() + "'" : std::string()));
    op.axis = axis == "col" ? EpilogueAxis::Col : EpilogueAxis::Row;
    if (args->contains(',')) {
      std::optional<DTypeKind> dtype = parseDType(type);
      bool legal =
          dtype && (*dtype == DTypeKind::BF16 || *dtype == DTypeKind::F16 ||
                    *dtype == DTypeKind::F32);
      bool written = info->operandType == EpilogueOperandType::OfCOrWritten;
      if (!written || !legal)
        return fail(!written
                        ? "epilogue op '" + info->name + "' reads " +
                              (info->operandType == EpilogueOperandType::F32
                                   ? "f32"
                                   : "C's type") +
                              " only; write " + info->name + "(" + axis +
                              "), not '" + info->name + "(" + args->str() + ")'"
                        : info->name + "'s vector type '" + type +
                              "' is not bf16, f16 or f32; e.g. " + info->name +
                              "(" + axis + ", f32), or " + info->name + "(" +
                              axis + ") for C's type");
      op.operandType = *dtype;
    }
    return op;
  }
  if (op.kind == EpilogueOpKind::Swiglu && args) {
    if (*args != "interleaved")
      return fail("epilogue op 'swiglu' pairs the halves of each tile, or "
                  "with swiglu(interleaved) columns 2j and 2j + 1; not "
                  "'swiglu(" +
                  *args + ")'");
    op.pairing = SwigluPairingKind::Interleaved;
    return op;
  }
  if (info->takesBounds) {
    llvm::SmallVector<llvm::StringRef> parts;
    if (args)
      args->split(parts, ',');
    std::optional<float> lo, hi;
    if (parts.size() == 2) {
      lo = parseNumber(parts[0]);
      hi = parseNumber(parts[1]);
    }
    if (!lo || !hi)
      return fail(
          "epilogue op 'clamp' needs two finite numbers, "
          "clamp(LO, HI), e.g. clamp(-1, 1)" +
          (args ? ", not 'clamp(" + args->str() + ")'" : std::string()));
    if (!(*lo <= *hi))
      return fail("clamp(" + args->str() + ") has LO = " + formatNumber(*lo) +
                  " above HI = " + formatNumber(*hi) + "; LO <= HI is legal");
    op.lo = *lo;
    op.hi = *hi;
    return op;
  }
  if (args)
    return fail("epilogue op '" + info->name + "' takes no options, not '(" +
                *args + ")'");
  return op;
}

std::string tilec::formatEpilogueOp(const EpilogueOp &op) {
  const EpilogueOpInfo &info = epilogueOpInfo(op.kind);
  if (info.takesAxis)
    return info.name.str() + (op.axis == EpilogueAxis::Row ? "(row" : "(col") +
           (op.operandType ? ", " + dtypeInfo(*op.operandType).name.str()
                           : std::string()) +
           ")";
  if (op.kind == EpilogueOpKind::Swiglu &&
      op.pairing == SwigluPairingKind::Interleaved)
    return "swiglu(interleaved)";
  if (info.takesBounds)
    return info.name.str() + "(" + formatNumber(op.lo) + ", " +
           formatNumber(op.hi) + ")";
  return info.name.str();
}

std::string tilec::formatEpilogueOps(llvm::ArrayRef<EpilogueOp> ops) {
  std::string out;
  for (const EpilogueOp &op : ops)
    out += (out.empty() ? "" : " ") + formatEpilogueOp(op);
  return out;
}
