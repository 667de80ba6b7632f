#!/usr/bin/env python3
"""Every emitter writes well-formed output whatever bytes the node's names hold
(issue 25 items 1-4): a property test over the names of a --root tree.

Each case names the RDMA device, its netdev and the hostname under --root
with bytes: first the fixed regressions (a lone 0xff, a cut sequence, a
surrogate, an overlong '/', controls and quoting), then random names drawn
from every C0 and C1 control, U+0085, U+2028/2029, noncharacters, invalid
UTF-8, YAML/XML/Prometheus syntax and very long names. Each output is decoded
as strict UTF-8 and read back by its own parser, and where two emitters say
the same thing they must agree:
- JSON (collect, check, topo, labels, k8s --json): json;
- the Prometheus textfile: promtool, and its nic labels, unescaped, are the
  RDMA devices of 'collect' (the facts as JSON);
- the NFD feature file: name=value lines Kubernetes takes, the labels of
  'labels --json';
- the k8s YAML: PyYAML, the objects of 'k8s --json';
- SVG and HTML: ElementTree (and xmllint when installed); DOT: Graphviz's
  dot -Tsvg when installed, its SVG read by ElementTree; the SVG's title
  is the hostname of 'collect' with XML's forbidden characters replaced;
- the text reports (check, topo) and nccl-log's, for a log whose file name and
  host prefix hold the same bytes: no raw ESC, BEL or CSI reaches a terminal,
  and nccl-log --json is UTF-8 JSON.
Before, the textfile kept the raw bytes and promtool refused it.

Usage: test-emit-utf8.py GDRCHECK FIXTURES
Environment: GDRCHECK_EMIT_ROUNDS (random cases, default 10), GDRCHECK_EMIT_SEED.
"""
import json
import os
import random
import re
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
ROUNDS = int(os.environ.get("GDRCHECK_EMIT_ROUNDS", "10"))
SEED = int(os.environ.get("GDRCHECK_EMIT_SEED", "25"))

# What a random name is made of: a directory entry holds any byte but '/' and NUL.
PIECES = (
    [bytes([c]) for c in range(1, 0x20)] + [b"\x7f"] +
    [chr(c).encode() for c in range(0x80, 0xa0)] +                 # C1, U+0085 among them
    [bytes([c]) for c in range(0x80, 0x100)] +                     # bytes that are not UTF-8
    [s.encode() for s in ("\u2028", "\u2029", "\ufffe", "\uffff", "\ufdd0", "\U0010ffff",
                          "\U0001fffe", "\u00a0", "\ufeff", "\u00e9", "\u4e2d", "\U0001f600")] +
    [b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xc0\xaf", b"\xe0\x80\xaf", b"\xf4\x90\x80\x80", b"\xe2\x82"] +
    [s.encode() for s in ("\n---\nkind: Secret\n", ": ", "- ", "# ", "&a", "*a", "!!str", "|", ">",
                          "'", '"', "\\", "\\n", "{", "}", "[", "]", "=", ",", "<", ">", "&amp;",
                          "]]>", "<!--", "\x1b[2J", "\x1b]0;t\x07", "null", "true", "0x1f", "~")] +
    [bytes([c]) for c in b"abcxyzABC019-_."]
)


def random_name(rng, limit):
    """Bytes for a directory entry: no '/' or NUL, not '.' or '..', at most @limit bytes."""
    if rng.random() < 0.1:
        out = bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz0123456789-") for _ in range(limit))
    else:
        out = b"".join(rng.choice(PIECES) for _ in range(rng.randint(1, 12)))
    return out[:limit] or b"x"


def hostile_root(src, tmp, rdma_bad, netdev_bad, host_bad):
    """A copy of @src where the RDMA device, the netdev and the hostname hold the bytes given."""
    dst = os.path.join(tmp, "root")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, symlinks=True)
    renames = {RDMA: RDMA[:5] + rdma_bad + RDMA[5:], NETDEV: NETDEV[:3] + netdev_bad + NETDEV[3:]}
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
        f.write(b"node-" + host_bad + b"-01\n")
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


