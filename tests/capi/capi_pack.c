/*===- tests/capi/capi_pack.c - Quantized weights through the C API -------===*\
|*                                                                            *|
|* tilec_quantize_int4_weights, tilec_pack_int4_weights and their inverses    *|
|* from plain C: the header's worked word (ir/layout/WeightPack.h: lane 5's word 0   *|
|* of a 16 x 64 weight), round trips of i4 and u4, the dequantized weight     *|
|* within half a quantization step, the layout packed_int4(16, 64) agreeing   *|
|* with where a code lands, and the errors. API 15: the same for the 8-bit    *|
|* formats through tilec_pack_weights and its kin (i8, u8, e4m3, e5m2: lane   *|
|* 5's word 1 of a 16 x 32 weight, packed_int8, fp8 values decoded here).     *|
|* API 12: what a W4A16 kernel reports of its operands (weight_group,         *|
|* weight_scale_type, weight_zeros) and, with --launch under                  *|
|* TILEC_DEVICE=sim, a launch with the group scales and zero points in        *|
|* tilec_gemm_args.sb / .zb checked element by element, and the launch        *|
|* refused by name without sb.                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#include "tilec/tilec.h"

#include <math.h>
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

enum { N = 32, K = 128, G = 64 };

/* The float a bf16 bit pattern encodes. */
static float bf16ToFloat(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static void workedWord(void) {
  static int8_t values[16 * 64], back[16 * 64];
  static int32_t packed[16 * 64 / 8];
  for (int n = 0; n < 16; ++n)
    for (int k = 0; k < 64; ++k)
      values[n * 64 + k] = (int8_t)((3 * n + 5 * k) % 16 - 8);
  CHECK(tilec_pack_int4_weights(values, 16, 64, TILEC_INT4_I4, packed) ==
        TILEC_OK);
  CHECK((uint32_t)packed[20] == 0x2aa2d55du);
  CHECK(tilec_unpack_int4_weights(packed, 16, 64, TILEC_INT4_I4, back) ==
        TILEC_OK);
  CHECK(memcmp(values, back, sizeof values) == 0);

  /* packed_int4(16, 64) maps (9, 3) to nibble 166: word 20, nibble 6. */
  tilec_layout layout;
  CHECK(tilec_layout_eval("packed_int4(16, 64)", &layout) == TILEC_OK);
  CHECK(strcmp(tilec_layout_str(layout),
               "((8,2,1),(2,4,2,4,1)):((128,2,1024),(4,32,1,8,1024))") == 0);
  static int64_t offsets[16 * 64];
  CHECK(tilec_layout_offsets(layout, offsets, 16 * 64) == 16 * 64);
  /* Offsets are listed column-major over (n, k): index n + 16 k. */
  CHECK(offsets[9 + 16 * 3] == 166);
  for (int n = 0; n < 16; ++n)
    for (int k = 0; k < 64; ++k) {
      int64_t nib = offsets[n + 16 * k];
      uint32_t code = ((uint32_t)packed[nib / 8] >> (4 * (nib % 8))) & 0xf;
      CHECK(code == (uint32_t)(values[n * 64 + k] + 8));
    }
  tilec_layout_destroy(layout);
}

static void roundTrip(int format) {
  static float w[N * K], deq[N * K];
  static int8_t values[N * K], back[N * K];
  static uint16_t scales[K / G * N];
  static uint8_t zeros[K / G * N];
  static int32_t packed[N * K / 8];
  srand(28);
  for (int i = 0; i < N * K; ++i)
    w[i] = ((float)rand() / RAND_MAX - 0.3f) * 0.1f;
  uint8_t *z = format == TILEC_INT4_U4 ? zeros : NULL;
  CHECK(tilec_quantize_int4_weights(w, N, K, G, format, "bf16", values, scales,
                                    z) == TILEC_OK);
  CHECK(tilec_pack_int4_weights(values, N, K, format, packed) == TILEC_OK);
  CHECK(tilec_unpack_int4_weights(packed, N, K, format, back) == TILEC_OK);
  CHECK(memcmp(values, back, sizeof values) == 0);
  CHECK(tilec_dequantize_int4_weights(back, N, K, G, format, scales, "bf16", z,
                                      deq) == TILEC_OK);
  int far = 0, lo = 99, hi = -99;
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) {
      float scale = bf16ToFloat(scales[k / G * N + n]);
      int q = values[n * K + k];
      float zero = z ? (float)z[k / G * N + n] : 0.0f;
      /* The dequantized value, written out here. */
      if (deq[n * K + k] != ((float)q - zero) * scale)
        ++far;
      if (fabsf(deq[n * K + k] - w[n * K + k]) > 0.56f * scale)
        ++far;
      lo = q < lo ? q : lo;
      hi = q > hi ? q : hi;
    }
  CHECK(far == 0);
  if (format == TILEC_INT4_I4)
    CHECK(lo >= -8 && hi <= 7 && (lo == -7 || hi == 7));
  else
    CHECK(lo == 0 && hi == 15);
}

