"""The operands the epilogue ops and block scales read, through
Kernel.check(): typed bias vectors, scale vectors, the residual tensor, C
and B of a swiglu kernel (C is M x N/2), and sfa/sfb of the block-scaled
fp8 kernel; each bad one a ValueError naming the argument. No GPU: the
operands are __cuda_array_interface__ objects at made-up addresses (a
launch on the GPU: test_gpu_torch.py; in the simulator: test_sim_launch.py).
"""
import os

import pytest

import tilec
from fake_arrays import BASE, Fake
from tilec._operands import Operand

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
MB = 1 << 20


def fused(ops, arch="sm_80"):
    """examples/gemm_sm80.tile in f16 with `epilogue ops` (its BN is 128)."""
    with open(os.path.join(ROOT, "examples", "gemm_sm80.tile")) as f:
        source = f.read().replace("bf16", "f16")
    if arch != "sm_80":
        source = source.replace("arch     sm_80", f"arch     {arch}")
    return tilec.compile(source.replace("epilogue store", "epilogue " + ops))


def fp8_block():
    with open(os.path.join(ROOT, "examples", "gemm_fp8_block_sm90.tile")) as f:
        return tilec.compile(f.read())


def matrices(m, n, k, c_cols=None):
    """f16 a (M x K), b (N x K), c (M x c_cols), 1 MiB apart."""
    return dict(a=Fake((m, k), ptr=BASE), b=Fake((n, k), ptr=BASE + MB),
                c=Fake((m, c_cols or n), ptr=BASE + 2 * MB))


def test_operand_info_reports_the_ops():
    info = fused("bias(col, f32) swiglu scale(col) residual -> store").operands
    assert (info["bias_type"], info["bias_axis"], info["scale_axis"],
            info["residual_type"], info["swiglu"], info["tile_n"],
            info["block_scaled"]) == ("f32", 1, 3, "f16", 1, 128, 0)
    # API 16: the same by role, in the order written.
    assert info["epilogue"] == [
        dict(role="bias", type="f32", ld=None, axis=1),
        dict(role="scale", type="f32", ld=None, axis=3),
        dict(role="residual", type="f16", ld="ldr", axis=0)]
    info = fused("scale(row) swiglu(interleaved) bias(row)").operands
    assert (info["bias_type"], info["bias_axis"], info["scale_axis"],
            info["residual_type"], info["swiglu"]) == ("f16", 2, 2, None, 2)
    info = fp8_block().operands
    assert (info["block_scaled"], info["bias_type"], info["swiglu"]) == (
        1, None, 0)


def test_typed_bias_and_residual():
    k = fused("bias(col, f32) residual")
    ops = matrices(64, 256, 128)
    bias = Fake((256,), "<f4", ptr=BASE + 3 * MB)
    # A residual with a padded leading dimension (ldr = 264).
    residual = Fake((64, 256), strides=(264, 1), ptr=BASE + 4 * MB + 2)
    m, n, kk, lda, ldb, ldc, p, _ = k.check(**ops, bias=bias,
                                            residual=residual)
    assert (m, n, kk, lda, ldb, ldc) == (64, 256, 128, 128, 128, 256)
    assert (p.epilogue, p.sfa) == (
        {"bias": (BASE + 3 * MB, 0), "residual": (BASE + 4 * MB + 2, 264)}, 0)
    # M = 1: ldr is at least C's columns whatever dim 0's stride says.
    one = dict(a=Fake((1, 128)), b=Fake((256, 128), ptr=BASE + MB),
               c=Fake((1, 256), ptr=BASE + 2 * MB))
    operands = k.check(**one, bias=bias, residual=Fake(
        (1, 256), strides=(1, 1), ptr=BASE + 4 * MB))[6]
    assert operands.epilogue["residual"][1] == 256


