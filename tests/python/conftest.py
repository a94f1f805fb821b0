"""pytest setup: import tilec from python/ of this checkout, cache kernels in
a temporary directory (never in ~/.cache/tilec)."""
import os
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("TILEC_CACHE_DIR",
                      tempfile.mkdtemp(prefix="tilec-pytest-cache-"))
