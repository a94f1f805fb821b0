/*===- include/tilec/tilec.h - The tilec C API -------------------*- C -*-===*\
|*                                                                            *|
|* tilec for C, Rust, Go, Python (ctypes) and anything else with a C FFI:     *|
|* compile a .tile source to PTX and launch metadata, evaluate layout         *|
|* expressions, and launch a compiled GEMM on device pointers. Plain C, no    *|
|* C++ exceptions or LLVM types cross it; objects are opaque handles.         *|
|*                                                                            *|
|* Errors: every call that can fail returns a tilec_status (TILEC_OK = 0)     *|
|* and leaves its message, e.g. a compile diagnostic                          *|
|*   "gemm.tile:12:13: error: BM = 32 is not a multiple of ...",              *|
|* in tilec_last_error(), which is per thread and valid until the next        *|
|* failing call on that thread.                                               *|
|*                                                                            *|
|* Example:                                                                   *|
|*   tilec_compiler cc; tilec_kernel k;                                       *|
|*   tilec_compiler_create(&cc);                                              *|
|*   if (tilec_compile(cc, src, strlen(src), NULL, &k) != TILEC_OK)           *|
|*     fprintf(stderr, "%s\n", tilec_last_error());                           *|
|*   else puts(tilec_kernel_ptx(k));                                          *|
|*                                                                            *|
|* ABI: TILEC_API_VERSION grows when calls are added; existing calls keep     *|
|* their signatures. Structs passed in start with a struct_size member set to *|
|* sizeof(the struct) by the caller, so fields can be appended later: the     *|
|* library reads only the fields the caller's struct_size covers.             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef TILEC_TILEC_H
#define TILEC_TILEC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TILEC_API_VERSION 17

#if defined(__GNUC__)
#define TILEC_API __attribute__((visibility("default")))
#else
#define TILEC_API
#endif

/* Status codes. */
typedef enum tilec_status {
  TILEC_OK = 0,
  TILEC_ERROR_INVALID_ARGUMENT = 1, /* a null handle, a bad option value */
  TILEC_ERROR_COMPILE = 2,          /* the .tile source has errors */
  TILEC_ERROR_LAYOUT = 3,           /* a layout expression has an error */
  TILEC_ERROR_RUNTIME = 4,          /* the driver or simulator failed */
  TILEC_ERROR_LAUNCH_ARGUMENT = 5,  /* a GEMM problem the kernel refuses */
  TILEC_ERROR_INTERNAL = 6          /* a bug in tilec */
} tilec_status;

/* The API version the library implements (TILEC_API_VERSION when built). */
TILEC_API int tilec_api_version(void);
/* The tilec version, e.g. "0.1.0". */
TILEC_API const char *tilec_version(void);
/* The message of the last failing call on this thread ("" if none). */
TILEC_API const char *tilec_last_error(void);
/* For TILEC_ERROR_LAYOUT: the 0-based column of the error in the text. */
TILEC_API unsigned tilec_last_error_column(void);

/*===-- Compiling ---------------------------------------------------------===*/

typedef struct tilec_compiler_impl *tilec_compiler;
typedef struct tilec_kernel_impl *tilec_kernel;

/* A compiler with an in-memory cache and the disk cache (~/.cache/tilec,
 * $TILEC_CACHE_DIR; off with TILEC_NO_DISK_CACHE=1). Thread-safe. */
TILEC_API tilec_status tilec_compiler_create(tilec_compiler *out);
TILEC_API void tilec_compiler_destroy(tilec_compiler compiler);

typedef struct tilec_compile_options {
  size_t struct_size;      /* sizeof(tilec_compile_options) */
  const char *kernel;      /* NULL: the source must hold one kernel */
  const char *arch;        /* "sm_80", "sm_90a", "sm_100a"; NULL: the
                              source's arch line */
  int line_info;           /* nonzero: PTX .file/.loc line directives */
  const char *source_name; /* file name in diagnostics; NULL: "<source>" */
} tilec_compile_options;

/* Compiles \p source (\p length bytes) to a kernel; \p options may be NULL.
 * A .tile error returns TILEC_ERROR_COMPILE with the diagnostics in
 * tilec_last_error(). The kernel stays valid after the compiler is gone. */
TILEC_API tilec_status tilec_compile(tilec_compiler compiler,
                                     const char *source, size_t length,
                                     const tilec_compile_options *options,
                                     tilec_kernel *out);
TILEC_API void tilec_kernel_destroy(tilec_kernel kernel);

