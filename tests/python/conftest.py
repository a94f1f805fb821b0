"""pytest setup: import tilec from python/ of this checkout, or with
TILEC_TEST_INSTALLED=1 the installed package (scripts/gpu-python.sh: the
wheel pip installed, never this checkout's copy); cache kernels in a
temporary directory (never in ~/.cache/tilec)."""
import os
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
if os.environ.get("TILEC_TEST_INSTALLED") == "1":
    import tilec
    if os.path.abspath(tilec.__file__).startswith(ROOT + os.sep):
        raise RuntimeError(f"TILEC_TEST_INSTALLED=1 but tilec was imported "
                           f"from this checkout: {tilec.__file__}")
else:
    sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("TILEC_CACHE_DIR",
                      tempfile.mkdtemp(prefix="tilec-pytest-cache-"))
