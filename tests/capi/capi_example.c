/*===- tests/capi/capi_example.c - The C API from plain C -----------------===*\
|*                                                                            *|
|* Compiles a .tile file through libtilec.so and checks what comes back: the  *|
|* PTX and its metadata, a diagnostic with file:line:col for a broken source, *|
|* layout evaluation. With --launch (TILEC_DEVICE=sim, or a GPU) it also runs *|
|* a 64 x 48 x 40 GEMM on random small-integer bf16 inputs, plain and with a  *|
|* bias(col) relu epilogue, and checks every element of C against a CPU       *|
|* reference (exact: every sum is a bf16 integer); and the block-scaled fp8   *|
|* kernel (API 6: sfa and sfb) at 100 x 256 x 256 with power-of-two scales;   *|
|* grouped block-scaled fp8 kernels (API 7: groups, group_index/group_rows),  *|
|* contiguous and masked, with an empty group and padding rows that must     *|
|* keep their poison.                                                         *|
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

/* A device copy of \p bytes of host memory (0 when that fails, counted). */
static uint64_t upload(const void *host, size_t bytes) {
  uint64_t device = 0;
  CHECK(tilec_device_alloc(bytes, &device) == TILEC_OK);
  CHECK(tilec_copy_to_device(device, host, bytes) == TILEC_OK);
  return device;
}

/* Frees the \p count device buffers at \p buffers (each counted when it fails).
 */
static void release(const uint64_t *buffers, int count) {
  for (int i = 0; i < count; ++i)
    CHECK(tilec_device_free(buffers[i]) == TILEC_OK);
}

/* C = A x B^T with A (M x K), B (N x K) and C (M x N) packed row-major,
 * alpha 1, beta 0. */
static tilec_gemm_args packedArgs(uint64_t a, uint64_t b, uint64_t c, int m,
                                  int n, int k) {
  tilec_gemm_args args = {.struct_size = sizeof(tilec_gemm_args)};
  args.a = a, args.b = b, args.c = c;
  args.m = m, args.n = n, args.k = k;
  args.lda = k, args.ldb = k, args.ldc = n;
  args.alpha = 1.0f, args.beta = 0.0f;
  return args;
}

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
  memset(c, 0xff, sizeof c); /* poisoned: NaN */
  uint64_t da = upload(a, sizeof a), db = upload(b, sizeof b),
           dc = upload(c, sizeof c), dbias = upload(bias, sizeof bias);

  tilec_launcher launcher;
  CHECK(tilec_launcher_create(kernel, 0, &launcher) == TILEC_OK);
  tilec_gemm_args args = packedArgs(da, db, dc, M, N, K);
  if (withBias) {
    /* A caller built against API 1 (no bias field) is read up to its
     * struct_size: its bias is 0, which this kernel refuses. */
    tilec_gemm_args old = args;
    old.struct_size = offsetof(tilec_gemm_args, bias);
    old.bias = dbias; /* beyond struct_size: not read */
    CHECK(tilec_launch(launcher, &old, NULL) == TILEC_ERROR_LAUNCH_ARGUMENT);
    CHECK(strstr(tilec_last_error(), "bias") != NULL);
    args.bias = dbias;

    /* API 16: the kernel lists the operand its ops read, and takes it by
     * role; a role the op table lacks or one given twice is refused by
     * name. */
    tilec_epilogue_operand_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    CHECK(tilec_kernel_epilogue_operand(kernel, 0, &info) == TILEC_OK);
    CHECK(info.role && strcmp(info.role, "bias") == 0);
    CHECK(info.type && strcmp(info.type, "bf16") == 0);
    CHECK(info.ld == NULL && info.axis == TILEC_AXIS_COL);
    CHECK(tilec_kernel_epilogue_operand(kernel, 1, &info) ==
          TILEC_ERROR_INVALID_ARGUMENT);
    tilec_epilogue_operand roles[2] = {{"bias", dbias, 0}, {"biass", dbias, 0}};
    tilec_gemm_args byRole = args;
    byRole.operands = roles;
    byRole.num_operands = 1; /* and args.bias: twice */
    CHECK(tilec_launch(launcher, &byRole, NULL) == TILEC_ERROR_LAUNCH_ARGUMENT);
    CHECK(strstr(tilec_last_error(), "bias is given twice") != NULL);
    byRole.bias = 0;
    byRole.num_operands = 2;
    CHECK(tilec_launch(launcher, &byRole, NULL) == TILEC_ERROR_LAUNCH_ARGUMENT);
    CHECK(strstr(tilec_last_error(), "'biass' is no epilogue operand") != NULL);
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

  if (withBias) {
    /* The same launch with the bias passed by role (API 16). */
    tilec_epilogue_operand role = {"bias", dbias, 0};
    tilec_gemm_args byRole = args;
    byRole.bias = 0;
    byRole.operands = &role;
    byRole.num_operands = 1;
    memset(c, 0xff, sizeof c);
    CHECK(tilec_copy_to_device(dc, c, sizeof c) == TILEC_OK);
    CHECK(tilec_launch(launcher, &byRole, NULL) == TILEC_OK);
    CHECK(tilec_context_synchronize(ctx) == TILEC_OK);
    CHECK(tilec_copy_to_host(c, dc, sizeof c) == TILEC_OK);
    wrong = 0;
    for (int i = 0; i < M * N; ++i)
      wrong += fromBf16(c[i]) != ref[i];
    printf("launch %dx%dx%d bias(col) relu, bias by role: %d/%d wrong\n", M, N,
           K, wrong, M * N);
    CHECK(wrong == 0);
  }

  tilec_launcher_destroy(launcher);
  release((uint64_t[]){da, db, dc, dbias}, 4);
  tilec_context_destroy(ctx);
}

