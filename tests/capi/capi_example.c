/*===- tests/capi/capi_example.c - The C API from plain C -----------------===*\
|*                                                                            *|
|* Compiles a .tile file through libtilec.so and checks what comes back: the  *|
|* PTX and its metadata, a diagnostic with file:line:col for a broken source, *|
|* layout evaluation. With --launch (TILEC_DEVICE=sim, or a GPU) it also runs *|
|* a 64 x 48 x 40 GEMM on random small-integer bf16 inputs, plain and with a  *|
|* bias(col) relu epilogue, and checks every element of C against a CPU       *|
|* reference (exact: every sum is a bf16 integer).                            *|
|*                                                                            *|
|*   tilec-capi-example examples/gemm_sm80.tile [--launch]                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#include "tilec/tilec.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__,  \
              __LINE__, #cond, tilec_last_error());                            \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static char *readFile(const char *path, size_t *length) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  *length = fread(text, 1, (size_t)size, f);
  text[*length] = '\0';
  fclose(f);
  return text;
}

/* \p source with its "epilogue store" line replaced by \p epilogue (the
 * caller frees it), or NULL when it has none. */
static char *withEpilogue(const char *source, const char *epilogue) {
  const char *line = strstr(source, "epilogue store");
  if (!line)
    return NULL;
  size_t head = (size_t)(line - source), tail = strlen(line + 14);
  char *out = malloc(head + strlen(epilogue) + tail + 1);
  memcpy(out, source, head);
  strcpy(out + head, epilogue);
  strcat(out, line + 14);
  return out;
}

static uint16_t toBf16(float x) { /* exact for the small integers used */
  uint32_t bits;
  memcpy(&bits, &x, 4);
  return (uint16_t)(bits >> 16);
}

static float fromBf16(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float x;
  memcpy(&x, &bits, 4);
  return x;
}

/* C = A * B^T for the K-major bf16 kernel of examples/gemm_sm80.tile, or
 * with \p withBias C = relu(A * B^T + bias). */
