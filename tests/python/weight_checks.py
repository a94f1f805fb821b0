"""What the GPU tests of quantized weights (test_gpu_w4a16.py,
test_gpu_w8a16.py) share: a random weight quantized and packed with the
weight the kernel should compute computed by torch, random activations,
and the element-wise check of a GEMM output against a @ W.T in f32."""
import torch

import tilec


def weights(n, k, group, fmt, zeros, dtype, seed):
    """(PackedWeights on the GPU, W f32 [N, K]): a normal weight quantized
    to `fmt` in groups of `group` (scales of `dtype`; u4/u8 zero points
    when `zeros`), and W computed here by torch from the values (q.float(),
    torch's own int8/uint8/float8 conversion, minus the zero point, times
    the scale; not tilec's dequantizer), rounded once to `dtype` as the
    kernel's fma does."""
    gen = torch.Generator().manual_seed(seed)
    w = torch.randn((n, k), generator=gen) * 0.05
    q, s, z = tilec.quantize_weights(w, group, fmt, scale_dtype=dtype)
    if not zeros:
        z = None
    p = tilec.pack_weights(q, s, z, fmt=fmt, group=group).to("cuda")
    value = q.float()
    if z is not None:
        value = value - z.t().float().repeat_interleave(group, dim=1)
    w32 = value * s.t().float().repeat_interleave(group, dim=1)
    # The kernel's dequantized weight is rounded once to the 16-bit type.
    return p, w32.to(dtype).float().cuda()


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
