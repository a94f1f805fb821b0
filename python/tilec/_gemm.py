"""tilec.gemm(a, b, out=None): C = A @ B on torch tensors, as torch.matmul
computes it, with a tilec kernel chosen for the shapes, dtypes, majorness and
the current device's arch.

The program is .tile source the library writes (program_source, through
tilec_gemm_program: compiler/GemmProgram.h, one home for it and the C API):
  - sm_90a: the tile, stages, instruction and schedule (swap_ab, split_k)
    that codegen's heuristic (codegen/Sm90Heuristic.h) picks for (M, N, K)
    on the device's SMs, with its
    persistent grid and 2x1 clusters (`schedule persistent cluster(2)`; the
    clusters only where the multicast B-role tile is K-major); its
    CTAs-per-SM target has no .tile word and is left at 1.
  - sm_80 (and other GPUs from compute capability 8.0): gemm_sm80.tile's
    128 x 128 x 32, 4 stages.
Each program is compiled once per process (a dict) and once per tilec build
across processes (the disk cache, ~/.cache/tilec).

a is M x K, b is K x N (torch.matmul's convention); a row-major a is K-major,
a transposed view (a.t() of a contiguous K x M) M-major; b = w.t() of a
contiguous N x K weight is K-major, a row-major b N-major. Other strides are
copied to contiguous first. float32 inputs run as tf32 (K-major only: a
transposed f32 operand is copied); float8 inputs give bf16.

With sfa= and sfb= (block_scaled_impl) the GEMM is block-scaled fp8 in
DeepGEMM's format: the tile and stages come from codegen's block-scaled
rule (sm90ChooseBlockScaledConfig), measured on the H100 and H200 (issue
26).

With b a PackedWeights (tilec.pack_weights: a 4-bit or 8-bit weight,
issue 28; w4a16_impl) the GEMM is a @ dequant(w).T in a's dtype (bf16 or
f16) with the W4A16 / W8A16 program of w4a16_source: on Hopper the sm_90a
kernel (RS wgmma, w4a16_tile_sm90; w4a16_arch), else sm_80 code
(w4a16_tile; it runs on every GPU from 8.0), the group scales and zero
points passed to the launcher as sb and zb.
"""
import ctypes
import os
import threading

from . import _lib
from ._lib import lib
# The code width of each weight format (ir/tile/WeightQuant.h) and the formats
# that take zero points: the packer's tables.
from ._pack import _BITS as _WEIGHT_BITS, _ZEROS

_OUT_DTYPE = {"bf16": "bf16", "f16": "f16", "tf32": "f32", "e4m3": "bf16",
              "e5m2": "bf16"}
