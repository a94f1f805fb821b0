#!/usr/bin/env python3
"""sm100_sass.py: the SASS of the sm_100a kernels (CTest sass-sm100).

Each sm_100a kernel (examples/gemm_sm100*.tile, gemm_decode_sm100.tile and
the kernels of tests/sim/gemm/epilogue_ops_sm100.tile, sm100_decode.tile,
sm100_m64.tile, sm100_n8.tile, sm100_fp8_mn.tile, sm100_batched.tile,
sm100_swiglu.tile and sm100_staged.tile) is compiled by tilec, assembled by
`ptxas -arch=sm_100a -v` to a cubin and disassembled by cuobjdump -sass (or
nvdisasm). Its SASS must contain what the PTX asks of the tensor-memory
pipeline:

  UTC*MMA   the tcgen05.mma (UTCHMMA for f16/bf16/tf32, UTCQMMA for fp8)
  UTCBAR    the tcgen05.commit to an mbarrier
  LDTM      the tcgen05.ld from tensor memory
  SYNCS     the mbarrier waits and arrivals (SYNCS.PHASECHK, SYNCS.ARRIVE)
  UTMALDG   the TMA loads

and no local memory: no STL/LDL in the SASS and "0 bytes spill stores,
0 bytes spill loads" from ptxas -v.

The tools: ptxas from $TILEC_PTXAS, PATH or /usr/local/cuda/bin; cuobjdump
or nvdisasm from $TILEC_SASS_TOOLS, --tools-dir (where
scripts/install-sass-tools.sh puts PyPI's nvidia-cuda-cuobjdump and
nvidia-cuda-nvdisasm), PATH or /usr/local/cuda/bin. Where one is missing the
test prints SKIP with the reason and exits 77 (CTest's SKIP_RETURN_CODE).

Standard library only. Prints one line per kernel and `N passed, M failed`.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SKIP = 77

# (name, regex over the SASS, what it stands for)
REQUIRED = [
    ("UTC*MMA", r"\bUTC[A-Z]*MMA\b", "tcgen05.mma"),
    ("UTCBAR", r"\bUTCBAR\b", "tcgen05.commit"),
    ("LDTM", r"\bLDTM\b", "tcgen05.ld"),
    ("SYNCS.PHASECHK", r"\bSYNCS\.PHASECHK\b", "mbarrier try_wait"),
    ("SYNCS.ARRIVE", r"\bSYNCS\.ARRIVE\b", "mbarrier arrive"),
    ("UTMALDG", r"\bUTMALDG\b", "cp.async.bulk.tensor"),
]
FORBIDDEN = [("STL", r"\bSTL(\.[A-Z0-9]+)*\b"), ("LDL", r"\bLDL(\.[A-Z0-9]+)*\b")]


def find_tool(names, dirs):
    for d in dirs:
        for n in names:
            p = os.path.join(d, n)
            if d and os.path.isfile(p) and os.access(p, os.X_OK):
                return p
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    return None


def kernels_of(path):
    """(name, source) of each `kernel NAME { ... }` in a .tile file."""
    text = open(path).read()
    out = []
    for m in re.finditer(r"^kernel\s+(\w+)\s*\{", text, re.M):
        depth, i = 0, m.end() - 1
        while i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        out.append((m.group(1), text[m.start():i + 1] + "\n"))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tilec", required=True)
    ap.add_argument("--tools-dir", default="")
    args = ap.parse_args()

    ptxas = find_tool(["ptxas"], [os.environ.get("TILEC_PTXAS_DIR", ""),
                                  "/usr/local/cuda/bin"])
    if os.environ.get("TILEC_PTXAS"):
        ptxas = os.environ["TILEC_PTXAS"]
    tool_dirs = [os.environ.get("TILEC_SASS_TOOLS", "")]
    if args.tools_dir:
        tool_dirs += [os.path.join(args.tools_dir, "nvidia", "cu13", "bin"),
                      args.tools_dir]
    tool_dirs.append("/usr/local/cuda/bin")
    cuobjdump = find_tool(["cuobjdump"], tool_dirs)
    nvdisasm = find_tool(["nvdisasm"], tool_dirs)
    if not ptxas:
        print("SKIP: ptxas not found ($TILEC_PTXAS, PATH, /usr/local/cuda/bin)")
        return SKIP
    if not cuobjdump and not nvdisasm:
        print("SKIP: neither cuobjdump nor nvdisasm found ($TILEC_SASS_TOOLS, "
              "--tools-dir, PATH, /usr/local/cuda/bin); "
              "scripts/install-sass-tools.sh BUILD_DIR installs them from PyPI")
        return SKIP
    disasm = [cuobjdump, "-sass"] if cuobjdump else [nvdisasm]

    sources = sorted(glob.glob(os.path.join(ROOT, "examples", "gemm_sm100*.tile")))
    # The decode schedules (swap-AB, split-K): the example and its variants.
    sources.append(os.path.join(ROOT, "examples", "gemm_decode_sm100.tile"))
    for name in ("epilogue_ops_sm100.tile", "sm100_decode.tile",
                 "sm100_m64.tile", "sm100_n8.tile", "sm100_fp8_mn.tile",
                 "sm100_batched.tile", "sm100_swiglu.tile", "sm100_staged.tile"):
        sources.append(os.path.join(ROOT, "tests", "sim", "gemm", name))
    passed = failed = 0
    env = dict(os.environ, TILEC_NO_DISK_CACHE="1")
    with tempfile.TemporaryDirectory() as work:
        for src in sources:
            for name, text in kernels_of(src):
                tile = os.path.join(work, name + ".tile")
                ptx = os.path.join(work, name + ".ptx")
                cubin = os.path.join(work, name + ".cubin")
                with open(tile, "w") as f:
                    f.write(text)
                problems = []
                r = subprocess.run([args.tilec, "compile", tile, "-o", ptx],
                                   capture_output=True, text=True, env=env)
                if r.returncode != 0:
                    problems.append("tilec: " + r.stderr.strip()[:300])
                else:
                    r = subprocess.run([ptxas, "-arch=sm_100a", "-v", ptx, "-o",
                                        cubin], capture_output=True, text=True)
                    info = r.stdout + r.stderr
                    if r.returncode != 0:
                        problems.append("ptxas: " + info.strip()[:300])
                    elif "0 bytes spill stores, 0 bytes spill loads" not in info:
                        problems.append("ptxas -v reports spills: " +
                                        info.strip()[:300])
                if not problems:
                    r = subprocess.run(disasm + [cubin], capture_output=True,
                                       text=True)
                    sass = r.stdout
                    if r.returncode != 0 or not sass.strip():
                        problems.append("disassembly failed: " + r.stderr[:300])
                    else:
                        for what, pattern, ptx_name in REQUIRED:
                            if not re.search(pattern, sass):
                                problems.append(f"no {what} ({ptx_name})")
                        for what, pattern in FORBIDDEN:
                            n = len(re.findall(pattern, sass))
                            if n:
                                problems.append(f"{n} {what} (local memory)")
                label = f"{os.path.relpath(src, ROOT)}#{name}"
                if problems:
                    failed += 1
                    print(f"FAILED  {label}: {'; '.join(problems)}")
                else:
                    passed += 1
                    mma = sorted(set(re.findall(r"\bUTC[A-Z]*MMA\b", sass)))
                    print(f"ok      {label}: {', '.join(mma)}, LDTM x"
                          f"{len(re.findall(r'LDTM', sass))}, SYNCS x"
                          f"{len(re.findall(r'SYNCS', sass))}, no STL/LDL")
    print(f"{passed} passed, {failed} failed")
    if passed == 0:
        print("FAILED: no kernel checked")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
