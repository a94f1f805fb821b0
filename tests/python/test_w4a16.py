"""4-bit weights (W4A16) from Python without a GPU: the programs
tilec._gemm generates (w4a16_source) compile for sm_80, the tile rule
(w4a16_tile), what a W4A16 kernel reports of its operands (API 12:
weight_group, weight_scale_type, weight_zeros) and the argument checks of
Kernel(a, b, c, sb=, zb=) on objects with __cuda_array_interface__ at
made-up addresses (tests/python/sim_launch.py launches one in the
simulator; tests/python/test_gpu_w4a16.py on a GPU)."""
import pytest

import tilec
from fake_arrays import BASE, Fake
from tilec import _gemm

MB = 1 << 20


def kernel(a_type="f16", fmt="u4", group=128, zeros=True,
           tile=(16, 64, 128, 4)):
    return _gemm.w4a16_kernel(a_type, fmt, group, zeros, tile)


def test_generated_source():
    source, key = _gemm.w4a16_source("bf16", "u4", 128, True,
                                     (16, 32, 128, 4))
    assert "  arch     sm_80\n" in source
    assert "  a        : bf16[M, K] major(K)\n" in source
    assert "  b        : u4[N, K] major(K)\n" in source
    assert "  c        : bf16[M, N] major(N)\n" in source
    assert "  scale b  bf16 group(128) zero(u8)\n" in source
    assert "  tile     (BM = 16, BN = 32, BK = 128)\n" in source
    assert "  stages   4\n" in source
    assert key == ("w4a16", "bf16", "u4", 128, True, 16, 32, 128, 4)
    source, _ = _gemm.w4a16_source("f16", "i4", 32, False, (64, 64, 64, 3))
    assert "  scale b  f16 group(32)\n" in source
    assert "zero" not in source


@pytest.mark.parametrize("a_type, fmt, group, zeros", [
    ("bf16", "u4", 128, True), ("f16", "u4", 64, False),
    ("bf16", "i4", 32, False), ("f16", "i4", 128, False),
    ("bf16", "i8", 128, False), ("f16", "u8", 64, True),
    ("bf16", "e4m3", 32, False), ("f16", "e5m2", 128, False)])
@pytest.mark.parametrize("m", [1, 20, 64])
def test_every_rule_tile_compiles(a_type, fmt, group, zeros, m):
    bits = _gemm._WEIGHT_BITS[fmt]
    for n, k in ((4096, 4096), (28672, 4096), (4096, 14336), (64, 192)):
        tile = _gemm.w4a16_tile(m, n, k, group, 132, bits)
        k_ = kernel(a_type, fmt, group, zeros, tile)
        assert k_.arch == "sm_80"
        info = k_.operands
        assert info["b_type"] == fmt
        assert info["weight_group"] == group
        assert info["weight_scale_type"] == a_type
        assert info["weight_zeros"] == int(zeros)
        assert "sb" in [p[0] for p in k_.params]


@pytest.mark.parametrize("a_type, fmt, group, zeros", [
    ("bf16", "u4", 128, True), ("f16", "i4", 32, False),
    ("bf16", "u8", 128, True), ("f16", "e4m3", 64, False)])
@pytest.mark.parametrize("m", [1, 16, 64, 200])
def test_every_sm90_rule_tile_compiles(a_type, fmt, group, zeros, m):
    bits = _gemm._WEIGHT_BITS[fmt]
    for n, k in ((4096, 4096), (28672, 4096), (6144, 4096), (64, 192)):
        tile = _gemm.w4a16_tile_sm90(m, n, k, group, 132, bits)
        source, key = _gemm.w4a16_source(a_type, fmt, group, zeros, tile,
                                         "sm_90a")
        assert "  arch     sm_90a\n" in source
        assert "  schedule swap_ab" in source
        assert key[-1] == "sm_90a"
        k_ = tilec.compile(source)
        assert k_.arch == "sm_90a"
        assert k_.operands["weight_group"] == group
        assert "tmapSB" in [p[0] for p in k_.params]


