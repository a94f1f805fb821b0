"""tilec.desc(layout, dtype=, major=, mma=, arch=): the shared-memory matrix
descriptor `tilec desc` derives, as a Descriptor with the fields in bytes,
the 64-bit value, the subtile start offsets and str() = `tilec desc`'s
report.

    d = tilec.desc("tile_to_shape(K_SW128<bf16>, (128,128))", dtype="bf16",
                   major="K", mma=(64, 16), arch="sm_100a")
    hex(d.desc)   # 0x4000404000010000
"""
import ctypes

from . import _lib
from ._api import LayoutError
from ._lib import lib


class Descriptor:
    """A derived descriptor; attributes: desc, layout_type, swizzle,
    start_address, lbo, sbo, base_offset, version, lbo_mode, canonical,
    offsets (rows of subtile start offsets in bytes, MN down, K across)."""

    def __init__(self, fields, offsets, report):
        for name, _ in _lib.DescFields._fields_[1:]:
            value = getattr(fields, name)
            setattr(self, name,
                    value.decode() if isinstance(value, bytes) else value)
        self.offsets = offsets
        self._report = report

    def __str__(self):
        return self._report

    def __repr__(self):
        return (f"<tilec.Descriptor 0x{self.desc:016x} {self.swizzle} "
                f"lbo={self.lbo} sbo={self.sbo}>")


def desc(layout, dtype, major, mma, arch="sm_90a", base=0):
    """Derives the descriptor of the first MMA subtile of `layout` (a layout
    expression) for an mma = (MN, K) operand. ValueError for a bad arch,
    dtype or major; tilec.LayoutError when the layout has no descriptor."""
    req = _lib.DescRequest()
    req.struct_size = ctypes.sizeof(req)
    req.arch, req.dtype, req.major = arch.encode(), dtype.encode(), \
        major.encode()
    req.layout = str(layout).encode()
    req.mma_mn, req.mma_k = mma
    req.base = base
    handle = ctypes.c_void_p()
    status = lib.tilec_desc(ctypes.byref(req), ctypes.byref(handle))
    if status == _lib.ERROR_LAYOUT:
        raise LayoutError(_lib.last_error(), lib.tilec_last_error_column())
    if status != _lib.OK:
        raise ValueError(_lib.last_error())
    try:
        fields = lib.tilec_descriptor_get(handle).contents
        count = fields.rows * fields.cols
        flat = (ctypes.c_int64 * max(count, 1))()
        lib.tilec_descriptor_offsets(handle, flat, count)
        offsets = [list(flat[r * fields.cols:(r + 1) * fields.cols])
                   for r in range(fields.rows)]
        report = lib.tilec_descriptor_report(handle).decode()
        return Descriptor(fields, offsets, report)
    finally:
        lib.tilec_descriptor_destroy(handle)
