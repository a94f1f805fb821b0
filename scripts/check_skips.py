#!/usr/bin/env python3
"""Fails when a CTest test outside the `gpu` label was skipped (issue 30: a
test that skips in CI because a tool is missing is a test that cannot
fail). Reads the JUnit file `ctest --output-junit` wrote and the `gpu`
label's tests from `ctest -N -L gpu`; prints the offenders and exits 1.

    python3 scripts/check_skips.py BUILD_DIR JUNIT.xml
"""
import subprocess
import sys
import xml.etree.ElementTree as ET


def main(build_dir, junit):
    listed = subprocess.run(["ctest", "--test-dir", build_dir, "-N", "-L",
                             "gpu"], capture_output=True, text=True,
                            check=True).stdout
    gpu = {line.split(":", 1)[1].strip() for line in listed.splitlines()
           if line.strip().startswith("Test") and ":" in line}
    skipped = [case.get("name") for case in ET.parse(junit).iter("testcase")
               if case.find("skipped") is not None
               or case.get("status") in ("notrun", "disabled")]
    bad = sorted(name for name in skipped if name not in gpu)
    print(f"check_skips: {len(skipped)} skipped, {len(skipped) - len(bad)} "
          f"of them in the gpu label, {len(bad)} outside it")
    for name in bad:
        print(f"check_skips: skipped outside the gpu label: {name}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
