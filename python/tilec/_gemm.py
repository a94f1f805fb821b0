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
f16) with the W4A16 / W8A16 program gemm_program writes: on Hopper the
sm_90a kernel (RS wgmma; w4a16_arch), else sm_80 code (it runs on every
GPU from 8.0), the group scales and zero
points passed to the launcher as sb and zb.
"""
import ctypes
import os
import re
import threading

from . import _lib
from ._lib import lib
# The code width of each weight format (ir/tile/WeightQuant.h): the packer's
# table.
from ._pack import _BITS as _WEIGHT_BITS

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
                 block_scaled=False, sfa_m_major=False, tuned=False,
                 weight=None, group=128, zeros=False, tile=None):
    """(source, note) of the program tilec_gemm_program writes
    (compiler/GemmProgram.h): the rules' program, or with tuned=True the
    winner `tilec tune` remembered for it on this GPU (note then says what
    was tuned, else None). With weight ("u4", "i4", "u8", "i8", "e4m3",
    "e5m2") the quantized-weight program against dtype activations, group
    scales per `group` K (u8 zero points with zeros), and the tile
    (BM, BN, BK, stages[, split_k]) when given instead of the rules'.
    Raises ValueError for a bad argument."""
    req = _lib.GemmProgramRequest()
    req.struct_size = ctypes.sizeof(req)
    req.arch, req.dtype = arch.encode(), dtype.encode()
    req.a_major, req.b_major = a_major.encode(), b_major.encode()
    req.m, req.n, req.k, req.sms = m, n, k, sms
    req.block_scaled, req.sfa_m_major = int(block_scaled), int(sfa_m_major)
    req.tuned = int(tuned)
    if tile is not None and weight is None:
        raise ValueError("tile: a fixed tile is a weight program's (give "
                         "weight=, e.g. 'u4')")
    if weight is not None:
        req.weight, req.group, req.zeros = weight.encode(), group, int(zeros)
        if tile is not None:
            req.tile[:] = _tile_fields(tile)
    out, note = ctypes.c_char_p(), ctypes.c_char_p()
    if lib.tilec_gemm_program(ctypes.byref(req), ctypes.byref(out),
                              ctypes.byref(note)) != _lib.OK:
        raise ValueError(_lib.last_error())
    return out.value.decode(), note.value.decode() if note.value else None


def _tile_fields(tile):
    """The five tile fields of tilec_gemm_program_request for a tile
    (BM, BN, BK, stages[, split_k]); ValueError names what is wrong."""
    tile = tuple(tile)
    if len(tile) not in (4, 5):
        raise ValueError(f"tile: {tile} (legal: (BM, BN, BK, stages) or "
                         "(BM, BN, BK, stages, split_k))")
    names = ("BM", "BN", "BK", "stages", "split_k")
    for name, v in zip(names, tile):
        low = 0 if name == "split_k" else 1
        if not isinstance(v, int) or not low <= v <= 65536:
            raise ValueError(f"tile: {name} = {v!r} (legal: an integer "
                             f"from {low} to 65536)")
    return list(tile) + [1] * (5 - len(tile))


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


# The weight programs' tile rules and text are compiler/GemmProgram.h's
# (the rows' libraryItems: codegen/Sm80LibraryItems.cpp,
# codegen/Sm90LibraryItems.cpp), asked through tilec_gemm_program; the
# functions below read them back for callers and tests.
_TILE_LINE = re.compile(r"  tile +\(BM = (\d+), BN = (\d+), BK = (\d+)\)\n"
                        r"  stages +(\d+)\n")
_SPLIT_WORD = re.compile(r"split_k\((\d+)\)")


def _tile_of(source):
    """(BM, BN, BK, stages, split_k) written in a weight program."""
    bm, bn, bk, stages = map(int, _TILE_LINE.search(source).groups())
    split = _SPLIT_WORD.search(source)
    return bm, bn, bk, stages, int(split.group(1)) if split else 1


def _rule_tile(arch, m, n, k, group, sms, bits):
    fmt = "u4" if bits == 4 else "u8"  # the rules read the code width
    source, _ = gemm_program(arch, "bf16", m, n, k, sms, weight=fmt,
                             group=group)
    return _tile_of(source)


def w4a16_tile(m, n, k, group, sms=132, bits=4):
    """(BM, BN, BK, stages, split_k) of the sm_80 W4A16 (W8A16: `bits` 8)
    program for an M x N x K problem with groups of `group` k on `sms`
    SMs (the rule and its H200 measurements: codegen/Sm80LibraryItems.cpp,
    bench/W4A16Results.md): BM the smallest of 16, 32, 64 that holds M, BN
    64 to 256 and BK 64 to 256 by N, K and the waves, up to 4 stages, K
    split into one wave where the tiles leave SMs idle."""
    return _rule_tile("sm_80", m, n, k, group, sms, bits)


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
    wgmma, swapped: BM weight channels, BN tokens; the rule:
    codegen/Sm90LibraryItems.cpp): BN the tokens rounded up to 8, BM 64 or
    128 by the waves, BK 64, K split into one wave where the tiles leave
    SMs idle, stages for two CTAs per SM where the kernel takes two."""
    return _rule_tile("sm_90a", m, n, k, group, sms, bits)


def w4a16_source(a_type, fmt, group, zeros, tile, arch="sm_80"):
    """(.tile source, cache key) of the W4A16 / W8A16 program with the tile
    (BM, BN, BK, stages[, split_k]): a_type ("bf16" or "f16") activations
    A [M, K] and output C [M, N] in that type, the quantized weight b (fmt
    "u4", "i4", "u8", "i8", "e4m3" or "e5m2") with group scales in a_type
    (and u8 zero points when `zeros`: u4 and u8 only); M, N, K are
    run-time arguments. arch "sm_80" (mma.sync, the weight the MMA's B: BN
    tiles N) or "sm_90a" (RS wgmma, the weight the MMA's A, swapped: BM
    tiles N in 64 or 128 channels, BN the tokens, BK 64;
    codegen/Sm90WeightDequant.h). Raises ValueError for a bad argument."""
    source, _ = gemm_program(arch, a_type, 1, 1, 1, weight=fmt, group=group,
                             zeros=zeros, tile=tuple(tile))
    key = ("w4a16", a_type, fmt, group, bool(zeros)) + tuple(tile)
    return source, key + (("sm_90a",) if arch == "sm_90a" else ())


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
            source, _ = gemm_program(arch, a_type, m, w.n, k, sms,
                                     weight=w.fmt, group=w.group, zeros=zeros)
            kernel = _tuned_or_written(source, ("w4a16", source), m, w.n, k)
        _w4_plans[key] = kernel
    if not a.is_contiguous():
        a = a.contiguous()
    if out is None:
        out = torch.empty((a.shape[0], w.n), dtype=a.dtype, device=a.device)
    return kernel(a, w.weight, out, sb=w.scales, zb=w.zeros)