static void errors(void) {
  static int8_t values[16 * 64];
  static int32_t packed[16 * 64 / 8];
  static float w[16 * 64];
  static uint16_t scales[16];
  memset(values, 0, sizeof values);
  CHECK(tilec_pack_int4_weights(values, 100, 64, TILEC_INT4_I4, packed) ==
        TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "got N = 100 (the nearest legal N are 96 "
                                   "and 112)") != NULL);
  values[65] = 9;
  CHECK(tilec_pack_int4_weights(values, 16, 64, TILEC_INT4_I4, packed) ==
        TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strcmp(tilec_last_error(),
               "the value at (n, k) = (1, 1) is 9, outside i4's -8..7") == 0);
  CHECK(tilec_pack_int4_weights(values, 16, 64, TILEC_INT4_U4, packed) ==
        TILEC_OK);
  CHECK(strcmp(tilec_last_error(), "") == 0);
  CHECK(tilec_pack_int4_weights(values, 16, 64, 7, packed) ==
        TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "format 7") != NULL);
  CHECK(tilec_quantize_int4_weights(w, 16, 64, 96, TILEC_INT4_I4, "bf16",
                                    values, scales,
                                    NULL) == TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "group size 96") != NULL);
  CHECK(tilec_quantize_int4_weights(w, 16, 64, 64, TILEC_INT4_I4, "e4m3",
                                    values, scales,
                                    NULL) == TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "scale_dtype 'e4m3'") != NULL);
  CHECK(tilec_quantize_int4_weights(w, 16, 64, 64, TILEC_INT4_U4, "bf16",
                                    values, scales,
                                    NULL) == TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "zeros") != NULL);
  CHECK(tilec_check_int4_weights(4096, 14336, 128) == TILEC_OK);
  CHECK(tilec_check_int4_weights(16, 192, 128) == TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strcmp(tilec_last_error(), "K = 192 is not a multiple of the group "
                                   "size 128 (groups of 32 or 64 divide "
                                   "it)") == 0);
  CHECK(tilec_unpack_int4_weights(NULL, 16, 64, TILEC_INT4_I4, values) ==
        TILEC_ERROR_INVALID_ARGUMENT);
}

/* API 15: 8-bit codes. The header's worked word: codes (3 n + 5 k) % 256
 * of a 16 x 32 weight put (9, 2) (9, 3) (9, 10) (9, 11) in lane 5's word 1
 * (word 21), bytes 0..3; i8 stores q + 128, so q = code - 128. */
static void workedWord8(void) {
  static int8_t values[16 * 32], back[16 * 32];
  static int32_t packed[16 * 32 / 4];
  for (int n = 0; n < 16; ++n)
    for (int k = 0; k < 32; ++k)
      values[n * 32 + k] = (int8_t)((3 * n + 5 * k) % 256 - 128);
  CHECK(tilec_pack_weights(values, 16, 32, TILEC_WEIGHT_I8, packed) ==
        TILEC_OK);
  CHECK((uint32_t)packed[21] == 0x524d2a25u);
  CHECK((uint32_t)packed[20] == 0x3a35120du); /* n = 1: 13, 18, 53, 58 */
  CHECK(tilec_unpack_weights(packed, 16, 32, TILEC_WEIGHT_I8, back) ==
        TILEC_OK);
  CHECK(memcmp(values, back, sizeof values) == 0);

  /* packed_int8(16, 32) maps (9, 3) to byte 85: word 21, byte 1. */
  tilec_layout layout;
  CHECK(tilec_layout_eval("packed_int8(16, 32)", &layout) == TILEC_OK);
  CHECK(strcmp(tilec_layout_str(layout),
               "((8,2,1),(2,4,2,2,1)):((64,4,512),(1,16,2,8,512))") == 0);
  static int64_t offsets[16 * 32];
  CHECK(tilec_layout_offsets(layout, offsets, 16 * 32) == 16 * 32);
  CHECK(offsets[9 + 16 * 3] == 85);
  for (int n = 0; n < 16; ++n)
    for (int k = 0; k < 32; ++k) {
      int64_t byte = offsets[n + 16 * k];
      uint32_t code = ((uint32_t)packed[byte / 4] >> (8 * (byte % 4))) & 0xff;
      CHECK(code == (uint32_t)(values[n * 32 + k] + 128));
    }
  tilec_layout_destroy(layout);
}