def prom_labels(line):
    """The labels of one sample line of the text format 0.0.4, unescaped; None if it is not one."""
    m = re.match(r"^[a-zA-Z_:][a-zA-Z0-9_:]*(\{(.*)\})? \S+$", line)
    if not m:
        return None
    out, s, i = {}, m.group(2) or "", 0
    while i < len(s):
        k = re.match(r"[a-zA-Z_][a-zA-Z0-9_]*=\"", s[i:])
        if not k:
            return None
        i += k.end()
        v = []
        while i < len(s) and s[i] != '"':
            if s[i] == "\\":
                e = s[i + 1:i + 2]
                if e not in ("\\", '"', "n"):
                    return None
                v.append("\n" if e == "n" else e)
                i += 2
            else:
                v.append(s[i])
                i += 1
        if i >= len(s):
            return None
        out[k.group(0)[:-2]] = "".join(v)
        i += 1
        if i < len(s):
            if s[i] != ",":
                return None
            i += 1
    return out


def xml_text(s):
    """What render_xml_text() makes of @s (already UTF-8): noncharacters U+FFFD, controls '?'."""
    out = []
    for ch in s:
        c = ord(ch)
        if 0xfdd0 <= c <= 0xfdef or (c & 0xfffe) == 0xfffe:
            out.append("\ufffd")
        elif (c < 0x20 and ch not in "\t\n") or 0x7f <= c <= 0x9f:
            out.append("?")
        else:
            out.append(ch)
    return "".join(out)


def fffd_runs(s):
    """One U+FFFD per run: how many a broken sequence gives is the repairer's choice."""
    return re.sub("\ufffd+", "\ufffd", s)


