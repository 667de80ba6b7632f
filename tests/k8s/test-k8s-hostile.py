#!/usr/bin/env python3
"""'gdrcheck k8s' on nodes whose names are hostile: the YAML must hold exactly
the objects --json prints, whatever a hostname, a netdev, an RDMA device or a
CNI file is called.

1. Regressions: a hostname holding a newline and a Secret (once an extra
   object in the YAML), netdev names with U+2028, U+0085 and U+009B (once line
   breaks or broken comments), and an invalid UTF-8 byte in a netdev
   directory under --root (once unparseable YAML).
2. A property test: random and hostile strings (C0/C1 controls, U+2028/2029,
   U+0085, noncharacters, YAML syntax, very long names) put into every
   node-derived field of a facts file, for every mode and install model; the
   output is read back by PyYAML (and by libyaml through PyYAML's CSafeLoader,
   and by kubectl's Go decoder through 'kubectl kustomize' when installed) and
   must give the --json objects, with no comment holding a value from the node.

Usage: test-k8s-hostile.py GDRCHECK FIXTURES
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

import yaml

import k8slib

MODES = ["shared", "hostdev", "sriov", "hostnetwork"]
INSTALLS = ["operator", "standalone"]
FIXTURE = "seed2-b300-e810"
SEED = 2025
ROUNDS = int(os.environ.get("GDRCHECK_HOSTILE_ROUNDS", "24"))

HOSTILE = [
    # The reproducer: a Secret object in the YAML of today's main.
    "gpu-node-01\napiVersion: v1\nkind: Secret\nmetadata:\n  name: injected\n---\n#",
    "ens5f0np0\u2028kind: Secret",
    "ens5f0np0\u0085kind: Secret",
    "ens5f0np0\u009b2J",
    "bond1\u2029---",
    "x\r\n---\nkind: Secret",
    "# not a comment",
    "a: b",
    "- item",
    "'\"quoted\"'",
    "&anchor *alias !tag %TAG",
    "| >",
    "{a: [b]}",
    "true", "null", "0x1f", "1e3", "~", "",
    "\ufffe\uffff\ufdd0",
    "\x1b]0;title\x07\x1b[2J",
    "\x00".replace("\x00", "\x01\x02\x7f"),
    "\u00a0 \t trailing ",
    "n" * 300,
]


def walk_replace(o, old, new):
    """Every string equal to @old (a name) becomes @new, everywhere in the facts."""
    if isinstance(o, dict):
        return {k: walk_replace(v, old, new) for k, v in o.items()}
    if isinstance(o, list):
        return [walk_replace(v, old, new) for v in o]
    if isinstance(o, str):
        if o == old:
            return new
        if old in o and "/" in o:  # sysfs paths that name it
            return o.replace(old, new)
    return o


def random_name(rng):
    pool = ([chr(c) for c in range(0x00, 0x20)] + [chr(c) for c in range(0x7f, 0xa0)] +
            ["\u2028", "\u2029", "\u0085", "\ufeff", "\ufffe", "\uffff", "\U0010ffff", "\ud7ff",
             ":", "#", "-", "'", '"', "\\", "{", "}", "[", "]", ",", "&", "*", "!", "|", ">", "%", "@", "`",
             " ", "\n", "a", "Z", "0", ".", "/", "é", "中", "\U0001f600"])
    n = rng.choice([1, 2, 5, 15, 40, 200])
    s = "".join(rng.choice(pool) for _ in range(n))
    return s.replace("\x00", "")


def names_of(facts):
    """The node-derived names to replace: hostname, RDMA devices, netdevs, bonds, drivers, CNI files."""
    out = [facts["host"]["hostname"]]
    for n in facts["nics"]:
        out.append(n["name"])
        out += n.get("netdevs") or []
    out += [b["name"] for b in facts["roce"].get("bonds", [])]
    out += [c["file"] for c in facts.get("cni", {}).get("confs", [])]
    drv = facts["nics"][0].get("driver")
    if isinstance(drv, str):
        out.append(drv)
    seen = []
    for x in out:
        if isinstance(x, str) and x and x not in seen:
            seen.append(x)
    return seen


def loaders():
    out = [("PyYAML", yaml.SafeLoader)]
    if hasattr(yaml, "CSafeLoader"):
        out.append(("libyaml", yaml.CSafeLoader))
    return out


def check_output(gdrcheck, args, cwd, what, kubectl, hostile):
    errs = []
    p = subprocess.run([gdrcheck, "k8s"] + args, cwd=cwd, capture_output=True)
    if p.returncode not in (0, 1):
        return [f"{what}: k8s exited {p.returncode}: {p.stderr.decode(errors='replace')[:300]}"]
    j = subprocess.run([gdrcheck, "k8s", "--json"] + args, cwd=cwd, capture_output=True)
    for r in (p, j):
        err = r.stderr.decode(errors="replace")
        if any(s in err for s in k8slib.SANITIZER):
            return [f"{what}: sanitizer report: {err[-1500:]}"]
    if j.returncode != p.returncode:
        errs.append(f"{what}: --json exited {j.returncode}, the YAML {p.returncode}")
    try:
        out = json.loads(j.stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        return errs + [f"{what}: --json is not UTF-8 JSON: {e}"]
    want = [d["object"] for d in out["documents"]]
    try:
        text = p.stdout.decode("ascii")
    except UnicodeDecodeError as e:
        return errs + [f"{what}: the YAML is not ASCII: {e}"]
    for name, loader in loaders():
        try:
            got = [d for d in yaml.load_all(text, Loader=loader) if d is not None]
        except yaml.YAMLError as e:
            errs.append(f"{what}: {name} cannot read the YAML: {str(e)[:300]}")
            continue
        if got != want:
            errs.append(f"{what}: {name} reads other objects than --json prints "
                        f"({[d.get('kind') for d in got]} vs {[d.get('kind') for d in want]})")
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            for h in hostile:
                if len(h) >= 3 and h in line:
                    errs.append(f"{what}: a comment holds a value from the node: {line[:120]!r}")
    if kubectl and want:
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "out.yaml"), "w") as f:
                f.write(text)
            with open(os.path.join(d, "kustomization.yaml"), "w") as f:
                f.write("resources:\n- out.yaml\n")
            k = subprocess.run([kubectl, "kustomize", d], capture_output=True, text=True)
            key = lambda o: (o.get("kind"), o.get("metadata", {}).get("name"))
            if k.returncode != 0:
                # kustomize's writer (not the decoder) refuses C0/C1 characters.
                if "control characters are not allowed" not in k.stderr:
                    errs.append(f"{what}: kubectl's decoder refuses the YAML: {k.stderr[-300:]}")
            else:
                got = [x for x in yaml.safe_load_all(k.stdout) if x is not None]
                if sorted(map(key, got)) != sorted(map(key, want)):
                    errs.append(f"{what}: kubectl's decoder reads other objects than --json prints: "
                                f"{sorted(map(key, got))}")
    return errs


def invalid_utf8_root(src_root, tmp):
    """A copy of the fixture's tree where one netdev's name holds the byte 0xff."""
    dst = os.path.join(tmp, "root")
    shutil.copytree(src_root, dst, symlinks=True)
    old, new = b"ens6f1np1", b"ens6f1\xffnp1"
    for dirpath, dirnames, filenames in os.walk(dst.encode(), topdown=False):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            if os.path.islink(p):
                t = os.readlink(p)
                if old in t:
                    os.unlink(p)
                    os.symlink(t.replace(old, new), p)
            if n == old:
                os.rename(p, os.path.join(dirpath, new))
    return dst


def main():
    gdrcheck, fixtures = os.path.abspath(sys.argv[1]), sys.argv[2]
    kubectl = shutil.which("kubectl")
    name, d, args = k8slib.fixtures(fixtures, [FIXTURE])[0]
    base = json.loads(k8slib.run([gdrcheck, "collect"] + args, cwd=d, check_rc=[0]).stdout)
    errors, runs = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        def run_facts(facts, label, hostile, modes=MODES, installs=INSTALLS):
            nonlocal runs
            path = os.path.join(tmp, "facts.json")
            with open(path, "w") as f:
                json.dump(facts, f)
            for mode in modes:
                for inst in installs:
                    errors.extend(check_output(gdrcheck, ["--facts", path, "--mode", mode, "--install", inst],
                                               tmp, f"{label} --mode {mode} --install {inst}", kubectl, hostile))
                    runs += 1

        # 1. The reported reproducers.
        f = json.loads(json.dumps(base))
        f["host"]["hostname"] = HOSTILE[0]
        run_facts(f, "hostname with a Secret", [HOSTILE[0], "kind: Secret", "injected"])
        for h in HOSTILE[1:5]:
            f = walk_replace(base, "ens5f0np0", h)
            run_facts(f, f"netdev {h!r}", [h])
        bad = invalid_utf8_root(os.path.join(d, "root"), tmp)
        errors.extend(check_output(gdrcheck, ["--root", bad, "--mode", "shared"], tmp,
                                   "netdev with byte 0xff under --root", kubectl, []))
        runs += 1

        # 2. Every node-derived name, hostile and random.
        rng = random.Random(SEED)
        names = names_of(base)
        rdma_names = {n["name"] for n in base["nics"]}
        for i in range(ROUNDS):
            f = json.loads(json.dumps(base))
            used, used_names = [], set()
            for n in names:
                if rng.random() < 0.5:
                    h = rng.choice(HOSTILE) if rng.random() < 0.4 else random_name(rng)
                    if n in rdma_names:
                        # The facts schema holds RDMA device names to 63 bytes.
                        h = h.encode()[:60].decode(errors="ignore") or "x"
                    f = walk_replace(f, n, h) if n != base["host"]["hostname"] else f
                    if n == base["host"]["hostname"]:
                        f["host"]["hostname"] = h
                    used.append(h)
                    used_names.add(n)
            run_facts(f, f"round {i}", used, modes=[rng.choice(MODES)], installs=[rng.choice(INSTALLS)])
    for e in errors:
        print(e)
    print(f"{runs} runs, {len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
