"""Quantized weights (tilec.quantize_weights, tilec.pack_weights,
tilec.unpack_weights and the *_buffer functions under them) in every
format (i4, u4, i8, u8, e4m3, e5m2): the packed orders against words
computed here from ir/layout/WeightPack.h's prose, round trips, the quantization
rules and the dequantized values against math written here (fp8 by a
search over all codes, or torch's own float8 conversion), errors. The
buffer tests need no torch; the torch tests run where torch is installed,
the CUDA ones where a GPU is."""
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
    with pytest.raises(ValueError, match="fmt must be one of 'i4', 'u4', "
                                         "'i8', 'u8', 'e4m3', 'e5m2', not "
                                         "'x4'"):
        _pack.pack_buffer(bad, 16, 64, "x4")
    with pytest.raises(ValueError, match="values has 10 bytes"):
        _pack.pack_buffer(bytes(10), 16, 64, "i4")
    nan = struct.pack("<%df" % (16 * 64), *([float("nan")] + [0.0] * 1023))
    with pytest.raises(ValueError, match=r"the weight at \(n, k\) = \(0, 0\) "
                                         r"is nan"):
        _pack.quantize_buffer(nan, 16, 64, 64)


# 8-bit codes, without torch.

def code8_at(n, k):
    return (3 * n + 5 * k) % 256


