"""What the GPU tests of quantized weights (test_gpu_w4a16.py,
test_gpu_w8a16.py) share: random activations and the element-wise check
of a GEMM output against a @ W.T in f32."""
import torch


def activations(m, k, dtype, seed):
    """Normal activations (0.5 sigma) of `dtype` on the GPU, M x K."""
    gen = torch.Generator().manual_seed(seed)
    return (torch.randn((m, k), generator=gen) * 0.5).to(dtype).cuda()


def check_close(c, a, w32):
    """Every element of c within 2^-8 |a| |W|^T + 2^-7 |a W^T| of a W^T:
    the rounding of the 16-bit weight and output, not a wrong sum."""
    ref = a.float() @ w32.t()
    mag = a.float().abs() @ w32.abs().t()
    err = (c.float() - ref).abs()
    bound = 2.0 ** -8 * mag + 2.0 ** -7 * ref.abs()
    bad = ~(err <= bound)
    assert not bool(bad.any()), (
        f"{int(bad.sum())}/{bad.numel()} wrong, max err {float(err.max())}")