@pytest.mark.parametrize("change, message", [
    (dict(bias=None), "bias: the kernel's epilogue reads a bias vector "
     "(legal: a CUDA f32 vector of N = 256 elements)"),
    (dict(bias=Fake((256,), ptr=BASE + 3 * MB)),
     "bias: dtype f16 is not the kernel's bias type (legal: f32)"),
    (dict(bias=Fake((64,), "<f4", ptr=BASE + 3 * MB)),
     "bias: shape (64,) strides (1,) (legal: a contiguous vector of N = 256"),
    (dict(bias=Fake((256,), "<f4", strides=(2,), ptr=BASE + 3 * MB)),
     "bias: shape (256,) strides (2,)"),
    (dict(bias=Fake((256,), "<f4", ptr=BASE + 3 * MB + 2)),
     "bias: data pointer 0x7f0000300002 is not 4-byte aligned"),
    (dict(residual=None), "residual: the kernel's epilogue reads a residual "
     "tensor (legal: a CUDA f16 M x N = 64 x 256 row-major tensor)"),
    (dict(residual=Fake((64, 256), "<f4", ptr=BASE + 4 * MB)),
     "residual: dtype f32 is not the kernel's residual type (legal: f16)"),
    (dict(residual=Fake((64, 128), ptr=BASE + 4 * MB)),
     "residual: shape (64, 128) strides (128, 1) (legal: an M x N = 64 x 256 "
     "tensor, row-major"),
    (dict(residual=Fake((64, 256), strides=(1, 64), ptr=BASE + 4 * MB)),
     "residual: shape (64, 256) strides (1, 64)"),
    (dict(residual=Fake((64, 256), strides=(200, 1), ptr=BASE + 4 * MB)),
     "residual: leading dimension ldr = 200 elements (legal: at least 256"),
    (dict(residual=Fake((64, 256), ptr=BASE + 4 * MB + 1)),
     "residual: data pointer 0x7f0000400001 is not 2-byte aligned"),
    (dict(residual=Fake((64, 256), ptr=BASE + 4 * MB), scale=Fake(
        (256,), "<f4")), "scale: the kernel has no scale op (legal: None)"),
    (dict(residual=object()), "residual: object is not a tensor"),
    (dict(biass=Fake((256,), "<f4")),
     "biass: the kernel has no biass op (legal: None)"),
    (dict(sfa=Fake((64, 1), "<f4")), "sfa: the kernel has no block scales"),
])
def test_bias_and_residual_errors_name_the_argument(change, message):
    k = fused("bias(col, f32) residual")
    args = dict(matrices(64, 256, 128),
                bias=Fake((256,), "<f4", ptr=BASE + 3 * MB),
                residual=Fake((64, 256), ptr=BASE + 4 * MB))
    args.update(change)
    with pytest.raises(ValueError) as e:
        k.check(**args)
    assert message in str(e.value)


def test_residual_refused_without_the_op():
    k = fused("bias(row)")
    with pytest.raises(ValueError, match="residual: the kernel has no "
                       "residual op"):
        k.check(**matrices(64, 256, 128), bias=Fake((64,), ptr=BASE + 3 * MB),
                residual=Fake((64, 256), ptr=BASE + 4 * MB))


def test_swiglu_halves_c_and_its_vectors():
    k = fused("bias(col, f32) swiglu scale(col) residual")
    # C is M x N/2 = 64 x 128, B has N = 256 rows; bias before swiglu has
    # N elements, scale after it N/2, the residual C's shape.
    m, n, kk, _, _, ldc, p, _ = k.check(
        **matrices(64, 256, 128, c_cols=128),
        bias=Fake((256,), "<f4", ptr=BASE + 3 * MB),
        scale=Fake((128,), "<f4", ptr=BASE + 4 * MB),
        residual=Fake((64, 128), ptr=BASE + 5 * MB))
    assert (m, n, kk, ldc, p.epilogue["residual"][1]) == (64, 256, 128, 128,
                                                           128)
    with pytest.raises(ValueError, match=r"scale: shape \(256,\) strides "
                       r"\(1,\) \(legal: a contiguous vector of N/2 = 128 "
                       r"elements \(after swiglu\)"):
        k.check(**matrices(64, 256, 128, c_cols=128),
                bias=Fake((256,), "<f4", ptr=BASE + 3 * MB),
                scale=Fake((256,), "<f4", ptr=BASE + 4 * MB),
                residual=Fake((64, 128), ptr=BASE + 5 * MB))
    with pytest.raises(ValueError, match=r"residual: shape \(64, 256\).*"
                       r"M x N/2 \(swiglu\) = 64 x 128"):
        k.check(**matrices(64, 256, 128, c_cols=128),
                bias=Fake((256,), "<f4", ptr=BASE + 3 * MB),
                scale=Fake((128,), "<f4", ptr=BASE + 4 * MB),
                residual=Fake((64, 256), ptr=BASE + 5 * MB))
    # B with as many rows as C has columns is not the N x K matrix.
    with pytest.raises(ValueError, match=r"b: shape \(128, 128\)"):
        k.check(**matrices(64, 128, 128, c_cols=128),
                bias=Fake((256,), "<f4", ptr=BASE + 3 * MB),
                scale=Fake((128,), "<f4", ptr=BASE + 4 * MB),
                residual=Fake((64, 128), ptr=BASE + 5 * MB))


def test_swiglu_tile_halves_need_whole_tiles():
    k = fused("swiglu")
    # N = 2 x 96 = 192 is not a multiple of BN = 128.
    with pytest.raises(ValueError, match="c: 96 columns, so N = 192 "
                       "accumulator columns, but the kernel's swiglu pairs "
                       "the halves of each BN = 128 tile"):
        k.check(**matrices(64, 192, 128, c_cols=96))
    assert k.check(**matrices(64, 256, 128, c_cols=128))[1] == 256
    # Interleaved pairs take any even N.
    k = fused("swiglu(interleaved)")
    assert k.check(**matrices(64, 192, 128, c_cols=96))[1] == 192


def fp8(rows, k, ptr):
    """An e4m3 rows x K row-major operand (no __cuda_array_interface__
    typestr names e4m3)."""
    return Operand(ptr, "e4m3", (rows, k), (k, 1), ("cuda", None))


