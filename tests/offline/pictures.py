#!/usr/bin/env python3
"""The node pictures of `gdrcheck topo --format svg|dot|html`.

  pictures.py golden GDRCHECK TESTS_DIR FIXTURES_DIR   SVG and DOT of a few inputs equal
                                            tests/data/pictures/<case>.{svg,dot}, and
                                            docs/topo-seed2.svg is seed-2's SVG
                                            (GDRCHECK_UPDATE_GOLDEN=1 rewrites)
  pictures.py all GDRCHECK TESTS_DIR FIXTURES_DIR      every fixture and real-world input:
                                            the SVG and the HTML are well-formed
                                            XML, no two boxes overlap, every box
                                            lies inside the picture
  pictures.py dot GDRCHECK TESTS_DIR FIXTURES_DIR      `dot -Tsvg` accepts every DOT output
                                            (skips when Graphviz is missing)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
# The built fixtures (<build>/tests/fixtures): main's FIXTURES_DIR.
FIXTURES = None
# Its SVG is also the picture in docs/topo.md.
DOC_CASE = "fixture:seed2-b300-e810"
GOLDEN_CASES = [
    "fixture:seed2-b300-e810",
    "fixture:hgx-h100-bcm-gen5",
    "fixture:b-vllm-19703-gb200-4nic",
    "nccl-xml:A-aws-ofi-nccl-p5.48xl-pr1226/p5.48xl-topo.xml",
    "nccl-xml:../pictures/nvlink-2gpu-topo.xml",
]


def inputs(tests):
    """(case name, cwd, input arguments) for every input the tests hold."""
    for name in sorted(os.listdir(FIXTURES)):
        # node roots only: a container's root without sysfs is refused as a node
        if os.path.isdir(os.path.join(FIXTURES, name, "root", "sys", "bus", "pci", "devices")):
            yield "fixture:" + name
    rw = os.path.join(tests, "data", "realworld")
    for d in sorted(os.listdir(rw)):
        for f in sorted(os.listdir(os.path.join(rw, d))):
            exp = os.path.join(rw, d, f + ".expected")
            if not os.path.exists(exp):
                continue
            with open(exp, encoding="utf-8") as e:
                lines = e.read().splitlines()
            kind = next((l.split()[1] for l in lines if l.startswith("input ")), "")
            # Inputs gdrcheck refuses (their .expected says exit 3) draw nothing.
            if kind in ("nccl-xml", "hwloc-xml") and "exit 3" not in lines:
                yield kind + ":" + d + "/" + f
    yield "facts:device/h200-vm-facts.json"
    yield "nccl-xml:../pictures/nvlink-2gpu-topo.xml"


def argv_of(tests, case):
    kind, _, rest = case.partition(":")
    if kind == "fixture":
        return os.path.join(FIXTURES, rest), ["--root", "root"]
    if kind == "facts":
        return tests, ["--facts", os.path.join(tests, "data", rest)]
    return tests, ["--" + kind, os.path.join(tests, "data", "realworld", rest)]


def gdrcheck(exe, tests, case, fmt):
    cwd, args = argv_of(tests, case)
    env = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "HOME": "/nonexistent"}
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if k in os.environ:
            env[k] = os.environ[k]
    p = subprocess.run([exe, "topo", "--format", fmt] + args, cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=60)
    if p.returncode == 3 and "needs libhwloc 3" in p.stderr:
        return None  # an hwloc 3 file this libhwloc cannot read
    if p.returncode != 0:
        raise AssertionError(f"{case}: topo --format {fmt} exited {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def drawable(exe, tests, case, fmt):
    """The output, or None (said) for an input this build cannot read."""
    out = gdrcheck(exe, tests, case, fmt)
    if out is None:
        print(f"skip {case}: needs libhwloc 3")
    return out


def golden_name(case):
    return case.split(":", 1)[1].replace("../pictures/", "").replace("/", "-")


def check_golden(exe, tests):
    gdir = os.path.join(tests, "data", "pictures")
    update = os.environ.get("GDRCHECK_UPDATE_GOLDEN") == "1"
    bad = 0
    for case in GOLDEN_CASES:
        for fmt in ("svg", "dot"):
            out = gdrcheck(exe, tests, case, fmt)
            paths = [os.path.join(gdir, golden_name(case) + "." + fmt)]
            if case == DOC_CASE and fmt == "svg":
                paths.append(os.path.join(tests, "..", "docs", "topo-seed2.svg"))
            for path in paths:
                if update:
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(out)
                    continue
                with open(path, encoding="utf-8") as f:
                    want = f.read()
                if out != want:
                    print(f"FAIL {case} --format {fmt} differs from {os.path.relpath(path, tests)}")
                    bad += 1
                else:
                    print(f"ok   {case} {fmt} = {os.path.relpath(path, tests)}")
    return bad


def boxes_of(root):
    out = []
    for r in root.iter(SVG + "rect"):
        if "box" in r.get("class", "").split():
            out.append(tuple(int(r.get(k)) for k in ("x", "y", "width", "height")))
    return out


def check_svg(case, text):
    """Well-formed, boxes disjoint, inside the picture and below the notes."""
    root = ET.fromstring(text)
    width, height = int(root.get("width")), int(root.get("height"))
    notes_bottom = max((int(t.get("y")) for t in root.findall(SVG + "text")
                        if t.get("class") == "note" and t.get("y")), default=0)
    boxes = boxes_of(root)
    errors = []
    for i, (x, y, w, h) in enumerate(boxes):
        if x < 0 or y < notes_bottom or x + w > width or y + h > height:
            errors.append(f"box {i} {x},{y} {w}x{h} outside the picture {width}x{height} or over the legend")
        for j in range(i + 1, len(boxes)):
            x2, y2, w2, h2 = boxes[j]
            if x < x2 + w2 and x2 < x + w and y < y2 + h2 and y2 < y + h:
                errors.append(f"boxes {i} and {j} overlap: {boxes[i]} {boxes[j]}")
    # One highlighted path per GPU that has a NIC.
    gpus = [g for g in root.iter(SVG + "g") if "gpu" in g.get("class", "").split()]
    paths = [p for p in root.iter(SVG + "polyline") if "path" in p.get("class", "").split()]
    nics = [g for g in root.iter(SVG + "g") if "nic" in g.get("class", "").split()]
    if nics and len(paths) != len(gpus):
        errors.append(f"{len(gpus)} GPUs but {len(paths)} highlighted paths")
    for p in paths:
        if p.find(SVG + "title") is None:
            errors.append("a highlighted path without a <title> tooltip")
    return [f"{case}: {e}" for e in errors], len(boxes)


def check_all(exe, tests):
    bad = 0
    for case in inputs(tests):
        svg = drawable(exe, tests, case, "svg")
        if svg is None:
            continue
        try:
            errors, n = check_svg(case, svg)
            ET.fromstring(gdrcheck(exe, tests, case, "html"))
        except (AssertionError, ET.ParseError) as e:
            errors, n = [f"{case}: {e}"], 0
        for e in errors:
            print("FAIL", e)
        bad += bool(errors)
        if not errors:
            print(f"ok   {case}: {n} boxes")
    return bad


def check_dot(exe, tests):
    dot = shutil.which("dot")
    if not dot:
        print("SKIP: Graphviz `dot` is not installed (tools/install-deps.sh installs graphviz)")
        return 77
    bad = 0
    for case in inputs(tests):
        text = drawable(exe, tests, case, "dot")
        if text is None:
            continue
        p = subprocess.run([dot, "-Tsvg"], input=text, capture_output=True,
                           text=True, timeout=120)
        if p.returncode != 0 or p.stderr.strip():
            print(f"FAIL {case}: dot -Tsvg: rc {p.returncode}: {p.stderr.strip()}")
            bad += 1
        else:
            print(f"ok   {case}")
    return bad


def main():
    global FIXTURES
    mode, exe, tests = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    FIXTURES = os.path.abspath(sys.argv[4])
    rc = {"golden": check_golden, "all": check_all, "dot": check_dot}[mode](exe, tests)
    if rc == 77:
        sys.exit(77)
    sys.exit(1 if rc else 0)


if __name__ == "__main__":
    main()