/* Strings owned by the kernel, valid until it is destroyed. */
TILEC_API const char *tilec_kernel_ptx(tilec_kernel kernel);
TILEC_API const char *tilec_kernel_entry_name(tilec_kernel kernel);
TILEC_API const char *tilec_kernel_arch(tilec_kernel kernel);
/* The decisions of the passes, as `tilec compile --emit=lowered` prints
 * them (computed on the first call). */
TILEC_API tilec_status tilec_kernel_lowered(tilec_kernel kernel,
                                            const char **out);
TILEC_API unsigned tilec_kernel_shared_bytes(tilec_kernel kernel);
TILEC_API unsigned tilec_kernel_block_threads(tilec_kernel kernel);

typedef enum tilec_param_kind {
  TILEC_PARAM_POINTER = 0,    /* .u64 global address */
  TILEC_PARAM_I32 = 1,        /* .u32 / .s32 */
  TILEC_PARAM_F32 = 2,        /* .f32 */
  TILEC_PARAM_TENSOR_MAP = 3, /* a 128-byte grid-constant CUtensorMap */
  TILEC_PARAM_I64 = 4         /* API 5: .u64 / .s64 (batch strides) */
} tilec_param_kind;

/* The kernel parameters, in order; index past the end gives NULL / -1. */
TILEC_API size_t tilec_kernel_param_count(tilec_kernel kernel);
TILEC_API const char *tilec_kernel_param_name(tilec_kernel kernel,
                                              size_t index);
TILEC_API int tilec_kernel_param_kind(tilec_kernel kernel, size_t index);
/* The launch grid for an M x N x K problem (sm_count 0: one CTA per tile). */
TILEC_API void tilec_kernel_grid(tilec_kernel kernel, int64_t m, int64_t n,
                                 int64_t k, unsigned sm_count,
                                 unsigned grid[3]);
/* API 5: the grid of \p batch such problems: a batched kernel repeats the
 * grid along z (sm_100a: one persistent grid over batch x tiles; an
 * unbatched one ignores \p batch). */
TILEC_API void tilec_kernel_grid_batched(tilec_kernel kernel, int64_t m,
                                         int64_t n, int64_t k,
                                         unsigned sm_count, int64_t batch,
                                         unsigned grid[3]);

/* API 3: what the kernel expects of its operands (in the TN view: A is
 * M x K, B N x K, C M x N row-major), so a caller can check its buffers.
 * Strings are static. */
