"""Argument checks of Kernel(a, b, c), the C API's heuristic and
descriptors, and tilec.gemm's programs: no GPU needed. The operands are
objects with __cuda_array_interface__ at made-up addresses, which the checks
read without touching them (a launch would need a GPU: tests/python/
test_gpu_torch.py)."""
import os

import pytest

import tilec
from fake_arrays import BASE, Fake
from tilec import _gemm
from tilec._operands import resolve

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def f16_kernel(a_major="K", b_major="K", arch="sm_90a"):
    source, _ = _gemm.program_source(arch, "f16", "f16", a_major, b_major,
                                     4096, 4096, 4096)
    return tilec.compile(source)


def test_kernel_reports_its_operands():
    info = f16_kernel("M", "N").operands
    assert (info["a_type"], info["c_type"]) == ("f16", "f16")
    assert (info["a_major"], info["b_major"]) == ("MN", "MN")


def test_k_major_dims_and_leading_dimensions():
    k = f16_kernel()
    m, n, kk, lda, ldb, ldc, ptrs, _ = k.check(
        Fake((64, 7168)), Fake((2112, 7168), ptr=BASE + 1 << 24),
        Fake((64, 2112), ptr=BASE + 2 << 24))
    assert (m, n, kk, lda, ldb, ldc) == (64, 2112, 7168, 7168, 7168, 2112)
    assert ptrs[0] == BASE
    # B as the transpose view of an N x K row-major weight (w.t()).
    m, n, kk, lda, ldb, ldc, _, _ = k.check(
        Fake((64, 7168)), Fake((7168, 2112), strides=(1, 7168)),
        Fake((64, 2112)))
    assert (n, kk, ldb) == (2112, 7168, 7168)


def test_mn_major_stored_and_transposed_view():
    k = f16_kernel("M", "N")
    # A stored K x M row-major, B stored K x N row-major.
    dims = k.check(Fake((256, 128)), Fake((256, 64)), Fake((128, 64)))[:6]
    assert dims == (128, 64, 256, 128, 64, 64)
    # A as the M x K transpose view of a K x M row-major tensor.
    dims = k.check(Fake((128, 256), strides=(1, 136)), Fake((256, 64)),
                   Fake((128, 64)))[:6]
    assert dims == (128, 64, 256, 136, 64, 64)


@pytest.mark.parametrize("args, message", [
    (dict(a=Fake((64, 128), "<f4")), "a: dtype f32 is not the kernel's a "
     "type (legal: f16)"),
    (dict(a=Fake((64, 128), strides=(1, 64))), "a: shape (64, 128) with "
     "strides (1, 64) is not a K-major"),
    (dict(b=Fake((32, 100))), "b: shape (32, 100)"),
    (dict(c=Fake((64, 32), strides=(1, 64))), "c: strides (1, 64) (legal: "
     "row-major"),
    (dict(a=Fake((64, 128), ptr=BASE + 2)), "a: data pointer 0x7f0000000002 "
     "is not 16-byte aligned"),
    (dict(a=Fake((64, 128), strides=(132, 1))), "a: leading dimension lda = "
     "132 elements (legal: at least 128 and a multiple of 8 f16"),
    (dict(a=Fake((64, 128, 1))), "a: 3-D tensor"),
    (dict(c=object()), "c: object is not a tensor"),
    (dict(bias=Fake((32,))), "bias: the kernel has no bias op"),
])
def test_bad_operands_name_the_argument(args, message):
    k = f16_kernel()
    operands = dict(a=Fake((64, 128)), b=Fake((32, 128)), c=Fake((64, 32)))
    operands.update(args)
    with pytest.raises(ValueError) as e:
        k.check(**operands)
    assert message in str(e.value)


def test_fixed_extents_are_checked():
    with open(os.path.join(ROOT, "examples", "gemm_decode_auto_sm90.tile")) as f:
        k = tilec.compile(f.read().replace("bf16", "f16"))
    with pytest.raises(ValueError, match="the kernel fixes M = 64"):
        k.check(Fake((32, 7168)), Fake((2112, 7168)), Fake((32, 2112)))


def test_resolve_reads_dims_from_c():
    info = dict(a_type="tf32", b_type="tf32", c_type="f32", a_major="K",
                b_major="K", fixed_m=0, fixed_n=0, fixed_k=0, ldc_multiple=1,
                c_align_bytes=16)
    dims = resolve(info, Fake((8, 8), "<f4"), Fake((8, 8), "<f4"),
                   Fake((8, 8), "<f4"))[:6]
    assert dims == (8, 8, 8, 8, 8, 8)


