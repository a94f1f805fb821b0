"""Reading a GEMM's operands from torch tensors, __cuda_array_interface__
objects and DLPack producers, and checking them against a kernel, with no
launch: every failure is a ValueError naming the argument and what is legal.

The kernel works in the "TN" view: A is M x K, B is N x K, C is M x N
row-major, and the kernel's majorness says which extent of A and B is
contiguous. An operand may be given as that matrix (A as M x K) or as its
transpose (A as K x M): for a K-major A, an M x K tensor whose K stride is 1
(row-major) or a K x M tensor whose K stride is 1 (the transpose view of a
row-major M x K one); for an M-major A, a K x M row-major tensor or the
M x K transpose view of one. M and N come from C, so a square operand is
read the way its unit stride says.

Example: a K-major bf16 kernel and a = torch.empty(64, 7168, bf16),
b = w.t() with w = torch.empty(2112, 7168, bf16) contiguous, c = (64, 2112):
M = 64, N = 2112, K = 7168, lda = 7168, ldb = 7168, ldc = 2112.
"""

# Storage dtype names by torch dtype and by __cuda_array_interface__ typestr.
_TORCH_DTYPES = {
    "torch.bfloat16": "bf16", "torch.float16": "f16", "torch.float32": "f32",
    "torch.float8_e4m3fn": "e4m3", "torch.float8_e5m2": "e5m2",
    "torch.int8": "i8", "torch.uint8": "u8",
}
_CAI_DTYPES = {"<f2": "f16", "<f4": "f32", "|i1": "i8", "|u1": "u8"}
_BYTES = {"bf16": 2, "f16": 2, "f32": 4, "e4m3": 1, "e5m2": 1, "i8": 1,
          "u8": 1}
# A kernel's element type -> the storage dtype that holds it.
_STORAGE = {"tf32": "f32"}
ALIGN = 16


class Operand:
    """What the checks need of one argument."""
    __slots__ = ("ptr", "dtype", "shape", "strides", "device", "obj")

    def __init__(self, ptr, dtype, shape, strides, device, obj=None):
        self.ptr, self.dtype = ptr, dtype
        self.shape, self.strides = tuple(shape), tuple(strides)
        # ("cuda", index or None for "the current one") or ("cpu", None)...
        self.device = device
        self.obj = obj


def _is_torch_tensor(x):
    return type(x).__module__.startswith("torch") and hasattr(x, "data_ptr")


