//===- runtime/Event.cpp - CUDA events for GPU timing ---------------------===//
//
// cuEventCreate(CU_EVENT_DEFAULT) so timing is recorded, cuEventRecord,
// cuEventSynchronize and cuEventElapsedTime.
//
//===----------------------------------------------------------------------===//
#include "runtime/Event.h"

#include "runtime/DriverApi.h"

namespace tilec::rt {

Result<Event> Event::create() {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  CUevent event = nullptr;
  if (Status s = checkCuda(**api, (*api)->eventCreate(&event, CU_EVENT_DEFAULT),
                           "cuEventCreate");
      !s)
    return s.error();
  return Event(event);
}

Event::Event(Event &&other) noexcept : event(other.event) {
  other.event = nullptr;
}

Event &Event::operator=(Event &&other) noexcept {
  if (this != &other) {
    if (event)
      if (Result<const DriverApi *> api = driverApi())
        (*api)->eventDestroy(event);
    event = other.event;
    other.event = nullptr;
  }
  return *this;
}

Event::~Event() {
  if (event)
    if (Result<const DriverApi *> api = driverApi())
      (*api)->eventDestroy(event);
}

Status Event::record(CUstream_st *stream) const {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  return checkCuda(**api, (*api)->eventRecord(event, stream), "cuEventRecord");
}

Status Event::synchronize() const {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  return checkCuda(**api, (*api)->eventSynchronize(event),
                   "cuEventSynchronize");
}

Result<float> Event::elapsedMs(const Event &start, const Event &end) {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  float ms = 0;
  if (Status s = checkCuda(
          **api, (*api)->eventElapsedTime(&ms, start.event, end.event),
          "cuEventElapsedTime");
      !s)
    return s.error();
  return ms;
}

} // namespace tilec::rt
