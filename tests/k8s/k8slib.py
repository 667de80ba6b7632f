"""Helpers shared by the Kubernetes tests: fixture inputs and Kubernetes' own name rules."""
import configparser
import os
import re
import shutil
import subprocess
import sys

# k8s.io/apimachinery/pkg/util/validation/validation.go
QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def label_key_errors(key):
    """Kubernetes' IsQualifiedName: [prefix/]name; prefix a DNS subdomain <= 253, name <= 63."""
    errs = []
    prefix, _, name = key.rpartition("/")
    if "/" in prefix:
        errs.append(f"{key}: more than one '/'")
    if prefix:
        if len(prefix) > 253:
            errs.append(f"{key}: prefix longer than 253")
        if not DNS1123_SUBDOMAIN.match(prefix):
            errs.append(f"{key}: prefix is not a DNS-1123 subdomain")
    if not name or len(name) > 63:
        errs.append(f"{key}: name empty or longer than 63")
    elif not QUALIFIED_NAME.match(name):
        errs.append(f"{key}: name does not match {QUALIFIED_NAME.pattern}")
    return errs


def label_value_errors(key, value):
    errs = []
    if len(value) > 63:
        errs.append(f"{key}={value}: value longer than 63")
    if not LABEL_VALUE.match(value):
        errs.append(f"{key}={value}: value does not match {LABEL_VALUE.pattern}")
    return errs


def fixtures(fixtures_dir, only=None):
    """(name, directory, input arguments) of every fixture tree, run inside its directory."""
    out = []
    for name in sorted(os.listdir(fixtures_dir)):
        d = os.path.join(fixtures_dir, name)
        if not os.path.exists(os.path.join(d, "fixture.ini")) or not os.path.isdir(os.path.join(d, "root")):
            continue
        # Node roots only: a container's root without sysfs is refused as a node.
        if not os.path.isdir(os.path.join(d, "root", "sys", "bus", "pci", "devices")):
            continue
        if only and name not in only:
            continue
        args = ["--root", "root"]
        if os.path.isdir(os.path.join(d, "netlink")):
            args += ["--netlink-replay", "netlink"]
        out.append((name, d, args))
    # A fixture directory whose trees were not built must not pass unread.
    missing = sorted(set(only or []) - {n for n, _, _ in out})
    if not out or missing:
        raise SystemExit(f"{fixtures_dir}: no fixture tree for {' '.join(missing) or 'any fixture'} "
                         "(the suite builds them: ninja -C build fixtures)")
    return out


def need(prog):
    """The path of @prog, or skip the test (exit 77) with a line saying why."""
    path = shutil.which(prog)
    if not path:
        print(f"SKIP: {prog} is not installed (tools/install-deps.sh installs it)")
        sys.exit(77)
    return path


SANITIZER = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


def run(argv, cwd=None, check_rc=None, **kw):
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, **kw)
    # Under ASan a leak exits 1, which k8s also means: read the report instead.
    if any(s in (p.stderr or "") for s in SANITIZER):
        raise SystemExit(f"{' '.join(argv)} (in {cwd}): sanitizer report:\n{p.stderr[-2000:]}")
    if check_rc is not None and p.returncode not in check_rc:
        raise SystemExit(f"{' '.join(argv)} (in {cwd}) exited {p.returncode}:\n{p.stderr}")
    return p