def test_sm90_heuristic_through_the_c_api():
    # codegen/Sm90Heuristic.h's example.
    choice = _gemm.sm90_choice(64, 2112, 7168, 132)
    assert (choice["swap_ab"], choice["bm"], choice["bn"], choice["stages"],
            choice["split_k"], choice["split_k_cluster"]) == (1, 64, 64, 13,
                                                              2, 1)
    big = _gemm.sm90_choice(4096, 4096, 4096, 132)
    assert (big["bm"], big["bn"], big["swap_ab"]) == (128, 256, 0)
    with pytest.raises(ValueError, match="M = 0"):
        _gemm.sm90_choice(0, 1, 1)


def test_block_scaled_choice_and_program():
    # codegen/Sm90Heuristic.h's examples of the block-scaled rule.
    decode = _gemm.sm90_block_scaled_choice(64, 2112, 7168, 132)
    assert (decode["bm"], decode["bn"], decode["bk"], decode["stages"],
            decode["swap_ab"], decode["split_k"],
            decode["split_k_cluster"]) == (64, 32, 128, 16, 0, 2, 1)
    short = _gemm.sm90_block_scaled_choice(64, 7168, 2048, 132)
    assert (short["bn"], short["split_k"]) == (64, 1)
    wide = _gemm.sm90_block_scaled_choice(128, 24576, 1536, 132)
    assert (wide["bm"], wide["bn"]) == (128, 192)
    big = _gemm.sm90_block_scaled_choice(4096, 4096, 7168, 132)
    assert (big["bm"], big["bn"], big["stages"]) == (128, 192, 4)
    with pytest.raises(ValueError, match="M = 0"):
        _gemm.sm90_block_scaled_choice(0, 1, 1)
    # The programs compile; at M <= 128 M, N, K are fixed and schedule
    # auto keeps A and B as written.
    for shape in [(64, 2112, 7168), (128, 7168, 2048), (4096, 4096, 7168)]:
        source, _ = _gemm.block_scaled_source(*shape, 132)
        kernel = tilec.compile(source)
        assert kernel.operands.get("block_scaled")
        assert "swap_ab = 0" in kernel.lowered
        assert ("split_k = 2" in kernel.lowered) == (shape[2] >= 48 * 128
                                                     and shape[0] <= 128)
        assert ("e4m3[%d, %d]" % (shape[0], shape[2]) in source) == (
            shape[0] <= 128)
    # An M-major SFA (strides (1, M), torch's scaled_mm layout) takes the
    # major(M) program, a distinct cached kernel.
    source, key = _gemm.block_scaled_source(4096, 4096, 7168, 132,
                                            sfa_m_major=True)
    assert "scale a  f32 block(1, 128) major(M)" in source
    assert key != _gemm.block_scaled_source(4096, 4096, 7168, 132)[1]
    assert tilec.compile(source).operands["sfa_m_major"] == 1
    # ... and the 256 x 128 tile with staged scales, persistent in 1x2
    # clusters sharing A, at any K (codegen/Sm90Heuristic.h), but not
    # where its last round is emptier than 128 x 192's (N = 2112).
    assert "tile     (BM = 256, BN = 128, BK = 128)" in source
    assert "schedule persistent cluster_n(2)" in source
    for n, k in ((7168, 2048), (32768, 512)):
        mm = _gemm.sm90_block_scaled_choice(4096, n, k, 132,
                                            sfa_m_major=True)
        assert (mm["bm"], mm["bn"], mm["stages"], mm["persistent"],
                mm["cluster_n"]) == (256, 128, 3, 1, 2)
    mm = _gemm.sm90_block_scaled_choice(4096, 2112, 7168, 132,
                                        sfa_m_major=True)
    assert (mm["bm"], mm["bn"], mm["cluster_n"]) == (128, 192, 1)
    # M = 512: narrower tiles filling one wave, in 2x1 clusters sharing B.
    source, _ = _gemm.block_scaled_source(512, 2112, 7168, 132)
    assert "tile     (BM = 128, BN = 64, BK = 128)" in source
    assert "schedule cluster(2)" in source
    assert "cluster_m = 2" in tilec.compile(source).lowered


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("majors", [("K", "K"), ("K", "N"), ("M", "K"),
                                    ("M", "N")])
def test_gemm_programs_compile(arch, majors):
    for shape in [(64, 2112, 7168), (4096, 4096, 4096)]:
        source, key = _gemm.program_source(arch, "bf16", "bf16", *majors,
                                           *shape, 132)
        kernel = tilec.compile(source)
        assert kernel.arch == arch and key[0] == arch