def test_sm90_tile_rule_and_arch():
    # BN the tokens rounded up to 8; BM 128 where its tiles are a third of
    # the SMs (6144 / 128 = 48 >= 44), K split into one wave of two CTAs
    # per SM: 4 splits, 192 CTAs.
    assert _gemm.w4a16_tile_sm90(1, 6144, 4096, 128, 132)[:2] == (128, 8)
    assert _gemm.w4a16_tile_sm90(1, 6144, 4096, 128, 132)[4] == 4
    # N = 4096: 32 tiles of 128 are fewer: BM 64, 64 tiles, split 4.
    assert _gemm.w4a16_tile_sm90(16, 4096, 4096, 128, 132)[:2] == (64, 16)
    assert _gemm.w4a16_tile_sm90(16, 4096, 4096, 128, 132)[4] == 4
    # 224 tiles fill the SMs: no split, two CTAs per SM (16 stages fit).
    assert _gemm.w4a16_tile_sm90(1, 28672, 4096, 128, 132) == \
        (128, 8, 64, 16, 1)
    assert _gemm.w4a16_arch("sm_90a", 64, 28672) == "sm_90a"
    assert _gemm.w4a16_arch("sm_90a", 16, 4096) == "sm_90a"
    assert _gemm.w4a16_arch("sm_90a", 16, 14336) == "sm_90a"
    # 8-bit codes: BM 64 while its tiles fit a wave of two CTAs per SM.
    assert _gemm.w4a16_tile_sm90(16, 14336, 4096, 128, 132, 8)[0] == 64
    assert _gemm.w4a16_tile_sm90(16, 28672, 8192, 128, 132, 8)[0] == 128
    assert _gemm.w4a16_arch("sm_80", 64, 4096) == "sm_80"
    # 4-bit codes at K >= 8192 with at most 16 tokens: BM 128 and twice the
    # splits (the same 256 CTAs; H200, session 23), not at 32 tokens, not
    # for 8-bit codes, not where 128-row tiles cannot split far enough.
    assert _gemm.w4a16_tile_sm90(16, 4096, 14336, 128, 132) == \
        (128, 16, 64, 15, 8)
    assert _gemm.w4a16_tile_sm90(1, 4096, 8192, 128, 132) == \
        (128, 8, 64, 16, 8)
    assert _gemm.w4a16_tile_sm90(32, 4096, 14336, 128, 132)[0] == 64
    assert _gemm.w4a16_tile_sm90(16, 4096, 14336, 128, 132, 8)[0] == 64
    assert _gemm.w4a16_tile_sm90(1, 512, 14336, 128, 132)[:2] == (64, 8)
    assert _gemm.w4a16_tile_sm90(16, 4096, 4096, 128, 132)[0] == 64
    with pytest.raises(ValueError, match="arch"):
        _gemm.w4a16_source("bf16", "u4", 128, True, (64, 8, 64, 4),
                           "sm_100a")


def test_tile_rule():
    # 64 tiles of 16 x 64 on 132 SMs: K split in 4 (an even split of the 32
    # k-tiles, 256 CTAs: one wave of at most 3 per SM).
    assert _gemm.w4a16_tile(1, 4096, 4096, 128, 132) == (16, 64, 128, 4, 4)
    # 448 tiles of BN 64 are more than two waves: BN 128, 224 tiles, no
    # split.
    assert _gemm.w4a16_tile(16, 28672, 4096, 128, 132) == (16, 128, 128, 4, 1)
    # BM 64: BN 256 x BK 256 where 112 tiles fill most of a wave (2
    # stages fit).
    assert _gemm.w4a16_tile(64, 28672, 4096, 128, 132) == (64, 256, 256, 2, 1)
    # 131 tiles: just short of a wave, split in 2.
    assert _gemm.w4a16_tile(17, 8384, 8192, 32, 132) == (32, 64, 128, 4, 2)
    # K >= 8192: BN 128, BK 128 at BM 64; 66 tiles, split in 2 (BM 64 keeps
    # one CTA per SM).
    assert _gemm.w4a16_tile(64, 8448, 8192, 64, 132) == (64, 128, 128, 4, 2)
    assert _gemm.w4a16_tile(1, 8192, 28672, 128, 132) == (16, 128, 256, 4, 4)
    # K = 192: three k-tiles of 64, too few to split.
    assert _gemm.w4a16_tile(4, 4096, 192, 64, 132) == (16, 64, 64, 4, 1)