/* An fp8 byte's value, from its fields: e4m3 (bias 7, 3 mantissa bits,
 * S.1111.111 NaN) or e5m2 (bias 15, 2 bits, exponent 31 Inf / NaN). */
static float fp8Value(uint8_t code, int e4m3) {
  int man = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  int e = (code & 0x7f) >> man, m = code & ((1 << man) - 1);
  if (e4m3 ? (code & 0x7f) == 0x7f : e == 31)
    return NAN;
  float v = e == 0 ? ldexpf((float)m, 1 - bias - man)
                   : ldexpf((float)((1 << man) + m), e - bias - man);
  return code & 0x80 ? -v : v;
}

/* quantize -> pack -> unpack -> dequantize for an 8-bit \p format: the
 * values survive, the dequantized weight is value(q) * scale ((q - zero)
 * * scale for u8) as computed here, and close to w. */
static void roundTrip8(int format) {
  static float w[N * K], deq[N * K];
  static int8_t values[N * K], back[N * K];
  static uint16_t scales[K / G * N];
  static uint8_t zeros[K / G * N];
  static int32_t packed[N * K / 4];
  srand(29);
  for (int i = 0; i < N * K; ++i)
    w[i] = ((float)rand() / RAND_MAX - 0.3f) * 0.1f;
  uint8_t *z = format == TILEC_WEIGHT_U8 ? zeros : NULL;
  CHECK(tilec_quantize_weights(w, N, K, G, format, "bf16", values, scales, z) ==
        TILEC_OK);
  CHECK(tilec_pack_weights(values, N, K, format, packed) == TILEC_OK);
  CHECK(tilec_unpack_weights(packed, N, K, format, back) == TILEC_OK);
  CHECK(memcmp(values, back, sizeof values) == 0);
  CHECK(tilec_dequantize_weights(back, N, K, G, format, scales, "bf16", z,
                                 deq) == TILEC_OK);
  int far = 0, wrong = 0, hi = 0;
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) {
      float scale = bf16ToFloat(scales[k / G * N + n]);
      uint8_t byte = (uint8_t)values[n * K + k];
      float q = format == TILEC_WEIGHT_I8 ? (float)(int8_t)byte
                : format == TILEC_WEIGHT_U8
                    ? (float)byte
                    : fp8Value(byte, format == TILEC_WEIGHT_E4M3);
      float zero = z ? (float)z[k / G * N + n] : 0.0f;
      if (deq[n * K + k] != (q - zero) * scale)
        ++wrong;
      float x = w[n * K + k], err = fabsf(deq[n * K + k] - x);
      /* Integers: half a step, plus the bf16 scale's and the zero point's
       * rounding where q clamps; fp8: half the spacing at x. */
      float bound = format == TILEC_WEIGHT_E4M3   ? fabsf(x) / 15 + scale / 1024
                    : format == TILEC_WEIGHT_E5M2 ? fabsf(x) / 7 + scale / 65536
                                                  : 1.6f * scale;
      if (err > bound)
        ++far;
      hi = byte > hi ? byte : hi;
    }
  CHECK(wrong == 0);
  CHECK(far == 0);
  if (format == TILEC_WEIGHT_U8)
    CHECK(hi == 255);
}

