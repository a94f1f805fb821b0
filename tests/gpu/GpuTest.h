//===- tests/gpu/GpuTest.h - Shared set-up of the GPU tests -----*- C++ -*-===//
//
// Every GPU test starts with TILEC_GPU_CONTEXT(ctx): it retains device 0's
// primary context, or skips the test with a line starting "SKIP:" that says
// why (no driver, no device) so CI logs show what did not run.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TESTS_GPU_GPUTEST_H
#define TILEC_TESTS_GPU_GPUTEST_H

#include "runtime/Device.h"

#include <gtest/gtest.h>

/// Declares `rt::Context NAME` for device 0, or skips the test.
#define TILEC_GPU_CONTEXT(NAME)                                                \
  auto NAME##OrError = ::tilec::rt::Context::create(0);                        \
  if (!NAME##OrError)                                                          \
    GTEST_SKIP() << "SKIP: no usable CUDA GPU: "                               \
                 << NAME##OrError.error().getMessage();                        \
  [[maybe_unused]] ::tilec::rt::Context &NAME = *NAME##OrError

#endif // TILEC_TESTS_GPU_GPUTEST_H