def test_bad_program_arguments():
    with pytest.raises(ValueError, match="a: type e4m3"):
        _gemm.w4a16_source("e4m3", "u4", 128, True, (16, 32, 128, 4))
    with pytest.raises(ValueError, match="i4 weights have no zero points"):
        _gemm.w4a16_source("bf16", "i4", 128, True, (16, 32, 128, 4))
    with pytest.raises(ValueError, match="e4m3 weights have no zero points"):
        _gemm.w4a16_source("bf16", "e4m3", 128, True, (16, 32, 128, 4))
    with pytest.raises(ValueError, match="format 'i2'"):
        _gemm.w4a16_source("bf16", "i2", 128, False, (16, 32, 128, 4))
    # A fixed tile: named when it is not one, and checked against the
    # packed weight's blocks before any program is written.
    with pytest.raises(ValueError, match=r"tile: BM = 0 \(legal"):
        _gemm.w4a16_source("bf16", "u4", 128, False, (0, 64, 128, 4))
    with pytest.raises(ValueError, match=r"tile: BN = -64"):
        _gemm.w4a16_source("bf16", "u4", 128, False, (16, -64, 128, 4))
    with pytest.raises(ValueError, match=r"tile: \(16, 64, 128, 4, 1, 1\)"):
        _gemm.w4a16_source("bf16", "u4", 128, False, (16, 64, 128, 4, 1, 1))
    with pytest.raises(ValueError, match=r"BN = 24 is not a multiple of 16"):
        _gemm.w4a16_source("bf16", "u4", 128, False, (16, 24, 128, 4))
    with pytest.raises(ValueError, match=r"BK = 192 and group\(128\) do not "
                       "nest"):
        _gemm.w4a16_source("bf16", "u4", 128, False, (16, 64, 192, 4))
    with pytest.raises(ValueError, match="a fixed tile is a weight "
                       "program's"):
        _gemm.gemm_program("sm_80", "bf16", 16, 64, 64, tile=(16, 64, 64, 4))
    with pytest.raises(ValueError, match=r"a: type f32 \(legal with a "
                       "quantized weight"):
        _gemm.w4a16_source("f32", "u4", 128, False, (16, 64, 128, 4))
    source, _ = _gemm.w4a16_source("f16", "e5m2", 64, False,
                                   (16, 64, 64, 4))
    assert "kernel tilec_w8a16_f16_e5m2_g64_16x64x64x4 {" in source
    assert "  b        : e5m2[N, K] major(K)\n" in source


def test_other_kernels_report_no_weight():
    source, _ = _gemm.program_source("sm_80", "f16", "f16", "K", "K", 64, 64,
                                     64)
    info = tilec.compile(source).operands
    assert info["weight_group"] == 0
    assert info["weight_scale_type"] is None
    assert info["weight_zeros"] == 0