typedef struct tilec_kernel_operand_info {
  size_t struct_size;                   /* sizeof(tilec_kernel_operand_info) */
  const char *a_type, *b_type, *c_type; /* "bf16", "f16", "tf32", "f32", ... */
  const char *a_major, *b_major;        /* "K" or "MN": the contiguous extent */
  int64_t fixed_m, fixed_n, fixed_k; /* extents fixed by the program; 0: any */
  unsigned ldc_multiple;             /* ldc must be a multiple of this */
  unsigned c_align_bytes;            /* C's address alignment */
  /* API 5: a batched kernel (c : T[B, M, N]): batched is 1, batch_fixed the
   * program's fixed batch count (0: any), a_batched / b_batched 0 for an
   * operand declared without the batch extent (one matrix for every batch). */
  int batched, a_batched, b_batched;
  int64_t batch_fixed;
  /* API 6: the operands the epilogue ops and block scales read, so that a
   * caller can check them too. bias_type and residual_type: the element
   * type of the bias vector and of the residual tensor ("bf16", "f32", ...;
   * NULL without that op); bias_axis and scale_axis: which extent the
   * vector follows (a tilec_vector_axis); swiglu: 0 none, 1 the halves of
   * each CTA tile (N a multiple of tile_n), 2 interleaved (any even N),
   * with C (and the residual) M x N/2; tile_n: the CTA tile's N extent
   * (BN); block_scaled: 1 when the kernel takes sfa and sfb
   * (tilec_gemm_args). */
  const char *bias_type, *residual_type;
  int bias_axis, scale_axis;
  int swiglu;
  unsigned tile_n;
  int block_scaled;
  /* API 7: a grouped kernel (`group contiguous|masked`, a tilec_group_kind)
   * and the group count its program fixes (`b : e4m3[8, N, K]`; 0: any,
   * the launch's tilec_gemm_args.groups). */
  int group_kind;
  int64_t group_fixed;
  /* API 9: 1 when a block-scaled kernel takes SFA M-major (`scale a f32
   * block(1, 128) major(M)`: f32[ceil(K/128), M], a K block's scales
   * contiguous), 0 for f32[M, ceil(K/128)]. */
  int sfa_m_major;
  /* API 12: a quantized weight kernel (`b : u4|i4[N, K] major(K)` with
   * `scale b bf16|f16 group(G) [zero(u8)]`; API 15 also i8, u8 (with
   * zero(u8)), e4m3 and e5m2; b_type names the format): weight_group is G
   * (32, 64 or 128; 0 for any other kernel), weight_scale_type the group
   * scales' type ("bf16" or "f16", A's type; NULL for other kernels) and
   * weight_zeros 1 when the kernel takes u8 zero points (zb). Such a kernel
   * takes b as the packed codes (tilec_pack_weights: N * K * bits / 32
   * words, ldb = K, N % 16 == 0, K % 64 == 0 for 4-bit codes and % 32 for
   * 8-bit ones) and sb / zb in tilec_gemm_args. */
  int64_t weight_group;
  const char *weight_scale_type;
  int weight_zeros;
} tilec_kernel_operand_info;
/* API 7: how a grouped kernel's rows find their group. */
typedef enum tilec_group_kind {
  TILEC_GROUP_NONE = 0,       /* not grouped */
  TILEC_GROUP_CONTIGUOUS = 1, /* A [M, K], C [M, N], group_index int32[M] */
  TILEC_GROUP_MASKED = 2      /* A [G, M, K], C [G, M, N], group_rows
                                 int32[G] */
} tilec_group_kind;
/* API 6: the extent an epilogue vector follows. */
typedef enum tilec_vector_axis {
  TILEC_AXIS_NONE = 0,   /* the kernel has no such op */
  TILEC_AXIS_COL = 1,    /* one per accumulator column: N elements */
  TILEC_AXIS_ROW = 2,    /* one per row: M elements */
  TILEC_AXIS_OUT_COL = 3 /* one per column of C after swiglu: N/2 */
} tilec_vector_axis;
TILEC_API tilec_status tilec_kernel_operands(tilec_kernel kernel,
                                             tilec_kernel_operand_info *out);

/* API 16: the operand the \p index-th epilogue op that reads one reads (in
 * the order written): its role (the tilec_epilogue_operand's, and the
 * keyword of Python's Kernel), its element type ("bf16", "f32", ...), for
 * a vector the extent it follows (axis; TILEC_AXIS_NONE for a matrix) and
 * for a matrix of C's shape (M x N, N/2 after swiglu) the name of its
 * leading dimension (ld, e.g. "ldr"; NULL for a vector). The strings are
 * static. TILEC_ERROR_INVALID_ARGUMENT past the last (count: index 0, 1,
 * ... until it fails). */
typedef struct tilec_epilogue_operand_info {
  size_t struct_size; /* sizeof(tilec_epilogue_operand_info) */
  const char *role, *type, *ld;
  int axis; /* tilec_vector_axis */
} tilec_epilogue_operand_info;
TILEC_API tilec_status tilec_kernel_epilogue_operand(
    tilec_kernel kernel, size_t index, tilec_epilogue_operand_info *out);

/*===-- Layouts -----------------------------------------------------------===*/

typedef struct tilec_layout_impl *tilec_layout;

/* Evaluates a layout expression as `tilec layout` does, e.g.
 * "tile_to_shape(K_SW128<bf16>, (64,64))". An error returns
 * TILEC_ERROR_LAYOUT with tilec_last_error_column(). */
TILEC_API tilec_status tilec_layout_eval(const char *expr, tilec_layout *out);
TILEC_API void tilec_layout_destroy(tilec_layout layout);
/* One line in CuTe notation: "Sw<3,3,3> o (8,64):(64,1)". */
TILEC_API const char *tilec_layout_str(tilec_layout layout);
/* The number of offsets (the layout's size; 0 for a bare swizzle or an
 * integer, which have no domain). */
TILEC_API size_t tilec_layout_size(tilec_layout layout);
/* Writes min(capacity, size) offsets L(0), L(1), ... to \p out. */
TILEC_API size_t tilec_layout_offsets(tilec_layout layout, int64_t *out,
                                      size_t capacity);
/* An SVG picture of the layout (as `tilec layout --svg`); the string is
 * owned by the layout. */
TILEC_API tilec_status tilec_layout_svg(tilec_layout layout, const char **out);

/*===-- Launching ---------------------------------------------------------===*/

