"""ctypes bindings of include/tilec/tilec.h (libtilec.so).

The library is found, in order: $TILEC_LIBRARY, libtilec.so next to this
package (where `pip install` puts it), the system's library path. ctypes
needs no build for a particular CPython, so one package serves every Python.
"""
import ctypes
import ctypes.util
import os

API_VERSION = 17

OK = 0
ERROR_INVALID_ARGUMENT = 1
ERROR_COMPILE = 2
ERROR_LAYOUT = 3
ERROR_RUNTIME = 4
ERROR_LAUNCH_ARGUMENT = 5
ERROR_INTERNAL = 6


class CompileOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("kernel", ctypes.c_char_p),
        ("arch", ctypes.c_char_p),
        ("line_info", ctypes.c_int),
        ("source_name", ctypes.c_char_p),
    ]


class EpilogueOperand(ctypes.Structure):
    """tilec_epilogue_operand (API 16): an epilogue op's operand by role."""
    _fields_ = [("role", ctypes.c_char_p), ("ptr", ctypes.c_uint64),
                ("ld", ctypes.c_int64)]


class EpilogueOperandInfo(ctypes.Structure):
    """tilec_epilogue_operand_info (API 16): what one operand is."""
    _fields_ = [("struct_size", ctypes.c_size_t),
                ("role", ctypes.c_char_p), ("type", ctypes.c_char_p),
                ("ld", ctypes.c_char_p), ("axis", ctypes.c_int)]


class GemmArgs(ctypes.Structure):
    """tilec_gemm_args, up to the fields this package sets (API 5: the
    batch and its strides; API 6: the block scales; API 7: the groups and
    their device tensor; API 12: a quantized weight's group scales and zero
    points; API 16: the epilogue operands by role, which this package uses
    instead of the named bias, scale, residual and ldr); the library reads
    only what struct_size covers."""
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("a", ctypes.c_uint64), ("b", ctypes.c_uint64),
        ("c", ctypes.c_uint64),
        ("m", ctypes.c_int64), ("n", ctypes.c_int64), ("k", ctypes.c_int64),
        ("lda", ctypes.c_int64), ("ldb", ctypes.c_int64),
        ("ldc", ctypes.c_int64),
        ("alpha", ctypes.c_float), ("beta", ctypes.c_float),
        ("bias", ctypes.c_uint64), ("scale", ctypes.c_uint64),
        ("residual", ctypes.c_uint64), ("ldr", ctypes.c_int64),
        ("batch", ctypes.c_int64), ("stride_a", ctypes.c_int64),
        ("stride_b", ctypes.c_int64), ("stride_c", ctypes.c_int64),
        ("sfa", ctypes.c_uint64), ("sfb", ctypes.c_uint64),
        # API 7: grouped kernels.
        ("groups", ctypes.c_int64), ("group_index", ctypes.c_uint64),
        ("group_rows", ctypes.c_uint64),
        # API 12: 4-bit weights (W4A16).
        ("sb", ctypes.c_uint64), ("zb", ctypes.c_uint64),
        # API 16: the epilogue ops' operands by role.
        ("operands", ctypes.POINTER(EpilogueOperand)),
        ("num_operands", ctypes.c_size_t),
    ]


class OperandInfo(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("a_type", ctypes.c_char_p), ("b_type", ctypes.c_char_p),
        ("c_type", ctypes.c_char_p),
        ("a_major", ctypes.c_char_p), ("b_major", ctypes.c_char_p),
        ("fixed_m", ctypes.c_int64), ("fixed_n", ctypes.c_int64),
        ("fixed_k", ctypes.c_int64),
        ("ldc_multiple", ctypes.c_uint), ("c_align_bytes", ctypes.c_uint),
        # API 5: batched kernels.
        ("batched", ctypes.c_int), ("a_batched", ctypes.c_int),
        ("b_batched", ctypes.c_int), ("batch_fixed", ctypes.c_int64),
        # API 6: the epilogue ops' operands and the block scales.
        ("bias_type", ctypes.c_char_p), ("residual_type", ctypes.c_char_p),
        ("bias_axis", ctypes.c_int), ("scale_axis", ctypes.c_int),
        ("swiglu", ctypes.c_int), ("tile_n", ctypes.c_uint),
        ("block_scaled", ctypes.c_int),
        # API 7: grouped kernels (tilec_group_kind) and a fixed group count.
        ("group_kind", ctypes.c_int), ("group_fixed", ctypes.c_int64),
        # API 9: SFA M-major (`scale a f32 block(1, 128) major(M)`).
        ("sfa_m_major", ctypes.c_int),
        # API 12: a 4-bit weight's group size (0: none), the group scales'
        # type and whether it takes zero points.
        ("weight_group", ctypes.c_int64),
        ("weight_scale_type", ctypes.c_char_p),
        ("weight_zeros", ctypes.c_int),
    ]


