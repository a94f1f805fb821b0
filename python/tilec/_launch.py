"""Launching a compiled kernel on device tensors: Kernel(a, b, c, ...).

Each launch: the operands are checked in Python (_operands.resolve, before
anything reaches the GPU), the stream is read (torch's current stream on
every call unless one is given) and the C API's tilec_launch runs it, which
keeps the last few prepared problems so that a repeated launch is one driver
call. The module is loaded once per device into the device's primary
context (the one torch uses), retained by tilec_context_create; the Kernel
keeps its launchers, and with them the modules, alive.

CUDA graphs: module loading and the split-K workspace (kernels with a
global-memory split-K reduction) must happen outside capture. Launch once
before capturing, or call kernel.prepare(a, b, c) (or kernel.prepare(device)
for kernels without a workspace); a captured launch that would need either
raises ValueError instead of breaking the capture.
"""
import ctypes
import sys
import threading

from . import _lib
from ._lib import lib
from ._operands import GROUP_MASKED, resolve, split_batch, split_group

_contexts = {}  # device index -> tilec_context (retained primary context)
_contexts_lock = threading.Lock()


def _torch():
    return sys.modules.get("torch")


def _device_index(device):
    """The CUDA ordinal of device (None: torch's current device, else 0)."""
    if device is None:
        torch = _torch()
        return torch.cuda.current_device() if torch else 0
    if isinstance(device, int):
        return device
    index = getattr(device, "index", None)
    if index is None and str(device).startswith("cuda"):
        torch = _torch()
        return torch.cuda.current_device() if torch else 0
    if index is None:
        raise ValueError(f"device {device!r} is not a CUDA device (legal: "
                         "an ordinal, 'cuda:N' or a torch.device)")
    return index


def _context(index):
    with _contexts_lock:
        ctx = _contexts.get(index)
        if ctx is None:
            handle = ctypes.c_void_p()
            if lib.tilec_context_create(index,
                                        ctypes.byref(handle)) != _lib.OK:
                raise RuntimeError(_lib.last_error())
            ctx = _contexts[index] = handle
        return ctx


def _sm_count(index):
    """The multiprocessors of device index, which size a persistent
    kernel's grid (tilec_launcher_create's sm_count; 0, one CTA per tile,
    where neither torch nor the driver says)."""
    torch = _torch()
    if torch is not None:
        return torch.cuda.get_device_properties(index).multi_processor_count
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    device, count = ctypes.c_int(), ctypes.c_int()
    multiprocessor_count = 16  # CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
    if (cuda.cuDeviceGet(ctypes.byref(device), index) != 0 or
            cuda.cuDeviceGetAttribute(ctypes.byref(count),
                                      multiprocessor_count, device) != 0):
        return 0
    return count.value


def _current_stream(index):
    """torch's current stream on device index as a CUstream int (0: the
    default stream), or None without torch."""
    torch = _torch()
    if torch is None:
        return None
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:  # no torch.cuda.Stream object: ~10x cheaper
        return raw(index) or None
    return torch.cuda.current_stream(index).cuda_stream or None


def _stream_handle(stream, index):
    if stream is None:
        return _current_stream(index)
    if isinstance(stream, int):
        return stream or None
    handle = getattr(stream, "cuda_stream", None)
    if handle is None:
        raise ValueError(f"stream: {type(stream).__name__} (legal: None for "
                         "torch's current stream, a torch.cuda.Stream or a "
                         "CUstream as an int)")
    return handle or None


def _unpack_weights(b, sb, zb):
    """b, sb, zb with a PackedWeights b (tilec.pack_weights) split into its
    packed codes, scales and zero points (sb / zb given explicitly win)."""
    if type(b).__name__ == "PackedWeights" and hasattr(b, "weight"):
        sb = b.scales if sb is None else sb
        zb = b.zeros if zb is None else zb
        b = b.weight
    return b, sb, zb


