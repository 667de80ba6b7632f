#!/usr/bin/env python3
"""One real NCCL log case: run `gdrcheck nccl-log --json` on the case's logs
and compare with its hand-derived expected.json.

expected.json holds the fields to check; a key "_x" is the comment for "x"
and is not compared. Special keys:
  exit           the exit status
  reason_codes   the sorted list of reason codes (exactly)
  error_codes    the sorted list of error codes (exactly)
  host_names     the sorted list of host names (exactly)
  hosts          {host name: {field: value}} subset of each host
  ranks          {"host/rank": {field: value}} subset of each rank
  node_args      extra arguments (e.g. ["--root", "tests/fixtures/x/root"]: a
                 fixture tree is read where the suite built it)
  node_moved     {"host/rank": "agree|job|node|unknown"}
Any other key is compared with the top-level field of the same name; dicts
are compared as subsets, and so are the objects of a list of the same length. Whatever expected.json says, a log with a version
line must have that version inside the range its line formats name
(nccl_format): the format table checked against every real log.

Usage: nccl-log-case.py GDRCHECK CASE_DIR [FIXTURES_DIR]
"""
import glob
import json
import os
import subprocess
import sys


def subset(want, got, path, errs):
    if isinstance(want, dict):
        if not isinstance(got, dict):
            errs.append(f"{path}: expected an object, got {got!r}")
            return
        for k, v in want.items():
            if k.startswith("_"):
                continue
            if k not in got:
                errs.append(f"{path}.{k}: missing")
                continue
            subset(v, got[k], f"{path}.{k}", errs)
    elif isinstance(want, list) and isinstance(got, list) and len(want) == len(got) and \
            any(isinstance(w, dict) for w in want):
        # a list of objects: element by element, each a subset
        for i, (w, g) in enumerate(zip(want, got)):
            subset(w, g, f"{path}[{i}]", errs)
    elif want != got:
        errs.append(f"{path}: expected {want!r}, got {got!r}")


def vnum(text, upper):
    """'2.13' -> 21300 (21399 as an upper end), '2.18.3' -> 21803."""
    parts = [int(x) for x in text.split(".")]
    patch = parts[2] if len(parts) > 2 else (99 if upper else 0)
    return parts[0] * 10000 + parts[1] * 100 + patch


def format_holds(version, fmt):
    """Is NCCL `version` one that prints lines in the `fmt` range?"""
    v = vnum(version.split("+")[0], False)
    if fmt.endswith("+"):
        return v >= vnum(fmt[:-1], False)
    if fmt.startswith("up to "):
        return v <= vnum(fmt[6:], True)
    if " to " in fmt:
        lo, hi = fmt.split(" to ")
        return vnum(lo, False) <= v <= vnum(hi, True)
    return vnum(fmt, False) <= v <= vnum(fmt, True)


def main():
    gdrcheck, case = sys.argv[1], sys.argv[2]
    fixtures = sys.argv[3] if len(sys.argv) > 3 else os.path.join("tests", "fixtures")
    with open(os.path.join(case, "expected.json")) as f:
        exp = json.load(f)
    logs = sorted(glob.glob(os.path.join(case, "*.log")) +
                  glob.glob(os.path.join(case, "*.log.gz")))
    if not logs:
        print(f"{case}: no logs")
        return 1
    extra = [os.path.join(fixtures, a[len("tests/fixtures/"):]) if a.startswith("tests/fixtures/") else a
             for a in exp.get("node_args", [])]
    p = subprocess.run([gdrcheck, "nccl-log", "--json"] + extra + logs,
                       capture_output=True, text=True)
    errs = []
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        print(f"{case}: output is not JSON ({e}); stderr: {p.stderr}")
        return 1
    if doc.get("schema") != "gdrcheck.nccllog/1":
        errs.append(f"schema: {doc.get('schema')!r}")
    for k, v in exp.items():
        if k.startswith("_") or k == "node_args":
            continue
        if k == "exit":
            if p.returncode != v:
                errs.append(f"exit: expected {v}, got {p.returncode}")
        elif k in ("reason_codes", "error_codes"):
            got = sorted(x["code"] for x in doc[k.split("_")[0] + "s"])
            if got != sorted(v):
                errs.append(f"{k}: expected {sorted(v)}, got {got}")
        elif k == "host_names":
            got = sorted(h["name"] for h in doc["hosts"])
            if got != sorted(v):
                errs.append(f"host_names: expected {sorted(v)}, got {got}")
        elif k in ("hosts", "ranks"):
            # hosts by name, ranks by "host/rank"
            by = {(x["name"] if k == "hosts" else f"{x['host']}/{x['rank']}"): x
                  for x in doc[k]}
            want = {key: w for key, w in v.items() if not key.startswith("_")}
            for key, w in want.items():
                if key not in by:
                    errs.append(f"{k}.{key}: missing (have {sorted(by)[:20]})")
                else:
                    subset(w, by[key], f"{k}.{key}", errs)
        elif k == "node_moved":
            rows = (doc.get("node") or {}).get("comparisons", [])
            by = {f"{r['host']}/{r['rank'] if r['rank'] is not None else '-'}": r["moved"]
                  for r in rows}
            for key, want in v.items():
                if not key.startswith("_") and by.get(key) != want:
                    errs.append(f"node_moved.{key}: expected {want}, got {by.get(key)}")
        else:
            subset(v, doc.get(k), k, errs)
    if doc.get("nccl_version") and doc.get("nccl_format") and \
            not format_holds(doc["nccl_version"], doc["nccl_format"]):
        errs.append(f"nccl_format {doc['nccl_format']!r} does not hold "
                    f"version {doc['nccl_version']!r}")
    for e in errs:
        print(f"{os.path.basename(case)}: {e}")
    if errs:
        print(p.stdout[:4000])
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
