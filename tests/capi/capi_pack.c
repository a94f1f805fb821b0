/*===- tests/capi/capi_pack.c - 4-bit weights through the C API -----------===*\
|*                                                                            *|
|* tilec_quantize_int4_weights, tilec_pack_int4_weights and their inverses    *|
|* from plain C: the header's worked word (ir/WeightPack.h: lane 5's word 0   *|
|* of a 16 x 64 weight), round trips of i4 and u4, the dequantized weight     *|
|* within half a quantization step, the layout packed_int4(16, 64) agreeing   *|
|* with where a code lands, and the errors.                                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#include "tilec/tilec.h"

#include <math.h>
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

int main(void) {
  CHECK(tilec_api_version() >= 11);
  workedWord();
  roundTrip(TILEC_INT4_I4);
  roundTrip(TILEC_INT4_U4);
  errors();
  if (failures) {
    fprintf(stderr, "capi_pack: %d checks failed\n", failures);
    return 1;
  }
  puts("capi_pack: all checks passed");
  return 0;
}