def operands(m=4, n=256, k=512, group=128, **change):
    ops = dict(a=Fake((m, k)), b=Fake((n, k // 8), "<i4", ptr=BASE + MB),
               c=Fake((m, n), ptr=BASE + 2 * MB),
               sb=Fake((k // group, n), ptr=BASE + 3 * MB),
               zb=Fake((k // group, n), "|u1", ptr=BASE + 4 * MB))
    ops.update(change)
    return ops


def test_check_reads_packed_weight_scales_and_zeros():
    m, n, k, lda, ldb, ldc, p, _ = kernel().check(**operands())
    assert (m, n, k, lda, ldb, ldc) == (4, 256, 512, 512, 512, 256)
    assert (p.b, p.sb, p.zb) == (BASE + MB, BASE + 3 * MB, BASE + 4 * MB)
    # Without zero points: zb is 0.
    ops = operands()
    del ops["zb"]
    p = kernel(zeros=False).check(**ops)[6]
    assert (p.sb, p.zb) == (BASE + 3 * MB, 0)


def test_packed_weights_object_fills_sb_and_zb():
    ops = operands()

    class PackedWeights:  # the attributes tilec.PackedWeights has
        weight, scales, zeros = ops["b"], ops["sb"], ops["zb"]
    p = kernel().check(ops["a"], PackedWeights(), ops["c"])[6]
    assert (p.b, p.sb, p.zb) == (BASE + MB, BASE + 3 * MB, BASE + 4 * MB)


@pytest.mark.parametrize("change, message", [
    (dict(sb=None), "sb: the kernel dequantizes a quantized weight with group "
     "scales (legal: a contiguous CUDA f16[ceil(K / 128), N] = [4, 256]"),
    (dict(zb=None), "zb: the kernel dequantizes a quantized weight with zero "
     "points (legal: a contiguous CUDA u8[ceil(K / 128), N] = [4, 256]"),
    (dict(sb=Fake((4, 256), "<f4", ptr=BASE + 3 * MB)),
     "sb: dtype f32 is not the kernel's sb type (legal: f16)"),
    (dict(sb=Fake((8, 256), ptr=BASE + 3 * MB)), "sb: shape (8, 256)"),
    (dict(zb=Fake((4, 256), "|u1", strides=(264, 1), ptr=BASE + 4 * MB)),
     "zb: shape (4, 256) strides (264, 1) (legal: a contiguous row-major "
     "u8"),
    (dict(zb=Fake((4, 256), "|u1", ptr=BASE + 4 * MB + 8)),
     "zb: data pointer 0x7f0000400008 is not 16-byte aligned"),
    (dict(b=Fake((256, 512), ptr=BASE + MB)),
     "b: dtype f16 is not the packed u4 weight (legal: the int32 "
     "[N, K*4/32] = [256, 64] tensor of tilec.pack_weights)"),
    (dict(b=Fake((256, 32), "<i4", ptr=BASE + MB)),
     "b: shape (256, 32) strides (32, 1) (legal: a contiguous int32"),
    (dict(a=Fake((4, 480)), b=Fake((256, 60), "<i4", ptr=BASE + MB)),
     "b: N = 256, K = 480: the packed u4 weight holds blocks of 16 "
     "output channels x 64 K"),
    (dict(c=Fake((4, 200), ptr=BASE + 2 * MB)), "b: N = 200"),
])
def test_bad_weight_operands(change, message):
    with pytest.raises(ValueError) as e:
        kernel().check(**operands(**change))
    assert message in str(e.value)


def test_zero_points_on_a_kernel_without_them():
    with pytest.raises(ValueError) as e:
        kernel(zeros=False).check(**operands())
    assert "zb: the kernel takes no zero points (legal: None; write 'scale " \
        "b ... zero(u8)'" in str(e.value)


def test_group_scales_on_a_plain_kernel():
    source, _ = _gemm.program_source("sm_80", "f16", "f16", "K", "K", 64, 64,
                                     64)
    with pytest.raises(ValueError) as e:
        tilec.compile(source).check(
            Fake((64, 64)), Fake((64, 64), ptr=BASE + MB),
            Fake((64, 64), ptr=BASE + 2 * MB),
            sb=Fake((1, 64), ptr=BASE + 3 * MB))
    assert "sb: the kernel takes no group scales (legal: None, or declare " \
        "b : u4[N, K]" in str(e.value)
