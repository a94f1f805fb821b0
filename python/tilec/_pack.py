"""Quantized GEMM weights (W4A16, W8A16): quantize, pack and unpack on torch
tensors.

    import tilec
    w_q, scales, zeros = tilec.quantize_weights(w, group=128, fmt="i4")
    p = tilec.pack_weights(w_q, scales, zeros, fmt="i4")
    p.weight                    # int32 [N, K/8] in the packed order
    p.fmt, p.bits               # "i4", 4
    tilec.unpack_weights(p)     # w_q again
    tilec.unpack_weights(p, dequantize=True)   # (q - zero) * scale, f32

w is [N, K] (output channel n, reduction index k), N a multiple of 16, K
of 64 (4-bit formats) or 32 (8-bit); a group of G = 32, 64 or 128
consecutive k of one channel shares a scale (and for u4/u8 a zero point).
The formats (fmt), one row of ir/tile/WeightQuant.h's table each:
  fmt   w_q                          bits  weight int32    rule per group
  i4    int8 -8..7                   4     [N, K/8]        scale max|w|/7
  u4    uint8 0..15, zeros           4     [N, K/8]        (max-min)/15
  i8    int8 -128..127               8     [N, K/4]        scale max|w|/127
  u8    uint8 0..255, zeros          8     [N, K/4]        (max-min)/255
  e4m3  torch.float8_e4m3fn          8     [N, K/4]        scale max|w|/448
  e5m2  torch.float8_e5m2            8     [N, K/4]        max|w|/57344
  scales  [K/G, N], N contiguous, bf16 or f16 (the activation's type);
  zeros   [K/G, N] uint8 (u4/u8 only; None otherwise, optional for u4/u8);
  weight  int32 [N, K * bits / 32]: an opaque tiled order (the mma.sync
          B-fragment order, 16 x 64 blocks of 4-bit codes, 16 x 32 of 8-bit;
          tilec.layout("packed_int4(N, K)") / "packed_int8(N, K)" maps
          (n, k) to its nibble / byte), not row-major codes.
i4/i8 are symmetric (q = round(w / scale)); u4/u8 asymmetric with GPTQ's
rule (the range extended to hold 0, zero = round(-min / scale), q =
round(w / scale) + zero); e4m3/e5m2 round w / scale to the fp8 format,
saturating at its largest finite value. round() to nearest even, each scale
rounded to its type first (include/tilec/tilec.h, ir/tile/WeightQuant.h).
Everything is computed on the CPU by the C API, the same code as `tilec
pack`; results go to the input's device (CPU or CUDA). fp8 values may also
be passed as their bit patterns in uint8 or int8 tensors.

Without torch, the *_buffer functions do the same on bytes-like objects
(values one byte each: the fp8 bit patterns for e4m3/e5m2).
"""
import ctypes

from ._lib import ERROR_INVALID_ARGUMENT, OK, last_error, lib

# tilec_weight_format.
I4, U4, I8, U8, E4M3, E5M2 = range(6)
_FORMATS = {"i4": I4, "u4": U4, "i8": I8, "u8": U8, "e4m3": E4M3,
            "e5m2": E5M2}
# The code width and, for the integer formats, the range of q: what sizes
# the buffers and words the errors; the C API checks the values.
_BITS = {"i4": 4, "u4": 4, "i8": 8, "u8": 8, "e4m3": 8, "e5m2": 8}
_RANGE = {"i4": (-8, 7), "u4": (0, 15), "i8": (-128, 127), "u8": (0, 255)}
_ZEROS = ("u4", "u8")
_SCALE_BYTES = {"bf16": 2, "f16": 2, "f32": 4}


def _format(fmt):
    if fmt not in _FORMATS:
        raise ValueError("fmt must be one of " +
                         ", ".join(repr(f) for f in _FORMATS) +
                         f", not {fmt!r}")
    return _FORMATS[fmt]


def code_bits(fmt):
    """The width of one packed code of format `fmt`: 4 or 8."""
    _format(fmt)
    return _BITS[fmt]


def _check(status):
    if status == ERROR_INVALID_ARGUMENT:
        raise ValueError(last_error())
    if status != OK:
        raise RuntimeError(last_error())