static void errors8(void) {
  static int8_t values[16 * 32];
  static int32_t packed[16 * 32 / 4];
  static float w[16 * 32], out[16 * 32];
  static uint16_t scales[16];
  static uint8_t zeros[16];
  memset(values, 0, sizeof values);
  CHECK(tilec_check_weights(16, 32, 32, TILEC_WEIGHT_E4M3) == TILEC_OK);
  CHECK(tilec_check_weights(16, 48, 32, TILEC_WEIGHT_I8) ==
        TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strcmp(tilec_last_error(),
               "a packed 8-bit weight needs K > 0 and a multiple of 32; got "
               "K = 48 (the nearest legal K are 32 and 64)") == 0);
  CHECK(tilec_check_weights(16, 32, 32, 6) == TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strcmp(tilec_last_error(),
               "format 6 is not a tilec_weight_format: 0..5 for i4, u4, i8, "
               "u8, e4m3, e5m2") == 0);
  /* The 4-bit spellings refuse an 8-bit format. */
  CHECK(tilec_pack_int4_weights(values, 16, 64, TILEC_WEIGHT_I8, packed) ==
        TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "format 2 is not TILEC_INT4_I4 (0) or "
                                   "TILEC_INT4_U4 (1)") != NULL);
  values[33] = 0x7f; /* e4m3's NaN */
  CHECK(tilec_pack_weights(values, 16, 32, TILEC_WEIGHT_E4M3, packed) ==
        TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strcmp(tilec_last_error(), "the value at (n, k) = (1, 1) is the e4m3 "
                                   "pattern 0x7f, which is not finite") == 0);
  CHECK(tilec_pack_weights(values, 16, 32, TILEC_WEIGHT_U8, packed) ==
        TILEC_OK);
  CHECK(tilec_quantize_weights(w, 16, 32, 32, TILEC_WEIGHT_I8, "bf16", values,
                               scales, zeros) == TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "i8 weights have no zero points: zeros "
                                   "must be null") != NULL);
  CHECK(tilec_quantize_weights(w, 16, 32, 32, TILEC_WEIGHT_U8, "bf16", values,
                               scales, NULL) == TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "u8 weights take zero points") != NULL);
  CHECK(tilec_dequantize_weights(values, 16, 32, 32, TILEC_WEIGHT_I8, scales,
                                 "bf16", zeros,
                                 out) == TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strcmp(tilec_last_error(), "i8 weights have no zero points (z = 128 "
                                   "is implied); pass zeros = NULL") == 0);
  CHECK(tilec_dequantize_weights(values, 16, 32, 32, TILEC_WEIGHT_E5M2, scales,
                                 "bf16", zeros,
                                 out) == TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strcmp(tilec_last_error(), "e5m2 weights have no zero points; pass "
                                   "zeros = NULL") == 0);
  CHECK(tilec_unpack_weights(NULL, 16, 32, TILEC_WEIGHT_U8, values) ==
        TILEC_ERROR_INVALID_ARGUMENT);
}

static uint16_t floatToBf16(float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  return (uint16_t)(bits >> 16); /* exact for the values used here */
}

static const char *w4a16Source = "kernel w4 {\n"
                                 "  arch     sm_80\n"
                                 "  a        : bf16[M, K] major(K)\n"
                                 "  b        : u4[N, K] major(K)\n"
                                 "  c        : bf16[M, N] major(N)\n"
                                 "  scale b  bf16 group(64) zero(u8)\n"
                                 "  acc      f32\n"
                                 "  tile     (BM = 16, BN = 32, BK = 128)\n"
                                 "  stages   2\n"
                                 "}\n";

static uint64_t upload(const void *data, size_t bytes) {
  uint64_t ptr = 0;
  CHECK(tilec_device_alloc(bytes, &ptr) == TILEC_OK);
  CHECK(tilec_copy_to_device(ptr, data, bytes) == TILEC_OK);
  return ptr;
}

/* API 12: the operand info of a W4A16 kernel and, with \p launch (in the
 * simulator), C = A dequant(W)^T through sb / zb. */
