#!/usr/bin/env python3
"""Coverage of the fuzz targets' inputs, from libFuzzer's own counters.

Runs each target once over its committed corpus plus the inputs
scripts/sanitize.sh's fixed fuzzing run kept (BUILD/fuzz-scratch/TARGET)
with -runs=0 -print_coverage=1, and sums the SanitizerCoverage edges of the
functions in the source files the target exists for (its parser): covered
edges / all edges of those files, and functions reached / all.

  python3 scripts/fuzz-coverage.py [BUILD]      (default build-sanitize)
"""
import os
import re
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
TARGETS = {
    # target: (corpus, the source files it is the fuzzer of)
    "tilec-layout-expr-fuzzer": ("layout-expr", r"ir/layout/Layout(Parser|Expr)"),
    "tilec-tile-fuzzer": ("tile",
                          r"compiler/(Lexer|Parser|IRParser|Sema|passes/)"),
    "tilec-ptx-fuzzer": ("ptx", r"runtime/sim/Ptx"),
}
LINE = re.compile(r"^(UN)?COVERED_FUNC: hits: (\d+) edges: (\d+)/(\d+) "
                  r"(.*) (/\S+):\d+$")


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                            os.path.join(ROOT, "build-sanitize"))
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    print("| target | files | edges covered | functions reached | inputs |")
    print("|---|---|---:|---:|---:|")
    for target, (corpus, files) in TARGETS.items():
        dirs = [os.path.join(ROOT, "tests", "fuzz", "corpus", corpus)]
        scratch = os.path.join(build, "fuzz-scratch", target)
        if os.path.isdir(scratch):
            dirs.append(scratch)
        inputs = sum(len(os.listdir(d)) for d in dirs)
        out = subprocess.run(
            [os.path.join(build, "tests", "fuzz", target), "-runs=0",
             "-print_coverage=1", "-max_len=4096"] + dirs,
            capture_output=True, text=True, env=env).stderr
        covered = total = reached = funcs = 0
        seen = set()
        per_file = defaultdict(lambda: [0, 0])
        for line in out.splitlines():
            m = LINE.match(line)
            if not m or not re.search(files, m.group(6)):
                continue
            key = (m.group(5), m.group(6))
            if key in seen:
                continue
            seen.add(key)
            c, t = int(m.group(3)), int(m.group(4))
            covered += c
            total += t
            funcs += 1
            reached += c > 0
            f = os.path.relpath(m.group(6), ROOT)
            per_file[f][0] += c
            per_file[f][1] += t
        pct = 100.0 * covered / total if total else 0.0
        print(f"| {target} | `{files}` | {covered}/{total} ({pct:.0f}%) | "
              f"{reached}/{funcs} | {inputs} |")
        for f, (c, t) in sorted(per_file.items()):
            print(f"|  | {f} | {c}/{t} ({100.0 * c / t if t else 0:.0f}%) | | |")


if __name__ == "__main__":
    main()