def _addr(buf):
    """The address of a bytes-like buffer (copied when read-only)."""
    if isinstance(buf, (bytes, memoryview)) or not hasattr(buf, "__len__"):
        buf = bytearray(buf)
    view = memoryview(buf).cast("B")
    array = (ctypes.c_char * len(view)).from_buffer(view)
    return ctypes.addressof(array), array  # keep `array` alive


def check_shape(n, k, group=32, fmt="i4"):
    """Raises ValueError unless an [n, k] weight of format `fmt` in groups
    of `group` can be packed (the message names the extent and what is
    legal)."""
    _check(lib.tilec_check_weights(int(n), int(k), int(group), _format(fmt)))


# The C calls on raw addresses, shared by the buffer and torch layers.

def _quantize(w, n, k, group, fmt, scale_dtype, values, scales, zeros):
    _check(lib.tilec_quantize_weights(
        w, n, k, group, _format(fmt), scale_dtype.encode(), values, scales,
        zeros))


def _pack(values, n, k, fmt, packed):
    _check(lib.tilec_pack_weights(values, n, k, _format(fmt), packed))


def _unpack(packed, n, k, fmt, values):
    _check(lib.tilec_unpack_weights(packed, n, k, _format(fmt), values))


def _dequantize(values, n, k, group, fmt, scales, scale_dtype, zeros, out):
    _check(lib.tilec_dequantize_weights(
        values, n, k, group, _format(fmt), scales, scale_dtype.encode(),
        zeros, out))


def _scale_bytes(scale_dtype):
    if scale_dtype not in _SCALE_BYTES:
        raise ValueError(f"scale_dtype must be one of bf16, f16, f32, not "
                         f"{scale_dtype!r}")
    return _SCALE_BYTES[scale_dtype]


# Bytes-like buffers (little-endian, row-major), for callers without torch.

