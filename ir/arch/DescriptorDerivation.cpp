//===- ir/arch/DescriptorDerivation.cpp - Descriptors from smem layouts --------===//
//
// The canonical table is data: each row lists the sub-modes of the MN and K
// modes (shape and stride as symbols); the matcher probes the tile at each
// sub-mode's unit coordinate, checks fixed strides, records LBO and SBO, and
// then checks every element.
//
//===----------------------------------------------------------------------===//
#include "ir/arch/DescriptorDerivation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace tilec {

namespace {

enum class Sym { One, T, U, UT, Eight, Rep, Lbo, Sbo };

/// One sub-mode of a canonical layout: shape, stride and what to call it.
struct SubMode {
  Sym shape;
  Sym stride;
  const char *role; ///< For diagnostics: "the K stride inside a 16-byte chunk".
};

struct CanonicalRow {
  MajorKind major;
  bool swizzled;
  const char *templ; ///< The PTX ISA's CuTe form.
  SubMode mn[3];
  unsigned mnRank;
  SubMode k[2];
};

// PTX ISA "Canonical Layouts" (docs/layout-facts.md#canonical-layouts),
// strides in elements.
const CanonicalRow CanonicalTable[] = {
    {MajorKind::K,
     false,
     "((8,m),(T,2k)):((1T,SBO),(1,LBO))",
     {{Sym::Eight, Sym::T, "the stride between the 8 rows of a core matrix"},
      {Sym::Rep, Sym::Sbo, "SBO (between 8-row core-matrix groups along MN)"}},
     2,
     {{Sym::T, Sym::One, "the K stride inside a 16-byte chunk"},
      {Sym::Rep, Sym::Lbo, "LBO (between core matrices along K)"}}},
    {MajorKind::K,
     true,
     "((8,m),(T,2k)):((uT,SBO),(1,T))",
     {{Sym::Eight, Sym::UT,
       "the stride between the 8 rows of a core matrix (one atom row)"},
      {Sym::Rep, Sym::Sbo, "SBO (between 8-row groups along MN)"}},
     2,
     {{Sym::T, Sym::One, "the K stride inside a 16-byte chunk"},
      {Sym::Rep, Sym::T, "the stride between 16-byte chunks along K"}}},
    {MajorKind::MN,
     false,
     "((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))",
     {{Sym::T, Sym::One, "the MN stride inside a 16-byte chunk"},
      {Sym::One, Sym::T, ""},
      {Sym::Rep, Sym::Sbo, "SBO (between 16-byte columns along MN)"}},
     3,
     {{Sym::Eight, Sym::T, "the K stride inside a core matrix"},
      {Sym::Rep, Sym::Lbo, "LBO (between 8-row groups along K)"}}},
    {MajorKind::MN,
     true,
     "((T,u,m),(8,k)):((1,T,LBO),(uT,SBO))",
     {{Sym::T, Sym::One, "the MN stride inside a 16-byte chunk"},
      {Sym::U, Sym::T, "the stride between 16-byte chunks of an atom row"},
      {Sym::Rep, Sym::Lbo, "LBO (between swizzle atoms along MN)"}},
     3,
     {{Sym::Eight, Sym::UT,
       "the K stride inside a swizzle atom (one atom row)"},
      {Sym::Rep, Sym::Sbo, "SBO (between swizzle atoms along K)"}}},
};

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(message.str());
}

std::string joinInts(llvm::ArrayRef<int64_t> values) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << '(';
  llvm::interleave(values, os, ",");
  os << ')';
  return out;
}

} // namespace

int64_t applyElementSwizzle(int64_t offset, unsigned b, unsigned m,
                            unsigned s) {
  if (b == 0)
    return offset;
  int64_t yyy = ((int64_t(1) << b) - 1) << (m + s);
  return offset ^ ((offset & yyy) >> s);
}

uint64_t layoutByteAddress(const SmemTileLayout &tile, DTypeKind dtype,
                           uint64_t base, int64_t mn, int64_t k) {
  int64_t element = applyElementSwizzle(tile.offset(mn, k), tile.swizzleB,
                                        tile.swizzleM, tile.swizzleS);
  return base + uint64_t(element) * (dtypeBits(dtype) / 8);
}

