# lit configuration for tilec's golden tests.
#
# Substitutions: `tilec`, `FileCheck`, `not`, `%python` and
# `%ptxas-verify <arch>`, which
# assembles stdin with ptxas for that target. A test that uses it says
# `REQUIRES: ptxas`, so that where ptxas is missing it is reported
# UNSUPPORTED rather than passing without assembling anything; a test that
# forgets the line fails there instead of passing.
import os
import shutil
import sys

import lit.formats

config.name = "tilec"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".tile", ".test", ".ptx"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.tilec_test_exec_root

config.environment["PATH"] = os.pathsep.join(
    [config.tilec_tools_dir, config.llvm_tools_dir,
     config.environment.get("PATH", "")])

ptxas = os.environ.get("PTXAS") or shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas")
    else None)
if ptxas:
    verify = ("%s/ptxas-verify.sh %s" % (config.test_source_root, ptxas))
    config.available_features.add("ptxas")
else:
    verify = ("cat >/dev/null; echo 'ptxas missing: add REQUIRES: ptxas' >&2;"
              " false")
config.substitutions.append(("%ptxas-verify", verify))
# The golden PTX hashes (golden/ptx_unchanged.test) are of a g++-built tilec:
# codegen builds IR with nested calls whose argument order C++ leaves to the
# compiler, and clang (the sanitizer build) evaluates them in the other
# order, so its PTX lists the same instructions in another order.
if getattr(config, "tilec_cxx_compiler_id", "") == "GNU":
    config.available_features.add("gcc-built-tilec")
config.substitutions.append(("%inputs", os.path.join(
    config.test_source_root, "Inputs")))
# The example programs (examples/*.cpp), e.g. %examples/sm90_gemm_ptx.
config.substitutions.append(("%examples", os.path.join(
    os.path.dirname(os.path.dirname(config.tilec_tools_dir)), "examples")))
config.substitutions.append(("%expect-exit", os.path.join(
    config.test_source_root, "expect-exit.sh")))
# The Python running lit, for helper scripts (tests/lit/pack/Inputs).
config.substitutions.append(("%python", sys.executable))
