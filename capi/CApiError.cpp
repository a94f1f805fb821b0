//===- capi/CApiError.cpp - Per-thread errors and versions of the C API ---===//
//
// tilec_last_error() and the version calls. Each thread keeps its own last
// message, so concurrent callers never see each other's errors.
//
//===----------------------------------------------------------------------===//
#include "capi/CApi.h"

namespace {
thread_local std::string lastError;
thread_local unsigned lastColumn = 0;
} // namespace

namespace tilec::capi {

tilec_status fail(tilec_status status, std::string message, unsigned column) {
  lastError = std::move(message);
  lastColumn = column;
  return status;
}

tilec_status ok() {
  lastError.clear();
  lastColumn = 0;
  return TILEC_OK;
}

std::string renameSource(llvm::StringRef message, llvm::StringRef name) {
  if (name.empty())
    return message.str();
  std::string out;
  llvm::StringRef needle = "<source>";
  while (!message.empty()) {
    size_t at = message.find(needle);
    out += message.take_front(at).str();
    if (at == llvm::StringRef::npos)
      break;
    out += name.str();
    message = message.drop_front(at + needle.size());
  }
  return out;
}

} // namespace tilec::capi

extern "C" {

int tilec_api_version(void) { return TILEC_API_VERSION; }

const char *tilec_version(void) { return tilec::tilecVersion().data(); }

const char *tilec_last_error(void) { return lastError.c_str(); }

unsigned tilec_last_error_column(void) { return lastColumn; }

} // extern "C"
