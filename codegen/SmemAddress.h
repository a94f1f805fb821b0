//===- codegen/SmemAddress.h - Swizzled smem layouts as address IR -*- C++
//-*-===//
//
// Codegen never writes a shared-memory address by hand: it asks the operand's
// layout, Sw<B,M,S> o off o ((mn modes),(k modes)):((strides)), for the
// element offset of a (mn, k) coordinate and emits that arithmetic (digits of
// each coordinate by div/mod over the mode's shape, times the strides, plus
// the offset, then the swizzle XOR).
//
// Inner loops address the same layout at many coordinates r + c where r
// depends on the thread and c is a compile-time constant. deltaOf() decides,
// by evaluating the layout at every value r can take, whether
// offset(r + c) == offset(r) + offset(c) (one add, foldable into the
// instruction's immediate) or == offset(r) ^ offset(c) (one xor: the swizzle
// is linear over XOR), and falls back to the full arithmetic otherwise.
//
// Example: K_SW64<bf16> tiled to (128, 32) is
// Sw<2,3,3> o ((8,16),(32,1)):((32,256),(1,0)); offset(1, 8) = 32 + 8 = 40 =
// 0b101000, whose bits 6..7 (0) leave bits 3..4 alone: 40; offset(2, 8) =
// 72 = 0b1001000 -> bits 6..7 = 1 flip bit 3: 64.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_SMEMADDRESS_H
#define TILEC_CODEGEN_SMEMADDRESS_H

#include "ir/layout/ComposedLayout.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace tilec {

/// A (mn, k) coordinate of an operand tile.
using TileCoord = std::pair<int64_t, int64_t>;

/// How offset(r + c) follows from offset(r) for a constant c.
struct OffsetDelta {
  enum Kind { Add, Xor, Full };
  Kind kind;
  int64_t value; ///< offset(c) for Add and Xor.
};

/// A rank-2 (mn, k) -> element offset smem layout, flattened for codegen.
class SmemAddress {
public:
  /// Flattens \p layout, whose mode 0 must have \p extentMn coordinates and
  /// mode 1 \p extentK. \p what names the operand in errors ("A", "B").
  static llvm::Expected<SmemAddress> get(const ComposedLayout &layout,
                                         int64_t extentMn, int64_t extentK,
                                         llvm::StringRef what);

  /// The element offset of (mn, k), evaluated on the host.
  int64_t offset(int64_t mn, int64_t k) const;
  int64_t offset(TileCoord c) const { return offset(c.first, c.second); }

  /// One past the largest offset over the tile.
  int64_t span() const { return spanElems; }

  /// IR computing offset(mn, k) as i32 from i32 coordinates.
  llvm::Value *emitOffset(llvm::IRBuilderBase &b, llvm::Value *mn,
                          llvm::Value *k) const;

  /// Classifies offset(r + c) against offset(r) over every r in \p runtime.
  OffsetDelta deltaOf(llvm::ArrayRef<TileCoord> runtime, TileCoord c) const;

  /// offset(r + c) given \p base = offset(r) and the coordinates of r (used
  /// only when the delta is Full).
  llvm::Value *emitOffsetAt(llvm::IRBuilderBase &b, llvm::Value *base,
                            llvm::Value *mn, llvm::Value *k,
                            llvm::ArrayRef<TileCoord> runtime,
                            TileCoord c) const;

  /// Checks that the 8 elements from (mn, k) along the contiguous extent
  /// (k when \p kContiguous, else mn) sit at 8 consecutive offsets starting
  /// at a multiple of 8 (16-byte atomicity for 16-bit types).
  llvm::Error checkVector(TileCoord start, bool kContiguous,
                          unsigned elems) const;

private:
  struct Mode {
    int64_t shape, stride;
  };
  std::vector<Mode> mnModes, kModes;
  Swizzle swizzle;
  int64_t base = 0;
  int64_t spanElems = 0;
  std::string name;

  static int64_t digitsOffset(const std::vector<Mode> &modes, int64_t coord);
  llvm::Value *emitDigits(llvm::IRBuilderBase &b,
                          const std::vector<Mode> &modes,
                          llvm::Value *coord) const;
};

} // namespace tilec

#endif // TILEC_CODEGEN_SMEMADDRESS_H
