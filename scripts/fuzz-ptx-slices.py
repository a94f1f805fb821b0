#!/usr/bin/env python3
"""Seeds for the PTX parser's fuzz target (tests/fuzz/PtxFuzzer.cpp) cut
from kernels tilec compiles: each slice keeps a kernel's header, entry and
register declarations and, within libFuzzer's 4096-byte inputs
(scripts/sanitize.sh: -max_len=4096), one instruction (or inline-asm block)
per opcode, the tensor and asynchronous ones first (wgmma, tcgen05, TMA,
mbarrier, ldmatrix/stmatrix, mma.sync, ...), without branches, so that every
slice parses whole and the fuzzer starts from inputs that reach the
opcode decoders (hand-cut slices stopped at their first undeclared
register: runtime/sim/PtxTensorOpcodes.cpp was 7% covered).

  python3 scripts/fuzz-ptx-slices.py build/compiler/tilec/tilec \
      tests/fuzz/corpus/ptx
"""
import collections
import os
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
BUDGET = 4000
# (name, program, kernel or None): a spread of the generators' instructions.
KERNELS = [
    ("sm80_gemm", "examples/gemm_sm80.tile", None),
    ("sm90_decode", "examples/gemm_decode_sm90.tile", None),
    ("sm90_fp8_grouped_masked", "examples/gemm_fp8_grouped_masked_sm90.tile",
     None),
    ("sm90_fp8_decode_bn16", "tests/sim/gemm/fp8_block_tiles.tile",
     "fbh_decode_bn16"),
    ("sm90_fp8_bm256_cluster", "tests/sim/gemm/fp8_block_tiles.tile",
     "fbt_256x128_persistent_cluster"),
    ("sm90_fp8_swap_split_cluster", "tests/sim/gemm/fp8_block_swap.tile",
     "fsw_split2_cluster"),
    ("sm100_gemm", "examples/gemm_sm100.tile", None),
    ("sm100_2cta", "examples/gemm_sm100_2cta.tile", None),
    ("sm100_tf32", "examples/gemm_sm100_tf32.tile", None),
    ("sm100_decode", "examples/gemm_decode_sm100.tile", None),
]
FIRST = ("wgmma", "tcgen05", "cp.", "mbarrier", "ldmatrix", "stmatrix",
         "mma", "elect", "setmaxnreg", "griddep", "fence", "barrier", "mapa",
         "shfl", "red", "atom", "bar.", "cvt", "prefetch", "st.", "ld.",
         "vote", "activemask")


def units(body):
    """The body's instructions, an inline-asm block as one unit; no labels,
    branches or comments."""
    out, j = [], 0
    while j < len(body):
        t = body[j].strip()
        if t == "{":
            k = j
            while body[k].strip() != "}":
                k += 1
            out.append(body[j:k + 1])
            j = k + 1
            continue
        words = t.split()
        branch = words and (words[0].startswith("bra") or
                            (t.startswith("@") and len(words) > 1 and
                             words[1].startswith("bra")))
        if t and not t.startswith(("//", "$L", ".")) and t != "}" and \
                not branch:
            k = j
            while not body[k].rstrip().endswith(";") and k + 1 < len(body):
                k += 1
            out.append(body[j:k + 1])
            j = k + 1
            continue
        j += 1
    return out


def opcode(unit):
    ins = [line.strip() for line in unit
           if line.strip() not in ("{", "}") and
           not line.strip().startswith((".reg", "setp"))]
    return (ins[-1] if ins else unit[0].strip()).split()[0]


def slice_ptx(ptx):
    lines = ptx.split("\n")
    head, i = [], 0
    while i < len(lines):
        head.append(lines[i])
        i += 1
        if lines[i - 1].strip() == "{":
            break
    while i < len(lines) and lines[i].strip().startswith(".reg"):
        head.append(lines[i])
        i += 1
    seen, keep = set(), []
    for unit in units(lines[i:]):
        op = opcode(unit)
        if op in seen or sum(len(line) for line in unit) > 900:
            continue
        seen.add(op)
        keep.append(unit)
    keep.sort(key=lambda u: next(
        (n for n, p in enumerate(FIRST) if opcode(u).startswith(p)),
        len(FIRST)))
    text = "\n".join(head)
    for unit in keep:
        piece = "\n".join(unit)
        if len(text) + len(piece) + 12 <= BUDGET:
            text += "\n" + piece
    return text + "\n\tret;\n}\n"


def main():
    tilec, out = sys.argv[1], sys.argv[2]
    for name, program, kernel in KERNELS:
        path = os.path.join(ROOT, program)
        with tempfile.TemporaryDirectory() as tmp:
            if kernel:
                text = open(path).read()
                start = text.index(f"kernel {kernel} {{")
                end = text.index("\n}", start) + 2
                path = os.path.join(tmp, kernel + ".tile")
                with open(path, "w") as f:
                    f.write(text[start:end] + "\n")
            ptx = subprocess.run([tilec, "compile", path, "-o", "-"],
                                 check=True, capture_output=True,
                                 text=True).stdout
        target = os.path.join(out, f"slice_{name}.ptx")
        with open(target, "w") as f:
            f.write(slice_ptx(ptx))
        print(target)


if __name__ == "__main__":
    main()
