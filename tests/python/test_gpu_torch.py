"""Kernels on torch tensors on a GPU (scripts/gpu-python.sh runs these on the
H200): every dtype and majorness sm_80 and sm_90a take against torch.matmul
(every element, fresh random data, C poisoned with NaN), streams, CUDA graph
capture and replay, torch.compile(fullgraph=True) through tilec::gemm, the
epilogue's operands (typed bias, scale, swiglu, residual) and the block
scales of the fp8 kernel (eager and from a graph), grouped fp8 kernels
(contiguous and masked, an empty group, padding rows that keep their
poison, a masked launch replayed from a graph with new counts), and bad
inputs, each a ValueError with C left untouched. Skipped without torch or
a GPU."""
import math

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

import tilec  # noqa: E402
from tilec import _gemm  # noqa: E402

CAP = torch.cuda.get_device_capability()
SM90 = CAP == (9, 0)
TORCH_DTYPE = {"bf16": torch.bfloat16, "f16": torch.float16,
               "tf32": torch.float32, "e4m3": torch.float8_e4m3fn,
               "e5m2": torch.float8_e5m2}
# Relative rounding of the output type.
OUT_EPS = {torch.bfloat16: 2.0 ** -8, torch.float16: 2.0 ** -11,
           torch.float32: 2.0 ** -24}

CASES = [("sm_80", t, am, bm) for t in ("f16", "bf16")
         for am in "KM" for bm in "KN"]
CASES += [("sm_90a", t, am, bm) for t in ("f16", "bf16")
          for am in "KM" for bm in "KN"]
CASES += [("sm_90a", t, "K", "K") for t in ("tf32", "e4m3", "e5m2")]


def random(shape, dtype, gen):
    x = torch.rand(shape, generator=gen, device="cuda") * 2 - 1
    return x.to(dtype)


def operand(rows, k, major_k, dtype, gen):
    """The TN-view rows x K matrix, stored K-major (rows x K row-major) or
    MN-major (K x rows row-major), and its fp32 value as rows x K."""
    if major_k:
        x = random((rows, k), dtype, gen)
        return x, x.float()
    x = random((k, rows), dtype, gen)
    return x, x.float().t()


def check_close(c, a32, b32, tf32=False, alpha=1.0, beta=0.0, c0=None,
                fp8=False):
    """Every element of c against the fp64 product of the fp32 operands:
    |c - ref| <= out_eps |ref| + (tf32 rounding + accumulation) *
    (|a| |b|^T) + 1e-6, the accumulation f32 (1e-5) or, for fp8 wgmma,
    about 14 bits (docs/layout-facts.md#fp8-accumulation): 2^-11, where
    2^-12.6 was seen at K = 7168 and one missing 32-deep K step is ~2^-8."""
    ref = alpha * (a32.double() @ b32.double().t())
    if beta:
        ref = ref + beta * c0.double()
    mag = (a32.double().abs() @ b32.double().abs().t()) * abs(alpha)
    if beta:
        mag = mag + abs(beta) * c0.double().abs()
    in_eps = 2.0 ** -10 if tf32 else 0.0
    acc_eps = 2.0 ** -11 if fp8 else 1e-5
    tol = OUT_EPS[c.dtype] * ref.abs() + (in_eps + acc_eps) * mag + 1e-6
    err = (c.double() - ref).abs()
    bad = ~(err <= tol)  # NaN counts as bad
    assert int(bad.sum()) == 0, (
        f"{int(bad.sum())}/{c.numel()} elements wrong, e.g. at "
        f"{bad.nonzero()[0].tolist()}: {c.double()[bad][0]} vs "
        f"{ref[bad][0]}")


def compiled(arch, t, am, bm, m, n, k):
    source, _ = _gemm.program_source(arch, t, t, am, bm, m, n, k,
                                     torch.cuda.get_device_properties(0)
                                     .multi_processor_count)
    return tilec.compile(source)


def needs(arch):
    if arch == "sm_90a" and not SM90:
        pytest.skip(f"sm_90a needs compute capability 9.0, this GPU is {CAP}")


