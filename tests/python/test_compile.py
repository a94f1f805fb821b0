"""tilec.compile: PTX, metadata, diagnostics, the disk cache, threads."""
import os
import subprocess
import sys
import threading

import pytest

import tilec
from conftest import ROOT

EXAMPLE = os.path.join(ROOT, "examples", "gemm_sm80.tile")


def test_compile_a_file():
    k = tilec.compile(EXAMPLE)
    assert ".entry" in k.ptx
    assert k.entry_name in k.ptx
    assert k.arch == "sm_80"
    assert k.block_threads > 0 and k.shared_bytes > 0
    names = [name for name, _ in k.params]
    assert len(names) >= 9
    assert k.params[0][1] == "pointer"
    assert "tile.pipeline" in k.lowered
    assert k.grid(256, 256, 64) == (4, 1, 1)


def test_compile_source_text_with_arch():
    with open(EXAMPLE) as f:
        source = f.read().replace("  arch     sm_80\n", "")
    k = tilec.compile(source, arch="sm_80")
    assert k.arch == "sm_80"
    assert ".loc" not in k.ptx
    assert ".loc" in tilec.compile(source, arch="sm_80", line_info=True).ptx


def test_compile_error_is_the_diagnostic(tmp_path):
    bad = tmp_path / "bad.tile"
    bad.write_text("kernel k {\n  arch sm_80\n  tile (BM = 128, BN)\n}\n")
    with pytest.raises(tilec.CompileError) as info:
        tilec.compile(str(bad))
    message = str(info.value)
    assert f"{bad}:3:" in message
    assert "error:" in message
    assert "^" in message  # the caret under the source line


def test_bad_arch_is_a_value_error():
    with pytest.raises(ValueError, match="sm_42"):
        tilec.compile(EXAMPLE, arch="sm_42")


def test_second_process_hits_the_disk_cache(tmp_path):
    env = dict(os.environ, TILEC_CACHE_DIR=str(tmp_path))
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import tilec; "
              "print(len(tilec.compile(sys.argv[2]).ptx))")
    # The tilec this process imported (the checkout's, or the installed).
    args = [sys.executable, "-c", script,
            os.path.dirname(os.path.dirname(os.path.abspath(tilec.__file__))),
            EXAMPLE]
    first = subprocess.run(args, env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    entries = [p for p in os.listdir(tmp_path) if p.endswith(".json")]
    assert len(entries) == 1
    second = subprocess.run(args, env=env, capture_output=True, text=True)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout
    assert len([p for p in os.listdir(tmp_path) if p.endswith(".json")]) == 1


def test_threads_compile_at_once():
    with open(EXAMPLE) as f:
        source = f.read()
    results, errors = [], []

    def work(i):
        try:
            # Distinct sources (a comment) so that each thread compiles.
            results.append(tilec.compile(source + f"// {i}\n").ptx)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 4 and len(set(results)) == 1