typedef struct tilec_context_impl *tilec_context;
typedef struct tilec_launcher_impl *tilec_launcher;

/* Retains device \p ordinal's primary context (the one PyTorch and the CUDA
 * runtime use) and makes it current on this thread. Optional where a
 * context is already current. TILEC_DEVICE=sim selects the simulator. */
TILEC_API tilec_status tilec_context_create(int ordinal, tilec_context *out);
TILEC_API tilec_status tilec_context_synchronize(tilec_context context);
TILEC_API void tilec_context_destroy(tilec_context context);

/* Device memory in the current context, for callers without the CUDA
 * toolkit (the simulator's memory, under TILEC_DEVICE=sim). */
TILEC_API tilec_status tilec_device_alloc(size_t bytes, uint64_t *out);
TILEC_API tilec_status tilec_device_free(uint64_t ptr);
TILEC_API tilec_status tilec_copy_to_device(uint64_t dst, const void *src,
                                            size_t bytes);
TILEC_API tilec_status tilec_copy_to_host(void *dst, uint64_t src,
                                          size_t bytes);

/* API 16: one epilogue op's operand, named by its role (the op table's
 * operand name, ir/tile/EpilogueOps.def: "bias", "scale", "residual"; a
 * kernel's are listed by tilec_kernel_epilogue_operand): its device pointer
 * and, for a matrix operand (the residual), its leading dimension in
 * elements (0 for a vector). */
typedef struct tilec_epilogue_operand {
  const char *role;
  uint64_t ptr; /* CUdeviceptr */
  int64_t ld;
} tilec_epilogue_operand;

/* One GEMM: C = ops(alpha * A * B^T + beta * C), A M x K, B N x K (stored
 * as the kernel's majorness says), C M x N row-major; leading dimensions in
 * elements. Set struct_size = sizeof(tilec_gemm_args); fields added later
 * take their defaults (0) for callers compiled against an older header. */
typedef struct tilec_gemm_args {
  size_t struct_size;
  uint64_t a, b, c; /* CUdeviceptr */
  int64_t m, n, k;
  int64_t lda, ldb, ldc;
  float alpha, beta;
  /* API 2: the vectors the kernel's epilogue ops read (`epilogue bias(col)
   * relu -> store`): bias in C's dtype (or the type `bias(col, f32)`
   * names), scale in f32, N elements for (col) (N/2 after swiglu), M for
   * (row); 0 when the kernel has no such op. */
  uint64_t bias, scale;
  /* API 4: the `residual` op's tensor, C's shape (M x N, or M x N/2 with
   * swiglu) and dtype, row-major with leading dimension ldr (elements);
   * 0 and 0 when the kernel has no residual op. */
  uint64_t residual;
  int64_t ldr;
  /* API 5: a batched kernel's (`a : bf16[B, M, K]`) batch count (0 and 1:
   * one GEMM) and the elements between consecutive batches of A, B and C
   * (0 broadcasts an operand; an operand declared without the batch extent
   * takes 0). An unbatched kernel takes batch 0 or 1 and strides 0. */
  int64_t batch;
  int64_t stride_a, stride_b, stride_c;
  /* API 6: a block-scaled fp8 kernel's scales (`scale a f32 block(1, 128)`,
   * `scale b f32 block(128, 128)`): sfa f32[M, ceil(K / 128)] and sfb
   * f32[ceil(N / 128), ceil(K / 128)], row-major, 4-byte aligned; 0 for a
   * kernel without block scales (tilec_kernel_operand_info.block_scaled). */
  uint64_t sfa, sfb;
  /* API 7: a grouped kernel's (tilec_kernel_operand_info.group_kind) group
   * count G (1 to 65535) and its device tensor; B is then the G dense
   * N x ldb matrices [G, N, K] and SFB f32[G, ceil(N / 128), ceil(K / 128)].
   *   contiguous: A [M, K], C [M, N]; group_index an int32[M], the group of
   *     each row of A, -1 for padding (each group starting on a multiple
   *     of the tile's BM rows); group_rows 0.
   *   masked: m is the rows per group (Mmax): A [G, M, K], C [G, M, N]
   *     (groups M x lda and M x ldc elements apart), SFA f32[G, M,
   *     ceil(K / 128)]; group_rows an int32[G], the valid
   *     rows of each group (read on the device: graph-capturable);
   *     group_index 0.
   * Both 4-byte aligned; beta must be 0. An ungrouped kernel takes groups
   * 0 or 1 and null tensors. tilec_kernel_grid_batched with batch = G
   * gives a masked kernel's grid. */
  int64_t groups;
  uint64_t group_index, group_rows;
  /* API 12: a quantized weight kernel's (tilec_kernel_operand_info.
   * weight_group != 0) group scales sb, [ceil(K / G), N] row-major in A's
   * type, and with zero points (weight_zeros) zb, u8 [ceil(K / G), N]
   * row-major, both 16-byte aligned; b then holds the packed codes with
   * ldb = K. 0 for other kernels. */
  uint64_t sb, zb;
  /* API 16: the epilogue ops' operands by role, num_operands entries (NULL
   * and 0: none): the roles of bias, scale, residual and ldr above and of
   * any op the table gains later, with no new field. A role the table does
   * not have, or one given twice (here and in its field above, or twice
   * here), is refused by name. */
  const tilec_epilogue_operand *operands;
  size_t num_operands;
} tilec_gemm_args;