@pytest.mark.parametrize("arch, t, am, bm", CASES)
@pytest.mark.parametrize("shape", [(192, 264, 320), (64, 2112, 7168)])
def test_every_dtype_and_majorness(arch, t, am, bm, shape):
    needs(arch)
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(hash((arch, t, am, bm,
                                                           shape)) % 2**31)
    kernel = compiled(arch, t, am, bm, m, n, k)
    dtype = TORCH_DTYPE[t]
    a, a32 = operand(m, k, am == "K", dtype, gen)
    b, b32 = operand(n, k, bm == "K", dtype, gen)
    out_dtype = {"tf32": torch.float32, "e4m3": torch.bfloat16,
                 "e5m2": torch.bfloat16}.get(t, dtype)
    c = torch.full((m, n), math.nan, dtype=out_dtype, device="cuda")
    kernel(a, b, c)
    torch.cuda.synchronize()
    check_close(c, a32, b32, tf32=t == "tf32", fp8=t in ("e4m3", "e5m2"))
    # The transpose view of the stored operand is accepted too.
    c.fill_(math.nan)
    kernel(a.t(), b.t(), c)
    torch.cuda.synchronize()
    check_close(c, a32, b32, tf32=t == "tf32", fp8=t in ("e4m3", "e5m2"))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_alpha_beta(arch):
    needs(arch)
    gen = torch.Generator(device="cuda").manual_seed(7)
    m, n, k = 128, 256, 512
    kernel = compiled(arch, "bf16", "K", "K", m, n, k)
    a, a32 = operand(m, k, True, torch.bfloat16, gen)
    b, b32 = operand(n, k, True, torch.bfloat16, gen)
    c0 = random((m, n), torch.bfloat16, gen)
    c = c0.clone()
    kernel(a, b, c, alpha=0.5, beta=-2.0)
    torch.cuda.synchronize()
    check_close(c, a32, b32, alpha=0.5, beta=-2.0, c0=c0.float())


def test_gemm_matches_torch_matmul_for_layouts():
    gen = torch.Generator(device="cuda").manual_seed(11)
    for dtype in (torch.bfloat16, torch.float16):
        for m, n, k in [(64, 2112, 7168), (300, 520, 136), (1024, 1024, 512)]:
            a = random((m, k), dtype, gen)
            w = random((n, k), dtype, gen)
            for bb in (w.t(), w.t().contiguous()):
                for aa in (a, a.t().contiguous().t()):
                    c = tilec.gemm(aa, bb)
                    torch.cuda.synchronize()
                    assert c.dtype == dtype and c.shape == (m, n)
                    check_close(c, aa.float(), bb.float().t())


def test_streams():
    gen = torch.Generator(device="cuda").manual_seed(3)
    m, n, k = 256, 512, 1024
    kernel = compiled("sm_90a" if SM90 else "sm_80", "bf16", "K", "K", m, n,
                      k)
    a, a32 = operand(m, k, True, torch.bfloat16, gen)
    b, b32 = operand(n, k, True, torch.bfloat16, gen)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    for how in ("current", "explicit", "int"):
        c = torch.full((m, n), math.nan, dtype=torch.bfloat16, device="cuda")
        side.wait_stream(torch.cuda.current_stream())
        if how == "current":
            with torch.cuda.stream(side):
                kernel(a, b, c)
        else:
            kernel(a, b, c, stream=side if how == "explicit"
                   else side.cuda_stream)
        side.synchronize()
        check_close(c, a32, b32)


@pytest.mark.parametrize("split_k", [0, 16])
def test_graph_capture_and_replay(split_k):
    """Captured launches replay on new data; split_k 16 reduces through a
    global workspace, allocated by prepare() before the capture."""
    needs("sm_90a" if split_k else "sm_80")
    arch = "sm_90a" if SM90 else "sm_80"
    m, n, k = 64, 2112, 7168
    if split_k:
        source = ("kernel g { arch sm_90a\n a : bf16[M, K] major(K)\n"
                  " b : bf16[N, K] major(K)\n c : bf16[M, N] major(N)\n"
                  " acc f32\n tile (BM = 64, BN = 64, BK = 64)\n stages 8\n"
                  " mma wgmma.m64n64k16\n schedule swap_ab split_k(16)\n}\n")
        kernel = tilec.compile(source)
        assert any(p[0] == "workspace" for p in kernel.params)
    else:
        kernel = compiled(arch, "bf16", "K", "K", m, n, k)
    gen = torch.Generator(device="cuda").manual_seed(5)
    a = torch.empty((m, k), dtype=torch.bfloat16, device="cuda")
    b = torch.empty((n, k), dtype=torch.bfloat16, device="cuda")
    c = torch.empty((m, n), dtype=torch.bfloat16, device="cuda")
    if split_k:
        fresh = tilec.compile(source)
        fresh.prepare(device=0)
        graph = torch.cuda.CUDAGraph()
        with pytest.raises(ValueError, match="split-K workspace"):
            with torch.cuda.graph(graph):
                fresh(a, b, c)
    kernel.prepare(a, b, c)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        kernel(a, b, c)
    for _ in range(3):
        a.copy_(random((m, k), torch.bfloat16, gen))
        b.copy_(random((n, k), torch.bfloat16, gen))
        c.fill_(math.nan)
        graph.replay()
        torch.cuda.synchronize()
        check_close(c, a.float(), b.float())


