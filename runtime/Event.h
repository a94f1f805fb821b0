//===- runtime/Event.h - CUDA events for GPU timing --------------*- C++
//-*-===//
//
// Timing on the GPU's own clock: record a start and an end event around the
// launches on one stream, synchronize the end, read the elapsed milliseconds.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_EVENT_H
#define TILEC_RUNTIME_EVENT_H

#include "runtime/Status.h"

struct CUevent_st;
struct CUstream_st;

namespace tilec::rt {

/// An owned CUevent with timing enabled.
class Event {
public:
  /// Creates an event in the current context.
  static Result<Event> create();

  Event(Event &&other) noexcept;
  Event &operator=(Event &&other) noexcept;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  ~Event();

  /// Records the event on \p stream (null: the default stream).
  Status record(CUstream_st *stream = nullptr) const;
  /// Waits until the event has happened.
  Status synchronize() const;
  /// Milliseconds from \p start to \p end; both must have been recorded and
  /// \p end reached (synchronize it first).
  static Result<float> elapsedMs(const Event &start, const Event &end);
  /// The CUevent.
  CUevent_st *handle() const { return event; }

private:
  explicit Event(CUevent_st *event) : event(event) {}
  CUevent_st *event = nullptr;
};

} // namespace tilec::rt

#endif // TILEC_RUNTIME_EVENT_H
