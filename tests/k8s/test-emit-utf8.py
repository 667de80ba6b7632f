#!/usr/bin/env python3
"""Every emitter writes UTF-8 whatever bytes the node's names hold (issue 25
item 4): an RDMA device, a netdev and the hostname under --root named with
bytes that are not UTF-8 (a lone 0xff, a cut sequence, a surrogate, an
overlong '/') or with controls and quoting. Each output is decoded as strict
UTF-8 and read back by its own parser: json for JSON, promtool for the
Prometheus textfile, PyYAML for YAML, ElementTree (and xmllint when
installed) for SVG and HTML, and the NFD feature file as key=value lines.
Before, the textfile kept the raw bytes and promtool refused it.

Usage: test-emit-utf8.py GDRCHECK SOURCE_ROOT
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import yaml

import k8slib

FIXTURE = "phb-only"
RDMA, NETDEV = b"mlx5_0", b"ibp3s0"
BAD = [
    b"\xff\xfe",
    b"\xe2\x82",            # a sequence cut short
    b"\xed\xa0\x80",        # a surrogate
    b"\xc0\xaf",            # an overlong '/'
    b"\xc2\x9b2J\x1b]0;t\x07",
    b"\"\\\n\r\t{}=,",
]


def hostile_root(src, tmp, bad):
    """A copy of @src where the RDMA device, the netdev and the hostname hold @bad."""
    dst = os.path.join(tmp, "root")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, symlinks=True)
    renames = {RDMA: RDMA[:5] + bad + RDMA[5:], NETDEV: NETDEV[:3] + bad + NETDEV[3:]}
    for dirpath, dirnames, filenames in os.walk(dst.encode(), topdown=False):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            if os.path.islink(p):
                t = os.readlink(p)
                for old, new in renames.items():
                    t = t.replace(b"/" + old, b"/" + new)
                os.unlink(p)
                os.symlink(t, p)
            if n in renames:
                os.rename(p, os.path.join(dirpath, renames[n]))
    with open(os.path.join(dst, "proc/sys/kernel/hostname"), "wb") as f:
        f.write(b"node-" + bad + b"-01\n")
    return dst


def run(argv, cwd):
    p = subprocess.run(argv, cwd=cwd, capture_output=True)
    err = p.stderr.decode("utf-8", "replace")
    if any(s in err for s in k8slib.SANITIZER):
        raise SystemExit(f"{argv}: sanitizer report:\n{err[-2000:]}")
    return p.returncode, p.stdout, err


def utf8(data, what, errors):
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        errors.append(f"{what}: not UTF-8: {e}")
        return None


def main():
    gdrcheck, src = os.path.abspath(sys.argv[1]), sys.argv[2]
    promtool = k8slib.need("promtool")
    xmllint = shutil.which("xmllint")
    fixture = os.path.join(src, "tests", "fixtures", FIXTURE, "root")
    errors, n = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for bad in BAD:
            root = hostile_root(fixture, tmp, bad)
            tag = repr(bad)
            prom, nfd = os.path.join(tmp, "x.prom"), os.path.join(tmp, "x.nfd")
            rc, _, err = run([gdrcheck, "labels", "--root", root, "--prom", prom, "--nfd", nfd], tmp)
            if rc != 0:
                errors.append(f"{tag}: labels: exit {rc}: {err}")
                continue
            text = utf8(open(prom, "rb").read(), f"{tag} textfile", errors)
            if text is not None:
                p = subprocess.run([promtool, "check", "metrics"], input=text.encode(), capture_output=True)
                if p.returncode != 0:
                    errors.append(f"{tag}: promtool check metrics: {p.stdout!r}{p.stderr!r}")
                if "mlx5_" not in text:
                    errors.append(f"{tag}: textfile: the RDMA device is gone")
            text = utf8(open(nfd, "rb").read(), f"{tag} NFD file", errors)
            for line in (text or "").splitlines():
                if line and not line.startswith("#") and "=" not in line:
                    errors.append(f"{tag}: NFD file: line {line!r}")
            n += 2
            for args, kind in ((["collect"], "json"), (["check", "--json"], "json"),
                               (["topo", "--json"], "json"), (["labels", "--json"], "json"),
                               (["k8s", "--json"], "json"),
                               (["k8s"], "yaml"), (["topo", "--format", "svg"], "xml"),
                               (["topo", "--format", "html"], "xml"), (["check", "--format", "html"], "xml"),
                               (["check"], "text"), (["topo"], "text")):
                what = f"{tag}: {' '.join(args)}"
                rc, out, err = run([gdrcheck] + args + ["--root", root], tmp)
                n += 1
                if rc not in (0, 1):
                    errors.append(f"{what}: exit {rc}: {err}")
                    continue
                text = utf8(out, what, errors)
                if text is None:
                    continue
                try:
                    if kind == "json":
                        json.loads(text)
                    elif kind == "yaml":
                        list(yaml.safe_load_all(text))
                    elif kind == "xml":
                        ET.fromstring(out)
                        if xmllint:
                            p = subprocess.run([xmllint, "--noout", "-"], input=out, capture_output=True)
                            if p.returncode != 0:
                                errors.append(f"{what}: xmllint: {p.stderr[:300]!r}")
                    elif "\x1b" in text or "\x07" in text or "\x9b" in text:
                        errors.append(f"{what}: a raw control reaches the terminal")
                except Exception as e:  # each parser's own error
                    errors.append(f"{what}: {kind} parser: {e}")
    for e in errors:
        print(e)
    print(f"{n} outputs, {len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