/* Loads \p kernel into the current context. \p sm_count sizes a persistent
 * kernel's grid (0: one CTA per tile). */
TILEC_API tilec_status tilec_launcher_create(tilec_kernel kernel,
                                             unsigned sm_count,
                                             tilec_launcher *out);
TILEC_API void tilec_launcher_destroy(tilec_launcher launcher);
/* Checks \p args against the kernel (TILEC_ERROR_LAUNCH_ARGUMENT naming the
 * argument and what is legal) and launches on \p stream (a CUstream; NULL:
 * the default stream). Asynchronous. */
TILEC_API tilec_status tilec_launch(tilec_launcher launcher,
                                    const tilec_gemm_args *args, void *stream);

/*===-- API 3: prepared launches, graphs, the heuristic, descriptors ------===*/

/* Everything tilec_launch does except the launch: checks \p args, encodes
 * the tensor maps and allocates the split-K workspace this M x N needs.
 * Call it (or launch once) outside CUDA graph capture for every shape a
 * captured launch will use: allocation is not allowed while capturing. A
 * launcher keeps its last few prepared problems (keyed on every argument
 * and the stream), so launching one of them again is one driver call. Each
 * launch makes the launcher's context (the one current at
 * tilec_launcher_create) current for its duration when the calling thread
 * has another or none. */
TILEC_API tilec_status tilec_launch_prepare(tilec_launcher launcher,
                                            const tilec_gemm_args *args,
                                            void *stream);
/* Bytes of split-K workspace and tile counters the launcher allocates for
 * an M x N problem (0 for a kernel that needs none). */
TILEC_API uint64_t tilec_kernel_workspace_bytes(tilec_kernel kernel, int64_t m,
                                                int64_t n);

/* The config codegen's sm_90a heuristic picks for C (M x N) = A B^T with
 * K-deep operands on \p sms SMs (0: 132), in the .tile language's terms
 * where it has them. */
typedef struct tilec_sm90_choice {
  size_t struct_size;          /* sizeof(tilec_sm90_choice) */
  unsigned bm, bn, bk, stages; /* `tile (BM, BN, BK)`, `stages` */
  int swap_ab;                 /* `schedule swap_ab` */
  unsigned split_k;            /* `split_k(S)`; 1: no split */
  int split_k_cluster;         /* splits reduced in a cluster (else global) */
  int persistent;              /* `schedule persistent` */
  unsigned cluster_m;          /* `cluster(2)` */
  unsigned ctas_per_sm;        /* no .tile word: occupancy target */
  unsigned cluster_n; /* `cluster_n(2)`: 1x2, sharing A; a library before
                        it returns a struct_size without it */
} tilec_sm90_choice;
TILEC_API tilec_status tilec_sm90_choose(int64_t m, int64_t n, int64_t k,
                                         unsigned sms, tilec_sm90_choice *out);
/* The same for a block-scaled fp8 GEMM (e4m3, `scale a f32 block(1, 128)`,
 * `scale b f32 block(128, 128)`, bf16 C; API 8): the tile measured fastest
 * on the H100 for the shape (bk is 128 elements of e4m3). */
TILEC_API tilec_status tilec_sm90_choose_block_scaled(int64_t m, int64_t n,
                                                      int64_t k, unsigned sms,
                                                      tilec_sm90_choice *out);
/* The same for the SFA layout the caller has (API 10): sfa_m_major != 0 for
 * `scale a f32 block(1, 128) major(M)`, f32[ceil(K/128), M] (DeepGEMM's),
 * where large M takes the 256 x 128 tile with staged scales. */