def test_graph_capture_of_gemm():
    m, n, k = 64, 2112, 7168
    gen = torch.Generator(device="cuda").manual_seed(9)
    a = random((m, k), torch.bfloat16, gen)
    w = random((n, k), torch.bfloat16, gen)
    out = torch.empty((m, n), dtype=torch.bfloat16, device="cuda")
    tilec.gemm(a, w.t(), out=out)  # compiles and loads before the capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tilec.gemm(a, w.t(), out=out)
    a.copy_(random((m, k), torch.bfloat16, gen))
    out.fill_(math.nan)
    graph.replay()
    torch.cuda.synchronize()
    check_close(out, a.float(), w.float())


def test_torch_compile_fullgraph():
    gen = torch.Generator(device="cuda").manual_seed(13)
    a = random((64, 1024), torch.bfloat16, gen)
    w = random((512, 1024), torch.bfloat16, gen)

    def f(x, weight):
        return tilec.gemm(x, weight.t()).float() * 2.0

    compiled_f = torch.compile(f, fullgraph=True)
    y = compiled_f(a, w)
    torch.cuda.synchronize()
    ref = (a.float() @ w.float().t()) * 2.0
    err = (y - ref).abs()
    assert bool((err <= 2.0 ** -7 * ref.abs() + 1e-3).all()), float(err.max())


def test_bad_inputs_raise_and_do_not_launch():
    arch = "sm_90a" if SM90 else "sm_80"
    m, n, k = 128, 256, 512
    kernel = compiled(arch, "bf16", "K", "K", m, n, k)
    a = torch.ones((m, k), dtype=torch.bfloat16, device="cuda")
    b = torch.ones((n, k), dtype=torch.bfloat16, device="cuda")
    c = torch.full((m, n), 7.0, dtype=torch.bfloat16, device="cuda")
    flat = torch.ones(m * k + 8, dtype=torch.bfloat16, device="cuda")
    wide = torch.ones((m, 2 * k), dtype=torch.bfloat16, device="cuda")
    bad = [
        (dict(a=a.half()), "a: dtype f16 is not the kernel's a type"),
        (dict(a=a.cpu()), "a: the tensor is on cpu"),
        (dict(c=c.cpu()), "c: the tensor is on cpu"),
        (dict(a=wide[:, ::2]), "a: shape (128, 512) with strides (1024, 2)"),
        (dict(a=flat[1:m * k + 1].view(m, k)), "not 16-byte aligned"),
        (dict(b=b[:, :500]), "b: shape (256, 500)"),
        (dict(c=c[:, :200]), "b: shape (256, 512)"),
        (dict(c=c.t().contiguous().t()), "c: strides"),
        (dict(a=a[None]), "a: 3-D tensor"),
        (dict(bias=torch.ones(n, dtype=torch.bfloat16, device="cuda")),
         "bias: the kernel has no bias op"),
        (dict(stream="s"), "stream: str"),
    ]
    for change, message in bad:
        args = dict(a=a, b=b, c=c)
        args.update(change)
        with pytest.raises(ValueError) as e:
            kernel(**args)
        assert message in str(e.value), (message, str(e.value))
    torch.cuda.synchronize()
    assert bool((c == 7.0).all()), "a refused launch wrote C"
    with pytest.raises(ValueError, match="legal: b with 512 rows"):
        tilec.gemm(a, b)
    with pytest.raises(ValueError, match="legal: CUDA tensors"):
        tilec.gemm(a.cpu(), b.t().cpu())


EPILOGUE_LINE = {"sm_80": ("gemm_sm80.tile", "epilogue store"),
                 "sm_90a": ("gemm_sm90.tile",
                            "epilogue stmatrix swizzle(128B) -> tma_store")}
EPILOGUE_CASES = [
    ("sm_80", "bias(col, f32) swiglu scale(col) residual -> store"),
    ("sm_90a", "bias(col, f32) swiglu scale(col) residual -> stmatrix "
     "swizzle(128B) -> tma_store"),
    ("sm_90a", "bias(row, f32) residual -> stmatrix swizzle(128B) -> "
     "tma_store"),
    ("sm_90a", "scale(row) swiglu(interleaved) residual -> store"),
]


