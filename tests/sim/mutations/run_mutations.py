#!/usr/bin/env python3
"""run_mutations.py: the simulator's mutation tests (CTest sim-mutations).

Each row of mutations.tsv is a deliberately broken kernel: a .tile file
compiled to PTX, one regex edit applied (it must match exactly the expected
number of times, so a mutation that no longer applies is a failure, not a
silent pass), assembled by ptxas where it exists (the breakage must be
semantic), and run with `tilec run --sim --ptx` at a small size. The row
passes when the simulator reports what the row expects: wrong elements, or a
named error containing the given text. The unmutated kernel of every file is
run first at every size used (the first also under TILEC_SIM_SEED 1, 2
and 3) and must PASS, so the harness cannot pass trivially; rows with seeds are also run
under those TILEC_SIM_SEED values (random warp interleaving and async
completion) and must be caught the same way under each.

With --gpu the kernels run on the GPU instead (no --sim): a row is `caught`
when the run FAILs or errors, `not caught` otherwise; sm_100a rows and rows
marked gpu=no (racy or hanging breakage) are skipped.

Standard library only. Prints one line per check and `N passed, M failed`.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
PTXAS_CANDIDATES = ["/usr/local/cuda/bin/ptxas"]
BASELINE_SEEDS = ["1", "2", "3"]
RUN_TIMEOUT_S = 120


class Row:
    def __init__(self, fields, lineno):
        if len(fields) != 9:
            raise ValueError(
                f"mutations.tsv:{lineno}: {len(fields)} columns, expected 9")
        (self.id, self.tile, size, self.pattern, self.replacement, count,
         self.expect, seeds, gpu) = fields
        # SIZE is MxNxK, or MxNxK,beta=B for a run that reads C.
        size, _, option = size.partition(",")
        self.m, self.n, self.k = (int(x) for x in size.split("x"))
        if option and not option.startswith("beta="):
            raise ValueError(
                f"mutations.tsv:{lineno}: size option must be beta=B")
        self.beta = float(option[5:]) if option else 0.0
        self.count = int(count)
        self.seeds = [] if seeds == "-" else seeds.split(",")
        if gpu not in ("yes", "no"):
            raise ValueError(f"mutations.tsv:{lineno}: gpu must be yes or no")
        self.gpu = gpu == "yes"
        if self.expect != "wrong" and not self.expect.startswith("error:"):
            raise ValueError(
                f"mutations.tsv:{lineno}: expect must be wrong or error:TEXT")

    @property
    def size(self):
        return f"{self.m}x{self.n}x{self.k}" + (
            f",beta={self.beta:g}" if self.beta else "")


def read_table(path):
    rows = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            rows.append(Row(line.split("\t"), lineno))
    ids = [r.id for r in rows]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"duplicate mutation ids: {', '.join(dup)}")
    return rows


class Kernel:
    """One .tile kernel: its source file (one kernel) and compiled PTX."""

    def __init__(self, spec, tilec, work):
        self.spec = spec
        path, _, name = spec.partition("#")
        src = os.path.join(ROOT, path)
        if name:
            text = open(src).read()
            m = re.search(r"^kernel " + re.escape(name) + r" \{.*?^\}", text,
                          re.S | re.M)
            if not m:
                raise ValueError(f"{spec}: no kernel {name} in {path}")
            src = os.path.join(work, name + ".tile")
            with open(src, "w") as f:
                f.write(m.group(0) + "\n")
        self.tile = src
        base = re.sub(r"[^A-Za-z0-9_.-]", "_", spec)
        self.ptx_path = os.path.join(work, base + ".ptx")
        r = subprocess.run([tilec, "compile", src, "-o", self.ptx_path],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{spec}: tilec compile failed:\n{r.stderr}")
        self.ptx = open(self.ptx_path).read()
        m = re.search(r"^\.target\s+(\S+)", self.ptx, re.M)
        self.arch = m.group(1) if m else "?"


def find_ptxas():
    for c in [shutil.which("ptxas")] + PTXAS_CANDIDATES:
        if c and os.path.exists(c):
            return c
    return None


def ptxas_check(ptxas, arch, path, work):
    """Returns None when ptxas accepts the PTX (or is absent), else its log."""
    if not ptxas:
        return None
    r = subprocess.run(
        [ptxas, f"-arch={arch}", path, "-o", os.path.join(work, "out.cubin")],
        capture_output=True, text=True)
    return None if r.returncode == 0 else (r.stderr or r.stdout).strip()


def run_kernel(tilec, kernel, m, n, k, ptx=None, sim=True, seed=None,
               beta=0.0):
    """Runs `tilec run`; returns (outcome, detail), outcome one of
    pass, wrong, error, timeout."""
    cmd = [tilec, "run", kernel.tile, "--m", str(m), "--n", str(n), "--k",
           str(k), "--json"]
    if sim:
        cmd.append("--sim")
    if ptx:
        cmd += ["--ptx", ptx]
    if beta:
        cmd += ["--beta", f"{beta:g}"]
    env = dict(os.environ)
    env.pop("TILEC_SIM_SEED", None)
    if seed is not None:
        env["TILEC_SIM_SEED"] = seed
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env,
                           timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "timeout", f"no result in {RUN_TIMEOUT_S} s"
    try:
        results = json.loads(r.stdout)
    except ValueError:
        return "error", (r.stdout + r.stderr).strip()[-400:] or \
            f"exit {r.returncode}, no output"
    if isinstance(results, dict):
        results = [results]
    for res in results:
        if res.get("error"):
            return "error", res["error"]
    for res in results:
        if not res.get("pass"):
            return "wrong", (f"{res.get('wrong', '?')}/"
                             f"{res.get('checked', '?')} wrong, max error "
                             f"{res.get('max_error', '?')}")
    if r.returncode != 0:
        return "error", f"exit {r.returncode}: {r.stderr.strip()[-400:]}"
    return "pass", ""


def short(text, n=160):
    """The named part of a simulator error: what follows the last PTX
    excerpt, or the tail."""
    stopped = re.search(r"the simulator stopped kernel '[^']*': (.*)", text,
                        re.S)
    if stopped:
        text = stopped.group(1)
    first, _, rest = text.partition("\n")
    tail = first.rsplit("`: ", 1)[-1]
    if rest:
        tail += " | " + " | ".join(
            l.strip() for l in rest.split("\n") if "tx-count" in l)[:200]
    return tail if len(tail) <= n else tail[:n] + "..."


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tilec", default=os.path.join(
        ROOT, "build", "compiler", "tilec", "tilec"))
    ap.add_argument("--table", default=os.path.join(HERE, "mutations.tsv"))
    ap.add_argument("--gpu", action="store_true",
                    help="run on the GPU (no --sim); report caught/not caught")
    ap.add_argument("--json", metavar="OUT", help="write the results here")
    ap.add_argument("--only", metavar="REGEX", help="rows whose id matches")
    ap.add_argument("--keep", metavar="DIR",
                    help="keep the mutated PTX files in DIR")
    args = ap.parse_args()

    rows = read_table(args.table)
    if args.only:
        rows = [r for r in rows if re.search(args.only, r.id)]
    ptxas = find_ptxas()
    work = args.keep or tempfile.mkdtemp(prefix="tilec-mutations-")
    os.makedirs(work, exist_ok=True)
    sim = not args.gpu
    backend = "sim" if sim else "gpu"
    results = []

    def record(name, ok, outcome, detail, status=None):
        status = status or ("ok" if ok else "FAILED")
        results.append({"id": name, "status": status, "outcome": outcome,
                        "detail": detail})
        print(f"{status:11} {name}: {outcome}" +
              (f" ({detail})" if detail else ""), flush=True)

    kernels = {}
    for r in rows:
        if r.tile not in kernels:
            try:
                kernels[r.tile] = Kernel(r.tile, args.tilec, work)
            except (RuntimeError, ValueError, OSError) as e:
                kernels[r.tile] = e

    # Baselines: every unmutated kernel passes at every size used (and, in
    # the simulator, under each interleaving seed), and assembles.
    sizes = {}
    for r in rows:
        sizes.setdefault(r.tile, [])
        if (r.m, r.n, r.k, r.beta) not in sizes[r.tile]:
            sizes[r.tile].append((r.m, r.n, r.k, r.beta))
    for spec, kern in kernels.items():
        if isinstance(kern, Exception):
            record(f"baseline {spec}", False, "compile error", str(kern))
            continue
        if args.gpu and kern.arch == "sm_100a":
            record(f"baseline {spec}", True, "skipped", "sm_100a", "skipped")
            continue
        log = ptxas_check(ptxas, kern.arch, kern.ptx_path, work)
        if log:
            record(f"baseline {spec} ptxas", False, "ptxas error", log)
        for i, (m, n, k, beta) in enumerate(sizes[spec]):
            seeds = [None] + (BASELINE_SEEDS if sim and i == 0 else [])
            for seed in seeds:
                outcome, detail = run_kernel(args.tilec, kern, m, n, k,
                                             sim=sim, seed=seed, beta=beta)
                name = f"baseline {spec} {m}x{n}x{k}" + (
                    f",beta={beta:g}" if beta else "") + (
                    f" seed {seed}" if seed else "")
                record(name, outcome == "pass", outcome,
                       "" if outcome == "pass" else short(detail))

    for r in rows:
        kern = kernels[r.tile]
        if isinstance(kern, Exception):
            record(r.id, False, "compile error", str(kern))
            continue
        if args.gpu and (kern.arch == "sm_100a" or not r.gpu):
            record(r.id, True, "skipped",
                   "sm_100a" if kern.arch == "sm_100a" else "gpu=no",
                   "skipped")
            continue
        try:
            mutated, n = re.subn(r.pattern, r.replacement, kern.ptx)
        except re.error as e:
            record(r.id, False, "bad pattern", str(e))
            continue
        if n != r.count:
            record(r.id, False, "edit does not apply",
                   f"pattern matched {n} times, expected {r.count}")
            continue
        path = os.path.join(work, r.id + ".ptx")
        with open(path, "w") as f:
            f.write(mutated)
        log = ptxas_check(ptxas, kern.arch, path, work)
        if log:
            record(r.id, False, "ptxas rejects the mutated PTX", log[:300])
            continue
        seeds = [None] + (r.seeds if sim else [])
        for seed in seeds:
            name = r.id + (f" seed {seed}" if seed else "")
            outcome, detail = run_kernel(args.tilec, kern, r.m, r.n, r.k,
                                         ptx=path, sim=sim, seed=seed,
                                         beta=r.beta)
            if args.gpu:
                caught = outcome != "pass"
                record(name, caught, "caught" if caught else "not caught",
                       f"{outcome}: {short(detail)}" if caught else "")
                continue
            if r.expect == "wrong":
                ok = outcome == "wrong"
            else:
                ok = outcome == "error" and any(
                    alt in detail
                    for alt in r.expect[len("error:"):].split("|"))
            want = r.expect
            record(name, ok, outcome,
                   short(detail) if ok else
                   f"expected {want}; got: {short(detail, 400)}")

    passed = sum(1 for x in results if x["status"] in ("ok", "skipped"))
    failed = len(results) - passed
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"backend": backend, "ptxas": ptxas,
                       "results": results, "passed": passed,
                       "failed": failed}, f, indent=2)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