/* The e4m3 byte of a small integer -2..2 (exact). */
static uint8_t toE4m3(int x) {
  static const uint8_t codes[5] = {0xc0, 0xb8, 0x00, 0x38, 0x40};
  return codes[x + 2];
}

static const char *fp8BlockSource =
    "kernel fp8_block {\n  arch sm_90a\n  a : e4m3[M, K] major(K)\n"
    "  b : e4m3[N, K] major(K)\n  c : bf16[M, N] major(N)\n  acc f32\n"
    "  scale a f32 block(1, 128)\n  scale b f32 block(128, 128)\n"
    "  tile (BM = 128, BN = 128, BK = 128)\n  stages 5\n}\n";

/* API 6: C[m][n] = sum over K blocks kb of sfa[m][kb] * sfb[n / 128][kb] *
 * (A B^T over the block), through tilec_gemm_args.sfa/sfb. Integer inputs
 * and power-of-two scales keep every partial sum exact in f32, so C is the
 * reference rounded once to bf16. Also: a launch without sfa, or from a
 * caller whose struct ends before sfa (API 5), is refused naming sfa. */
static void launchBlockScaled(tilec_compiler compiler) {
  enum { M = 100, N = 256, K = 256, KB = K / 128, NB = N / 128 };
  static uint8_t a[M * K], b[N * K];
  static float sfa[M * KB], sfb[NB * KB], ref[M * N];
  static uint16_t c[M * N];
  srand(11);
  for (int i = 0; i < M * K; ++i)
    a[i] = toE4m3(rand() % 5 - 2);
  for (int i = 0; i < N * K; ++i)
    b[i] = toE4m3(rand() % 5 - 2);
  for (int i = 0; i < M * KB; ++i)
    sfa[i] = (float)(1 << (rand() % 4)) / 2; /* 0.5 .. 4 */
  for (int i = 0; i < NB * KB; ++i)
    sfb[i] = (float)(1 << (rand() % 4)) / 4; /* 0.25 .. 2 */
  static const int value[256] = {
      [0x00] = 0, [0x38] = 1, [0x40] = 2, [0xb8] = -1, [0xc0] = -2};
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float sum = 0;
      for (int kb = 0; kb < KB; ++kb) {
        int part = 0;
        for (int p = kb * 128; p < (kb + 1) * 128; ++p)
          part += value[a[i * K + p]] * value[b[j * K + p]];
        sum += sfa[i * KB + kb] * sfb[(j / 128) * KB + kb] * (float)part;
      }
      ref[i * N + j] = sum;
    }

  tilec_kernel kernel = NULL;
  CHECK(tilec_compile(compiler, fp8BlockSource, strlen(fp8BlockSource), NULL,
                      &kernel) == TILEC_OK);
  if (!kernel)
    return;
  tilec_context ctx;
  if (tilec_context_create(0, &ctx) != TILEC_OK) {
    printf("SKIP block-scaled launch: %s\n", tilec_last_error());
    tilec_kernel_destroy(kernel);
    return;
  }
  memset(c, 0xff, sizeof c); /* poisoned: NaN */
  uint64_t da = upload(a, sizeof a), db = upload(b, sizeof b),
           dc = upload(c, sizeof c), dsfa = upload(sfa, sizeof sfa),
           dsfb = upload(sfb, sizeof sfb);

  tilec_launcher launcher;
  CHECK(tilec_launcher_create(kernel, 0, &launcher) == TILEC_OK);
  tilec_gemm_args args = packedArgs(da, db, dc, M, N, K);
  args.sfb = dsfb;
  CHECK(tilec_launch(launcher, &args, NULL) == TILEC_ERROR_LAUNCH_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "sfa") != NULL);
  args.sfa = dsfa;
  tilec_gemm_args old = args;
  old.struct_size = offsetof(tilec_gemm_args, sfa);
  CHECK(tilec_launch(launcher, &old, NULL) == TILEC_ERROR_LAUNCH_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "sfa") != NULL);
  tilec_gemm_args misaligned = args;
  misaligned.sfb = dsfb + 2;
  CHECK(tilec_launch(launcher, &misaligned, NULL) ==
        TILEC_ERROR_LAUNCH_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "sfb") != NULL);

  CHECK(tilec_launch(launcher, &args, NULL) == TILEC_OK);
  CHECK(tilec_context_synchronize(ctx) == TILEC_OK);
  CHECK(tilec_copy_to_host(c, dc, sizeof c) == TILEC_OK);
  int wrong = 0;
  for (int i = 0; i < M * N; ++i) {
    float got = fromBf16(c[i]), want = ref[i];
    float err = got > want ? got - want : want - got;
    float mag = want < 0 ? -want : want;
    if (!(err <= mag / 256) && wrong++ < 5)
      fprintf(stderr, "C[%d][%d] = %g, expected %g\n", i / N, i % N, got, want);
  }
  printf("launch %dx%dx%d block-scaled fp8 (sfa, sfb): %d/%d wrong\n", M, N, K,
         wrong, M * N);
  CHECK(wrong == 0);

  tilec_launcher_destroy(launcher);
  release((uint64_t[]){da, db, dc, dsfa, dsfb}, 5);
  tilec_context_destroy(ctx);
  tilec_kernel_destroy(kernel);
}

