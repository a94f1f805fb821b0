"""4-bit weights (tilec.quantize_weights, tilec.pack_weights,
tilec.unpack_weights and the *_buffer functions under them): the packed
order against words computed here from ir/WeightPack.h's prose, round
trips, the quantization rule and the dequantized values against math
written here, errors. The buffer tests need no torch; the torch tests run
where torch is installed, the CUDA ones where a GPU is."""
import random
import struct

import pytest

import tilec
from tilec import _pack


def code_at(n, k):
    return (3 * n + 5 * k) % 16


def expected_words(codes, n, k):
    """The packed words by the header's definition: 16 x 64 blocks stored
    block row by block row, 128 words each; lane l = 4 g + t holds words
    4 l + w; nibble 4 e + 2 j + h of word w is the code of n = g + 8 j,
    k = 16 w + 2 t + e + 8 h within the block."""
    words = []
    for nb in range(n // 16):
        for kb in range(k // 64):
            for lane in range(32):
                g, t = divmod(lane, 4)
                for w in range(4):
                    word = 0
                    for e in range(2):
                        for j in range(2):
                            for h in range(2):
                                r = 16 * nb + g + 8 * j
                                c = 64 * kb + 16 * w + 2 * t + e + 8 * h
                                word |= codes[r][c] << (4 * (4 * e + 2 * j + h))
                    words.append(word)
    return words


# Without torch: the buffer layer over the C API.

def test_worked_word():
    n, k = 16, 64
    values = bytes((code_at(r, c) - 8) & 0xff for r in range(n)
                   for c in range(k))
    packed = _pack.pack_buffer(values, n, k, "i4")
    words = struct.unpack("<%dI" % (n * k // 8), packed)
    assert words[20] == 0x2aa2d55d  # lane 5, word 0: (9, 3) in nibble 6
    assert _pack.unpack_buffer(packed, n, k, "i4") == bytearray(values)


def test_words_from_the_prose_and_round_trip():
    rng = random.Random(28)
    for n, k in ((16, 64), (32, 128), (48, 192)):
        codes = [[rng.randrange(16) for _ in range(k)] for _ in range(n)]
        values = bytes(c for row in codes for c in row)  # u4: q = code
        packed = _pack.pack_buffer(values, n, k, "u4")
        words = list(struct.unpack("<%dI" % (n * k // 8), packed))
        assert words == expected_words(codes, n, k)
        assert _pack.unpack_buffer(packed, n, k, "u4") == bytearray(values)


def test_layout_is_where_a_code_lands():
    n, k = 32, 128
    codes = [[code_at(r, c) for c in range(k)] for r in range(n)]
    packed = _pack.pack_buffer(bytes(c for row in codes for c in row), n, k,
                               "u4")
    words = struct.unpack("<%dI" % (n * k // 8), packed)
    offsets = tilec.layout(f"packed_int4({n}, {k})").offsets()
    for c in range(k):
        for r in range(n):
            nib = offsets[r + n * c]  # column-major over (n, k)
            assert (words[nib // 8] >> (4 * (nib % 8))) & 0xf == codes[r][c]


def bf16(x):
    """x rounded to bf16 (nearest even), as a float."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits = (bits + 0x7fff + ((bits >> 16) & 1)) >> 16
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


@pytest.mark.parametrize("fmt", ["i4", "u4"])
def test_quantize_buffer_rule_and_dequantize(fmt):
    n, k, g = 16, 128, 32
    rng = random.Random(5)
    w = [f32(rng.gauss(0.0, 0.02)) for _ in range(n * k)]
    wbytes = struct.pack("<%df" % (n * k), *w)
    values, scales, zeros = _pack.quantize_buffer(wbytes, n, k, g, fmt,
                                                  "bf16")
    q = struct.unpack("<%db" % (n * k), values)
    s = [struct.unpack("<f", b"\0\0" + scales[2 * i:2 * i + 2])[0]
         for i in range(k // g * n)]
    assert (zeros is None) == (fmt == "i4")
    for r in range(n):
        for gi in range(k // g):
            grp = w[r * k + gi * g:r * k + gi * g + g]
            lo, hi = min(min(grp), 0.0), max(max(grp), 0.0)
            scale = s[gi * n + r]
            if fmt == "i4":
                assert scale == bf16(f32(max(-lo, hi) / 7))
                zero = 0
            else:
                assert scale == bf16(f32(f32(hi - lo) / 15))
                zero = zeros[gi * n + r]
                assert zero == min(max(round(-lo / scale), 0), 15)
            for c in range(g):
                x = grp[c]
                got = q[r * k + gi * g + c]
                # round() is Python's: to nearest, ties to even.
                lo_q, hi_q = (-8, 7) if fmt == "i4" else (0, 15)
                want = min(max(round(f32(x / scale)) + zero, lo_q), hi_q)
                assert got == want, (r, gi * g + c, x, scale)
                assert abs((got - zero) * scale - x) <= 0.56 * scale
    packed = _pack.pack_buffer(values, n, k, fmt)
    assert _pack.unpack_buffer(packed, n, k, fmt) == values
    deq = struct.unpack("<%df" % (n * k), _pack.dequantize_buffer(
        values, n, k, g, fmt, scales, "bf16", zeros))
    for r in range(n):
        for c in range(k):
            i = c // g * n + r
            zero = zeros[i] if zeros is not None else 0
            assert deq[r * k + c] == f32((q[r * k + c] - zero) * s[i])


def test_buffer_errors():
    with pytest.raises(ValueError, match=r"got N = 100 \(the nearest legal N "
                                         r"are 96 and 112\)"):
        _pack.check_shape(100, 64)
    with pytest.raises(ValueError, match=r"K = 192 is not a multiple of the "
                                         r"group size 128 \(groups of 32 or "
                                         r"64 divide it\)"):
        _pack.check_shape(16, 192, 128)
    with pytest.raises(ValueError, match="group size 96 is not one of"):
        _pack.quantize_buffer(bytes(16 * 64 * 4), 16, 64, 96)
    bad = bytearray(16 * 64)
    bad[65] = 8
    with pytest.raises(ValueError, match=r"the value at \(n, k\) = \(1, 1\) "
                                         r"is 8, outside i4's -8..7"):
        _pack.pack_buffer(bad, 16, 64, "i4")
    with pytest.raises(ValueError, match="fmt must be 'i4' or 'u4'"):
        _pack.pack_buffer(bad, 16, 64, "i8")
    with pytest.raises(ValueError, match="values has 10 bytes"):
        _pack.pack_buffer(bytes(10), 16, 64, "i4")
    nan = struct.pack("<%df" % (16 * 64), *([float("nan")] + [0.0] * 1023))
    with pytest.raises(ValueError, match=r"the weight at \(n, k\) = \(0, 0\) "
                                         r"is nan"):
        _pack.quantize_buffer(nan, 16, 64, 64)


# torch tensors.

def torch_or_skip():
    return pytest.importorskip("torch", reason="torch is not installed")


def devices():
    torch = torch_or_skip()
    return ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.mark.parametrize("fmt", ["i4", "u4"])
@pytest.mark.parametrize("group", [32, 64, 128])
def test_torch_quantize_pack_unpack(fmt, group):
    torch = torch_or_skip()
    gen = torch.Generator().manual_seed(group)
    n, k = 64, 256
    w = (torch.randn(n, k, generator=gen) * 0.02).to(torch.bfloat16)
    for dev in devices():
        wd = w.to(dev)
        w_q, scales, zeros = tilec.quantize_weights(wd, group=group, fmt=fmt)
        assert w_q.device == wd.device and scales.device == wd.device
        assert w_q.shape == (n, k) and scales.shape == (k // group, n)
        assert scales.dtype == torch.bfloat16  # w's type
        assert w_q.dtype == (torch.int8 if fmt == "i4" else torch.uint8)
        if fmt == "i4":
            assert zeros is None
        else:
            assert zeros.shape == (k // group, n) and zeros.dtype == torch.uint8

        # The rule, written here in torch math.
        x = w.float()
        xg = x.reshape(n, k // group, group)
        if fmt == "i4":
            s = (xg.abs().amax(-1) / 7).to(torch.bfloat16).float()
            q = torch.clamp(torch.round(xg / s[..., None]), -8, 7)
            z = torch.zeros_like(s)
        else:
            lo = torch.clamp(xg.amin(-1), max=0)
            hi = torch.clamp(xg.amax(-1), min=0)
            s = ((hi - lo) / 15).to(torch.bfloat16).float()
            z = torch.clamp(torch.round(-lo / s), 0, 15)
            q = torch.clamp(torch.round(xg / s[..., None]) + z[..., None],
                            0, 15)
            assert torch.equal(zeros.cpu().float(), z.t())
        assert torch.equal(scales.cpu().float(), s.t())
        assert torch.equal(w_q.cpu().float(), q.reshape(n, k))

        p = tilec.pack_weights(w_q, scales, zeros, fmt=fmt)
        assert p.weight.dtype == torch.int32 and p.weight.shape == (n, k // 8)
        assert p.weight.device == wd.device
        assert p.group == group and p.fmt == fmt and p.shape == (n, k)
        assert torch.equal(tilec.unpack_weights(p), w_q)
        assert torch.equal(p.unpack().cpu(), w_q.cpu())

        # The dequantized weight: (q - z) * s, each scale over its group.
        deq = tilec.unpack_weights(p, dequantize=True)
        assert deq.dtype == torch.float32 and deq.device == wd.device
        ref = ((q - z[..., None]) * s[..., None]).reshape(n, k)
        assert torch.equal(deq.cpu(), ref)
        step = s.repeat_interleave(group, dim=1)
        assert bool(((deq.cpu() - x).abs() <= 0.56 * step).all())

        # A bare tensor unpacks with fmt= (and dequantizes with the rest).
        assert torch.equal(tilec.unpack_weights(p.weight, fmt=fmt).cpu(),
                           w_q.cpu())
        bare = tilec.unpack_weights(p.weight, True, fmt=fmt, scales=scales,
                                    zeros=zeros)
        assert torch.equal(bare.cpu(), ref)


def test_torch_packed_words_follow_the_prose():
    torch = torch_or_skip()
    n, k = 32, 128
    codes = [[code_at(r, c) for c in range(k)] for r in range(n)]
    w_q = torch.tensor(codes, dtype=torch.int16) - 8
    scales = torch.ones(k // 64, n, dtype=torch.float16)
    for dev in devices():
        p = tilec.pack_weights(w_q.to(dev), scales.to(dev), group=64)
        got = [int(x) & 0xffffffff for x in p.weight.cpu().flatten()]
        assert got == expected_words(codes, n, k)
        assert p.weight.device.type == dev


def test_torch_scale_dtypes_and_f32_input():
    torch = torch_or_skip()
    w = torch.randn(16, 64, generator=torch.Generator().manual_seed(1))
    _, s, _ = tilec.quantize_weights(w, group=64)
    assert s.dtype == torch.bfloat16  # f32 weights: bf16 scales
    _, s, _ = tilec.quantize_weights(w.half(), group=32, fmt="u4")
    assert s.dtype == torch.float16 and s.shape == (2, 16)
    _, s, _ = tilec.quantize_weights(w, group=32, scale_dtype=torch.float32)
    assert s.dtype == torch.float32
    # u4 without zero points: z = 0.
    q = torch.randint(0, 16, (16, 64), dtype=torch.uint8)
    p = tilec.pack_weights(q, torch.full((1, 16), 0.5), fmt="u4")
    assert torch.equal(tilec.unpack_weights(p, dequantize=True),
                       q.float() * 0.5)


def test_torch_errors():
    torch = torch_or_skip()
    w = torch.zeros(100, 64)
    with pytest.raises(ValueError, match=r"got N = 100 \(the nearest legal"):
        tilec.quantize_weights(w, group=64)
    with pytest.raises(ValueError, match="K = 192 is not a multiple of the "
                                         "group size 128"):
        tilec.quantize_weights(torch.zeros(16, 192), group=128)
    with pytest.raises(ValueError, match="must be a float tensor"):
        tilec.quantize_weights(torch.zeros(16, 64, dtype=torch.int8))
    with pytest.raises(TypeError, match="must be a torch tensor"):
        tilec.quantize_weights([[0.0] * 64] * 16)
    q = torch.zeros(16, 64, dtype=torch.int8)
    q[1, 1] = 9
    with pytest.raises(ValueError, match=r"the value at \(n, k\) = \(1, 1\) "
                                         r"is 9, outside i4's -8..7"):
        tilec.pack_weights(q, torch.ones(1, 16))
    q = torch.full((16, 64), 200, dtype=torch.uint8)
    with pytest.raises(ValueError, match="is 200, outside u4's 0..15"):
        tilec.pack_weights(q, torch.ones(1, 16), fmt="u4")
    with pytest.raises(ValueError, match=r"scales must be \[K/G, N\] = "
                                         r"\[2, 16\]"):
        tilec.pack_weights(torch.zeros(16, 64, dtype=torch.int8),
                           torch.ones(2, 8), group=32)
    with pytest.raises(ValueError, match="no zero points"):
        tilec.pack_weights(torch.zeros(16, 64, dtype=torch.int8),
                           torch.ones(1, 16),
                           torch.zeros(1, 16, dtype=torch.uint8))
    with pytest.raises(ValueError, match="must hold integers"):
        tilec.pack_weights(torch.zeros(16, 64), torch.ones(1, 16))
    with pytest.raises(ValueError, match="needs fmt="):
        tilec.unpack_weights(torch.zeros(16, 8, dtype=torch.int32))