def check_case(gdrcheck, fixture, tmp, tag, rdma_bad, netdev_bad, host_bad, promtool, xmllint, dot, errors):
    root = hostile_root(fixture, tmp, rdma_bad, netdev_bad, host_bad)
    n = 0
    rc, out, err = run([gdrcheck, "collect", "--root", root], tmp)
    facts = None
    if rc != 0:
        errors.append(f"{tag}: collect: exit {rc}: {err}")
    else:
        text = utf8(out, f"{tag}: collect", errors)
        facts = json.loads(text) if text is not None else None
    n += 1

    prom, nfd = os.path.join(tmp, "x.prom"), os.path.join(tmp, "x.nfd")
    rc, _, err = run([gdrcheck, "labels", "--root", root, "--prom", prom, "--nfd", nfd], tmp)
    if rc != 0:
        errors.append(f"{tag}: labels: exit {rc}: {err}")
        return n
    rc, out, err = run([gdrcheck, "labels", "--json", "--root", root], tmp)
    labels = json.loads(out.decode("utf-8"))["labels"] if rc == 0 else {}
    text = utf8(open(prom, "rb").read(), f"{tag} textfile", errors)
    if text is not None:
        p = subprocess.run([promtool, "check", "metrics"], input=text.encode(), capture_output=True)
        if p.returncode != 0:
            errors.append(f"{tag}: promtool check metrics: {p.stdout!r}{p.stderr!r}")
        nics = set()
        # Lines end at LF only (str.splitlines() would also cut at CR, U+0085, U+2028).
        for line in text.rstrip("\n").split("\n"):
            if line.startswith("#"):
                continue
            lab = prom_labels(line)
            if lab is None:
                errors.append(f"{tag}: textfile: not a sample line: {line[:120]!r}")
            elif line.startswith("gdrcheck_pair_info{"):
                nics.add(lab.get("nic"))
        if facts is not None and nics != {d["name"] for d in facts["nics"]}:
            errors.append(f"{tag}: textfile: nic labels {sorted(map(repr, nics))} are not the "
                          f"RDMA devices of collect {sorted(repr(d['name']) for d in facts['nics'])}")
    text = utf8(open(nfd, "rb").read(), f"{tag} NFD file", errors)
    got = {}
    for line in (text or "").rstrip("\n").split("\n"):
        if not line or line.startswith("#"):
            continue
        key, eq, value = line.partition("=")
        if not eq or k8slib.label_key_errors(key) or k8slib.label_value_errors(key, value):
            errors.append(f"{tag}: NFD file: line {line!r}")
        got[key] = value
    if text is not None and got != labels:
        errors.append(f"{tag}: NFD file {got} is not labels --json {labels}")
    n += 3

    outputs = {}
    for args, kind in ((["check", "--json"], "json"),
                       (["topo", "--json"], "json"),
                       (["k8s", "--json"], "json"),
                       (["k8s"], "yaml"), (["topo", "--format", "svg"], "xml"),
                       (["topo", "--format", "html"], "xml"), (["check", "--format", "html"], "xml"),
                       (["topo", "--format", "dot"], "dot"),
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
                outputs[" ".join(args)] = json.loads(text)
            elif kind == "yaml":
                outputs[" ".join(args)] = [d for d in yaml.safe_load_all(text) if d is not None]
            elif kind == "xml":
                outputs[" ".join(args)] = ET.fromstring(out)
                if xmllint:
                    p = subprocess.run([xmllint, "--noout", "-"], input=out, capture_output=True)
                    if p.returncode != 0:
                        errors.append(f"{what}: xmllint: {p.stderr[:300]!r}")
            elif kind == "dot":
                if dot:
                    p = subprocess.run([dot, "-Tsvg"], input=out, capture_output=True)
                    if p.returncode != 0:
                        errors.append(f"{what}: dot -Tsvg: {p.stderr[:300]!r}")
                    else:
                        ET.fromstring(p.stdout)
            elif "\x1b" in text or "\x07" in text or "\x9b" in text:
                errors.append(f"{what}: a raw control reaches the terminal")
        except Exception as e:  # each parser's own error
            errors.append(f"{what}: {kind} parser: {e}")
    if "k8s" in outputs and "k8s --json" in outputs:
        want = [d["object"] for d in outputs["k8s --json"]["documents"]]
        if outputs["k8s"] != want:
            errors.append(f"{tag}: the k8s YAML holds other objects than k8s --json")
    svg = outputs.get("topo --format svg")
    if svg is not None and facts is not None and facts["host"].get("hostname") is not None:
        title = svg.find("{http://www.w3.org/2000/svg}title")
        want = "gdrcheck topo: " + xml_text(facts["host"]["hostname"])
        if title is None or fffd_runs(title.text or "") != fffd_runs(want):
            errors.append(f"{tag}: SVG title {None if title is None else title.text!r}, "
                          f"collect's hostname makes {want!r}")

    # nccl-log: a log whose file name and host prefix hold the bytes.
    logname = os.path.join(tmp.encode(), b"nccl-" + netdev_bad[:200] + b".log")
    host = (b"node" + host_bad).replace(b" ", b"_").replace(b":", b"_").replace(b"\n", b"_")
    with open(logname, "wb") as f:
        f.write(host + b":100:200 [0] NCCL INFO NET/IB : Using [0]" + RDMA[:5] + rdma_bad +
                b"0:1/IB ; OOB ib0:10.0.0.1<0>\n" + host +
                b":100:200 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n")
    for args, kind in ((["nccl-log", "--json"], "json"), (["nccl-log"], "text")):
        what = f"{tag}: {' '.join(args)}"
        p = subprocess.run([gdrcheck.encode()] + [a.encode() for a in args] + [logname],
                           cwd=tmp, capture_output=True)
        n += 1
        if any(s in p.stderr.decode("utf-8", "replace") for s in k8slib.SANITIZER):
            raise SystemExit(f"{what}: sanitizer report:\n{p.stderr[-2000:]}")
        if p.returncode not in (0, 1):
            errors.append(f"{what}: exit {p.returncode}: {p.stderr[-300:]!r}")
            continue
        text = utf8(p.stdout, what, errors)
        if text is None:
            continue
        if kind == "json":
            try:
                json.loads(text)
            except ValueError as e:
                errors.append(f"{what}: json parser: {e}")
        elif "\x1b" in text or "\x07" in text or "\x9b" in text:
            errors.append(f"{what}: a raw control reaches the terminal")
    os.unlink(logname)
    return n


def main():
    gdrcheck, fixtures = os.path.abspath(sys.argv[1]), sys.argv[2]
    promtool = k8slib.need("promtool")
    xmllint, dot = shutil.which("xmllint"), shutil.which("dot")
    fixture = os.path.join(fixtures, FIXTURE, "root")
    errors, n = [], 0
    rng = random.Random(SEED)
    cases = [(repr(b), b, b, b) for b in BAD]
    for i in range(ROUNDS):
        # The facts schema holds RDMA device names to 63 bytes; a netdev or a hostname may be long.
        r, d, h = random_name(rng, 55), random_name(rng, 240), random_name(rng, 200)
        cases.append((f"seed {SEED} round {i} ({r!r}, {d!r}, {h!r})", r, d, h))
    with tempfile.TemporaryDirectory() as tmp:
        for tag, r, d, h in cases:
            n += check_case(gdrcheck, fixture, tmp, tag, r, d, h, promtool, xmllint, dot, errors)
    for e in errors:
        print(e)
    print(f"{len(cases)} cases, {n} outputs, {len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