def operand(x, name):
    """The Operand of x (a torch tensor, a __cuda_array_interface__ object
    or a DLPack producer); ValueError if it is none of them."""
    if isinstance(x, Operand):
        return x
    if _is_torch_tensor(x):
        dtype = _TORCH_DTYPES.get(str(x.dtype), str(x.dtype))
        dev = x.device
        return Operand(x.data_ptr(), dtype, x.shape, x.stride(),
                       (dev.type, dev.index), x)
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        typestr = cai["typestr"]
        dtype = _CAI_DTYPES.get(typestr, typestr)
        shape = tuple(cai["shape"])
        size = _BYTES.get(dtype, 1)
        strides = cai.get("strides")
        if strides is None:  # C-contiguous
            strides, step = [], 1
            for extent in reversed(shape):
                strides.insert(0, step)
                step *= extent
        else:
            if any(s % size for s in strides):
                raise ValueError(f"{name}: strides {tuple(strides)} bytes are "
                                 f"not whole {dtype} elements")
            strides = [s // size for s in strides]
        return Operand(cai["data"][0], dtype, shape, strides, ("cuda", None),
                       x)
    if hasattr(x, "__dlpack__"):
        try:
            import torch.utils.dlpack
        except ImportError:
            raise ValueError(f"{name}: a DLPack producer needs torch to be "
                             "read (or pass a torch tensor or an object with "
                             "__cuda_array_interface__)") from None
        return operand(torch.utils.dlpack.from_dlpack(x), name)
    raise ValueError(f"{name}: {type(x).__name__} is not a tensor (legal: a "
                     "torch tensor, an object with __cuda_array_interface__ "
                     "or a DLPack producer)")


def _check_dtype(op, name, want):
    storage = _STORAGE.get(want, want)
    if op.dtype != storage:
        why = f" (holding {want})" if storage != want else ""
        raise ValueError(f"{name}: dtype {op.dtype} is not the kernel's "
                         f"{name} type (legal: {storage}{why})")


def _check_cuda(op, name):
    if op.device[0] != "cuda":
        raise ValueError(f"{name}: the tensor is on {op.device[0]} (legal: a "
                         "CUDA tensor)")


def _matrix(op, name, rows_name, rows, k, major):
    """(rows, k, ld) of an operand whose TN view is rows x k, `major` ("K"
    or "MN") naming its contiguous extent; rows or k None: not known yet."""
    if len(op.shape) != 2:
        raise ValueError(f"{name}: {len(op.shape)}-D tensor of shape "
                         f"{op.shape} (legal: a 2-D {rows_name} x K matrix or "
                         "its transpose)")
    (r0, r1), (s0, s1) = op.shape, op.strides
    k_major = major == "K"
    # As given (rows x K): the contiguous extent is dim 1 if K-major.
    # Transposed (K x rows): it is dim 0 if K-major.
    forms = []
    for transposed in (False, True):
        rr, kk = (r1, r0) if transposed else (r0, r1)
        unit_dim = (1 if k_major else 0) ^ (1 if transposed else 0)
        unit, other = (s1, s0) if unit_dim == 1 else (s0, s1)
        extent = op.shape[unit_dim]
        if unit != 1 and extent != 1:
            continue
        if rows is not None and rr != rows:
            continue
        if k is not None and kk != k:
            continue
        forms.append((rr, kk, other))
    if not forms:
        contiguous = "K" if k_major else rows_name
        want = (f"{rows or rows_name} x {k or 'K'}" if rows or k else
                f"{rows_name} x K")
        raise ValueError(
            f"{name}: shape {op.shape} with strides {op.strides} is not a "
            f"{contiguous}-major {want} matrix (legal: the {want} matrix with "
            f"unit stride along {contiguous}, or its transpose view)")
    rr, kk, ld = forms[0]
    return rr, kk, ld


def _check_ld(name, ld, inner, dtype, ld_name):
    size = _BYTES[dtype]
    if ld < inner or (ld * size) % ALIGN:
        raise ValueError(
            f"{name}: leading dimension {ld_name} = {ld} elements (legal: at "
            f"least {inner} and a multiple of {ALIGN // size} {dtype} elements,"
            f" i.e. whole {ALIGN}-byte rows; make the tensor contiguous with "
            "such a row length)")


def _check_align(op, name, align):
    if op.ptr % align:
        raise ValueError(f"{name}: data pointer 0x{op.ptr:x} is not "
                         f"{align}-byte aligned (legal: a multiple of {align};"
                         " a view at an unaligned offset cannot be read)")


def split_batch(info, a, b, c):
    """For a batched kernel (info["batched"]): (batch, (stride_a, stride_b,
    stride_c), a, b, c) with a, b, c the first batch's 2-D Operands: C is a
    B x M x N tensor, A (B x M x K, or its transposed batches) and B the
    same when batched, a 2-D matrix when the kernel shares one (declared
    without the batch extent); the strides are the tensors' stride(0) in
    elements. For an unbatched kernel: (1, (0, 0, 0), a, b, c) as given.
    ValueError names the argument."""
    if not info.get("batched"):
        return 1, (0, 0, 0), a, b, c
    oc = operand(c, "c")
    if len(oc.shape) != 3:
        raise ValueError(f"c: {len(oc.shape)}-D tensor of shape {oc.shape} "
                         "(legal: a 3-D B x M x N tensor, the kernel is "
                         "batched)")
    batch = oc.shape[0]
    fixed = info.get("batch_fixed", 0)
    if batch < 1 or (fixed and batch != fixed):
        raise ValueError(f"c: batch {batch} from its leading dimension "
                         f"(legal: {fixed if fixed else 'at least 1'})")
    out, strides = [], []
    for name, x, batched in (("a", a, info.get("a_batched")),
                             ("b", b, info.get("b_batched")), ("c", c, True)):
        op = oc if name == "c" else operand(x, name)
        if not batched:
            if len(op.shape) != 2:
                raise ValueError(f"{name}: {len(op.shape)}-D tensor of shape "
                                 f"{op.shape} (legal: a 2-D matrix: the "
                                 f"kernel shares one {name.upper()} across "
                                 "the batch)")
            out.append(op)
            strides.append(0)
            continue
        if len(op.shape) != 3 or op.shape[0] != batch:
            raise ValueError(f"{name}: shape {op.shape} (legal: a 3-D tensor "
                             f"of {batch} batches, as c's leading dimension "
                             "says)")
        if op.strides[0] < 0:
            raise ValueError(f"{name}: batch stride {op.strides[0]} (legal: "
                             "0 or positive)")
        out.append(Operand(op.ptr, op.dtype, op.shape[1:], op.strides[1:],
                           op.device, op.obj))
        strides.append(op.strides[0] if batch > 1 else 0)
    return batch, tuple(strides), out[0], out[1], out[2]


def resolve(info, a, b, c, bias=None, scale=None, has_bias=False,
            has_scale=False):
    """Checks a, b, c (and bias, scale) against the kernel's OperandInfo
    (a dict: a_type, b_type, c_type, a_major, b_major, fixed_m/n/k,
    ldc_multiple, c_align_bytes) and returns (m, n, k, lda, ldb, ldc,
    pointers (a, b, c, bias, scale), device index or None)."""
    ops = {"a": operand(a, "a"), "b": operand(b, "b"), "c": operand(c, "c")}
    for name, op in ops.items():
        _check_cuda(op, name)
        _check_dtype(op, name, info[name + "_type"])
    devices = {op.device[1] for op in ops.values()}
    if len(devices) > 1:
        raise ValueError("a, b, c: tensors on devices "
                         f"{sorted(devices, key=str)} (legal: all on one)")
    oc = ops["c"]
    if len(oc.shape) != 2:
        raise ValueError(f"c: {len(oc.shape)}-D tensor of shape {oc.shape} "
                         "(legal: a 2-D M x N row-major matrix)")
    m, n = oc.shape
    if oc.strides[1] != 1 and n != 1:
        raise ValueError(f"c: strides {oc.strides} (legal: row-major M x N, "
                         "stride 1 along N)")
    ldc = oc.strides[0] if m > 1 else max(oc.strides[0], n)
    ma, ka, lda = _matrix(ops["a"], "a", "M", m, None, info["a_major"])
    nb, kb, ldb = _matrix(ops["b"], "b", "N", n, ka, info["b_major"])
    k = ka
    for letter, value in (("m", m), ("n", n), ("k", k)):
        fixed = info["fixed_" + letter]
        if fixed and value != fixed:
            raise ValueError(f"{letter.upper()} = {value}: the kernel fixes "
                             f"{letter.upper()} = {fixed} (legal: {fixed})")
    if min(m, n, k) < 1:
        raise ValueError(f"M = {m}, N = {n}, K = {k} (legal: each at least 1)")
    a_inner = k if info["a_major"] == "K" else m
    b_inner = k if info["b_major"] == "K" else n
    _check_ld("a", lda, a_inner, ops["a"].dtype, "lda")
    _check_ld("b", ldb, b_inner, ops["b"].dtype, "ldb")
    _check_ld("c", ldc, n, oc.dtype, "ldc")
    if ldc % info["ldc_multiple"]:
        raise ValueError(f"c: ldc = {ldc} (legal: a multiple of "
                         f"{info['ldc_multiple']} for this kernel)")
    _check_align(ops["a"], "a", ALIGN)
    _check_align(ops["b"], "b", ALIGN)
    _check_align(oc, "c", max(ALIGN, info["c_align_bytes"]))
    vectors = []
    for vname, vec, present, want in (("bias", bias, has_bias,
                                       info["c_type"]),
                                      ("scale", scale, has_scale, "f32")):
        if vec is None:
            if present:
                raise ValueError(f"{vname}: the kernel's epilogue reads a "
                                 f"{vname} vector (legal: a CUDA vector of M "
                                 "or N elements, as its op's axis says)")
            vectors.append(0)
            continue
        if not present:
            raise ValueError(f"{vname}: the kernel has no {vname} op (legal: "
                             "None)")
        op = operand(vec, vname)
        _check_cuda(op, vname)
        _check_dtype(op, vname, want)
        if len(op.shape) != 1 or op.shape[0] not in (m, n) or (
                op.strides[0] != 1 and op.shape[0] != 1):
            raise ValueError(f"{vname}: shape {op.shape} strides {op.strides}"
                             f" (legal: a contiguous vector of N = {n} or "
                             f"M = {m} elements, as its op's axis says)")
        if op.device[1] not in devices:
            raise ValueError(f"{vname}: on device {op.device[1]}, the "
                             f"matrices on {devices.pop()} (legal: the same)")
        _check_align(op, vname, ALIGN)
        vectors.append(op.ptr)
    return (m, n, k, lda, ldb, ldc,
            (ops["a"].ptr, ops["b"].ptr, oc.ptr, vectors[0], vectors[1]),
            devices.pop())