def quantize_buffer(w, n, k, group=128, fmt="i4", scale_dtype="bf16"):
    """Quantizes float32 weights `w` (n * k * 4 bytes) to (values, scales,
    zeros) bytearrays: [n, k] one byte each, scale_dtype [k/group, n], uint8
    [k/group, n] (u4/u8; None for the other formats)."""
    check_shape(n, k, group, fmt)
    if len(w) != n * k * 4:
        raise ValueError(f"w has {len(w)} bytes; float32 [{n}, {k}] is "
                         f"{n * k * 4}")
    size = _scale_bytes(scale_dtype)
    values = bytearray(n * k)
    scales = bytearray(k // group * n * size)
    zeros = bytearray(k // group * n) if fmt in _ZEROS else None
    wa, _w = _addr(w)
    va, _v = _addr(values)
    sa, _s = _addr(scales)
    za, _z = _addr(zeros) if zeros is not None else (None, None)
    _quantize(wa, n, k, group, fmt, scale_dtype, va, sa, za)
    return values, scales, zeros


def _packed_bytes(n, k, fmt):
    return n * k * code_bits(fmt) // 8


def pack_buffer(values, n, k, fmt="i4"):
    """Packs values [n, k] (one byte each) into n * k * bits / 32
    little-endian int32 words (a bytearray of n * k * bits / 8 bytes)."""
    check_shape(n, k, 32, fmt)
    if len(values) != n * k:
        raise ValueError(f"values has {len(values)} bytes; [{n}, {k}] one "
                         f"byte each is {n * k}")
    packed = bytearray(_packed_bytes(n, k, fmt))
    va, _v = _addr(values)
    pa, _p = _addr(packed)
    _pack(va, n, k, fmt, pa)
    return packed


def unpack_buffer(packed, n, k, fmt="i4"):
    """The values [n, k] (one byte each) of n * k * bits / 32 packed words
    (a bytearray)."""
    check_shape(n, k, 32, fmt)
    if len(packed) != _packed_bytes(n, k, fmt):
        raise ValueError(f"packed has {len(packed)} bytes; {fmt} N = {n} x "
                         f"K = {k} packs into {_packed_bytes(n, k, fmt)}")
    values = bytearray(n * k)
    pa, _p = _addr(packed)
    va, _v = _addr(values)
    _unpack(pa, n, k, fmt, va)
    return values


def dequantize_buffer(values, n, k, group, fmt, scales, scale_dtype="bf16",
                      zeros=None):
    """value(q) * scale ((q - zero) * scale for u4/u8) as float32 [n, k] (a
    bytearray)."""
    check_shape(n, k, group, fmt)
    size = _scale_bytes(scale_dtype)
    if len(values) != n * k or len(scales) != k // group * n * size:
        raise ValueError(f"values and scales have {len(values)} and "
                         f"{len(scales)} bytes; they need {n * k} and "
                         f"{k // group * n * size}")
    if zeros is not None and len(zeros) != k // group * n:
        raise ValueError(f"zeros has {len(zeros)} bytes; uint8 "
                         f"[{k // group}, {n}] is {k // group * n}")
    out = bytearray(n * k * 4)
    va, _v = _addr(values)
    sa, _s = _addr(scales)
    za, _z = _addr(zeros) if zeros is not None else (None, None)
    oa, _o = _addr(out)
    _dequantize(va, n, k, group, fmt, sa, scale_dtype, za, oa)
    return out


# torch tensors.

def _torch():
    import torch
    return torch


def _dtype_name(dtype):
    torch = _torch()
    names = {torch.bfloat16: "bf16", torch.float16: "f16",
             torch.float32: "f32"}
    if isinstance(dtype, str):
        if dtype not in _SCALE_BYTES:
            raise ValueError(f"scale_dtype must be bf16, f16 or f32, not "
                             f"{dtype!r}")
        return dtype
    if dtype not in names:
        raise ValueError(f"scale_dtype must be torch.bfloat16, torch.float16 "
                         f"or torch.float32, not {dtype}")
    return names[dtype]


def _torch_dtype(name):
    torch = _torch()
    return {"bf16": torch.bfloat16, "f16": torch.float16,
            "f32": torch.float32}[name]


def values_dtype(fmt):
    """The torch dtype of format `fmt`'s values: torch.int8 (i4, i8),
    torch.uint8 (u4, u8), torch.float8_e4m3fn (e4m3), torch.float8_e5m2
    (e5m2)."""
    torch = _torch()
    _format(fmt)
    if fmt == "e4m3":
        return torch.float8_e4m3fn
    if fmt == "e5m2":
        return torch.float8_e5m2
    return torch.int8 if _RANGE[fmt][0] < 0 else torch.uint8


def _matrix(x, what):
    if not hasattr(x, "data_ptr") or not hasattr(x, "dim"):
        raise TypeError(f"{what} must be a torch tensor, not "
                        f"{type(x).__name__}")
    if x.dim() != 2:
        raise ValueError(f"{what} must be 2-D, not of shape {tuple(x.shape)}")
    return x.detach()


class PackedWeights:
    """A packed quantized weight: `weight` int32 [N, K * bits / 32] in the
    packed order, `scales` [K/G, N], `zeros` uint8 [K/G, N] or None, `fmt`
    (one of "i4", "u4", "i8", "u8", "e4m3", "e5m2"), `bits` the code width
    (4 or 8), `group` G, and the logical extents `n`, `k`."""

    def __init__(self, weight, scales, zeros, fmt, group):
        self.weight, self.scales, self.zeros = weight, scales, zeros
        self.fmt, self.group = fmt, group
        self.bits = code_bits(fmt)
        self.n, self.k = weight.shape[0], weight.shape[1] * 32 // self.bits

    @property
    def shape(self):
        """The logical weight's shape (N, K)."""
        return (self.n, self.k)

    def to(self, device):
        """The same weights on `device`."""
        z = self.zeros.to(device) if self.zeros is not None else None
        return PackedWeights(self.weight.to(device), self.scales.to(device),
                             z, self.fmt, self.group)

    def unpack(self, dequantize=False):
        return unpack_weights(self, dequantize=dequantize)

    def __iter__(self):
        return iter((self.weight, self.scales, self.zeros))

    def __repr__(self):
        return (f"PackedWeights({self.fmt}, N={self.n}, K={self.k}, "
                f"group={self.group}, scales={self.scales.dtype}, "
                f"zeros={'yes' if self.zeros is not None else 'no'}, "
                f"device={self.weight.device})")


def quantize_weights(w, group=128, fmt="i4", scale_dtype=None):
    """Quantizes w [N, K] (a float torch tensor, CPU or CUDA) in groups of
    `group` k per channel: returns (w_q, scales, zeros) on w's device, w_q
    [N, K] of values_dtype(fmt) (int8 for i4/i8, uint8 for u4/u8,
    torch.float8_e4m3fn / float8_e5m2 for e4m3 / e5m2), scales
    [K/group, N] in `scale_dtype` (default: w's dtype when bf16 or f16,
    else bf16), zeros uint8 [K/group, N] for u4/u8, None otherwise."""
    torch = _torch()
    w = _matrix(w, "w")
    if not w.is_floating_point():
        raise ValueError(f"w must be a float tensor, not {w.dtype}")
    n, k = w.shape
    _format(fmt)
    check_shape(n, k, group, fmt)
    if scale_dtype is None:
        scale_dtype = w.dtype if w.dtype in (torch.bfloat16,
                                             torch.float16) else "bf16"
    st = _dtype_name(scale_dtype)
    host = w.to("cpu", torch.float32).contiguous()
    values = torch.empty((n, k), dtype=torch.int8)
    scales = torch.empty((k // group, n), dtype=_torch_dtype(st))
    zeros = (torch.empty((k // group, n), dtype=torch.uint8)
             if fmt in _ZEROS else None)
    _quantize(host.data_ptr(), n, k, group, fmt, st, values.data_ptr(),
              scales.data_ptr(), zeros.data_ptr() if zeros is not None
              else None)
    values = values.view(values_dtype(fmt))
    dev = w.device
    return (values.to(dev), scales.to(dev),
            zeros.to(dev) if zeros is not None else None)


def _host_values(w_q, fmt):
    """w_q as a contiguous CPU int8 tensor of the bytes the C API takes:
    integer values checked against the format's range first (so that no
    wider integer wraps), fp8 values as their bit patterns."""
    torch = _torch()
    n, k = w_q.shape
    if fmt in _RANGE:
        if (w_q.is_floating_point() or w_q.is_complex()
                or w_q.dtype == torch.bool):
            raise ValueError(
                f"w_q must hold integers ({values_dtype(fmt)} for {fmt}), "
                f"not {w_q.dtype}; quantize float weights with "
                f"tilec.quantize_weights")
        lo, hi = _RANGE[fmt]
        wide = w_q.to("cpu", torch.int64)
        bad = ((wide < lo) | (wide > hi)).flatten().nonzero()
        if bad.numel():
            i = int(bad[0])
            raise ValueError(f"the value at (n, k) = ({i // k}, {i % k}) is "
                             f"{int(wide.flatten()[i])}, outside {fmt}'s "
                             f"{lo}..{hi}")
        byte = torch.int8 if lo < 0 else torch.uint8
        return wide.to(byte).contiguous().view(torch.int8)
    want = values_dtype(fmt)
    if w_q.dtype not in (want, torch.uint8, torch.int8):
        raise ValueError(f"{fmt} values are {want} (or their bit patterns "
                         f"as torch.uint8 or torch.int8), not {w_q.dtype}; "
                         f"quantize float weights with "
                         f"tilec.quantize_weights")
    return w_q.to("cpu").contiguous().view(torch.int8)


def pack_weights(w_q, scales, zeros=None, fmt="i4", group=None):
    """Packs quantized values w_q [N, K] into a PackedWeights on w_q's
    device, holding `scales` [K/G, N] and `zeros` (u4/u8 only) as given.
    w_q holds q: any integer tensor for i4 (-8..7), u4 (0..15), i8
    (-128..127), u8 (0..255); torch.float8_e4m3fn / float8_e5m2 (or the
    bit patterns as uint8 or int8) for e4m3 / e5m2. `group` defaults to
    K / scales.shape[0]."""
    torch = _torch()
    w_q = _matrix(w_q, "w_q")
    n, k = w_q.shape
    _format(fmt)
    scales = _matrix(scales, "scales")
    _dtype_name(scales.dtype)
    rows = scales.shape[0]
    if group is None:
        if rows <= 0 or k % rows:
            raise ValueError(f"scales has {rows} rows, which do not divide "
                             f"K = {k}; pass group=")
        group = k // rows
    check_shape(n, k, group, fmt)
    if tuple(scales.shape) != (k // group, n):
        raise ValueError(f"scales must be [K/G, N] = [{k // group}, {n}], not "
                         f"{list(scales.shape)}")
    if zeros is not None:
        if fmt not in _ZEROS:
            implied = {"i4": " (z = 8)", "i8": " (z = 128)"}.get(fmt, "")
            raise ValueError(f"{fmt} weights have no zero points{implied}; "
                             f"pass zeros=None, or fmt='u4' or 'u8'")
        zeros = _matrix(zeros, "zeros")
        if tuple(zeros.shape) != (k // group, n):
            raise ValueError(f"zeros must be [K/G, N] = [{k // group}, {n}], "
                             f"not {list(zeros.shape)}")
        zw = zeros.to("cpu", torch.int64)
        top = _RANGE[fmt][1]
        if zw.numel() and (zw.min() < 0 or zw.max() > top):
            raise ValueError(f"zeros must be in 0..{top}, not "
                             f"{int(zw.min())}..{int(zw.max())}")
    host = _host_values(w_q, fmt)
    packed = torch.empty((n, k * code_bits(fmt) // 32), dtype=torch.int32)
    _pack(host.data_ptr(), n, k, fmt, packed.data_ptr())
    return PackedWeights(packed.to(w_q.device), scales, zeros, fmt, group)


def unpack_weights(p, dequantize=False, *, fmt=None, scales=None, zeros=None,
                   group=None):
    """The values w_q [N, K] of packed weights (values_dtype(fmt): int8 for
    i4/i8, uint8 for u4/u8, float8 for e4m3/e5m2), or with dequantize=True
    value(q) * scale ((q - zero) * scale for u4/u8) as float32, on the
    packed tensor's device. `p` is a PackedWeights, or the int32
    [N, K * bits / 32] tensor with fmt= (and scales=, zeros=, group= to
    dequantize)."""
    torch = _torch()
    if isinstance(p, PackedWeights):
        weight, fmt = p.weight, p.fmt
        scales, zeros, group = p.scales, p.zeros, p.group
    else:
        weight = _matrix(p, "p")
        if fmt is None:
            raise ValueError("unpacking a bare tensor needs fmt= (one of " +
                             ", ".join(repr(f) for f in _FORMATS) + ")")
    bits = code_bits(fmt)
    if weight.dtype != torch.int32:
        raise ValueError(f"the packed weight is int32 [N, K * {bits} / 32], "
                         f"not {weight.dtype}")
    n, k = weight.shape[0], weight.shape[1] * 32 // bits
    check_shape(n, k, 32, fmt)
    host = weight.detach().to("cpu").contiguous()
    values = torch.empty((n, k), dtype=torch.int8)
    _unpack(host.data_ptr(), n, k, fmt, values.data_ptr())
    if not dequantize:
        return values.view(values_dtype(fmt)).to(weight.device)
    if scales is None:
        raise ValueError("dequantize=True needs the scales")
    scales = _matrix(scales, "scales")
    st = _dtype_name(scales.dtype)
    if group is None:
        group = k // scales.shape[0] if scales.shape[0] else 0
    check_shape(n, k, group, fmt)
    if tuple(scales.shape) != (k // group, n):
        raise ValueError(f"scales must be [K/G, N] = [{k // group}, {n}], not "
                         f"{list(scales.shape)}")
    s = scales.to("cpu").contiguous()
    z = None
    if zeros is not None:
        z = _matrix(zeros, "zeros").to("cpu", torch.uint8).contiguous()
        if tuple(z.shape) != (k // group, n):
            raise ValueError(f"zeros must be [K/G, N] = [{k // group}, {n}], "
                             f"not {list(z.shape)}")
    out = torch.empty((n, k), dtype=torch.float32)
    _dequantize(values.data_ptr(), n, k, group, fmt, s.data_ptr(), st,
                z.data_ptr() if z is not None else None, out.data_ptr())
    return out.to(weight.device)
