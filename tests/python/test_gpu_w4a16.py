"""4-bit weights (W4A16) on torch tensors on a GPU (scripts/gpu-python.sh
runs these on the H200): tilec.gemm(a, w) with w a PackedWeights against
a @ dequant(w).T for bf16 and f16 activations, u4 with and without zero
points and i4, groups 32, 64, 128, M from 1 to 80 and K not a multiple of
128; a Kernel launched with sb=/zb= and with the PackedWeights as b; CUDA
graph capture and replay; torch.compile(fullgraph=True) through
tilec::gemm_w4a16; bad arguments, each a ValueError naming it. Skipped
without torch or a GPU."""
import math

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

import tilec  # noqa: E402
from tilec import _gemm  # noqa: E402
from weight_checks import activations, check_close, weights  # noqa: E402


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("fmt, zeros", [("u4", True), ("u4", False),
                                        ("i4", False)])
@pytest.mark.parametrize("group", [32, 64, 128])
@pytest.mark.parametrize("m", [1, 20, 80])
def test_gemm_matches_dequantized_matmul(dtype, fmt, zeros, group, m):
    n, k = 272, 1152  # K % 128 = 0, N a multiple of 16 but not of BN
    p, w32 = weights(n, k, group, fmt, zeros, dtype, m + group)
    a = activations(m, k, dtype, m)
    c = tilec.gemm(a, p)
    torch.cuda.synchronize()
    assert c.shape == (m, n) and c.dtype == dtype
    check_close(c, a, w32)


HOPPER = torch.cuda.get_device_capability() == (9, 0)


@pytest.mark.skipif(not HOPPER, reason="the sm_90a kernel needs an sm_90 GPU")
@pytest.mark.parametrize("tile", [
    (64, 8, 64, 16, 1), (64, 16, 64, 16, 2), (128, 8, 64, 16, 4),
    (128, 16, 64, 15, 1), (64, 64, 64, 9, 2), (128, 64, 64, 15, 2),
    (128, 8, 64, 16, 12)])
@pytest.mark.parametrize("m", [5, 64])
def test_sm90_tiles_launch_after_launch(tile, m):
    """The sm_90a W4A16 kernel (RS wgmma; two CTAs per SM where K is not
    split, split-K in a cluster and, at 12 splits, in the workspace) at
    several tiles, 10 launches each into poisoned outputs: a race that
    shows now and then fails one of them."""
    n, k = 1040, 2112  # N not a multiple of BM, K of BK 64 but not of 128
    p, w32 = weights(n, k, 64, "u4", True, torch.bfloat16, 7)
    a = activations(m, k, torch.bfloat16, 8)
    kernel = _gemm.w4a16_kernel("bf16", "u4", 64, True, tile, "sm_90a")
    for _ in range(10):
        c = torch.full((m, n), math.nan, dtype=torch.bfloat16, device="cuda")
        kernel(a, p.weight, c, sb=p.scales, zb=p.zeros)
        torch.cuda.synchronize()
        check_close(c, a, w32)


def test_k_not_a_multiple_of_128_and_out():
    p, w32 = weights(64, 320, 64, "u4", True, torch.bfloat16, 1)
    a = activations(5, 320, torch.bfloat16, 2)
    out = torch.full((5, 64), math.nan, dtype=torch.bfloat16, device="cuda")
    assert tilec.gemm(a, p, out=out) is out
    torch.cuda.synchronize()
    check_close(out, a, w32)


def test_kernel_with_sb_zb_and_with_packed_weights():
    p, w32 = weights(128, 512, 128, "u4", True, torch.bfloat16, 3)
    a = activations(16, 512, torch.bfloat16, 4)
    kernel = _gemm.w4a16_kernel("bf16", "u4", 128, True, (16, 32, 128, 4))
    for call in (lambda c: kernel(a, p.weight, c, sb=p.scales, zb=p.zeros),
                 lambda c: kernel(a, p, c)):
        c = torch.full((16, 128), math.nan, dtype=torch.bfloat16,
                       device="cuda")
        call(c)
        torch.cuda.synchronize()
        check_close(c, a, w32)


def test_graph_capture_and_replay():
    p, w32 = weights(256, 1024, 128, "u4", True, torch.bfloat16, 5)
    a = activations(4, 1024, torch.bfloat16, 6)
    out = torch.empty((4, 256), dtype=torch.bfloat16, device="cuda")
    tilec.gemm(a, p, out=out)  # compiles and loads before the capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tilec.gemm(a, p, out=out)
    a.copy_(activations(4, 1024, torch.bfloat16, 7))
    out.fill_(math.nan)
    graph.replay()
    torch.cuda.synchronize()
    check_close(out, a, w32)


def test_torch_compile_fullgraph():
    p, w32 = weights(256, 1024, 64, "i4", False, torch.float16, 8)
    a = activations(8, 1024, torch.float16, 9)

    def f(x):
        return tilec.gemm(x, p).float() * 2.0

    y = torch.compile(f, fullgraph=True)(a)
    torch.cuda.synchronize()
    ref = (a.float() @ w32.t()) * 2.0
    err = (y - ref).abs()
    assert bool((err <= 2.0 ** -6 * ref.abs() + 2.0 ** -4).all()), \
        float(err.max())


def test_bad_arguments():
    p, _ = weights(64, 256, 128, "u4", True, torch.bfloat16, 10)
    a = activations(4, 256, torch.bfloat16, 11)
    bad = [
        (lambda: tilec.gemm(a.float(), p), "a: dtype torch.float32"),
        (lambda: tilec.gemm(a.cpu(), p), "a: on cpu"),
        (lambda: tilec.gemm(a[:, :128], p), "a: shape (4, 128) does not "
         "multiply"),
        (lambda: tilec.gemm(a.half(), p), "w.scales: dtype torch.bfloat16, "
         "a is torch.float16"),
        (lambda: tilec.gemm(a, p.to("cpu")), "w.weight: on cpu"),
        (lambda: tilec.gemm(a, p, sfa=a, sfb=a), "sfa, sfb: a quantized weight "
         "takes no block scales"),
    ]
    for call, message in bad:
        with pytest.raises(ValueError) as e:
            call()
        assert message in str(e.value)
    kernel = _gemm.w4a16_kernel("bf16", "u4", 128, True, (16, 32, 128, 4))
    c = torch.empty((4, 64), dtype=torch.bfloat16, device="cuda")
    with pytest.raises(ValueError, match="zb: the kernel dequantizes"):
        kernel(a, p.weight, c, sb=p.scales)
    with pytest.raises(ValueError, match="sb: shape"):
        kernel(a, p.weight, c, sb=p.scales[:1], zb=p.zeros)
