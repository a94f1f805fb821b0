//===- runtime/Stream.cpp - CUDA streams ----------------------------------===//
//
// cuStreamCreate(CU_STREAM_NON_BLOCKING) / cuStreamDestroy / synchronize.
//
//===----------------------------------------------------------------------===//
#include "runtime/Stream.h"

#include "runtime/DriverApi.h"

namespace tilec::rt {

Result<Stream> Stream::create() {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  CUstream stream = nullptr;
  if (Status s = checkCuda(
          **api, (*api)->streamCreate(&stream, CU_STREAM_NON_BLOCKING),
          "cuStreamCreate");
      !s)
    return s.error();
  return Stream(stream);
}

Stream::Stream(Stream &&other) noexcept : stream(other.stream) {
  other.stream = nullptr;
}

Stream &Stream::operator=(Stream &&other) noexcept {
  if (this != &other) {
    if (stream)
      if (Result<const DriverApi *> api = driverApi())
        (*api)->streamDestroy(stream);
    stream = other.stream;
    other.stream = nullptr;
  }
  return *this;
}

Stream::~Stream() {
  if (stream)
    if (Result<const DriverApi *> api = driverApi())
      (*api)->streamDestroy(stream);
}

Status Stream::synchronize() const {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  return checkCuda(**api, (*api)->streamSynchronize(stream),
                   "cuStreamSynchronize");
}

Status synchronizeDefaultStream() {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  return checkCuda(**api, (*api)->streamSynchronize(nullptr),
                   "cuStreamSynchronize(default stream)");
}

} // namespace tilec::rt