def block_args(m, n, k):
    kb, nb = -(-k // 128), -(-n // 128)
    return dict(a=fp8(m, k, BASE), b=fp8(n, k, BASE + MB),
                c=Fake((m, n), "<f2", ptr=BASE + 2 * MB),
                sfa=Fake((m, kb), "<f4", ptr=BASE + 3 * MB),
                sfb=Fake((nb, kb), "<f4", ptr=BASE + 4 * MB))


def bf16(rows, cols, ptr):
    return Operand(ptr, "bf16", (rows, cols), (cols, 1), ("cuda", None))


def test_block_scales():
    k = fp8_block()
    args = block_args(100, 300, 640)
    args["c"] = bf16(100, 300, BASE + 2 * MB)
    m, n, kk, _, _, _, p, _ = k.check(**args)
    assert (m, n, kk, p.sfa, p.sfb) == (100, 300, 640, BASE + 3 * MB,
                                        BASE + 4 * MB)


@pytest.mark.parametrize("change, message", [
    (dict(sfa=None), "sfa: the kernel is block-scaled (scale a f32 "
     "block(1, 128)) (legal: a contiguous row-major f32[M, ceil(K / 128)] = "
     "[100, 5] tensor)"),
    (dict(sfb=None), "sfb: the kernel is block-scaled (scale b f32 "
     "block(128, 128)) (legal: a contiguous row-major f32[ceil(N / 128), "
     "ceil(K / 128)] = [3, 5] tensor)"),
    (dict(sfa=Fake((100, 5), "<f2", ptr=BASE + 3 * MB)),
     "sfa: dtype f16 is not the kernel's sfa type (legal: f32)"),
    (dict(sfa=Fake((100, 4), "<f4", ptr=BASE + 3 * MB)),
     "sfa: shape (100, 4) strides (4, 1) (legal: a contiguous row-major "
     "f32[M, ceil(K / 128)] = [100, 5] tensor, strides (5, 1))"),
    # torch's scaled_mm layout (M-major) is not tilec's.
    (dict(sfa=Fake((100, 5), "<f4", strides=(1, 100), ptr=BASE + 3 * MB)),
     "sfa: shape (100, 5) strides (1, 100)"),
    (dict(sfb=Fake((5, 3), "<f4", ptr=BASE + 4 * MB)),
     "sfb: shape (5, 3) strides (3, 1) (legal: a contiguous row-major "
     "f32[ceil(N / 128), ceil(K / 128)] = [3, 5] tensor"),
    (dict(sfb=Fake((3, 5), "<f4", ptr=BASE + 4 * MB + 2)),
     "sfb: data pointer 0x7f0000400002 is not 4-byte aligned"),
    (dict(bias=Fake((300,), "<f4")), "bias: the kernel has no bias op"),
])
def test_block_scale_errors_name_the_argument(change, message):
    k = fp8_block()
    args = block_args(100, 300, 640)
    args["c"] = bf16(100, 300, BASE + 2 * MB)
    args.update(change)
    with pytest.raises(ValueError) as e:
        k.check(**args)
    assert message in str(e.value)


def fp8_block_m_major():
    """The example with `scale a ... major(M)`: SFA f32[ceil(K/128), M]."""
    with open(os.path.join(ROOT, "examples", "gemm_fp8_block_sm90.tile")) as f:
        source = f.read()
    line = "scale a  f32 block(1, 128)"
    assert source.count(line) == 1
    return tilec.compile(source.replace(line, line + " major(M)"))


def test_block_scales_m_major():
    k = fp8_block_m_major()
    assert k.operands["sfa_m_major"] == 1
    assert fp8_block().operands["sfa_m_major"] == 0
    args = block_args(100, 300, 640)
    args["c"] = bf16(100, 300, BASE + 2 * MB)
    # torch's scaled_mm layout: the M x ceil(K/128) view, strides (1, M).
    args["sfa"] = Fake((100, 5), "<f4", strides=(1, 100), ptr=BASE + 3 * MB)
    p = k.check(**args)[6]
    assert p.sfa == BASE + 3 * MB
    # The row-major layout is refused, with the one the kernel takes.
    args["sfa"] = Fake((100, 5), "<f4", ptr=BASE + 3 * MB)
    with pytest.raises(ValueError) as e:
        k.check(**args)
    assert ("sfa: shape (100, 5) strides (5, 1) (legal: an M-major "
            "f32[M, ceil(K / 128)] = [100, 5] tensor, strides (1, 100)"
            in str(e.value))


def test_torch_block_scales_on_cpu_are_refused():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    k = fp8_block()
    a = torch.zeros(64, 256, dtype=torch.float8_e4m3fn)
    with pytest.raises(ValueError, match="a: the tensor is on cpu"):
        k(a, a, torch.zeros(64, 64, dtype=torch.bfloat16),
          sfa=torch.ones(64, 2), sfb=torch.ones(1, 2))