TILEC_API tilec_status tilec_sm90_choose_block_scaled_sfa(
    int64_t m, int64_t n, int64_t k, unsigned sms, int sfa_m_major,
    tilec_sm90_choice *out);

/* Shared-memory matrix descriptors, as `tilec desc` derives them. */
typedef struct tilec_descriptor_impl *tilec_descriptor;
typedef struct tilec_desc_request {
  size_t struct_size;    /* sizeof(tilec_desc_request) */
  const char *arch;      /* "sm_90a" or "sm_100a" */
  const char *dtype;     /* "bf16", "f16", "tf32", "e4m3", ... */
  const char *major;     /* "K" or "MN" */
  const char *layout;    /* the smem tile, e.g. "tile_to_shape(K_SW128<bf16>,
                            (128,64))" */
  int64_t mma_mn, mma_k; /* the MMA operand's rows and K, e.g. 64 x 16 */
  uint64_t base;         /* shared-memory byte address of the tile */
} tilec_desc_request;
typedef struct tilec_descriptor_fields {
  size_t struct_size;
  uint64_t desc;                    /* the encoded 64-bit descriptor */
  unsigned layout_type;             /* encoded swizzle mode */
  const char *swizzle;              /* "none", "SW32", "SW64", "SW128" */
  uint64_t start_address, lbo, sbo; /* bytes */
  unsigned base_offset, version, lbo_mode;
  const char *canonical; /* the canonical layout it matched */
  size_t rows, cols;     /* subtiles: MN down, K across */
} tilec_descriptor_fields;
/* Derives the descriptor; a bad arch, dtype or major is
 * TILEC_ERROR_INVALID_ARGUMENT, a layout that matches no canonical form
 * TILEC_ERROR_LAYOUT, each with what would be legal. */
TILEC_API tilec_status tilec_desc(const tilec_desc_request *req,
                                  tilec_descriptor *out);
TILEC_API void tilec_descriptor_destroy(tilec_descriptor desc);
/* The fields, owned by the descriptor. */
TILEC_API const tilec_descriptor_fields *
tilec_descriptor_get(tilec_descriptor desc);
/* The report `tilec desc` prints (fields, canonical form, offsets table). */
TILEC_API const char *tilec_descriptor_report(tilec_descriptor desc);
/* Writes min(capacity, rows * cols) subtile start offsets in bytes, row
 * by row. */
TILEC_API size_t tilec_descriptor_offsets(tilec_descriptor desc, int64_t *out,
                                          size_t capacity);

/*===-- API 11: quantized weights (W4A16; API 15: 8-bit, fp8) ------------===*/

/* The offline packer of the quantized-weight GEMMs, the one `tilec pack`
 * and Python's tilec.pack_weights use (ir/tile/WeightQuant.h). A weight W[N, K]
 * (N % 16 == 0; K % 64 == 0 for 4-bit codes, K % 32 == 0 for 8-bit) is
 * quantized in groups of G = 32, 64 or 128 consecutive k per output
 * channel n. The formats (tilec_weight_format):
 *   format  q, one byte a value       code      packed words  weight
 *   I4      int8 -8..7                q + 8     N * K / 8     q * scale
 *   U4      uint8 0..15               q         N * K / 8     (q - zero) s
 *   I8      int8 -128..127            q + 128   N * K / 4     q * scale
 *   U8      uint8 0..255              q         N * K / 4     (q - zero) s
 *   E4M3    an fp8 e4m3 bit pattern   q         N * K / 4     q * scale
 *   E5M2    an fp8 e5m2 bit pattern   q         N * K / 4     q * scale
 * The buffers:
 *   values  [N, K] row-major, one byte per value as above (int8_t *);
 *   packed  N * K * bits / 32 words, an int32 [N, K * bits / 32] tensor in
 *           an opaque tiled order (the mma.sync B-fragment order in 16 x 64
 *           blocks of 4-bit codes, 16 x 32 of 8-bit; the layouts
 *           `packed_int4(N, K)` and `packed_int8(N, K)` of
 *           tilec_layout_eval map (n, k) to its nibble or byte), not
 *           row-major codes;
 *   scales  [K/G, N] row-major (N contiguous), "bf16", "f16" or "f32";
 *   zeros   uint8 [K/G, N] row-major, at most the largest q (U4, U8 only;
 *           optional).
 * The rules, per group, with round() to nearest even and each scale
 * rounded to its type before q is computed:
 *   I4, I8: symmetric, scale = max |w| / 7 (127), q = round(w / scale);
 *   U4, U8: asymmetric (GPTQ's rule), lo = min(min w, 0), hi = max(max w,
 *           0), scale = (hi - lo) / 15 (255), zero = round(-lo / scale),
 *           q = round(w / scale) + zero;
 *   E4M3, E5M2: scale = max |w| / 448 (57344), q = w / scale rounded to
 *           the fp8 format, saturated at its largest finite value;
 * q clamped to the format's range; an all-zero group gets scale 1, q = 0.
 * Bad extents, groups, formats or values are TILEC_ERROR_INVALID_ARGUMENT
 * with the numbers and what is legal in tilec_last_error(). */
