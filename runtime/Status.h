//===- runtime/Status.h - Errors as values for the runtime -------*- C++
//-*-===//
//
// The runtime must not depend on LLVM, so it has its own small error type:
// an Error carries a message (with the CUDA error name and text when the
// driver reported it, and the JIT log when a module failed to load), and a
// Result<T> holds either a T or an Error. Nothing in the runtime throws or
// aborts on a failed driver call; every failure comes back as a value.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_STATUS_H
#define TILEC_RUNTIME_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace tilec::rt {

/// A failure: what went wrong, in one message that can be printed as is.
class Error {
public:
  /// \p cudaResult is the driver's CUresult (0 when the error did not come
  /// from the driver); \p jitLog is the JIT compiler's log, if any.
  explicit Error(std::string message, int cudaResult = 0,
                 std::string jitLog = {})
      : message(std::move(message)), cudaResult(cudaResult),
        jitLog(std::move(jitLog)) {}

  /// The whole message; for driver errors it contains the error name and
  /// text ("CUDA_ERROR_INVALID_VALUE: invalid argument"), for failed loads
  /// the JIT log.
  const std::string &getMessage() const { return message; }
  /// The CUresult value, or 0 when the error is not a driver error.
  int getCudaResult() const { return cudaResult; }
  /// The JIT compiler's error log of a failed module load, else empty.
  const std::string &getJitLog() const { return jitLog; }

  /// The same error with "\p context: " put in front of the message.
  Error withContext(std::string_view context) const {
    return Error(std::string(context) + ": " + message, cudaResult, jitLog);
  }

private:
  std::string message;
  int cudaResult;
  std::string jitLog;
};

/// Either a value of type T or an Error.
template <typename T> class [[nodiscard]] Result {
public:
  Result(T value) : storage(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : storage(std::in_place_index<1>, std::move(error)) {}

  /// True when a value is held.
  bool ok() const { return storage.index() == 0; }
  explicit operator bool() const { return ok(); }

  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

  T &value() & {
    assert(ok() && "Result::value() on an error");
    return std::get<0>(storage);
  }
  const T &value() const & {
    assert(ok() && "Result::value() on an error");
    return std::get<0>(storage);
  }
  /// Moves the value out.
  T take() {
    assert(ok() && "Result::take() on an error");
    return std::move(std::get<0>(storage));
  }
  /// The error; only valid when !ok().
  const Error &error() const {
    assert(!ok() && "Result::error() on a value");
    return std::get<1>(storage);
  }

private:
  std::variant<T, Error> storage;
};

/// Success or an Error.
template <> class [[nodiscard]] Result<void> {
public:
  /// Success.
  Result() = default;
  Result(Error error) : err(std::move(error)) {}

  bool ok() const { return !err.has_value(); }
  explicit operator bool() const { return ok(); }
  /// The error; only valid when !ok().
  const Error &error() const {
    assert(!ok() && "Status::error() on success");
    return *err;
  }

private:
  std::optional<Error> err;
};

/// Success or an Error.
using Status = Result<void>;

/// A successful Status.
inline Status success() { return Status(); }

} // namespace tilec::rt

#endif // TILEC_RUNTIME_STATUS_H
