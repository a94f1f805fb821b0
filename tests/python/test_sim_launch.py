"""Kernel(...) with residual, swiglu, a typed bias, a scale vector, the
block scales sfa/sfb, grouped kernels (group_index, group_rows) and a 4-bit
weight's group scales and zero points (sb, zb), launched in the PTX
simulator: sim_launch.py in a process of its own (the runtime picks its
backend, TILEC_DEVICE=sim, once per process), importing the same tilec
package as these tests. No GPU needed."""
import os
import subprocess
import sys

import tilec

HERE = os.path.dirname(os.path.abspath(__file__))


def test_epilogue_operands_and_block_scales_in_the_simulator():
    env = dict(os.environ, TILEC_DEVICE="sim",
               PYTHONPATH=os.path.dirname(os.path.dirname(
                   os.path.abspath(tilec.__file__))))
    run = subprocess.run([sys.executable, os.path.join(HERE, "sim_launch.py")],
                         env=env, capture_output=True, text=True, timeout=600)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "PASS sim sm_80 40x256x64 bias(col, f32) swiglu scale(col) " \
        "residual: 0/5120 wrong" in out, out
    assert "PASS sim sm_90a 40x256x256 block-scaled fp8 (sfa, sfb): " \
        "0/10240 wrong" in out, out
    assert "PASS sim sm_90a grouped contiguous fp8 3 groups 192x256x256 " \
        "(94 valid rows): 0/49152 wrong" in out, out
    assert "PASS sim sm_90a grouped masked fp8 3 groups 192x256x256 " \
        "(94 valid rows): 0/49152 wrong" in out, out
    assert "PASS sim sm_80 W4A16 u4 zero(u8) group(64) 20x64x256 (sb, zb): " \
        "0/1280 wrong" in out, out