def test_decode_program_is_the_heuristics_choice():
    source, _ = _gemm.program_source("sm_90a", "bf16", "bf16", "K", "K", 64,
                                     2112, 7168, 132)
    assert "tile     (BM = 64, BN = 64, BK = 64)" in source
    assert "stages   13" in source
    assert "schedule swap_ab split_k(2)" in source
    lowered = tilec.compile(source).explain()
    assert "swap_ab = 1, split_k = 2" in lowered


def test_desc_matches_the_readme():
    d = tilec.desc("tile_to_shape(K_SW128<bf16>, (128,128))", dtype="bf16",
                   major="K", mma=(64, 16), arch="sm_100a")
    assert d.desc == 0x4000404000010000
    assert (d.swizzle, d.lbo, d.sbo, d.layout_type) == ("SW128", 16, 1024, 2)
    assert d.offsets[0][:5] == [0, 32, 64, 96, 16384]
    assert d.offsets[1][0] == 8192
    assert "desc           0x4000404000010000" in str(d)


def test_desc_errors_say_what_is_legal():
    with pytest.raises(ValueError, match="legal: sm_90a, sm_100a"):
        tilec.desc("K_SW128<bf16>", dtype="bf16", major="K", mma=(64, 16),
                   arch="sm_80")
    with pytest.raises(ValueError, match="legal: K, MN"):
        tilec.desc("K_SW128<bf16>", dtype="bf16", major="Q", mma=(64, 16))
    with pytest.raises(tilec.LayoutError):
        tilec.desc("tile_to_shape(K_SW128<bf16>, (128,", dtype="bf16",
                   major="K", mma=(64, 16))


def test_torch_checks_without_a_gpu():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    k = f16_kernel()
    a = torch.zeros(64, 128, dtype=torch.float16)
    b = torch.zeros(32, 128, dtype=torch.float16)
    c = torch.zeros(64, 32, dtype=torch.float16)
    with pytest.raises(ValueError, match="a: the tensor is on cpu"):
        k(a, b, c)


BATCHED = """
kernel batched {
  arch sm_90a
  a : f16[B, M, K] major(K)
  b : f16[N, K] major(K)
  c : f16[B, M, N] major(N)
  acc f32
  tile (BM = 128, BN = 128, BK = 64)
  stages 4
}
"""


def test_batched_operands_split_into_matrices_and_strides():
    from tilec._operands import split_batch
    k = tilec.compile(BATCHED)
    info = k.operands
    assert (info["batched"], info["a_batched"], info["b_batched"]) == (1, 1, 0)
    # 3 batches of a 100 x 64 A one 16-byte unit apart, a shared 200 x 64 B.
    batch, strides, a, b, c = split_batch(
        info, Fake((3, 100, 64), strides=(6408, 64, 1)), Fake((200, 64)),
        Fake((3, 100, 200), strides=(20008, 200, 1)))
    assert (batch, strides) == (3, (6408, 0, 20008))
    m, n, kk, lda, ldb, ldc, _, _ = k.check(a, b, c)
    assert (m, n, kk, lda, ldb, ldc) == (100, 200, 64, 64, 64, 200)


@pytest.mark.parametrize("args, message", [
    ((Fake((3, 100, 64)), Fake((200, 64)), Fake((100, 200))),
     "c: 2-D tensor of shape (100, 200) (legal: a 3-D B x M x N tensor"),
    ((Fake((2, 100, 64)), Fake((200, 64)), Fake((3, 100, 200))),
     "a: shape (2, 100, 64) (legal: a 3-D tensor of 3 batches"),
    ((Fake((3, 100, 64)), Fake((3, 200, 64)), Fake((3, 100, 200))),
     "b: 3-D tensor of shape (3, 200, 64) (legal: a 2-D matrix: the kernel "
     "shares one B across the batch)"),
])
def test_batched_operands_name_the_argument(args, message):
    from tilec._operands import split_batch
    info = tilec.compile(BATCHED).operands
    with pytest.raises(ValueError) as err:
        split_batch(info, *args)
    assert message in str(err.value)


def test_launchers_size_persistent_grids_by_the_device(monkeypatch):
    """A launcher gets the device's SM count (tilec_launcher_create's
    sm_count; 0 would launch a persistent kernel one CTA per tile): from
    torch where it is imported, else from the driver (0 without one)."""
    import sys
    import types
    from tilec import _launch

    class Props:
        multi_processor_count = 7
    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(
        get_device_properties=lambda index: Props()))
    monkeypatch.setitem(sys.modules, "torch", fake)
    assert _launch._sm_count(0) == 7
    monkeypatch.delitem(sys.modules, "torch")
    count = _launch._sm_count(0)
    assert isinstance(count, int) and count >= 0
