//===- compiler/GemmLauncher.h - Moved to host/ -----------------*- C++ -*-===//
// Deprecated: moved to host/ (issue 27); include "host/GemmLauncher.h".
#ifndef TILEC_COMPILER_GEMMLAUNCHER_H
#define TILEC_COMPILER_GEMMLAUNCHER_H
#include "host/GemmLauncher.h"
#endif