def epilogue_kernel(arch, ops):
    import os
    name, line = EPILOGUE_LINE[arch]
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    with open(os.path.join(root, "examples", name)) as f:
        source = f.read()
    assert line in source
    return tilec.compile(source.replace(line, "epilogue " + ops))


def apply_ops(x, ops, bn, vectors):
    """The epilogue ops written in `ops` on the fp32 accumulator x."""
    for op in ops.split("->")[0].replace(", ", ",").split():
        word = op.split("(")[0]
        if word in ("bias", "scale"):
            v = vectors[word].float()
            v = v[None, :] if "(col" in op else v[:, None]
            x = x + v if word == "bias" else x * v
        elif word == "swiglu":
            if "interleaved" in op:
                g, u = x[:, 0::2], x[:, 1::2]
            else:
                t = x.reshape(x.shape[0], -1, 2, bn // 2)
                g = t[:, :, 0].reshape(x.shape[0], -1)
                u = t[:, :, 1].reshape(x.shape[0], -1)
            x = torch.nn.functional.silu(g) * u
        elif word == "residual":
            x = x + vectors["residual"].float()
    return x


@pytest.mark.parametrize("arch, ops", EPILOGUE_CASES)
def test_epilogue_operands(arch, ops):
    """Typed bias, scale vectors, swiglu (C is M x N/2) and a residual with
    a padded leading dimension, against the ops applied in fp32."""
    needs(arch)
    kernel = epilogue_kernel(arch, ops)
    info = kernel.operands
    m, n, k = 192, 512, 320
    cols = n // 2 if info["swiglu"] else n
    gen = torch.Generator(device="cuda").manual_seed(sum(map(ord, ops)))
    a = random((m, k), torch.bfloat16, gen)
    b = random((n, k), torch.bfloat16, gen)
    lengths = {1: n, 2: m, 3: cols}
    vectors = {}
    if info["bias_axis"]:
        vectors["bias"] = random((lengths[info["bias_axis"]],),
                                 TORCH_DTYPE[info["bias_type"]]
                                 if info["bias_type"] != "f32"
                                 else torch.float32, gen)
    if info["scale_axis"]:
        vectors["scale"] = random((lengths[info["scale_axis"]],),
                                  torch.float32, gen) + 1.5
    if info["residual_type"]:
        wide = random((m, cols + 24), torch.bfloat16, gen)
        vectors["residual"] = wide[:, :cols]  # ldr = cols + 24
    c = torch.full((m, cols), math.nan, dtype=torch.bfloat16, device="cuda")
    kernel(a, b, c, **vectors)
    torch.cuda.synchronize()
    ref = apply_ops(a.float() @ b.float().t(), ops, info["tile_n"], vectors)
    err = (c.float() - ref).abs()
    tol = 2.0 ** -7 * ref.abs() + 2.0 ** -10 * float(ref.abs().max())
    bad = ~(err <= tol)
    assert int(bad.sum()) == 0, (
        f"{int(bad.sum())}/{c.numel()} wrong, e.g. at "
        f"{bad.nonzero()[0].tolist()}: {c.float()[bad][0]} vs {ref[bad][0]}")
    # A bad operand is a ValueError naming it, and C is left alone.
    c.fill_(7.0)
    if "residual" in vectors:
        with pytest.raises(ValueError, match="residual: dtype f32"):
            kernel(a, b, c, **dict(vectors,
                                   residual=vectors["residual"].float()))
        with pytest.raises(ValueError, match="residual: the kernel's "
                           "epilogue reads a residual tensor"):
            kernel(a, b, c, **dict(vectors, residual=None))
    if "bias" in vectors:
        with pytest.raises(ValueError, match="bias: shape"):
            kernel(a, b, c, **dict(vectors, bias=vectors["bias"][:-1]))
    torch.cuda.synchronize()
    assert bool((c == 7.0).all()), "a refused launch wrote C"


def block_scaled(m, n, k, gen):
    """e4m3 a, b with f32 scales sfa [M, K/128], sfb [N/128, K/128] (powers
    of two), and their dequantized fp32 values."""
    kb, nb = -(-k // 128), -(-n // 128)
    a = (torch.randn(m, k, device="cuda", generator=gen) * 64).clamp(
        -448, 448).to(torch.float8_e4m3fn)
    b = (torch.randn(n, k, device="cuda", generator=gen) * 64).clamp(
        -448, 448).to(torch.float8_e4m3fn)
    sfa = torch.pow(2.0, torch.randint(-8, -3, (m, kb), device="cuda",
                                       generator=gen).float())
    sfb = torch.pow(2.0, torch.randint(-8, -3, (nb, kb), device="cuda",
                                       generator=gen).float())

    def deq(q, sf, rows):
        s = sf.repeat_interleave(rows, 0)[:q.shape[0]]
        return q.float() * s.repeat_interleave(128, 1)[:, :q.shape[1]]
    return a, b, sfa, sfb, deq(a, sfa, 1), deq(b, sfb, 128)


def check_block_scaled(c, a32, b32):
    ref = a32.double() @ b32.double().t()
    mag = a32.double().abs() @ b32.double().abs().t()
    err = (c.double() - ref).abs()
    bad = ~(err <= 2.0 ** -8 * ref.abs() + 2.0 ** -11 * mag)
    assert int(bad.sum()) == 0, (
        f"{int(bad.sum())}/{c.numel()} wrong, e.g. at "
        f"{bad.nonzero()[0].tolist()}: {c.double()[bad][0]} vs {ref[bad][0]}")


@pytest.mark.parametrize("shape, bm", [
    ((64, 2112, 7168), 64), ((128, 7168, 2048), 128), ((37, 300, 1024), 64),
    # 128 x 192 tiles would fill 9 of 132 SMs: the one-wave rule's 64 x 64
    # (codegen/Sm90Heuristic.cpp oneWaveTile, session 19).
    ((300, 520, 1024), 64), ((1024, 4096, 1024), 128)])
def test_gemm_block_scaled_picks_and_runs(shape, bm):
    """tilec.gemm(a, b, sfa=, sfb=): the program codegen's block-scaled
    rule picks for the shape (the narrow unswapped decode tile at M <= 128,
    a one-wave tile where 128 x 192 leaves most SMs idle, 128 x 192 above)
    against the fp64 reference of the dequantized operands, C poisoned; a
    missing scale and a wrong shape refused."""
    needs("sm_90a")
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m * 7 + n + k)
    a, w, sfa, sfb, a32, b32 = block_scaled(m, n, k, gen)
    c = torch.full((m, n), math.nan, dtype=torch.bfloat16, device="cuda")
    tilec.gemm(a, w.t(), out=c, sfa=sfa, sfb=sfb)
    torch.cuda.synchronize()
    check_block_scaled(c, a32, b32)
    fresh = tilec.gemm(a, w.t(), sfa=sfa, sfb=sfb)
    torch.cuda.synchronize()
    assert fresh.dtype == torch.bfloat16
    check_block_scaled(fresh, a32, b32)
    source, _ = _gemm.block_scaled_source(m, n, k)
    assert f"BM = {bm}," in source
    with pytest.raises(ValueError, match="give both block scales"):
        tilec.gemm(a, w.t(), sfa=sfa)
    with pytest.raises(ValueError, match="sfb: "):
        tilec.gemm(a, w.t(), sfa=sfa, sfb=sfb.t())


CLUSTER_N_BF16 = """
kernel cn_{name} {{
  arch     sm_90a
  a        : bf16[M, K] major(K)
  b        : bf16[N, K] major(K)
  c        : bf16[M, N] major(N)
  acc      f32
  tile     (BM = {bm}, BN = {bn}, BK = 64)
  stages   4
  schedule {schedule}
}}
"""


@pytest.mark.parametrize("bm, bn, schedule", [
    (128, 128, "cluster_n(2)"), (64, 96, "persistent(2) cluster_n(2)"),
    (128, 256, "persistent cluster_n(2)")])
def test_cluster_n_bf16(bm, bn, schedule):
    """1x2 clusters sharing A (`schedule cluster_n(2)`) on the grid and
    persistent, at a shape whose column tiles are odd in number (a CTA of
    the last cluster is past N), against the fp64 product, C poisoned."""
    needs("sm_90a")
    kernel = tilec.compile(CLUSTER_N_BF16.format(
        name=schedule.split()[0].split("(")[0], bm=bm, bn=bn,
        schedule=schedule))
    m, n, k = 1000, 3 * bn + 40, 1000
    gen = torch.Generator(device="cuda").manual_seed(bm + bn)
    a, a32 = operand(m, k, True, torch.bfloat16, gen)
    b, b32 = operand(n, k, True, torch.bfloat16, gen)
    c = torch.full((m, n), math.nan, dtype=torch.bfloat16, device="cuda")
    kernel(a, b, c)
    torch.cuda.synchronize()
    check_close(c, a32, b32)


def test_gemm_block_scaled_m_major_cluster_n():
    """tilec.gemm with an M-major SFA (strides (1, M)) at 3000 x 1100 x
    4160: the staged 256 x 128 tile, persistent in 1x2 clusters sharing A
    (33 K blocks), 9 column tiles (one CTA past N), against the fp64
    reference of the dequantized operands."""
    needs("sm_90a")
    m, n, k = 3000, 1100, 4160
    gen = torch.Generator(device="cuda").manual_seed(18)
    a, w, sfa, sfb, a32, b32 = block_scaled(m, n, k, gen)
    source, _ = _gemm.block_scaled_source(
        m, n, k, torch.cuda.get_device_properties(0).multi_processor_count,
        sfa_m_major=True)
    assert "BM = 256" in source and "cluster_n(2)" in source, source
    sfa_m = sfa.t().contiguous().t()
    c = torch.full((m, n), math.nan, dtype=torch.bfloat16, device="cuda")
    tilec.gemm(a, w.t(), out=c, sfa=sfa_m, sfb=sfb)
    torch.cuda.synchronize()
    check_block_scaled(c, a32, b32)


@pytest.mark.parametrize("shape", [(200, 300, 640), (64, 2112, 7168)])
def test_block_scaled_fp8(shape):
    """examples/gemm_fp8_block_sm90.tile with sfa/sfb: eager, from a CUDA
    graph on new data, and bad scales refused with C untouched."""
    needs("sm_90a")
    import os
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    kernel = tilec.compile(os.path.join(root, "examples",
                                        "gemm_fp8_block_sm90.tile"))
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + n + k)
    a, b, sfa, sfb, a32, b32 = block_scaled(m, n, k, gen)
    c = torch.full((m, n), math.nan, dtype=torch.bfloat16, device="cuda")
    kernel(a, b, c, sfa=sfa, sfb=sfb)
    torch.cuda.synchronize()
    check_block_scaled(c, a32, b32)
    # Captured with the scales, replayed on new operands and scales.
    kernel.prepare(a, b, c, sfa=sfa, sfb=sfb)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        kernel(a, b, c, sfa=sfa, sfb=sfb)
    a2, b2, sfa2, sfb2, a32, b32 = block_scaled(m, n, k, gen)
    for dst, src in ((a, a2), (b, b2), (sfa, sfa2), (sfb, sfb2)):
        dst.copy_(src)
    c.fill_(math.nan)
    graph.replay()
    torch.cuda.synchronize()
    check_block_scaled(c, a32, b32)
    c.fill_(7.0)
    bad = [
        (dict(sfa=None), "sfa: the kernel is block-scaled"),
        (dict(sfb=sfb.half()), "sfb: dtype f16 is not the kernel's sfb "
         "type (legal: f32)"),
        # torch.nn.functional.scaled_mm's M-major SFA is not tilec's.
        (dict(sfa=sfa.t().contiguous().t()), "sfa: shape"),
        (dict(sfb=sfb.t()), "sfb: shape"),
        (dict(sfa=sfa.cpu()), "sfa: the tensor is on cpu"),
    ]
    for change, message in bad:
        args = dict(sfa=sfa, sfb=sfb)
        args.update(change)
        with pytest.raises(ValueError) as e:
            kernel(a, b, c, **args)
        assert message in str(e.value), (message, str(e.value))
    torch.cuda.synchronize()
    assert bool((c == 7.0).all()), "a refused launch wrote C"