def expected_words8(codes, n, k):
    """The packed words of 8-bit codes by the header's definition: 16 x 32
    blocks stored block row by block row, 128 words each; lane l = 4 g + t
    holds words 4 l + w, w = 2 s + j; byte 2 h + e of word w is the code of
    n = g + 8 j, k = 16 s + 2 t + e + 8 h within the block."""
    words = []
    for nb in range(n // 16):
        for kb in range(k // 32):
            for lane in range(32):
                g, t = divmod(lane, 4)
                for s in range(2):
                    for j in range(2):
                        word = 0
                        for h in range(2):
                            for e in range(2):
                                r = 16 * nb + g + 8 * j
                                c = 32 * kb + 16 * s + 2 * t + e + 8 * h
                                word |= codes[r][c] << (8 * (2 * h + e))
                        words.append(word)
    return words


def fp8_value(code, fmt):
    """The value of an fp8 byte from its fields (None for NaN / Inf)."""
    man, bias = (3, 7) if fmt == "e4m3" else (2, 15)
    e, m = (code & 0x7f) >> man, code & ((1 << man) - 1)
    if (fmt == "e4m3" and code & 0x7f == 0x7f) or (fmt == "e5m2" and e == 31):
        return None
    if e == 0:
        v = m * 2.0 ** (1 - bias - man)
    else:
        v = ((1 << man) + m) * 2.0 ** (e - bias - man)
    return -v if code & 0x80 else v


FP8_LARGEST = {"e4m3": 448.0, "e5m2": 57344.0}


def fp8_round(x, fmt):
    """x rounded to the nearest finite fp8 value, ties to the even code,
    saturated at the largest: a search over all 256 codes."""
    top = FP8_LARGEST[fmt]
    x = min(max(x, -top), top)
    best = None
    for code in range(256):
        v = fp8_value(code, fmt)
        if v is None:
            continue
        if (best is None or abs(v - x) < abs(best - x)
                or (abs(v - x) == abs(best - x) and v != best
                    and code % 2 == 0)):
            best = v
    return best


def test_fp8_reference_largest():
    for fmt, top in FP8_LARGEST.items():
        assert max(v for v in (fp8_value(c, fmt) for c in range(128))
                   if v is not None) == top


def test_worked_word8():
    # The header's worked example: (9, 3) of a 16 x 32 weight is byte 85,
    # lane 5's word 1 (word 21), byte 1; i8 stores q + 128.
    n, k = 16, 32
    values = bytes((code8_at(r, c) - 128) & 0xff for r in range(n)
                   for c in range(k))
    packed = _pack.pack_buffer(values, n, k, "i8")
    assert len(packed) == n * k
    words = struct.unpack("<%dI" % (n * k // 4), packed)
    assert words[21] == 0x524d2a25  # (9, 2) (9, 3) (9, 10) (9, 11)
    assert words[20] == 0x3a35120d  # (1, 2) (1, 3) (1, 10) (1, 11)
    assert _pack.unpack_buffer(packed, n, k, "i8") == bytearray(values)
    assert tilec.layout("packed_int8(16, 32)").offsets()[9 + 16 * 3] == 85


@pytest.mark.parametrize("fmt", ["u8", "e4m3", "e5m2"])
def test_words8_from_the_prose_and_round_trip(fmt):
    rng = random.Random(29)
    for n, k in ((16, 32), (32, 64), (48, 96)):
        codes = [[rng.randrange(256) for _ in range(k)] for _ in range(n)]
        if fmt != "u8":  # NaN / Inf patterns cannot be packed
            codes = [[c if fp8_value(c, fmt) is not None else 0 for c in row]
                     for row in codes]
        values = bytes(c for row in codes for c in row)  # the code is q
        packed = _pack.pack_buffer(values, n, k, fmt)
        words = list(struct.unpack("<%dI" % (n * k // 4), packed))
        assert words == expected_words8(codes, n, k)
        assert _pack.unpack_buffer(packed, n, k, fmt) == bytearray(values)
        offsets = tilec.layout(f"packed_int8({n}, {k})").offsets()
        for c in range(0, k, 3):
            for r in range(0, n, 5):
                byte = offsets[r + n * c]
                assert (words[byte // 4] >> (8 * (byte % 4))) & 0xff == \
                    codes[r][c]


QMAX = {"i4": 7, "u4": 15, "i8": 127, "u8": 255}


@pytest.mark.parametrize("fmt", ["i4", "u4", "i8", "u8", "e4m3", "e5m2"])
def test_quantize_buffer_rule_and_dequantize(fmt):
    n, k, g = 16, 128, 32
    rng = random.Random(5)
    w = [f32(rng.gauss(0.0, 0.02)) for _ in range(n * k)]
    wbytes = struct.pack("<%df" % (n * k), *w)
    values, scales, zeros = _pack.quantize_buffer(wbytes, n, k, g, fmt,
                                                  "bf16")
    s = [struct.unpack("<f", b"\0\0" + scales[2 * i:2 * i + 2])[0]
         for i in range(k // g * n)]
    zeroed = fmt in ("u4", "u8")
    assert (zeros is None) == (not zeroed)

    def value(byte):
        if fmt in ("i4", "i8"):
            return byte - 256 if byte > 127 else byte
        return byte if fmt in QMAX else fp8_value(byte, fmt)

    for r in range(n):
        for gi in range(k // g):
            grp = w[r * k + gi * g:r * k + gi * g + g]
            lo, hi = min(min(grp), 0.0), max(max(grp), 0.0)
            scale = s[gi * n + r]
            zero = 0
            if zeroed:
                assert scale == bf16(f32(f32(hi - lo) / QMAX[fmt]))
                zero = zeros[gi * n + r]
                assert zero == min(max(round(-lo / scale), 0), QMAX[fmt])
            else:
                top = QMAX.get(fmt) or FP8_LARGEST[fmt]
                assert scale == bf16(f32(max(-lo, hi) / top))
            for c in range(g):
                x = grp[c]
                got = value(values[r * k + gi * g + c])
                if fmt in QMAX:
                    # round() is Python's: to nearest, ties to even.
                    lo_q = 0 if zeroed else -QMAX[fmt] - 1
                    want = min(max(round(f32(x / scale)) + zero, lo_q),
                               QMAX[fmt])
                    if QMAX[fmt] < 16:  # 4-bit: within half a step
                        assert abs((got - zero) * scale - x) <= 0.56 * scale
                else:
                    want = fp8_round(x / scale, fmt)
                assert got == want, (r, gi * g + c, x, scale)
    packed = _pack.pack_buffer(values, n, k, fmt)
    bits = 4 if fmt in ("i4", "u4") else 8
    assert len(packed) == n * k * bits // 8
    assert _pack.unpack_buffer(packed, n, k, fmt) == values
    deq = struct.unpack("<%df" % (n * k), _pack.dequantize_buffer(
        values, n, k, g, fmt, scales, "bf16", zeros))
    for r in range(n):
        for c in range(k):
            i = c // g * n + r
            zero = zeros[i] if zeros is not None else 0
            assert deq[r * k + c] == f32((value(values[r * k + c]) - zero) *
                                         s[i])


def test_buffer8_errors():
    with pytest.raises(ValueError, match=r"a packed 8-bit weight needs K > 0 "
                                         r"and a multiple of 32; got K = 48 "
                                         r"\(the nearest legal K are 32 and "
                                         r"64\)"):
        _pack.check_shape(16, 48, 32, "e4m3")
    _pack.check_shape(16, 96, 32, "u8")  # 8-bit K: a multiple of 32
    with pytest.raises(ValueError, match="multiple of 64; got K = 96"):
        _pack.check_shape(16, 96, 32, "u4")
    bad = bytearray(16 * 32)
    bad[33] = 0x7f
    with pytest.raises(ValueError, match=r"the value at \(n, k\) = \(1, 1\) "
                                         r"is the e4m3 pattern 0x7f, which "
                                         r"is not finite"):
        _pack.pack_buffer(bad, 16, 32, "e4m3")
    with pytest.raises(ValueError, match="packed has 256 bytes; e5m2 N = 16 "
                                         "x K = 32 packs into 512"):
        _pack.unpack_buffer(bytes(256), 16, 32, "e5m2")
    with pytest.raises(ValueError, match=r"i8 weights have no zero points "
                                         r"\(z = 128 is implied\)"):
        _pack.dequantize_buffer(bytes(512), 16, 32, 32, "i8", bytes(32),
                                "bf16", bytes(16))


# torch tensors.

def torch_or_skip():
    return pytest.importorskip("torch", reason="torch is not installed")


def devices():
    torch = torch_or_skip()
    return ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def torch_values_dtype(torch, fmt):
    return {"i4": torch.int8, "i8": torch.int8, "u4": torch.uint8,
            "u8": torch.uint8, "e4m3": torch.float8_e4m3fn,
            "e5m2": torch.float8_e5m2}[fmt]


@pytest.mark.parametrize("fmt", ["i4", "u4", "i8", "u8", "e4m3", "e5m2"])
@pytest.mark.parametrize("group", [32, 64, 128])
def test_torch_quantize_pack_unpack(fmt, group):
    torch = torch_or_skip()
    gen = torch.Generator().manual_seed(group)
    n, k = 64, 256
    bits = 4 if fmt in ("i4", "u4") else 8
    qmax = {"i4": 7, "u4": 15, "i8": 127, "u8": 255}.get(fmt)
    w = (torch.randn(n, k, generator=gen) * 0.02).to(torch.bfloat16)
    for dev in devices():
        wd = w.to(dev)
        w_q, scales, zeros = tilec.quantize_weights(wd, group=group, fmt=fmt)
        assert w_q.device == wd.device and scales.device == wd.device
        assert w_q.shape == (n, k) and scales.shape == (k // group, n)
        assert scales.dtype == torch.bfloat16  # w's type
        assert w_q.dtype == torch_values_dtype(torch, fmt)
        if fmt not in ("u4", "u8"):
            assert zeros is None
        else:
            assert zeros.shape == (k // group, n) and zeros.dtype == torch.uint8

        # The rule, written here in torch math.
        x = w.float()
        xg = x.reshape(n, k // group, group)
        z = torch.zeros(n, k // group)
        if fmt in ("i4", "i8"):
            s = (xg.abs().amax(-1) / qmax).to(torch.bfloat16).float()
            q = torch.clamp(torch.round(xg / s[..., None]), -qmax - 1, qmax)
        elif fmt in ("u4", "u8"):
            lo = torch.clamp(xg.amin(-1), max=0)
            hi = torch.clamp(xg.amax(-1), min=0)
            s = ((hi - lo) / qmax).to(torch.bfloat16).float()
            z = torch.clamp(torch.round(-lo / s), 0, qmax)
            q = torch.clamp(torch.round(xg / s[..., None]) + z[..., None],
                            0, qmax)
            assert torch.equal(zeros.cpu().float(), z.t())
        else:
            top = {"e4m3": 448.0, "e5m2": 57344.0}[fmt]
            s = (xg.abs().amax(-1) / top).to(torch.bfloat16).float()
            q = torch.clamp(xg / s[..., None], -top, top).to(
                torch_values_dtype(torch, fmt)).float()
        assert torch.equal(scales.cpu().float(), s.t())
        # Values compared as numbers (fp8's -0 and +0 alike).
        assert torch.equal(w_q.cpu().float(), q.reshape(n, k))

        p = tilec.pack_weights(w_q, scales, zeros, fmt=fmt)
        assert p.weight.dtype == torch.int32
        assert p.weight.shape == (n, k * bits // 32)
        assert p.weight.device == wd.device
        assert p.group == group and p.fmt == fmt and p.shape == (n, k)
        assert p.bits == bits and p.n == n and p.k == k
        got = tilec.unpack_weights(p)
        assert got.dtype == w_q.dtype
        assert torch.equal(got.view(torch.uint8), w_q.view(torch.uint8))
        assert torch.equal(p.unpack().cpu().view(torch.uint8),
                           w_q.cpu().view(torch.uint8))

        # The dequantized weight: (q - z) * s, each scale over its group.
        deq = tilec.unpack_weights(p, dequantize=True)
        assert deq.dtype == torch.float32 and deq.device == wd.device
        ref = ((q - z[..., None]) * s[..., None]).reshape(n, k)
        assert torch.equal(deq.cpu(), ref)
        step = s.repeat_interleave(group, dim=1)
        if qmax is not None:
            # Half a step; where q clamps also the bf16 scale's rounding
            # (2^-8 of the range) and the zero point's (half a step).
            bound = (0.5 + qmax / 256 + (0.5 if fmt[0] == "u" else 0)
                     + 1 / 64) * step
        else:
            rel, sub = (1 / 16, 2.0 ** -10) if fmt == "e4m3" else \
                (1 / 8, 2.0 ** -17)
            bound = (rel + 1 / 256) * x.abs() + sub * step
        assert bool(((deq.cpu() - x).abs() <= bound).all())

        # A bare tensor unpacks with fmt= (and dequantizes with the rest).
        assert torch.equal(
            tilec.unpack_weights(p.weight, fmt=fmt).cpu().view(torch.uint8),
            w_q.cpu().view(torch.uint8))
        bare = tilec.unpack_weights(p.weight, True, fmt=fmt, scales=scales,
                                    zeros=zeros)
        assert torch.equal(bare.cpu(), ref)


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_torch_fp8_bit_patterns(fmt):
    # fp8 values may come as their bit patterns in uint8 or int8: the same
    # words as the float8 tensor.
    torch = torch_or_skip()
    n, k = 32, 64
    codes = torch.tensor([[code8_at(r, c) for c in range(k)]
                          for r in range(n)], dtype=torch.uint8)
    finite = torch.tensor([[fp8_value(code8_at(r, c), fmt) is not None
                            for c in range(k)] for r in range(n)])
    codes = torch.where(finite, codes, torch.zeros_like(codes))
    scales = torch.ones(k // 32, n, dtype=torch.bfloat16)
    p = tilec.pack_weights(codes.view(torch_values_dtype(torch, fmt)),
                           scales, fmt=fmt)
    for pattern in (codes, codes.view(torch.int8)):
        q = tilec.pack_weights(pattern, scales, fmt=fmt)
        assert torch.equal(q.weight, p.weight)
    got = [int(x) & 0xffffffff for x in p.weight.flatten()]
    assert got == expected_words8(codes.tolist(), n, k)
    # The dequantized weight with scale 1 is the fp8 value itself.
    deq = tilec.unpack_weights(p, dequantize=True)
    want = codes.view(torch_values_dtype(torch, fmt)).float()
    assert torch.equal(deq, want)


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


def test_torch_errors8():
    torch = torch_or_skip()
    ones = torch.ones(1, 16)
    q = torch.zeros(16, 32, dtype=torch.int16)
    q[1, 2] = 300
    with pytest.raises(ValueError, match=r"the value at \(n, k\) = \(1, 2\) "
                                         r"is 300, outside u8's 0..255"):
        tilec.pack_weights(q, ones, fmt="u8")
    q[1, 2] = -129
    with pytest.raises(ValueError, match="is -129, outside i8's -128..127"):
        tilec.pack_weights(q, ones, fmt="i8")
    with pytest.raises(ValueError, match="multiple of 32; got K = 48"):
        tilec.quantize_weights(torch.zeros(16, 48), group=32, fmt="i8")
    with pytest.raises(ValueError, match=r"i8 weights have no zero points "
                                         r"\(z = 128\)"):
        tilec.pack_weights(torch.zeros(16, 32, dtype=torch.int8), ones,
                           torch.zeros(1, 16, dtype=torch.uint8), fmt="i8")
    with pytest.raises(ValueError, match=r"zeros must be in 0..255"):
        tilec.pack_weights(torch.zeros(16, 32, dtype=torch.uint8), ones,
                           torch.full((1, 16), 256, dtype=torch.int16),
                           fmt="u8")
    with pytest.raises(ValueError, match=r"e4m3 values are "
                                         r"torch.float8_e4m3fn \(or their "
                                         r"bit patterns"):
        tilec.pack_weights(torch.zeros(16, 32), ones, fmt="e4m3")
    with pytest.raises(ValueError, match="not torch.float8_e5m2"):
        tilec.pack_weights(torch.zeros(16, 32, dtype=torch.float8_e5m2),
                           ones, fmt="e4m3")
    nan = torch.zeros(16, 32, dtype=torch.uint8)
    nan[0, 5] = 0x7f
    with pytest.raises(ValueError, match=r"the value at \(n, k\) = \(0, 5\) "
                                         r"is the e4m3 pattern 0x7f"):
        tilec.pack_weights(nan, ones, fmt="e4m3")
    with pytest.raises(ValueError, match="fmt must be one of"):
        tilec.quantize_weights(torch.zeros(16, 32), group=32, fmt="f8")
    with pytest.raises(ValueError, match="needs fmt="):
        tilec.unpack_weights(torch.zeros(16, 8, dtype=torch.int32))
