"""8-bit weights (W8A16: i8, u8 with and without zero points, e4m3, e5m2)
on torch tensors on a GPU (scripts/gpu-python.sh runs these on the H200):
tilec.gemm(a, w) against a @ W.T with W computed here by torch from the
quantized values (q.float(), torch's own int8/uint8/float8 conversion,
minus the zero point, times the scale: not tilec's dequantizer), for bf16
and f16 activations, groups 32 and 128, M from 1 to 80 and K a multiple of
32 but not of 64; both targets' programs forced on Hopper; every fp8
subnormal code exact; the sm_90a kernel launch after launch into poisoned
outputs. Skipped without torch or a GPU."""
import math

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

import tilec  # noqa: E402
from tilec import _gemm  # noqa: E402
from weight_checks import activations, check_close, weights  # noqa: E402

HOPPER = torch.cuda.get_device_capability() == (9, 0)
FORMATS = [("i8", False), ("u8", True), ("u8", False), ("e4m3", False),
           ("e5m2", False)]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("fmt, zeros", FORMATS)
@pytest.mark.parametrize("group", [32, 128])
@pytest.mark.parametrize("m", [1, 20, 80])
def test_gemm_matches_torch_dequantized_matmul(dtype, fmt, zeros, group, m):
    # K % 32 = 0 but not % 64 at group 32; a whole number of groups of 128.
    n, k = 272, 1184 if group == 32 else 1152
    p, w32 = weights(n, k, group, fmt, zeros, dtype, m + group)
    a = activations(m, k, dtype, m)
    c = tilec.gemm(a, p)
    torch.cuda.synchronize()
    assert c.shape == (m, n) and c.dtype == dtype
    check_close(c, a, w32)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("fmt, zeros", FORMATS)
def test_both_programs(arch, dtype, fmt, zeros):
    """Each target's program at its rule's tile, whichever tilec.gemm would
    pick (sm_90a only on Hopper)."""
    if arch == "sm_90a" and not HOPPER:
        pytest.skip("the sm_90a kernel needs an sm_90 GPU")
    m, n, k, group = 12, 1040, 2112, 64
    p, w32 = weights(n, k, group, fmt, zeros, dtype, 3)
    a = activations(m, k, dtype, 4)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    rule = _gemm.w4a16_tile_sm90 if arch == "sm_90a" else _gemm.w4a16_tile
    tile = rule(m, n, k, group, sms, 8)
    t = "bf16" if dtype == torch.bfloat16 else "f16"
    kernel = _gemm.w4a16_kernel(t, fmt, group, zeros, tile, arch)
    c = torch.full((m, n), math.nan, dtype=dtype, device="cuda")
    kernel(a, p.weight, c, sb=p.scales, zb=p.zeros)
    torch.cuda.synchronize()
    check_close(c, a, w32)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_fp8_subnormal_codes_are_exact(arch, dtype, fmt):
    """Weights of only subnormal fp8 codes (and their negatives) with scale
    1 against small whole activations: every product and sum is exact in
    f32, so C is the reference rounded once; a conversion that flushed
    subnormals to zero would give 0."""
    if arch == "sm_90a" and not HOPPER:
        pytest.skip("the sm_90a kernel needs an sm_90 GPU")
    m, n, k, group = 16, 128, 512, 128
    fp8 = torch.float8_e4m3fn if fmt == "e4m3" else torch.float8_e5m2
    mantissa = 7 if fmt == "e4m3" else 3
    gen = torch.Generator().manual_seed(11)
    codes = torch.randint(1, mantissa + 1, (n, k), generator=gen)
    codes |= torch.randint(0, 2, (n, k), generator=gen) * 0x80
    q = codes.to(torch.uint8).view(fp8)
    s = torch.ones((k // group, n), dtype=dtype)
    p = tilec.pack_weights(q, s, None, fmt=fmt, group=group).to("cuda")
    a = torch.randint(-3, 4, (m, k), generator=gen).to(dtype).cuda()
    w32 = q.float().cuda()
    assert float(w32.abs().max()) < 2.0 ** -6  # subnormal in both formats
    ref = (a.double() @ w32.double().t()).to(dtype)
    t = "bf16" if dtype == torch.bfloat16 else "f16"
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    rule = _gemm.w4a16_tile_sm90 if arch == "sm_90a" else _gemm.w4a16_tile
    kernel = _gemm.w4a16_kernel(t, fmt, group, False,
                                rule(m, n, k, group, sms, 8), arch)
    c = torch.full((m, n), math.nan, dtype=dtype, device="cuda")
    kernel(a, p.weight, c, sb=p.scales)
    torch.cuda.synchronize()
    assert torch.equal(c, ref), (c - ref).abs().max()


@pytest.mark.skipif(not HOPPER, reason="the sm_90a kernel needs an sm_90 GPU")
@pytest.mark.parametrize("tile", [
    (64, 8, 64, 16, 1), (64, 16, 64, 12, 2), (128, 16, 64, 12, 1),
    (64, 64, 64, 8, 2), (128, 8, 64, 12, 12)])
@pytest.mark.parametrize("fmt, zeros", [("e4m3", False), ("u8", True)])
def test_sm90_tiles_launch_after_launch(tile, fmt, zeros):
    """The sm_90a W8A16 kernel at several tiles (two CTAs per SM where K is
    not split, split-K in a cluster and through the workspace), 10 launches
    each into poisoned outputs."""
    m, n, k = 5, 1040, 2112
    p, w32 = weights(n, k, 64, fmt, zeros, torch.bfloat16, 7)
    a = activations(m, k, torch.bfloat16, 8)
    kernel = _gemm.w4a16_kernel("bf16", fmt, 64, zeros, tile, "sm_90a")
    for _ in range(10):
        c = torch.full((m, n), math.nan, dtype=torch.bfloat16, device="cuda")
        kernel(a, p.weight, c, sb=p.scales, zb=p.zeros)
        torch.cuda.synchronize()
        check_close(c, a, w32)


def test_cuda_graph_and_compile():
    """tilec.gemm on an 8-bit weight under CUDA graph capture and replay
    and under torch.compile(fullgraph=True) (tilec::gemm_w4a16)."""
    m, n, k, group = 4, 512, 1024, 128
    p, w32 = weights(n, k, group, "e4m3", False, torch.bfloat16, 21)
    a = activations(m, k, torch.bfloat16, 22)
    out = tilec.gemm(a, p)  # compile outside the capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = tilec.gemm(a, p)
    a.copy_(activations(m, k, torch.bfloat16, 23))
    graph.replay()
    torch.cuda.synchronize()
    check_close(out, a, w32)
    fn = torch.compile(lambda x: tilec.gemm(x, p), fullgraph=True)
    check_close(fn(a), a, w32)
