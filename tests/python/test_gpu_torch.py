"""Kernels on torch tensors on a GPU (scripts/gpu-python.sh runs these on the
H200): every dtype and majorness sm_80 and sm_90a take against torch.matmul
(every element, fresh random data, C poisoned with NaN), streams, CUDA graph
capture and replay, torch.compile(fullgraph=True) through tilec::gemm, and
bad inputs, each a ValueError with C left untouched. Skipped without torch
or a GPU."""
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


def test_readme_quick_start():
    """The README's Python quick start runs as written."""
    import os
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    with open(os.path.join(root, "README.md")) as f:
        text = f.read()
    start = text.index('```python\nimport torch, tilec')
    block = text[start + len("```python\n"):text.index("```", start + 3)]
    cwd = os.getcwd()
    os.chdir(root)
    try:
        scope = {}
        exec(compile(block, "README.md", "exec"), scope)
    finally:
        os.chdir(cwd)
    torch.cuda.synchronize()
    a, w, c = scope["a"], scope["w"], scope["c"]
    ref = a.float() @ w.float().t()
    assert bool(((scope["k"](a, w, torch.full_like(c, math.nan)).float() - ref)
                 .abs() <= 2.0 ** -7 * ref.abs() + 1e-2).all())
    with pytest.raises(ValueError, match="a: dtype f32 is not the kernel's "
                       "a type"):
        scope["k"](a.float(), w, c)
