//===- capi/DescApi.cpp - Shared-memory descriptors in C ------------------===//
//
// tilec_desc derives the shared-memory matrix descriptor of a layout as
// `tilec desc` does (ir/arch/DescriptorDerivation): the 64-bit value, its fields in
// bytes, the report `tilec desc` prints and the start offsets of every MMA
// subtile. Bad requests name the argument and what is legal.
//
// Example: arch "sm_100a", dtype "bf16", major "K", layout
// "tile_to_shape(K_SW128<bf16>, (128,128))", mma 64 x 16 gives desc
// 0x4000404000010000, sbo 1024 and subtile (0, 4) at 16384 bytes.
//
//===----------------------------------------------------------------------===//
#include "capi/CApi.h"

#include "ir/arch/DescriptorDerivation.h"
#include "ir/arch/DescriptorReport.h"
#include "ir/arch/SwizzleMode.h"
#include "ir/layout/SmemTileFromLayout.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

using namespace tilec;
using tilec::capi::fail;

struct tilec_descriptor_impl {
  tilec_descriptor_fields fields{};
  std::string swizzle, report, canonical;
  std::vector<int64_t> offsets; ///< row-major, rows x cols
};

namespace {

const char *orEmpty(const char *s) { return s ? s : ""; }

tilec_status bad(const char *field, const std::string &value,
                 const std::string &legal) {
  return fail(TILEC_ERROR_INVALID_ARGUMENT,
              std::string(field) + " '" + value + "' is not legal (legal: " +
                  legal + ")");
}

} // namespace

extern "C" {

tilec_status tilec_desc(const tilec_desc_request *req, tilec_descriptor *out) {
  return capi::guard([&] {
    if (!req || !out || req->struct_size < sizeof(tilec_desc_request))
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  "req and out must not be null and req->struct_size must be "
                  "sizeof(tilec_desc_request)");
    *out = nullptr;
    std::optional<ArchKind> arch = parseArch(orEmpty(req->arch));
    if (!arch || !hasSmemDescriptor(*arch))
      return bad("arch", orEmpty(req->arch), "sm_90a, sm_100a");
    std::optional<DTypeKind> dtype = parseDType(orEmpty(req->dtype));
    if (!dtype)
      return bad("dtype", orEmpty(req->dtype), listDTypeNames());
    std::optional<MajorKind> major = parseMajor(orEmpty(req->major));
    if (!major)
      return bad("major", orEmpty(req->major), "K, MN");
    if (req->mma_mn <= 0 || req->mma_k <= 0)
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  "mma " + std::to_string(req->mma_mn) + "x" +
                      std::to_string(req->mma_k) +
                      " must be positive (e.g. 64x16)");
    llvm::Expected<LayoutValue> value =
        evaluateLayoutExpr(orEmpty(req->layout));
    if (!value) {
      LayoutExprDiag diag = toLayoutExprDiag(value.takeError());
      return fail(TILEC_ERROR_LAYOUT,
                  "layout: column " + std::to_string(diag.column + 1) + ": " +
                      diag.message,
                  diag.column);
    }
    llvm::Expected<SmemTileLayout> tile = smemTileFromLayout(*value);
    if (!tile)
      return fail(TILEC_ERROR_LAYOUT, llvm::toString(tile.takeError()));
    DerivationRequest dr{*arch, *dtype, *major, req->mma_mn, req->mma_k,
                         req->base};
    llvm::Expected<DerivedDescriptor> d = deriveSmemDescriptor(*tile, dr);
    if (!d)
      return fail(TILEC_ERROR_LAYOUT, llvm::toString(d.takeError()));
    auto result = std::make_unique<tilec_descriptor_impl>();
    tilec_descriptor_fields &f = result->fields;
    f.struct_size = sizeof f;
    f.desc = d->desc;
    f.layout_type = layoutTypeCode(d->fields.swizzle, *arch);
    f.start_address = d->fields.startAddress;
    f.lbo = d->fields.lbo;
    f.sbo = d->fields.sbo;
    f.base_offset = d->fields.baseOffset;
    f.version = d->fields.version;
    f.lbo_mode = d->fields.lboMode;
    f.rows = d->subtileOffsets.size();
    f.cols = f.rows ? d->subtileOffsets.front().size() : 0;
    for (const auto &row : d->subtileOffsets)
      for (uint64_t v : row)
        result->offsets.push_back(int64_t(v));
    result->swizzle = swizzleInfo(d->fields.swizzle).name.str();
    result->canonical = d->canonicalLayout;
    result->report = formatSmemDescriptorReport(dr, *tile, *d);
    f.swizzle = result->swizzle.c_str();
    f.canonical = result->canonical.c_str();
    *out = result.release();
    return capi::ok();
  });
}

void tilec_descriptor_destroy(tilec_descriptor d) { delete d; }

const tilec_descriptor_fields *tilec_descriptor_get(tilec_descriptor d) {
  return d ? &d->fields : nullptr;
}

const char *tilec_descriptor_report(tilec_descriptor d) {
  return d ? d->report.c_str() : "";
}

size_t tilec_descriptor_offsets(tilec_descriptor d, int64_t *out,
                                size_t capacity) {
  if (!d)
    return 0;
  size_t count = std::min(capacity, d->offsets.size());
  for (size_t i = 0; i < count; ++i)
    out[i] = d->offsets[i];
  return count;
}

} // extern "C"