def grouped_kernel(mode):
    import os
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    return tilec.compile(os.path.join(
        root, "examples", f"gemm_fp8_grouped_{mode}_sm90.tile"))


def grouped_operands(g, rows, n, k, gen):
    """e4m3 A (rows x K, or [G, Mmax, K] for rows = (G, Mmax)) and B [G, N,
    K] with power-of-two scales SFA (per row) and SFB [G, N/128, K/128],
    and their dequantized fp32 values (A's with A's shape, B's [G, N, K])."""
    kb, nb = -(-k // 128), -(-n // 128)
    shape = rows if isinstance(rows, tuple) else (rows,)
    a = (torch.randn(*shape, k, device="cuda", generator=gen) * 64).clamp(
        -448, 448).to(torch.float8_e4m3fn)
    b = (torch.randn(g, n, k, device="cuda", generator=gen) * 64).clamp(
        -448, 448).to(torch.float8_e4m3fn)
    sfa = torch.pow(2.0, torch.randint(-8, -3, (*shape, kb), device="cuda",
                                       generator=gen).float())
    sfb = torch.pow(2.0, torch.randint(-8, -3, (g, nb, kb), device="cuda",
                                       generator=gen).float())
    a32 = a.float() * sfa.repeat_interleave(128, -1)[..., :k]
    b32 = b.float() * sfb.repeat_interleave(128, 1).repeat_interleave(
        128, 2)[:, :n, :k]
    return a, b, sfa, sfb, a32, b32


def contiguous_index(sizes, bm=128):
    """DeepGEMM's m_indices: each group's rows padded to a multiple of bm
    with -1, and one whole padding block after group 0."""
    index = []
    for g, size in enumerate(sizes):
        index += [g] * size + [-1] * (-size % bm)
        if g == 0:
            index += [-1] * bm
    return torch.tensor(index, dtype=torch.int32, device="cuda")


def check_grouped(c, a32, b32, group_of_row):
    """Rows of group g against A's rows times B_g^T (fp32 from the
    dequantized operands); every row of no group still NaN."""
    c2 = c.reshape(-1, c.shape[-1])
    a2 = a32.reshape(-1, a32.shape[-1])
    for g in range(b32.shape[0]):
        rows = (group_of_row == g).nonzero().flatten()
        if rows.numel():
            check_block_scaled(c2[rows], a2[rows], b32[g])
    pad = (group_of_row < 0).nonzero().flatten()
    assert bool(c2[pad].isnan().all()), (
        f"{int((~c2[pad].isnan()).sum())} elements of padding rows written")


@pytest.mark.parametrize("mode", ["contiguous", "masked"])
def test_grouped_fp8(mode):
    """examples/gemm_fp8_grouped_*_sm90.tile on torch tensors: an empty
    group, padding rows (contiguous: and a whole padding block) that keep
    C's NaN poison, ragged N and K; masked also from a CUDA graph replayed
    with new counts; bad group tensors refused with C untouched."""
    needs("sm_90a")
    kernel = grouped_kernel(mode)
    g, n, k = 4, 320, 576
    gen = torch.Generator(device="cuda").manual_seed(13 + len(mode))
    if mode == "contiguous":
        index = contiguous_index([300, 0, 128, 517])
        a, b, sfa, sfb, a32, b32 = grouped_operands(g, index.numel(), n, k,
                                                    gen)
        c = torch.full((index.numel(), n), math.nan, dtype=torch.bfloat16,
                       device="cuda")
        group = dict(group_index=index)
        group_of_row = index.long()
    else:
        mmax = 256
        counts = torch.tensor([0, 100, 256, 1], dtype=torch.int32,
                              device="cuda")
        a, b, sfa, sfb, a32, b32 = grouped_operands(g, (g, mmax), n, k, gen)
        c = torch.full((g, mmax, n), math.nan, dtype=torch.bfloat16,
                       device="cuda")
        group = dict(group_rows=counts)

        def rows_of(counts):
            r = torch.arange(mmax, device="cuda")
            valid = r[None, :] < counts.long()[:, None]
            return torch.where(valid, torch.arange(g, device="cuda")[:, None],
                               -1).flatten()
        group_of_row = rows_of(counts)
    kernel(a, b, c, sfa=sfa, sfb=sfb, **group)
    torch.cuda.synchronize()
    check_grouped(c, a32, b32, group_of_row)
    if mode == "masked":
        # Captured once; the counts are read on the device at replay.
        kernel.prepare(a, b, c, sfa=sfa, sfb=sfb, **group)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            kernel(a, b, c, sfa=sfa, sfb=sfb, **group)
        counts.copy_(torch.tensor([256, 3, 0, 130], dtype=torch.int32))
        c.fill_(math.nan)
        graph.replay()
        torch.cuda.synchronize()
        check_grouped(c, a32, b32, rows_of(counts))
    c.fill_(7.0)
    mine = "group_rows" if mode == "masked" else "group_index"
    tensor = group[mine]
    bad = [
        ({mine: None}, f"{mine}: the kernel is group {mode}"),
        ({mine: tensor.long()}, f"{mine}: dtype torch.int64 is not the "
         f"kernel's {mine} type (legal: i32)"),
        ({mine: tensor[:-1]}, f"{mine}: shape"),
        ({mine: tensor.cpu()}, f"{mine}: the tensor is on cpu"),
        (dict(sfb=sfb[0]), "sfb: shape"),
        (dict(b=b[0]), "b: 2-D tensor"),
    ]
    for change, message in bad:
        args = dict(a=a, b=b, c=c, sfa=sfa, sfb=sfb, **group)
        args.update(change)
        with pytest.raises(ValueError) as e:
            kernel(**args)
        assert message in str(e.value), (message, str(e.value))
    with pytest.raises(ValueError, match="beta"):
        kernel(a, b, c, beta=1.0, sfa=sfa, sfb=sfb, **group)
    torch.cuda.synchronize()
    assert bool((c == 7.0).all()), "a refused launch wrote C"


def run_readme_block(opening):
    """Runs the README's first ```python block that starts with `opening`,
    from the checkout's root; returns its variables."""
    import os
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    with open(os.path.join(root, "README.md")) as f:
        text = f.read()
    start = text.index("```python\n" + opening)
    block = text[start + len("```python\n"):text.index("```", start + 3)]
    cwd = os.getcwd()
    os.chdir(root)
    try:
        scope = {}
        exec(compile(block, "README.md", "exec"), scope)
    finally:
        os.chdir(cwd)
    torch.cuda.synchronize()
    return scope


def test_readme_quick_start():
    """The README's Python quick start runs as written."""
    scope = run_readme_block("import torch, tilec")
    a, w, c = scope["a"], scope["w"], scope["c"]
    ref = a.float() @ w.float().t()
    assert bool(((scope["k"](a, w, torch.full_like(c, math.nan)).float() - ref)
                 .abs() <= 2.0 ** -7 * ref.abs() + 1e-2).all())
    with pytest.raises(ValueError, match="a: dtype f32 is not the kernel's "
                       "a type"):
        scope["k"](a.float(), w, c)


def test_readme_epilogue_operands():
    """The README's block on epilogue operands and block scales runs as
    written and computes what it says."""
    needs("sm_90a")
    scope = run_readme_block("import torch, tilec  # the epilogue's")
    a, w, h, x = scope["a"], scope["w"], scope["h"], scope["x"]
    # The bias and scale were passed inline: rerun with named copies.
    vectors = {"bias": torch.randn(4096, device="cuda"),
               "scale": torch.rand(2048, device="cuda"), "residual": x}
    h.fill_(math.nan)
    scope["k"](a, w, h, **vectors)
    torch.cuda.synchronize()
    ref = apply_ops(a.float() @ w.float().t(),
                    "bias(col, f32) swiglu scale(col) residual", 256, vectors)
    err = (h.float() - ref).abs()
    assert bool((err <= 2.0 ** -7 * ref.abs()
                 + 2.0 ** -10 * float(ref.abs().max())).all())
    c = scope["c"]
    a32 = scope["a8"].float() * scope["sfa"].repeat_interleave(128, 1)
    b32 = scope["w8"].float() * scope["sfb"].repeat_interleave(
        128, 0).repeat_interleave(128, 1)
    check_block_scaled(c, a32, b32)


def test_readme_grouped():
    """The README's grouped block runs as written and computes what it says
    (rerun into NaN-poisoned outputs: padding rows stay NaN)."""
    needs("sm_90a")
    scope = run_readme_block("import torch, tilec  # grouped")
    w8, sfb = scope["w8"], scope["sfb"]
    b32 = w8.float() * sfb.repeat_interleave(128, 1).repeat_interleave(
        128, 2)[:, :w8.shape[1], :w8.shape[2]]

    def deq(q, sf):
        return q.float() * sf.repeat_interleave(128, -1)[..., :q.shape[-1]]
    c, idx = scope["c"], scope["idx"]
    c.fill_(math.nan)
    scope["cont"](scope["a8"], w8, c, sfa=scope["sa"], sfb=sfb,
                  group_index=idx)
    torch.cuda.synchronize()
    check_grouped(c, deq(scope["a8"], scope["sa"]), b32, idx.long())
    y, counts = scope["y"], scope["counts"]
    y.fill_(math.nan)
    scope["masked"](scope["x8"], w8, y, sfa=scope["sx"], sfb=sfb,
                    group_rows=counts)
    torch.cuda.synchronize()
    g, mmax = y.shape[0], y.shape[1]
    r = torch.arange(mmax, device="cuda")
    rows = torch.where(r[None, :] < counts.long()[:, None],
                       torch.arange(g, device="cuda")[:, None], -1).flatten()
    check_grouped(y, deq(scope["x8"], scope["sx"]), b32, rows)