/* API 7: grouped block-scaled fp8 kernels (docs/language.md "Grouped
 * GEMM"), BM = 64 so that a small problem has several blocks. */
static const char *groupedSource(int masked) {
  return masked ? "kernel grouped_masked {\n  arch sm_90a\n"
                  "  a : e4m3[G, M, K] major(K)\n  b : e4m3[G, N, K] major(K)\n"
                  "  c : bf16[G, M, N] major(N)\n  acc f32\n"
                  "  scale a f32 block(1, 128)\n  scale b f32 block(128, 128)\n"
                  "  group masked\n  tile (BM = 64, BN = 128, BK = 128)\n"
                  "  stages 4\n  schedule persistent\n}\n"
                : "kernel grouped_contiguous {\n  arch sm_90a\n"
                  "  a : e4m3[M, K] major(K)\n  b : e4m3[G, N, K] major(K)\n"
                  "  c : bf16[M, N] major(N)\n  acc f32\n"
                  "  scale a f32 block(1, 128)\n  scale b f32 block(128, 128)\n"
                  "  group contiguous\n  tile (BM = 64, BN = 128, BK = 128)\n"
                  "  stages 4\n}\n";
}

/* C = A B_g^T per group with block scales, through tilec_gemm_args.groups
 * and group_index (contiguous: M = 256 rows in 4 blocks of 64: group 0 has
 * 84 rows, group 1 none, group 2 43, the rest padding, the last block all
 * padding) or group_rows (masked: Mmax = 64, counts 40, 0, 64). Rows
 * outside every group must keep C's poison. Also the refusals, each naming
 * its argument: groups 0, a caller whose struct ends before groups (API 6),
 * the tensor of the other mode, the kernel's own tensor null or
 * misaligned, beta != 0. */
