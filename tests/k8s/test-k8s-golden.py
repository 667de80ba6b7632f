#!/usr/bin/env python3
"""'gdrcheck k8s' for two fixtures in every mode, against goldens in tests/k8s/golden/.
GDRCHECK_UPDATE_GOLDEN=1 rewrites them."""
import difflib
import os
import sys

import k8slib

FIXTURES = ["seed2-b300-e810", "hgx-h100-healthy"]
MODES = ["shared", "hostdev", "sriov", "hostnetwork"]


def main():
    gdrcheck, src = os.path.abspath(sys.argv[1]), sys.argv[2]
    golden_dir = os.path.join(src, "tests", "k8s", "golden")
    update = os.environ.get("GDRCHECK_UPDATE_GOLDEN") == "1"
    failed = 0
    for name, d, args in k8slib.fixtures(os.path.join(src, "tests", "fixtures"), FIXTURES):
        for mode in MODES:
            p = k8slib.run([gdrcheck, "k8s", "--mode", mode] + args, cwd=d, check_rc=[0, 1])
            got = p.stdout + f"# exit {p.returncode}\n"
            path = os.path.join(golden_dir, f"{name}.{mode}.yaml")
            if update:
                os.makedirs(golden_dir, exist_ok=True)
                with open(path, "w") as f:
                    f.write(got)
                continue
            with open(path) as f:
                want = f.read()
            if got != want:
                failed += 1
                sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), got.splitlines(True), path, "gdrcheck k8s"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
