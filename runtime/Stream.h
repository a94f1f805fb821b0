//===- runtime/Stream.h - CUDA streams ---------------------------*- C++
//-*-===//
//
// An owned, non-blocking CUstream. Launches and events take a stream; the
// default (null) stream is used where none is given.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_STREAM_H
#define TILEC_RUNTIME_STREAM_H

#include "runtime/Status.h"

struct CUstream_st;

namespace tilec::rt {

/// A CUstream created with CU_STREAM_NON_BLOCKING; destroyed with its owner.
class Stream {
public:
  /// Creates a stream in the current context.
  static Result<Stream> create();

  Stream(Stream &&other) noexcept;
  Stream &operator=(Stream &&other) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  ~Stream();

  /// Waits until all work queued on the stream is done.
  Status synchronize() const;
  /// The CUstream.
  CUstream_st *handle() const { return stream; }

private:
  explicit Stream(CUstream_st *stream) : stream(stream) {}
  CUstream_st *stream = nullptr;
};

/// Waits for the default (null) stream.
Status synchronizeDefaultStream();

} // namespace tilec::rt

#endif // TILEC_RUNTIME_STREAM_H