static void launchGrouped(tilec_compiler compiler, int masked) {
  enum {
    G = 3,
    N = 256,
    K = 256,
    KB = K / 128,
    NB = N / 128,
    MC = 256,
    MMAX = 64
  };
  const int ROWS = masked ? G * MMAX : MC;
  static uint8_t a[MC][K], b[G * N * K];
  static float sfa[MC * KB], sfb[G * NB * KB], ref[MC * N];
  static uint16_t c[MC * N];
  static int32_t index[MC];
  static const int32_t counts[G] = {40, 0, 64};
  static const int value[256] = {
      [0x00] = 0, [0x38] = 1, [0x40] = 2, [0xb8] = -1, [0xc0] = -2};
  srand(masked ? 17 : 13);
  for (int i = 0; i < ROWS; ++i)
    for (int p = 0; p < K; ++p)
      a[i][p] = toE4m3(rand() % 5 - 2);
  for (int i = 0; i < G * N * K; ++i)
    b[i] = toE4m3(rand() % 5 - 2);
  for (int i = 0; i < ROWS * KB; ++i)
    sfa[i] = (float)(1 << (rand() % 4)) / 2;
  for (int i = 0; i < G * NB * KB; ++i)
    sfb[i] = (float)(1 << (rand() % 4)) / 4;
  /* The group of each row of A (masked: of each row of the [G, Mmax] view),
   * -1 outside every group. */
  for (int i = 0; i < ROWS; ++i) {
    if (masked)
      index[i] = i % MMAX < counts[i / MMAX] ? i / MMAX : -1;
    else
      index[i] = i < 84 ? 0 : i >= 128 && i < 171 ? 2 : -1;
  }
  int valid = 0;
  for (int i = 0; i < ROWS; ++i) {
    valid += index[i] >= 0;
    for (int j = 0; j < N; ++j) {
      int g = index[i];
      float sum = 0;
      for (int kb = 0; g >= 0 && kb < KB; ++kb) {
        int part = 0;
        for (int p = kb * 128; p < (kb + 1) * 128; ++p)
          part += value[a[i][p]] * value[b[((size_t)g * N + j) * K + p]];
        sum +=
            sfa[i * KB + kb] * sfb[(g * NB + j / 128) * KB + kb] * (float)part;
      }
      ref[i * N + j] = sum;
    }
  }

  const char *source = groupedSource(masked);
  tilec_kernel kernel = NULL;
  CHECK(tilec_compile(compiler, source, strlen(source), NULL, &kernel) ==
        TILEC_OK);
  if (!kernel)
    return;
  tilec_kernel_operand_info info = {.struct_size = sizeof info};
  CHECK(tilec_kernel_operands(kernel, &info) == TILEC_OK);
  CHECK(info.group_kind ==
        (masked ? TILEC_GROUP_MASKED : TILEC_GROUP_CONTIGUOUS));
  CHECK(info.group_fixed == 0 && info.block_scaled == 1);
  tilec_context ctx;
  if (tilec_context_create(0, &ctx) != TILEC_OK) {
    printf("SKIP grouped launch: %s\n", tilec_last_error());
    tilec_kernel_destroy(kernel);
    return;
  }
  memset(c, 0xff, sizeof c); /* poisoned: NaN */
  size_t rowsBytes = (size_t)ROWS;
  uint64_t da = upload(a, rowsBytes * K), db = upload(b, sizeof b),
           dc = upload(c, rowsBytes * N * 2),
           dsfa = upload(sfa, rowsBytes * KB * 4),
           dsfb = upload(sfb, sizeof sfb),
           dgroup = masked ? upload(counts, sizeof counts)
                           : upload(index, sizeof index);

  tilec_launcher launcher;
  CHECK(tilec_launcher_create(kernel, 2, &launcher) == TILEC_OK);
  tilec_gemm_args args = packedArgs(da, db, dc, masked ? MMAX : MC, N, K);
  args.sfa = dsfa, args.sfb = dsfb;
  const char *mine = masked ? "groupRows" : "groupIndex";
  const char *other = masked ? "groupIndex" : "groupRows";
  /* groups left 0. */
  CHECK(tilec_launch(launcher, &args, NULL) == TILEC_ERROR_LAUNCH_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "groups = 0") != NULL);
  args.groups = G;
  /* The kernel's tensor missing. */
  CHECK(tilec_launch(launcher, &args, NULL) == TILEC_ERROR_LAUNCH_ARGUMENT);
  CHECK(strstr(tilec_last_error(), mine) != NULL);
  /* The other mode's tensor. */
  tilec_gemm_args bad = args;
  *(masked ? &bad.group_index : &bad.group_rows) = dgroup;
  *(masked ? &bad.group_rows : &bad.group_index) = dgroup;
  CHECK(tilec_launch(launcher, &bad, NULL) == TILEC_ERROR_LAUNCH_ARGUMENT);
  CHECK(strstr(tilec_last_error(), other) != NULL);
  *(masked ? &args.group_rows : &args.group_index) = dgroup;
  bad = args;
  *(masked ? &bad.group_rows : &bad.group_index) = dgroup + 2;
  CHECK(tilec_launch(launcher, &bad, NULL) == TILEC_ERROR_LAUNCH_ARGUMENT);
  CHECK(strstr(tilec_last_error(), mine) != NULL &&
        strstr(tilec_last_error(), "aligned") != NULL);
  bad = args;
  bad.beta = 1.0f;
  CHECK(tilec_launch(launcher, &bad, NULL) == TILEC_ERROR_LAUNCH_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "beta") != NULL);
  /* A caller built against API 6 (no groups field) reads as groups 0. */
  bad = args;
  bad.struct_size = offsetof(tilec_gemm_args, groups);
  CHECK(tilec_launch(launcher, &bad, NULL) == TILEC_ERROR_LAUNCH_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "groups") != NULL);

  CHECK(tilec_launch(launcher, &args, NULL) == TILEC_OK);
  CHECK(tilec_context_synchronize(ctx) == TILEC_OK);
  CHECK(tilec_copy_to_host(c, dc, rowsBytes * N * 2) == TILEC_OK);
  int wrong = 0;
  for (int i = 0; i < ROWS * N; ++i) {
    float got = fromBf16(c[i]), want = ref[i];
    int ok;
    if (index[i / N] < 0) {
      ok = c[i] == 0xffff; /* padding keeps its poison */
    } else {
      float err = got > want ? got - want : want - got;
      float mag = want < 0 ? -want : want;
      ok = err <= mag / 256;
    }
    if (!ok && wrong++ < 5)
      fprintf(stderr, "C[%d][%d] = %g (0x%04x), expected %s%g\n", i / N, i % N,
              got, c[i], index[i / N] < 0 ? "poison, not " : "", want);
  }
  printf("launch grouped %s fp8 %d groups, %d rows (%d valid) x %d x %d: "
         "%d/%d wrong\n",
         masked ? "masked" : "contiguous", G, ROWS, valid, N, K, wrong,
         ROWS * N);
  CHECK(wrong == 0);

  tilec_launcher_destroy(launcher);
  release((uint64_t[]){da, db, dc, dsfa, dsfb, dgroup}, 6);
  tilec_context_destroy(ctx);
  tilec_kernel_destroy(kernel);
}

