#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every spec patch the pod gate emits is a strategic-merge patch of a Pod
that, merged into a Pod, makes a valid one: for every pod fixture and live
facts file, each patch of `pod --json` (findings, items, plan steps, the
merged one) and the output of `pod --spec-patch` (YAML and --json) is merged
with kubectl's own strategic merge (`kubectl patch --local`) into a minimal
Pod and validated as the API server decodes it: the Kubernetes 1.33 OpenAPI
schema with strict decoding's unknown-field and duplicate-field rules
(tests/k8s/validate-manifests.py). Also: --container names the container,
without it the patches say "<container>"; the merged patch is every plan
step's patch merged; node fixes carry no patch.

usage: spec-patch-test.py GDRCHECK SOURCE_ROOT FIXTURES
"""
import copy
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

gdr = os.path.abspath(sys.argv[1])
src = os.path.abspath(sys.argv[2])
fixtures = os.path.abspath(sys.argv[3])
sys.path.insert(0, os.path.join(src, "tests", "k8s"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import podlib  # noqa: E402
from podlib import ini  # noqa: E402
try:
    import yaml  # noqa: F401
    import jsonschema  # noqa: F401
except ImportError as e:
    print("SKIP: spec-patch-test needs python3-yaml and python3-jsonschema (%s)" % e)
    sys.exit(77)
kubectl = shutil.which("kubectl")
if not kubectl:
    print("SKIP: spec-patch-test needs kubectl (tools/install-deps.sh test installs it)")
    sys.exit(77)
spec = importlib.util.spec_from_file_location("validate_manifests",
                                              os.path.join(src, "tests", "k8s", "validate-manifests.py"))
vm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vm)
schemas = vm.Schemas(os.path.join(src, "tests", "data", "k8s"))

BASE = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "trainer-0"},
        "spec": {"containers": [{"name": "trainer", "image": "registry.example/trainer:1.0"}]}}
failures = []
merged_count = 0


def check(cond, what):
    if not cond:
        print("FAIL " + what)
        failures.append(what)


def run(args, cwd, env_extra=""):
    return podlib.run(gdr, args, cwd, env_extra)


def patches(doc):
    """(where, patch, node) of every fix of a pod report."""
    out = []
    for c in doc["checks"]:
        out.append((c["id"], c.get("spec_patch"), c.get("node")))
        for it in c["items"]:
            out.append(("%s %s" % (c["id"], it["subject"]), it.get("spec_patch"), it.get("node")))
    for step in doc["plan"] + doc.get("node_plan", []):
        out.append(("plan step %d" % step["step"], step.get("spec_patch"), step.get("node")))
    return out


def merge_errors(patch, tmp, where):
    """kubectl's strategic merge of @patch into BASE, validated strictly: (pod, errors)."""
    base = os.path.join(tmp, "pod.yaml")
    pfile = os.path.join(tmp, "patch.json")
    with open(base, "w") as f:
        f.write(yaml.safe_dump(BASE))
    with open(pfile, "w") as f:
        json.dump(patch, f)
    p = subprocess.run([kubectl, "patch", "--local", "-f", base, "--type", "strategic",
                        "--patch-file", pfile, "-o", "yaml"], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        return None, ["%s: kubectl patch --local refused the patch: %s" % (where, p.stderr.strip())]
    try:
        pod = vm.load_all(p.stdout)[0]
    except yaml.YAMLError as e:
        return None, ["%s: the merged Pod has a duplicate field: %s" % (where, e)]
    errs = []
    vm.validate(schemas, pod, where, errs)
    errs = ["merged into a Pod: " + e for e in errs]
    if pod == BASE:
        errs.append("%s: the patch changes nothing" % where)
    return pod, errs


def merge(patch, tmp, where):
    global merged_count
    pod, errs = merge_errors(patch, tmp, where)
    for e in errs:
        check(False, e)
    merged_count += not errs
    return pod


def canon(o):
    """Lists in a canonical order: a strategic merge orders merged entries its own way."""
    if isinstance(o, dict):
        return {k: canon(v) for k, v in o.items()}
    if isinstance(o, list):
        return sorted((canon(v) for v in o), key=lambda v: json.dumps(v, sort_keys=True))
    return o


def merged_plan(doc):
    """The plan steps' patches merged the way kubectl would merge them one after the other."""
    return [s["spec_patch"] for s in doc["plan"] if s.get("spec_patch")]


def cases():
    for name in sorted(os.listdir(fixtures)):
        d = os.path.join(fixtures, name)
        if not name.startswith("pod-") or not os.path.exists(os.path.join(d, "fixture.ini")):
            continue
        keys = ini(os.path.join(d, "fixture.ini"))
        for run_name, cmd in sorted(keys.items()):
            if not run_name.startswith("run.") or not cmd.startswith("pod --json"):
                continue
            args = cmd.split()[2:]
            if "--facts" not in args:
                args = ["--root", "root"] + args
            yield "%s %s" % (name, run_name[4:]), d, args, keys.get("env", "")


with tempfile.TemporaryDirectory() as tmp:
    n = 0
    for what, d, args, env in cases():
        n += 1
        r = run(["pod", "--json", "--container", "trainer"] + args, d, env)
        check(r.returncode in (0, 1), "%s: exit %d %s" % (what, r.returncode, r.stderr))
        doc = json.loads(r.stdout)
        check(doc["pod"]["container"] == "trainer", "%s: --container not used" % what)
        for where, patch, node in patches(doc):
            if node:
                check(patch is None, "%s %s: a node fix with a spec patch" % (what, where))
            if patch:
                merge(patch, tmp, "%s %s" % (what, where))
        whole = doc["pod"]["spec_patch"]
        if whole:
            pod = merge(whole, tmp, "%s pod.spec_patch" % what)
            # The merged patch says what the plan's patches say, applied one after the other.
            one = copy.deepcopy(BASE)
            for p in merged_plan(doc):
                with open(os.path.join(tmp, "pod.yaml"), "w") as f:
                    f.write(yaml.safe_dump(one))
                with open(os.path.join(tmp, "patch.json"), "w") as f:
                    json.dump(p, f)
                one = yaml.safe_load(subprocess.run([kubectl, "patch", "--local", "-f", os.path.join(tmp, "pod.yaml"),
                                                     "--type", "strategic", "--patch-file",
                                                     os.path.join(tmp, "patch.json"), "-o", "yaml"],
                                                    capture_output=True, text=True, check=True).stdout)
            check(canon(pod) == canon(one), "%s: pod.spec_patch is not the plan's patches merged" % what)
        else:
            check(not merged_plan(doc), "%s: plan steps with patches but no pod.spec_patch" % what)
        # --spec-patch prints the same patch, as YAML (strictly decodable) and as JSON.
        y = run(["pod", "--spec-patch", "--container", "trainer"] + args, d, env)
        check(y.returncode == r.returncode, "%s: --spec-patch exit %d, the report's %d" % (what, y.returncode, r.returncode))
        try:
            docs = vm.load_all(y.stdout)
            check(len(docs) == 1 and docs[0] == (whole or {}),
                  "%s: --spec-patch YAML differs from pod.spec_patch" % what)
        except yaml.YAMLError as e:
            check(False, "%s: --spec-patch YAML: %s" % (what, e))
        j = run(["pod", "--spec-patch", "--json", "--container", "trainer"] + args, d, env)
        check(json.loads(j.stdout) == (whole or {}), "%s: --spec-patch --json differs" % what)
        # Without --container the patches name "<container>", and nothing else changes.
        plain = run(["pod", "--json"] + args, d, env)
        text = plain.stdout.replace('"<container>"', '"trainer"')
        check(json.loads(text) == doc, "%s: without --container the report differs beyond the name" % what)
    check(n >= 12, "only %d pod runs found" % n)
    # The Pods docs/pod.md shows are whole and valid.
    with open(os.path.join(src, "docs", "pod.md")) as f:
        blocks = f.read().split("```yaml\n")[1:]
    pods = 0
    for b in blocks:
        text = b.split("```", 1)[0]
        try:
            docs = vm.load_all(text)
        except yaml.YAMLError as e:
            check(False, "docs/pod.md: a YAML block does not load strictly: %s" % e)
            continue
        for pod in docs:
            if isinstance(pod, dict) and pod.get("kind") == "Pod":
                errs = []
                vm.validate(schemas, pod, "docs/pod.md", errs)
                for e in errs:
                    check(False, e)
                check(all(c.get("image") for c in pod["spec"]["containers"]), "docs/pod.md: a Pod container without an image")
                pods += 1
    check(pods >= 4, "docs/pod.md shows %d whole Pods" % pods)
    # The validation refuses what the API server refuses: a misspelt field in a patch.
    merged = merged_count
    bad = {"spec": {"containers": [{"name": "trainer", "securityContext": {"capabilitiez": {}}}]}}
    check(merge_errors(bad, tmp, "self-test")[1] != [], "self-test: an unknown field in a patch was not caught")

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("spec-patch-test: %d runs, %d patches merged into a Pod and validated; %d Pods of docs/pod.md" % (n, merged, pods))
