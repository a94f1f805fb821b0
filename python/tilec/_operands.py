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

The epilogue's operands are checked the same way against what the kernel
reads, bound by role (tilec_kernel_epilogue_operand, API 16: each op's
operand from ir/tile/EpilogueOps.def, so a new op needs nothing here):
bias(col|row[, T]) and scale(col|row) vectors, the residual tensor (C's
shape, its own leading dimension ldr); C and B of a swiglu kernel (C is
M x N/2), and the block scales sfa and sfb of a block-scaled fp8 kernel.

A 4-bit weight kernel (`b : u4|i4[N, K]` with `scale b T group(G)
[zero(u8)]`, API 12: weight_group, weight_scale_type, weight_zeros) takes b
as the packed codes, the int32 [N, K/8] tensor of tilec.pack_weights
(ldb = K), sb its group scales T[K/G, N] and with zero points zb uint8
[K/G, N], all contiguous and 16-byte aligned.
"""
from collections import namedtuple

from ._pack import code_bits

# Storage dtype names by torch dtype and by __cuda_array_interface__ typestr.
_TORCH_DTYPES = {
    "torch.bfloat16": "bf16", "torch.float16": "f16", "torch.float32": "f32",
    "torch.float8_e4m3fn": "e4m3", "torch.float8_e5m2": "e5m2",
    "torch.int8": "i8", "torch.uint8": "u8", "torch.int32": "i32",
}
_CAI_DTYPES = {"<f2": "f16", "<f4": "f32", "|i1": "i8", "|u1": "u8",
               "<i4": "i32"}
_BYTES = {"bf16": 2, "f16": 2, "f32": 4, "e4m3": 1, "e5m2": 1, "i8": 1,
          "u8": 1, "i32": 4}
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


def _check_ld(name, ld, inner, dtype, ld_name, multiple=None):
    """ld covers `inner` elements and is a multiple of `multiple` elements
    (None: whole 16-byte rows, as TMA and cp.async read A and B)."""
    size = _BYTES[dtype]
    rows = multiple is None
    multiple = ALIGN // size if rows else multiple
    if ld < inner or ld % multiple:
        why = f", i.e. whole {ALIGN}-byte rows" if rows else \
            " for this kernel"
        raise ValueError(
            f"{name}: leading dimension {ld_name} = {ld} elements (legal: at "
            f"least {inner} and a multiple of {multiple} {dtype} elements"
            f"{why}; make the tensor contiguous with such a row length)")


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


# tilec_group_kind (include/tilec/tilec.h).
GROUP_NONE, GROUP_CONTIGUOUS, GROUP_MASKED = 0, 1, 2


def _per_group(op, name, groups, what):
    """The first group of a 3-D `op` whose groups are dense: the 2-D
    Operand of group 0 (the launcher steps from one group to the next by
    rows x row stride, so the group stride must be exactly that)."""
    if len(op.shape) != 3 or op.shape[0] != groups:
        raise ValueError(f"{name}: shape {op.shape} (legal: a 3-D {what} "
                         f"tensor of G = {groups} groups)")
    (_, r0, r1), (g, s0, s1) = op.shape, op.strides
    # The group stride of dense groups: the non-unit dimension's extent
    # times its stride (a row-major [rows, cols] group: rows * cols).
    dense = r0 * s0 if s1 == 1 or r1 == 1 else r1 * s1
    if groups > 1 and g != dense:
        raise ValueError(f"{name}: group stride {g} elements (legal: {dense},"
                         f" the groups of a {what} tensor stored one after "
                         "another; make it contiguous)")
    return Operand(op.ptr, op.dtype, op.shape[1:], op.strides[1:], op.device,
                   op.obj)


def split_group(info, a, b, c, group_index=None, group_rows=None, sfa=None,
                sfb=None):
    """For a grouped kernel (info["group_kind"]): (groups, group tensor
    Operand, a, b, c, sfa, sfb) with a, b, c, sfa, sfb the first group's
    2-D Operands (None stays None), after checking the group extent of each
    and the group tensor: contiguous, group_index int32[M] and group_rows
    None; masked, group_rows int32[G] and group_index None; a CUDA tensor
    on a, b, c's device, contiguous, 4-byte aligned. For an ungrouped
    kernel: (1, None, a, b, c, sfa, sfb) as given, both group tensors None.
    ValueError names the argument."""
    kind = info.get("group_kind", GROUP_NONE)
    if kind == GROUP_NONE:
        for name, x in (("group_index", group_index),
                        ("group_rows", group_rows)):
            if x is not None:
                raise ValueError(f"{name}: the kernel is not grouped (legal: "
                                 "None, or compile it with 'group contiguous'"
                                 " / 'group masked')")
        return 1, None, a, b, c, sfa, sfb
    masked = kind == GROUP_MASKED
    mode = "masked" if masked else "contiguous"
    mine, other = (("group_rows", "group_index") if masked else
                   ("group_index", "group_rows"))
    if (group_index if masked else group_rows) is not None:
        raise ValueError(f"{other}: the kernel is group {mode}, which reads "
                         f"{mine}, not {other} (legal: None)")
    ob = operand(b, "b")
    if len(ob.shape) != 3:
        raise ValueError(f"b: {len(ob.shape)}-D tensor of shape {ob.shape} "
                         "(legal: a 3-D G x N x K tensor, one N x K matrix "
                         f"per group: the kernel is group {mode})")
    groups = ob.shape[0]
    fixed = info.get("group_fixed", 0)
    if groups < 1 or groups > 65535 or (fixed and groups != fixed):
        raise ValueError(f"b: G = {groups} groups from its leading dimension "
                         f"(legal: {fixed if fixed else '1 to 65535'})")
    ob = _per_group(ob, "b", groups, "G x N x K")
    oa, oc = operand(a, "a"), operand(c, "c")
    if masked:
        oa = _per_group(oa, "a", groups, "G x Mmax x K")
        oc = _per_group(oc, "c", groups, "G x Mmax x N")
    for name, op in (("a", oa), ("c", oc)):
        if len(op.shape) != 2:
            raise ValueError(f"{name}: {len(op.shape)}-D tensor of shape "
                             f"{op.shape} (legal: a 2-D matrix, the rows of "
                             "every group stacked: the kernel is group "
                             "contiguous)")
    length = groups if masked else oc.shape[0]
    what = (f"int32[G] = [{groups}], the valid rows of each group" if masked
            else f"int32[M] = [{length}], the group of each row of A (-1: "
            "padding)")
    x = group_rows if masked else group_index
    if x is None:
        raise ValueError(f"{mine}: the kernel is group {mode} (legal: a CUDA "
                         f"{what})")
    og = operand(x, mine)
    _check_cuda(og, mine)
    _check_dtype(og, mine, "i32")
    if len(og.shape) != 1 or og.shape[0] != length or (
            og.strides[0] != 1 and length != 1):
        raise ValueError(f"{mine}: shape {og.shape} strides {og.strides} "
                         f"(legal: a contiguous {what})")
    if og.device != oc.device:
        raise ValueError(f"{mine}: on {og.device}, c on {oc.device} (legal: "
                         "the same device)")
    _check_align(og, mine, 4)
    sfa_what = "G x Mmax x ceil(K / 128)"
    out = []
    for name, x, per_group, shape in (
            ("sfa", sfa, masked, sfa_what),
            ("sfb", sfb, True, "G x ceil(N / 128) x ceil(K / 128)")):
        if x is None or not per_group:
            out.append(x)
            continue
        out.append(_per_group(operand(x, name), name, groups, "f32 " + shape))
    return groups, og, oa, ob, oc, out[0], out[1]


class Operands(namedtuple("Operands", "a b c epilogue sfa sfb groups "
                                  "group_index group_rows sb zb",
                          defaults=(1, 0, 0, 0, 0))):
    """The device addresses check() found (0 for an operand not given): the
    epilogue ops' operands by role ({"bias": (address, 0), "residual":
    (address, ldr)}: a matrix's leading dimension in elements, 0 for a
    vector), for a grouped kernel the group count and its group tensor's
    address, and for a quantized weight kernel its group scales sb and zero
    points zb."""
    __slots__ = ()


# tilec_vector_axis (include/tilec/tilec.h): the extent a vector follows.
AXIS_NONE, AXIS_COL, AXIS_ROW, AXIS_OUT_COL = 0, 1, 2, 3


def _on_device(op, name, devices):
    _check_cuda(op, name)
    if op.device[1] not in devices:
        raise ValueError(f"{name}: on device {op.device[1]}, a, b, c on "
                         f"{next(iter(devices))} (legal: the same device)")


def _vector(x, name, present, want, length, what):
    """The address of an epilogue vector: `length` contiguous elements of
    `want`; x None exactly when the kernel has no such op (`present`)."""
    if x is None:
        if present:
            raise ValueError(f"{name}: the kernel's epilogue reads a {name} "
                             f"vector (legal: a CUDA {want} vector of "
                             f"{what})")
        return None
    if not present:
        raise ValueError(f"{name}: the kernel has no {name} op (legal: None)")
    op = operand(x, name)
    _check_dtype(op, name, want)
    if len(op.shape) != 1 or op.shape[0] != length or (
            op.strides[0] != 1 and length != 1):
        raise ValueError(f"{name}: shape {op.shape} strides {op.strides} "
                         f"(legal: a contiguous vector of {what}, as its op's "
                         "axis says)")
    return op


def _matrix_operand(x, name, want, ld_name, m, cols, cols_name):
    """(operand, leading dimension) of an epilogue matrix of C's shape, M x
    cols of `want`, row-major with any leading dimension (named ld_name)."""
    shape = f"M x {cols_name} = {m} x {cols}"
    if x is None:
        raise ValueError(f"{name}: the kernel's epilogue reads a {name} "
                         f"tensor (legal: a CUDA {want} {shape} row-major "
                         "tensor)")
    op = operand(x, name)
    _check_dtype(op, name, want)
    if len(op.shape) != 2 or tuple(op.shape) != (m, cols) or (
            op.strides[1] != 1 and cols != 1):
        raise ValueError(f"{name}: shape {op.shape} strides {op.strides} "
                         f"(legal: an {shape} tensor, row-major: stride 1 "
                         "along its columns)")
    ld = op.strides[0] if m > 1 else max(op.strides[0], cols)
    if ld < cols or ld > 2**31 - 1:
        raise ValueError(f"{name}: leading dimension {ld_name} = {ld} "
                         f"elements (legal: at least {cols} and at most "
                         f"{2**31 - 1})")
    return op, ld


def _scale_tensor(x, name, present, rows, cols, strides, legal, need):
    """An f32 rows x cols block-scale tensor with these element strides
    (the C API takes no leading dimension); x None exactly when the kernel
    is block-scaled (`present`); `legal` describes it in messages."""
    if x is None:
        if present:
            raise ValueError(f"{name}: the kernel is block-scaled ({need}) "
                             f"(legal: {legal})")
        return None
    if not present:
        raise ValueError(f"{name}: the kernel has no block scales (legal: "
                         "None)")
    op = operand(x, name)
    _check_dtype(op, name, "f32")
    if tuple(op.shape) != (rows, cols) or (
            cols > 1 and op.strides[1] != strides[1]) or (
            rows > 1 and op.strides[0] != strides[0]):
        raise ValueError(f"{name}: shape {op.shape} strides {op.strides} "
                         f"(legal: {legal}, strides {strides})")
    return op


def _row_major(x, name, present, rows, cols, what, need):
    """A row-major rows x cols block-scale tensor, strides (cols, 1)."""
    return _scale_tensor(x, name, present, rows, cols, (cols, 1),
                         f"a contiguous row-major f32[{what}] = [{rows}, "
                         f"{cols}] tensor", need)


def _m_major(x, name, present, rows, cols):
    """SFA stored K block by K block (`scale a ... major(M)`): the M x
    ceil(K/128) view with strides (1, M), e.g. t.t() of a contiguous
    ceil(K/128) x M tensor."""
    return _scale_tensor(x, name, present, rows, cols, (1, rows),
                         f"an M-major f32[M, ceil(K / 128)] = [{rows}, "
                         f"{cols}] tensor", "scale a f32 block(1, 128) "
                         "major(M)")


def _packed_weight(op, n, k, fmt):
    """(n, k, ldb) of a quantized weight's packed codes (`fmt` the kernel's
    b type: 4-bit u4/i4 or 8-bit i8/u8/e4m3/e5m2): a contiguous int32
    [N, K * bits / 32] tensor (tilec.pack_weights), N % 16 == 0, K a
    multiple of the packed block's K (64 for 4-bit codes, 32 for 8-bit)."""
    bits = code_bits(fmt)
    block_k, cols = 256 // bits, k * bits // 32
    what = f"the packed {fmt} weight"
    if n % 16 or k % block_k:
        raise ValueError(
            f"b: N = {n}, K = {k}: {what} holds blocks of 16 output "
            f"channels x {block_k} K (legal: N a multiple of 16 and K of "
            f"{block_k}; pad the weight before packing)")
    if op.dtype != "i32":
        raise ValueError(f"b: dtype {op.dtype} is not {what} (legal: the "
                         f"int32 [N, K*{bits}/32] = [{n}, {cols}] tensor of "
                         "tilec.pack_weights)")
    if tuple(op.shape) != (n, cols) or (op.strides[1] != 1) or (
            n > 1 and op.strides[0] != cols):
        raise ValueError(f"b: shape {op.shape} strides {op.strides} (legal: "
                         f"a contiguous int32 [N, K*{bits}/32] = [{n}, "
                         f"{cols}] tensor from tilec.pack_weights, N from c "
                         "and K from a)")
    return n, k, k


