"""tilec.tune and tilec.tune_gemm on a GPU: a winner remembered by
tune_gemm is what tilec.gemm then runs (Kernel.tuned says so), and its
result matches torch.matmul. Skipped without torch or a GPU."""
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
    report = tilec.tune_gemm(m, n, k, budget_s=4)
    (result,) = report["results"]
    assert result["check_pass"] is True and result["stored"] is True
    assert result["timed"] >= 2
    assert result["best_us"] <= result["baseline_us"] * 1.05
    gen = torch.Generator(device="cuda").manual_seed(5)
    a = (torch.rand((m, k), generator=gen, device="cuda") - 0.5).bfloat16()
    # b is K x N with K contiguous (the transpose of an N x K row-major
    # matrix): the "kk" program tune_gemm tuned by default.
    b = (torch.rand((n, k), generator=gen, device="cuda") - 0.5).bfloat16().t()
    _gemm._plans.clear()
    c = tilec.gemm(a, b)
    kernel = next(iter(_gemm._plans.values()))[0]
    assert kernel.tuned is not None and result["best"] in kernel.tuned
    ref = a.float() @ b.float()
    assert torch.allclose(c.float(), ref, rtol=2 ** -7, atol=1e-2)
