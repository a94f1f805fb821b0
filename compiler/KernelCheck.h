//===- compiler/KernelCheck.h - Moved to host/ ------------------*- C++ -*-===//
// Deprecated: moved to host/ (issue 27); include "host/KernelCheck.h".
#ifndef TILEC_COMPILER_KERNELCHECK_H
#define TILEC_COMPILER_KERNELCHECK_H
#include "host/KernelCheck.h"
#endif
