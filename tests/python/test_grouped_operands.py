"""The operands of grouped kernels (API 7, `group contiguous|masked`)
through Kernel.check(): B as [G, N, K], masked A and C as [G, Mmax, ...],
the per-group block scales and the group tensors group_index (int32[M]) and
group_rows (int32[G]); each bad one a ValueError naming the argument. No
GPU: the operands are Operands and __cuda_array_interface__ objects at
made-up addresses (a launch in the simulator: sim_launch.py; on the GPU:
test_gpu_torch.py)."""
import os

import pytest

import tilec
from fake_arrays import BASE, Fake
from tilec._operands import GROUP_CONTIGUOUS, GROUP_MASKED, Operand

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
MB = 1 << 20


def example(mode):
    path = os.path.join(ROOT, "examples",
                        f"gemm_fp8_grouped_{mode}_sm90.tile")
    with open(path) as f:
        return tilec.compile(f.read())


def tensor(dtype, shape, ptr, strides=None):
    """A CUDA tensor of `shape`, row-major unless `strides` (elements)."""
    if strides is None:
        strides, step = [], 1
        for extent in reversed(shape):
            strides.insert(0, step)
            step *= extent
    return Operand(ptr, dtype, shape, strides, ("cuda", None))


def contiguous_args(g=4, m=512, n=300, k=640):
    kb, nb = -(-k // 128), -(-n // 128)
    return dict(a=tensor("e4m3", (m, k), BASE),
                b=tensor("e4m3", (g, n, k), BASE + 8 * MB),
                c=tensor("bf16", (m, n), BASE + 16 * MB),
                sfa=Fake((m, kb), "<f4", ptr=BASE + 24 * MB),
                sfb=Fake((g, nb, kb), "<f4", ptr=BASE + 25 * MB),
                group_index=Fake((m,), "<i4", ptr=BASE + 26 * MB))


def masked_args(g=3, mmax=200, n=300, k=640):
    kb, nb = -(-k // 128), -(-n // 128)
    return dict(a=tensor("e4m3", (g, mmax, k), BASE),
                b=tensor("e4m3", (g, n, k), BASE + 8 * MB),
                c=tensor("bf16", (g, mmax, n), BASE + 16 * MB),
                sfa=Fake((g, mmax, kb), "<f4", ptr=BASE + 24 * MB),
                sfb=Fake((g, nb, kb), "<f4", ptr=BASE + 25 * MB),
                group_rows=Fake((g,), "<i4", ptr=BASE + 26 * MB))


def test_operand_info_reports_the_group_kind():
    assert example("contiguous").operands["group_kind"] == GROUP_CONTIGUOUS
    info = example("masked").operands
    assert (info["group_kind"], info["group_fixed"]) == (GROUP_MASKED, 0)
    plain = os.path.join(ROOT, "examples", "gemm_fp8_block_sm90.tile")
    with open(plain) as f:
        assert tilec.compile(f.read()).operands["group_kind"] == 0


def test_contiguous_check():
    m, n, k, lda, ldb, ldc, p, _ = example("contiguous").check(
        **contiguous_args())
    assert (m, n, k, lda, ldb, ldc) == (512, 300, 640, 640, 640, 300)
    assert (p.groups, p.group_index, p.group_rows) == (4, BASE + 26 * MB, 0)
    assert (p.b, p.sfa, p.sfb) == (BASE + 8 * MB, BASE + 24 * MB,
                                   BASE + 25 * MB)


def test_masked_check():
    m, n, k, lda, ldb, ldc, p, _ = example("masked").check(**masked_args())
    # M is the rows per group (Mmax).
    assert (m, n, k, lda, ldb, ldc) == (200, 300, 640, 640, 640, 300)
    assert (p.groups, p.group_index, p.group_rows) == (3, 0, BASE + 26 * MB)


def test_one_group_may_have_any_group_stride():
    args = contiguous_args(g=1)
    args["b"] = tensor("e4m3", (1, 300, 640), BASE + 8 * MB,
                       strides=(12345, 640, 1))
    assert example("contiguous").check(**args)[6].groups == 1


@pytest.mark.parametrize("change, message", [
    (dict(group_index=None), "group_index: the kernel is group contiguous "
     "(legal: a CUDA int32[M] = [512], the group of each row of A (-1: "
     "padding))"),
    (dict(group_rows=Fake((4,), "<i4")), "group_rows: the kernel is group "
     "contiguous, which reads group_index, not group_rows (legal: None)"),
    (dict(group_index=Fake((511,), "<i4", ptr=BASE + 26 * MB)),
     "group_index: shape (511,) strides (1,) (legal: a contiguous int32[M] "
     "= [512]"),
    (dict(group_index=Fake((512,), "<i4", strides=(2,), ptr=BASE + 26 * MB)),
     "group_index: shape (512,) strides (2,)"),
    (dict(group_index=Fake((512,), "<f4", ptr=BASE + 26 * MB)),
     "group_index: dtype f32 is not the kernel's group_index type (legal: "
     "i32)"),
    (dict(group_index=Operand(BASE + 26 * MB + 2, "i32", (512,), (1,),
                              ("cuda", None))),
     "group_index: data pointer 0x7f0001a00002 is not 4-byte aligned"),
    (dict(group_index=Operand(BASE, "i32", (512,), (1,), ("cpu", None))),
     "group_index: the tensor is on cpu"),
    (dict(group_index=Operand(BASE, "i32", (512,), (1,), ("cuda", 1))),
     "group_index: on ('cuda', 1), c on ('cuda', None)"),
    (dict(b=tensor("e4m3", (300, 640), BASE + 8 * MB)),
     "b: 2-D tensor of shape (300, 640) (legal: a 3-D G x N x K tensor"),
    (dict(b=tensor("e4m3", (4, 300, 640), BASE + 8 * MB,
                   strides=(300 * 704, 704, 1))),
     None),  # a padded ldb with dense groups is legal
    (dict(b=tensor("e4m3", (4, 300, 640), BASE + 8 * MB,
                   strides=(300 * 640 + 16, 640, 1))),
     "b: group stride 192016 elements (legal: 192000"),
    (dict(a=tensor("e4m3", (4, 128, 640), BASE)),
     "a: 3-D tensor of shape (4, 128, 640) (legal: a 2-D matrix, the rows "
     "of every group stacked"),
    (dict(sfb=Fake((3, 5), "<f4", ptr=BASE + 25 * MB)),
     "sfb: shape (3, 5) (legal: a 3-D f32 G x ceil(N / 128) x ceil(K / 128) "
     "tensor of G = 4 groups)"),
    (dict(sfb=Fake((4, 5, 3), "<f4", ptr=BASE + 25 * MB)),
     "sfb: shape (5, 3) strides (3, 1) (legal: a contiguous row-major "
     "f32[ceil(N / 128), ceil(K / 128)] = [3, 5] tensor"),
    (dict(sfb=None), "sfb: the kernel is block-scaled"),
])
def test_contiguous_errors_name_the_argument(change, message):
    args = contiguous_args()
    args.update(change)
    k = example("contiguous")
    if message is None:
        k.check(**args)
        return
    with pytest.raises(ValueError) as e:
        k.check(**args)
    assert message in str(e.value)


@pytest.mark.parametrize("change, message", [
    (dict(group_rows=None), "group_rows: the kernel is group masked (legal: "
     "a CUDA int32[G] = [3], the valid rows of each group)"),
    (dict(group_index=Fake((600,), "<i4")), "group_index: the kernel is "
     "group masked, which reads group_rows, not group_index (legal: None)"),
    (dict(group_rows=Fake((4,), "<i4", ptr=BASE + 26 * MB)),
     "group_rows: shape (4,) strides (1,) (legal: a contiguous int32[G] = "
     "[3]"),
    (dict(a=tensor("e4m3", (600, 640), BASE)),
     "a: shape (600, 640) (legal: a 3-D G x Mmax x K tensor of G = 3 "
     "groups)"),
    (dict(c=tensor("bf16", (2, 200, 300), BASE + 16 * MB)),
     "c: shape (2, 200, 300) (legal: a 3-D G x Mmax x N tensor of G = 3"),
    (dict(c=tensor("bf16", (3, 200, 300), BASE + 16 * MB,
                   strides=(200 * 300 + 8, 300, 1))),
     "c: group stride 60008 elements (legal: 60000"),
    (dict(a=tensor("e4m3", (3, 100, 640), BASE)),
     "a: shape (100, 640) with strides (640, 1) is not a K-major 200 x K"),
    (dict(sfa=Fake((600, 5), "<f4", ptr=BASE + 24 * MB)),
     "sfa: shape (600, 5) (legal: a 3-D f32 G x Mmax x ceil(K / 128) "
     "tensor of G = 3 groups)"),
    (dict(b=tensor("e4m3", (0, 300, 640), BASE + 8 * MB)),
     "b: G = 0 groups from its leading dimension (legal: 1 to 65535)"),
])
def test_masked_errors_name_the_argument(change, message):
    args = masked_args()
    args.update(change)
    with pytest.raises(ValueError) as e:
        example("masked").check(**args)
    assert message in str(e.value)


def test_fixed_group_count():
    source = """kernel fixed {
  arch sm_90a
  a : e4m3[3, M, K] major(K)
  b : e4m3[3, N, K] major(K)
  c : bf16[3, M, N] major(N)
  acc f32
  group masked
  tile (BM = 64, BN = 128, BK = 128)
  stages 4
}
"""
    k = tilec.compile(source)
    assert k.operands["group_fixed"] == 3
    args = masked_args(g=4)
    del args["sfa"], args["sfb"]
    with pytest.raises(ValueError, match=r"b: G = 4 groups from its leading "
                       r"dimension \(legal: 3\)"):
        k.check(**args)
    args = masked_args(g=3)
    del args["sfa"], args["sfb"]
    assert k.check(**args)[6].groups == 3


def test_ungrouped_kernel_refuses_group_tensors():
    with open(os.path.join(ROOT, "examples", "gemm_fp8_block_sm90.tile")) as f:
        k = tilec.compile(f.read())
    args = dict(a=tensor("e4m3", (128, 256), BASE),
                b=tensor("e4m3", (256, 256), BASE + MB),
                c=tensor("bf16", (128, 256), BASE + 2 * MB),
                sfa=Fake((128, 2), "<f4", ptr=BASE + 3 * MB),
                sfb=Fake((2, 2), "<f4", ptr=BASE + 4 * MB))
    assert k.check(**args)[6].groups == 1
    with pytest.raises(ValueError, match="group_index: the kernel is not "
                       "grouped"):
        k.check(**args, group_index=Fake((128,), "<i4"))


def test_grouped_bench_lists_the_issue_cases_without_a_gpu():
    """bench/fp8_grouped_bench.py --dry-run (no torch, no GPU): the issue's
    10 grouped cases with DeepGEMM's H800 figures; bad flags exit 2."""
    import subprocess
    import sys
    bench = os.path.join(ROOT, "bench", "fp8_grouped_bench.py")
    run = subprocess.run([sys.executable, bench, "--dry-run"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = [line for line in run.stdout.splitlines()
            if line.startswith("| contiguous") or line.startswith("| masked")]
    assert len(rows) == 10, run.stdout
    assert "| contiguous 4 x 8192 | 4096 x 7168 | 32768 | 1924 |" in rows[0]
    assert rows[-1].startswith("| masked 4 x 256 | 7168 x 2048 | 1024 |")
    assert rows[-1].endswith("| 815 |")
    run = subprocess.run([sys.executable, bench, "--rounds", "0"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "--rounds" in run.stderr