def _capturing():
    torch = _torch()
    return bool(torch and torch.cuda.is_current_stream_capturing())


def _epilogue_operands(handle):
    """The operands the kernel's epilogue ops read (API 16), in the order
    written: dicts of role, type, ld (a matrix's leading dimension's name,
    None for a vector) and axis (tilec_vector_axis)."""
    found = []
    while True:
        e = _lib.EpilogueOperandInfo()
        e.struct_size = ctypes.sizeof(e)
        if lib.tilec_kernel_epilogue_operand(handle, len(found),
                                             ctypes.byref(e)) != _lib.OK:
            return found
        found.append(dict(role=e.role.decode(), type=e.type.decode(),
                          ld=e.ld.decode() if e.ld else None, axis=e.axis))


class Launchable:
    """The launching half of Kernel; needs self._handle."""

    def _launch_state(self):
        state = self.__dict__.get("_state")
        if state is None:
            info = _lib.OperandInfo()
            info.struct_size = ctypes.sizeof(info)
            if lib.tilec_kernel_operands(self._handle,
                                         ctypes.byref(info)) != _lib.OK:
                raise RuntimeError(_lib.last_error())
            names = [p[0] for p in self.params]
            info = {f: (getattr(info, f).decode()
                        if isinstance(getattr(info, f), bytes)
                        else getattr(info, f))
                    for f, _ in _lib.OperandInfo._fields_[1:]}
            info["epilogue"] = _epilogue_operands(self._handle)
            state = self.__dict__["_state"] = {
                "info": info,
                "workspace": "workspace" in names,
                "launchers": {}, "ready": {}, "lock": threading.Lock(),
                "fast": {},
            }
        return state

    @property
    def operands(self):
        """The kernel's operand types, majorness and fixed extents, and
        (epilogue) the operands its epilogue ops read, by role."""
        info = dict(self._launch_state()["info"])
        info["epilogue"] = [dict(e) for e in info["epilogue"]]
        return info

    def _launcher(self, index):
        state = self._launch_state()
        launcher = state["launchers"].get(index)
        if launcher is not None:
            return launcher
        if _capturing():
            raise ValueError(
                f"kernel {self.entry_name}: not loaded on device {index} and "
                "a CUDA graph is being captured (legal: launch it once or "
                "call kernel.prepare(device) before the capture)")
        with state["lock"]:
            launcher = state["launchers"].get(index)
            if launcher is None:
                _context(index)
                torch = _torch()
                guard = torch.cuda.device(index) if torch else None
                handle = ctypes.c_void_p()
                if guard:
                    guard.__enter__()
                try:
                    status = lib.tilec_launcher_create(
                        self._handle, _sm_count(index), ctypes.byref(handle))
                finally:
                    if guard:
                        guard.__exit__(None, None, None)
                if status != _lib.OK:
                    raise RuntimeError(_lib.last_error())
                launcher = state["launchers"][index] = handle
        return launcher

    def check(self, a, b, c, *, sfa=None, sfb=None, group_index=None,
              group_rows=None, sb=None, zb=None, **operands):
        """The checks a launch makes, without launching: (m, n, k, lda, ldb,
        ldc, Operands(a, b, c, epilogue, sfa, sfb, groups, group_index,
        group_rows, sb, zb), device index), the Operands their addresses
        (0: not given; epilogue: the epilogue ops' operands by role, each
        (address, leading dimension)). The epilogue ops' operands come as
        keywords named by their role (bias=, scale=, residual=). A grouped
        kernel's operands are checked per group (split_group: B [G, N, K],
        masked A and C [G, Mmax, ...]) and m is then the rows of A
        (contiguous) or Mmax (masked). ValueError names what is wrong."""
        info = self._launch_state()["info"]
        groups, og, a, b, c, sfa, sfb = split_group(
            info, a, b, c, group_index, group_rows, sfa, sfb)
        b, sb, zb = _unpack_weights(b, sb, zb)
        m, n, k, lda, ldb, ldc, p, device = resolve(
            info, a, b, c, sfa=sfa, sfb=sfb, sb=sb, zb=zb, operands=operands)
        if og is not None:
            masked = info.get("group_kind") == GROUP_MASKED
            p = p._replace(groups=groups,
                           group_index=0 if masked else og.ptr,
                           group_rows=og.ptr if masked else 0)
        return m, n, k, lda, ldb, ldc, p, device

    def _args(self, a, b, c, alpha, beta, extra):
        # A batched kernel: 3-D tensors (a 2-D one for a shared operand),
        # the first batch checked as the matrices, the strides from dim 0.
        batch, strides, a, b, c = split_batch(self._launch_state()["info"],
                                              a, b, c)
        m, n, k, lda, ldb, ldc, p, device = self.check(a, b, c, **extra)
        roles = (_lib.EpilogueOperand * max(1, len(p.epilogue)))(*(
            _lib.EpilogueOperand(role.encode(), ptr, ld)
            for role, (ptr, ld) in p.epilogue.items()))
        args = _lib.GemmArgs(ctypes.sizeof(_lib.GemmArgs), p.a, p.b, p.c, m,
                             n, k, lda, ldb, ldc, alpha, beta, 0, 0, 0, 0,
                             batch, *strides, p.sfa, p.sfb, p.groups,
                             p.group_index, p.group_rows, p.sb, p.zb, roles,
                             len(p.epilogue))
        args._roles = roles  # the array (and its role strings) lives as long
        return args, (m, n), _device_index(device)

    def prepare(self, a=None, b=None, c=None, alpha=1.0, beta=0.0,
                stream=None, *, device=None, sfa=None, sfb=None,
                group_index=None, group_rows=None, sb=None, zb=None,
                **operands):
        """Loads the module on a device (prepare(device)) and, given
        operands, prepares their launch (the tensor maps and the split-K
        workspace), without launching: do it before a CUDA graph capture."""
        if a is None:
            self._launcher(_device_index(device))
            return self
        args, mn, index = self._args(a, b, c, alpha, beta, dict(
            sfa=sfa, sfb=sfb, group_index=group_index, group_rows=group_rows,
            sb=sb, zb=zb, **operands))
        launcher = self._launcher(index)
        status = lib.tilec_launch_prepare(launcher, ctypes.byref(args),
                                          _stream_handle(stream, index))
        self._raise_for(status)
        self._note_ready(index, mn)
        return self

    def _note_ready(self, index, mn):
        state = self._launch_state()
        if state["workspace"]:
            need = lib.tilec_kernel_workspace_bytes(self._handle, *mn)
            ready = state["ready"]
            ready[index] = max(ready.get(index, 0), need)

    def _raise_for(self, status):
        if status == _lib.OK:
            return
        if status in (_lib.ERROR_LAUNCH_ARGUMENT,
                      _lib.ERROR_INVALID_ARGUMENT):
            raise ValueError(_lib.last_error())
        raise RuntimeError(_lib.last_error())

    def __call__(self, a, b, c, alpha=1.0, beta=0.0, stream=None, *,
                 sfa=None, sfb=None, group_index=None, group_rows=None,
                 sb=None, zb=None, **operands):
        """C = alpha * A B^T + beta * C (then the epilogue ops) on device
        tensors, on `stream` (None: torch's current stream). Returns c.

        The epilogue ops' operands are keywords named by their role (the
        op table's, ir/tile/EpilogueOps.def; Kernel.operands["epilogue"] lists
        the kernel's): bias (`bias(col|row[, T])`: a vector in C's dtype or
        T), scale (`scale(col|row)`: f32), residual (`residual`: C's shape,
        row-major, any leading dimension); with `swiglu` C is M x N/2. A block-scaled fp8 kernel (`scale a f32
        block(1, 128)`, `scale b f32 block(128, 128)`) takes sfa, f32
        [M, ceil(K/128)], and sfb, f32 [ceil(N/128), ceil(K/128)], both
        contiguous row-major.

        A grouped kernel (`group contiguous|masked`) takes B as [G, N, K]
        and SFB as [G, ceil(N/128), ceil(K/128)]; contiguous: A [M, K], C
        [M, N] and group_index, int32[M] (each row's group, -1 padding:
        those rows of C are not written); masked: A [G, Mmax, K], C [G,
        Mmax, N], SFA [G, Mmax, ceil(K/128)] and group_rows, int32[G] (each
        group's valid rows, read on the device; the rest of C is not
        written). beta must be 0.

        A 4-bit weight kernel (`b : u4|i4[N, K]`, `scale b T group(G)
        [zero(u8)]`) takes b as the packed codes, int32 [N, K/8] from
        tilec.pack_weights, sb its group scales T[K/G, N] and with zero
        points zb uint8 [K/G, N]; or b as the PackedWeights itself, whose
        scales and zeros then fill sb and zb."""
        state = self.__dict__.get("_state") or self._launch_state()
        b, sb, zb = _unpack_weights(b, sb, zb)
        roles = tuple(sorted(operands))
        extra = (sfa, sfb, group_index, group_rows, sb, zb) + tuple(
            operands[role] for role in roles)
        # Fast path: torch tensors launched before with the same pointers,
        # shapes, strides, dtypes and devices passed every check then, and
        # the launcher then loaded the module and grew the workspace.
        key = None
        if all(x is None or hasattr(x, "get_device") for x in extra) and \
                hasattr(a, "get_device") and hasattr(b, "get_device") and \
                hasattr(c, "get_device"):
            key = (a.data_ptr(), b.data_ptr(), c.data_ptr(), a.shape,
                   b.shape, c.shape, a.stride(), b.stride(), c.stride(),
                   a.dtype, b.dtype, c.dtype, a.get_device(),
                   b.get_device(), c.get_device(), alpha, beta, roles)
            if any(x is not None for x in extra):
                key += tuple(None if x is None else
                             (i, x.data_ptr(), x.shape, x.stride(), x.dtype,
                              x.get_device())
                             for i, x in enumerate(extra))
            hit = state["fast"].get(key)
            if hit is not None:
                args, index, launcher = hit
                status = lib.tilec_launch(
                    launcher, args,
                    _current_stream(index) if stream is None
                    else _stream_handle(stream, index))
                if status != _lib.OK:
                    self._raise_for(status)
                return c
        args, mn, index = self._args(a, b, c, alpha, beta, dict(
            sfa=sfa, sfb=sfb, group_index=group_index, group_rows=group_rows,
            sb=sb, zb=zb, **operands))
        launcher = self._launcher(index)
        if state["workspace"] and _capturing():
            need = lib.tilec_kernel_workspace_bytes(self._handle, *mn)
            if need > state["ready"].get(index, 0):
                raise ValueError(
                    f"kernel {self.entry_name}: M x N = {mn[0]} x {mn[1]} "
                    f"needs a {need}-byte split-K workspace, which cannot be "
                    "allocated during CUDA graph capture (legal: call "
                    "kernel.prepare(a, b, c) or launch this shape once "
                    "before the capture)")
        status = lib.tilec_launch(launcher, ctypes.byref(args),
                                  _stream_handle(stream, index))
        if status != _lib.OK:
            self._raise_for(status)
        if state["workspace"]:
            self._note_ready(index, mn)
        if key is not None:
            if len(state["fast"]) >= 256:
                state["fast"].clear()
            state["fast"][key] = (ctypes.byref(args), index, launcher)
        return c

    def _release_launchers(self):
        state = self.__dict__.get("_state")
        if not state:
            return
        for handle in state["launchers"].values():
            try:
                lib.tilec_launcher_destroy(handle)
            except Exception:  # noqa: BLE001  (interpreter exit)
                pass
        state["launchers"].clear()