class Sm90Choice(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("bm", ctypes.c_uint), ("bn", ctypes.c_uint), ("bk", ctypes.c_uint),
        ("stages", ctypes.c_uint),
        ("swap_ab", ctypes.c_int), ("split_k", ctypes.c_uint),
        ("split_k_cluster", ctypes.c_int), ("persistent", ctypes.c_int),
        ("cluster_m", ctypes.c_uint), ("ctas_per_sm", ctypes.c_uint),
        ("cluster_n", ctypes.c_uint),
    ]


class GemmProgramRequest(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("arch", ctypes.c_char_p), ("dtype", ctypes.c_char_p),
        ("a_major", ctypes.c_char_p), ("b_major", ctypes.c_char_p),
        ("m", ctypes.c_int64), ("n", ctypes.c_int64), ("k", ctypes.c_int64),
        ("sms", ctypes.c_uint), ("block_scaled", ctypes.c_int),
        ("sfa_m_major", ctypes.c_int), ("tuned", ctypes.c_int),
        # API 17: the quantized-weight program.
        ("weight", ctypes.c_char_p), ("group", ctypes.c_uint),
        ("zeros", ctypes.c_int), ("tile", ctypes.c_uint * 5),
    ]


class DescRequest(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("arch", ctypes.c_char_p), ("dtype", ctypes.c_char_p),
        ("major", ctypes.c_char_p), ("layout", ctypes.c_char_p),
        ("mma_mn", ctypes.c_int64), ("mma_k", ctypes.c_int64),
        ("base", ctypes.c_uint64),
    ]


class DescFields(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("desc", ctypes.c_uint64), ("layout_type", ctypes.c_uint),
        ("swizzle", ctypes.c_char_p),
        ("start_address", ctypes.c_uint64), ("lbo", ctypes.c_uint64),
        ("sbo", ctypes.c_uint64),
        ("base_offset", ctypes.c_uint), ("version", ctypes.c_uint),
        ("lbo_mode", ctypes.c_uint),
        ("canonical", ctypes.c_char_p),
        ("rows", ctypes.c_size_t), ("cols", ctypes.c_size_t),
    ]


def _candidates():
    env = os.environ.get("TILEC_LIBRARY")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("libtilec.so",):
        path = os.path.join(here, name)
        if os.path.exists(path):
            yield path
    found = ctypes.util.find_library("tilec")
    if found:
        yield found


def _load():
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise ImportError(
        "tilec: cannot load libtilec.so (set TILEC_LIBRARY to its path)"
        + ("; " + "; ".join(errors) if errors else ""))


lib = _load()