def _group_tensor(x, name, present, dtype, rows, n, group, what, need):
    """A quantized weight's group scales (sb) or zero points (zb): a contiguous
    row-major dtype[ceil(K/G), N] tensor; x None exactly when the kernel
    reads it (`present`)."""
    shape = f"{dtype}[ceil(K / {group}), N] = [{rows}, {n}]"
    if x is None:
        if present:
            raise ValueError(f"{name}: the kernel dequantizes a quantized "
                             f"weight with {what} (legal: a contiguous CUDA "
                             f"{shape} tensor, e.g. PackedWeights." +
                             ("scales" if name == "sb" else "zeros") + ")")
        return None
    if not present:
        raise ValueError(f"{name}: the kernel takes no {what} (legal: None"
                         f"{need})")
    op = operand(x, name)
    _check_dtype(op, name, dtype)
    if tuple(op.shape) != (rows, n) or (n > 1 and op.strides[1] != 1) or (
            rows > 1 and op.strides[0] != n):
        raise ValueError(f"{name}: shape {op.shape} strides {op.strides} "
                         f"(legal: a contiguous row-major {shape} tensor)")
    _check_align(op, name, ALIGN)
    return op


def resolve(info, a, b, c, sfa=None, sfb=None, sb=None, zb=None,
            operands=None):
    """Checks a, b, c and the operands the kernel's epilogue and block
    scales read against its OperandInfo (a dict: a_type, b_type, c_type,
    a_major, b_major, fixed_m/n/k, ldc_multiple, c_align_bytes and, API 6,
    swiglu, tile_n, block_scaled; API 12, weight_group, weight_scale_type,
    weight_zeros; API 16, epilogue: the epilogue ops' operands, dicts of
    role, type, ld and axis; a key left out means no such op); `operands`
    maps roles to the tensors given. Returns (m, n, k, lda, ldb, ldc,
    Operands(a, b, c, epilogue, sfa, sfb, sb=, zb=), device index or None).

    With swiglu C is M x N/2: N is twice C's columns (B has N rows), a
    bias(col) before swiglu has N elements, one after it and the residual
    follow C's N/2 columns."""
    ops = {"a": operand(a, "a"), "b": operand(b, "b"), "c": operand(c, "c")}
    group = info.get("weight_group", 0)
    for name, op in ops.items():
        _check_cuda(op, name)
        if not (group and name == "b"):  # packed codes: _packed_weight
            _check_dtype(op, name, info[name + "_type"])
    devices = {op.device[1] for op in ops.values()}
    if len(devices) > 1:
        raise ValueError("a, b, c: tensors on devices "
                         f"{sorted(devices, key=str)} (legal: all on one)")
    oc = ops["c"]
    swiglu = info.get("swiglu", 0)
    if len(oc.shape) != 2:
        raise ValueError(f"c: {len(oc.shape)}-D tensor of shape {oc.shape} "
                         "(legal: a 2-D M x " + ("N/2" if swiglu else "N") +
                         " row-major matrix)")
    m, c_cols = oc.shape
    if oc.strides[1] != 1 and c_cols != 1:
        raise ValueError(f"c: strides {oc.strides} (legal: row-major, stride "
                         "1 along its columns)")
    ldc = oc.strides[0] if m > 1 else max(oc.strides[0], c_cols)
    n = 2 * c_cols if swiglu else c_cols
    tile_n = info.get("tile_n", 0)
    if swiglu == 1 and tile_n and n % tile_n:
        raise ValueError(
            f"c: {c_cols} columns, so N = {n} accumulator columns, but the "
            f"kernel's swiglu pairs the halves of each BN = {tile_n} tile "
            f"(legal: N a multiple of {tile_n}, i.e. C with a multiple of "
            f"{tile_n // 2} columns, or compile swiglu(interleaved))")
    ma, ka, lda = _matrix(ops["a"], "a", "M", m, None, info["a_major"])
    if group:
        nb, kb, ldb = _packed_weight(ops["b"], n, ka, info["b_type"])
    else:
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
    if not group:
        _check_ld("b", ldb, b_inner, ops["b"].dtype, "ldb")
    # C as the kernel's epilogue needs it (sm_80: 16-byte vectors; sm_90a:
    # any ldc and 4-byte pairs, the TMA store only where C allows it).
    _check_ld("c", ldc, c_cols, oc.dtype, "ldc",
              max(1, info["ldc_multiple"]))
    _check_align(ops["a"], "a", ALIGN)
    _check_align(ops["b"], "b", ALIGN)
    _check_align(oc, "c", max(1, info["c_align_bytes"]))

    # The epilogue's operands, bound by role; each aligned to its element.
    found, lds = {}, {}
    given = {role: x for role, x in (operands or {}).items() if x is not None}
    lengths = {AXIS_COL: (n, f"N = {n} elements"),
               AXIS_ROW: (m, f"M = {m} elements"),
               AXIS_OUT_COL: (c_cols, f"N/2 = {c_cols} elements (after "
                              "swiglu)")}
    for e in info.get("epilogue", ()):
        role, x = e["role"], given.pop(e["role"], None)
        if e["ld"]:
            found[role], lds[role] = _matrix_operand(
                x, role, e["type"], e["ld"], m, c_cols,
                "N/2 (swiglu)" if swiglu else "N")
        else:
            length, what = lengths[e["axis"]]
            found[role] = _vector(x, role, True, e["type"], length, what)
    for role in given:
        raise ValueError(f"{role}: the kernel has no {role} op (legal: None)")
    scaled = bool(info.get("block_scaled"))
    k_blocks, n_blocks = -(-k // 128), -(-n // 128)
    if info.get("sfa_m_major"):
        # `major(M)`: SFA f32[ceil(K/128), M] in memory, given as its
        # transpose, the M x ceil(K/128) view with strides (1, M).
        found["sfa"] = _m_major(sfa, "sfa", scaled, m, k_blocks)
    else:
        found["sfa"] = _row_major(sfa, "sfa", scaled, m, k_blocks,
                                  "M, ceil(K / 128)",
                                  "scale a f32 block(1, 128)")
    found["sfb"] = _row_major(sfb, "sfb", scaled, n_blocks, k_blocks,
                              "ceil(N / 128), ceil(K / 128)",
                              "scale b f32 block(128, 128)")
    rows = -(-k // group) if group else 0
    need = (", or declare b : u4[N, K] with 'scale b bf16 group(128) "
            "zero(u8)'")
    found["sb"] = _group_tensor(sb, "sb", bool(group),
                                info.get("weight_scale_type") or
                                info["a_type"], rows, n, group,
                                "group scales", need if not group else "")
    found["zb"] = _group_tensor(zb, "zb", bool(info.get("weight_zeros")),
                                "u8", rows, n, group, "zero points",
                                need if not group else "; write 'scale b "
                                "... zero(u8)' with b : u4 for zero points")
    ptrs = {}
    for name, op in found.items():
        if op is None:
            ptrs[name] = 0
            continue
        _on_device(op, name, devices)
        _check_align(op, name, _BYTES[op.dtype])
        ptrs[name] = op.ptr
    epilogue = {e["role"]: (ptrs[e["role"]], lds.get(e["role"], 0))
                for e in info.get("epilogue", ())}
    return (m, n, k, lda, ldb, ldc,
            Operands(ops["a"].ptr, ops["b"].ptr, oc.ptr, epilogue,
                     ptrs["sfa"], ptrs["sfb"], sb=ptrs["sb"], zb=ptrs["zb"]),
            devices.pop())