/* API 6: tilec_kernel_operands reports what the epilogue ops and block
 * scales read. */
static void checkOperandInfo(tilec_compiler compiler, const char *source,
                             tilec_kernel plain) {
  tilec_kernel_operand_info info = {.struct_size = sizeof info};
  CHECK(tilec_kernel_operands(plain, &info) == TILEC_OK);
  CHECK(info.struct_size == sizeof info);
  CHECK(info.bias_type == NULL && info.residual_type == NULL);
  CHECK(info.bias_axis == TILEC_AXIS_NONE && info.scale_axis == 0);
  CHECK(info.swiglu == 0 && info.block_scaled == 0 && info.tile_n == 128);
  CHECK(info.group_kind == TILEC_GROUP_NONE && info.group_fixed == 0);

  char *fused = withEpilogue(
      source, "epilogue bias(col, f32) swiglu scale(col) residual -> store");
  tilec_kernel k = NULL;
  CHECK(fused &&
        tilec_compile(compiler, fused, strlen(fused), NULL, &k) == TILEC_OK);
  if (k) {
    tilec_kernel_operand_info f = {.struct_size = sizeof f};
    CHECK(tilec_kernel_operands(k, &f) == TILEC_OK);
    CHECK(f.bias_type && strcmp(f.bias_type, "f32") == 0);
    CHECK(f.bias_axis == TILEC_AXIS_COL);
    CHECK(f.scale_axis == TILEC_AXIS_OUT_COL);
    CHECK(f.residual_type && strcmp(f.residual_type, "bf16") == 0);
    CHECK(f.swiglu == 1 && f.block_scaled == 0);
    tilec_kernel_destroy(k);
  }
  free(fused);
  fused = withEpilogue(source, "epilogue scale(row) swiglu(interleaved) "
                               "bias(row) -> store");
  k = NULL;
  CHECK(fused &&
        tilec_compile(compiler, fused, strlen(fused), NULL, &k) == TILEC_OK);
  if (k) {
    tilec_kernel_operand_info f = {.struct_size = sizeof f};
    CHECK(tilec_kernel_operands(k, &f) == TILEC_OK);
    CHECK(f.bias_type && strcmp(f.bias_type, "bf16") == 0);
    CHECK(f.bias_axis == TILEC_AXIS_ROW && f.scale_axis == TILEC_AXIS_ROW);
    CHECK(f.residual_type == NULL && f.swiglu == 2);
    tilec_kernel_destroy(k);
  }
  free(fused);

  k = NULL;
  CHECK(tilec_compile(compiler, fp8BlockSource, strlen(fp8BlockSource), NULL,
                      &k) == TILEC_OK);
  if (k) {
    tilec_kernel_operand_info f = {.struct_size = sizeof f};
    CHECK(tilec_kernel_operands(k, &f) == TILEC_OK);
    CHECK(f.block_scaled == 1 && strcmp(f.a_type, "e4m3") == 0);
    /* A caller built against API 5 gets the fields its struct holds. */
    tilec_kernel_operand_info old = {
        .struct_size = offsetof(tilec_kernel_operand_info, bias_type)};
    CHECK(tilec_kernel_operands(k, &old) == TILEC_OK);
    CHECK(old.struct_size == offsetof(tilec_kernel_operand_info, bias_type));
    CHECK(old.block_scaled == 0);
    tilec_kernel_destroy(k);
  }
  /* API 7: a fixed group count. */
  const char *fixed =
      "kernel fixed {\n  arch sm_90a\n  a : e4m3[3, M, K] major(K)\n"
      "  b : e4m3[3, N, K] major(K)\n  c : bf16[3, M, N] major(N)\n"
      "  acc f32\n  group masked\n  tile (BM = 64, BN = 128, BK = 128)\n"
      "  stages 4\n}\n";
  k = NULL;
  CHECK(tilec_compile(compiler, fixed, strlen(fixed), NULL, &k) == TILEC_OK);
  if (k) {
    tilec_kernel_operand_info f = {.struct_size = sizeof f};
    CHECK(tilec_kernel_operands(k, &f) == TILEC_OK);
    CHECK(f.group_kind == TILEC_GROUP_MASKED && f.group_fixed == 3);
    /* A masked kernel's grid: (tiles of M, tiles of N, G). */
    unsigned grid[3];
    tilec_kernel_grid_batched(k, 128, 256, 256, 0, 3, grid);
    CHECK(grid[0] * grid[1] == 4 && grid[2] == 3);
    CHECK(f.block_scaled == 0);
    tilec_kernel_operand_info old = {
        .struct_size = offsetof(tilec_kernel_operand_info, group_kind)};
    CHECK(tilec_kernel_operands(k, &old) == TILEC_OK);
    CHECK(old.struct_size == offsetof(tilec_kernel_operand_info, group_kind));
    tilec_kernel_destroy(k);
  }
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
  /* API 14: tilec.gemm's program for a request, which compiles; with
   * tuned set and no remembered winner, the rules' program and no note. */
  {
    tilec_gemm_program_request req = {.struct_size =
                                          sizeof(tilec_gemm_program_request)};
    req.arch = "sm_90a", req.dtype = "bf16", req.m = 64, req.n = 2112,
    req.k = 7168, req.sms = 132, req.tuned = 1;
    const char *program = NULL, *note = "unset";
    CHECK(tilec_gemm_program(&req, &program, &note) == TILEC_OK);
    CHECK(program && strstr(program, "schedule swap_ab split_k(2)") != NULL);
    CHECK(note == NULL);
    tilec_kernel pk = NULL;
    CHECK(program && tilec_compile(compiler, program, strlen(program), NULL,
                                   &pk) == TILEC_OK);
    if (pk)
      tilec_kernel_destroy(pk);
    req.b_major = "M";
    CHECK(tilec_gemm_program(&req, &program, NULL) ==
          TILEC_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(tilec_last_error(), "request->b_major M (legal: K, N)") !=
          NULL);
  }
  /* API 17: the quantized-weight program tilec.gemm(a, w) runs: the rules'
   * tile (sm_90a: RS wgmma, swapped; 16 x 4096 x 4096 of u4 with zero
   * points: 64 weight rows x 16 tokens, 16 stages, K in 4 splits), or the
   * caller's, and it compiles; refusals name the field. */
  {
    tilec_gemm_program_request req = {.struct_size =
                                          sizeof(tilec_gemm_program_request)};
    req.arch = "sm_90a", req.dtype = "bf16", req.m = 16, req.n = 4096,
    req.k = 4096, req.sms = 132, req.weight = "u4", req.zeros = 1;
    const char *program = NULL;
    CHECK(tilec_gemm_program(&req, &program, NULL) == TILEC_OK);
    CHECK(program &&
          strstr(program, "kernel tilec_w4a16_sm90_bf16_u4z_g128_64x16x64x16_"
                          "split4 {") != NULL);
    CHECK(program && strstr(program, "  scale b  bf16 group(128) zero(u8)\n"
                                     "  acc      f32\n"
                                     "  tile     (BM = 64, BN = 16, BK = 64)\n"
                                     "  stages   16\n") != NULL);
    CHECK(program && strstr(program, "  schedule swap_ab split_k(4)\n"
                                     "  epilogue auto\n") != NULL);
    tilec_kernel wk = NULL;
    CHECK(program && tilec_compile(compiler, program, strlen(program), NULL,
                                   &wk) == TILEC_OK);
    if (wk) {
      tilec_kernel_operand_info winfo = {.struct_size = sizeof winfo};
      CHECK(tilec_kernel_operands(wk, &winfo) == TILEC_OK);
      CHECK(winfo.weight_group == 128 && winfo.weight_zeros == 1);
      tilec_kernel_destroy(wk);
    }
    req.arch = "sm_80", req.weight = "i8", req.zeros = 0, req.group = 64;
    req.tile[0] = 32, req.tile[1] = 128, req.tile[2] = 128, req.tile[3] = 3;
    CHECK(tilec_gemm_program(&req, &program, NULL) == TILEC_OK);
    CHECK(program &&
          strstr(program, "kernel tilec_w8a16_bf16_i8_g64_32x128x128x3 {") !=
              NULL);
    CHECK(program && strstr(program, "  epilogue store\n") != NULL &&
          strstr(program, "schedule") == NULL);
    req.zeros = 1;
    CHECK(tilec_gemm_program(&req, &program, NULL) ==
          TILEC_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(tilec_last_error(), "i8 weights have no zero points") != NULL);
    req.zeros = 0, req.tile[3] = 0; /* stages 0: refused at the request */
    CHECK(tilec_gemm_program(&req, &program, NULL) ==
          TILEC_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(tilec_last_error(), "each must be from 1 to 65536") != NULL);
    req.tile[3] = 3, req.weight = "i2";
    CHECK(tilec_gemm_program(&req, &program, NULL) ==
          TILEC_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(tilec_last_error(), "request->weight: format 'i2'") != NULL);
    req.weight = "u4", req.dtype = "e4m3";
    CHECK(tilec_gemm_program(&req, &program, NULL) ==
          TILEC_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(tilec_last_error(), "a: type e4m3 (legal with a quantized "
                                     "weight: bf16, f16)") != NULL);
  }
  checkOperandInfo(compiler, source, kernel);
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

  /* `tilec tune` (API 13): a dry run lists the candidates, JSON out. */
  const char *tuneJson = NULL;
  CHECK(tilec_tune(source, length,
                   "{\"shapes\": \"1000,1304,1024\", \"dry_run\": true, "
                   "\"vary\": \"stages\", \"budget_s\": 2}",
                   &tuneJson) == TILEC_OK);
  CHECK(tuneJson && strstr(tuneJson, "\"dry_run\":true") != NULL);
  CHECK(tuneJson && strstr(tuneJson, "\"baseline\":true") != NULL);
  CHECK(tilec_tune(source, length, "{\"shapes\": \"1000,1304\"}", &tuneJson) ==
        TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "has 2 sizes") != NULL);

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
    launchBlockScaled(compiler);
    launchGrouped(compiler, 0);
    launchGrouped(compiler, 1);
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