llvm::Expected<DerivedDescriptor>
deriveSmemDescriptor(const SmemTileLayout &tile, const DerivationRequest &req) {
  const ArchInfo &arch = archInfo(req.arch);
  const DTypeInfo &type = dtypeInfo(req.dtype);
  if (!hasSmemDescriptor(req.arch))
    return fail(llvm::formatv("{0} has no shared-memory matrix descriptor "
                              "(legal: sm_90a, sm_100a)",
                              arch.name));
  if (type.bits != 8 && type.bits != 16 && type.bits != 32)
    return fail(
        llvm::formatv("{0} is not a tensor-core operand type", type.name));
  int64_t e = type.bits / 8;
  int64_t t = 16 / e;
  if (req.arch == ArchKind::SM90a && req.major == MajorKind::MN &&
      type.bits != 16)
    return fail(llvm::formatv("wgmma reads MN-major operands only for 16-bit "
                              "types (f16, bf16); {0} must be K-major",
                              type.name));

  // The MMA atom: 32 bytes of K, MN a multiple of 8 up to 256.
  if (req.mmaK * type.bits != 256)
    return fail(llvm::formatv("MMA K = {0} {1} is {2} bytes; a tensor-core "
                              "operand is 32 bytes along K (K = {3} for {1})",
                              req.mmaK, type.name, req.mmaK * e, 32 / e));
  if (req.mmaMN < 8 || req.mmaMN > 256 || req.mmaMN % 8 != 0)
    return fail(llvm::formatv("MMA MN = {0} is not a multiple of 8 from 8 to "
                              "256",
                              req.mmaMN));
  if (tile.mnSize <= 0 || tile.kSize <= 0 || tile.mnSize % req.mmaMN != 0)
    return fail(llvm::formatv("the tile's MN = {0} is not a multiple of the "
                              "MMA MN = {1}",
                              tile.mnSize, req.mmaMN));
  if (tile.kSize % req.mmaK != 0)
    return fail(llvm::formatv("the tile's K = {0} is not a multiple of the "
                              "MMA K = {1}",
                              tile.kSize, req.mmaK));

  // The swizzle must be the hardware's byte-level Swizzle<B,4,3>, which in
  // elements of e bytes is Swizzle<B, 4 - log2(e), 3>.
  unsigned wantM = 4 - llvm::Log2_64(e);
  if (tile.swizzleB > 3 ||
      (tile.swizzleB != 0 && (tile.swizzleM != wantM || tile.swizzleS != 3)))
    return fail(llvm::formatv(
        "Sw<{0},{1},{2}> is not a tensor-core swizzle for {3} (legal: "
        "Sw<1,{4},3>, Sw<2,{4},3>, Sw<3,{4},3> or none)",
        tile.swizzleB, tile.swizzleM, tile.swizzleS, type.name, wantM));
  SwizzleKind swizzle = *swizzleFromBits(tile.swizzleB);
  const SwizzleInfo &sw = swizzleInfo(swizzle);
  bool swizzled = swizzle != SwizzleKind::None;
  int64_t u = sw.bytes / 16;
  int64_t atomWidth = sw.bytes / e; // Elements along the major mode.

  // The swizzle atom must tile the tile (and, MN-major, the MMA subtile).
  if (swizzled) {
    int64_t atomMN = req.major == MajorKind::K ? 8 : atomWidth;
    int64_t atomK = req.major == MajorKind::K ? atomWidth : 8;
    if (tile.mnSize % atomMN != 0 || tile.kSize % atomK != 0)
      return fail(llvm::formatv(
          "the {0} x {1} tile does not cover whole {2} {3}-major atoms of "
          "{4} x {5} {6} (MN must be a multiple of {4} and K of {5})",
          tile.mnSize, tile.kSize, sw.name, majorName(req.major), atomMN, atomK,
          type.name));
    if (req.major == MajorKind::MN && req.mmaMN % atomWidth != 0)
      return fail(llvm::formatv(
          "MMA MN = {0} does not cover a whole {1} MN-major atom ({2} {3} "
          "along MN); use MN a multiple of {2} or a narrower swizzle",
          req.mmaMN, sw.name, atomWidth, type.name));
    uint64_t pattern = uint64_t(1) << (7 + sw.swizzleBits);
    if (req.base % pattern != 0)
      return fail(llvm::formatv(
          "the tile's base address {0} is not {1}-byte aligned, as the {2} "
          "swizzle pattern requires (a base offset of {3} would be needed; "
          "tilec derives base offset 0 only)",
          req.base, pattern, sw.name, (req.base >> 7) & 7));
  }
  if (req.base % 16 != 0)
    return fail(llvm::formatv("the tile's base address {0} is not a multiple "
                              "of 16 bytes",
                              req.base));

  // The tile must not put two elements in one place.
  {
    std::vector<std::pair<int64_t, int64_t>> seen; // (offset, mn + MN * k)
    seen.reserve(tile.mnSize * tile.kSize);
    for (int64_t k = 0; k != tile.kSize; ++k)
      for (int64_t mn = 0; mn != tile.mnSize; ++mn)
        seen.push_back({tile.offset(mn, k), mn + tile.mnSize * k});
    std::sort(seen.begin(), seen.end());
    for (size_t i = 1; i < seen.size(); ++i)
      if (seen[i].first == seen[i - 1].first) {
        int64_t a = seen[i - 1].second, b = seen[i].second;
        return fail(llvm::formatv(
            "elements (mn={0}, k={1}) and (mn={2}, k={3}) of the tile share "
            "element offset {4}: the layout is not one-to-one",
            a % tile.mnSize, a / tile.mnSize, b % tile.mnSize, b / tile.mnSize,
            seen[i].first));
      }
  }

  const CanonicalRow *row = nullptr;
  for (const CanonicalRow &r : CanonicalTable)
    if (r.major == req.major && r.swizzled == swizzled)
      row = &r;
  assert(row && "canonical table covers every majorness x swizzle");

  // Instantiate the row's shapes; the repeat count fills the MMA extent.
  auto shapeOf = [&](Sym s) -> int64_t {
    switch (s) {
    case Sym::One:
      return 1;
    case Sym::T:
      return t;
    case Sym::U:
      return u;
    case Sym::UT:
      return u * t;
    case Sym::Eight:
      return 8;
    default:
      return 0;
    }
  };
  int64_t mnShape[3], mnStride[3], kShape[2], kStride[2];
  auto fillShapes = [&](const SubMode *modes, unsigned rank, int64_t extent,
                        int64_t *shapes) {
    int64_t inner = 1;
    for (unsigned i = 0; i != rank; ++i)
      if (modes[i].shape != Sym::Rep)
        inner *= shapeOf(modes[i].shape);
    for (unsigned i = 0; i != rank; ++i)
      shapes[i] =
          modes[i].shape == Sym::Rep ? extent / inner : shapeOf(modes[i].shape);
  };
  fillShapes(row->mn, row->mnRank, req.mmaMN, mnShape);
  fillShapes(row->k, 2, req.mmaK, kShape);

  // Probe the tile at each sub-mode's unit coordinate.
  int64_t origin = tile.offset(0, 0);
  int64_t lbo = 0, sbo = 0;
  bool lboSeen = false, sboSeen = false;
  auto probe = [&](const SubMode *modes, unsigned rank, const int64_t *shapes,
                   int64_t *strides, bool alongMN) -> llvm::Error {
    int64_t unit = 1;
    for (unsigned i = 0; i != rank; ++i) {
      const SubMode &mode = modes[i];
      int64_t fixed = shapeOf(mode.stride);
      if (shapes[i] == 1) {
        strides[i] =
            mode.stride == Sym::Lbo || mode.stride == Sym::Sbo ? 0 : fixed;
        unit *= shapes[i];
        continue;
      }
      int64_t got = alongMN ? tile.offset(unit, 0) : tile.offset(0, unit);
      got -= origin;
      strides[i] = got;
      if (mode.stride == Sym::Lbo) {
        lbo = got;
        lboSeen = true;
      } else if (mode.stride == Sym::Sbo) {
        sbo = got;
        sboSeen = true;
      } else if (got != fixed) {
        return fail(llvm::formatv(
            "{0} is {1} bytes; the canonical {2}-major {3} layout needs {4} "
            "bytes",
            mode.role, got * e, majorName(req.major), sw.name, fixed * e));
      }
      unit *= shapes[i];
    }
    return llvm::Error::success();
  };
  if (llvm::Error err = probe(row->mn, row->mnRank, mnShape, mnStride, true))
    return err;
  if (llvm::Error err = probe(row->k, 2, kShape, kStride, false))
    return err;
  for (auto [seen, value, name] :
       {std::tuple{lboSeen, lbo, "LBO"}, std::tuple{sboSeen, sbo, "SBO"}}) {
    if (seen && (value * e < 0 || (value * e) % 16 != 0))
      return fail(llvm::formatv("{0} would be {1} bytes; it must be a "
                                "non-negative multiple of 16",
                                name, value * e));
  }

  // Check every element of the first subtile against the instantiated form.
  auto canonical = [&](int64_t mn, int64_t k) {
    int64_t off = 0;
    for (unsigned i = 0; i != row->mnRank; ++i) {
      off += (mn % mnShape[i]) * mnStride[i];
      mn /= mnShape[i];
    }
    for (unsigned i = 0; i != 2; ++i) {
      off += (k % kShape[i]) * kStride[i];
      k /= kShape[i];
    }
    return off;
  };
  for (int64_t k = 0; k != req.mmaK; ++k)
    for (int64_t mn = 0; mn != req.mmaMN; ++mn) {
      int64_t got = tile.offset(mn, k) - origin, want = canonical(mn, k);
      if (got != want)
        return fail(llvm::formatv(
            "element (mn={0}, k={1}) of the MMA subtile is at byte {2}, but "
            "the canonical {3}-major {4} layout {5} puts it at byte {6}: the "
            "layout has no canonical form",
            mn, k, got * e, majorName(req.major), sw.name, row->templ,
            want * e));
    }

  // Every subtile must be laid out like the first; collect their starts.
  DerivedDescriptor out;
  int64_t numMN = tile.mnSize / req.mmaMN, numK = tile.kSize / req.mmaK;
  out.subtileOffsets.assign(numMN, std::vector<uint64_t>(numK, 0));
  for (int64_t i = 0; i != numMN; ++i)
    for (int64_t j = 0; j != numK; ++j) {
      int64_t start = tile.offset(i * req.mmaMN, j * req.mmaK);
      int64_t delta = (start - origin) * e;
      if (delta < 0 || (start * e) % 16 != 0)
        return fail(llvm::formatv(
            "MMA subtile (m={0}, k={1}) starts at byte {2}, which is not a "
            "non-negative multiple of 16 from subtile (0, 0)",
            i, j, delta));
      for (int64_t k = 0; k != req.mmaK; ++k)
        for (int64_t mn = 0; mn != req.mmaMN; ++mn) {
          int64_t got =
              tile.offset(i * req.mmaMN + mn, j * req.mmaK + k) - start;
          int64_t want = canonical(mn, k);
          if (got != want)
            return fail(llvm::formatv(
                "MMA subtile (m={0}, k={1}) is not laid out like subtile "
                "(0, 0): its element (mn={2}, k={3}) is at byte {4} from its "
                "start, not {5}",
                i, j, mn, k, got * e, want * e));
        }
      out.subtileOffsets[i][j] = delta;
    }

  out.t = t;
  out.fields.swizzle = swizzle;
  out.fields.startAddress = req.base + uint64_t(origin * e);
  // K-major swizzled layouts do not use LBO; the ISA assumes 1 (16 bytes).
  out.fields.lbo = (req.major == MajorKind::K && swizzled) ? 16 : lbo * e;
  out.fields.sbo = sbo * e;
  out.fields.baseOffset = 0;
  out.fields.version = req.arch == ArchKind::SM100a ? 1 : 0;
  llvm::Expected<uint64_t> desc = encodeSmemDescriptor(out.fields, req.arch);
  if (!desc)
    return desc.takeError();
  for (int64_t i = 0; i != numMN; ++i)
    for (int64_t j = 0; j != numK; ++j)
      if (out.fields.startAddress + out.subtileOffsets[i][j] >= (1u << 18))
        return fail(llvm::formatv(
            "MMA subtile (m={0}, k={1}) starts at byte "
            "{2}, beyond the 18-bit start address "
            "(legal: below 262144)",
            i, j, out.fields.startAddress + out.subtileOffsets[i][j]));
  out.desc = *desc;

  std::string templ = row->templ;
  if (swizzled)
    templ = llvm::formatv("Sw<{0},4,3> o {1}", sw.swizzleBits, templ).str();
  out.canonicalTemplate = templ;
  auto modeText = [](const int64_t *shape, const int64_t *stride, unsigned rank,
                     bool strides) {
    std::vector<int64_t> v(rank);
    for (unsigned i = 0; i != rank; ++i)
      v[i] = strides ? stride[i] : shape[i];
    return joinInts(v);
  };
  out.canonicalLayout =
      llvm::formatv("({0},{1}):({2},{3})",
                    modeText(mnShape, mnStride, row->mnRank, false),
                    modeText(kShape, kStride, 2, false),
                    modeText(mnShape, mnStride, row->mnRank, true),
                    modeText(kShape, kStride, 2, true))
          .str();
  return out;
}

} // namespace tilec