typedef enum tilec_weight_format {
  TILEC_WEIGHT_I4 = 0,   /* signed -8..7, stored as q + 8 */
  TILEC_WEIGHT_U4 = 1,   /* unsigned 0..15, optional zero points */
  TILEC_WEIGHT_I8 = 2,   /* API 15: signed -128..127, stored as q + 128 */
  TILEC_WEIGHT_U8 = 3,   /* API 15: unsigned 0..255, optional zero points */
  TILEC_WEIGHT_E4M3 = 4, /* API 15: fp8 e4m3 (fn), largest finite 448 */
  TILEC_WEIGHT_E5M2 = 5  /* API 15: fp8 e5m2, largest finite 57344 */
} tilec_weight_format;

/* API 15: the packer for every format (\p format a tilec_weight_format).
 * TILEC_OK when an [n, k] weight of \p format in groups of \p group can be
 * packed; otherwise the error says which extent and what is legal. */
TILEC_API tilec_status tilec_check_weights(int64_t n, int64_t k, int64_t group,
                                           int format);
/* Quantizes \p weights (float [n, k]) into \p values (n * k bytes),
 * \p scales (k / group * n elements of \p scale_dtype) and, for U4 and U8,
 * \p zeros (k / group * n bytes; NULL for the other formats). */
TILEC_API tilec_status tilec_quantize_weights(
    const float *weights, int64_t n, int64_t k, int64_t group, int format,
    const char *scale_dtype, int8_t *values, void *scales, uint8_t *zeros);
/* Packs \p values ([n, k], one byte each) into \p packed (n * k * bits / 32
 * words). */
TILEC_API tilec_status tilec_pack_weights(const int8_t *values, int64_t n,
                                          int64_t k, int format,
                                          int32_t *packed);
/* The inverse: the values of \p packed (n * k * bits / 32 words) into
 * \p values (n * k bytes). */
TILEC_API tilec_status tilec_unpack_weights(const int32_t *packed, int64_t n,
                                            int64_t k, int format,
                                            int8_t *values);
/* The dequantized weight value(q) * scale ((q - zero) * scale for U4, U8)
 * as float [n, k] in \p out; \p zeros may be NULL (U4, U8 without zero
 * points; always NULL for the other formats). */
TILEC_API tilec_status tilec_dequantize_weights(const int8_t *values, int64_t n,
                                                int64_t k, int64_t group,
                                                int format, const void *scales,
                                                const char *scale_dtype,
                                                const uint8_t *zeros,
                                                float *out);

/* The 4-bit spellings (API 11), kept for callers built against them: the
 * functions above with \p format TILEC_INT4_I4 or TILEC_INT4_U4 (an 8-bit
 * format is refused; tilec_check_int4_weights checks for I4). */
typedef enum tilec_int4_format {
  TILEC_INT4_I4 = 0, /* TILEC_WEIGHT_I4 */
  TILEC_INT4_U4 = 1  /* TILEC_WEIGHT_U4 */
} tilec_int4_format;
TILEC_API tilec_status tilec_check_int4_weights(int64_t n, int64_t k,
                                                int64_t group);
TILEC_API tilec_status tilec_quantize_int4_weights(
    const float *weights, int64_t n, int64_t k, int64_t group, int format,
    const char *scale_dtype, int8_t *values, void *scales, uint8_t *zeros);
TILEC_API tilec_status tilec_pack_int4_weights(const int8_t *values, int64_t n,
                                               int64_t k, int format,
                                               int32_t *packed);
TILEC_API tilec_status tilec_unpack_int4_weights(const int32_t *packed,
                                                 int64_t n, int64_t k,
                                                 int format, int8_t *values);