_ELEMENT = {"bfloat16": "bf16", "float16": "f16", "float32": "tf32",
            "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}
_BYTES = {"bf16": 2, "f16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1}

_kernels = {}
_kernels_lock = threading.Lock()


def arch_of(capability):
    """The tilec target of a compute capability (major, minor)."""
    override = os.environ.get("TILEC_GEMM_ARCH")
    if override:
        return override
    major, minor = capability
    if (major, minor) == (9, 0):
        return "sm_90a"
    if major >= 8:
        return "sm_80"
    raise ValueError(f"compute capability {major}.{minor}: tilec needs 8.0 "
                     "or newer")


def sm90_choice(m, n, k, sms=0):
    """codegen's sm_90a config for the shape, as a dict."""
    out = _lib.Sm90Choice()
    out.struct_size = ctypes.sizeof(out)
    if lib.tilec_sm90_choose(m, n, k, sms, ctypes.byref(out)) != _lib.OK:
        raise ValueError(_lib.last_error())
    return {f: getattr(out, f) for f, _ in _lib.Sm90Choice._fields_[1:]}


def gemm_program(arch, dtype, m, n, k, sms=0, a_major="K", b_major="K",
                 block_scaled=False, sfa_m_major=False, tuned=False):
    """(source, note) of the program tilec_gemm_program writes
    (compiler/GemmProgram.h): the rules' program, or with tuned=True the
    winner `tilec tune` remembered for it on this GPU (note then says what
    was tuned, else None). Raises ValueError for a bad argument."""
    req = _lib.GemmProgramRequest()
    req.struct_size = ctypes.sizeof(req)
    req.arch, req.dtype = arch.encode(), dtype.encode()
    req.a_major, req.b_major = a_major.encode(), b_major.encode()
    req.m, req.n, req.k, req.sms = m, n, k, sms
    req.block_scaled, req.sfa_m_major = int(block_scaled), int(sfa_m_major)
    req.tuned = int(tuned)
    out, note = ctypes.c_char_p(), ctypes.c_char_p()
    if lib.tilec_gemm_program(ctypes.byref(req), ctypes.byref(out),
                              ctypes.byref(note)) != _lib.OK:
        raise ValueError(_lib.last_error())
    return out.value.decode(), note.value.decode() if note.value else None


def program_source(arch, a_type, b_type, a_major, b_major, m, n, k, sms=0):
    """(.tile source, cache key) of the GEMM program for these operands
    (gemm_program's). a_major is "K" or "M", b_major "K" or "N"."""
    if a_type != b_type:
        raise ValueError(f"a, b: types {a_type} and {b_type} (legal: one "
                         "type)")
    if arch not in ("sm_80", "sm_90a"):
        raise ValueError(f"tilec.gemm: arch {arch} (legal: sm_80, sm_90a)")
    source, _ = gemm_program(arch, a_type, m, n, k, sms, a_major, b_major)
    return source, (arch, a_type, a_major, b_major, source)


def sm90_block_scaled_choice(m, n, k, sms=0, sfa_m_major=False):
    """codegen's block-scaled fp8 config for the shape and SFA layout, as a
    dict (sm90ChooseBlockScaledConfig, through
    tilec_sm90_choose_block_scaled_sfa)."""
    out = _lib.Sm90Choice()
    out.struct_size = ctypes.sizeof(out)
    if lib.tilec_sm90_choose_block_scaled_sfa(m, n, k, sms, int(sfa_m_major),
                                              ctypes.byref(out)) != _lib.OK:
        raise ValueError(_lib.last_error())
    return {f: getattr(out, f) for f, _ in _lib.Sm90Choice._fields_[1:]}


def block_scaled_source(m, n, k, sms=0, sfa_m_major=False):
    """(.tile source, cache key) of the block-scaled fp8 program for the
    shape: e4m3 A (M x K) and B (N x K), both K-major, DeepGEMM's scales
    (SFA f32[M, ceil(K/128)], or with sfa_m_major its M-major form, a K
    block's scales contiguous, where that differs: M > 1 and more than one
    K block; SFB f32[ceil(N/128), ceil(K/128)]), bf16 C, with the tile and
    stages codegen chooses (gemm_program's). At M <= 128 (the decode tiles)
    M, N and K are fixed in the program, so that `schedule auto` sees the
    tile's CTAs and keeps A and B as written; above, they are run-time
    arguments."""
    source, _ = gemm_program("sm_90a", "e4m3", m, n, k, sms,
                             block_scaled=True, sfa_m_major=sfa_m_major)
    return source, ("fp8_block", source)


def _compiled(source, key):
    from ._api import compile
    kernel = _kernels.get(key)
    if kernel is None:
        with _kernels_lock:
            kernel = _kernels.get(key)
            if kernel is None:
                kernel = _kernels[key] = compile(source)
    return kernel


def tuned_source(source, m, n, k):
    """(source, note) of the winner `tilec tune` (or tilec.tune_gemm)
    remembered for the one kernel of source at M x N x K on the current GPU
    (its shape bucket: M rounded up to a power of two), or (None, None)
    (the C API's tilec_tuned_source; an error there means the rules' pick).
    """
    text = source.encode()
    out, note = ctypes.c_char_p(), ctypes.c_char_p()
    status = lib.tilec_tuned_source(text, len(text), b"", m, n, k,
                                    ctypes.byref(out), ctypes.byref(note))
    if status != _lib.OK or not out.value:
        return None, None
    return out.value.decode(), note.value.decode()


def _tuned_or_written(source, key, m, n, k):
    """The compiled Kernel of the program source (cached under key), or of
    the winner `tilec tune` remembered for it at M x N x K (kernel.tuned
    then says which)."""
    tuned, note = tuned_source(source, m, n, k)
    if tuned is None:
        return _compiled(source, key)
    from ._api import CompileError
    try:
        kernel = _compiled(tuned, key + ("tuned", tuned))
    except CompileError:
        # A remembered variant this build refuses: the program as written.
        return _compiled(source, key)
    kernel.tuned = note
    return kernel


def kernel_for(arch, a_type, b_type, a_major, b_major, m, n, k, sms=0):
    """The compiled Kernel of program_source's program (cached), or of the
    winner `tilec tune` remembered for it at this shape."""
    source, key = program_source(arch, a_type, b_type, a_major, b_major, m,
                                 n, k, sms)
    return _tuned_or_written(source, key, m, n, k)


def _torch():
    import torch
    return torch


def _device_facts(device):
    torch = _torch()
    index = device.index if device.index is not None else \
        torch.cuda.current_device()
    facts = _facts.get(index)
    if facts is None:
        props = torch.cuda.get_device_properties(index)
        facts = _facts[index] = (arch_of((props.major, props.minor)),
                                 props.multi_processor_count)
    return facts


_facts = {}


def _operand_major(t, k_dim):
    """'K' when t's K dim (k_dim) has unit stride, 'MN' when the other has,
    None when neither or when the other stride (the leading dimension) is
    not whole 16-byte rows, which the kernels cannot read."""
    other = 1 - k_dim
    row_elements = 16 // t.element_size()
    if (t.stride(k_dim) == 1 or t.shape[k_dim] == 1) and \
            t.stride(other) % row_elements == 0:
        return "K"
    if (t.stride(other) == 1 or t.shape[other] == 1) and \
            t.stride(k_dim) % row_elements == 0:
        return "MN"
    return None


# (dtype, a layout, b layout, M, N, K, device) -> (kernel, copy a, copy b):
# the eager fast path, so that a repeated call costs dictionary lookups.
_plans = {}


# (M, N, K, SFA given M-major, SMs, device) -> (kernel, whether it reads
# the SFA M-major): the block-scaled eager path's cache (the tuned lookup
# parses the program).
_block_plans = {}


def forget_chosen_kernels():
    """Drops the eager paths' shape -> kernel choices (the compiled kernels
    stay cached by program), so that the next tilec.gemm of a shape looks
    up the tune cache again: tilec.tune_gemm and tune_w4a16 call it."""
    _plans.clear()
    _block_plans.clear()
    _w4_plans.clear()


def block_scaled_impl(a, b, sfa, sfb, out=None):
    """tilec.gemm(a, b, sfa=, sfb=): C = (A * SFA) @ (B * SFB) in bf16 for
    e4m3 a (M x K, row-major) and b (K x N: the transpose view of a
    row-major N x K weight), SFA f32[M, ceil(K/128)] and SFB
    f32[ceil(N/128), ceil(K/128)] (DeepGEMM's 1 x 128 / 128 x 128 scales,
    row-major; an SFA with strides (1, M), as torch's scaled_mm and
    DeepGEMM take it, runs the major(M) program without a copy), on sm_90a;
    the program is block_scaled_source's."""
    torch = _torch()
    for name, t in (("a", a), ("b", b), ("sfa", sfa), ("sfb", sfb)):
        if not isinstance(t, torch.Tensor) or t.dim() != 2 or not t.is_cuda:
            raise ValueError(f"{name}: tilec.gemm with block scales takes "
                             "2-D CUDA torch tensors")
    if a.dtype != torch.float8_e4m3fn or b.dtype != torch.float8_e4m3fn:
        raise ValueError(f"a, b: dtypes {a.dtype} and {b.dtype} (legal with "
                         "sfa/sfb: float8_e4m3fn both)")
    m, k = a.shape
    if b.shape[0] != k:
        raise ValueError(f"a, b: shapes {tuple(a.shape)} and "
                         f"{tuple(b.shape)} do not multiply (legal: b with "
                         f"{k} rows)")
    n = b.shape[1]
    kb, nb = -(-k // 128), -(-n // 128)
    for name, t, shape in (("sfa", sfa, (m, kb)), ("sfb", sfb, (nb, kb))):
        if t.dtype != torch.float32 or tuple(t.shape) != shape:
            raise ValueError(f"{name}: {t.dtype} {tuple(t.shape)} (legal: "
                             f"float32 {shape})")
    arch, sms = _device_facts(a.device)
    if arch != "sm_90a":
        raise ValueError(f"a: on {arch} (legal with sfa/sfb: sm_90a)")
    given_m_major = tuple(sfa.stride()) == (1, m)
    key = (m, n, k, given_m_major, sms, a.get_device())
    plan = _block_plans.get(key)
    if plan is None:
        source, cache_key = block_scaled_source(m, n, k, sms, given_m_major)
        # The program reads the M-major SFA only where the layouts differ.
        plan = _block_plans[key] = (
            _tuned_or_written(source, cache_key, m, n, k),
            "major(M)" in source)
    kernel, sfa_m_major = plan
    w = b.t()  # the kernel's B, N x K
    if not a.is_contiguous():
        a = a.contiguous()
    if not w.is_contiguous():
        w = w.contiguous()
    if out is None:
        out = torch.empty((m, n), dtype=torch.bfloat16, device=a.device)
    return kernel(a, w, out, sfa=sfa if sfa_m_major else sfa.contiguous(),
                  sfb=sfb.contiguous())


def gemm_impl(a, b, out=None):
    """The eager implementation behind tilec.gemm and the tilec::gemm op."""
    torch = _torch()
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        raise ValueError("a, b: tilec.gemm takes torch tensors")
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"a, b: shapes {tuple(a.shape)} and {tuple(b.shape)}"
                         " (legal: 2-D, a M x K and b K x N)")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"a, b: shapes {tuple(a.shape)} and {tuple(b.shape)}"
                         f" do not multiply (legal: b with {a.shape[1]} rows)")
    if a.dtype != b.dtype:
        raise ValueError(f"a, b: dtypes {a.dtype} and {b.dtype} (legal: one "
                         "dtype)")
    m, k = a.shape
    n = b.shape[1]
    key = (a.dtype, a.stride(), b.stride(), m, n, k, a.get_device())
    plan = _plans.get(key)
    if plan is None:
        plan = _plans[key] = _plan(a, b)
    kernel, copy_a, copy_b = plan
    if copy_a:
        a = a.contiguous()
    if copy_b:
        b = b.t().contiguous().t()
    if out is None:
        out = torch.empty((m, n), dtype=kernel._out_dtype, device=a.device)
    # The kernel's B is N x K: b (K x N) is its transpose view.
    return kernel(a, b, out)


def _plan(a, b):
    """The kernel for a @ b and whether a (to row-major) or b (to the
    transpose of a row-major N x K) must be copied first."""
    torch = _torch()
    a_type = _ELEMENT.get(str(a.dtype).replace("torch.", ""))
    if a_type is None:
        raise ValueError(f"a: dtype {a.dtype} (legal: bfloat16, float16, "
                         "float32 (as tf32), float8_e4m3fn, float8_e5m2)")
    if not a.is_cuda or not b.is_cuda:
        raise ValueError(f"a, b: on {a.device} and {b.device} (legal: CUDA "
                         "tensors)")
    m, k = a.shape
    n = b.shape[1]
    a_major = _operand_major(a, 1)
    b_major = _operand_major(b, 0)
    arch, sms = _device_facts(a.device)
    only_k = _BYTES[a_type] != 2  # tf32 and fp8 are K-major only
    if arch == "sm_80" and a_type != "bf16" and a_type != "f16":
        raise ValueError(f"a: dtype {a.dtype} on {arch} (legal: bfloat16, "
                         "float16; tf32 and fp8 need sm_90a)")
    copy_a = a_major is None or (only_k and a_major != "K")
    copy_b = b_major is None or (only_k and b_major != "K")
    kernel = kernel_for(arch, a_type, a_type,
                        "K" if copy_a or a_major == "K" else "M",
                        "K" if copy_b or b_major == "K" else "N", m, n, k,
                        sms)
    kernel._out_dtype = getattr(torch, {"bf16": "bfloat16",
                                        "f16": "float16",
                                        "f32": "float32"}[_OUT_DTYPE[a_type]])
    return kernel, copy_a, copy_b


# Quantized weights (W4A16 and W8A16, issue 28): tilec.gemm(a, w) with w a
# PackedWeights of 4-bit (i4, u4) or 8-bit (i8, u8, e4m3, e5m2) codes; the
# w4a16_* names below serve both widths. Two kernels: sm_80 code
# (codegen/Sm80WeightDequant: cp.async, mma.sync, dequantization in
# registers), which runs on every GPU from compute
# capability 8.0, and on Hopper the sm_90a one (codegen/Sm90WeightDequant:
# TMA, the weight dequantized into RS wgmma A fragments, swapped);
# w4a16_arch picks.

_W4_TYPES = {"bfloat16": "bf16", "float16": "f16"}


def w4a16_tile(m, n, k, group, sms=132, bits=4):
    """(BM, BN, BK, stages, split_k) of the W4A16 (W8A16: `bits` 8)
    program for an M x N x K problem with groups of `group` k on `sms`
    SMs: BM the smallest of 16, 32, 64 that holds M; BN 128 with BK 256
    for K >= 8192 (N a multiple of 128), BN 128 with BK 128 where BN 64
    would make more than two waves, else BN 64 with BK 128 (64 when K is
    not a multiple of 128); at BM 64 BK 128, or BN 256 x BK 256 (BK 128
    for 8-bit codes) where those tiles fill half to one wave; 4
    stages (fewer where 4 would not fit); and where the output tiles do not
    fill the SMs, K split evenly into one wave of at most 3 CTAs per SM (1
    at BM 64).
    Measured on the H200 (bench/W4A16Results.md): the kernel issues about
    0.16 instructions per weight, so the wider tile (fewer A fragment and
    copy instructions per weight) pays where K is long, and the split is
    what fills the SMs at decode N."""
    bm = 16 if m <= 16 else 32 if m <= 32 else 64
    wide = k >= 8192 and n % 128 == 0 and k % 256 == 0
    bn = 128 if wide else 64
    bk = 256 if wide else 128 if k % 128 == 0 else 64
    # `tilec tune` over the 24 shapes (H200, session 19,
    # bench/results/tune_sweep_w4a16_h200_session19.log): where BN 64
    # tiles make more than two waves (N = 28672 at K = 4096) BN 128 (31.4
    # -> 28.7 us at M = 16); at BM 64 BK 128 (K 8192-28672: within 4% of
    # BK 256, which leaves 3 stages), and BN 256 x BK 256 where its tiles
    # fill half to one wave (64 x 28672 x 4096: 64.5 us against 81.3);
    # the splits below keep BM 64 at one CTA per SM.
    tiles64 = -(-m // bm) * -(-n // 64)
    if not wide and tiles64 > 2 * sms and n % 128 == 0 and k % 128 == 0:
        bn, bk = 128, 128
    if bm == 64 and k % 128 == 0:
        bk = 128
        if n % 256 == 0 and k % 256 == 0 and \
                sms // 2 <= -(-m // 64) * (n // 256) <= sms:
            # 8-bit codes: BK 128 (two stages of 256 x 256 would not fit).
            bn, bk = 256, 256 if bits == 4 else 128
    # Legality (VerifyWeightQuant): BK a multiple of 64, BK and the group
    # nested (one a multiple of the other).
    assert bk % 64 == 0 and (bk % group == 0 or group % bk == 0)
    # 4 stages, or as many as sm_80's 163 KiB hold (BM 64 x BK 256: 3).
    stage_bytes = bm * bk * 2 + bn * bk * bits // 8 + 2 * bn * 3
    stages = max(2, min(4, 160000 // stage_bytes))
    # Split K where the tiles leave SMs idle: the most even splits (a
    # divisor of the k-tiles, each at least 4 of them, at most 16) whose
    # CTAs stay within one wave of at most 3 per SM (fewer where shared
    # memory holds fewer): a second, partial wave cost more than the split
    # gained (8192 x 8192: 5 splits of 16 x 128 x 256, 2 per SM, 29.5 us;
    # 4 splits 20.5 us).
    # At BM 64 the tuner's picks kept one CTA per SM (split 2 where the
    # rule took 4, session 19).
    per_sm = 1 if bm == 64 else 3
    resident = sms * max(1, min(per_sm,
                                227 * 1024 // (stages * stage_bytes)))
    tiles = -(-m // bm) * -(-n // bn)
    split = _one_wave_split(tiles, -(-k // bk), resident)
    return bm, bn, bk, stages, split


def _one_wave_split(tiles, k_tiles, resident):
    """The most even K split of `tiles` output tiles over `k_tiles` k-tiles
    that keeps the CTAs within one wave of `resident`: a divisor of the
    k-tiles, each split at least 4 of them, at most 16 splits; 1 where the
    tiles fill the wave already."""
    if tiles < resident:
        for s in range(min(16, k_tiles // 4), 1, -1):
            if k_tiles % s == 0 and tiles * s <= resident:
                return s
    return 1


def w4a16_arch(device_arch, m, k):
    """The W4A16 / W8A16 program's target on a GPU of `device_arch`: the
    sm_90a kernel (RS wgmma) on Hopper, sm_80 code elsewhere. H200,
    bench/W4A16Results.md (session 21): with two CTAs per SM also under
    split-K the sm_90a kernel is as fast as or faster than the sm_80 one
    on every shape of the issue, M = 1 to 64 (u4 16 x 8192 x 28672: 49.4
    against 52.2 us; at session 20 it lost at M <= 16 with K > 8192).
    `m` and `k` are kept for rules that need them."""
    del m, k
    return "sm_90a" if device_arch == "sm_90a" else "sm_80"


def w4a16_tile_sm90(m, n, k, group, sms=132, bits=4):
    """(BM, BN, BK, stages, split_k) of the sm_90a W4A16 program (RS
    wgmma, swapped: BM weight channels, BN tokens) for an M x N x K
    problem on `sms` SMs: BN the tokens rounded up to 8 (at most 256), BM
    128 (two consumer warpgroups) where its tiles are at least a third of
    the SMs and N a multiple of 128, else 64, BK 64, K split evenly into
    at most one wave where the tiles leave SMs idle (each split at least 4
    k-tiles, at most 16 splits), and the stages of _sm90_w4_stages."""
    bn = min(256, max(8, -(-m // 8) * 8))
    token_tiles = -(-m // bn)
    # H200, bench/W4A16Results.md (sessions 20, 21): BM 128 where its
    # tiles are at least a third of the SMs (6144 and more channels), else
    # 64; two CTAs per SM where they fit, K split into one wave of them
    # where the tiles leave SMs idle.
    bm = 128 if -(-n // 128) * token_tiles >= sms // 3 and n % 128 == 0 \
        else 64
    # 8-bit codes (session 21, e4m3): BM 64 unless its tiles would be
    # more than a wave of two CTAs per SM (14336 x 4096: 21.3 against 23.2
    # us at BM 128; 28672 x 8192: 76.9 against 73.1).
    if bits == 8 and -(-n // 64) * token_tiles <= 2 * sms:
        bm = 64
    bk = 64
    stages, per_sm = _sm90_w4_stages(bm, bn, bits)
    split = _one_wave_split(-(-n // bm) * token_tiles, -(-k // bk),
                            sms * per_sm)
    return bm, bn, bk, stages, split


def _sm90_w4_stages(bm, bn, bits=4):
    """(stages, CTAs per SM) of the sm_90a W4A16 / W8A16 tile BM x BN
    (`bits` the code width): two CTAs where the kernel takes two (codegen's
    sm90WeightCtasPerSm: BM 64 with BN <= 160 or BN <= 32, K split or
    not) with as many stages as leave both in the SM's shared memory, up
    to 16; else one CTA with up to 16 stages."""
    stage = bm * 64 * bits // 8 + bn * 64 * 2 + 2 * bm * 3 // 2 + 16
    staging = (bm // 64) * 2 * 64 * min(bn, 64) * 2
    if (bm == 64 and bn <= 160) or bn <= 32:
        stages = (112 * 1024 - staging - 2048) // stage
        if stages >= 4:
            return min(16, stages), 2
    return max(2, min(16, (220 * 1024 - staging - 2048) // stage)), 1


def w4a16_source(a_type, fmt, group, zeros, tile, arch="sm_80"):
    """(.tile source, cache key) of the W4A16 / W8A16 program: a_type
    ("bf16" or "f16") activations A [M, K] and output C [M, N] in that
    type, the quantized weight b (fmt "u4", "i4", "u8", "i8", "e4m3" or
    "e5m2") with group scales in a_type (and u8 zero points when `zeros`:
    u4 and u8 only), tile (BM, BN, BK, stages[, split_k]); M, N,
    K are run-time arguments. arch "sm_80" (mma.sync, the weight the MMA's
    B: BN tiles N) or "sm_90a" (RS wgmma, the weight the MMA's A, swapped:
    BM tiles N in 64 or 128 channels, BN the tokens, BK 64;
    codegen/Sm90WeightDequant.h)."""
    if a_type not in ("bf16", "f16"):
        raise ValueError(f"a: type {a_type} (legal with a quantized "
                         "weight: bf16, f16)")
    if fmt not in _WEIGHT_BITS:
        raise ValueError(f"w: format {fmt!r} (legal: "
                         + ", ".join(repr(f) for f in _WEIGHT_BITS) + ")")
    if zeros and fmt not in _ZEROS:
        raise ValueError(f"w: {fmt} weights have no zero points (legal: "
                         "zeros only with u4 and u8)")
    if arch not in ("sm_80", "sm_90a"):
        raise ValueError(f"arch: {arch!r} (legal: 'sm_80', 'sm_90a')")
    bm, bn, bk, stages = tile[:4]
    split = tile[4] if len(tile) > 4 else 1
    zero = " zero(u8)" if zeros else ""
    hopper = arch == "sm_90a"
    name = "tilec_w{}a16_{}{}_{}{}_g{}_{}x{}x{}x{}{}".format(
        _WEIGHT_BITS[fmt], "sm90_" if hopper else "", a_type, fmt,
        "z" if zeros else "", group,
        bm, bn, bk, stages, f"_split{split}" if split > 1 else "")
    lines = [f"  arch     {arch}",
             f"  a        : {a_type}[M, K] major(K)",
             f"  b        : {fmt}[N, K] major(K)",
             f"  c        : {a_type}[M, N] major(N)",
             f"  scale b  {a_type} group({group}){zero}",
             "  acc      f32",
             f"  tile     (BM = {bm}, BN = {bn}, BK = {bk})",
             f"  stages   {stages}",
             "  smem a   = auto",
             "  smem b   = auto",
             "  mma      auto",
             "  epilogue " + ("auto" if hopper else "store")]
    schedule = (["swap_ab"] if hopper else []) + (
        [f"split_k({split})"] if split > 1 else [])
    if schedule:
        lines.insert(-1, "  schedule " + " ".join(schedule))
    source = "kernel %s {\n%s\n}\n" % (name, "\n".join(lines))
    key = ("w4a16", a_type, fmt, group, bool(zeros)) + tuple(tile)
    return source, key + (("sm_90a",) if hopper else ())


def w4a16_kernel(a_type, fmt, group, zeros, tile, arch="sm_80"):
    """The compiled Kernel of w4a16_source's program (cached)."""
    return _compiled(*w4a16_source(a_type, fmt, group, zeros, tile, arch))


def _w4a16_check(a, w):
    """(a_type, sms) after checking a against the PackedWeights w; the
    ValueError names the argument and what is legal."""
    torch = _torch()
    if not isinstance(a, torch.Tensor):
        raise ValueError(f"a: {type(a).__name__} (legal: a torch tensor)")
    a_type = _W4_TYPES.get(str(a.dtype).replace("torch.", ""))
    if a_type is None:
        raise ValueError(f"a: dtype {a.dtype} (legal with a quantized "
                         "weight: bfloat16, float16)")
    if a.dim() != 2:
        raise ValueError(f"a: shape {tuple(a.shape)} (legal: 2-D, M x K)")
    if a.shape[1] != w.k:
        raise ValueError(f"a: shape {tuple(a.shape)} does not multiply the "
                         f"weight's (N, K) = {w.shape} (legal: a with "
                         f"{w.k} columns)")
    if not a.is_cuda:
        raise ValueError(f"a: on {a.device} (legal: a CUDA tensor)")
    for name, t in (("w.weight", w.weight), ("w.scales", w.scales),
                    ("w.zeros", w.zeros)):
        if t is not None and t.device != a.device:
            raise ValueError(f"{name}: on {t.device}, a on {a.device} "
                             "(legal: the same device; w.to(a.device))")
    if w.weight.dtype != torch.int32:
        raise ValueError(f"w.weight: dtype {w.weight.dtype} (legal: int32, "
                         "from tilec.pack_weights)")
    if w.scales.dtype != a.dtype:
        raise ValueError(f"w.scales: dtype {w.scales.dtype}, a is {a.dtype} "
                         "(legal: scales in a's dtype; quantize with "
                         "scale_dtype=a.dtype)")
    block_k = 256 // _WEIGHT_BITS[w.fmt]
    if w.n % 16 or w.k % block_k:
        raise ValueError(f"w: (N, K) = {w.shape} (legal: N a multiple of 16 "
                         f"and K of {block_k} for {w.fmt})")
    _, sms = _device_facts(a.device)  # ValueError below 8.0
    return a_type, sms


# (dtype, a strides, M, K, weight format, device) -> kernel: the eager path.
_w4_plans = {}


def w4a16_impl(a, w, out=None, tile=None):
    """tilec.gemm(a, w) for a PackedWeights w: a @ dequant(w).T, M x N in
    a's dtype, with the W4A16 program w4a16_arch picks and its rule's tile;
    a given `tile` (BM, BN, BK, stages) is the sm_80 program's, on every
    GPU."""
    torch = _torch()
    zeros = w.zeros is not None
    tile = tuple(tile) if tile else None
    key = (a.dtype, a.stride(), a.shape, a.device, w.n, w.k, w.fmt, w.group,
           zeros, w.scales.dtype, w.weight.device, tile)
    kernel = _w4_plans.get(key)
    if kernel is None:
        a_type, sms = _w4a16_check(a, w)
        m, k = a.shape
        if tile:
            kernel = w4a16_kernel(a_type, w.fmt, w.group, zeros, tile)
        else:
            arch = w4a16_arch(_device_facts(a.device)[0], m, k)
            rule = w4a16_tile_sm90 if arch == "sm_90a" else w4a16_tile
            source, cache_key = w4a16_source(
                a_type, w.fmt, w.group, zeros,
                rule(m, w.n, k, w.group, sms, _WEIGHT_BITS[w.fmt]), arch)
            kernel = _tuned_or_written(source, cache_key, m, w.n, k)
        _w4_plans[key] = kernel
    if not a.is_contiguous():
        a = a.contiguous()
    if out is None:
        out = torch.empty((a.shape[0], w.n), dtype=a.dtype, device=a.device)
    return kernel(a, w.weight, out, sb=w.scales, zb=w.zeros)