static void launchAndCheck(tilec_kernel kernel, int withBias) {
  enum { M = 64, N = 48, K = 40 };
  static uint16_t a[M * K], b[N * K], c[M * N], bias[N];
  static float ref[M * N];
  srand(7);
  for (int i = 0; i < M * K; ++i)
    a[i] = toBf16((float)(rand() % 5 - 2));
  for (int i = 0; i < N * K; ++i)
    b[i] = toBf16((float)(rand() % 5 - 2));
  for (int j = 0; j < N; ++j)
    bias[j] = toBf16((float)(rand() % 9 - 4));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float sum = 0;
      for (int p = 0; p < K; ++p)
        sum += fromBf16(a[i * K + p]) * fromBf16(b[j * K + p]);
      if (withBias)
        sum = sum + fromBf16(bias[j]) > 0 ? sum + fromBf16(bias[j]) : 0;
      ref[i * N + j] = sum;
    }

  tilec_context ctx;
  if (tilec_context_create(0, &ctx) != TILEC_OK) {
    printf("SKIP launch: %s\n", tilec_last_error());
    return;
  }
  uint64_t da, db, dc, dbias;
  CHECK(tilec_device_alloc(sizeof a, &da) == TILEC_OK);
  CHECK(tilec_device_alloc(sizeof b, &db) == TILEC_OK);
  CHECK(tilec_device_alloc(sizeof c, &dc) == TILEC_OK);
  CHECK(tilec_device_alloc(sizeof bias, &dbias) == TILEC_OK);
  CHECK(tilec_copy_to_device(da, a, sizeof a) == TILEC_OK);
  CHECK(tilec_copy_to_device(db, b, sizeof b) == TILEC_OK);
  CHECK(tilec_copy_to_device(dbias, bias, sizeof bias) == TILEC_OK);
  memset(c, 0xff, sizeof c); /* poisoned: NaN */
  CHECK(tilec_copy_to_device(dc, c, sizeof c) == TILEC_OK);

  tilec_launcher launcher;
  CHECK(tilec_launcher_create(kernel, 0, &launcher) == TILEC_OK);
  tilec_gemm_args args = {.struct_size = sizeof(tilec_gemm_args)};
  args.a = da, args.b = db, args.c = dc;
  args.m = M, args.n = N, args.k = K;
  args.lda = K, args.ldb = K, args.ldc = N;
  args.alpha = 1.0f, args.beta = 0.0f;
  if (withBias) {
    /* A caller built against API 1 (no bias field) is read up to its
     * struct_size: its bias is 0, which this kernel refuses. */
    tilec_gemm_args old = args;
    old.struct_size = offsetof(tilec_gemm_args, bias);
    old.bias = dbias; /* beyond struct_size: not read */
    CHECK(tilec_launch(launcher, &old, NULL) == TILEC_ERROR_LAUNCH_ARGUMENT);
    CHECK(strstr(tilec_last_error(), "bias") != NULL);
    args.bias = dbias;
  }

  /* A refused problem is an error with a message, and nothing launches. */
  tilec_gemm_args bad = args;
  bad.lda = 3;
  CHECK(tilec_launch(launcher, &bad, NULL) == TILEC_ERROR_LAUNCH_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "lda") != NULL);

  CHECK(tilec_launch(launcher, &args, NULL) == TILEC_OK);
  CHECK(tilec_context_synchronize(ctx) == TILEC_OK);
  CHECK(tilec_copy_to_host(c, dc, sizeof c) == TILEC_OK);
  int wrong = 0;
  for (int i = 0; i < M * N; ++i)
    if (fromBf16(c[i]) != ref[i] && wrong++ < 5)
      fprintf(stderr, "C[%d][%d] = %g, expected %g\n", i / N, i % N,
              fromBf16(c[i]), ref[i]);
  printf("launch %dx%dx%d%s: %d/%d wrong\n", M, N, K,
         withBias ? " bias(col) relu" : "", wrong, M * N);
  CHECK(wrong == 0);

  tilec_launcher_destroy(launcher);
  CHECK(tilec_device_free(da) == TILEC_OK);
  CHECK(tilec_device_free(db) == TILEC_OK);
  CHECK(tilec_device_free(dc) == TILEC_OK);
  CHECK(tilec_device_free(dbias) == TILEC_OK);
  tilec_context_destroy(ctx);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: tilec-capi-example FILE.tile [--launch]\n");
    return 2;
  }
  CHECK(tilec_api_version() == TILEC_API_VERSION);
  CHECK(strlen(tilec_version()) > 0);

  size_t length = 0;
  char *source = readFile(argv[1], &length);
  if (!source) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  tilec_compiler compiler;
  CHECK(tilec_compiler_create(&compiler) == TILEC_OK);

  tilec_compile_options options = {.struct_size =
                                       sizeof(tilec_compile_options)};
  options.source_name = argv[1];
  tilec_kernel kernel = NULL;
  CHECK(tilec_compile(compiler, source, length, &options, &kernel) == TILEC_OK);
  if (!kernel)
    return 1;
  const char *ptx = tilec_kernel_ptx(kernel);
  CHECK(ptx && strlen(ptx) > 0 && strstr(ptx, ".entry") != NULL);
  CHECK(strcmp(tilec_kernel_arch(kernel), "sm_80") == 0);
  CHECK(strlen(tilec_kernel_entry_name(kernel)) > 0);
  CHECK(tilec_kernel_block_threads(kernel) > 0);
  CHECK(tilec_kernel_shared_bytes(kernel) > 0);
  size_t params = tilec_kernel_param_count(kernel);
  CHECK(params >= 9);
  CHECK(strcmp(tilec_kernel_param_name(kernel, 0), "A") == 0 ||
        strcmp(tilec_kernel_param_name(kernel, 0), "a") == 0);
  CHECK(tilec_kernel_param_kind(kernel, 0) == TILEC_PARAM_POINTER);
  CHECK(tilec_kernel_param_name(kernel, params) == NULL);
  const char *lowered = NULL;
  CHECK(tilec_kernel_lowered(kernel, &lowered) == TILEC_OK);
  CHECK(lowered && strstr(lowered, "tile.pipeline") != NULL);
  unsigned grid[3];
  tilec_kernel_grid(kernel, 256, 256, 64, 0, grid);
  CHECK(grid[0] * grid[1] * grid[2] == 4);
  /* API 5: a batched kernel ends with the i64 batch strides; its grid
   * repeats one GEMM's along z. */
  {
    const char *batched =
        "kernel batched {\n  arch sm_80\n  a : bf16[B, M, K] major(K)\n"
        "  b : bf16[N, K] major(K)\n  c : bf16[B, M, N] major(N)\n"
        "  acc f32\n  tile (BM = 128, BN = 128, BK = 32)\n  stages 3\n}\n";
    tilec_kernel bk = NULL;
    CHECK(tilec_compile(compiler, batched, strlen(batched), NULL, &bk) ==
          TILEC_OK);
    size_t n = tilec_kernel_param_count(bk);
    CHECK(n >= 3 && strcmp(tilec_kernel_param_name(bk, n - 1), "strideC") == 0);
    CHECK(tilec_kernel_param_kind(bk, n - 1) == TILEC_PARAM_I64);
    unsigned bgrid[3];
    tilec_kernel_grid_batched(bk, 256, 256, 64, 0, 5, bgrid);
    CHECK(bgrid[0] == 4 && bgrid[1] == 1 && bgrid[2] == 5);
    tilec_kernel_grid(bk, 256, 256, 64, 0, bgrid);
    CHECK(bgrid[2] == 1);
    tilec_kernel_destroy(bk);
  }
  printf("compiled %s: %zu bytes of PTX, %zu params, %u threads, %u bytes "
         "of shared memory\n",
         tilec_kernel_entry_name(kernel), strlen(ptx), params,
         tilec_kernel_block_threads(kernel), tilec_kernel_shared_bytes(kernel));

  /* A broken source: a non-zero code and a file:line:col diagnostic. */
  const char *broken = "kernel k {\n  arch sm_80\n  tile (BM = 128, BN)\n}\n";
  tilec_compile_options named = {.struct_size = sizeof(tilec_compile_options)};
  named.source_name = "broken.tile";
  tilec_kernel none = NULL;
  CHECK(tilec_compile(compiler, broken, strlen(broken), &named, &none) ==
        TILEC_ERROR_COMPILE);
  CHECK(none == NULL);
  CHECK(strstr(tilec_last_error(), "broken.tile:3:") != NULL);
  CHECK(strstr(tilec_last_error(), "error:") != NULL);
  printf("diagnostic: %.*s\n", (int)strcspn(tilec_last_error(), "\n"),
         tilec_last_error());
  tilec_compile_options old = {0};
  CHECK(tilec_compile(compiler, broken, strlen(broken), &old, &none) ==
        TILEC_ERROR_INVALID_ARGUMENT);
  tilec_compile_options arch = {.struct_size = sizeof(tilec_compile_options)};
  arch.arch = "sm_42";
  CHECK(tilec_compile(compiler, source, length, &arch, &none) ==
        TILEC_ERROR_INVALID_ARGUMENT);

  /* Layouts. */
  tilec_layout layout;
  CHECK(tilec_layout_eval("(4,2):(2,1)", &layout) == TILEC_OK);
  CHECK(strcmp(tilec_layout_str(layout), "(4,2):(2,1)") == 0);
  int64_t offsets[8], expected[8] = {0, 2, 4, 6, 1, 3, 5, 7};
  CHECK(tilec_layout_size(layout) == 8);
  CHECK(tilec_layout_offsets(layout, offsets, 8) == 8);
  CHECK(memcmp(offsets, expected, sizeof offsets) == 0);
  const char *svg = NULL;
  CHECK(tilec_layout_svg(layout, &svg) == TILEC_OK);
  CHECK(svg && strstr(svg, "<svg") != NULL);
  tilec_layout_destroy(layout);
  CHECK(tilec_layout_eval("K_SW128<bf16>", &layout) == TILEC_OK);
  CHECK(strcmp(tilec_layout_str(layout), "Sw<3,3,3> o (8,64):(64,1)") == 0);
  tilec_layout_destroy(layout);
  CHECK(tilec_layout_eval("composition(8:2, 3:1", &layout) ==
        TILEC_ERROR_LAYOUT);
  CHECK(tilec_last_error_column() == 20);

  if (argc > 2 && strcmp(argv[2], "--launch") == 0) {
    launchAndCheck(kernel, 0);
    /* The same kernel with a fused epilogue (API 2's bias operand). */
    char *fused = withEpilogue(source, "epilogue bias(col) relu -> store");
    tilec_kernel biased = NULL;
    CHECK(fused && tilec_compile(compiler, fused, strlen(fused), NULL,
                                 &biased) == TILEC_OK);
    if (biased)
      launchAndCheck(biased, 1);
    tilec_kernel_destroy(biased);
    free(fused);
  }

  tilec_kernel_destroy(kernel);
  tilec_compiler_destroy(compiler);
  free(source);
  if (failures)
    fprintf(stderr, "%d checks failed\n", failures);
  else
    printf("PASS\n");
  return failures ? 1 : 0;
}