TILEC_API tilec_status tilec_dequantize_int4_weights(
    const int8_t *values, int64_t n, int64_t k, int64_t group, int format,
    const void *scales, const char *scale_dtype, const uint8_t *zeros,
    float *out);

/*===-- API 13: `tilec tune` ---------------------------------------------===*/

/* `tilec tune` (API 13): times the variants of what each kernel of
 * \p source (\p len bytes) leaves to the compiler on the GPU and remembers
 * the fastest. \p options_json is a JSON object: "shapes" (required,
 * "M,N,K[;M,N,K...]"), "kernel", "arch", "vary" ("tile,stages,schedule,
 * store" or "all"), "budget_s", "dry_run", "seed", "remember". *out_json
 * is the report `tilec tune --json` prints, valid on this thread until the
 * next tilec_tune. Without a GPU (and not a dry run) TILEC_ERROR_RUNTIME;
 * a bad option TILEC_ERROR_INVALID_ARGUMENT; a program error
 * TILEC_ERROR_COMPILE. */
TILEC_API tilec_status tilec_tune(const char *source, size_t len,
                                  const char *options_json,
                                  const char **out_json);
/* The remembered winner of kernel \p kernel of \p source for an M x N x K
 * problem on the current GPU (the same program, kernel, shape bucket,
 * target and device): *out_source is the program's Tile IR with the
 * winner's items written in (compile it with tilec_compile) and *out_note
 * (when not null) says what was tuned; both NULL when nothing matches.
 * Valid on this thread until the next call. */
TILEC_API tilec_status tilec_tuned_source(const char *source, size_t len,
                                          const char *kernel, int64_t m,
                                          int64_t n, int64_t k,
                                          const char **out_source,
                                          const char **out_note);

/*===-- API 14: the programs tilec.gemm compiles -------------------------===*/

/* What a caller that writes no tile has (API 14). */
typedef struct tilec_gemm_program_request {
  size_t struct_size;  /* sizeof(tilec_gemm_program_request) */
  const char *arch;    /* "sm_90a" or "sm_80" */
  const char *dtype;   /* A's and B's: "bf16", "f16", "tf32", "e4m3", "e5m2" */
  const char *a_major; /* "K" or "M" (NULL: "K") */
  const char *b_major; /* "K" or "N" (NULL: "K") */
  int64_t m, n, k;     /* C (M x N) = A (M x K) B^T */
  unsigned sms;        /* the SMs the rules count (0: 132) */
  int block_scaled;    /* e4m3 with `scale a f32 block(1, 128)` and `scale b
                          f32 block(128, 128)`, bf16 C, sm_90a, K-major */
  int sfa_m_major;     /* block_scaled: the caller's SFA is M-major */
  int tuned;           /* nonzero: the winner `tilec tune` remembered for
                          this program and shape on the current GPU, when
                          one matches */
  /* API 17: a quantized weight B [N, K] (K-major, packed by
     tilec_pack_weights) against `dtype` activations (bf16 or f16), with
     group scales of dtype: the W4A16 / W8A16 program python's
     tilec.gemm(a, w) runs. */
  const char *weight;  /* NULL: none; "u4", "i4", "u8", "i8", "e4m3", "e5m2" */
  unsigned group;      /* K per scale: 32, 64 or 128 (0: 128) */
  int zeros;           /* u8 zero points (u4 and u8 only) */
  unsigned tile[5];    /* BM, BN, BK, stages, split_k (0: 1) of the weight
                          program instead of the rules' (tile[0] 0: the
                          rules'); M, N, K then only need to be positive */
} tilec_gemm_program_request;
/* The .tile program python's tilec.gemm compiles for \p request: the
 * tile, stages, instruction and schedule of the rules
 * (tilec_sm90_choose / tilec_sm90_choose_block_scaled_sfa; for a weight,
 * codegen/Sm80LibraryItems.cpp and Sm90LibraryItems.cpp), or with
 * request->tuned the remembered winner of `tilec tune` for it, where one
 * matches. *out_source (compile it with tilec_compile) is valid on this
 * thread until the next tilec_gemm_program call; *out_note (when not null) says
 * what was tuned, or is NULL for the rules' program. Bad fields
 * TILEC_ERROR_INVALID_ARGUMENT, naming the field and what is legal. */
TILEC_API tilec_status
tilec_gemm_program(const tilec_gemm_program_request *request,
                   const char **out_source, const char **out_note);

#ifdef __cplusplus
}
#endif

#endif /* TILEC_TILEC_H */
