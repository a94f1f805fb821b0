/*===- bench/capi_launch_bench.c - Host cost of a prepared C API launch ---===*
 *
 * The floor under a launch from Python: tilec_launch of a prepared problem
 * called from C, with no interpreter in the loop. bench/python_launch_bench.py
 * runs it in the same run as its Python rows, on the libtilec.so the Python
 * package loaded and the same .tile program, and prints it beside them.
 *
 *   capi_launch_bench LIBTILEC.so FILE.tile M N K
 *
 * Loads the library with dlopen (the wheel holds it as tilec/libtilec.so,
 * not under its soname), compiles FILE.tile (a disk cache hit after Python's
 * compile), allocates K-major A and B and a row-major C with uninitialised
 * contents, prepares the problem, then times 25 samples of 200 launches on
 * the default stream without waiting for the GPU, and prints the median host
 * time per launch in microseconds, as the Python rows are measured.
 *
 *===----------------------------------------------------------------------===*/
#include "tilec/tilec.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef CALLS
#define CALLS 200
#endif
#ifndef SAMPLES
#define SAMPLES 25
#endif

static void *library;

static void *symbol(const char *name) {
  void *fn = dlsym(library, name);
  if (!fn) {
    fprintf(stderr, "capi_launch_bench: %s: %s\n", name, dlerror());
    exit(1);
  }
  return fn;
}

/* One typed pointer per C API function used, looked up by name. */
#define TILEC_FN(name) __typeof__(&name) p_##name = symbol(#name)

static const char *(*p_last_error)(void);

static void check(tilec_status status, const char *what) {
  if (status != TILEC_OK) {
    fprintf(stderr, "capi_launch_bench: %s: %s\n", what, p_last_error());
    exit(1);
  }
}

static int elementBytes(const char *type) {
  if (strncmp(type, "f8", 2) == 0)
    return 1;
  if (strcmp(type, "f32") == 0 || strcmp(type, "tf32") == 0)
    return 4;
  return 2;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int byValue(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: capi_launch_bench LIBTILEC.so FILE.tile M N K\n");
    return 2;
  }
  library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    fprintf(stderr, "capi_launch_bench: %s\n", dlerror());
    return 1;
  }
  p_last_error = symbol("tilec_last_error");
  TILEC_FN(tilec_compiler_create);
  TILEC_FN(tilec_compile);
  TILEC_FN(tilec_kernel_operands);
  TILEC_FN(tilec_kernel_entry_name);
  TILEC_FN(tilec_context_create);
  TILEC_FN(tilec_context_synchronize);
  TILEC_FN(tilec_device_alloc);
  TILEC_FN(tilec_launcher_create);
  TILEC_FN(tilec_launch_prepare);
  TILEC_FN(tilec_launch);

  FILE *file = fopen(argv[2], "rb");
  if (!file) {
    perror(argv[2]);
    return 1;
  }
  static char source[1 << 20];
  size_t length = fread(source, 1, sizeof source, file);
  fclose(file);
  int64_t m = atoll(argv[3]), n = atoll(argv[4]), k = atoll(argv[5]);

  tilec_compiler compiler;
  tilec_kernel kernel;
  check(p_tilec_compiler_create(&compiler), "tilec_compiler_create");
  tilec_compile_options options = {.struct_size = sizeof options,
                                   .source_name = argv[2]};
  check(p_tilec_compile(compiler, source, length, &options, &kernel),
        "tilec_compile");
  tilec_kernel_operand_info operands = {.struct_size = sizeof operands};
  check(p_tilec_kernel_operands(kernel, &operands), "tilec_kernel_operands");
  if (strcmp(operands.a_major, "K") != 0 || strcmp(operands.b_major, "K")) {
    fprintf(stderr, "capi_launch_bench: needs K-major A and B (TN)\n");
    return 1;
  }
  tilec_context context;
  check(p_tilec_context_create(0, &context), "tilec_context_create");
  tilec_gemm_args args = {.struct_size = sizeof args, .m = m, .n = n, .k = k,
                          .lda = k, .ldb = k, .ldc = n, .alpha = 1.0f};
  check(p_tilec_device_alloc(m * k * elementBytes(operands.a_type), &args.a),
        "alloc A");
  check(p_tilec_device_alloc(n * k * elementBytes(operands.b_type), &args.b),
        "alloc B");
  check(p_tilec_device_alloc(m * n * elementBytes(operands.c_type), &args.c),
        "alloc C");
  tilec_launcher launcher;
  check(p_tilec_launcher_create(kernel, 0, &launcher), "tilec_launcher_create");
  check(p_tilec_launch_prepare(launcher, &args, NULL), "tilec_launch_prepare");
  check(p_tilec_launch(launcher, &args, NULL), "tilec_launch");
  check(p_tilec_context_synchronize(context), "synchronize");

  double per[SAMPLES];
  for (int s = 0; s < SAMPLES; ++s) {
    double t0 = now();
    for (int i = 0; i < CALLS; ++i)
      if (p_tilec_launch(launcher, &args, NULL) != TILEC_OK)
        check(TILEC_ERROR_INTERNAL, "tilec_launch");
    per[s] = (now() - t0) / CALLS * 1e6;
    check(p_tilec_context_synchronize(context), "synchronize");
  }
  qsort(per, SAMPLES, sizeof per[0], byValue);
  printf("%s %lld x %lld x %lld: %.2f us per tilec_launch "
         "(median of %d x %d, min %.2f)\n",
         p_tilec_kernel_entry_name(kernel), (long long)m, (long long)n,
         (long long)k, per[SAMPLES / 2], SAMPLES, CALLS, per[0]);
  return 0;
}