static void w4a16Kernel(int launch) {
  enum { M = 20, WN = 64, WK = 256, WG = 64, ROWS = WK / WG };
  tilec_compiler cc;
  tilec_kernel kernel;
  CHECK(tilec_compiler_create(&cc) == TILEC_OK);
  CHECK(tilec_compile(cc, w4a16Source, strlen(w4a16Source), NULL, &kernel) ==
        TILEC_OK);
  tilec_kernel_operand_info info = {.struct_size = sizeof info};
  CHECK(tilec_kernel_operands(kernel, &info) == TILEC_OK);
  CHECK(strcmp(info.b_type, "u4") == 0);
  CHECK(info.weight_group == WG);
  CHECK(info.weight_scale_type && strcmp(info.weight_scale_type, "bf16") == 0);
  CHECK(info.weight_zeros == 1);
  /* An older caller's struct stops before the API 12 fields. */
  tilec_kernel_operand_info old = {
      .struct_size = offsetof(tilec_kernel_operand_info, weight_group)};
  CHECK(tilec_kernel_operands(kernel, &old) == TILEC_OK);
  CHECK(old.struct_size == offsetof(tilec_kernel_operand_info, weight_group));
  CHECK(old.weight_group == 0);
  if (launch) {
    static uint16_t a[M * WK], scales[ROWS * WN], c[M * WN];
    static int8_t q[WN * WK];
    static uint8_t zeros[ROWS * WN];
    static int32_t packed[WN * WK / 8];
    static float sf[ROWS * WN];
    srand(12);
    for (int i = 0; i < M * WK; ++i)
      a[i] = floatToBf16((float)(rand() % 5 - 2));
    for (int i = 0; i < WN * WK; ++i)
      q[i] = (int8_t)(rand() % 16);
    for (int i = 0; i < ROWS * WN; ++i) {
      zeros[i] = (uint8_t)(rand() % 16);
      sf[i] = (float)(1 << (rand() % 3)) / 2.0f; /* 0.5, 1, 2 */
      scales[i] = floatToBf16(sf[i]);
    }
    CHECK(tilec_pack_int4_weights(q, WN, WK, TILEC_INT4_U4, packed) ==
          TILEC_OK);
    tilec_context ctx;
    CHECK(tilec_context_create(0, &ctx) == TILEC_OK);
    memset(c, 0xff, sizeof c); /* NaN */
    uint64_t da = upload(a, sizeof a), db = upload(packed, sizeof packed),
             dc = upload(c, sizeof c), dsb = upload(scales, sizeof scales),
             dzb = upload(zeros, sizeof zeros);
    tilec_launcher launcher;
    CHECK(tilec_launcher_create(kernel, 0, &launcher) == TILEC_OK);
    tilec_gemm_args args = {.struct_size = sizeof args,
                            .a = da,
                            .b = db,
                            .c = dc,
                            .m = M,
                            .n = WN,
                            .k = WK,
                            .lda = WK,
                            .ldb = WK,
                            .ldc = WN,
                            .alpha = 1.0f,
                            .sb = dsb,
                            .zb = 0};
    CHECK(tilec_launch(launcher, &args, NULL) == TILEC_ERROR_LAUNCH_ARGUMENT);
    CHECK(strstr(tilec_last_error(), "pass zb") != NULL);
    /* A caller built against API 11 passes no sb: refused by name. */
    tilec_gemm_args older = args;
    older.struct_size = offsetof(tilec_gemm_args, sb);
    CHECK(tilec_launch(launcher, &older, NULL) == TILEC_ERROR_LAUNCH_ARGUMENT);
    CHECK(strstr(tilec_last_error(), "pass sb") != NULL);
    args.zb = dzb;
    CHECK(tilec_launch(launcher, &args, NULL) == TILEC_OK);
    CHECK(tilec_context_synchronize(ctx) == TILEC_OK);
    CHECK(tilec_copy_to_host(c, dc, sizeof c) == TILEC_OK);
    int wrong = 0;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < WN; ++j) {
        float want = 0.0f;
        for (int x = 0; x < WK; ++x)
          want += bf16ToFloat(a[i * WK + x]) *
                  (float)(q[j * WK + x] - zeros[x / WG * WN + j]) *
                  sf[x / WG * WN + j];
        float got = bf16ToFloat(c[i * WN + j]);
        if (!(fabsf(got - want) <= fabsf(want) / 256.0f))
          ++wrong;
      }
    CHECK(wrong == 0);
    printf("capi_pack: W4A16 %dx%dx%d launch through sb/zb: %d/%d wrong\n", M,
           WN, WK, wrong, M * WN);
    tilec_launcher_destroy(launcher);
    for (int i = 0; i < 5; ++i)
      CHECK(tilec_device_free((uint64_t[]){da, db, dc, dsb, dzb}[i]) ==
            TILEC_OK);
    tilec_context_destroy(ctx);
  }
  tilec_kernel_destroy(kernel);
  tilec_compiler_destroy(cc);
}

int main(int argc, char **argv) {
  CHECK(tilec_api_version() >= 15);
  workedWord();
  roundTrip(TILEC_INT4_I4);
  roundTrip(TILEC_INT4_U4);
  errors();
  workedWord8();
  roundTrip8(TILEC_WEIGHT_I8);
  roundTrip8(TILEC_WEIGHT_U8);
  roundTrip8(TILEC_WEIGHT_E4M3);
  roundTrip8(TILEC_WEIGHT_E5M2);
  errors8();
  /* The general functions with the 4-bit formats are the 4-bit spellings. */
  {
    static int8_t v[16 * 64];
    static int32_t a[16 * 64 / 8], b[16 * 64 / 8];
    for (int i = 0; i < 16 * 64; ++i)
      v[i] = (int8_t)(i * 7 % 16);
    CHECK(tilec_pack_weights(v, 16, 64, TILEC_WEIGHT_U4, a) == TILEC_OK);
    CHECK(tilec_pack_int4_weights(v, 16, 64, TILEC_INT4_U4, b) == TILEC_OK);
    CHECK(memcmp(a, b, sizeof a) == 0);
  }
  w4a16Kernel(argc > 1 && strcmp(argv[1], "--launch") == 0);
  if (failures) {
    fprintf(stderr, "capi_pack: %d checks failed\n", failures);
    return 1;
  }
  puts("capi_pack: all checks passed");
  return 0;
}
