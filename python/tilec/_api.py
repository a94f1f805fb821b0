"""The Python API over the C API: compile() -> Kernel, layout() -> Layout."""
import ctypes
import os
import threading

from . import _lib
from ._launch import Launchable
from ._lib import lib

_PARAM_KINDS = {0: "pointer", 1: "i32", 2: "f32", 3: "tensormap", 4: "i64"}


class CompileError(Exception):
    """A .tile program with errors; str() is the diagnostic."""


class LayoutError(ValueError):
    """A layout expression with an error; .column is 0-based."""

    def __init__(self, message, column):
        super().__init__(message)
        self.column = column


_compiler = None
_compiler_lock = threading.Lock()


def _shared_compiler():
    """One C compiler per process: its caches are shared by every call."""
    global _compiler
    with _compiler_lock:
        if _compiler is None:
            handle = ctypes.c_void_p()
            if lib.tilec_compiler_create(ctypes.byref(handle)) != _lib.OK:
                raise RuntimeError(_lib.last_error())
            _compiler = handle
        return _compiler


def _destroy(obj, function):
    """Frees obj's handle once; quiet at interpreter exit, when the
    library's module may already be gone."""
    handle, obj._handle = getattr(obj, "_handle", None), None
    if handle:
        try:
            getattr(lib, function)(handle)
        except Exception:  # noqa: BLE001
            pass


class Kernel(Launchable):
    """A compiled kernel: PTX and what a launcher needs; call it on device
    tensors to launch it (kernel(a, b, c, alpha=, beta=, stream=, bias=,
    scale=, residual=, sfa=, sfb=, group_index=, group_rows=, sb=, zb=),
    see tilec._launch)."""

    def __init__(self, handle):
        self._handle = handle
        self._lowered = None
        # What `tilec tune` chose, when tilec.gemm runs a remembered winner.
        self.tuned = None

    def __del__(self):
        self._release_launchers()
        _destroy(self, "tilec_kernel_destroy")

    @property
    def ptx(self):
        return lib.tilec_kernel_ptx(self._handle).decode()

    @property
    def entry_name(self):
        return lib.tilec_kernel_entry_name(self._handle).decode()

    @property
    def arch(self):
        return lib.tilec_kernel_arch(self._handle).decode()

    @property
    def lowered(self):
        """The passes' decisions, as `tilec compile --emit=lowered`."""
        if self._lowered is None:
            out = ctypes.c_char_p()
            if lib.tilec_kernel_lowered(self._handle,
                                        ctypes.byref(out)) != _lib.OK:
                raise CompileError(_lib.last_error())
            self._lowered = out.value.decode()
        return self._lowered

    def explain(self):
        """The compiler's decisions and why, one per line (the `why` of each
        choice in the lowered IR: layouts, instruction, pipeline,
        schedule), after a first line `tuned: ...` when tilec.gemm ran the
        winner `tilec tune` remembered (Kernel.tuned)."""
        lines = [line.strip() for line in self.lowered.splitlines()
                 if "why =" in line]
        if self.tuned:
            lines.insert(0, "tuned: " + self.tuned)
        return "\n".join(lines)

    @property
    def params(self):
        """[(name, kind)] in order; kind: pointer, i32, f32, tensormap, i64."""
        count = lib.tilec_kernel_param_count(self._handle)
        return [(lib.tilec_kernel_param_name(self._handle, i).decode(),
                 _PARAM_KINDS[lib.tilec_kernel_param_kind(self._handle, i)])
                for i in range(count)]

    @property
    def shared_bytes(self):
        return lib.tilec_kernel_shared_bytes(self._handle)

    @property
    def block_threads(self):
        return lib.tilec_kernel_block_threads(self._handle)

    def grid(self, m, n, k, sm_count=0):
        """The launch grid (x, y, z) for an M x N x K problem."""
        out = (ctypes.c_uint * 3)()
        lib.tilec_kernel_grid(self._handle, m, n, k, sm_count, out)
        return tuple(out)

    def __repr__(self):
        return (f"<tilec.Kernel {self.entry_name} {self.arch}, "
                f"{self.block_threads} threads, {self.shared_bytes} B smem>")


def _looks_like_path(text):
    return "\n" not in text and "{" not in text and (
        text.endswith(".tile") or os.path.exists(text))


def compile(source_or_path, kernel=None, arch=None, line_info=False):
    """Compiles .tile source text or a .tile file to a Kernel.

    kernel names one kernel of a source that holds several; arch
    ("sm_80", "sm_90a", "sm_100a") targets a source without an arch line.
    Raises CompileError with the diagnostic.
    """
    if isinstance(source_or_path, os.PathLike) or _looks_like_path(
            str(source_or_path)):
        name = os.fspath(source_or_path)
        with open(name, "rb") as f:
            source = f.read()
    else:
        name = "<source>"
        source = str(source_or_path).encode()
    options = _lib.CompileOptions()
    options.struct_size = ctypes.sizeof(_lib.CompileOptions)
    options.kernel = kernel.encode() if kernel else None
    options.arch = arch.encode() if arch else None
    options.line_info = 1 if line_info else 0
    options.source_name = name.encode()
    handle = ctypes.c_void_p()
    status = lib.tilec_compile(_shared_compiler(), source, len(source),
                               ctypes.byref(options), ctypes.byref(handle))
    raise_for_status(status)
    return Kernel(handle)


def raise_for_status(status):
    """Raises what a C API status other than OK means: CompileError,
    ValueError (a bad argument) or RuntimeError, with the library's
    message."""
    if status == _lib.ERROR_COMPILE:
        raise CompileError(_lib.last_error())
    if status == _lib.ERROR_INVALID_ARGUMENT:
        raise ValueError(_lib.last_error())
    if status != _lib.OK:
        raise RuntimeError(_lib.last_error())


class Layout:
    """A layout expression's value, printed in CuTe notation."""

    def __init__(self, expr):
        handle = ctypes.c_void_p()
        if lib.tilec_layout_eval(str(expr).encode(),
                                 ctypes.byref(handle)) != _lib.OK:
            raise LayoutError(_lib.last_error(), lib.tilec_last_error_column())
        self._handle = handle
        self.expr = str(expr)

    def __del__(self):
        _destroy(self, "tilec_layout_destroy")

    def __str__(self):
        return lib.tilec_layout_str(self._handle).decode()

    def __repr__(self):
        return f"tilec.layout({self.expr!r}) = {self}"

    def __len__(self):
        return lib.tilec_layout_size(self._handle)

    def offsets(self):
        """[L(0), L(1), ...] in elements (empty for an integer or a bare
        swizzle, which have no domain)."""
        size = lib.tilec_layout_size(self._handle)
        out = (ctypes.c_int64 * size)()
        count = lib.tilec_layout_offsets(self._handle, out, size)
        return list(out[:count])

    def svg(self):
        """An SVG picture of the offset grid, as `tilec layout --svg`."""
        out = ctypes.c_char_p()
        if lib.tilec_layout_svg(self._handle, ctypes.byref(out)) != _lib.OK:
            raise LayoutError(_lib.last_error(), 0)
        return out.value.decode()

    def _repr_svg_(self):
        return self.svg()


def layout(expr):
    """Evaluates a layout expression (`tilec layout`'s language)."""
    return Layout(expr)
