"""tilec.tune_gemm and tilec.tune_w4a16 on a GPU: a winner remembered for
the bf16, the block-scaled fp8 or the W4A16 program is what tilec.gemm
then runs (Kernel.tuned says so), and its result matches the fp32
product. Skipped without torch or a GPU."""
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

import tilec  # noqa: E402
from tilec import _gemm  # noqa: E402

SM90 = torch.cuda.get_device_capability() == (9, 0)


@pytest.mark.skipif(not SM90, reason="the sm_90a program needs an H100/H200")
def test_tune_gemm_then_gemm_runs_the_winner():
    m, n, k = 64, 2112, 7168
    gen = torch.Generator(device="cuda").manual_seed(5)
    a = (torch.rand((m, k), generator=gen, device="cuda") - 0.5).bfloat16()
    # b is K x N with K contiguous (the transpose of an N x K row-major
    # matrix): the "kk" program tune_gemm tunes by default.
    b = (torch.rand((n, k), generator=gen, device="cuda") - 0.5).bfloat16().t()
    # The shape runs once untuned: tuning must replace the choice made.
    tilec.gemm(a, b)
    report = tilec.tune_gemm(m, n, k, budget_s=4)
    (result,) = report["results"]
    assert result["check_pass"] is True and result["stored"] is True
    assert result["timed"] >= 2
    assert result["best_us"] <= result["baseline_us"] * 1.05
    c = tilec.gemm(a, b)
    kernel = next(iter(_gemm._plans.values()))[0]
    assert kernel.tuned is not None and result["best"] in kernel.tuned
    assert kernel.explain().startswith("tuned: ")
    ref = a.float() @ b.float()
    assert torch.allclose(c.float(), ref, rtol=2 ** -7, atol=1e-2)


@pytest.mark.skipif(not SM90, reason="the sm_90a program needs an H100/H200")
def test_tune_block_scaled_then_gemm_runs_the_winner():
    m, n, k = 128, 1536, 1024
    report = tilec.tune_gemm(m, n, k, dtype="e4m3", block_scales=True,
                             budget_s=4)
    (result,) = report["results"]
    assert result["check_pass"] is True and result["stored"] is True
    assert result["timed"] >= 2
    gen = torch.Generator(device="cuda").manual_seed(6)
    a = (torch.rand((m, k), generator=gen, device="cuda") - 0.5).to(
        torch.float8_e4m3fn)
    w = (torch.rand((n, k), generator=gen, device="cuda") - 0.5).to(
        torch.float8_e4m3fn)
    sfa = torch.rand((m, k // 128), generator=gen, device="cuda") + 0.5
    sfb = torch.rand((n // 128, k // 128), generator=gen, device="cuda") + 0.5
    c = tilec.gemm(a, w.t(), sfa=sfa, sfb=sfb)
    kernel = next(iter(_gemm._block_plans.values()))[0]
    assert kernel.tuned is not None and result["best"] in kernel.tuned
    a32 = a.float() * sfa.repeat_interleave(128, dim=1)
    w32 = w.float() * sfb.repeat_interleave(128, dim=0).repeat_interleave(
        128, dim=1)
    ref = a32 @ w32.t()
    assert torch.allclose(c.float(), ref, rtol=2 ** -7, atol=2e-2 * float(
        ref.abs().max()))


def test_tune_w4a16_then_gemm_runs_the_winner():
    m, n, k = 16, 2048, 4096
    report = tilec.tune_w4a16(m, n, k, fmt="u4", group=128, zeros=True,
                              budget_s=4)
    (result,) = report["results"]
    assert result["check_pass"] is True and result["stored"] is True
    assert result["timed"] >= 2
    gen = torch.Generator().manual_seed(7)
    wf = torch.randn((n, k), generator=gen) * 0.05
    q, s, z = tilec.quantize_weights(wf, 128, "u4", scale_dtype=torch.bfloat16)
    p = tilec.pack_weights(q, s, z, fmt="u4", group=128).to("cuda")
    w32 = tilec.unpack_weights(p, dequantize=True).to(torch.bfloat16).float()
    a = (torch.randn((m, k), generator=gen) * 0.5).bfloat16().cuda()
    c = tilec.gemm(a, p)
    kernel = next(iter(_gemm._w4_plans.values()))
    assert kernel.tuned is not None and result["best"] in kernel.tuned
    ref = a.float() @ w32.t()
    mag = a.float().abs() @ w32.abs().t()
    assert bool(((c.float() - ref).abs() <= 2.0 ** -8 * mag +
                 2.0 ** -7 * ref.abs()).all())
