//===- codegen/SmemAddress.cpp - Swizzled smem layouts as address IR ------===//
//
// Flattening keeps CuTe's coordinate rule: a mode's integer coordinate is
// split column-major over the mode's leaves (the last leaf takes the rest),
// each digit times its stride. Host evaluation and emitted IR follow the same
// steps so deltaOf's exhaustive checks speak about the emitted code.
//
//===----------------------------------------------------------------------===//
#include "codegen/SmemAddress.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/FormatVariadic.h"


namespace tilec {

namespace {

void collectLeaves(const IntTuple &shape, const IntTuple &stride,
                   std::vector<std::pair<int64_t, int64_t>> &out) {
  if (shape.isLeaf()) {
    out.push_back({shape.getValue(), stride.getValue()});
    return;
  }
  for (size_t i = 0; i < shape.getElems().size(); ++i)
    collectLeaves(shape.getElems()[i], stride.getElems()[i], out);
}

bool congruent(const IntTuple &a, const IntTuple &b) {
  if (a.isLeaf() != b.isLeaf())
    return false;
  if (a.isLeaf())
    return true;
  if (a.getElems().size() != b.getElems().size())
    return false;
  for (size_t i = 0; i < a.getElems().size(); ++i)
    if (!congruent(a.getElems()[i], b.getElems()[i]))
      return false;
  return true;
}

int64_t productOf(const std::vector<std::pair<int64_t, int64_t>> &leaves) {
  int64_t p = 1;
  for (auto &[shape, stride] : leaves)
    p *= shape;
  return p;
}

} // namespace

llvm::Expected<SmemAddress> SmemAddress::get(const ComposedLayout &layout,
                                             int64_t extentMn, int64_t extentK,
                                             llvm::StringRef what) {
  const Layout &inner = layout.layout;
  if (!congruent(inner.shape, inner.stride) || inner.shape.isLeaf() ||
      inner.shape.getElems().size() != 2)
    return llvm::createStringError(llvm::formatv(
        "smem layout of {0} must have 2 modes (mn, k), congruent shape and "
        "stride",
        what));
  std::vector<std::pair<int64_t, int64_t>> mn, k;
  collectLeaves(inner.shape.getElems()[0], inner.stride.getElems()[0], mn);
  collectLeaves(inner.shape.getElems()[1], inner.stride.getElems()[1], k);
  if (productOf(mn) != extentMn || productOf(k) != extentK)
    return llvm::createStringError(llvm::formatv(
        "smem layout of {0} covers {1} x {2} elements but the tile is {3} x "
        "{4}",
        what, productOf(mn), productOf(k), extentMn, extentK));
  for (auto *leaves : {&mn, &k})
    for (auto &[shape, stride] : *leaves)
      if (shape <= 0 || stride < 0)
        return llvm::createStringError(llvm::formatv(
            "smem layout of {0} has a mode {1}:{2}; shapes must be positive "
            "and strides non-negative",
            what, shape, stride));
  if (layout.offset < 0)
    return llvm::createStringError(
        llvm::formatv("smem layout of {0} has a negative offset", what));

  SmemAddress result;
  for (auto &[shape, stride] : mn)
    result.mnModes.push_back({shape, stride});
  for (auto &[shape, stride] : k)
    result.kModes.push_back({shape, stride});
  result.swizzle = layout.swizzle;
  result.base = layout.offset;
  result.name = what.str();

  // Span and injectivity, over every coordinate of the tile, with one byte
  // per possible offset as the seen-set (a std::set cost ~2 ms per compile).
  // Offsets normally lie below the next power of two above the largest
  // linear offset (the swizzle XORs higher bits into lower ones).
  int64_t maxLinear = result.base;
  for (auto *modes : {&result.mnModes, &result.kModes})
    for (const Mode &mode : *modes)
      maxLinear += (mode.shape - 1) * mode.stride;
  std::vector<uint8_t> seen(
      static_cast<size_t>(llvm::NextPowerOf2(uint64_t(maxLinear))));
  for (int64_t j = 0; j < extentK; ++j)
    for (int64_t i = 0; i < extentMn; ++i) {
      int64_t off = result.offset(i, j);
      if (off < 0)
        return llvm::createStringError(llvm::formatv(
            "smem layout of {0} maps ({1}, {2}) to the negative offset {3}",
            what, i, j, off));
      if (size_t(off) >= seen.size())
        seen.resize(size_t(off) + 1);
      if (seen[size_t(off)]++)
        return llvm::createStringError(llvm::formatv(
            "smem layout of {0} maps two coordinates to offset {1} (at "
            "({2}, {3})); a staging layout must be injective",
            what, off, i, j));
      result.spanElems = std::max(result.spanElems, off + 1);
    }
  return result;
}

int64_t SmemAddress::digitsOffset(const std::vector<Mode> &modes,
                                  int64_t coord) {
  if (modes.size() == 1) // One mode: no digits to split off.
    return coord * modes[0].stride;
  int64_t off = 0;
  for (size_t i = 0; i < modes.size(); ++i) {
    bool last = i + 1 == modes.size();
    int64_t digit = last ? coord : coord % modes[i].shape;
    off += digit * modes[i].stride;
    coord /= modes[i].shape;
  }
  return off;
}

int64_t SmemAddress::offset(int64_t mn, int64_t k) const {
  int64_t linear = base + digitsOffset(mnModes, mn) + digitsOffset(kModes, k);
  if (swizzle.bits == 0)
    return linear;
  int64_t zMask = ((int64_t(1) << swizzle.bits) - 1) << swizzle.base;
  int64_t yMask = zMask << swizzle.shift;
  return linear ^ ((linear & yMask) >> swizzle.shift);
}

llvm::Value *SmemAddress::emitDigits(llvm::IRBuilderBase &b,
                                     const std::vector<Mode> &modes,
                                     llvm::Value *coord) const {
  // No multiply by 1 and no add of 0: the Light profile runs no InstCombine
  // to fold them, and each costs instruction selection time.
  llvm::Value *off = nullptr;
  for (size_t i = 0; i < modes.size(); ++i) {
    bool last = i + 1 == modes.size();
    llvm::Value *digit =
        last ? coord : b.CreateURem(coord, b.getInt32(modes[i].shape));
    if (modes[i].stride != 0 && modes[i].shape != 1) {
      llvm::Value *term =
          modes[i].stride == 1
              ? digit
              : b.CreateMul(digit, b.getInt32(modes[i].stride));
      off = off ? b.CreateAdd(off, term) : term;
    }
    if (!last)
      coord = b.CreateUDiv(coord, b.getInt32(modes[i].shape));
  }
  return off ? off : b.getInt32(0);
}

llvm::Value *SmemAddress::emitOffset(llvm::IRBuilderBase &b, llvm::Value *mn,
                                     llvm::Value *k) const {
  llvm::Value *linear =
      b.CreateAdd(emitDigits(b, mnModes, mn), emitDigits(b, kModes, k));
  if (base != 0)
    linear = b.CreateAdd(linear, b.getInt32(base));
  if (swizzle.bits == 0)
    return linear;
  int64_t zMask = ((int64_t(1) << swizzle.bits) - 1) << swizzle.base;
  llvm::Value *y =
      b.CreateAnd(b.CreateLShr(linear, swizzle.shift), b.getInt32(zMask));
  return b.CreateXor(linear, y, "smem.off");
}

OffsetDelta SmemAddress::deltaOf(llvm::ArrayRef<TileCoord> runtime,
                                 TileCoord c) const {
  // offset(c) alone includes `base` once; offset(r) has it too.
  int64_t addDelta = offset(runtime.front().first + c.first,
                            runtime.front().second + c.second) -
                     offset(runtime.front());
  bool isAdd = true, isXor = true;
  int64_t xorDelta = offset(runtime.front().first + c.first,
                            runtime.front().second + c.second) ^
                     offset(runtime.front());
  for (const TileCoord &r : runtime) {
    int64_t at = offset(r.first + c.first, r.second + c.second);
    int64_t from = offset(r);
    isAdd = isAdd && at - from == addDelta;
    isXor = isXor && (at ^ from) == xorDelta;
  }
  if (isAdd)
    return {OffsetDelta::Add, addDelta};
  if (isXor)
    return {OffsetDelta::Xor, xorDelta};
  return {OffsetDelta::Full, 0};
}

llvm::Value *SmemAddress::emitOffsetAt(llvm::IRBuilderBase &b,
                                       llvm::Value *base, llvm::Value *mn,
                                       llvm::Value *k,
                                       llvm::ArrayRef<TileCoord> runtime,
                                       TileCoord c) const {
  OffsetDelta delta = deltaOf(runtime, c);
  switch (delta.kind) {
  case OffsetDelta::Add:
    return delta.value == 0 ? base : b.CreateAdd(base, b.getInt32(delta.value));
  case OffsetDelta::Xor:
    return b.CreateXor(base, b.getInt32(delta.value));
  case OffsetDelta::Full:
    break;
  }
  return emitOffset(b, b.CreateAdd(mn, b.getInt32(c.first)),
                    b.CreateAdd(k, b.getInt32(c.second)));
}

llvm::Error SmemAddress::checkVector(TileCoord start, bool kContiguous,
                                     unsigned elems) const {
  int64_t first = offset(start);
  bool ok = first % elems == 0;
  for (unsigned e = 1; ok && e < elems; ++e) {
    TileCoord at = kContiguous ? TileCoord{start.first, start.second + e}
                               : TileCoord{start.first + e, start.second};
    ok = offset(at) == first + e;
  }
  if (ok)
    return llvm::Error::success();
  return llvm::createStringError(llvm::formatv(
      "smem layout of {0} does not keep the {1} elements from ({2}, {3}) "
      "along {4} at {1} consecutive offsets starting at a multiple of {1} "
      "(offset {5}); 16-byte copies and ldmatrix rows need that, as the "
      "canonical {6}-major swizzle atoms give",
      name, elems, start.first, start.second, kContiguous ? "K" : "MN", first,
      kContiguous ? "K" : "MN"));
}

} // namespace tilec