_P = ctypes.c_void_p
_S = ctypes.c_char_p
_signatures = {
    "tilec_api_version": (ctypes.c_int, []),
    "tilec_version": (_S, []),
    "tilec_last_error": (_S, []),
    "tilec_last_error_column": (ctypes.c_uint, []),
    "tilec_compiler_create": (ctypes.c_int, [ctypes.POINTER(_P)]),
    "tilec_compiler_destroy": (None, [_P]),
    "tilec_compile": (ctypes.c_int, [_P, _S, ctypes.c_size_t,
                                     ctypes.POINTER(CompileOptions),
                                     ctypes.POINTER(_P)]),
    "tilec_kernel_destroy": (None, [_P]),
    "tilec_kernel_ptx": (_S, [_P]),
    "tilec_kernel_entry_name": (_S, [_P]),
    "tilec_kernel_arch": (_S, [_P]),
    "tilec_kernel_lowered": (ctypes.c_int, [_P, ctypes.POINTER(_S)]),
    "tilec_kernel_shared_bytes": (ctypes.c_uint, [_P]),
    "tilec_kernel_block_threads": (ctypes.c_uint, [_P]),
    "tilec_kernel_param_count": (ctypes.c_size_t, [_P]),
    "tilec_kernel_param_name": (_S, [_P, ctypes.c_size_t]),
    "tilec_kernel_param_kind": (ctypes.c_int, [_P, ctypes.c_size_t]),
    "tilec_kernel_grid": (None, [_P, ctypes.c_int64, ctypes.c_int64,
                                 ctypes.c_int64, ctypes.c_uint,
                                 ctypes.POINTER(ctypes.c_uint)]),
    "tilec_layout_eval": (ctypes.c_int, [_S, ctypes.POINTER(_P)]),
    "tilec_layout_destroy": (None, [_P]),
    "tilec_layout_str": (_S, [_P]),
    "tilec_layout_size": (ctypes.c_size_t, [_P]),
    "tilec_layout_offsets": (ctypes.c_size_t, [_P,
                                               ctypes.POINTER(ctypes.c_int64),
                                               ctypes.c_size_t]),
    "tilec_layout_svg": (ctypes.c_int, [_P, ctypes.POINTER(_S)]),
    "tilec_context_create": (ctypes.c_int, [ctypes.c_int, ctypes.POINTER(_P)]),
    "tilec_context_destroy": (None, [_P]),
    "tilec_context_synchronize": (ctypes.c_int, [_P]),
    "tilec_device_alloc": (ctypes.c_int, [ctypes.c_size_t,
                                          ctypes.POINTER(ctypes.c_uint64)]),
    "tilec_device_free": (ctypes.c_int, [ctypes.c_uint64]),
    "tilec_copy_to_device": (ctypes.c_int, [ctypes.c_uint64, _P,
                                            ctypes.c_size_t]),
    "tilec_copy_to_host": (ctypes.c_int, [_P, ctypes.c_uint64,
                                          ctypes.c_size_t]),
    "tilec_launcher_create": (ctypes.c_int, [_P, ctypes.c_uint,
                                             ctypes.POINTER(_P)]),
    "tilec_launcher_destroy": (None, [_P]),
    "tilec_launch": (ctypes.c_int, [_P, ctypes.POINTER(GemmArgs), _P]),
    "tilec_launch_prepare": (ctypes.c_int, [_P, ctypes.POINTER(GemmArgs),
                                            _P]),
    "tilec_kernel_workspace_bytes": (ctypes.c_uint64, [_P, ctypes.c_int64,
                                                       ctypes.c_int64]),
    "tilec_kernel_operands": (ctypes.c_int, [_P, ctypes.POINTER(OperandInfo)]),
    "tilec_kernel_epilogue_operand": (ctypes.c_int, [
        _P, ctypes.c_size_t, ctypes.POINTER(EpilogueOperandInfo)]),
    "tilec_sm90_choose": (ctypes.c_int, [ctypes.c_int64, ctypes.c_int64,
                                         ctypes.c_int64, ctypes.c_uint,
                                         ctypes.POINTER(Sm90Choice)]),
    "tilec_sm90_choose_block_scaled": (ctypes.c_int, [
        ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint,
        ctypes.POINTER(Sm90Choice)]),
    "tilec_sm90_choose_block_scaled_sfa": (ctypes.c_int, [
        ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint,
        ctypes.c_int, ctypes.POINTER(Sm90Choice)]),
    "tilec_desc": (ctypes.c_int, [ctypes.POINTER(DescRequest),
                                  ctypes.POINTER(_P)]),
    "tilec_descriptor_destroy": (None, [_P]),
    "tilec_descriptor_get": (ctypes.POINTER(DescFields), [_P]),
    "tilec_descriptor_report": (_S, [_P]),
    "tilec_descriptor_offsets": (ctypes.c_size_t, [
        _P, ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t]),
    # API 11: 4-bit weights; API 15: every format (python/tilec/_pack.py
    # calls the general ones).
    "tilec_check_weights": (ctypes.c_int, [
        ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int]),
    "tilec_quantize_weights": (ctypes.c_int, [
        _P, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int, _S,
        _P, _P, _P]),
    "tilec_pack_weights": (ctypes.c_int, [
        _P, ctypes.c_int64, ctypes.c_int64, ctypes.c_int, _P]),
    "tilec_unpack_weights": (ctypes.c_int, [
        _P, ctypes.c_int64, ctypes.c_int64, ctypes.c_int, _P]),
    "tilec_dequantize_weights": (ctypes.c_int, [
        _P, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int, _P,
        _S, _P, _P]),
    "tilec_check_int4_weights": (ctypes.c_int, [
        ctypes.c_int64, ctypes.c_int64, ctypes.c_int64]),
    # API 13: `tilec tune` (python/tilec/_tune.py).
    "tilec_tune": (ctypes.c_int, [_S, ctypes.c_size_t, _S,
                                  ctypes.POINTER(_S)]),
    "tilec_tuned_source": (ctypes.c_int, [
        _S, ctypes.c_size_t, _S, ctypes.c_int64, ctypes.c_int64,
        ctypes.c_int64, ctypes.POINTER(_S), ctypes.POINTER(_S)]),
    # API 14: the programs tilec.gemm compiles (python/tilec/_gemm.py).
    "tilec_gemm_program": (ctypes.c_int, [
        ctypes.POINTER(GemmProgramRequest), ctypes.POINTER(_S),
        ctypes.POINTER(_S)]),
}
# The 4-bit spellings of API 11 take what the general calls take.
for _name in ("quantize", "pack", "unpack", "dequantize"):
    _signatures[f"tilec_{_name}_int4_weights"] = \
        _signatures[f"tilec_{_name}_weights"]
for _name, (_res, _args) in _signatures.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args

if lib.tilec_api_version() < API_VERSION:
    raise ImportError(
        f"tilec: libtilec.so implements API version {lib.tilec_api_version()}"
        f", this package needs {API_VERSION}")


def last_error():
    return lib.tilec_last_error().decode("utf-8", "replace")
